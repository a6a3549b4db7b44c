// itt-dump decode rates, in events per second on one core (Google
// Benchmark's items_per_second), on an in-memory synthetic trace of nested
// task_begin/task_end pairs (tests/tools/sample_traces.h):
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

#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "format/format.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tools/itt_dump/stats.h"
#include "tools/itt_dump/trace_index.h"

namespace {

using ittc::itt_dump::testing::RunDump;
using ittc::itt_dump::testing::SyntheticTrace;

constexpr uint64_t kEventsPerThread = 4000000;
constexpr int kThreads = 2;
constexpr uint64_t kEvents = kEventsPerThread * kThreads;

const std::string& Trace(bool compressed) {
  static const std::string* kCompressed = new std::string(
      SyntheticTrace(kThreads, kEventsPerThread, 65536, true));
  static const std::string* kUncompressed = new std::string(
      SyntheticTrace(kThreads, kEventsPerThread, 65536, false));
  return compressed ? *kCompressed : *kUncompressed;
}

void RunVerb(benchmark::State& state, std::vector<std::string> args) {
  const bool compressed = state.range(0) != 0;
  const std::string& trace = Trace(compressed);
  for (auto _ : state) {
    auto r = RunDump(args, trace, /*output_limit=*/0);
    if (r.status != 0) state.SkipWithError(r.err.c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kEvents));
  state.counters["trace_MB"] = static_cast<double>(trace.size()) / 1e6;
  state.SetLabel(compressed ? "compressed" : "uncompressed");
}

void BM_Stats(benchmark::State& state) {
  RunVerb(state, {"stats", "--no-progress", "trace.itt"});
}
BENCHMARK(BM_Stats)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_Chrome(benchmark::State& state) {
  RunVerb(state, {"chrome", "--no-progress", "trace.itt", "-o", "-"});
}
BENCHMARK(BM_Chrome)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_Text(benchmark::State& state) {
  RunVerb(state, {"text", "--no-progress", "trace.itt"});
}
BENCHMARK(BM_Text)->Arg(0)->Unit(benchmark::kMillisecond);

// The decompressed events payloads of the uncompressed trace.
const std::vector<std::string>& Payloads() {
  static const std::vector<std::string>* kPayloads = [] {
    auto* v = new std::vector<std::string>;
    const auto source =
        ittc::itt_dump::TraceSource::Memory(Trace(false), "bench");
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
  const TraceSource source = TraceSource::Memory(Trace(false), "bench");
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
      const ittc::itt_dump::ThreadRec* t =
          index.index->Thread(dec.thread_index());
      while (dec.Next(&e)) stats.OnEvent(e, *t);
    }
    stats.Finish(0);
    events += stats.events();
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
}
BENCHMARK(BM_StatsEngine)->Unit(benchmark::kMillisecond);

}  // namespace
