// The flusher's cost: CPU nanoseconds per event and bytes per event on
// disk, per zstd level. Each run is a fresh process (paced_run.h) with one
// producer emitting task begin/end pairs (four names) for 1 s:
//   BM_FlusherLevel/zstd:L/rate_mps:R   paced at R M events/s (below the
//                                       lossless rate), zstd level L
//                                       (0 = the collector's default)
//   BM_FlusherSaturated/zstd:L          ITTC_OVERFLOW=block, unpaced: the
//                                       producer waits where its ring is
//                                       full, so the rate is the slower of
//                                       producer and flusher (on the dev VM
//                                       the producer: the flusher was busy
//                                       about half the time); BM_Drain
//                                       gives the flusher's own ceiling
//   BM_Drain/producers:P/flushers:K     P producers each fill a 64 MiB ring
//                                       with 2 M task pairs while the
//                                       flushers are held; then one flusher
//                                       empties them, and in a second child
//                                       K flushers (ITTC_FLUSHERS):
//                                       one_flusher_mps and drain_mps are
//                                       the events drained per second of
//                                       wall time, over_one their ratio
//                                       (issue 46: >= 0.8 K on a machine
//                                       with K cores to spare); five
//                                       repetitions, each a pair
// (compress_ns_per_event and write_ns_per_event: the parts of the flusher's
// CPU per event spent compressing and framing chunks and writing, as the
// collector counted them in that run; the rest is reading the rings,
// encoding and the rounds)
// and, in this process, the flusher's stages on ring records of task
// begin/end pairs written by the hot path's own record writer, per event:
//   BM_Stage_Decode        ring record -> format::Event (the old first step)
//   BM_Stage_Encode        format::Event -> events-chunk payload
//   BM_Stage_RingToPayload what the flusher does now: ring record straight
//                          into the payload
//   BM_Stage_Compress      one chunk of that payload through zstd at the
//                          default level, framed and checksummed
//   BM_Stage_Write         write(2) of the compressed bytes to a file
//   BM_HeavyStages/<group> RingToPayload then Compress, each timed, on the
//                          records of a call_overhead_bench group the
//                          flusher drains slowest
//   BM_Floor_Rdtsc         one RDTSC, the reference for the ratios
//
//   bazel run -c opt //bench:flusher_bench
//   bazel run -c opt //bench:flusher_bench -- --benchmark_filter=Stage

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_env.h"
#include "bench/paced_run.h"
#include "collector/internal/raw_record.h"
#include "collector/internal/settings.h"
#include "format/chunk_writer.h"
#include "format/event_stream.h"

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
          // Of that, as the collector counted them in this run.
          state.counters["compress_ns_per_event"] =
              static_cast<double>(r.flusher_compress_ns) / recorded;
          state.counters["write_ns_per_event"] = static_cast<double>(r.flusher_write_ns) / recorded;
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

// Rings of 64 MiB: 2 M pairs of task records (up to 24 bytes a pair) fit,
// and draining them takes long enough (~100 ms) to time.
constexpr int kDrainRingKb = 64 * 1024;
constexpr uint64_t kDrainPairs = 2 * 1000 * 1000;

// One drain run of `flushers` flushers; false if the child failed.
bool RunDrain(int producers, int flushers, PacedRunResult* r) {
  PacedRunConfig config;
  config.ring_kb = kDrainRingKb;
  config.producers = producers;
  config.flushers = std::to_string(flushers);
  config.drain_pairs = kDrainPairs;
  *r = RunPacedChild(config);
  return r->ok && r->recorded != 0 && r->drain_seconds > 0 && r->flushers == flushers;
}

// Each repetition drains with one flusher, then with K, one after the
// other: the ratio compares runs of the same minute on a shared machine.
void RegisterDrain(int producers, int flushers) {
  char name[96];
  std::snprintf(name, sizeof(name), "BM_Drain/producers:%d/flushers:%d", producers, flushers);
  benchmark::RegisterBenchmark(
      name,
      [producers, flushers](benchmark::State& state) {
        for (auto _ : state) {
          PacedRunResult one, many;
          if (!RunDrain(producers, 1, &one) || !RunDrain(producers, flushers, &many)) {
            state.SkipWithError("child run failed");
            return;
          }
          state.SetIterationTime(many.drain_seconds);
          const double one_mps = static_cast<double>(one.recorded) / one.drain_seconds / 1e6;
          const double many_mps = static_cast<double>(many.recorded) / many.drain_seconds / 1e6;
          state.counters["flushers"] = many.flushers;
          state.counters["one_flusher_mps"] = one_mps;
          state.counters["drain_mps"] = many_mps;
          state.counters["over_one"] = many_mps / one_mps;
          state.counters["dropped"] = static_cast<double>(many.dropped);
          // CPU of all flushers per event drained, and the busiest one's
          // share of the drain's wall time.
          uint64_t cpu = 0;
          uint64_t busiest = 0;
          for (uint64_t ns : many.flusher_cpu_each_ns) {
            cpu += ns;
            busiest = std::max(busiest, ns);
          }
          state.counters["flusher_ns_per_event"] =
              static_cast<double>(cpu) / static_cast<double>(many.recorded);
          state.counters["busiest_flusher_pct"] =
              100.0 * static_cast<double>(busiest) / 1e9 / many.drain_seconds;
        }
      })
      ->Iterations(1)
      ->Repetitions(5)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

// Ring records back to back as the hot path's Emit lays them, each at
// `ticks` after the one at `prev`: the `write(kind, fields...)` of the ring
// record choosers (raw_record.h), every record kept.
struct RingBuilder {
  std::vector<uint8_t> bytes;
  uint64_t ticks = 1000000, prev = 0;
  // The next record's time.
  void Step(uint64_t by) {
    prev = ticks;
    ticks += by;
  }
  template <typename... Fields>
  bool operator()(format::EventKind kind, const Fields&... fields) {
    const size_t at = bytes.size();
    const size_t size = collector_internal::RawRecordSize(ticks, prev, fields...);
    bytes.resize(at + size);
    collector_internal::WriteRawRecord(&bytes[at], size, kind, ticks, prev, fields...);
    return true;
  }
};

// Ring records of `events` task begin/end events (half each) as the hot path
// lays them out: one domain, no ids, four names in turn, RDTSC-like time
// steps. So each begin but the first carries its name in its header (its
// name differs from the last, its domain does not) and each end repeats the
// ring's task word's domain (raw_record.h).
std::vector<uint8_t> TaskRecords(size_t events) {
  RingBuilder write;
  uint32_t jitter = 12345;
  uint64_t task_word = collector_internal::kNoTaskWord;
  for (size_t i = 0; i < events; ++i) {
    jitter = jitter * 1103515245u + 12345u;
    write.Step(20 + (jitter >> 28));
    const uint32_t domain = 1;
    if ((i & 1) == 0) {
      // As __itt_task_begin writes a begin with null ids.
      const uint64_t word = collector_internal::PackTaskBegin(domain, 1 + ((i >> 1) & 3));
      collector_internal::WriteTaskBegin(word, &task_word, write);
    } else if (domain == collector_internal::TaskWordDomain(task_word)) {
      write(collector_internal::kRawTaskEndRepeat);
    } else {
      write(format::EventKind::kTaskEnd, uint64_t{domain});
    }
  }
  return std::move(write.bytes);
}

// Events per stage iteration: one chunk's worth at the flusher's target.
constexpr size_t kStageEvents = 100000;

const std::vector<uint8_t>& StageRecords() {
  static const std::vector<uint8_t> records = TaskRecords(kStageEvents);
  return records;
}

// Ring records of `events` calls of one of the call_overhead_bench loops the
// flusher drains slowest, as the collector's API functions lay them out
// (itt_tasks.cc, jit_api.cc): one record per event, RDTSC-like steps.
std::vector<uint8_t> HeavyRecords(const std::string& group, size_t events) {
  using collector_internal::RawBytes;
  RingBuilder write;
  uint64_t task_word = collector_internal::kNoTaskWord;
  const uint64_t value = 42;
  static const char kMethod[] = "bench::JittedMethod";
  const uint32_t domain = 1, key = 3, name = 2;
  const uint64_t object = 0x7f0012345678;
  for (uint64_t i = 0; i < events; ++i) {
    write.Step(20 + (static_cast<uint32_t>(i * 2654435761u) >> 28));
    if (group == "Metadata") {
      // __itt_metadata_add(domain, __itt_null, key, __itt_metadata_u64, 1, &value):
      // one value, the compact record
      write(collector_internal::kRawMetadataValue,
            collector_internal::PackMetadataValue(domain, 1, key), value);
    } else if (group == "Relation") {
      // __itt_relation_add(domain, id(i), is_parent_of, id(i + 1))
      collector_internal::WriteRelation(domain, collector_internal::RawId{object, i, 0}, 1,
                                        collector_internal::RawId{object, i + 1, 0}, write);
    } else if (group == "Sync") {
      // __itt_sync_prepare, _acquired, _releasing on one object, in turn
      constexpr format::EventKind kSyncKinds[] = {format::EventKind::kSyncPrepare,
                                                  format::EventKind::kSyncAcquired,
                                                  format::EventKind::kSyncReleasing};
      write(kSyncKinds[i % 3], object);
    } else if (group == "TaskOverlapped") {
      // __itt_task_begin_overlapped(domain, id(n), __itt_null, name) and
      // _end_overlapped(domain, id(n)): the packed begin once, then repeats
      const uint64_t n = i / 2 + 1;
      if (i == 0) {
        write(collector_internal::kRawPackedOverlappedBegin,
              collector_internal::PackTaskBegin(domain, name), object, n);
      } else if ((i & 1) == 0) {
        write(collector_internal::kRawOverlappedBeginRepeat, object, n);
      } else {
        write(collector_internal::kRawOverlappedEndRepeat, object, n);
      }
    } else if (group == "Event") {
      // __itt_event_start(event), __itt_event_end(event) in turn
      write((i & 1) == 0 ? format::EventKind::kEventStart : format::EventKind::kEventEnd,
            uint64_t{key});
    } else if (group == "Heap") {
      // __itt_heap_allocate_begin(heap, 64, 0), _end(heap, &block, 64, 0)
      if ((i & 1) == 0) {
        write(format::EventKind::kHeapAllocateBegin, uint64_t{key}, uint64_t{64}, uint64_t{0});
      } else {
        write(format::EventKind::kHeapAllocateEnd, uint64_t{key}, object, uint64_t{64},
              uint64_t{0});
      }
    } else if (group == "Marker") {
      // __itt_marker(domain, __itt_null, name, __itt_scope_task)
      collector_internal::WriteMarker(domain, collector_internal::RawId{0, 0, 0}, name, 4, write);
    } else if (group == "CounterInc") {
      // __itt_counter_inc(counter): the counter's id
      collector_internal::WriteCounterStep(format::EventKind::kCounterInc, key, write);
    } else if (group == "TaskBeginEndEx") {
      // begin_ex(domain, NULL, ++t, __itt_null, __itt_null, name) and
      // end_ex(domain, NULL, ++t): the default clock's records, with the
      // timestamps call_overhead_bench's loop passes
      if ((i & 1) == 0) {
        collector_internal::WriteDefaultClockBeginEx(
            collector_internal::PackTaskBegin(domain, name), i + 1, &task_word, write);
      } else {
        collector_internal::WriteDefaultClockEndEx(domain, i + 1, task_word, write);
      }
    } else {
      // iJIT_NotifyEvent(METHOD_LOAD_FINISHED): a named method, no files,
      // no line table
      collector_internal::WriteJitMethodLoad(i + 1, RawBytes{kMethod, sizeof(kMethod) - 1}, 0x10000,
                                             64, RawBytes{"", 0}, RawBytes{"", 0}, RawBytes{"", 0},
                                             write);
    }
  }
  return std::move(write.bytes);
}

// The groups HeavyRecords writes.
constexpr const char* kHeavyGroups[] = {"Marker",   "CounterInc",     "Event",          "Heap",
                                        "Sync",     "TaskOverlapped", "TaskBeginEndEx", "Metadata",
                                        "Relation", "JitMethodLoad"};

// Calls fn(record, ticks, task_word) for each record of `ring`, with what
// the flusher keeps of the records before it.
template <typename Fn>
void ForEachRecord(const std::vector<uint8_t>& ring, Fn fn) {
  uint64_t ticks = 0;
  uint64_t task_word = collector_internal::kNoTaskWord;
  for (size_t at = 0; at < ring.size();) {
    uint64_t header;
    std::memcpy(&header, &ring[at], 8);
    ticks = collector_internal::RawTicks(&ring[at], ticks);
    fn(&ring[at], ticks, &task_word);
    at += collector_internal::RawSize(header);
  }
}

// The flusher's path over `ring` into a fresh payload of `encoder`, as the
// flusher's drain loop runs it: returns how many records it refused. Out of
// line and aligned to a cache line, so that the code around it (the other
// benchmarks of this file) does not move its loop: one alignment of it
// against another differed by 8%.
__attribute__((noinline, aligned(64))) size_t EncodeRecords(const std::vector<uint8_t>& ring,
                                                            format::EventStreamEncoder* encoder) {
  encoder->Reset(1, 0);
  size_t refused = 0;
  uint64_t ticks = 0;
  uint64_t task_word = collector_internal::kNoTaskWord;
  const uint8_t* p = ring.data();
  const uint8_t* const end = p + ring.size();
  while (p < end) {
    ticks = collector_internal::RawTicks(p, ticks);
    refused += collector_internal::AppendRawRecord(p, ticks, &task_word, encoder) ? 0 : 1;
    p += collector_internal::RawSize(collector_internal::LoadRawWord(p));
  }
  return refused;
}

void SetStageCounters(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kStageEvents));
  state.counters["events"] = static_cast<double>(kStageEvents);
}

void BM_Stage_Decode(benchmark::State& state) {
  const auto& ring = StageRecords();
  format::Event event;
  for (auto _ : state) {
    ForEachRecord(ring, [&](const uint8_t* r, uint64_t ticks, uint64_t* task_word) {
      collector_internal::DecodeRawRecord(r, ticks, task_word, &event);
      benchmark::DoNotOptimize(event);
    });
  }
  SetStageCounters(state);
}

void BM_Stage_Encode(benchmark::State& state) {
  std::vector<format::Event> events;
  ForEachRecord(StageRecords(), [&](const uint8_t* r, uint64_t ticks, uint64_t* task_word) {
    events.emplace_back();
    collector_internal::DecodeRawRecord(r, ticks, task_word, &events.back());
  });
  format::EventStreamEncoder encoder;
  for (auto _ : state) {
    encoder.Reset(1, events[0].time);
    for (const format::Event& e : events) encoder.Append(e);
    benchmark::DoNotOptimize(encoder.payload_size());
  }
  SetStageCounters(state);
}

void BM_Stage_RingToPayload(benchmark::State& state) {
  const auto& ring = StageRecords();
  format::EventStreamEncoder encoder;
  for (auto _ : state) {
    benchmark::DoNotOptimize(EncodeRecords(ring, &encoder));
    benchmark::DoNotOptimize(encoder.payload_size());
  }
  SetStageCounters(state);
}

// The payload the flusher makes of StageRecords(), and its chunk's flags.
std::string StagePayload(uint16_t* flags) {
  format::EventStreamEncoder encoder;
  EncodeRecords(StageRecords(), &encoder);
  *flags = encoder.chunk_flags();
  return std::string(encoder.payload());
}

// BM_Stage_RingToPayload and BM_Stage_Compress together on HeavyRecords:
// the flusher's CPU per event for a group, less its reading of the ring.
void BM_HeavyStages(benchmark::State& state, const std::string& group) {
  const std::vector<uint8_t> ring = HeavyRecords(group, kStageEvents);
  format::EventStreamEncoder encoder;
  format::ChunkWriter writer(collector_internal::Settings().zstd_level);
  std::string out;
  uint64_t encode_ns = 0, compress_ns = 0;
  for (auto _ : state) {
    const uint64_t t0 = ThreadCpuNs();
    const size_t failed = EncodeRecords(ring, &encoder);
    const std::string_view payload = encoder.payload();
    const uint64_t t1 = ThreadCpuNs();
    if (failed != 0 || encoder.event_count() != kStageEvents) {
      state.SkipWithError("a record did not encode");
      return;
    }
    out.clear();
    if (!writer.AppendChunk(format::ChunkType::kEvents, payload, &out, encoder.chunk_flags())
             .ok()) {
      state.SkipWithError("AppendChunk failed");
      return;
    }
    encode_ns += t1 - t0;
    compress_ns += ThreadCpuNs() - t1;
  }
  SetStageCounters(state);
  const double events = static_cast<double>(state.iterations() * kStageEvents);
  state.counters["encode_ns_per_event"] = static_cast<double>(encode_ns) / events;
  state.counters["compress_ns_per_event"] = static_cast<double>(compress_ns) / events;
  state.counters["bytes_per_event"] = static_cast<double>(out.size()) / kStageEvents;
  state.counters["raw_bytes_per_event"] =
      static_cast<double>(encoder.payload_size()) / kStageEvents;
}

void BM_Stage_Compress(benchmark::State& state) {
  uint16_t flags;
  const std::string payload = StagePayload(&flags);
  format::ChunkWriter writer(collector_internal::Settings().zstd_level);
  std::string out;
  for (auto _ : state) {
    out.clear();
    if (!writer.AppendChunk(format::ChunkType::kEvents, payload, &out, flags).ok()) {
      state.SkipWithError("AppendChunk failed");
      return;
    }
  }
  SetStageCounters(state);
  state.counters["bytes_per_event"] =
      static_cast<double>(out.size()) / static_cast<double>(kStageEvents);
  state.counters["raw_bytes_per_event"] =
      static_cast<double>(payload.size()) / static_cast<double>(kStageEvents);
}

void BM_Stage_Write(benchmark::State& state) {
  uint16_t flags;
  const std::string payload = StagePayload(&flags);
  format::ChunkWriter writer(collector_internal::Settings().zstd_level);
  std::string chunk;
  (void)writer.AppendChunk(format::ChunkType::kEvents, payload, &chunk, flags);
  std::string dir = MakeTempDir("ittc-stage");
  int fd = open((dir + "/stage.itt").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  for (auto _ : state) {
    if (write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size())) {
      state.SkipWithError("write failed");
      break;
    }
  }
  close(fd);
  RemoveTree(dir);
  SetStageCounters(state);
}

void BM_Floor_Rdtsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(__rdtsc());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
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
  RegisterDrain(2, 2);
  benchmark::RegisterBenchmark("BM_Floor_Rdtsc", BM_Floor_Rdtsc);
  benchmark::RegisterBenchmark("BM_Stage_Decode", BM_Stage_Decode);
  benchmark::RegisterBenchmark("BM_Stage_Encode", BM_Stage_Encode);
  benchmark::RegisterBenchmark("BM_Stage_RingToPayload", BM_Stage_RingToPayload);
  benchmark::RegisterBenchmark("BM_Stage_Compress", BM_Stage_Compress);
  benchmark::RegisterBenchmark("BM_Stage_Write", BM_Stage_Write);
  for (const char* group : kHeavyGroups) {
    benchmark::RegisterBenchmark((std::string("BM_HeavyStages/") + group).c_str(), BM_HeavyStages,
                                 std::string(group));
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
