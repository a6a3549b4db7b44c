// Per-call overhead of every ITT API group and of JIT NotifyEvent, in each
// state an application can be in:
//   compiled_out  built with INTEL_NO_ITTNOTIFY_API
//   no_collector  our static part, INTEL_LIBITTNOTIFY64 unset
//   recording     our collector recording to a trace
//   sustained     the same, each group once for 20 M calls in one tight
//                 loop with default settings (issue 13's load), after a
//                 pause that lets the flusher drain the previous group
//   paused        the same after __itt_pause()
//   flight        recording in flight recorder mode (ITTC_FLIGHT_MB=64):
//                 the same calls, kept in memory, one dump at the end
//   filtered      recording, domain "bench" disabled by ITTC_DOMAINS
//   naive         a mutex + fprintf collector (naive_collector.c), task only
// plus the reference floors (floors.h) in every state.
//
//   bazel run -c opt //bench:call_overhead_bench                  all states
//   bazel run -c opt //bench:call_overhead_bench -- --state=paused
//
// Without --state the binary runs itself once per state: the static part
// binds its collector once per process. In the recording state, after the
// benchmarks, the trace is closed and read back, and the share of each
// group's calls that was recorded is printed (and written as JSON to
// --recorded_out=PATH). The recording state also measures names looked up
// before each task (name_lookups.h), through Intel's static part too when
// --intel_static=PATH names a shared library built from it.

#include <benchmark/benchmark.h>
#include <ittnotify.h>
#include <jitprofiling.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_env.h"
#include "bench/call_registry.h"
#include "bench/calls.h"
#include "bench/floors.h"
#include "bench/name_lookups.h"
#include "bench/trace_summary.h"

namespace ittc::bench {
namespace {

const char* const kStates[] = {"compiled_out", "no_collector", "recording", "sustained",
                               "paused",       "filtered",     "naive",     "flight"};

// The flight state's recorder: large enough that a dump is a real one,
// small enough that the benchmarks overwrite most of what they record.
constexpr const char* kFlightMb = "64";

// API calls per group in the sustained state.
constexpr uint64_t kSustainedCalls = 20000000;

char g_method_name[] = "bench::JittedMethod";
unsigned int g_method_id = 0;

void BM_JitMethodLoad(benchmark::State& state) {
  iJIT_Method_Load m = {};
  m.method_name = g_method_name;
  m.method_load_address = reinterpret_cast<void*>(0x10000);
  m.method_size = 64;
  for (auto _ : state) {
    m.method_id = ++g_method_id;
    iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  }
}

// What the naive collector wrote so far: its task lines per domain, and the
// log's size. Its stdio buffer (a few KiB) is not flushed until exit.
TraceSummary NaiveLogSummary(const std::string& path) {
  TraceSummary summary;
  summary.file_bytes = FileSize(path);
  FILE* f = std::fopen(path.c_str(), "r");
  char line[512];
  while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
    for (const char* kind : {"task_begin", "task_end"}) {
      // The domain "bench" itself, not "bench.fn".
      const std::string tag = std::string(" ") + kind + " domain=bench";
      const char* at = std::strstr(line, tag.c_str());
      if (at != nullptr && (at[tag.size()] == ' ' || at[tag.size()] == '\n')) {
        ++summary.by_kind_domain[{kind, "bench"}];
        ++summary.events;
      }
    }
  }
  if (f != nullptr) std::fclose(f);
  return summary;
}

// Sets the environment for `state` before the first ITT call.
void SetUpEnvironment(const std::string& state, const std::string& trace_dir) {
  UnsetEnv("INTEL_LIBITTNOTIFY64");
  UnsetEnv("INTEL_JIT_PROFILER64");
  UnsetEnv("INTEL_ITTNOTIFY_GROUPS");
  UnsetEnv("ITTC_DOMAINS");
  UnsetEnv("ITTC_START_PAUSED");
  UnsetEnv("ITTC_FLIGHT_MB");
  if (state == "recording" || state == "sustained" || state == "paused" || state == "filtered" ||
      state == "flight") {
    SetEnv("INTEL_LIBITTNOTIFY64", CollectorPath());
    SetEnv("INTEL_JIT_PROFILER64", CollectorPath());
    SetEnv("ITTC_OUTPUT", trace_dir + "/calls-%p.itt");
  }
  if (state == "filtered") SetEnv("ITTC_DOMAINS", "no.such.domain");
  if (state == "flight") SetEnv("ITTC_FLIGHT_MB", kFlightMb);
  if (state == "naive") {
    SetEnv("INTEL_LIBITTNOTIFY64", NaiveCollectorPath());
    SetEnv("INTEL_ITTNOTIFY_GROUPS", "all");
    SetEnv("NAIVE_COLLECTOR_OUTPUT", trace_dir + "/naive.log");
  }
}

int RunAllStates(int argc, char** argv) {
  std::vector<std::string> args = ArgsWithout(argc, argv, {"state"});
  int failures = 0;
  for (const char* state : kStates) {
    std::vector<std::string> child_args = args;
    child_args.push_back(std::string("--state=") + state);
    std::printf("==== state: %s\n", state);
    if (RunSelf(child_args, {}) != 0) {
      std::fprintf(stderr, "state %s failed\n", state);
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

int RunState(const std::string& state, const std::string& recorded_out,
             const std::string& intel_static, int argc, char** argv) {
  std::string trace_dir = MakeTempDir("ittc-calls");
  SetUpEnvironment(state, trace_dir);
  benchmark::Initialize(&argc, argv);

  RegisterFloors(state);
  if (state == "compiled_out") {
    RegisterCompiledOutCalls(state);
  } else if (state == "naive") {
    RegisterCallGroup(CallGroup{"TaskBeginEnd", 2, {"task_begin", "task_end"}, "bench"}, state,
                      [](benchmark::State& s) {
                        __itt_domain* d = __itt_domain_create("bench");
                        __itt_string_handle* name = __itt_string_handle_create("bench_task");
                        for (auto _ : s) {
                          __itt_task_begin(d, __itt_null, __itt_null, name);
                          __itt_task_end(d);
                        }
                      });
  } else {
    if (state == "sustained") SetSustainedCalls(kSustainedCalls);
    RegisterLiveCalls(state, /*with_burst=*/state == "recording");
    RegisterCallGroup(CallGroup{"JitMethodLoad", 1, {"jit_method_load"}, ""}, state,
                      BM_JitMethodLoad);
    if (state == "recording" && !RegisterNameLookups(state, intel_static)) return 2;
    if (state == "paused") __itt_pause();
  }
  benchmark::RunSpecifiedBenchmarks();

  int rc = 0;
  if (state == "naive")
    WriteRecordedReport(NaiveLogSummary(trace_dir + "/naive.log"), state, recorded_out);
  if (state == "flight") {
    // Detach writes the one dump (FindTrace: the only .itt file).
    __itt_detach();
    std::string path = FindTrace(trace_dir);
    auto summary = SummarizeTrace(path);
    if (!summary.ok()) {
      std::fprintf(stderr, "reading the flight dump %s: %s\n", path.c_str(),
                   std::string(summary.status().message()).c_str());
      rc = 1;
    } else {
      std::printf("flight dump: %llu events, %llu bytes\n",
                  static_cast<unsigned long long>(summary->events),
                  static_cast<unsigned long long>(summary->file_bytes));
    }
  }
  if (state == "recording" || state == "sustained") {
    __itt_detach();
    std::string path = FindTrace(trace_dir);
    auto summary = SummarizeTrace(path);
    if (!summary.ok()) {
      std::fprintf(stderr, "reading %s: %s\n", path.c_str(),
                   std::string(summary.status().message()).c_str());
      rc = 1;
    } else {
      WriteRecordedReport(*summary, state, recorded_out);
    }
  }
  benchmark::Shutdown();
  RemoveTree(trace_dir);
  return rc;
}

}  // namespace
}  // namespace ittc::bench

int main(int argc, char** argv) {
  using namespace ittc::bench;
  std::string state = FlagValue(argc, argv, "state");
  if (state.empty()) return RunAllStates(argc, argv);
  bool known = false;
  for (const char* s : kStates) known = known || state == s;
  if (!known) {
    std::fprintf(stderr, "unknown --state=%s\n", state.c_str());
    return 2;
  }
  std::string recorded_out = FlagValue(argc, argv, "recorded_out");
  std::string intel_static = FlagValue(argc, argv, "intel_static");
  // Google Benchmark rejects flags it does not know: pass it the rest.
  std::vector<std::string> rest =
      ArgsWithout(argc, argv, {"state", "recorded_out", "intel_static"});
  std::vector<char*> args = {argv[0]};
  for (std::string& s : rest) args.push_back(s.data());
  args.push_back(nullptr);
  return RunState(state, recorded_out, intel_static, static_cast<int>(rest.size()) + 1,
                  args.data());
}
