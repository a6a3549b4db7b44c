// The flight recorder's store on its own: chunks framed as the flusher
// frames them go in with their notes, dumps come out, and the trace model
// reads the dumps back. Every events chunk here carries task begins whose
// id is the thread's event number, so a dump shows which events it kept.

#include "collector/internal/flight_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "collector/internal/timebase.h"
#include "format/format.h"
#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::collector_internal {
namespace {

using format::ChunkType;
using format::EventKind;
using format::Field;

constexpr uint64_t kStartTicks = 1000;
constexpr uint64_t kDeadlineNs = 60ull * 1000 * 1000 * 1000;

// Makes batches of chunks the way the flusher does.
class Producer {
 public:
  explicit Producer(int threads) : next_(threads + 1, 0) {}

  std::string Header() const {
    format::FileHeader h;
    h.pid = 77;
    h.timebase = format::Timebase::kTsc;
    h.timebase_hz = 1000000000;
    h.start_ticks = kStartTicks;
    h.host_name = "host";
    return format::EncodeFileHeader(h);
  }

  // Definitions and thread info of threads 1..n, and a clock sync.
  void Preamble(int threads) {
    records_.Clear();
    records_.Append(format::DefDomain(1, "flight"));
    records_.Append(format::DefString(1, "work"));
    Append(ChunkType::kDefinitions);
    for (int t = 1; t <= threads; ++t) {
      format::ThreadInfo info;
      info.thread_index = static_cast<uint32_t>(t);
      info.tid = 100 + static_cast<uint64_t>(t);
      const std::string name = "worker-" + std::to_string(t);
      info.name = name;
      records_.Clear();
      records_.Append(format::ToRecord(info));
      Append(ChunkType::kThreadInfo);
    }
    Sync(kStartTicks);
  }

  void Sync(uint64_t ticks) {
    format::ClockSync sync;
    sync.ticks = ticks;
    sync.monotonic_raw_ns = ticks;
    sync.realtime_ns = static_cast<int64_t>(ticks);
    records_.Clear();
    records_.Append(format::ToRecord(sync));
    Append(ChunkType::kClockSync);
  }

  // One events chunk of `thread`: its next `count` events, task begins
  // whose id is the event's number in the thread, at ticks that rise with
  // it; names at random so that the chunk does not compress to nothing.
  void Events(uint32_t thread, int count) {
    encoder_.Reset(thread, Ticks(thread, next_[thread]));
    ChunkNotes::Events note;
    note.thread_index = thread;
    note.first_ticks = Ticks(thread, next_[thread]);
    format::Event e;
    for (int i = 0; i < count; ++i) {
      const uint64_t n = next_[thread]++;
      e.Init(EventKind::kTaskBegin, Ticks(thread, n));
      e.Set(Field::kDomain, 1);
      e.SetId(Field::kId, format::Id{n + 1, 0, 0});
      e.Set(Field::kName, 1 + rng_() % 1000);
      encoder_.Append(e);
      note.last_ticks = Ticks(thread, n);
    }
    note.events = static_cast<uint64_t>(count);
    ASSERT_TRUE(
        writer_.AppendChunk(ChunkType::kEvents, encoder_.payload(), &batch_, encoder_.chunk_flags())
            .ok());
    notes_.events.push_back(note);
  }

  void Loss(uint32_t thread, format::LossCause cause, uint64_t count) {
    format::LossRecord loss;
    loss.thread_index = thread;
    loss.cause = cause;
    loss.count = count;
    records_.Clear();
    records_.Append(format::ToRecord(loss));
    Append(ChunkType::kLoss);
    notes_.losses.push_back({thread, cause, count});
  }

  void CommitTo(FlightStore* store) {
    store->Add(batch_, notes_);
    batch_.clear();
    notes_.Clear();
  }

  static uint64_t Ticks(uint32_t thread, uint64_t n) { return kStartTicks + 10 + n * 16 + thread; }
  uint64_t emitted(uint32_t thread) const { return next_[thread]; }

 private:
  void Append(ChunkType type) {
    ASSERT_TRUE(writer_.AppendChunk(type, records_.payload(), &batch_).ok());
  }

  std::vector<uint64_t> next_;
  format::ChunkWriter writer_;
  format::RecordEncoder records_;
  format::EventStreamEncoder encoder_;
  std::string batch_;
  ChunkNotes notes_;
  std::mt19937 rng_{7};
};

struct Dumped {
  testing::LoadedTrace trace;
  FlightDumpResult result;
};

// Dumps `store` into a file of `dir` and loads it.
Dumped Dump(FlightStore* store, const std::string& path, const FlightDumpRequest& request) {
  Dumped d;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0);
  EXPECT_TRUE(store->BeginDump(MonotonicRawNs() + kDeadlineNs));
  EXPECT_TRUE(store->WriteDump(fd, request, MonotonicRawNs() + kDeadlineNs, &d.result));
  store->EndDump();
  close(fd);
  auto loaded = testing::LoadTrace(path);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (loaded.ok()) d.trace = std::move(*loaded);
  return d;
}

// The event numbers (ids) of `thread` in the dump, in file order.
std::vector<uint64_t> Numbers(const testing::LoadedTrace& trace, uint32_t thread) {
  std::vector<uint64_t> out;
  for (const testing::DecodedEvent& e : trace.events) {
    if (e.thread == thread) out.push_back(e.IdOf("id").d1 - 1);
  }
  return out;
}

uint64_t Lost(const testing::LoadedTrace& trace, uint32_t thread, format::LossCause cause) {
  auto it = trace.losses.find({thread, static_cast<int>(cause)});
  return it == trace.losses.end() ? 0 : it->second;
}

// What every dump must be: a clean, complete trace whose counts add up,
// in which each thread's events come in order, and all of them from the
// window's start on. With `whole_suffix`, each thread's events are its
// last ones without a gap (a chunk that found no room while a dump was
// written may leave one, counted: not in the tests that never add then).
void ExpectDumpAddsUp(const Dumped& d, int threads, bool whole_suffix) {
  const testing::LoadedTrace& t = d.trace;
  EXPECT_EQ(t.corruptions, 0);
  EXPECT_EQ(t.truncations, 0);
  EXPECT_EQ(t.stats.chunks_missing, 0u);
  EXPECT_TRUE(t.has_end);
  ASSERT_TRUE(t.has_flight);
  EXPECT_EQ(t.end.events_recorded, t.events.size());
  EXPECT_EQ(t.end.events_recorded, d.result.events);
  EXPECT_EQ(t.end.events_dropped, t.TotalLoss());
  EXPECT_EQ(t.flight.window_begin, d.result.window_begin);
  for (int i = 1; i <= threads; ++i) {
    const auto thread = static_cast<uint32_t>(i);
    const std::vector<uint64_t> numbers = Numbers(t, thread);
    const uint64_t overwritten = Lost(t, thread, format::LossCause::kOverwritten);
    if (numbers.empty()) continue;
    // Every event up to the last one here is here or overwritten.
    EXPECT_EQ(numbers.size() + overwritten, numbers.back() + 1) << "thread " << i;
    size_t run = 0;  // where the unbroken run to the last starts
    for (size_t k = 1; k < numbers.size(); ++k) {
      ASSERT_LT(numbers[k - 1], numbers[k]) << "thread " << i << " at " << k;
      if (numbers[k] != numbers[k - 1] + 1) run = k;
    }
    // The event before that run, if any, is not after the window's start.
    if (numbers[run] != 0) {
      EXPECT_LE(Producer::Ticks(thread, numbers[run] - 1), t.flight.window_begin) << i;
    }
    if (whole_suffix) {
      EXPECT_EQ(numbers.front(), overwritten) << "thread " << i;
    }
  }
  EXPECT_EQ(t.strings.at(1), "work");
  for (int i = 1; i <= threads; ++i) {
    EXPECT_EQ(t.thread_names.at(static_cast<uint32_t>(i)), "worker-" + std::to_string(i));
  }
}

TEST(FlightStore, KeepsWhatFitsAndDumpsItAsACompleteTrace) {
  std::unique_ptr<FlightStore> store(FlightStore::Create(size_t{4} << 20));
  ASSERT_NE(store, nullptr);
  Producer p(2);
  store->SetHeader(p.Header());
  p.Preamble(2);
  for (int i = 0; i < 10; ++i) {
    p.Events(1, 500);
    p.Events(2, 300);
  }
  p.Loss(2, format::LossCause::kBufferFull, 17);
  p.CommitTo(store.get());

  FlightDumpRequest request;
  request.reason = format::FlightReason::kSignal;
  request.signal = 12;
  request.trigger_ticks = 123456;
  request.dump = 1;
  const Dumped d = Dump(store.get(), testing::MakeTempDir("flight_store") + "/1.itt", request);
  ExpectDumpAddsUp(d, 2, true);
  EXPECT_EQ(Numbers(d.trace, 1).size(), 5000u);
  EXPECT_EQ(Numbers(d.trace, 2).size(), 3000u);
  EXPECT_EQ(Lost(d.trace, 2, format::LossCause::kBufferFull), 17u);
  EXPECT_EQ(d.trace.TotalLoss(), 17u);
  EXPECT_EQ(d.trace.flight.reason, format::FlightReason::kSignal);
  EXPECT_EQ(d.trace.flight.signal, 12u);
  EXPECT_EQ(d.trace.flight.window_begin, kStartTicks);  // nothing overwritten
  EXPECT_EQ(d.trace.flight.window_end, 123456u);
  EXPECT_EQ(d.trace.flight.dump, 1u);
  EXPECT_EQ(d.trace.flight.triggers, 1u);
  EXPECT_EQ(d.trace.header.pid, 77u);
  EXPECT_GE(d.trace.syncs.size(), 2u);  // the kept one and the dump's
}

TEST(FlightStore, DropsTheOldestEventsChunksWholeAndCountsThemOverwritten) {
  constexpr size_t kBudget = 256 * 1024;
  std::unique_ptr<FlightStore> store(FlightStore::Create(kBudget));
  ASSERT_NE(store, nullptr);
  Producer p(3);
  store->SetHeader(p.Header());
  p.Preamble(3);
  p.CommitTo(store.get());
  for (int round = 0; round < 300; ++round) {
    for (uint32_t t = 1; t <= 3; ++t) p.Events(t, 200 + 50 * static_cast<int>(t));
    if (round % 10 == 0) p.Sync(Producer::Ticks(0, p.emitted(1)));
    p.CommitTo(store.get());
    ASSERT_LE(store->kept_bytes(), kBudget);
  }
  EXPECT_GT(store->overwritten_chunks(), 100u);

  FlightDumpRequest request;
  request.reason = format::FlightReason::kExit;
  request.dump = 3;
  const Dumped d = Dump(store.get(), testing::MakeTempDir("flight_store") + "/3.itt", request);
  ExpectDumpAddsUp(d, 3, true);
  for (uint32_t t = 1; t <= 3; ++t) {
    const std::vector<uint64_t> numbers = Numbers(d.trace, t);
    ASSERT_FALSE(numbers.empty()) << t;
    // The newest events are all there: the dump ends with the last one.
    EXPECT_EQ(numbers.back() + 1, p.emitted(t));
    EXPECT_GT(Lost(d.trace, t, format::LossCause::kOverwritten), 0u);
  }
  EXPECT_GT(d.trace.flight.window_begin, kStartTicks);
  // A clock sync from before the window (the anchor) comes first.
  ASSERT_FALSE(d.trace.syncs.empty());
  EXPECT_LE(d.trace.syncs.front().ticks, d.trace.flight.window_begin);
}

TEST(FlightStore, AChunkLargerThanTheBudgetIsCountedNotKept) {
  std::unique_ptr<FlightStore> store(FlightStore::Create(64 * 1024));
  ASSERT_NE(store, nullptr);
  Producer p(1);
  store->SetHeader(p.Header());
  p.Preamble(1);
  p.Events(1, 100);
  p.Events(1, 60000);  // random names: far more than 64 KiB compressed
  p.CommitTo(store.get());
  EXPECT_LE(store->kept_bytes(), 64u * 1024);
  const Dumped d =
      Dump(store.get(), testing::MakeTempDir("flight_store") + "/big.itt", FlightDumpRequest());
  ExpectDumpAddsUp(d, 1, true);
  // The large chunk came last but could not be kept: all 60100 events lost.
  EXPECT_EQ(Numbers(d.trace, 1).size(), 0u);
  EXPECT_EQ(Lost(d.trace, 1, format::LossCause::kOverwritten), 60100u);
}

// Dumps while another thread keeps adding (and dropping): each dump is what
// the store held at one moment, whatever the writer does meanwhile.
TEST(FlightStore, AddsDuringADumpNeverChangeWhatItWrites) {
  constexpr size_t kBudget = 128 * 1024;
  std::unique_ptr<FlightStore> store(FlightStore::Create(kBudget));
  ASSERT_NE(store, nullptr);
  Producer p(2);
  store->SetHeader(p.Header());
  p.Preamble(2);
  p.CommitTo(store.get());
  const std::string dir = testing::MakeTempDir("flight_store_concurrent");
  std::atomic<bool> stop{false};
  std::atomic<int> dumps{0};
  std::thread writer([&] {
    // Until the dumps are done, and long enough that each overlaps adds.
    for (int round = 0; !stop.load(std::memory_order_relaxed) || round < 200; ++round) {
      p.Events(1 + static_cast<uint32_t>(round & 1), 300);
      if (round % 16 == 0) p.Loss(1, format::LossCause::kBufferFull, static_cast<uint64_t>(round));
      p.CommitTo(store.get());
    }
  });
  for (int i = 0; i < 20; ++i) {
    FlightDumpRequest request;
    request.dump = static_cast<uint64_t>(i + 1);
    const Dumped d = Dump(store.get(), dir + "/" + std::to_string(i) + ".itt", request);
    ExpectDumpAddsUp(d, 2, false);
    dumps.fetch_add(1);
  }
  stop.store(true);
  writer.join();
  EXPECT_EQ(dumps.load(), 20);
}

}  // namespace
}  // namespace ittc::collector_internal
