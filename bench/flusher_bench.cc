// The flusher's cost: CPU nanoseconds per event and bytes per event on
// disk, per zstd level. Each run is a fresh process (paced_run.h) with one
// producer emitting task begin/end pairs (four names) for 1 s:
//   BM_FlusherLevel/zstd:L/rate_mps:R   paced at R M events/s (below the
//                                       lossless rate), zstd level L
//                                       (0 = the collector's default)
//   BM_FlusherSaturated/zstd:L          ITTC_OVERFLOW=block, unpaced: the
//                                       producer waits for the flusher, so
//                                       the rate is the flusher's maximum
//
//   bazel run -c opt //bench:flusher_bench

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "bench/paced_run.h"

namespace ittc::bench {
namespace {

void Register(const char* name, const PacedRunConfig& config) {
  benchmark::RegisterBenchmark(
      name,
      [config](benchmark::State& state) {
        for (auto _ : state) {
          PacedRunResult r = RunPacedChild(config);
          if (!r.ok || r.recorded == 0) {
            state.SkipWithError("child run failed");
            return;
          }
          double recorded = static_cast<double>(r.recorded);
          state.SetIterationTime(r.seconds);
          state.counters["zstd_level"] = config.zstd_level;
          state.counters["recorded_mps"] = recorded / r.seconds / 1e6;
          state.counters["dropped"] = static_cast<double>(r.dropped);
          state.counters["flusher_ns_per_event"] = static_cast<double>(r.flusher_cpu_ns) / recorded;
          state.counters["bytes_per_event"] = static_cast<double>(r.file_bytes) / recorded;
          if (r.event_chunks != 0) {
            state.counters["events_per_chunk"] = recorded / static_cast<double>(r.event_chunks);
            state.counters["raw_bytes_per_event"] =
                static_cast<double>(r.event_payload_bytes) / recorded;
          }
          state.counters["flusher_wait_ms"] = static_cast<double>(r.flusher_wait_ns) / 1e6;
          state.counters["producer_wait_ms"] = static_cast<double>(r.producer_wait_ns) / 1e6;
          state.counters["producer_ns_per_event"] =
              static_cast<double>(r.producer_cpu_ns) / static_cast<double>(r.emitted);
        }
      })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace ittc::bench

int main(int argc, char** argv) {
  using namespace ittc::bench;
  int exit_code = 0;
  if (MaybeRunPacedChild(argc, argv, &exit_code)) return exit_code;
  benchmark::Initialize(&argc, argv);
  constexpr double kRate = 10.0;
  for (int level : {0, 1, 3, 6}) {
    PacedRunConfig config;
    config.rate_mps = kRate;
    config.zstd_level = level;
    char name[96];
    std::snprintf(name, sizeof(name), "BM_FlusherLevel/zstd:%d/rate_mps:%g", level, kRate);
    Register(name, config);
  }
  for (int level : {0, 3}) {
    PacedRunConfig config;
    config.block = true;
    config.zstd_level = level;
    char name[96];
    std::snprintf(name, sizeof(name), "BM_FlusherSaturated/zstd:%d", level);
    Register(name, config);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
