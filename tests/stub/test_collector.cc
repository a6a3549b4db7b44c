// The recording test collector (see test_collector.h). Built twice:
// with TEST_COLLECTOR_WITH_API_INIT it exports __itt_api_init, without it
// the static part binds each __itt_<name> by dlsym.
//
// Thread safety: the log and the counters are guarded by `mu`; the objects
// returned to the program are never freed.
#define INTEL_NO_MACRO_BODY
#define INTEL_ITTNOTIFY_API_PRIVATE

#include "tests/stub/test_collector.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include <atomic>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "stub/abi/itt_static_abi.h"
#include "stub/src/itt_legacy_types.h"

namespace {

using ittc::testing::Call;
using ittc::testing::CallReturning;
using ittc::testing::FormatArg;

std::mutex mu;
std::vector<std::string> *call_log = new std::vector<std::string>();
int init_count = 0;
std::atomic<unsigned long> next_result{1};

// Objects handed to the program stay alive (and reachable, for LeakSanitizer)
// until the process ends.
std::vector<void *> *kept_objects = new std::vector<void *>();

template <typename T>
T Keep(T object) {
  std::lock_guard<std::mutex> lock(mu);
  kept_objects->push_back(reinterpret_cast<void *>(object));
  return object;
}

void Append(std::string line) {
  std::lock_guard<std::mutex> lock(mu);
  call_log->push_back(std::move(line));
}

// What the collector returns from a function with a result: fresh objects
// for the creators, distinct numbers otherwise, so that a test can check the
// value reached the program.
template <typename T>
struct Result {
  template <typename... Args>
  static T Make(const Args &...) {
    if constexpr (std::is_pointer<T>::value) {
      return Keep(reinterpret_cast<T>(new unsigned long(next_result++)));
    } else if constexpr (std::is_enum<T>::value) {
      return static_cast<T>(1);
    } else {
      return static_cast<T>(next_result++);
    }
  }
};

template <>
struct Result<__itt_domain *> {
  static __itt_domain *Make(const char *name) {
    __itt_domain *d = new __itt_domain();
    d->flags = 1;
    d->nameA = strdup(name);
    return Keep(d);
  }
};

template <>
struct Result<__itt_string_handle *> {
  static __itt_string_handle *Make(const char *name) {
    __itt_string_handle *h = new __itt_string_handle();
    h->strA = strdup(name);
    return Keep(h);
  }
};

template <>
struct Result<const char *> {
  static const char *Make() { return "test-collector"; }
};

// Renders the variadic arguments of the formatted-metadata calls from the
// printf-style format held by the string handle.
std::string FormatVarargs(const __itt_string_handle *format, va_list args) {
  std::string out;
  if (format == nullptr || format->strA == nullptr) return out;
  for (const char *p = format->strA; *p != '\0'; ++p) {
    if (*p != '%') continue;
    ++p;
    if (*p == '%') continue;
    p += strspn(p, "-+ #0123456789.");
    int longs = 0;
    while (*p == 'l' || *p == 'h' || *p == 'z') {
      if (*p == 'l' || *p == 'z') ++longs;
      ++p;
    }
    out += ", ";
    switch (*p) {
      case 'd':
      case 'i':
        out += longs >= 1 ? FormatArg(va_arg(args, long long)) : FormatArg(va_arg(args, int));
        break;
      case 'u':
      case 'x':
        out += longs >= 1 ? FormatArg(va_arg(args, unsigned long long))
                          : FormatArg(va_arg(args, unsigned int));
        break;
      case 'f':
      case 'g':
      case 'e':
        out += FormatArg(va_arg(args, double));
        break;
      case 's':
        out += FormatArg(va_arg(args, const char *));
        break;
      case 'p':
        out += FormatArg(va_arg(args, void *));
        break;
      case 'c':
        out += FormatArg(va_arg(args, int));
        break;
      default:
        out += "?";
        return out;
    }
  }
  return out;
}

}  // namespace

// ---- Every API function ----------------------------------------------------

#define ITTC_ARGS_(...) __VA_OPT__(, ) __VA_ARGS__

#define ITTC_BODY_V(ret, name, args) \
  { Append(Call(#name ITTC_ARGS_ args)); }
#define ITTC_BODY_D(ret, name, args)                      \
  {                                                       \
    ret result = Result<ret>::Make args;                  \
    Append(CallReturning(result, #name ITTC_ARGS_ args)); \
    return result;                                        \
  }

#define ITTC_API(rk, ret, name, params, args, dll, groups, kind) \
  extern "C" ret ITTAPI __itt_##name params ITTC_BODY_##rk(ret, name, args)
#define ITTC_API_VA(rk, ret, name, params, args, dll, groups, kind)
#define ITTC_API_ALIAS(rk, ret, name, params, args, dll, groups, kind)
#include "stub/src/itt_api_list.inc"
#undef ITTC_API
#undef ITTC_API_VA
#undef ITTC_API_ALIAS

extern "C" void ITTAPI __itt_formatted_metadata_add(const __itt_domain *domain,
                                                    __itt_string_handle *format, ...) {
  va_list args;
  va_start(args, format);
  std::string rest = FormatVarargs(format, args);
  va_end(args);
  std::string line = Call("formatted_metadata_add", domain, format);
  line.insert(line.size() - 1, rest);
  Append(line);
}

extern "C" void ITTAPI __itt_formatted_metadata_add_overlapped(const __itt_domain *domain,
                                                               __itt_id taskid,
                                                               __itt_string_handle *format, ...) {
  va_list args;
  va_start(args, format);
  std::string rest = FormatVarargs(format, args);
  va_end(args);
  std::string line = Call("formatted_metadata_add_overlapped", domain, taskid, format);
  line.insert(line.size() - 1, rest);
  Append(line);
}

#ifdef TEST_COLLECTOR_WITH_API_INIT
// As ours (collector/itt_tasks.cc): the static part's way to pass the
// variadic arguments of the call that loads the collector. Logged as the
// call itself.
extern "C" __attribute__((visibility("default"))) void ittc_formatted_metadata_add_va(
    const __itt_domain *domain, __itt_string_handle *format, va_list args) {
  std::string line = Call("formatted_metadata_add", domain, format);
  line.insert(line.size() - 1, FormatVarargs(format, args));
  Append(line);
}
#endif

// ---- Query functions for the tests -----------------------------------------

extern "C" __attribute__((visibility("default"))) int test_collector_init_count(void) {
  std::lock_guard<std::mutex> lock(mu);
  return init_count;
}

extern "C" __attribute__((visibility("default"))) void test_collector_take_log(
    void (*sink)(void *ctx, const char *), void *ctx) {
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(mu);
    lines.swap(*call_log);
  }
  for (const std::string &line : lines) sink(ctx, line.c_str());
}

// ---- __itt_api_init ---------------------------------------------------------

#ifdef TEST_COLLECTOR_WITH_API_INIT

namespace {

struct Entry {
  const char *name;
  void *fn;
};

#define ITTC_API(rk, ret, name, params, args, dll, groups, kind) \
  {"__itt_" #name, reinterpret_cast<void *>(&__itt_##name)},
#define ITTC_API_ALIAS(rk, ret, name, params, args, dll, groups, kind)
const Entry kEntries[] = {
#include "stub/src/itt_api_list.inc"
};
#undef ITTC_API
#undef ITTC_API_ALIAS

void *Lookup(const char *name) {
  for (const Entry &e : kEntries) {
    if (strcmp(e.name, name) == 0) return e.fn;
  }
  return nullptr;
}

// One line describing the static part and the objects it created before the
// load:
//   api_init(groups) global=ptr build=N domains=[ptr "name";...] strings=...
std::string DescribeStaticPart(const __itt_global *g, __itt_group_id groups) {
  std::string s = "api_init(" + FormatArg(static_cast<int>(groups)) + ")";
  s += " global=" + FormatArg(static_cast<const void *>(g));
  s += " build=" + FormatArg(g->version_build);
  s += " domains=[";
  for (const __itt_domain *d = g->domain_list; d != nullptr; d = d->next) {
    s += FormatArg(d) + " " + FormatArg(d->nameA) + ";";
  }
  s += "] strings=[";
  for (const __itt_string_handle *h = g->string_list; h != nullptr; h = h->next) {
    s += FormatArg(h) + " " + FormatArg(h->strA) + ";";
  }
  s += "] counters=[";
  if (ITTC_ABI_HAS_COUNTER_LIST(g)) {
    for (const __itt_counter_info_t *c = g->counter_list; c != nullptr; c = c->next) {
      s += FormatArg(c) + " " + FormatArg(c->nameA) + " " + FormatArg(c->domainA) + " " +
           FormatArg(c->type) + ";";
    }
  }
  s += "] histograms=[";
  if (ITTC_ABI_HAS_HISTOGRAM_LIST(g)) {
    for (const __itt_histogram *h = g->histogram_list; h != nullptr; h = h->next) {
      s += FormatArg(h) + " " + FormatArg(h->domain) + " " + FormatArg(h->nameA) + " " +
           FormatArg(h->x_type) + " " + FormatArg(h->y_type) + ";";
    }
  }
  s += "] metadata=[";
  if (ITTC_ABI_HAS_COUNTER_METADATA_LIST(g)) {
    for (const __itt_counter_metadata *m = g->counter_metadata_list; m != nullptr; m = m->next) {
      s += FormatArg(m->counter) + " " + FormatArg(m->type) + " " + FormatArg(m->str_valueA) + " " +
           FormatArg(m->value) + ";";
    }
  }
  s += "]";
  return s;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void __itt_api_init(__itt_global *g,
                                                                      __itt_group_id init_groups) {
  static const unsigned char kMagic[] = ITT_MAGIC;
  if (g == nullptr || memcmp(g->magic, kMagic, sizeof(kMagic)) != 0) return;
  // As Intel's reference collector does: lock the static part's (recursive)
  // mutex, which the static part already holds while calling us.
  pthread_mutex_lock(&g->mutex);
  {
    std::lock_guard<std::mutex> lock(mu);
    ++init_count;
  }
  Append(DescribeStaticPart(g, init_groups));
  for (__itt_api_info *row = g->api_list_ptr; row->name != nullptr; ++row) {
    void *fn = Lookup(row->name);
    // Release pairs with the acquire loads of the call macros.
    __atomic_store_n(row->func_ptr, fn != nullptr ? fn : row->null_func, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g->mutex);
}

extern "C" __attribute__((visibility("default"))) void __itt_api_fini(__itt_global *g) {
  Append(Call("api_fini", static_cast<void *>(g)));
}

#endif  // TEST_COLLECTOR_WITH_API_INIT
