#include "bench/name_lookups.h"

#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <ittnotify.h>

#include <cstdio>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/call_registry.h"

namespace ittc::bench {
namespace {

// One static part's API pointer variables, called as its call macros call
// them: the pointer loaded on every call, the call skipped when it is null
// (or, for a call with a domain, when the domain is disabled).
struct StaticPart {
  const char* name;
  const char* domain;  // of its tasks
  decltype(ITTNOTIFY_NAME(domain_create))* domain_create;
  decltype(ITTNOTIFY_NAME(string_handle_create))* string_handle_create;
  decltype(ITTNOTIFY_NAME(task_begin))* task_begin;
  decltype(ITTNOTIFY_NAME(task_end))* task_end;

  template <typename Fn>
  static Fn Load(Fn* slot) {
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  }
  __itt_domain* DomainCreate(const char* n) const {
    auto fn = Load(domain_create);
    return fn != nullptr ? fn(n) : nullptr;
  }
  __itt_string_handle* StringHandleCreate(const char* n) const {
    auto fn = Load(string_handle_create);
    return fn != nullptr ? fn(n) : nullptr;
  }
  void TaskBegin(const __itt_domain* d, __itt_string_handle* n) const {
    if (d->flags == 0) return;
    if (auto fn = Load(task_begin)) fn(d, __itt_null, __itt_null, n);
  }
  void TaskEnd(const __itt_domain* d) const {
    if (d->flags == 0) return;
    if (auto fn = Load(task_end)) fn(d);
  }
};

// Names like the operator names PyTorch passes ("aten::convolution").
std::vector<std::string> MakeNames(size_t count) {
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    char text[32];
    std::snprintf(text, sizeof(text), "op::kernel_%04zu", i);
    names.emplace_back(text);
  }
  return names;
}

// What one static part's benchmarks share. Kept in a deque: the bodies
// keep pointers to it.
struct Setup {
  StaticPart part;
  __itt_domain* domain = nullptr;
  __itt_string_handle* task_name = nullptr;
  std::vector<std::string> names;  // the 3000; the first 300 are the short list
};
std::deque<Setup> g_setups;

constexpr size_t kNameCounts[] = {300, 3000};

// Group names live as long as the registry that points to them.
const char* Keep(std::string name) {
  static auto* kept = new std::deque<std::string>;
  return kept->emplace_back(std::move(name)).c_str();
}

// Makes the static part load the collector (its first call that is not a
// creation does), then creates every name, so that the bodies look up
// names created before. Creations made before the load would take the
// static part's own list instead of the collector.
void Prepare(Setup* s) {
  s->domain = s->part.DomainCreate(s->part.domain);
  s->task_name = s->part.StringHandleCreate("bench_task");
  if (s->domain == nullptr) return;
  s->part.TaskBegin(s->domain, s->task_name);
  s->part.TaskEnd(s->domain);
  s->names = MakeNames(kNameCounts[1]);
  for (const std::string& n : s->names) {
    s->part.StringHandleCreate(n.c_str());
    s->part.DomainCreate(n.c_str());
  }
}

void Register(Setup* s, const std::string& state) {
  const std::string suffix = std::string("/") + s->part.name;
  // No kinds: the groups share their domain, so the recorded report (which
  // counts events by kind and domain) could not tell them apart.
  RegisterCallGroup(CallGroup{Keep("TaskBegin" + suffix), 1, {}, ""}, state,
                    [s](benchmark::State& st) {
                      for (auto _ : st) s->part.TaskBegin(s->domain, s->task_name);
                    });
  RegisterCallGroup(CallGroup{Keep("TaskBeginEnd" + suffix), 2, {}, ""}, state,
                    [s](benchmark::State& st) {
                      for (auto _ : st) {
                        s->part.TaskBegin(s->domain, s->task_name);
                        s->part.TaskEnd(s->domain);
                      }
                    });
  for (size_t count : kNameCounts) {
    const std::string n = "/" + std::to_string(count) + suffix;
    // One call per iteration, the names taken in turn; no events.
    auto lookups = [s, count](auto* (StaticPart::*create)(const char*) const) {
      return [s, count, create](benchmark::State& st) {
        size_t i = 0;
        for (auto _ : st) {
          benchmark::DoNotOptimize((s->part.*create)(s->names[i].c_str()));
          if (++i == count) i = 0;
        }
      };
    };
    RegisterCallGroup(CallGroup{Keep("StringHandleCreate" + n), 1, {}, ""}, state,
                      lookups(&StaticPart::StringHandleCreate));
    RegisterCallGroup(CallGroup{Keep("DomainCreate" + n), 1, {}, ""}, state,
                      lookups(&StaticPart::DomainCreate));
    // emit_itt's range: create, begin, end. "calls" counts its two events.
    RegisterCallGroup(
        CallGroup{Keep("NamedTask" + n), 2, {}, ""}, state, [s, count](benchmark::State& st) {
          size_t i = 0;
          for (auto _ : st) {
            s->part.TaskBegin(s->domain, s->part.StringHandleCreate(s->names[i].c_str()));
            s->part.TaskEnd(s->domain);
            if (++i == count) i = 0;
          }
        });
  }
}

// Intel's static part in a shared library of its own. Built with
// -Bsymbolic, it calls through its own pointer variables even though ours,
// linked into this binary, have the same names.
bool LoadIntelStaticPart(const std::string& path, StaticPart* part) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "--intel_static: %s\n", dlerror());
    return false;
  }
  auto find = [lib, &path](const char* symbol, auto** slot) {
    *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(lib, symbol));
    if (*slot == nullptr)
      std::fprintf(stderr, "--intel_static: %s lacks %s\n", path.c_str(), symbol);
    return *slot != nullptr;
  };
  part->name = "intel";
  part->domain = "bench.names.intel";
  if (!find("__itt_domain_create_ptr__3_0", &part->domain_create) ||
      !find("__itt_string_handle_create_ptr__3_0", &part->string_handle_create) ||
      !find("__itt_task_begin_ptr__3_0", &part->task_begin) ||
      !find("__itt_task_end_ptr__3_0", &part->task_end)) {
    return false;
  }
  if (part->task_begin == &ITTNOTIFY_NAME(task_begin)) {
    std::fprintf(stderr,
                 "--intel_static: %s binds to this binary's pointers (link it -Bsymbolic)\n",
                 path.c_str());
    return false;
  }
  return true;
}

}  // namespace

bool RegisterNameLookups(const std::string& state, const std::string& intel_static) {
  StaticPart ours = {"stub",
                     "bench.names",
                     &ITTNOTIFY_NAME(domain_create),
                     &ITTNOTIFY_NAME(string_handle_create),
                     &ITTNOTIFY_NAME(task_begin),
                     &ITTNOTIFY_NAME(task_end)};
  std::vector<StaticPart> parts = {ours};
  if (!intel_static.empty()) {
    StaticPart intel{};
    if (!LoadIntelStaticPart(intel_static, &intel)) return false;
    parts.push_back(intel);
  }
  for (const StaticPart& part : parts) {
    g_setups.emplace_back();
    g_setups.back().part = part;
    Prepare(&g_setups.back());
    Register(&g_setups.back(), state);
  }
  return true;
}

}  // namespace ittc::bench
