// The serial and the parallel TraceReader on a generated trace of 4
// threads x 192 chunks x 65536 events (50.3 M events, loop-program task
// pairs, zstd level 1), in memory:
//
//   BM_PlainZstd            ZSTD_decompressDCtx over every chunk's frame,
//                           one thread, no CRC, no framing: the floor
//   BM_Read/W               TraceReader::Next over the whole trace with W
//                           workers (0: the serial reader)
//   BM_ReadAndDecode/W      the same, the consumer also decoding every
//                           event (EventStreamDecoder): what an itt-dump
//                           pass does at least
//   BM_ReadDecodeInWorkers/W  the same decoding done by a ChunkDecoder, on
//                           the workers; the consumer only adds up
//
// Counters: chunks/s, MB/s (stored bytes of the file), events/s, and
// x_zstd: the rate as a ratio to BM_PlainZstd's, measured in the same
// process (best of 3 passes), so the ratio holds on a busy machine.
//
//   bazel run -c opt //tests/format:parallel_reader_bench

#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "format/coding.h"
#include "format/format.h"
#include "tests/format/test_util.h"

namespace ittc {
namespace format {
namespace {

constexpr int kThreads = 4;
constexpr int kChunksPerThread = 192;
constexpr size_t kChunkEvents = 65536;
constexpr uint64_t kEvents = uint64_t{kThreads} * kChunksPerThread * kChunkEvents;

struct BenchTrace {
  std::string bytes;
  std::vector<std::string_view> frames;  // each chunk's stored zstd frame
  std::vector<size_t> sizes;             // and its decompressed size
};

const BenchTrace& Trace() {
  static const BenchTrace* trace = [] {
    auto* t = new BenchTrace;
    t->bytes = EncodeFileHeader(testing::SampleHeader());
    ChunkWriter writer(1);
    EventStreamEncoder enc;
    testing::Rng rng(3);
    std::vector<uint64_t> time(kThreads, uint64_t{1} << 40);
    std::vector<size_t> offsets;
    for (int c = 0; c < kChunksPerThread; ++c) {
      for (int th = 0; th < kThreads; ++th) {
        const std::vector<Event> events = testing::TaskPairs(rng, kChunkEvents, &time[th]);
        enc.Reset(static_cast<uint32_t>(th), events.front().time);
        for (const Event& e : events) enc.Append(e);
        offsets.push_back(t->bytes.size());
        t->sizes.push_back(enc.payload().size());
        if (!writer.AppendChunk(ChunkType::kEvents, enc.payload(), &t->bytes, enc.chunk_flags())
                 .ok()) {
          abort();
        }
      }
    }
    for (size_t off : offsets) {
      const uint32_t stored = DecodeFixed32(t->bytes.data() + off + 8);
      t->frames.emplace_back(t->bytes.data() + off + kChunkHeaderSize, stored);
    }
    return t;
  }();
  return *trace;
}

void PlainZstdPass(ZSTD_DCtx* dctx, std::string* out) {
  const BenchTrace& t = Trace();
  for (size_t i = 0; i < t.frames.size(); ++i) {
    if (out->size() < t.sizes[i]) out->resize(t.sizes[i]);
    const size_t n =
        ZSTD_decompressDCtx(dctx, &(*out)[0], t.sizes[i], t.frames[i].data(), t.frames[i].size());
    if (n != t.sizes[i]) abort();
    benchmark::DoNotOptimize(out->data());
  }
}

// Seconds for one plain zstd pass, best of 3, measured once per process.
double ZstdSeconds() {
  static const double seconds = [] {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::string out;
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {
      const auto start = std::chrono::steady_clock::now();
      PlainZstdPass(dctx, &out);
      const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
      best = std::min(best, d.count());
    }
    ZSTD_freeDCtx(dctx);
    return best;
  }();
  return seconds;
}

// `seconds`: the wall time of the state's iterations, timed by the caller.
void SetCounters(benchmark::State& state, double seconds) {
  const BenchTrace& t = Trace();
  const double passes = static_cast<double>(state.iterations());
  state.counters["chunks/s"] = benchmark::Counter(passes * static_cast<double>(t.frames.size()),
                                                  benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(passes * static_cast<double>(t.bytes.size()) / 1e6,
                                              benchmark::Counter::kIsRate);
  state.counters["events/s"] =
      benchmark::Counter(passes * static_cast<double>(kEvents), benchmark::Counter::kIsRate);
  // This rate / plain zstd's rate = zstd's time / this time, per pass.
  state.counters["x_zstd"] = ZstdSeconds() * passes / seconds;
  state.counters["trace_MB"] = static_cast<double>(t.bytes.size()) / 1e6;
}

// Times the iterations of `state`, each running pass().
template <typename Pass>
void RunPasses(benchmark::State& state, Pass pass) {
  ZstdSeconds();
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    pass();
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
    seconds += d.count();
  }
  SetCounters(state, seconds);
}

void BM_PlainZstd(benchmark::State& state) {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::string out;
  RunPasses(state, [&] { PlainZstdPass(dctx, &out); });
  ZSTD_freeDCtx(dctx);
}
BENCHMARK(BM_PlainZstd)->Unit(benchmark::kMillisecond)->UseRealTime();

ReaderOptions Options(int64_t workers) {
  ReaderOptions o;
  o.workers = static_cast<int>(workers < 0 ? OnlineCpus() : workers);
  return o;
}

void BM_Read(benchmark::State& state) {
  const BenchTrace& t = Trace();
  RunPasses(state, [&] {
    TraceReader reader(MemorySource(t.bytes), nullptr, Options(state.range(0)));
    if (!reader.ReadHeader().ok()) abort();
    Chunk c;
    uint64_t bytes = 0;
    while (reader.Next(&c)) bytes += c.payload.size();
    if (reader.stats().chunks_read != t.frames.size()) abort();
    benchmark::DoNotOptimize(bytes);
  });
}
// -1: one worker per online CPU (ReaderOptions::Parallel()).
BENCHMARK(BM_Read)->Arg(0)->Arg(1)->Arg(2)->Arg(-1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadAndDecode(benchmark::State& state) {
  const BenchTrace& t = Trace();
  RunPasses(state, [&] {
    TraceReader reader(MemorySource(t.bytes), nullptr, Options(state.range(0)));
    if (!reader.ReadHeader().ok()) abort();
    Chunk c;
    Event e;
    EventStreamDecoder dec;
    uint64_t events = 0;
    while (reader.Next(&c)) {
      if (!dec.Reset(c.payload, c.flags).ok()) abort();
      while (dec.Next(&e)) ++events;
    }
    if (events != kEvents) abort();
  });
}
BENCHMARK(BM_ReadAndDecode)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(-1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Counts the events of a chunk and sums their times: stands for the
// per-chunk part of a verb, run where the chunk is decompressed.
class CountingDecoder : public ChunkDecoder {
 public:
  struct Result : DecodedChunk {
    uint64_t events = 0;
    uint64_t time_sum = 0;
  };
  std::unique_ptr<DecodedChunk> NewResult() const override { return std::make_unique<Result>(); }
  void Decode(const Chunk& chunk, DecodedChunk* out) const override {
    Result* r = static_cast<Result*>(out);
    *r = Result();
    EventStreamDecoder dec;
    if (chunk.type != ChunkType::kEvents || !dec.Reset(chunk.payload, chunk.flags).ok()) return;
    Event e;
    while (dec.Next(&e)) {
      ++r->events;
      r->time_sum += e.time;
    }
  }
};

void BM_ReadDecodeInWorkers(benchmark::State& state) {
  const BenchTrace& t = Trace();
  const CountingDecoder decoder;
  RunPasses(state, [&] {
    ReaderOptions options = Options(state.range(0));
    options.decoder = &decoder;
    TraceReader reader(MemorySource(t.bytes), nullptr, options);
    if (!reader.ReadHeader().ok()) abort();
    Chunk c;
    uint64_t events = 0;
    while (reader.Next(&c))
      events += static_cast<const CountingDecoder::Result*>(c.decoded)->events;
    if (events != kEvents) abort();
  });
}
BENCHMARK(BM_ReadDecodeInWorkers)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(-1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace format
}  // namespace ittc
