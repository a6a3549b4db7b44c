// itt-dump decode rates, in events per second on one core (Google
// Benchmark's items_per_second), on in-memory synthetic traces of 8 M
// nested task_begin/task_end events (tests/tools/sample_traces.h) over 1, 2
// or 4 threads:
//
//   BM_Stats/compressed      the whole `stats` verb: index pass + merged
//                            pass, zstd chunks (two decompressions)
//   BM_Stats/uncompressed    the same on uncompressed chunks: the rate
//                            "after decompression"
//   BM_StatsEngine           decoded payloads into StatsCollector only (no
//                            reader, no merge): the statistics themselves
//   BM_DecodeOnly            EventStreamDecoder over the same payloads: the
//                            format library's floor
//   BM_Chrome/...            the whole `chrome` verb, JSON to memory
//   BM_Text/uncompressed     the whole `text` verb, to memory
//
// Run: bazel run -c opt //bench:itt_dump_bench
// Goal (issue 6): stats at least 50 M events/s after decompression.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "format/format.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/stats.h"

namespace {

using ittc::itt_dump::testing::RunDump;
using ittc::itt_dump::testing::SyntheticTrace;

// 8 M events in total, split over 1, 2 or 4 threads whose events
// interleave in time (the merge's work grows with the interleaving).
constexpr uint64_t kEvents = 8000000;

const std::string& Trace(bool compressed, int threads) {
  static std::map<std::pair<bool, int>, std::string>* cache =
      new std::map<std::pair<bool, int>, std::string>;
  std::string& t = (*cache)[{compressed, threads}];
  if (t.empty()) {
    t = SyntheticTrace(threads, kEvents / static_cast<uint64_t>(threads), 65536, compressed);
  }
  return t;
}

// range(0): 1 compressed, 0 uncompressed; range(1): threads.
void RunVerb(benchmark::State& state, std::vector<std::string> args) {
  const bool compressed = state.range(0) != 0;
  const int threads = static_cast<int>(state.range(1));
  const std::string& trace = Trace(compressed, threads);
  for (auto _ : state) {
    auto r = RunDump(args, trace, /*output_limit=*/0);
    if (r.status != 0) state.SkipWithError(r.err.c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kEvents));
  state.counters["trace_MB"] = static_cast<double>(trace.size()) / 1e6;
  state.SetLabel(std::string(compressed ? "compressed" : "uncompressed") + ", " +
                 std::to_string(threads) + " threads");
}

void BM_Stats(benchmark::State& state) { RunVerb(state, {"stats", "--no-progress", "trace.itt"}); }
BENCHMARK(BM_Stats)->Args({1, 2})->Args({0, 1})->Args({0, 2})->Args({0, 4})->Unit(
    benchmark::kMillisecond);

void BM_Chrome(benchmark::State& state) {
  RunVerb(state, {"chrome", "--no-progress", "trace.itt", "-o", "-"});
}
BENCHMARK(BM_Chrome)->Args({1, 2})->Args({0, 2})->Unit(benchmark::kMillisecond);

void BM_Text(benchmark::State& state) { RunVerb(state, {"text", "--no-progress", "trace.itt"}); }
BENCHMARK(BM_Text)->Args({0, 2})->Unit(benchmark::kMillisecond);

// The decompressed events payloads of the uncompressed trace.
const std::vector<std::string>& Payloads() {
  static const std::vector<std::string>* kPayloads = [] {
    auto* v = new std::vector<std::string>;
    const auto source = ittc::itt_dump::TraceSource::Memory(Trace(false, 2), "bench");
    auto reader = ittc::itt_dump::OpenForPass(source);
    ittc::format::Chunk c;
    while ((*reader)->Next(&c)) {
      if (c.type == ittc::format::ChunkType::kEvents) {
        v->emplace_back(c.payload);
      }
    }
    return v;
  }();
  return *kPayloads;
}

void BM_DecodeOnly(benchmark::State& state) {
  const std::vector<std::string>& payloads = Payloads();
  uint64_t events = 0;
  for (auto _ : state) {
    ittc::format::EventStreamDecoder dec;
    ittc::format::Event e;
    for (const std::string& p : payloads) {
      if (!dec.Reset(p).ok()) continue;
      while (dec.Next(&e)) {
        benchmark::DoNotOptimize(e.time);
        ++events;
      }
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
}
BENCHMARK(BM_DecodeOnly)->Unit(benchmark::kMillisecond);

void BM_StatsEngine(benchmark::State& state) {
  using ittc::itt_dump::TraceSource;
  const TraceSource source = TraceSource::Memory(Trace(false, 2), "bench");
  ittc::itt_dump::IndexResult index =
      ittc::itt_dump::BuildIndex(source, ittc::itt_dump::IndexOptions());
  const std::vector<std::string>& payloads = Payloads();
  uint64_t events = 0;
  for (auto _ : state) {
    ittc::itt_dump::StatsCollector stats(*index.index, {}, false);
    ittc::format::EventStreamDecoder dec;
    ittc::format::Event e;
    for (const std::string& p : payloads) {
      if (!dec.Reset(p).ok()) continue;
      const ittc::itt_dump::ThreadRec* t = index.index->Thread(dec.thread_index());
      while (dec.Next(&e)) stats.OnEvent(e, *t);
    }
    stats.Finish(0);
    events += stats.events();
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
}
BENCHMARK(BM_StatsEngine)->Unit(benchmark::kMillisecond);

}  // namespace
