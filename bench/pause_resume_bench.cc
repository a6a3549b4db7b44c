// __itt_pause + __itt_resume, and the calls right after a resume.
//   BM_PauseResume/domains:N   one pause+resume pair with N domains alive
//                              (the collector rewrites every domain's flags
//                              twice). Domains accumulate: N only grows, in
//                              registration order.
//   BM_FirstPairAfterResume    task begin+end right after a resume, timed
//                              with RDTSC around the pair alone
//   BM_SteadyPair              the same pair timed the same way, with no
//                              resume before it: the reference
// With --with_tbb the process first runs a oneTBB parallel loop, so that
// libtbb's own static part registers its domains too (one more static part
// for pause and resume to walk); names then end in "/tbb".
//
//   bazel run -c opt //bench:pause_resume_bench

#include <benchmark/benchmark.h>
#include <ittnotify.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_env.h"
#include "bench/trace_summary.h"

namespace ittc::bench {

// Defined in tbb_loader.cc when built with oneTBB: runs one parallel loop.
void RunTbbOnce();

namespace {

std::vector<__itt_domain*> g_domains;
__itt_domain* g_domain;
__itt_string_handle* g_name;

void EnsureDomains(size_t n) {
  while (g_domains.size() < n) {
    g_domains.push_back(
        __itt_domain_create(("pause.domain." + std::to_string(g_domains.size())).c_str()));
  }
}

void BM_PauseResume(benchmark::State& state) {
  EnsureDomains(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    __itt_pause();
    __itt_resume();
  }
  state.counters["calls"] = 1;
  state.counters["domains"] = static_cast<double>(g_domains.size());
}

// Times one task begin+end with RDTSC (its own cost, ~1 RDTSC, is part of
// both figures alike), converted to seconds for manual time.
double TimedPair() {
  uint64_t t0 = __rdtsc();
  __itt_task_begin(g_domain, __itt_null, __itt_null, g_name);
  __itt_task_end(g_domain);
  uint64_t t1 = __rdtsc();
  return static_cast<double>(t1 - t0) / TscHz();
}

// A single timed pair is ~50 ns, so one preemption inflates the mean:
// the median and 90th percentile of the samples are reported as well.
void SetPercentiles(benchmark::State& state, std::vector<double>* samples) {
  if (samples->empty()) return;
  std::sort(samples->begin(), samples->end());
  state.counters["p50_ns"] = (*samples)[samples->size() / 2] * 1e9;
  state.counters["p90_ns"] = (*samples)[samples->size() * 9 / 10] * 1e9;
}

void BM_FirstPairAfterResume(benchmark::State& state) {
  std::vector<double> samples;
  samples.reserve(1 << 20);
  for (auto _ : state) {
    __itt_pause();
    __itt_resume();
    double t = TimedPair();
    state.SetIterationTime(t);
    if (samples.size() < samples.capacity()) samples.push_back(t);
  }
  state.counters["calls"] = 2;
  SetPercentiles(state, &samples);
}

void BM_SteadyPair(benchmark::State& state) {
  std::vector<double> samples;
  samples.reserve(1 << 20);
  for (auto _ : state) {
    double t = TimedPair();
    state.SetIterationTime(t);
    if (samples.size() < samples.capacity()) samples.push_back(t);
  }
  state.counters["calls"] = 2;
  SetPercentiles(state, &samples);
}

}  // namespace
}  // namespace ittc::bench

int main(int argc, char** argv) {
  using namespace ittc::bench;
  bool with_tbb = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--with_tbb") {
      with_tbb = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);

  std::string dir = MakeTempDir("ittc-pause");
  SetEnv("INTEL_LIBITTNOTIFY64", CollectorPath());
  SetEnv("ITTC_OUTPUT", dir + "/pause-%p.itt");
  benchmark::Initialize(&args_count, args.data());
  TscHz();
  if (with_tbb) RunTbbOnce();
  g_domain = __itt_domain_create("pause.bench");
  g_name = __itt_string_handle_create("pause_task");

  std::string suffix = with_tbb ? "/tbb" : "";
  auto* b = benchmark::RegisterBenchmark(("BM_PauseResume" + suffix).c_str(), BM_PauseResume);
  b->ArgName("domains");
  for (int n : {1, 10, 100, 1000}) b->Arg(n);
  benchmark::RegisterBenchmark(("BM_SteadyPair" + suffix).c_str(), BM_SteadyPair)->UseManualTime();
  benchmark::RegisterBenchmark(("BM_FirstPairAfterResume" + suffix).c_str(),
                               BM_FirstPairAfterResume)
      ->UseManualTime();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  __itt_detach();
  // How many domains pause and resume walked (ours, plus libtbb's).
  auto summary = SummarizeTrace(FindTrace(dir));
  if (summary.ok())
    std::printf("domains in the trace: %llu\n", static_cast<unsigned long long>(summary->domains));
  RemoveTree(dir);
  return 0;
}
