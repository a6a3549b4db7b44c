// Encode and decode rates of the event stream codec on one core, and the
// size of events before and after zstd, for the mixes of test_util.h.
//
//   bazel run -c opt //tests/format:format_bench
//
// Counters: items_per_second is events per second; raw_B/ev and zstd_B/ev
// are bytes per event of the payload and of the framed chunk on disk.

#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "format/format.h"
#include "tests/format/test_util.h"

namespace ittc::format {
namespace {

// Events per chunk: a flusher batch of one busy thread.
constexpr size_t kChunkEvents = 65536;

std::vector<Event> Mix(int which) {
  testing::Rng rng(1);
  uint64_t t = 1ull << 40;
  return which == 0 ? testing::TaskPairs(rng, kChunkEvents, &t)
                    : testing::RealisticMix(rng, kChunkEvents, &t);
}

const char* MixName(int which) { return which == 0 ? "loop_task_pairs" : "random_mix"; }

// Encoding alone. An Event is ~500 bytes, so a chunk's worth of distinct
// Events would measure memory bandwidth, not the encoder; the collector
// fills one Event per ring record and it stays in L1. Here a window of 1024
// Events (L2-resident) is replayed with times shifted forward each pass.
void BM_Encode(benchmark::State& state) {
  std::vector<Event> window = Mix(static_cast<int>(state.range(0)));
  window.resize(1024);
  const uint64_t span = window.back().time - window.front().time + 100;
  constexpr int kPasses = kChunkEvents / 1024;
  EventStreamEncoder enc;
  for (auto _ : state) {
    enc.Reset(1, window.front().time);
    for (int pass = 0; pass < kPasses; ++pass) {
      for (Event& e : window) {
        enc.Append(e);
        e.time += span;
      }
    }
    benchmark::DoNotOptimize(enc.payload_size());
  }
  state.SetItemsProcessed(state.iterations() * kChunkEvents);
  state.counters["raw_B/ev"] = static_cast<double>(enc.payload_size()) / kChunkEvents;
  state.SetLabel(MixName(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_Encode)->Arg(0)->Arg(1);

// Compressing and framing one chunk of distinct events; the flusher's cost
// per event is this plus BM_Encode. zstd_B/ev is the size on disk.
void BM_Compress(benchmark::State& state) {
  const std::vector<Event> events = Mix(static_cast<int>(state.range(0)));
  const int level = static_cast<int>(state.range(1));
  EventStreamEncoder enc;
  enc.Reset(1, events.front().time);
  for (const Event& e : events) enc.Append(e);
  const std::string payload(enc.payload());
  ChunkWriter writer(level);
  std::string out;
  for (auto _ : state) {
    out.clear();
    if (!writer.AppendChunk(ChunkType::kEvents, payload, &out, enc.chunk_flags()).ok()) {
      state.SkipWithError("AppendChunk failed");
      return;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * events.size());
  state.counters["raw_B/ev"] = static_cast<double>(payload.size()) / events.size();
  state.counters["zstd_B/ev"] = static_cast<double>(out.size()) / events.size();
  state.SetLabel(std::string(MixName(static_cast<int>(state.range(0)))) + " zstd " +
                 std::to_string(level));
}
BENCHMARK(BM_Compress)->Args({0, 1})->Args({0, 3})->Args({1, 1})->Args({1, 3});

void BM_Decode(benchmark::State& state) {
  const std::vector<Event> events = Mix(static_cast<int>(state.range(0)));
  EventStreamEncoder enc;
  enc.Reset(1, events.front().time);
  for (const Event& e : events) enc.Append(e);
  const std::string payload(enc.payload());
  EventStreamDecoder dec;
  Event e;
  uint64_t sum = 0;
  for (auto _ : state) {
    if (!dec.Reset(payload, enc.chunk_flags()).ok()) {
      state.SkipWithError("bad payload");
      return;
    }
    while (dec.Next(&e)) sum += e.time;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * events.size());
  state.SetLabel(MixName(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_Decode)->Arg(0)->Arg(1);

// The reader's whole path: CRC, decompress, decode; from memory.
void BM_ReadTrace(benchmark::State& state) {
  const std::vector<Event> events = Mix(static_cast<int>(state.range(0)));
  testing::TestTraceWriter w(testing::SampleHeader(), 1);
  for (int i = 0; i < 16; ++i) w.AddEvents(0, events);
  const std::string& bytes = w.bytes();
  Event e;
  uint64_t n = 0;
  for (auto _ : state) {
    TraceReader reader(MemorySource(bytes), nullptr);
    if (!reader.ReadHeader().ok()) {
      state.SkipWithError("bad header");
      return;
    }
    Chunk c;
    EventStreamDecoder dec;
    while (reader.Next(&c)) {
      if (!dec.Reset(c.payload, c.flags).ok()) break;
      while (dec.Next(&e)) ++n;
    }
  }
  benchmark::DoNotOptimize(n);
  state.SetItemsProcessed(state.iterations() * events.size() * 16);
  state.counters["file_B/ev"] = static_cast<double>(bytes.size()) / (events.size() * 16);
  state.SetLabel(MixName(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_ReadTrace)->Arg(0)->Arg(1);

}  // namespace
}  // namespace ittc::format
