// The trace model's trackers, fed events directly: counter identity and
// values, sync waits, heap allocations, and the pairing engine's parent
// time and unbalanced counts.

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/trace_builder.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/heap.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/search.h"
#include "tools/itt_dump/model/sync.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/model/trace_set.h"

namespace ittc::itt_dump {
namespace {

using format::EventKind;
using testing::Ev;
using testing::F;
using testing::U;

// Every count of `a` equals `b`'s.
void ExpectSameUnbalanced(const Unbalanced& a, const Unbalanced& b) {
  EXPECT_EQ(a.end_without_begin, b.end_without_begin);
  EXPECT_EQ(a.open_at_end, b.open_at_end);
  EXPECT_EQ(a.frame_end_without_begin, b.frame_end_without_begin);
  EXPECT_EQ(a.frames_open_at_end, b.frames_open_at_end);
}

std::unique_ptr<TraceIndex> Index() {
  testing::TraceBuilder b;
  b.String(1, "requests").Domain(1, "app");
  b.Counter(1, "queue", "app", 1, format::MetadataType::kU64);
  b.Thread(0, 100, "main").Thread(1, 101, "other").SyncAt(1000).End(2000);
  IndexResult r = BuildIndex(TraceSource::Memory(b.bytes(), "t"), IndexOptions());
  return std::move(r.index);
}

TEST(U64Map, InsertTellsNewKeysAndKeepsValuesInInsertionOrder) {
  U64Map<int> m;
  // Enough keys to rehash several times, some of them colliding in the
  // low bits the hash drops.
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 1000; ++i) keys.push_back(i % 2 == 0 ? i : i << 40);
  std::vector<int*> values;
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto [v, inserted] = m.Insert(keys[i]);
    ASSERT_TRUE(inserted) << keys[i];
    EXPECT_EQ(*v, 0);
    *v = static_cast<int>(i) + 1;
    values.push_back(v);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto [v, inserted] = m.Insert(keys[i]);
    EXPECT_FALSE(inserted) << keys[i];
    EXPECT_EQ(v, values[i]);  // the value has not moved
    EXPECT_EQ(*v, static_cast<int>(i) + 1);
    EXPECT_EQ(m.Find(keys[i]), v);
  }
  EXPECT_EQ(m.Find(12345), nullptr);
  ASSERT_EQ(m.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(m.entries()[i].first, keys[i]);
  // A copy finds its own values; a moved map keeps them where they were.
  U64Map<int> copy = m;
  for (size_t i = 0; i < keys.size(); ++i) {
    int* v = copy.Find(keys[i]);
    ASSERT_NE(v, nullptr);
    EXPECT_NE(v, values[i]);
    EXPECT_EQ(*v, static_cast<int>(i) + 1);
  }
  *copy.Find(keys[0]) = -1;
  EXPECT_EQ(*m.Find(keys[0]), 1);
  U64Map<int> moved = std::move(copy);
  EXPECT_EQ(*moved.Find(keys[0]), -1);
  EXPECT_EQ(*moved.Find(keys[999]), 1000);
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.Find(keys[0]), nullptr);
  EXPECT_TRUE(m.Insert(keys[0]).second);
}

// From any guess, in or out of the range, the point std::partition_point
// finds: every range of up to 20 values with every point in it, and every
// guess from before the range to past its end.
TEST(PartitionPointNear, FindsThePartitionPointFromAnyGuess) {
  std::vector<int> values(24);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i);
  for (size_t first = 0; first <= 2; ++first) {
    for (size_t size = 0; size <= 20; ++size) {
      const auto begin = values.begin() + static_cast<std::ptrdiff_t>(first);
      const auto end = begin + static_cast<std::ptrdiff_t>(size);
      for (int split = static_cast<int>(first); split <= static_cast<int>(first + size); ++split) {
        const auto before = [split](int v) { return v < split; };
        const auto expected = std::partition_point(begin, end, before);
        for (std::ptrdiff_t g = -static_cast<std::ptrdiff_t>(first);
             g <= static_cast<std::ptrdiff_t>(values.size() - first); ++g) {
          const auto guess = begin + g;
          EXPECT_EQ(PartitionPointNear(begin, end, guess, before) - values.begin(),
                    expected - values.begin())
              << first << " " << size << " " << split << " " << g;
        }
      }
    }
  }
}

TEST(CounterTracker, OneCounterPerIdentityWithItsValue) {
  const auto x = Index();
  CounterTracker counters(*x);
  CounterSample s;
  ThreadRec t;
  EXPECT_FALSE(counters.OnEvent(Ev(EventKind::kTaskEnd, 1, {}), t, &s));
  ASSERT_TRUE(counters.OnEvent(
      Ev(EventKind::kCounterIncDelta, 10, {{F::kCounter, U(1)}, {F::kDelta, U(5)}}), t, &s));
  EXPECT_EQ(s.counter->name, "queue");
  EXPECT_EQ(s.counter->domain, "app");
  EXPECT_EQ(s.counter->value, 5);
  ASSERT_TRUE(counters.OnEvent(Ev(EventKind::kCounterDec, 11, {{F::kCounter, U(1)}}), t, &s));
  EXPECT_EQ(s.counter->value, 4);
  // The v3 API names a counter by (domain, name string): another counter.
  ASSERT_TRUE(counters.OnEvent(
      Ev(EventKind::kCounterIncV3, 12, {{F::kDomain, U(1)}, {F::kName, U(1)}}), t, &s));
  EXPECT_EQ(s.counter->name, "requests");
  EXPECT_EQ(s.counter->index, 1u);
  EXPECT_EQ(s.counter->value, 1);
  EXPECT_FALSE(s.set);
  ASSERT_EQ(counters.counters().size(), 2u);
  EXPECT_FALSE(counters.counters()[0]->ever_set);
}

TEST(CounterTracker, CountersOfOneDomainTakenInTurnKeepTheirOwnValues) {
  // The v3 API's counters differ in their name alone, or in their domain
  // alone: each change finds its own counter, whichever came last.
  const auto x = Index();
  CounterTracker counters(*x);
  CounterSample s;
  ThreadRec t;
  const auto inc = [&](uint64_t domain, uint64_t name, uint64_t delta) {
    EXPECT_TRUE(
        counters.OnEvent(Ev(EventKind::kCounterIncDeltaV3, 10,
                            {{F::kDomain, U(domain)}, {F::kName, U(name)}, {F::kDelta, U(delta)}}),
                         t, &s));
    return s.counter->value;
  };
  EXPECT_EQ(inc(1, 1, 5), 5);
  EXPECT_EQ(inc(1, 2, 7), 7);
  EXPECT_EQ(inc(1, 1, 1), 6);
  EXPECT_EQ(inc(2, 1, 3), 3);
  EXPECT_EQ(inc(1, 1, 1), 7);
  EXPECT_EQ(inc(1, 2, 1), 8);
  EXPECT_EQ(counters.counters().size(), 3u);
}

TEST(SyncTracker, PrepareThenAcquiredIsAWaitOfThatThread) {
  const auto x = Index();
  SyncTracker sync;
  SyncChange c;
  const ThreadRec& main = *x->Thread(0);
  const ThreadRec& other = *x->Thread(1);
  ASSERT_TRUE(sync.OnEvent(
      Ev(EventKind::kSyncCreate, 5, {{F::kAddr, U(0x10)}, {F::kObjname, U(1)}}), main, &c));
  EXPECT_EQ(c.object->name_id, 1u);
  sync.OnEvent(Ev(EventKind::kSyncPrepare, 10, {{F::kAddr, U(0x10)}}), main, &c);
  // Another thread's acquire does not close main's wait.
  sync.OnEvent(Ev(EventKind::kSyncAcquired, 12, {{F::kAddr, U(0x10)}}), other, &c);
  EXPECT_FALSE(c.closes_wait);
  sync.OnEvent(Ev(EventKind::kSyncAcquired, 30, {{F::kAddr, U(0x10)}}), main, &c);
  EXPECT_EQ(c.kind, SyncChange::Kind::kAcquired);
  EXPECT_TRUE(c.closes_wait);
  EXPECT_EQ(c.wait_begin, 10u);
  sync.OnEvent(Ev(EventKind::kSyncCancel, 31, {{F::kAddr, U(0x10)}}), main, &c);
  EXPECT_FALSE(c.closes_wait);
  sync.OnEvent(Ev(EventKind::kSyncRename, 40, {{F::kAddr, U(0x10)}, {F::kName, U(7)}}), main, &c);
  EXPECT_EQ(sync.objects().Find(0x10)->name_id, 7u);
}

TEST(HeapTracker, AllocationsArePairedByAddress) {
  const auto x = Index();
  HeapTracker heap;
  HeapChange c;
  const ThreadRec& t = *x->Thread(0);
  ASSERT_TRUE(heap.OnEvent(Ev(EventKind::kHeapAllocateEnd, 10,
                              {{F::kFunction, U(1)}, {F::kAddr, U(0xa0)}, {F::kSize, U(64)}}),
                           t, &c));
  EXPECT_TRUE(c.allocated);
  EXPECT_FALSE(c.released);
  ASSERT_EQ(heap.live().size(), 1u);
  EXPECT_EQ(heap.live().at(0xa0).thread, &t);
  // A reallocation moves the block.
  heap.OnEvent(Ev(EventKind::kHeapReallocateEnd, 20,
                  {{F::kFunction, U(1)},
                   {F::kAddr, U(0xa0)},
                   {F::kNewAddr, U(0xb0)},
                   {F::kNewSize, U(128)}}),
               t, &c);
  EXPECT_TRUE(c.released);
  EXPECT_EQ(c.released_block.size, 64u);
  EXPECT_EQ(heap.live().count(0xa0), 0u);
  EXPECT_EQ(heap.live().at(0xb0).size, 128u);
  // An allocation at a live address replaces the block whose free was lost.
  heap.OnEvent(Ev(EventKind::kHeapAllocateEnd, 30,
                  {{F::kFunction, U(2)}, {F::kAddr, U(0xb0)}, {F::kSize, U(8)}}),
               t, &c);
  EXPECT_TRUE(c.replaced);
  EXPECT_EQ(c.replaced_block.function, 1u);
  // A free of an unknown address is counted, never fatal.
  heap.OnEvent(Ev(EventKind::kHeapFreeEnd, 40, {{F::kFunction, U(1)}, {F::kAddr, U(0xcc)}}), t, &c);
  EXPECT_FALSE(c.released);
  EXPECT_EQ(heap.unknown_frees(), 1u);
  heap.OnEvent(Ev(EventKind::kHeapFreeEnd, 50, {{F::kFunction, U(2)}, {F::kAddr, U(0xb0)}}), t, &c);
  EXPECT_TRUE(c.released);
  EXPECT_TRUE(heap.live().empty());
}

// A stretch's calls paired among themselves and joined leave the tracker
// as the calls fed one at a time do: the same live blocks (serials
// included), unknown frees, and released blocks at the stretch's points.
TEST(HeapTracker, StretchesJoinedLeaveWhatOneCallAtATimeLeaves) {
  const auto x = Index();
  const ThreadRec& t = *x->Thread(0);
  std::mt19937_64 rng(47);
  for (int round = 0; round < 50; ++round) {
    std::vector<format::Event> calls;
    for (uint64_t time = 1; time <= 200; ++time) {
      const uint64_t addr = rng() % 6;  // 0 included: a null free or realloc
      const uint64_t fn = 1 + rng() % 2;
      switch (rng() % 3) {
        case 0:
          calls.push_back(Ev(EventKind::kHeapAllocateEnd, time,
                             {{F::kFunction, U(fn)}, {F::kAddr, U(addr)}, {F::kSize, U(time)}}));
          break;
        case 1:
          calls.push_back(
              Ev(EventKind::kHeapFreeEnd, time, {{F::kFunction, U(fn)}, {F::kAddr, U(addr)}}));
          break;
        default:
          calls.push_back(Ev(EventKind::kHeapReallocateEnd, time,
                             {{F::kFunction, U(fn)},
                              {F::kAddr, U(addr)},
                              {F::kNewAddr, U(rng() % 6)},
                              {F::kNewSize, U(time)}}));
          break;
      }
    }
    HeapTracker one;
    // Each call's released blocks, one at a time: what a point releases
    // must be among them.
    std::vector<std::vector<uint64_t>> released(calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
      HeapChange c;
      ASSERT_TRUE(one.OnEvent(calls[i], t, &c));
      if (c.released) released[i].push_back(c.released_block.serial);
      if (c.replaced) released[i].push_back(c.replaced_block.serial);
    }
    HeapTracker joined;
    HeapStretch stretch;
    size_t begin = 0;
    while (begin < calls.size()) {
      const size_t end = std::min(calls.size(), begin + 1 + rng() % 40);
      stretch.Clear();
      std::vector<size_t> point_call;  // the call of each point
      for (size_t i = begin; i < end; ++i) {
        HeapChange c;
        const size_t points = stretch.points();
        ASSERT_TRUE(stretch.OnEvent(calls[i], t, &c));
        point_call.insert(point_call.end(), stretch.points() - points, i);
      }
      ASSERT_TRUE(joined.JoinStretch(stretch, [&](size_t p, const Allocation* block) {
        if (block == nullptr) return;
        const std::vector<uint64_t>& r = released[point_call[p]];
        EXPECT_NE(std::find(r.begin(), r.end(), block->serial), r.end()) << round;
      }));
      begin = end;
    }
    EXPECT_EQ(joined.unknown_frees(), one.unknown_frees()) << round;
    ASSERT_EQ(joined.live().size(), one.live().size()) << round;
    for (const auto& [addr, a] : one.live()) {
      ASSERT_EQ(joined.live().count(addr), 1u) << round;
      const Allocation& b = joined.live().at(addr);
      EXPECT_EQ(b.serial, a.serial) << round;
      EXPECT_EQ(b.size, a.size) << round;
      EXPECT_EQ(b.function, a.function) << round;
      EXPECT_EQ(b.ticks, a.ticks) << round;
    }
  }
}

class Collect : public IntervalListener {
 public:
  void OnInterval(const Interval& iv) override { intervals.push_back(iv); }
  std::vector<Interval> intervals;
};

TEST(IntervalTracker, NestedTasksCarryDepthAndChildTime) {
  const auto x = Index();
  Collect out;
  IntervalTracker tracker(*x, &out);
  const ThreadRec& t = *x->Thread(0);
  tracker.OnEvent(Ev(EventKind::kTaskBegin, 100, {{F::kDomain, U(1)}, {F::kName, U(1)}}), t);
  tracker.OnEvent(Ev(EventKind::kTaskBeginFn, 110, {{F::kDomain, U(1)}, {F::kFn, U(0x401000)}}), t);
  tracker.OnEvent(Ev(EventKind::kTaskEnd, 150, {{F::kDomain, U(1)}}), t);
  tracker.OnEvent(Ev(EventKind::kTaskEnd, 200, {{F::kDomain, U(1)}}), t);
  tracker.OnEvent(Ev(EventKind::kTaskEnd, 210, {{F::kDomain, U(1)}}), t);
  ASSERT_EQ(out.intervals.size(), 2u);
  EXPECT_EQ(out.intervals[0].depth, 1);
  EXPECT_EQ(out.intervals[0].fn, 0x401000u);
  EXPECT_EQ(IntervalName(*x, out.intervals[0]), "fn@0x401000");
  EXPECT_EQ(out.intervals[1].depth, 0);
  EXPECT_EQ(out.intervals[1].child_ticks, 40u);
  EXPECT_EQ(IntervalName(*x, out.intervals[1]), "requests");
  EXPECT_EQ(tracker.unbalanced().end_without_begin, 1u);
  // An _ex task's time is its timestamp field.
  tracker.OnEvent(Ev(EventKind::kTaskBeginEx, 300,
                     {{F::kDomain, U(1)}, {F::kTimestamp, U(290)}, {F::kName, U(1)}}),
                  t);
  tracker.Finish(400);
  ASSERT_EQ(out.intervals.size(), 3u);
  EXPECT_EQ(out.intervals[2].begin, 290u);
  EXPECT_TRUE(out.intervals[2].open_at_end);
  EXPECT_EQ(tracker.unbalanced().open_at_end, 1u);
}

// A listener that numbers each interval at its begin and checks the number
// at its end: what the Perfetto export keeps per open slice.
class Numbering : public IntervalListener {
 public:
  void OnBegin(const Interval& iv) override {
    begins_seen_zero += iv.listener_word == 0 ? 1 : 0;
    iv.listener_word = 1000 + iv.serial;
  }
  void OnInterval(const Interval& iv) override { words.emplace_back(iv.serial, iv.listener_word); }
  int begins_seen_zero = 0;
  std::vector<std::pair<uint64_t, uint64_t>> words;
};

TEST(IntervalTracker, TheListenersWordComesBackAtTheEnd) {
  const auto x = Index();
  Numbering out;
  IntervalTracker tracker(*x, &out);
  tracker.set_report_begins(true);
  const ThreadRec& t = *x->Thread(0);
  // Tasks reuse their stack slots: the second pair must start from 0 again.
  for (uint64_t time : {100, 200}) {
    tracker.OnEvent(Ev(EventKind::kTaskBegin, time, {{F::kDomain, U(1)}, {F::kName, U(1)}}), t);
    tracker.OnEvent(Ev(EventKind::kTaskEnd, time + 10, {{F::kDomain, U(1)}}), t);
  }
  // Frames end in another order than they began.
  tracker.OnEvent(Ev(EventKind::kFrameBegin, 300, {{F::kDomain, U(1)}}), t);
  tracker.OnEvent(Ev(EventKind::kRegionBegin, 310, {{F::kDomain, U(1)}}), t);
  tracker.OnEvent(Ev(EventKind::kFrameEnd, 320, {{F::kDomain, U(1)}}), t);
  tracker.OnEvent(Ev(EventKind::kRegionEnd, 330, {{F::kDomain, U(1)}}), t);
  tracker.Finish(400);
  EXPECT_EQ(out.begins_seen_zero, 4);
  ASSERT_EQ(out.words.size(), 4u);
  for (const auto& [serial, word] : out.words) EXPECT_EQ(word, 1000 + serial);
}

// A trace of one thread (tid `tid`) with markers at `times`; its process
// ran on TestHeader's host in one boot with every other such trace.
std::string MarkerTrace(uint64_t tid, const std::vector<uint64_t>& times) {
  format::FileHeader h = testing::TestHeader();
  h.pid = static_cast<uint32_t>(tid + 100);
  h.boot_id[0] = 0xb0;
  testing::TraceBuilder b(h);
  b.Thread(0, tid, "t").SyncAt(1000);
  std::vector<format::Event> events;
  for (uint64_t time : times) events.push_back(Ev(EventKind::kMarker, time, {}));
  b.Events(0, events).SyncAt(5000).End(5000);
  return b.bytes();
}

// Every field of every interval delivered, and the ends without a begin,
// in the order they came.
class EveryField : public IntervalListener {
 public:
  void OnInterval(const Interval& iv) override {
    seen.push_back("interval " + std::to_string(static_cast<int>(iv.kind)) + " " +
                   std::to_string(iv.thread->index) + " " + std::to_string(iv.domain) + " " +
                   std::to_string(iv.id.d1) + " " + std::to_string(iv.id.d2) + " " +
                   std::to_string(iv.id.d3) + " " + std::to_string(iv.name_id) + " " +
                   std::to_string(iv.fn) + " " + std::to_string(iv.event_id) + " " +
                   std::to_string(iv.begin) + " " + std::to_string(iv.end) + " " +
                   std::to_string(iv.child_ticks) + " " + std::to_string(iv.depth) + " " +
                   std::to_string(iv.open_at_end) + " " + std::to_string(iv.args != nullptr) + " " +
                   std::to_string(iv.serial) + " " + std::to_string(iv.listener_word));
  }
  void OnUnmatchedEnd(IntervalKind kind, const ThreadRec& t, uint64_t domain,
                      uint64_t ticks) override {
    seen.push_back("unmatched " + std::to_string(static_cast<int>(kind)) + " " +
                   std::to_string(t.index) + " " + std::to_string(domain) + " " +
                   std::to_string(ticks));
  }
  std::vector<std::string> seen;
};

// Two trackers fed the same frames: one as kept frames (OnFrame(KeptFrame)),
// one through the keyed opens; what each listener saw.
template <typename Listener>
struct KeptAgainstKeyed {
  explicit KeptAgainstKeyed(const TraceIndex& x) : kept(x, &kept_out), full(x, &full_out) {}
  void Frame(const KeptFrame& f, const ThreadRec& t) {
    kept.OnFrame(f, t);
    full.OnFrame(f.begin, f.domain, format::Id{}, f.time, t);
  }
  void Finish(uint64_t end) {
    kept.Finish(end);
    full.Finish(end);
  }
  Listener kept_out;
  Listener full_out;
  IntervalTracker kept;
  IntervalTracker full;
};

// A frame a piece kept apart (OnFrame(KeptFrame), kept on a stack of begin
// times) pairs, counts and ends as the same frame_begin or frame_end does
// through the keyed opens: over more keys than the empty ones kept, with
// ends without a begin and frames left open at the end. With begins
// reported (parquet's tracker), each frame's OnBegin comes at the same
// place with the same fields, and the word the listener gave it comes
// back at its end, also for frames left open.
TEST(IntervalTracker, KeptFramesPairAsFramesDo) {
  class WithBegins : public EveryField {
   public:
    void OnBegin(const Interval& iv) override {
      iv.listener_word = ++words;
      seen.push_back("begin " + std::to_string(iv.thread->index) + " " + std::to_string(iv.domain) +
                     " " + std::to_string(iv.begin) + " " + std::to_string(iv.depth) + " " +
                     std::to_string(iv.serial));
    }
    uint64_t words = 0;
  };
  const auto x = Index();
  const ThreadRec* threads[] = {x->Thread(0), x->Thread(1)};
  for (const bool begins : {false, true}) {
    SCOPED_TRACE(begins ? "begins reported" : "no begins");
    std::mt19937_64 rng(begins ? 11 : 7);
    KeptAgainstKeyed<WithBegins> p(*x);
    p.kept.set_report_begins(begins);
    p.full.set_report_begins(begins);
    uint64_t time = 100;
    for (int i = 0; i < 20000; ++i) {
      KeptFrame f;
      f.time = time += rng() % 3;  // ties too
      f.domain = 1 + rng() % 100;
      f.begin = rng() % 2 == 0;
      p.Frame(f, *threads[rng() % 2]);
    }
    EXPECT_EQ(p.kept.peak_keyed_open(), p.full.peak_keyed_open());
    p.Finish(time + 10);
    ASSERT_EQ(p.kept_out.seen.size(), p.full_out.seen.size());
    for (size_t i = 0; i < p.kept_out.seen.size(); ++i) {
      ASSERT_EQ(p.kept_out.seen[i], p.full_out.seen[i]) << "at " << i;
    }
    const Unbalanced& a = p.kept.unbalanced();
    ExpectSameUnbalanced(a, p.full.unbalanced());
    // What the sequence holds, so that the comparison above means something.
    EXPECT_GT(a.frame_end_without_begin, 0u);
    EXPECT_GT(a.frames_open_at_end, 0u);
    EXPECT_GT(p.kept_out.seen.size(), 5000u);
    EXPECT_EQ(p.kept_out.words > 5000u, begins);
  }
}

// Kept frames left open at the end end there as the keyed opens' do, all
// of them, when their keys come near the tracker's limit of open keyed
// intervals (set_max_keyed): joining the keyed opens at the end counts no
// key twice.
TEST(IntervalTracker, KeptFramesLeftOpenNearTheKeyLimitAllEnd) {
  const auto x = Index();
  const ThreadRec& t = *x->Thread(0);
  constexpr size_t kLimit = IntervalTracker::kKeepEmptyKeys + 36;
  constexpr uint64_t kKeys = kLimit - 10;
  KeptAgainstKeyed<EveryField> p(*x);
  p.kept.set_max_keyed(kLimit);
  p.full.set_max_keyed(kLimit);
  for (uint64_t d = 1; d <= kKeys; ++d) {
    KeptFrame f;
    f.time = 100 + d;
    f.domain = d;
    f.begin = true;
    p.Frame(f, t);
  }
  p.Finish(1000);
  EXPECT_EQ(p.full_out.seen.size(), kKeys);
  EXPECT_EQ(p.kept_out.seen, p.full_out.seen);
  ExpectSameUnbalanced(p.kept.unbalanced(), p.full.unbalanced());
  EXPECT_EQ(p.kept.unbalanced().frames_open_at_end, kKeys);
}

// Kept frames paired by stretches (KeptFramePairing, each stretch on its
// own, then JoinFrames) pair, count and end as one at a time do: every
// interval but its serial (a stretch's pairs have none), in any order.
// Over a few keys the tracker joins every stretch; over more keys than it
// keeps empty it joins none, and the caller feeds their frames one at a
// time.
TEST(IntervalTracker, KeptFramesPairedByStretchesPairAsOneAtATime) {
  const auto x = Index();
  const ThreadRec* threads[] = {x->Thread(0), x->Thread(1)};
  for (const uint64_t keys : {3, 100}) {
    std::mt19937_64 rng(keys);
    EveryField stretch_out;
    EveryField whole_out;
    EveryField one_out;
    IntervalTracker whole(*x, &whole_out);
    IntervalTracker one(*x, &one_out);
    KeptFramePairing pairing(&stretch_out);
    std::vector<std::pair<KeptFrame, const ThreadRec*>> stretch;
    uint64_t time = 100;
    size_t joined = 0;
    size_t refused = 0;
    const auto join = [&] {
      if (whole.JoinFrames(pairing)) {
        ++joined;
        whole_out.seen.insert(whole_out.seen.end(), stretch_out.seen.begin(),
                              stretch_out.seen.end());
      } else {
        ++refused;
        for (const auto& [f, t] : stretch) whole.OnFrame(f, *t);
      }
      stretch_out.seen.clear();
      pairing.Clear();
      stretch.clear();
    };
    for (int i = 0; i < 20000; ++i) {
      KeptFrame f;
      f.time = time += rng() % 3;  // ties too
      f.domain = 1 + rng() % keys;
      // More begins than ends early, more ends later: stretches leave
      // both, and the stacks go deep.
      f.begin = rng() % 100 < (i < 10000 ? 55u : 45u);
      const ThreadRec& t = *threads[rng() % 2];
      pairing.OnFrame(f, t);
      stretch.emplace_back(f, &t);
      one.OnFrame(f, t);
      if (rng() % 40 == 0) join();
    }
    join();
    whole.Finish(time + 10);
    one.Finish(time + 10);
    if (keys < 64) {
      EXPECT_EQ(refused, 0u);
      EXPECT_GT(joined, 100u);
    } else {
      EXPECT_GT(refused, 100u);  // (the first few, over fewer keys, join)
    }
    EXPECT_GE(whole.peak_keyed_open(), one.peak_keyed_open());
    // Without the serial (the last field).
    const auto without_serial = [](std::vector<std::string> seen) {
      for (std::string& s : seen) {
        if (s.rfind("interval", 0) == 0) s.erase(s.rfind(' ', s.rfind(' ') - 1));
      }
      std::sort(seen.begin(), seen.end());
      return seen;
    };
    EXPECT_EQ(without_serial(whole_out.seen), without_serial(one_out.seen)) << keys << " keys";
    const Unbalanced& a = whole.unbalanced();
    ExpectSameUnbalanced(a, one.unbalanced());
    EXPECT_GT(a.frame_end_without_begin, 0u);
    EXPECT_GT(a.frames_open_at_end, 0u);
    EXPECT_GT(one_out.seen.size(), 5000u);
  }
}

TEST(TraceSet, EventsOfEveryFileInOneTimeOrder) {
  const std::string a = MarkerTrace(1, {1100, 1300, 1500});
  const std::string b = MarkerTrace(2, {1200, 1250, 1600, 1700});
  std::vector<TraceSource> sources;
  sources.push_back(TraceSource::Memory(a, "a.itt"));
  sources.push_back(TraceSource::Memory("not a trace", "bad.itt"));
  sources.push_back(TraceSource::Memory(b, "b.itt"));
  const TraceSet set = TraceSet::Open(std::move(sources), IndexOptions());
  ASSERT_EQ(set.files().size(), 2u);
  ASSERT_EQ(set.failures().size(), 1u);
  EXPECT_EQ(set.failures()[0].name, "bad.itt");
  TraceSetMerger merger(set, MergeOptions());
  std::vector<std::pair<uint64_t, uint64_t>> got;  // (time, tid)
  const format::Event* e;
  const ThreadRec* t;
  while (merger.Next(&e, &t)) {
    EXPECT_EQ(t->process, t->tid == 1 ? 0u : 1u);
    got.emplace_back(e->time, t->tid);
  }
  EXPECT_EQ(set.alignment(), TimeAlignment::kSharedTsc);
  const std::vector<std::pair<uint64_t, uint64_t>> want = {
      {1100, 1}, {1200, 2}, {1250, 2}, {1300, 1}, {1500, 1}, {1600, 2}, {1700, 2}};
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace ittc::itt_dump
