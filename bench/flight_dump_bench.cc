// How fast the flight recorder writes a dump (issue 49: 256 MiB on disk
// within a second): a FlightStore filled to its budget with events chunks
// as the flusher frames them (512 KiB payloads, here of random bytes so
// that the store holds its budget's worth), then dumped to a file in a
// temporary directory, one dump per iteration.
//
//   bazel run -c opt //bench:flight_dump_bench
//   bazel run -c opt //bench:flight_dump_bench -- --benchmark_filter=Sync
//
// BM_FlightDump: WriteDump and close (the bytes reach the page cache);
// BM_FlightDumpSync: the same and fdatasync (they reach the disk);
// BM_WriteFloor: write(2) of as many bytes from memory, 1 MiB at a time,
// and close: what any writer pays on this machine, whose page cache costs
// far more to grow than to reuse (on the project's VMs the first 256 MiB
// written take seconds, for any writer, the next ones a tenth of one).
// Each runs 10 times; compare their medians.

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <random>
#include <string>

#include "bench/bench_env.h"
#include "collector/internal/flight_store.h"
#include "collector/internal/timebase.h"
#include "format/format.h"

namespace ittc::bench {
namespace {

using collector_internal::ChunkNotes;
using collector_internal::FlightDumpRequest;
using collector_internal::FlightDumpResult;
using collector_internal::FlightStore;

constexpr size_t kPayloadBytes = 512 * 1024;

// A store of `mib` MiB holding as many chunks as fit.
std::unique_ptr<FlightStore> FilledStore(size_t mib) {
  std::unique_ptr<FlightStore> store(FlightStore::Create(mib << 20));
  format::FileHeader h;
  h.timebase_hz = 1000000000;
  store->SetHeader(format::EncodeFileHeader(h));
  std::mt19937_64 rng(1);
  std::string payload(kPayloadBytes, '\0');
  for (size_t i = 0; i < payload.size(); i += 8) {
    const uint64_t v = rng();
    payload.replace(i, 8, reinterpret_cast<const char*>(&v), 8);
  }
  ChunkNotes notes;
  notes.events.push_back({1, 1000, 1, 2});
  // One chunk more than fits: the store is full, its oldest dropped.
  for (size_t i = 0; i <= (mib << 20) / kPayloadBytes; ++i) {
    const std::string chunk = format::FrameChunkForTest(
        static_cast<uint16_t>(format::ChunkType::kEvents), 0, i, payload, kPayloadBytes);
    store->Add(chunk, notes);
  }
  return store;
}

void DumpOnce(benchmark::State& state, bool sync) {
  const size_t mib = static_cast<size_t>(state.range(0));
  // One store for every repetition: filling it is not what is measured.
  static FlightStore* const store = FilledStore(mib).release();
  const std::string dir = MakeTempDir("ittc-flight-dump");
  const std::string path = dir + "/dump.itt";
  FlightDumpResult result;
  for (auto _ : state) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    store->BeginDump(UINT64_MAX);
    FlightDumpRequest request;
    if (!store->WriteDump(fd, request, UINT64_MAX, &result)) state.SkipWithError("dump failed");
    store->EndDump();
    if (sync) fdatasync(fd);
    close(fd);
    state.PauseTiming();
    unlink(path.c_str());
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(result.bytes) * state.iterations());
  state.counters["dump_MiB"] = static_cast<double>(result.bytes) / (1 << 20);
  RemoveTree(dir);
}

void BM_WriteFloor(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  // As many bytes as the dump's, from memory of their own (touched).
  static const std::string* const source = new std::string(bytes, 'x');
  const std::string dir = MakeTempDir("ittc-flight-floor");
  const std::string path = dir + "/floor.bin";
  for (auto _ : state) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    for (size_t done = 0; done < bytes; done += size_t{1} << 20) {
      if (write(fd, source->data() + done, size_t{1} << 20) != ssize_t{1} << 20) {
        state.SkipWithError("write failed");
      }
    }
    close(fd);
    state.PauseTiming();
    unlink(path.c_str());
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  RemoveTree(dir);
}

void BM_FlightDump(benchmark::State& state) { DumpOnce(state, false); }
void BM_FlightDumpSync(benchmark::State& state) { DumpOnce(state, true); }

BENCHMARK(BM_WriteFloor)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(10);
BENCHMARK(BM_FlightDump)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(10);
BENCHMARK(BM_FlightDumpSync)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(10);

}  // namespace
}  // namespace ittc::bench

BENCHMARK_MAIN();
