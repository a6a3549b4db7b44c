// Registration of the per-call benchmarks and the account of how many of
// the events they emitted the collector recorded.
//
// Each call group is registered as "BM_<group>/<state>" with a counter
// "calls" (API calls per iteration); a report divides the time per
// iteration by it. The registry also counts the calls each group made over
// all of its runs, so that after __itt_detach the trace tells what share of
// them was recorded (a tight loop outruns the flusher; the rest is dropped
// and counted, which costs a different path).
//
// Thread safety: registration and the report run on the main thread; the
// bodies may run on several threads at once (the call count is atomic).

#ifndef BENCH_CALL_REGISTRY_H_
#define BENCH_CALL_REGISTRY_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/trace_summary.h"

namespace ittc::bench {

struct CallGroup {
  const char* name;
  int calls_per_iteration;
  std::vector<std::string> kinds;  // schema names of the events it records (none: not reported)
  std::string domain;              // domain of those events, or "" if none
};

using CallBody = std::function<void(benchmark::State&)>;

// Sustained mode (call before registering): every group registered after
// this runs once, for `calls` API calls in one tight loop (the issue-13
// load: a loop that outruns nothing but the flusher), after a settling
// pause in which the flusher drains what the previous group left, so each
// group's recorded share is its own.
void SetSustainedCalls(uint64_t calls);

// The body may run on several threads (->Threads(n) on the result).
benchmark::internal::Benchmark* RegisterCallGroup(const CallGroup& group, const std::string& state,
                                                  CallBody body);
// The same, timed by the body with SetIterationTime (UseManualTime).
void RegisterBurstGroup(const CallGroup& group, const std::string& state, CallBody body);

// Writes, as JSON, for every registered group: calls made, events of its
// kinds found in `trace`, and the recorded share. Also prints it to stdout.
void WriteRecordedReport(const TraceSummary& trace, const std::string& state,
                         const std::string& json_path);

}  // namespace ittc::bench

#endif  // BENCH_CALL_REGISTRY_H_
