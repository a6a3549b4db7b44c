#include "bench/call_registry.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <thread>

#include "bench/bench_env.h"

namespace ittc::bench {
namespace {

struct Registered {
  Registered(const CallGroup& g, std::string name) : group(g), benchmark_name(std::move(name)) {}
  CallGroup group;
  std::string benchmark_name;
  std::atomic<uint64_t> calls_made{0};
};

uint64_t g_sustained_calls = 0;

// Long enough for the flusher to drain a full default ring (4 MiB) at the
// slowest rate seen on this machine, with room for a busy scheduler.
constexpr auto kSettle = std::chrono::milliseconds(500);

// A deque: the lambdas keep pointers to the entries.
std::deque<Registered>& Registry() {
  static auto* registry = new std::deque<Registered>;
  return *registry;
}

benchmark::internal::Benchmark* Register(const CallGroup& group, const std::string& state,
                                         CallBody body) {
  Registry().emplace_back(group, "BM_" + std::string(group.name) + "/" + state);
  Registered* entry = &Registry().back();
  const bool sustained = g_sustained_calls != 0;
  auto* b = benchmark::RegisterBenchmark(
      entry->benchmark_name.c_str(), [entry, body, sustained](benchmark::State& s) {
        // Not timed: the clock starts with the body's loop. A sustained
        // group starts on a drained ring: the settle after the group before
        // it (only sustained groups record in that state's process), or
        // one here for the first.
        static bool drained = false;
        if (sustained && !drained) std::this_thread::sleep_for(kSettle);
        // The flusher's CPU while it drains this group's events: from the
        // loop's start to the end of the settle after it.
        const std::string flusher = sustained ? FindTask("ittc-flusher") : "";
        const uint64_t flusher_ns0 = TaskRunNs(flusher);
        body(s);
        if (sustained) {
          std::this_thread::sleep_for(kSettle);
          drained = true;
          if (!flusher.empty()) {
            s.counters["flusher_cpu_ns"] = static_cast<double>(TaskRunNs(flusher) - flusher_ns0);
          }
        }
        entry->calls_made.fetch_add(
            static_cast<uint64_t>(s.iterations()) * entry->group.calls_per_iteration,
            std::memory_order_relaxed);
        s.counters["calls"] =
            benchmark::Counter(entry->group.calls_per_iteration, benchmark::Counter::kAvgThreads);
      });
  if (sustained) {
    b->Iterations(
         static_cast<benchmark::IterationCount>(g_sustained_calls / group.calls_per_iteration))
        ->Repetitions(1);
  }
  return b;
}

}  // namespace

void SetSustainedCalls(uint64_t calls) { g_sustained_calls = calls; }

benchmark::internal::Benchmark* RegisterCallGroup(const CallGroup& group, const std::string& state,
                                                  CallBody body) {
  return Register(group, state, body);
}

void RegisterBurstGroup(const CallGroup& group, const std::string& state, CallBody body) {
  Register(group, state, body)->UseManualTime()->MinTime(0.2);
}

void WriteRecordedReport(const TraceSummary& trace, const std::string& state,
                         const std::string& json_path) {
  FILE* out = json_path.empty() ? nullptr : std::fopen(json_path.c_str(), "w");
  if (out != nullptr) {
    std::fprintf(out,
                 "{\"state\": \"%s\", \"file_bytes\": %llu, \"trace_events\": %llu, "
                 "\"end_recorded\": %llu, \"end_dropped\": %llu, \"has_end\": %s, "
                 "\"groups\": [",
                 state.c_str(), static_cast<unsigned long long>(trace.file_bytes),
                 static_cast<unsigned long long>(trace.events),
                 static_cast<unsigned long long>(trace.end_recorded),
                 static_cast<unsigned long long>(trace.end_dropped),
                 trace.has_end ? "true" : "false");
  }
  std::printf("\n%-40s %14s %14s %9s\n", "benchmark", "calls made", "recorded", "recorded%");
  bool first = true;
  for (const Registered& r : Registry()) {
    uint64_t recorded = 0;
    uint64_t calls_made = r.calls_made.load(std::memory_order_relaxed);
    if (calls_made == 0) continue;        // filtered out of this run
    if (r.group.kinds.empty()) continue;  // records nothing (handle creation)
    for (const std::string& kind : r.group.kinds) {
      if (r.group.domain.empty()) {
        auto it = trace.by_kind.find(kind);
        if (it != trace.by_kind.end()) recorded += it->second;
      } else {
        auto it = trace.by_kind_domain.find({kind, r.group.domain});
        if (it != trace.by_kind_domain.end()) recorded += it->second;
      }
    }
    double share = 100.0 * static_cast<double>(recorded) / static_cast<double>(calls_made);
    std::printf("%-40s %14llu %14llu %8.1f%%\n", r.benchmark_name.c_str(),
                static_cast<unsigned long long>(calls_made),
                static_cast<unsigned long long>(recorded), share);
    if (out != nullptr) {
      std::fprintf(out, "%s\n  {\"name\": \"%s\", \"calls_made\": %llu, \"recorded\": %llu}",
                   first ? "" : ",", r.benchmark_name.c_str(),
                   static_cast<unsigned long long>(calls_made),
                   static_cast<unsigned long long>(recorded));
    }
    first = false;
  }
  std::printf("trace: %llu events, end record: %llu recorded, %llu dropped\n",
              static_cast<unsigned long long>(trace.events),
              static_cast<unsigned long long>(trace.end_recorded),
              static_cast<unsigned long long>(trace.end_dropped));
  if (out != nullptr) {
    std::fprintf(out, "\n]}\n");
    std::fclose(out);
  }
}

}  // namespace ittc::bench
