// The k-way merge delivers every event once, in time order across threads,
// whatever the interleaving of chunks in the file; past its memory bound it
// still delivers everything and counts what came late.

#include "tools/itt_dump/model/merge.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/trace_builder.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

using format::EventKind;

struct Merged {
  std::vector<std::pair<uint64_t, uint64_t>> events;  // (time, tid)
  uint64_t late = 0;
  uint64_t forced = 0;
};

// With take_runs, the events after each Next() are taken through TakeRun,
// as a merge of several files does.
Merged Merge(const std::string& trace, size_t max_buffered = 256 << 20, bool take_runs = false) {
  Merged m;
  const TraceSource source = TraceSource::Memory(trace, "t");
  IndexResult r = BuildIndex(source, IndexOptions());
  EXPECT_EQ(r.failure, OpenFailure::kNone);
  if (r.index == nullptr) return m;
  absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(source);
  EXPECT_TRUE(reader.ok());
  MergeOptions options;
  options.max_buffered_bytes = max_buffered;
  EventMerger merger(*r.index, reader->get(), options);
  const format::Event* e;
  const ThreadRec* t;
  while (merger.Next(&e, &t)) {
    m.events.emplace_back(e->time, t->tid);
    if (!take_runs) continue;
    const format::Event* run;
    const uint32_t n = merger.TakeRun(&run);
    for (uint32_t i = 0; i < n; ++i) m.events.emplace_back(run[i].time, t->tid);
  }
  EXPECT_EQ(merger.events(), m.events.size());
  m.late = merger.late_events();
  m.forced = merger.forced_emits();
  return m;
}

std::vector<format::Event> Markers(std::vector<uint64_t> times) {
  std::vector<format::Event> v;
  for (uint64_t t : times) {
    v.push_back(
        Ev(EventKind::kMarker, t, {{F::kDomain, U(0)}, {F::kName, U(0)}, {F::kScope, U(0)}}));
  }
  return v;
}

bool Sorted(const Merged& m) {
  return std::is_sorted(m.events.begin(), m.events.end(),
                        [](const auto& a, const auto& b) { return a.first < b.first; });
}

// Sorted by time, and events of one time by thread (the tests' tids grow
// with the threads' indexes), however the chunks fall.
bool SortedWithTies(const Merged& m) { return std::is_sorted(m.events.begin(), m.events.end()); }

TEST(Merge, InterleavesThreadsInTimeOrder) {
  TraceBuilder b;
  b.Thread(0, 10, "a").Thread(1, 11, "b");
  b.Events(0, Markers({100, 300, 500}));
  b.Events(1, Markers({50, 200, 600}));
  b.Events(0, Markers({510, 900}));
  const Merged m = Merge(b.bytes());
  ASSERT_EQ(m.events.size(), 8u);
  const std::vector<uint64_t> want = {50, 100, 200, 300, 500, 510, 600, 900};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(m.events[i].first, want[i]) << i;
  }
  EXPECT_EQ(m.late, 0u);
}

TEST(Merge, WaitsForALaggingThreadsLaterChunk) {
  // Thread 1's only chunk comes after ten chunks of thread 0 but starts
  // before all of them.
  TraceBuilder b;
  b.Thread(0, 10, "a").Thread(1, 11, "b");
  for (int c = 0; c < 10; ++c) {
    b.Events(0, Markers({1000u + 100u * c, 1050u + 100u * c}));
  }
  b.Events(1, Markers({500, 1525, 5000}));
  const Merged m = Merge(b.bytes());
  EXPECT_EQ(m.events.size(), 23u);
  EXPECT_TRUE(Sorted(m));
  EXPECT_EQ(m.late, 0u);
  EXPECT_EQ(m.forced, 0u);
}

TEST(Merge, ManyThreadsWithOneChunkEach) {
  TraceBuilder b;
  constexpr int kThreads = 3000;
  for (int t = 0; t < kThreads; ++t) b.Thread(t, 10000 + t, "w");
  // File order is the reverse of time order.
  for (int t = kThreads - 1; t >= 0; --t) {
    b.Events(t, Markers({1000u + t, 1000u + kThreads + t}));
  }
  const Merged m = Merge(b.bytes());
  EXPECT_EQ(m.events.size(), 2u * kThreads);
  EXPECT_TRUE(Sorted(m));
  EXPECT_EQ(m.late, 0u);
}

TEST(Merge, PastTheBoundEverythingIsDeliveredAndLateEventsCounted) {
  TraceBuilder b;
  b.Thread(0, 10, "a").Thread(1, 11, "b");
  for (int c = 0; c < 10; ++c) {
    b.Events(0, Markers({1000u + 100u * c, 1050u + 100u * c}));
  }
  b.Events(1, Markers({500, 1525, 5000}));
  const Merged m = Merge(b.bytes(), /*max_buffered=*/1);
  EXPECT_EQ(m.events.size(), 23u);
  EXPECT_GT(m.forced, 0u);
  EXPECT_GT(m.late, 0u);
  // Per-thread order is kept even then.
  std::vector<uint64_t> b_times;
  for (const auto& [t, tid] : m.events) {
    if (tid == 11) b_times.push_back(t);
  }
  EXPECT_EQ(b_times, (std::vector<uint64_t>{500, 1525, 5000}));
}

// Rounds alternate between a few threads (the linear-scan candidate set)
// and many (the heap). Times repeat, inside a thread and across threads.
TEST(Merge, RandomInterleavingsComeOutSorted) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 40; ++round) {
    const int threads =
        round % 2 == 0 ? 1 + static_cast<int>(rng() % 6) : 17 + static_cast<int>(rng() % 40);
    TraceBuilder b;
    std::vector<std::vector<std::vector<uint64_t>>> chunks(threads);
    size_t total = 0;
    for (int t = 0; t < threads; ++t) {
      b.Thread(static_cast<uint32_t>(t), 100 + t, "t");
      uint64_t time = 1000 + rng() % 100;
      const int n = static_cast<int>(rng() % 5);
      for (int c = 0; c < n; ++c) {
        std::vector<uint64_t> times;
        const int k = 1 + static_cast<int>(rng() % 20);
        for (int i = 0; i < k; ++i) {
          time += rng() % 50;
          times.push_back(time);
        }
        total += times.size();
        chunks[t].push_back(times);
      }
    }
    // Write chunks in a random order that keeps each thread's order.
    std::vector<size_t> next(threads, 0);
    for (;;) {
      std::vector<int> ready;
      for (int t = 0; t < threads; ++t) {
        if (next[t] < chunks[t].size()) ready.push_back(t);
      }
      if (ready.empty()) break;
      const int t = ready[rng() % ready.size()];
      b.Events(static_cast<uint32_t>(t), Markers(chunks[t][next[t]++]));
    }
    const Merged m = Merge(b.bytes());
    EXPECT_EQ(m.events.size(), total);
    EXPECT_TRUE(SortedWithTies(m)) << "round " << round;
    EXPECT_EQ(m.late, 0u);
  }
}

// Taking runs hands over the same events in the same order, with the same
// counts, as calling Next() for each: with times that go back inside a
// thread, threads that lag by whole chunks, and a memory bound that forces
// events out early.
TEST(Merge, TakingRunsGivesWhatNextGives) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 60; ++round) {
    const int threads = 1 + static_cast<int>(rng() % 8);
    TraceBuilder b;
    for (int t = 0; t < threads; ++t) b.Thread(static_cast<uint32_t>(t), 100 + t, "t");
    std::vector<uint64_t> time(threads, 1000);
    const int chunks = 1 + static_cast<int>(rng() % 30);
    for (int c = 0; c < chunks; ++c) {
      const int t = static_cast<int>(rng() % threads);
      std::vector<uint64_t> times;
      const int k = 1 + static_cast<int>(rng() % 40);
      for (int i = 0; i < k; ++i) {
        // Mostly forward, now and then back; ties happen.
        if (rng() % 8 == 0) {
          time[t] -= std::min<uint64_t>(time[t], rng() % 30);
        } else {
          time[t] += rng() % 20;
        }
        times.push_back(time[t]);
      }
      b.Events(static_cast<uint32_t>(t), Markers(times));
    }
    const size_t bound = round % 3 == 0 ? 1 : 256 << 20;
    const Merged each = Merge(b.bytes(), bound);
    const Merged runs = Merge(b.bytes(), bound, /*take_runs=*/true);
    EXPECT_EQ(runs.events, each.events) << "round " << round;
    EXPECT_EQ(runs.late, each.late) << "round " << round;
    EXPECT_EQ(runs.forced, each.forced) << "round " << round;
  }
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
