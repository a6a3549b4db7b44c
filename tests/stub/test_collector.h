// A recording ITT collector for the static part's tests.
//
// test_collector.cc builds into shared libraries that implement every ITT
// API function by appending one line per call to an in-memory log:
//
//   name(arg, arg, ...)            for calls without a result
//   name(arg, ...) -> result       for calls with one
//
// Arguments are rendered by FormatArg below, so a test renders the line it
// expects from the same values it passed. The variants:
//   libtest_collector_init.so     exports __itt_api_init (binds the table
//                                 itself and records the objects the static
//                                 part created before the load)
//   libtest_collector_symbols.so  no __itt_api_init: the static part looks
//                                 up each __itt_<name>
//
// The tests reach the log through the C functions below, looked up in the
// already-loaded library (CollectorLog). Thread-safe.
#ifndef TESTS_STUB_TEST_COLLECTOR_H_
#define TESTS_STUB_TEST_COLLECTOR_H_

#include <dlfcn.h>
#include <ittnotify.h>
#include <stdio.h>

#include <cinttypes>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
// Calls to __itt_api_init so far.
typedef int (*TestCollectorInitCountFn)(void);
// Copies the log into `out` (one string per call) and clears it.
typedef void (*TestCollectorTakeLogFn)(void (*sink)(void *ctx, const char *), void *ctx);
}

namespace ittc::testing {

// Rendering of one argument: pointers in hex, strings quoted (null as
// "null"), ids as {d1,d2,d3}, integers and enums in decimal.
inline std::string FormatArg(const char *s) {
  return s == nullptr ? std::string("null") : "\"" + std::string(s) + "\"";
}
inline std::string FormatArg(char *s) { return FormatArg(static_cast<const char *>(s)); }
inline std::string FormatArg(const __itt_id &id) {
  char buf[96];
  snprintf(buf, sizeof(buf), "{%llu,%llu,%llu}", id.d1, id.d2, id.d3);
  return buf;
}
inline std::string FormatArg(double v) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}
template <typename T>
std::string FormatArg(T v) {
  char buf[64];
  if constexpr (std::is_pointer<T>::value) {
    snprintf(buf, sizeof(buf), "%p", reinterpret_cast<const void *>(v));
  } else if constexpr (std::is_enum<T>::value) {
    snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  } else if constexpr (std::is_signed<T>::value) {
    snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  } else {
    snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(v));
  }
  return buf;
}

inline std::string JoinArgs() { return std::string(); }
template <typename T, typename... Rest>
std::string JoinArgs(const T &first, const Rest &...rest) {
  std::string s = FormatArg(first);
  if constexpr (sizeof...(rest) > 0) s += ", " + JoinArgs(rest...);
  return s;
}

// The line a call `name(args...)` leaves in the log.
template <typename... Args>
std::string Call(const char *name, const Args &...args) {
  return std::string(name) + "(" + JoinArgs(args...) + ")";
}

// The same with the collector's result appended.
template <typename R, typename... Args>
std::string CallReturning(R result, const char *name, const Args &...args) {
  return Call(name, args...) + " -> " + FormatArg(result);
}

// Access to the log of a collector the static part has already loaded.
class CollectorLog {
 public:
  // REQUIRES: the library at `path` is loaded (returns an invalid log
  // otherwise; see ok()).
  explicit CollectorLog(const std::string &path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle_ == nullptr) return;
    init_count_ =
        reinterpret_cast<TestCollectorInitCountFn>(dlsym(handle_, "test_collector_init_count"));
    take_log_ = reinterpret_cast<TestCollectorTakeLogFn>(dlsym(handle_, "test_collector_take_log"));
  }
  ~CollectorLog() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  CollectorLog(const CollectorLog &) = delete;
  CollectorLog &operator=(const CollectorLog &) = delete;

  bool ok() const { return init_count_ != nullptr && take_log_ != nullptr; }
  int InitCount() const { return init_count_(); }

  // The calls recorded since the last Take().
  std::vector<std::string> Take() const {
    std::vector<std::string> lines;
    take_log_(
        [](void *ctx, const char *line) {
          static_cast<std::vector<std::string> *>(ctx)->push_back(line);
        },
        &lines);
    return lines;
  }

 private:
  void *handle_ = nullptr;
  TestCollectorInitCountFn init_count_ = nullptr;
  TestCollectorTakeLogFn take_log_ = nullptr;
};

// Absolute path of a file in this test's runfiles, e.g.
// RunfilePath("tests/stub/libtest_collector_init.so").
inline std::string RunfilePath(const std::string &relative) {
  const char *srcdir = getenv("TEST_SRCDIR");
  const char *workspace = getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return relative;
  return std::string(srcdir) + "/" + workspace + "/" + relative;
}

}  // namespace ittc::testing

#endif  // TESTS_STUB_TEST_COLLECTOR_H_
