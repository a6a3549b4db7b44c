// Producers and the flusher on this machine's cores:
//   BM_ProducerThreads<n>   task begin+end in a tight loop on 1, 2 and 8
//                           threads at once (8 > cores), real time per
//                           iteration of each thread; after the run the
//                           trace tells what share was recorded.
//   BM_RateStep             one producer paced at a target rate for 1 s in
//                           a fresh process (paced_run.h): achieved rate,
//                           events dropped, flusher CPU per event. Steps up
//                           to "as fast as possible" (rate_mps:0), with the
//                           default ring and a 16 MiB one; the highest step
//                           with no drop is the lossless sustained rate.
//   BM_TwoProducers         two producers as fast as they can for 1 s in a
//                           fresh process, drop and block mode: kept share,
//                           producer and flusher CPU per event; in drop mode
//                           also with the flusher at the producers' priority
//                           (ITTC_FLUSHER_NICE=0).
//   BM_Producers/producers:N  N producers as fast as they can for 1 s in a
//                           fresh process, default settings (drop mode, 4
//                           MiB rings, the number of flushers picked by the
//                           collector): kept share, producer CPU per event,
//                           flushers used and each one's CPU per event kept
//                           (flusher<i>_ns_per_event); N = 1, 2, 4, 8, 16
//                           up to four times the cores; and N = 1, 2, 4 in
//                           block mode, whose bytes per event on disk
//                           should stay within 1.5x of one producer's
//   BM_CoreShare            plain arithmetic on one thread, then on two at
//                           once: what a second thread adds on this machine
//                           (two cores, or two hyperthreads of one).
//
//   bazel run -c opt //bench:threads_bench
//   bazel run -c opt //bench:threads_bench -- --benchmark_filter=RateStep

#include <benchmark/benchmark.h>
#include <ittnotify.h>

#include <cstdio>
#include <string>
#include <thread>

#include "bench/bench_env.h"
#include "bench/call_registry.h"
#include "bench/paced_run.h"
#include "bench/trace_summary.h"

namespace ittc::bench {
namespace {

__itt_string_handle* g_name;

template <int kThreads>
void BM_ProducerThreads(benchmark::State& state) {
  __itt_domain* domain = __itt_domain_create(("threads." + std::to_string(kThreads)).c_str());
  for (auto _ : state) {
    __itt_task_begin(domain, __itt_null, __itt_null, g_name);
    __itt_task_end(domain);
  }
  state.SetItemsProcessed(state.iterations() * 2);
}

template <int kThreads>
void RegisterProducers() {
  std::string name = "ProducerThreads" + std::to_string(kThreads);
  // The registry keeps the group (and so the name) alive.
  static std::string stable_name = name;
  RegisterCallGroup(CallGroup{stable_name.c_str(),
                              2,
                              {"task_begin", "task_end"},
                              "threads." + std::to_string(kThreads)},
                    "recording", BM_ProducerThreads<kThreads>)
      ->Threads(kThreads)
      ->UseRealTime();
}

// One paced run per iteration, reported as counters.
void RegisterPacedRun(const std::string& name, const PacedRunConfig& config) {
  benchmark::RegisterBenchmark(
      name.c_str(),
      [config](benchmark::State& state) {
        for (auto _ : state) {
          PacedRunResult r = RunPacedChild(config);
          if (!r.ok) {
            state.SkipWithError("child run failed");
            return;
          }
          state.SetIterationTime(r.seconds);
          state.counters["target_mps"] = config.rate_mps;
          state.counters["achieved_mps"] = static_cast<double>(r.emitted) / r.seconds / 1e6;
          state.counters["emitted"] = static_cast<double>(r.emitted);
          state.counters["recorded"] = static_cast<double>(r.recorded);
          state.counters["dropped"] = static_cast<double>(r.dropped);
          state.counters["drop_pct"] = r.emitted != 0 ? 100.0 * static_cast<double>(r.dropped) /
                                                            static_cast<double>(r.emitted)
                                                      : 0;
          state.counters["bytes_per_event"] =
              r.recorded != 0 ? static_cast<double>(r.file_bytes) / static_cast<double>(r.recorded)
                              : 0;
          state.counters["flusher_wait_ms"] = static_cast<double>(r.flusher_wait_ns) / 1e6;
          state.counters["producer_wait_ms"] = static_cast<double>(r.producer_wait_ns) / 1e6;
          state.counters["flusher_nice"] = r.flusher_nice;
          state.counters["producer_ns_per_event"] =
              static_cast<double>(r.producer_cpu_ns) / static_cast<double>(r.emitted);
          state.counters["flusher_ns_per_event"] =
              r.recorded != 0
                  ? static_cast<double>(r.flusher_cpu_ns) / static_cast<double>(r.recorded)
                  : 0;
        }
      })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

void RegisterRateStep(int ring_kb, double rate_mps) {
  char name[128];
  std::snprintf(name, sizeof(name), "BM_RateStep/ring_kb:%d/rate_mps:%g", ring_kb, rate_mps);
  PacedRunConfig config;
  config.rate_mps = rate_mps;
  config.seconds = 1.0;
  config.ring_kb = ring_kb;
  RegisterPacedRun(name, config);
}

// Two producers as fast as they can on this 2-core machine, default ring:
// with the flusher, three busy threads on two cores. `flusher_nice` is
// ITTC_FLUSHER_NICE ("" = the default): at the producers' own (0) it shows
// what the flusher's default priority is for.
void RegisterTwoProducers(bool block, const std::string& flusher_nice = "") {
  PacedRunConfig config;
  config.seconds = 1.0;
  config.producers = 2;
  config.block = block;
  config.flusher_nice = flusher_nice;
  std::string name = std::string("BM_TwoProducers/overflow:") + (block ? "block" : "drop");
  if (!flusher_nice.empty()) name += "/flusher_nice:" + flusher_nice;
  RegisterPacedRun(name, config);
}

// N producers unpaced for 1 s, default settings but the overflow mode.
void RegisterProducers(int producers, bool block) {
  PacedRunConfig config;
  config.seconds = 1.0;
  config.producers = producers;
  config.block = block;
  char name[96];
  std::snprintf(name, sizeof(name), "BM_Producers/producers:%d/overflow:%s", producers,
                block ? "block" : "drop");
  benchmark::RegisterBenchmark(
      name,
      [config](benchmark::State& state) {
        for (auto _ : state) {
          PacedRunResult r = RunPacedChild(config);
          if (!r.ok || r.emitted == 0) {
            state.SkipWithError("child run failed");
            return;
          }
          const double recorded = static_cast<double>(r.recorded);
          state.SetIterationTime(r.seconds);
          state.counters["emitted_mps"] = static_cast<double>(r.emitted) / r.seconds / 1e6;
          state.counters["kept_pct"] = 100.0 * recorded / static_cast<double>(r.emitted);
          state.counters["producer_ns_per_event"] =
              static_cast<double>(r.producer_cpu_ns) / static_cast<double>(r.emitted);
          state.counters["bytes_per_event"] =
              recorded != 0 ? static_cast<double>(r.file_bytes) / recorded : 0;
          state.counters["flushers"] = r.flushers;
          for (size_t i = 0; i < r.flusher_cpu_each_ns.size(); ++i) {
            state.counters["flusher" + std::to_string(i) + "_ns_per_event"] =
                recorded != 0 ? static_cast<double>(r.flusher_cpu_each_ns[i]) / recorded : 0;
          }
          state.counters["producer_wait_ms"] = static_cast<double>(r.producer_wait_ns) / 1e6;
        }
      })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

// One dependent chain ("chain": a core mostly waits on it, so two
// hyperthreads of one core each run it at nearly full speed) or eight
// independent ones ("wide": they keep a core's integer units busy, so two
// hyperthreads of one core each get about half, two cores each all of it).
// Items are steps of the loop.
template <bool kWide>
void BM_CoreShare(benchmark::State& state) {
  constexpr uint64_t kSteps = 1 << 16;
  uint64_t a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, a6 = 7, a7 = 8;
  for (auto _ : state) {
    for (uint64_t i = 0; i < kSteps; ++i) {
      if constexpr (kWide) {
        a0 += i;
        a1 ^= i;
        a2 += i >> 3;
        a3 ^= i << 1;
        a4 += i >> 2;
        a5 ^= i >> 5;
        a6 += i << 2;
        a7 ^= i >> 1;
        asm volatile(""
                     : "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4), "+r"(a5), "+r"(a6),
                       "+r"(a7));
      } else {
        a0 = a0 * 0x9E3779B97F4A7C15ull + i;
        a0 ^= a0 >> 29;
        asm volatile("" : "+r"(a0));
      }
    }
  }
  benchmark::DoNotOptimize(a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kSteps));
}

}  // namespace
}  // namespace ittc::bench

int main(int argc, char** argv) {
  using namespace ittc::bench;
  int exit_code = 0;
  if (MaybeRunPacedChild(argc, argv, &exit_code)) return exit_code;

  std::string recorded_out = FlagValue(argc, argv, "recorded_out");
  std::vector<std::string> rest = ArgsWithout(argc, argv, {"recorded_out"});
  std::vector<char*> args = {argv[0]};
  for (std::string& s : rest) args.push_back(s.data());
  args.push_back(nullptr);
  int args_count = static_cast<int>(rest.size()) + 1;

  std::string dir = MakeTempDir("ittc-threads");
  SetEnv("INTEL_LIBITTNOTIFY64", CollectorPath());
  SetEnv("ITTC_OUTPUT", dir + "/threads-%p.itt");
  benchmark::Initialize(&args_count, args.data());
  g_name = __itt_string_handle_create("threads_task");

  RegisterProducers<1>();
  RegisterProducers<2>();
  RegisterProducers<8>();
  for (double rate : {10.0, 20.0, 40.0, 60.0, 80.0, 90.0, 0.0}) {
    RegisterRateStep(4096, rate);  // the default ring (ITTC_RING_KB)
  }
  for (double rate : {40.0, 80.0, 0.0}) RegisterRateStep(16384, rate);
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  for (int n : {1, 2, 4, 8, 16}) {
    if (n == 1 || n <= 4 * cores) RegisterProducers(n, false);
  }
  for (int n : {1, 2, 4}) RegisterProducers(n, true);
  RegisterTwoProducers(false);
  RegisterTwoProducers(false, "0");
  RegisterTwoProducers(true);
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark("BM_CoreShare/chain", BM_CoreShare<false>)
        ->Threads(threads)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_CoreShare/wide", BM_CoreShare<true>)
        ->Threads(threads)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();

  __itt_detach();
  auto summary = SummarizeTrace(FindTrace(dir));
  int rc = 0;
  if (summary.ok()) {
    WriteRecordedReport(*summary, "recording", recorded_out);
  } else {
    std::fprintf(stderr, "reading the trace: %s\n",
                 std::string(summary.status().message()).c_str());
    rc = 1;
  }
  benchmark::Shutdown();
  RemoveTree(dir);
  return rc;
}
