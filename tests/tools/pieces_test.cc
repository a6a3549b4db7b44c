// The pass on every core (pieces.h) against the serial one, on random
// traces of several threads whose tasks nest across chunk boundaries:
// the pairing engine delivers the same intervals (with the same child
// time), and `stats` prints the same bytes, with or without filters and
// damage; a trace whose time goes back takes the serial pass. And `text`
// made by two passes at once (two_passes.h) against one.

#include "tools/itt_dump/model/pieces.h"

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"
#include "tools/itt_dump/chrome.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/merge.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/model/trace_set.h"
#include "tools/itt_dump/output.h"
#include "tools/itt_dump/parquet/export.h"
#include "tools/itt_dump/perfetto/export.h"
#include "tools/itt_dump/stats.h"
#include "tools/itt_dump/text.h"
#include "tools/itt_dump/two_passes.h"
#include "tools/itt_dump/verb.h"
#include "tools/itt_dump/vtune_csv.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

using format::Event;
using format::EventKind;

constexpr uint64_t kFnBase = 0x400000;

struct TraceOptions {
  int threads = 4;
  bool time_back = false;  // one event of one thread earlier than the one before
  // The header's pid and host (one boot id for all).
  uint32_t pid = 4242;
  std::string host = "testhost";
  // Names the file's strings and domains in another order: a set must map
  // their ids.
  bool shuffle_ids = false;
  // Heap calls (a heap function defined): a set whose files have them
  // merges every file at once.
  bool heap = false;
  // Each thread's events; 0: 200 to 1699 at random.
  size_t events_per_thread = 0;
  // Tasks with ids, relations between them, metadata of task scope and
  // names of sync objects.
  bool ids = false;
};

// Random events of one thread in time order (ties too): tasks of all three
// begin forms nested up to 8 deep, some ends without a begin, frames
// (nested, submitted) and overlapped tasks shared by the threads, counters, markers, metadata,
// JIT loads (bytes fields), legacy events, regions and sync calls (each
// kind of call on an object).
// With `ids`: some tasks have ids, and relations name them, and metadata
// of task scope and names of sync objects come among the events.
std::vector<Event> ThreadEvents(std::mt19937_64& rng, size_t n, bool heap = false,
                                bool ids = false) {
  static const std::string kText[] = {"alpha", "b", "gamma-delta"};
  // Metadata values' bytes (the events point at them): integers and reals.
  constexpr size_t kNumbers = 4;
  static const auto bytes_of = [](auto v) {
    std::string b(sizeof v, '\0');
    std::memcpy(b.data(), &v, sizeof v);
    return b;
  };
  static const std::string kIntegers[kNumbers] = {bytes_of(uint64_t{7}), bytes_of(uint64_t{4096}),
                                                  bytes_of(uint64_t{123456789}),
                                                  bytes_of(uint64_t{1} << 40)};
  static const std::string kReals[kNumbers] = {bytes_of(0.25), bytes_of(3.5), bytes_of(-17.125),
                                               bytes_of(1e300)};
  std::vector<Event> v;
  uint64_t t = 1000 + rng() % 50;
  int depth = 0;
  int frames_open = 0;
  for (size_t i = 0; i < n; ++i) {
    t += rng() % 20;
    const uint64_t domain = 1 + rng() % 2;
    const uint64_t name = 10 + rng() % 4;
    const int r = static_cast<int>(rng() % 100);
    if (r < 30 && depth < 8) {
      const int form = static_cast<int>(rng() % 5);
      if (ids && form == 0) {
        v.push_back(Ev(EventKind::kTaskBegin, t,
                       {{F::kDomain, U(domain)}, {F::kId, I(1 + rng() % 4)}, {F::kName, U(name)}}));
      } else if (form < 3) {
        v.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(domain)}, {F::kName, U(name)}}));
      } else if (form == 3) {
        v.push_back(Ev(EventKind::kTaskBeginEx, t,
                       {{F::kDomain, U(domain)}, {F::kName, U(name)}, {F::kTimestamp, T(t)}}));
      } else {
        v.push_back(Ev(EventKind::kTaskBeginFn, t,
                       {{F::kDomain, U(domain)}, {F::kFn, U(kFnBase + 16 * (rng() % 3))}}));
      }
      ++depth;
    } else if (r < 60 && (depth > 0 || rng() % 16 == 0)) {
      if (rng() % 4 == 0) {
        v.push_back(Ev(EventKind::kTaskEndEx, t, {{F::kDomain, U(domain)}, {F::kTimestamp, T(t)}}));
      } else {
        v.push_back(Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(domain)}}));
      }
      depth = std::max(depth - 1, 0);
    } else if (r < 68) {
      // Frames of two keys nested up to 3 deep (an end names either key:
      // some have no begin), and complete ones.
      const int f = static_cast<int>(rng() % 8);
      const TypedValue id = rng() % 2 ? Null() : I(1);
      if (f == 0) {
        v.push_back(
            Ev(EventKind::kFrameSubmit, t,
               {{F::kDomain, U(3)}, {F::kId, id}, {F::kBegin, T(t - rng() % 9)}, {F::kEnd, T(t)}}));
      } else if (frames_open < 3 && f < 5) {
        v.push_back(Ev(EventKind::kFrameBegin, t, {{F::kDomain, U(3)}, {F::kId, id}}));
        ++frames_open;
      } else {
        v.push_back(Ev(EventKind::kFrameEnd, t, {{F::kDomain, U(3)}, {F::kId, id}}));
        frames_open = std::max(frames_open - 1, 0);
      }
    } else if (r < 73) {
      const EventKind k =
          rng() % 2 ? EventKind::kTaskBeginOverlapped : EventKind::kTaskEndOverlapped;
      if (k == EventKind::kTaskBeginOverlapped) {
        v.push_back(
            Ev(k, t, {{F::kDomain, U(1)}, {F::kId, I(1 + rng() % 3)}, {F::kName, U(name)}}));
      } else {
        v.push_back(Ev(k, t, {{F::kDomain, U(1)}, {F::kId, I(1 + rng() % 3)}}));
      }
    } else if (r < 78) {
      // Adds, and now and then a value set (stats' stretches know a
      // counter's value from a set on).
      const uint64_t c = rng() % 8;
      if (c == 0) {
        v.push_back(Ev(EventKind::kCounterSetValue, t,
                       {{F::kCounter, U(1)},
                        {F::kType, U(static_cast<uint64_t>(format::MetadataType::kU64))},
                        {F::kValue, U(rng() % 50)}}));
      } else if (c == 1) {
        v.push_back(Ev(EventKind::kCounterDecDelta, t, {{F::kCounter, U(1)}, {F::kDelta, U(3)}}));
      } else {
        v.push_back(Ev(EventKind::kCounterInc, t, {{F::kCounter, U(1)}}));
      }
    } else if (r < 81) {
      v.push_back(Ev(EventKind::kMarker, t, {{F::kDomain, U(domain)}, {F::kName, U(name)}}));
    } else if (r < 84) {
      // A text, an integer or a real: an arg of the task around it (typed
      // as the exports write it).
      const uint64_t type = rng() % 3;
      if (type == 0) {
        v.push_back(
            Ev(EventKind::kMetadataStrAdd, t,
               {{F::kDomain, U(domain)}, {F::kKey, U(name)}, {F::kText, B(kText[rng() % 3])}}));
      } else {
        const bool real = type == 2;
        const std::string& data = (real ? kReals : kIntegers)[rng() % kNumbers];
        const format::MetadataType of =
            real ? format::MetadataType::kDouble : format::MetadataType::kU64;
        v.push_back(Ev(EventKind::kMetadataAdd, t,
                       {{F::kDomain, U(domain)},
                        {F::kKey, U(name)},
                        {F::kType, U(static_cast<uint64_t>(of))},
                        {F::kCount, U(1)},
                        {F::kData, B(data)}}));
      }
    } else if (r < 86) {
      v.push_back(Ev(EventKind::kJitMethodLoad, t,
                     {{F::kMethodId, U(1 + rng() % 9)},
                      {F::kMethodName, B(kText[rng() % 3])},
                      {F::kAddress, U(0x7000 + rng() % 64)},
                      {F::kSize, U(16 + rng() % 64)}}));
    } else if (r < 89) {
      const EventKind k = rng() % 2 ? EventKind::kEventStart : EventKind::kEventEnd;
      v.push_back(Ev(k, t, {{F::kEvent, U(1 + rng() % 2)}}));
    } else if (r < 93) {
      const EventKind k = rng() % 2 ? EventKind::kRegionBegin : EventKind::kRegionEnd;
      if (k == EventKind::kRegionBegin) {
        v.push_back(Ev(k, t, {{F::kDomain, U(2)}, {F::kId, Null()}, {F::kName, U(name)}}));
      } else {
        v.push_back(Ev(k, t, {{F::kDomain, U(2)}, {F::kId, Null()}}));
      }
    } else if (ids && r < 95) {
      if (rng() % 5 == 0) {
        // Names for the sync objects below (text names their lines).
        v.push_back(Ev(EventKind::kSyncCreate, t,
                       {{F::kAddr, U(0x1000 + 8 * (rng() % 2))},
                        {F::kObjtype, U(10)},
                        {F::kObjname, U(name)},
                        {F::kAttribute, U(0)}}));
      } else if (rng() % 2) {
        v.push_back(Ev(EventKind::kRelationAdd, t,
                       {{F::kDomain, U(domain)},
                        {F::kHead, I(1 + rng() % 4)},
                        {F::kRelation, U(1 + rng() % 3)},
                        {F::kTail, I(1 + rng() % 4)}}));
      } else {
        v.push_back(Ev(EventKind::kMetadataStrAddWithScope, t,
                       {{F::kDomain, U(domain)},
                        {F::kScope, U(static_cast<uint64_t>(format::Scope::kTask))},
                        {F::kKey, U(name)},
                        {F::kText, B(kText[rng() % 3])}}));
      }
    } else if (heap && r < 96) {
      const uint64_t addr = 0xa000 + 64 * (rng() % 4);
      const uint64_t h = rng() % 5;
      // Each call's begin, then its end (the begins change nothing the
      // exports write: the pieces drop them).
      if (h < 2) {
        const uint64_t function = 1 + rng() % 2;
        const uint64_t size = 1 + rng() % 64;
        v.push_back(
            Ev(EventKind::kHeapAllocateBegin, t,
               {{F::kFunction, U(function)}, {F::kSize, U(size)}, {F::kInitialized, U(0)}}));
        v.push_back(Ev(EventKind::kHeapAllocateEnd, t,
                       {{F::kFunction, U(function)}, {F::kAddr, U(addr)}, {F::kSize, U(size)}}));
      } else if (h == 2) {
        v.push_back(Ev(EventKind::kHeapReallocateBegin, t,
                       {{F::kFunction, U(1)}, {F::kAddr, U(addr)}, {F::kNewSize, U(1)}}));
        v.push_back(Ev(EventKind::kHeapReallocateEnd, t,
                       {{F::kFunction, U(1)},
                        {F::kAddr, U(addr)},
                        {F::kNewAddr, U(0xa000 + 64 * (rng() % 4))},
                        {F::kNewSize, U(1 + rng() % 64)}}));
      } else {
        v.push_back(Ev(EventKind::kHeapFreeBegin, t, {{F::kFunction, U(1)}, {F::kAddr, U(addr)}}));
        v.push_back(Ev(EventKind::kHeapFreeEnd, t, {{F::kFunction, U(1)}, {F::kAddr, U(addr)}}));
      }
    } else {
      const uint64_t s = rng() % 11;
      const EventKind k = s < 4    ? EventKind::kSyncPrepare
                          : s < 8  ? EventKind::kSyncAcquired
                          : s < 9  ? EventKind::kSyncCancel
                          : s < 10 ? EventKind::kSyncReleasing
                                   : EventKind::kSyncDestroy;
      v.push_back(Ev(k, t, {{F::kAddr, U(0x1000 + 8 * (rng() % 2))}}));
    }
  }
  return v;
}

// The header of process `pid` on the one boot of one host every test set
// here shares (so its files line up by TSC).
format::FileHeader ProcessHeader(uint32_t pid) {
  format::FileHeader header = TestHeader();
  header.pid = pid;
  header.boot_id = {0xb0, 0x07};
  return header;
}

// The threads' events in chunks of random size, written in a random order
// that keeps each thread's chunks in order.
std::string RandomTrace(uint64_t seed, const TraceOptions& options) {
  std::mt19937_64 rng(seed);
  format::FileHeader header = ProcessHeader(options.pid);
  header.host_name = options.host;
  TraceBuilder b(header);
  if (options.shuffle_ids) {
    b.Domain(1, "frames").Domain(2, "d2").Domain(3, "d1");
  } else {
    b.Domain(1, "d1").Domain(2, "d2").Domain(3, "frames");
  }
  for (uint64_t s = 10; s < 14; ++s) {
    b.String(s, "t" + std::to_string(options.shuffle_ids ? 23 - s : s));
  }
  b.Counter(1, "queue", "d1", 1, format::MetadataType::kU64);
  b.EventName(1, "legacy1").EventName(2, "legacy2");
  if (options.heap) b.HeapFunction(1, "malloc", "libc").HeapFunction(2, "new", "libstdc++");
  std::vector<std::vector<std::vector<Event>>> chunks(static_cast<size_t>(options.threads));
  for (int th = 0; th < options.threads; ++th) {
    b.Thread(static_cast<uint32_t>(th), 100 + th, "w" + std::to_string(th));
    const size_t n =
        options.events_per_thread != 0 ? options.events_per_thread : 200 + rng() % 1500;
    std::vector<Event> events = ThreadEvents(rng, n, options.heap, options.ids);
    if (options.time_back && th == options.threads - 1 && events.size() > 10) {
      events[events.size() / 2].time = events[0].time;
    }
    for (size_t i = 0; i < events.size();) {
      const size_t k = std::min(events.size() - i, size_t{1} + rng() % 200);
      chunks[static_cast<size_t>(th)].emplace_back(
          events.begin() + static_cast<std::ptrdiff_t>(i),
          events.begin() + static_cast<std::ptrdiff_t>(i + k));
      i += k;
    }
  }
  std::vector<size_t> next(chunks.size(), 0);
  for (;;) {
    std::vector<size_t> ready;
    for (size_t th = 0; th < chunks.size(); ++th) {
      if (next[th] < chunks[th].size()) ready.push_back(th);
    }
    if (ready.empty()) break;
    const size_t th = ready[rng() % ready.size()];
    b.Events(static_cast<uint32_t>(th), chunks[th][next[th]++]);
  }
  b.End(1000000);
  return b.bytes();
}

// An interval as a listener sees it, without the piece's own depth and
// serial.
using Seen = std::tuple<int, uint32_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                        uint64_t, bool>;

class Recorder : public PieceSink {
 public:
  // `as_stats`: as stats' collector, a sink that writes no outputs, which
  // gets the simple tasks the piece pairs in runs
  // (IntervalTracker::PairSimpleTasks), not one at a time, and leaves the
  // null-id frames of processes with several threads apart (the merge gives
  // them to the whole trace's tracker in their own order; frames with an
  // id stay among the other events).
  explicit Recorder(bool as_stats = false) : as_stats_(as_stats) {}
  bool outputs_intervals() const override { return !as_stats_; }
  IntervalTracker::PiecePairing pairing() const override {
    IntervalTracker::PiecePairing p;
    p.frames_apart = as_stats_;
    return p;
  }
  void OnInterval(const Interval& iv) override {
    seen.emplace_back(static_cast<int>(iv.kind), iv.thread->index, iv.domain, iv.name_id, iv.fn,
                      iv.event_id, iv.begin, iv.end, iv.child_ticks, iv.open_at_end);
  }
  void Clear() override { seen.clear(); }
  std::vector<Seen> seen;

 private:
  bool as_stats_;
};

struct Pairing {
  std::vector<Seen> seen;
  Unbalanced unbalanced;
  bool exact = true;
};

TraceSet OpenSet(const std::vector<std::string>& files) {
  std::vector<TraceSource> sources;
  for (size_t i = 0; i < files.size(); ++i) {
    sources.push_back(TraceSource::Memory(files[i], "f" + std::to_string(i)));
  }
  return TraceSet::Open(std::move(sources), IndexOptions(), "set");
}

// What a stretch of frames kept apart paired among themselves.
class StretchRecorder : public ApartStretch {
 public:
  void OnInterval(const Interval& iv) override { rec.OnInterval(iv); }
  void OnRecord(const Event& e, const ThreadRec& thread) override {}
  Recorder rec;
};

// The whole trace's tracker of a set and what it delivers, with what the
// stretches of frames kept apart paired among themselves.
struct WholeTrace : ApartConsumer {
  explicit WholeTrace(const std::vector<std::string>& files)
      : set(OpenSet(files)), tracker(set.index(), &rec) {
    tracker.set_collect_args(false);
  }
  IntervalTracker* frame_tracker() override { return &tracker; }
  std::unique_ptr<ApartStretch> NewStretch() override {
    return std::make_unique<StretchRecorder>();
  }
  void JoinStretch(ApartStretch* s, bool joined, const StretchRecords&) override {
    std::vector<Seen>& seen = static_cast<StretchRecorder&>(*s).rec.seen;
    if (joined) rec.seen.insert(rec.seen.end(), seen.begin(), seen.end());
    seen.clear();
  }
  // Ends the trace at `last` and adds what it delivered to *p.
  void Finish(uint64_t last, Pairing* p) {
    tracker.Finish(last);
    p->seen.insert(p->seen.end(), rec.seen.begin(), rec.seen.end());
    p->unbalanced = tracker.unbalanced();
  }
  TraceSet set;
  Recorder rec;
  IntervalTracker tracker;
};

Pairing Serially(const std::vector<std::string>& files) {
  Pairing p;
  WholeTrace whole(files);
  TraceSetMerger merger(whole.set, MergeOptions());
  const Event* e;
  const ThreadRec* t;
  uint64_t last = 0;
  while (merger.Next(&e, &t)) {
    whole.tracker.OnEvent(*e, *t);
    last = std::max(last, e->time);
  }
  whole.Finish(last, &p);
  return p;
}

// The pieces' intervals (each piece records its own; the recorders are
// reused, so they are collected as pieces are read) and the whole trace's:
// the files at once, or one after another into the same tracker. The
// frames kept apart (as_stats) go in stretches of `stretch_frames` (0:
// PieceMerger's own).
Pairing InPieces(const std::vector<std::string>& files, bool file_by_file = false,
                 bool as_stats = false, size_t stretch_frames = 0) {
  Pairing p;
  WholeTrace whole(files);
  uint64_t last = 0;
  std::vector<size_t> passes = {PieceMerger::kEveryFile};
  if (file_by_file) {
    passes.clear();
    for (size_t f = 0; f < files.size(); ++f) passes.push_back(f);
  }
  size_t open_frames = 0;
  MergeOptions options;
  options.stretch_items = stretch_frames;
  // Each file's merger reads ahead while the one before it ends, as
  // stats's do.
  FileByFileMergers mergers(passes, [&](size_t only_file, format::ReaderPool* pool) {
    auto merger = std::make_unique<PieceMerger>(
        whole.set, [as_stats] { return std::make_unique<Recorder>(as_stats); }, options,
        [&p, &last](const Piece& piece) {
          const auto& pieces_rec = static_cast<const Recorder&>(*piece.sink);
          p.seen.insert(p.seen.end(), pieces_rec.seen.begin(), pieces_rec.seen.end());
          last = std::max(last, piece.paired_last_ticks);
        },
        only_file, pool);
    merger->set_apart_consumer(&whole);
    return merger;
  });
  while (PieceMerger* const taken = mergers.Next()) {
    PieceMerger& merger = *taken;
    whole.tracker.ResetPeakKeyedOpen();
    PieceMerger::Item item;
    Event scratch;
    while (merger.Next(&item)) {
      if (const Event* e = FeedEntry(item, &whole.tracker, &scratch)) {
        last = std::max(last, e->time);
      }
    }
    p.exact = p.exact && merger.exact();
    open_frames += whole.tracker.peak_keyed_open() + merger.open_keyed_bound();
  }
  p.exact = p.exact && IntervalTracker::OpenKeyedWithinLimits(open_frames);
  whole.Finish(last, &p);
  return p;
}

void ExpectSamePairing(const std::vector<std::string>& files, const std::string& what,
                       bool file_by_file = false) {
  Pairing serial = Serially(files);
  ASSERT_GT(serial.seen.size(), 100u) << what;
  std::sort(serial.seen.begin(), serial.seen.end());
  for (const bool as_stats : {false, true}) {
    const std::string how = what + (as_stats ? ", as stats pairs" : ", as chrome pairs");
    // Stats' frames kept apart in stretches of 5: many joins.
    Pairing pieces = InPieces(files, file_by_file, as_stats, as_stats ? 5 : 0);
    ASSERT_TRUE(pieces.exact) << how;
    std::sort(pieces.seen.begin(), pieces.seen.end());
    EXPECT_EQ(pieces.seen, serial.seen) << how;
    EXPECT_EQ(pieces.unbalanced.end_without_begin, serial.unbalanced.end_without_begin) << how;
    EXPECT_EQ(pieces.unbalanced.open_at_end, serial.unbalanced.open_at_end) << how;
    EXPECT_EQ(pieces.unbalanced.frame_end_without_begin, serial.unbalanced.frame_end_without_begin)
        << how;
    EXPECT_EQ(pieces.unbalanced.frames_open_at_end, serial.unbalanced.frames_open_at_end) << how;
  }
}

// RandomTrace(seed, options) with three bytes of its middle half changed
// at random (by seed): a damaged trace.
std::string DamagedTrace(uint64_t seed, const TraceOptions& options) {
  std::string bytes = RandomTrace(seed, options);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 3; ++k) {
    const size_t at = bytes.size() / 4 + rng() % (bytes.size() / 2);
    bytes[at] = static_cast<char>(bytes[at] ^ (1 + rng() % 255));
  }
  return bytes;
}

// A set of `n` random traces of one host and boot, each its own process.
std::vector<std::string> RandomSet(uint64_t seed, size_t n, bool heap = false) {
  std::vector<std::string> files;
  for (size_t i = 0; i < n; ++i) {
    TraceOptions options;
    options.heap = heap;
    options.threads = 1 + static_cast<int>((seed + i) % 3);
    options.pid = 100 + static_cast<uint32_t>(i);
    options.shuffle_ids = i % 2 == 1;
    files.push_back(RandomTrace(seed * 31 + i, options));
  }
  return files;
}

// `files` as a run's directory holds them ("run/p0.itt", ...), for
// RunDump's traces.
std::map<std::string, std::string> RunDir(const std::vector<std::string>& files) {
  std::map<std::string, std::string> traces;
  for (size_t i = 0; i < files.size(); ++i) traces["run/p" + std::to_string(i) + ".itt"] = files[i];
  return traces;
}

TEST(Pieces, PairTasksAsTheSerialPassDoes) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    TraceOptions options;
    options.threads = 1 + static_cast<int>(seed % 6);
    ExpectSamePairing({RandomTrace(seed, options)}, "seed " + std::to_string(seed));
  }
}

// Several processes: each file's ids and identities become the set's on
// the workers, and the files' events merge by time, then file.
TEST(Pieces, PairTasksOfSeveralFilesAsTheSerialPassDoes) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    ExpectSamePairing(RandomSet(seed, 2 + seed % 4), "set seed " + std::to_string(seed));
  }
}

// What SetRewriter::MapSimpleIds makes of a task_begin and a frame of
// `domain` (the task named `name`): what Rewrite makes of their Events.
// Returns the mapped task.
format::EventStreamDecoder::SimpleTask ExpectMapsAsRewrite(const SetRewriter& rewriter,
                                                           uint64_t domain, uint64_t name) {
  format::EventStreamDecoder::SimpleTask task;
  task.begin = true;
  task.time = 5000;
  task.domain = domain;
  task.name = name;
  Event e;
  task.ToEvent(&e);
  rewriter.Rewrite(&e, e.time);
  rewriter.MapSimpleIds(&task);
  EXPECT_EQ(task.domain, e.Get(F::kDomain));
  EXPECT_EQ(task.name, e.Get(F::kName));
  format::EventStreamDecoder::SimpleFrame frame;
  frame.begin = true;
  frame.time = 5000;
  frame.domain = domain;
  frame.ToEvent(&e);
  rewriter.Rewrite(&e, e.time);
  rewriter.MapSimpleIds(&frame);
  EXPECT_EQ(frame.domain, e.Get(F::kDomain));
  return task;
}

// The files of one host read their simple tasks and frames without an
// Event (frames too, where a thread is alone in its process), and pair
// them as the serial pass does: ranks of one program, which define their
// names in the same order (RunTraces'), with their own ids; a file whose
// ids are not the set's (a rank that numbers them from 2; RandomTrace's
// are not numbered from 1; shuffled, the text of an id is another) with
// its ids mapped, as Rewrite maps them. Files of several hosts (times on
// the wall clock) read them as Events.
TEST(Pieces, FilesOfOneHostReadTheirSimpleEventsWithoutAnEvent) {
  // Ranks of one program with the set's ids, and with odd ranks' ids
  // numbered from 2: their "app" and "frame_work" are 2 where the set's
  // are 1, and mapped.
  std::vector<std::string> ranks;
  for (const bool other_ids : {false, true}) {
    const std::string label = other_ids ? "ranks of other ids" : "ranks";
    std::vector<std::string> traces;
    for (const auto& [name, trace] : RunTraces(4, 300, 1, other_ids)) traces.push_back(trace);
    {
      TraceSet set = OpenSet(traces);
      for (size_t f = 0; f < traces.size(); ++f) {
        SCOPED_TRACE(label + " file " + std::to_string(f));
        const SetRewriter rewriter(set, f);
        const bool mapped = other_ids && f % 2 == 1;
        EXPECT_TRUE(rewriter.ReadsSimpleEvents());
        EXPECT_EQ(rewriter.MapsSimpleIds(), mapped);
        const format::EventStreamDecoder::SimpleTask task =
            ExpectMapsAsRewrite(rewriter, mapped ? 2 : 1, 2);
        EXPECT_EQ(task.domain, 1u);
        EXPECT_EQ(task.name, mapped ? 1u : 2u);
      }
    }
    ExpectSamePairing(traces, label);
    ExpectSamePairing(traces, label + " file by file", /*file_by_file=*/true);
    if (!other_ids) ranks = traces;
  }

  TraceOptions plain;
  plain.threads = 1;
  plain.pid = 101;
  TraceOptions shuffled = plain;
  shuffled.pid = 102;
  shuffled.shuffle_ids = true;
  const std::vector<std::string> files = {RandomTrace(1, plain), RandomTrace(2, shuffled)};
  {
    TraceSet set = OpenSet(files);
    const SetRewriter rewriter(set, 1);
    EXPECT_TRUE(rewriter.ReadsSimpleEvents());
    EXPECT_TRUE(rewriter.MapsSimpleIds());
    EXPECT_TRUE(SetRewriter(set, 0).MapsSimpleIds());  // ids from 10
    for (uint64_t domain = 1; domain <= 3; ++domain) {
      for (uint64_t name = 10; name < 14; ++name) {
        ExpectMapsAsRewrite(rewriter, domain, name);
        ExpectMapsAsRewrite(SetRewriter(set, 0), domain, name);
      }
    }
  }
  ExpectSamePairing(files, "mapped ids");
  ExpectSamePairing(files, "mapped ids file by file", /*file_by_file=*/true);
  TraceSet hosts = OpenSet({ranks[0], RandomTrace(3, plain)});
  EXPECT_FALSE(SetRewriter(hosts, 0).ReadsSimpleEvents());
}

// The processes of a set pair nothing with each other: the files one
// after another give what the serial merge of all gives.
TEST(Pieces, PairTasksOfSeveralFilesOneAfterAnotherAsTheSerialPassDoes) {
  for (uint64_t seed = 21; seed <= 32; ++seed) {
    ExpectSamePairing(RandomSet(seed, 2 + seed % 4), "set seed " + std::to_string(seed),
                      /*file_by_file=*/true);
  }
}

TEST(Pieces, AThreadWhoseTimeGoesBackIsNotExact) {
  TraceOptions options;
  options.time_back = true;
  EXPECT_FALSE(InPieces({RandomTrace(5, options)}).exact);
}

TEST(Pieces, FilesOfSeveralHostsAreNotTaken) {
  TraceOptions a;
  TraceOptions b;
  b.pid = 7;
  b.host = "other-host";
  EXPECT_FALSE(InPieces({RandomTrace(1, a), RandomTrace(2, b)}).exact);
  EXPECT_TRUE(InPieces(RandomSet(3, PieceMerger::kManyFiles + 1)).exact);
}

// `args` on every core and on one core give the same exit status, output,
// warnings and files (`what` names the case). Returns the one-core run, for
// the caller's own checks. `Traces`: one trace's bytes, or files by path.
template <typename Traces>
DumpResult SameOnEveryCoreAsOnOne(const std::vector<std::string>& args, const Traces& traces,
                                  const std::string& what = "") {
  const DumpResult all = RunDump(args, traces);
  DumpResult one = RunDumpOnOneCore(args, traces);
  EXPECT_EQ(all.status, one.status) << what;
  EXPECT_EQ(all.out, one.out) << what;
  EXPECT_EQ(all.err, one.err) << what;
  EXPECT_EQ(all.files.size(), one.files.size()) << what;
  for (const auto& [path, bytes] : one.files) {
    const auto it = all.files.find(path);
    EXPECT_TRUE(it != all.files.end() && it->second == bytes) << what << ": " << path;
  }
  return one;
}

// A verb's context for a pass over `set` with this lookahead, its output
// and warnings kept in strings.
struct PassContext {
  PassContext(const TraceSet& set, size_t lookahead)
      : o(StringOutput(&out)), e(StringOutput(&err)) {
    ctx.set = &set;
    ctx.index = &set.index();
    ctx.out = o.get();
    ctx.err = e.get();
    ctx.merge.max_buffered_bytes = lookahead;
    ctx.merge.run_outputs = kTestRunOutputs;
  }
  std::string out;
  std::string err;
  std::unique_ptr<Output> o;
  std::unique_ptr<Output> e;
  VerbContext ctx;
};

// Whether `stats` on `files` ran on every core.
bool StatsOnEveryCore(const std::vector<std::string>& files,
                      size_t lookahead = MergeOptions().max_buffered_bytes) {
  TraceSet set = OpenSet(files);
  if (set.empty()) return false;
  PassContext pc(set, lookahead);
  std::unique_ptr<StatsCollector> stats;
  absl::StatusOr<PassSummary> pass = CollectStats(pc.ctx, StatsOptions(), &stats);
  return pass.ok() && pass->on_every_core;
}

// SameOnEveryCoreAsOnOne for each command line of `runs`.
void SameOnEveryCoreAsOnOneEach(const std::vector<std::vector<std::string>>& runs,
                                const std::string& bytes, const std::string& what) {
  for (const std::vector<std::string>& args : runs) {
    SameOnEveryCoreAsOnOne(args, bytes, what + " " + args[1]);
  }
}

void ExpectSameStats(const std::string& bytes, const std::string& what) {
  SameOnEveryCoreAsOnOneEach({{"stats", "trace.itt"},
                              {"stats", "--per-thread", "--format=json", "trace.itt"},
                              {"stats", "--format=csv", "--name=t12", "trace.itt"},
                              {"stats", "--domain=d2", "trace.itt"},
                              {"stats", "--from=3000", "--to=9000", "trace.itt"},
                              {"stats", "--thread=101", "--per-thread", "trace.itt"}},
                             bytes, what);
}

// A chunk of 2 MiB whose first event is malformed, between two threads'
// chunks: the serial merge holds its payload until its thread's earlier
// events are delivered, past a lookahead of 1 MiB, and so delivers events
// early; the pass on every core must count it as held too (and so not
// run), or its output differs.
TEST(Pieces, AChunkWithoutAnEventStillCountsAgainstTheLookahead) {
  TraceBuilder b;
  b.String(1, "a").Domain(1, "d");
  b.Counter(1, "shared", "d", 1, format::MetadataType::kU64);
  b.Thread(0, 100, "t0").Thread(1, 101, "t1");
  const auto tasks = [](uint64_t t, uint64_t value) {
    std::vector<format::Event> v;
    for (int i = 0; i < 3000; ++i, t += 20) {
      v.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
      v.push_back(Ev(EventKind::kTaskEnd, t + 5, {{F::kDomain, U(1)}}));
    }
    v.push_back(CounterSetU64(t, 1, value));
    return v;
  };
  const std::vector<format::Event> t0 = tasks(2000, 1);
  b.Events(0, t0);
  format::EventStreamEncoder enc;
  enc.Reset(0, t0.back().time);
  std::string payload(enc.payload());
  payload.push_back('\0');  // no event kind 0: nothing decodes
  payload.append(size_t{2} << 20, '\0');
  b.EventsPayload(payload, enc.chunk_flags());
  b.Events(1, tasks(1500, 2));
  b.End(200000);
  SameOnEveryCoreAsOnOneEach({{"stats", "--lookahead-mb=1", "--format=csv", "trace.itt"}},
                             b.bytes(), "a 2 MiB chunk with no event");
}

// For one file, stats sums up sync waits, heap calls and counter changes
// by stretches of what the pieces keep apart, and joins them in order:
// stretches of a few events each join many times.
TEST(Pieces, StatsInStretchesPrintsWhatTheSerialPassPrints) {
  const std::vector<std::vector<std::string>> runs = {
      {"stats", "trace.itt"},
      {"stats", "--per-thread", "--format=csv", "trace.itt"},
      {"stats", "--from=3000", "--to=30000", "--thread=w1", "trace.itt"},
      {"stats", "--name=t12", "trace.itt"}};
  for (uint64_t seed = 150; seed < 162; ++seed) {
    TraceOptions options;
    options.threads = 2 + static_cast<int>(seed % 4);
    options.heap = true;
    options.ids = true;
    const std::string bytes = RandomTrace(seed, options);
    ASSERT_TRUE(StatsOnEveryCore({bytes})) << seed;
    for (const std::vector<std::string>& args : runs) {
      const DumpResult one = RunDumpOnOneCore(args, bytes);
      ASSERT_EQ(one.status, 0) << one.err;
      for (const size_t items : {1, 3, 17}) {
        const DumpResult all = RunDumpInStretches(args, bytes, items);
        EXPECT_EQ(all.out, one.out) << seed << " " << args[1] << " in stretches of " << items;
        EXPECT_EQ(all.err, one.err) << seed << " " << args[1] << " in stretches of " << items;
      }
    }
  }
}

TEST(Pieces, StatsPrintsWhatTheSerialPassPrints) {
  for (uint64_t seed = 100; seed < 115; ++seed) {
    const std::string bytes = RandomTrace(seed, TraceOptions{1 + static_cast<int>(seed % 5)});
    ASSERT_TRUE(StatsOnEveryCore({bytes})) << seed;
    ExpectSameStats(bytes, "seed " + std::to_string(seed));
  }
}

// Damage drops chunks (the CRC catches it): both passes lose the same ones.
TEST(Pieces, StatsOfADamagedTracePrintsWhatTheSerialPassPrints) {
  int on_every_core = 0;
  for (uint64_t seed = 200; seed < 212; ++seed) {
    const std::string bytes = DamagedTrace(seed, TraceOptions{3});
    on_every_core += StatsOnEveryCore({bytes}) ? 1 : 0;
    ExpectSameStats(bytes, "damaged seed " + std::to_string(seed));
  }
  EXPECT_GT(on_every_core, 6);
}

TEST(Pieces, StatsOfATraceWhoseTimeGoesBackTakesTheSerialPass) {
  TraceOptions options;
  options.time_back = true;
  const std::string bytes = RandomTrace(7, options);
  EXPECT_FALSE(StatsOnEveryCore({bytes}));
  ExpectSameStats(bytes, "time back");
}

// Thread 1's only chunk starts before all of thread 0's and comes after
// them in the file: the serial merge holds thread 0's chunks meanwhile,
// past a 1 MiB lookahead, and delivers some events early. Thread 0 has
// only tasks, which its pieces pair: they keep next to nothing, so only
// the bound of what the serial merge would hold can see that coming and
// leave the trace to the serial pass.
std::string PastTheLookaheadTrace() {
  std::mt19937_64 rng(11);
  TraceBuilder b;
  b.Domain(1, "d1").Domain(2, "d2").Domain(3, "frames");
  for (uint64_t s = 10; s < 14; ++s) b.String(s, "t" + std::to_string(s));
  b.Counter(1, "queue", "d1", 1, format::MetadataType::kU64);
  b.EventName(1, "legacy1").EventName(2, "legacy2");
  b.Thread(0, 100, "a").Thread(1, 101, "b");
  const std::vector<Event> late = ThreadEvents(rng, 3000);
  uint64_t t = late.back().time / 2;
  for (int c = 0; c < 100; ++c) {
    std::vector<Event> chunk;
    for (int i = 0; i < 2000; ++i) {
      t += 1 + rng() % 7;
      chunk.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(10)}}));
      t += 1 + rng() % 7;
      chunk.push_back(Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(1)}}));
    }
    b.Events(0, chunk);
  }
  b.Events(1, late);
  b.End(t + 1000);
  return b.bytes();
}

TEST(Pieces, WhereTheSerialMergePassesItsLookaheadStatsTakesTheSerialPass) {
  const std::string bytes = PastTheLookaheadTrace();
  EXPECT_FALSE(StatsOnEveryCore({bytes}, size_t{1} << 20));
  EXPECT_TRUE(StatsOnEveryCore({bytes}));
  const std::vector<std::string> args = {"stats", "--lookahead-mb=1", "trace.itt"};
  const DumpResult one = SameOnEveryCoreAsOnOne(args, bytes);
  EXPECT_NE(one.err.find("out of time order"), std::string::npos) << one.err;
}

// A task open across a chunk boundary, then a nest of begins past the
// pairing engine's depth limit in the next chunk: the serial tracker drops
// the begins past it, and the pieces cannot know where the limit falls.
TEST(Pieces, TasksNestedPastTheLimitTakeTheSerialPass) {
  TraceBuilder b;
  b.Domain(1, "d1").String(10, "t10").String(11, "t11");
  b.Thread(0, 100, "a");
  uint64_t t = 1000;
  std::vector<Event> first;
  for (int i = 0; i < 3; ++i) {
    first.push_back(Ev(EventKind::kTaskBegin, t++, {{F::kDomain, U(1)}, {F::kName, U(10)}}));
  }
  b.Events(0, first);
  std::vector<Event> nest;
  // Past the limit in the whole trace (3 more are open) and in the piece
  // itself, whose own tracker forwards the begins past it.
  const size_t n = IntervalTracker::kMaxDepth + 2;
  for (size_t i = 0; i < n; ++i) {
    nest.push_back(Ev(EventKind::kTaskBegin, t++, {{F::kDomain, U(1)}, {F::kName, U(11)}}));
  }
  for (size_t i = 0; i < n + 3; ++i)
    nest.push_back(Ev(EventKind::kTaskEnd, t++, {{F::kDomain, U(1)}}));
  b.Events(0, nest);
  const std::string bytes = b.bytes();
  EXPECT_FALSE(StatsOnEveryCore({bytes}));
  ExpectSameStats(bytes, "deep");
}

// Without heap calls the files are read one after another; with them in
// every file, at once (the heap rows' live bytes add up every process's).
TEST(Pieces, StatsOfSeveralFilesPrintsWhatTheSerialPassPrints) {
  for (uint64_t seed = 300; seed < 308; ++seed) {
    const std::vector<std::string> files = RandomSet(seed, 2 + seed % 3, /*heap=*/seed % 2 == 1);
    ASSERT_TRUE(StatsOnEveryCore(files)) << seed;
    const std::map<std::string, std::string> traces = RunDir(files);
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"stats", "run"},
             {"stats", "--per-process", "--per-thread", "--format=json", "run"},
             {"stats", "--name=t12", "--from=2000", "run"}}) {
      SameOnEveryCoreAsOnOne(args, traces, std::to_string(seed) + " " + args[1]);
    }
  }
}

// vtune-csv's files, kept in memory.
class StringFiles final : public OutputFactory {
 public:
  absl::StatusOr<std::unique_ptr<Output>> Create(const std::string& file_name) override {
    return StringOutput(&files_[file_name]);
  }
  const std::map<std::string, std::string>& files() const { return files_; }

 private:
  std::map<std::string, std::string> files_;
};

// Runs vtune-csv on every core where it can, and says which passes could.
VtunePasses VtuneOnEveryCore(const std::vector<std::string>& files) {
  TraceSet set = OpenSet(files);
  VtunePasses passes;
  if (set.empty()) return passes;
  PassContext pc(set, MergeOptions().max_buffered_bytes);
  StringFiles out;
  const absl::Status status = RunVtuneCsv(pc.ctx, VtuneOptions(), &out, &passes);
  EXPECT_TRUE(status.ok()) << status;
  return passes;
}

// Ranks of one thread each: the pieces pair their frames (in the loop
// that pairs their simple tasks), and vtune-csv's write each frame's line,
// which the merge puts among the other ranks' lines at the frame's end.
TEST(Pieces, VtuneCsvOfRanksOfOneThreadWritesWhatTheSerialPassWrites) {
  std::map<std::string, std::string> traces;
  std::vector<std::string> bytes;
  for (const auto& [name, trace] : RunTraces(4, 300, 1)) {
    bytes.push_back(trace);
    traces["run/" + name] = trace;
  }
  EXPECT_TRUE(VtuneOnEveryCore(bytes).intervals_on_every_core);
  const DumpResult one = SameOnEveryCoreAsOnOne({"vtune-csv", "-o", "d", "run"}, traces, "ranks");
  ASSERT_EQ(one.files.size(), 2u);
  // Every rank's frames are there (the counters' file comes first).
  EXPECT_NE(one.files.rbegin()->first.find("intervals"), std::string::npos);
  const std::string& intervals = one.files.rbegin()->second;
  EXPECT_GE(std::count(intervals.begin(), intervals.end(), '\n'), 4 * 300);
}

// More than kManyFiles files of an MPI-like run, with one thread per
// process (the pieces pair the frames too) or four sharing each process's
// frames (the pieces keep them): read one after another, both stay on
// every core and print what the serial pass prints.
TEST(Pieces, ManyFilesOfOneOrSeveralThreadsStayOnEveryCore) {
  const int files = static_cast<int>(PieceMerger::kManyFiles) + 1;
  for (const int threads : {1, 4}) {
    std::map<std::string, std::string> traces;
    std::vector<std::string> bytes;
    for (const auto& [name, trace] :
         RunTraces(files, 2000 / static_cast<uint64_t>(threads), threads)) {
      bytes.push_back(trace);
      traces["run/" + name] = trace;
    }
    EXPECT_TRUE(StatsOnEveryCore(bytes)) << threads;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"stats", "run"}, {"stats", "--per-process", "--format=json", "run"}}) {
      SameOnEveryCoreAsOnOne(args, traces, std::to_string(threads) + " " + args[1]);
    }
  }
}

// More than kManyFiles files with heap calls in each are read at once;
// their pieces keep more than one event in 16 (random events of four
// threads: everything but their simple tasks), so past the probe's events
// the pass gives way to the serial one, and prints what it prints.
TEST(Pieces, ManyFilesAtOnceWhosePiecesKeepManyEventsTakeTheSerialPass) {
  const size_t files = PieceMerger::kManyFiles + 1;
  std::map<std::string, std::string> traces;
  std::vector<std::string> bytes;
  for (size_t i = 0; i < files; ++i) {
    TraceOptions options;
    options.heap = true;
    options.pid = 100 + static_cast<uint32_t>(i);
    // Past the probe's events.
    options.events_per_thread =
        PieceMerger::kProbeEvents / files / static_cast<size_t>(options.threads) * 5 / 4;
    bytes.push_back(RandomTrace(500 + i, options));
    traces["run/p" + std::to_string(100 + i) + ".itt"] = bytes.back();
  }
  EXPECT_FALSE(InPieces(bytes).exact);
  EXPECT_FALSE(StatsOnEveryCore(bytes));
  const std::vector<std::string> args = {"stats", "run"};
  SameOnEveryCoreAsOnOne(args, traces);
}

// One thread alone in its process opens more frames at once in one piece
// than the pairing engine tracks: the serial tracker counts those past its
// limit as open at the end, which a piece cannot know.
TEST(Pieces, FramesOpenPastTheLimitTakeTheSerialPass) {
  TraceBuilder b;
  b.Domain(3, "frames");
  b.Thread(0, 100, "a");
  uint64_t t = 1000;
  std::vector<Event> nest;
  const size_t n = IntervalTracker::kMaxDepth;
  for (size_t i = 0; i < n; ++i) {
    nest.push_back(Ev(EventKind::kFrameBegin, t++, {{F::kDomain, U(3)}, {F::kId, Null()}}));
  }
  for (size_t i = 0; i < n; ++i) {
    nest.push_back(Ev(EventKind::kFrameEnd, t++, {{F::kDomain, U(3)}, {F::kId, Null()}}));
  }
  b.Events(0, nest);
  const std::string bytes = b.bytes();
  EXPECT_FALSE(InPieces({bytes}).exact);
  EXPECT_FALSE(StatsOnEveryCore({bytes}));
  ExpectSameStats(bytes, "frames past the limit");
}

// Two processes whose events meet in what stats keeps (the reviewer's
// cases): a v3 counter of one domain and name in each (each process's
// own), one counter neither defines (both
// keep its number), a sync object of one at the other's
// tagged address, heap calls in both; and regions whose ids meet under
// the tags, which pair in their process. Read file by file stats would
// differ; it must print what the serial pass prints, on every core.
TEST(Pieces, ProcessesWhoseEventsMeetPrintWhatTheSerialPassPrints) {
  const auto process = [](uint32_t pid, const std::vector<Event>& events) {
    TraceBuilder b(ProcessHeader(pid));
    b.Domain(1, "d1").String(10, "n").String(11, "lock").String(12, "r").String(13, "c");
    b.HeapFunction(1, "malloc", "libc");
    b.Thread(0, pid + 1, "main");
    b.Events(0, events);
    b.End(5000);
    return b.bytes();
  };
  const uint64_t top = ProcessTag(1);  // an address process 1's tag makes too
  const uint64_t a = 0x7000;
  const std::vector<std::pair<std::string, std::vector<std::vector<Event>>>> cases = {
      {"v3 counter",
       {{Ev(EventKind::kCounterIncV3, 1100, {{F::kDomain, U(1)}, {F::kName, U(10)}}),
         Ev(EventKind::kCounterDecV3, 1400, {{F::kDomain, U(1)}, {F::kName, U(10)}})},
        {Ev(EventKind::kCounterIncV3, 1200, {{F::kDomain, U(1)}, {F::kName, U(10)}}),
         Ev(EventKind::kCounterDecV3, 1300, {{F::kDomain, U(1)}, {F::kName, U(10)}})}}},
      {"sync",
       {{Ev(EventKind::kSyncCreate, 1100,
            {{F::kAddr, U(top | a)}, {F::kObjtype, U(11)}, {F::kObjname, U(13)}}),
         Ev(EventKind::kSyncRename, 1300, {{F::kAddr, U(top | a)}, {F::kName, U(12)}})},
        {Ev(EventKind::kSyncCreate, 1200,
            {{F::kAddr, U(a)}, {F::kObjtype, U(11)}, {F::kObjname, U(13)}})}}},
      {"undefined counter",
       {{Ev(EventKind::kCounterInc, 1100, {{F::kCounter, U(7)}}),
         Ev(EventKind::kCounterDec, 1400, {{F::kCounter, U(7)}})},
        {Ev(EventKind::kCounterInc, 1200, {{F::kCounter, U(7)}}),
         Ev(EventKind::kCounterDec, 1300, {{F::kCounter, U(7)}})}}},
      {"heap",
       {{Ev(EventKind::kHeapAllocateEnd, 1100,
            {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}, {F::kSize, U(64)}}),
         Ev(EventKind::kHeapFreeEnd, 1400, {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}})},
        {Ev(EventKind::kHeapAllocateEnd, 1200,
            {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}, {F::kSize, U(32)}}),
         Ev(EventKind::kHeapFreeEnd, 1300, {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}})}}},
      {"regions",
       {{Ev(EventKind::kRegionBegin, 1100,
            {{F::kDomain, U(1)}, {F::kId, I(top | 5)}, {F::kParent, Null()}, {F::kName, U(12)}}),
         Ev(EventKind::kRegionEnd, 1300, {{F::kDomain, U(1)}, {F::kId, I(top | 5)}})},
        {Ev(EventKind::kRegionBegin, 1200,
            {{F::kDomain, U(1)}, {F::kId, I(5)}, {F::kParent, Null()}, {F::kName, U(12)}}),
         Ev(EventKind::kRegionEnd, 1400, {{F::kDomain, U(1)}, {F::kId, I(5)}})}}},
  };
  for (const auto& [what, events] : cases) {
    const std::vector<std::string> bytes = {process(100, events[0]), process(200, events[1])};
    EXPECT_TRUE(StatsOnEveryCore(bytes)) << what;
    const std::map<std::string, std::string> traces = {{"run/p100.itt", bytes[0]},
                                                       {"run/p200.itt", bytes[1]}};
    const std::vector<std::string> args = {"stats", "--format=csv", "run"};
    const DumpResult one = SameOnEveryCoreAsOnOne(args, traces, what);
    if (what == "v3 counter") {
      // Two counters, each 1 then 0 in its process (one over both would
      // read 1, 2, 1, 0).
      const std::string row = "\ncounters,d1,n,2,0,1,0\n";
      const size_t first = one.out.find(row);
      ASSERT_NE(first, std::string::npos) << one.out;
      EXPECT_NE(one.out.find(row, first + 1), std::string::npos) << one.out;
    }
    if (what == "regions") {
      // 200 ns each: the ids meet under the tags, but each pairs in its
      // process.
      EXPECT_NE(one.out.find("\ntasks,d1,r,region,2,400,400,200,200,200,200,200,200\n"),
                std::string::npos)
          << one.out;
    }
  }
}

// Two processes of one thread each whose chunks hold only frames: the
// pieces pair them all and keep nothing, so no entry moves the merge on.
// It must still let go of what the serial merge would no longer hold, or
// past each file's share of a 1 MiB lookahead (4 MiB, the least a file
// gets) the pass would stop for nothing.
// A sink making outputs with holes of the keys it is given, kept or not.
class HoleSink final : public PieceSink {
 public:
  void Clear() override {}
  void OnInterval(const Interval&) override {}
  bool outputs_apart() const override { return true; }
  void Output(const std::vector<uint64_t>& keys, bool keep) {
    BeginOutput();
    for (const uint64_t key : keys) {
      output_buffer().push_back('x');
      AddHole(output_buffer().size(), key);
    }
    EndOutput(keep);
  }
};

// The merge fills a run's holes by key number where it can: the numbers
// of the holes before any point are below HoleKeysBefore there, outputs
// dropped with their holes (and the keys they numbered first) or not.
TEST(Pieces, HoleKeysCoverTheHolesBeforeAnyPoint) {
  HoleSink sink;
  sink.Output({7, 7, 7}, true);
  sink.Output({7, 8}, false);  // 8 is numbered, then its hole goes
  sink.Output({9}, true);
  sink.Output({8, 7}, true);
  const std::vector<PieceSink::Hole>& holes = sink.holes();
  ASSERT_EQ(holes.size(), 6u);
  for (size_t end = 1; end <= holes.size(); ++end) {
    for (size_t h = 0; h < end; ++h) {
      EXPECT_LT(holes[h].key_number, sink.HoleKeysBefore(end)) << h << " before " << end;
    }
  }
  const uint64_t keys[] = {7, 7, 7, 9, 8, 7};
  for (size_t h = 0; h < holes.size(); ++h) EXPECT_EQ(sink.hole_key(holes[h].key_number), keys[h]);
  EXPECT_EQ(sink.HoleKeysBefore(0), 0u);
}

// A sink whose tasks' outputs are "T<end>", and that keeps markers apart
// with a slot each.
class SlotSink final : public PieceSink {
 public:
  bool outputs_apart() const override { return true; }
  bool KeepsApart(EventKind kind) const override { return kind == EventKind::kMarker; }
  bool SlotFor(EventKind kind) const override { return kind == EventKind::kMarker; }
  void OnInterval(const Interval& iv) override {
    BeginOutput();
    output_buffer().append("T" + std::to_string(iv.end) + "\n");
    EndOutput(/*keep=*/true);
  }
  void Clear() override {}
};

// Takes the markers kept apart: a record of each one's time and thread,
// which its formatter writes as "M<time>.<tid>".
class MarkerSlots final : public ApartInOrder, public OrderedOutput {
 public:
  struct Record {
    uint64_t time;
    uint64_t tid;
  };
  class Formatter final : public OwnRecordFormatter {
   public:
    void Format(std::string_view record, std::string* out) override {
      Record r;
      std::memcpy(&r, record.data(), sizeof r);
      out->append("M" + std::to_string(r.time) + "." + std::to_string(r.tid) + "\n");
    }
  };
  void OnApartEvent(const Event& e, const ThreadRec& t) override {
    taken.emplace_back(e.time, t.index);
    const Record r{e.time, t.tid};
    std::memcpy(merger->SlotRecordRoom(sizeof r), &r, sizeof r);
  }
  void WriteRun(std::string* bytes, uint32_t, size_t) override { out.append(*bytes); }
  std::unique_ptr<OwnRecordFormatter> NewRecordFormatter() override {
    return std::make_unique<Formatter>();
  }
  PieceMerger* merger = nullptr;
  std::vector<std::pair<uint64_t, uint32_t>> taken;  // (time, thread index)
  std::string out;
};

// Events kept apart (PieceSink::KeepsApart) that an ApartInOrder takes are
// no items: it gets them in the merge's order (by time, then thread), and
// what it leaves for each fills the slot the event's piece left, so the
// output is the serial merge's. Threads share their times (ties), chunks
// hold whole tasks, and so many wait that the merger gives some early (a
// stretch of 512), and runs so short that the records of those wait past
// a run's worth (MergeOptions::run_outputs): they move in their buffer.
TEST(Pieces, EventsKeptApartInOrderFillTheirSlotsAtTheirPlaces) {
  TraceBuilder b(ProcessHeader(100));
  b.Domain(1, "d1").String(10, "t10");
  constexpr int kThreads = 3;
  // By time, then thread: each event's expected line.
  std::vector<std::tuple<uint64_t, uint32_t, uint64_t, std::string>> lines;
  std::mt19937_64 rng(5);
  for (uint32_t th = 0; th < kThreads; ++th) {
    b.Thread(th, 200 + th, "w" + std::to_string(th));
    uint64_t t = 1000;
    uint64_t seq = 0;
    for (int c = 0; c < 40; ++c) {
      std::vector<Event> chunk;
      for (int i = 0; i < 700; ++i) {
        t += 1 + rng() % 3;
        if (rng() % 2 == 0) {
          chunk.push_back(Ev(EventKind::kMarker, t,
                             {{F::kDomain, U(1)}, {F::kName, U(10)}, {F::kScope, U(3)}}));
          lines.emplace_back(t, th, seq++,
                             "M" + std::to_string(t) + "." + std::to_string(200 + th) + "\n");
        } else {
          chunk.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(10)}}));
          t += 1 + rng() % 3;
          chunk.push_back(Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(1)}}));
          lines.emplace_back(t, th, seq++, "T" + std::to_string(t) + "\n");
        }
      }
      b.Events(th, chunk);
    }
  }
  b.End(1 << 20);
  std::sort(lines.begin(), lines.end());
  std::string expected;
  std::vector<std::pair<uint64_t, uint32_t>> markers;
  for (const auto& [time, th, seq, line] : lines) {
    expected += line;
    if (line[0] == 'M') markers.emplace_back(time, th);
  }

  const std::vector<std::string> files = {b.bytes()};  // (the set reads them)
  const TraceSet set = OpenSet(files);
  MergeOptions options;
  options.stretch_items = 512;
  options.run_outputs = 256;
  PieceMerger merger(
      set, [] { return std::make_unique<SlotSink>(); }, options, [](const Piece&) {});
  ASSERT_TRUE(merger.exact()) << merger.inexact_reason();
  MarkerSlots slots;
  slots.merger = &merger;
  merger.set_ordered_output(&slots);
  merger.set_apart_in_order(&slots);
  PieceMerger::Item item;
  Event e;
  while (merger.Next(&item)) {
    if (Piece::IsEvent(item.entry->type)) {
      item.piece->EventAt(*item.entry, &e);
      EXPECT_NE(e.kind, EventKind::kMarker) << "a marker among the items at " << e.time;
    }
  }
  ASSERT_TRUE(merger.exact()) << merger.inexact_reason();
  EXPECT_EQ(slots.taken, markers);
  EXPECT_EQ(slots.out, expected);
}

TEST(Pieces, PiecesThatKeepNothingStillMoveTheMergeOn) {
  std::vector<std::string> files;
  for (uint32_t pid : {100u, 200u}) {
    TraceBuilder b(ProcessHeader(pid));
    b.Domain(1, "d1").String(10, "t10");
    b.Thread(0, pid + 1, "main");
    uint64_t t = 1000 + pid;
    for (int c = 0; c < 40; ++c) {
      std::vector<Event> chunk;
      for (int i = 0; i < 16384; ++i) {
        chunk.push_back(Ev(EventKind::kFrameBegin, t, {{F::kDomain, U(1)}, {F::kId, Null()}}));
        t += 3 + (i % 5);
        chunk.push_back(Ev(EventKind::kFrameEnd, t, {{F::kDomain, U(1)}, {F::kId, Null()}}));
        t += 2;
      }
      b.Events(0, chunk);
    }
    b.End(t);
    files.push_back(b.bytes());
  }
  EXPECT_TRUE(StatsOnEveryCore(files, size_t{1} << 20));
}

// Outputs that are items (a sink's outputs not apart) given an ordered
// output would be dropped: the caller takes no item as an output then. The
// pass stops instead, and says why.
TEST(Pieces, AnOrderedOutputForOutputsThatAreNotApartStopsThePass) {
  struct Discard final : OrderedOutput {
    void WriteRun(std::string* bytes, uint32_t, size_t) override { bytes->clear(); }
  };
  const std::vector<std::string> files = {RandomTrace(7, TraceOptions())};
  WholeTrace whole(files);
  PieceMerger merger(
      whole.set, [] { return std::make_unique<Recorder>(); }, MergeOptions(), [](const Piece&) {});
  ASSERT_TRUE(merger.exact());
  Discard out;
  merger.set_ordered_output(&out);
  EXPECT_FALSE(merger.exact());
  ASSERT_NE(merger.inexact_reason(), nullptr);
  EXPECT_STREQ(merger.inexact_reason(), "an ordered output for outputs that are not apart");
  PieceMerger::Item item;
  EXPECT_FALSE(merger.Next(&item));
}

// A counter id that its process does not define is undefined in the set
// (counter#0), not the counter another process gave that number: the two
// stay apart, on every core as on one (they used to meet in one value:
// 10, 11, 20 serially; 10, 20, 21 read file by file).
TEST(Pieces, ACounterIdAProcessDoesNotDefineMeetsAnotherProcesssCounter) {
  const auto trace = [](uint32_t pid, bool define, const std::vector<Event>& events) {
    TraceBuilder b(ProcessHeader(pid));
    b.Domain(1, "d1");
    if (define) b.Counter(1, "c", "d1", 1, format::MetadataType::kU64);
    b.Thread(0, pid + 1, "main");
    b.Events(0, events);
    b.End(5000);
    return b.bytes();
  };
  const auto set = [](uint64_t t, uint64_t v) { return CounterSetU64(t, 1, v); };
  const std::map<std::string, std::string> traces = {
      {"run/p100.itt", trace(100, true, {set(1100, 10), set(1300, 20)})},
      {"run/p200.itt",
       trace(200, false, {Ev(EventKind::kCounterInc, 1200, {{F::kCounter, U(1)}})})}};
  const std::vector<std::string> args = {"stats", "--format=csv", "run"};
  const DumpResult one = SameOnEveryCoreAsOnOne(args, traces);
  EXPECT_NE(one.out.find("counters,,counter#0,1,1,1,1\ncounters,d1,c,2,10,20,20\n"),
            std::string::npos)
      << one.out;
}

// Two processes whose module files cannot be read: each is reported once,
// as the first function in it is named, in the serial pass's order of the
// tasks over both processes (here the second file's first).
TEST(Pieces, UnreadableModulesOfTwoProcessesAreReportedInTheSerialOrder) {
  const std::string dir = ::testing::TempDir();
  const auto trace = [&dir](uint32_t pid, const std::string& module, uint64_t begin) {
    const std::string path = dir + "/" + module;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f != nullptr) {
      std::fputs("not an ELF file", f);
      std::fclose(f);
    }
    TraceBuilder b(ProcessHeader(pid));
    b.Domain(1, "d1");
    b.Module(1000, 0x400000, 0x10000, path);
    b.Thread(0, pid + 1, "main");
    b.Events(
        0, {Ev(EventKind::kTaskBeginFn, begin,
               {{F::kDomain, U(1)}, {F::kId, Null()}, {F::kParent, Null()}, {F::kFn, U(0x401234)}}),
            Ev(EventKind::kTaskEnd, begin + 100, {{F::kDomain, U(1)}})});
    b.End(5000);
    return b.bytes();
  };
  const std::map<std::string, std::string> traces = {{"run/p100.itt", trace(100, "a.so", 2000)},
                                                     {"run/p200.itt", trace(200, "b.so", 1000)}};
  const std::vector<std::string> args = {"stats", "run"};
  const DumpResult one = SameOnEveryCoreAsOnOne(args, traces);
  EXPECT_LT(one.err.find("b.so"), one.err.find("a.so")) << one.err;
}

// A verb that writes as it reads (chrome, text) on every core: the pieces
// pair what they can and write those parts on the workers, which go out
// where the serial pass writes them; where the pass cannot be exact, the
// serial pass writes it all again, checks what the first wrote and writes
// the rest.
struct WritingPass {
  bool on_every_core = false;
  uint64_t rewritten = 0;  // what the first pass wrote and the next checked
};
using WritingVerb = absl::StatusOr<PassSummary> (*)(const VerbContext&, uint64_t*);
WritingPass OnEveryCore(WritingVerb verb, const std::vector<std::string>& files,
                        size_t lookahead = MergeOptions().max_buffered_bytes) {
  TraceSet set = OpenSet(files);
  WritingPass result;
  if (set.empty()) return result;
  PassContext pc(set, lookahead);
  absl::StatusOr<PassSummary> pass = verb(pc.ctx, &result.rewritten);
  result.on_every_core = pass.ok() && pass->on_every_core;
  return result;
}
WritingPass ChromeOnEveryCore(const std::vector<std::string>& files,
                              size_t lookahead = MergeOptions().max_buffered_bytes) {
  return OnEveryCore(&WriteChrome, files, lookahead);
}

void ExpectSameChrome(const std::string& bytes, const std::string& what) {
  SameOnEveryCoreAsOnOneEach({{"chrome", "trace.itt"},
                              {"chrome", "--name=t1[23]", "trace.itt"},
                              {"chrome", "--domain=d2", "trace.itt"},
                              {"chrome", "--from=3000", "--to=60000", "--thread=w1", "trace.itt"}},
                             bytes, what);
}

TEST(Pieces, ChromePrintsWhatTheSerialPassPrints) {
  for (uint64_t seed = 640; seed < 650; ++seed) {
    TraceOptions options;
    options.threads = 1 + static_cast<int>(seed % 4);
    options.ids = seed % 2 == 0;
    const std::string bytes = RandomTrace(seed, options);
    ASSERT_TRUE(ChromeOnEveryCore({bytes}).on_every_core) << seed;
    ExpectSameChrome(bytes, "seed " + std::to_string(seed));
  }
}

TEST(Pieces, ChromeOfADamagedTracePrintsWhatTheSerialPassPrints) {
  int on_every_core = 0;
  for (uint64_t seed = 650; seed < 658; ++seed) {
    TraceOptions options;
    options.ids = true;
    const std::string bytes = DamagedTrace(seed, options);
    on_every_core += ChromeOnEveryCore({bytes}).on_every_core ? 1 : 0;
    ExpectSameChrome(bytes, "damaged seed " + std::to_string(seed));
  }
  EXPECT_GT(on_every_core, 4);
}

TEST(Pieces, ChromeOfSeveralFilesPrintsWhatTheSerialPassPrints) {
  for (uint64_t seed = 660; seed < 663; ++seed) {
    const std::vector<std::string> files = RandomSet(seed, 3, /*heap=*/seed % 2 == 1);
    const std::map<std::string, std::string> traces = RunDir(files);
    EXPECT_TRUE(ChromeOnEveryCore(files).on_every_core) << seed;
    SameOnEveryCoreAsOnOne({"chrome", "run"}, traces, std::to_string(seed));
  }
}

// The JSON's closing "pid" is the first file's, whatever was written last
// (here a task that a piece of the second process pairs on a worker, after
// the first process's frame, which the reading thread writes), on every
// core as on one. (It was the process of the last object written, which
// the pass on every core could not always tell: review 47.)
TEST(Pieces, ChromeEndsWithTheFirstFilesPid) {
  const auto process = [](uint32_t pid, const std::vector<Event>& events) {
    TraceBuilder b(ProcessHeader(pid));
    b.Domain(1, "d1").String(10, "t10");
    b.Thread(0, pid + 1, "main");
    b.Events(0, events);
    b.End(5000);
    return b.bytes();
  };
  const std::map<std::string, std::string> traces = {
      {"run/p100.itt",
       process(100, {Ev(EventKind::kFrameBegin, 1100, {{F::kDomain, U(1)}, {F::kId, Null()}}),
                     Ev(EventKind::kFrameEnd, 1200, {{F::kDomain, U(1)}, {F::kId, Null()}})})},
      {"run/p200.itt",
       process(200, {Ev(EventKind::kTaskBegin, 1300, {{F::kDomain, U(1)}, {F::kName, U(10)}}),
                     Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})})}};
  const DumpResult one = SameOnEveryCoreAsOnOne({"chrome", "run"}, traces);
  EXPECT_NE(one.out.find(",\"pid\":100,\"events\":4,"), std::string::npos) << one.out;
}

// PastTheLookaheadTrace: the pass on every core sees it cannot be exact
// before it writes any event.
TEST(Pieces, WhereTheSerialMergePassesItsLookaheadChromeTakesTheSerialPass) {
  const std::string bytes = PastTheLookaheadTrace();
  EXPECT_FALSE(ChromeOnEveryCore({bytes}, size_t{1} << 20).on_every_core);
  EXPECT_TRUE(ChromeOnEveryCore({bytes}).on_every_core);
  const std::vector<std::string> args = {"chrome", "--lookahead-mb=1", "trace.itt"};
  const DumpResult one = SameOnEveryCoreAsOnOne(args, bytes);
  EXPECT_EQ(one.status, 0) << one.err;
}

// vtune-csv's files of `bytes` with `options`, and its status.
absl::Status VtuneFiles(const std::string& bytes, const VtuneOptions& options,
                        std::map<std::string, std::string>* files, bool parallel = true) {
  const std::vector<std::string> traces = {bytes};  // (the set reads them)
  TraceSet set = OpenSet(traces);
  if (set.empty()) return absl::InvalidArgumentError("no trace");
  PassContext pc(set, MergeOptions().max_buffered_bytes);
  pc.ctx.parallel = parallel;
  StringFiles out;
  const absl::Status status = RunVtuneCsv(pc.ctx, options, &out);
  *files = out.files();
  return status;
}

// The counters file's rows wait for its last column in memory, then in a
// temporary file: the same files whichever held them. Where no temporary
// file can be made, the intervals file is whole and the counters file is
// not made: a clear error says why.
TEST(Pieces, VtuneCsvCountersKeptInATemporaryFileAreTheSame) {
  TraceOptions options;
  options.threads = 3;
  const std::string bytes = RandomTrace(686, options);
  std::map<std::string, std::string> in_memory;
  const absl::Status whole = VtuneFiles(bytes, VtuneOptions(), &in_memory);
  ASSERT_TRUE(whole.ok()) << whole;
  ASSERT_EQ(in_memory.size(), 2u);
  const std::string& counters = in_memory.begin()->second;
  ASSERT_NE(in_memory.begin()->first.find("counters"), std::string::npos);
  // Rows enough to go to the file many times over.
  ASSERT_GT(std::count(counters.begin(), counters.end(), '\n'), 50);

  for (const size_t memory : {size_t{1}, size_t{100}, size_t{1000}}) {
    // On a thread of the spool's (on every core) and on the pass's own.
    for (const bool parallel : {true, false}) {
      VtuneOptions spilled;
      spilled.spool_memory = memory;
      std::map<std::string, std::string> files;
      const absl::Status status = VtuneFiles(bytes, spilled, &files, parallel);
      ASSERT_TRUE(status.ok()) << memory << " " << parallel << " " << status;
      EXPECT_EQ(files, in_memory) << memory << " " << parallel;
    }
  }

  // Writes to the temporary file that fail (past a file size limit),
  // the last of them maybe still out as the pass ends: no counters file.
  for (const bool parallel : {true, false}) {
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit small = saved;
    small.rlim_cur = 64;
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    VtuneOptions spilled;
    spilled.spool_memory = 100;
    std::map<std::string, std::string> files;
    const absl::Status status = VtuneFiles(bytes, spilled, &files, parallel);
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_FALSE(status.ok()) << parallel;
    EXPECT_NE(status.message().find("writing the counters' rows to a temporary file"),
              std::string_view::npos)
        << status;
    ASSERT_EQ(files.size(), 1u) << parallel;
    EXPECT_EQ(files.begin()->second, in_memory.rbegin()->second) << parallel;
  }

  const char* tmpdir = std::getenv("TMPDIR");
  const std::string saved = tmpdir != nullptr ? tmpdir : "";
  setenv("TMPDIR", "/nonexistent-dir-of-itt-dump-tests", 1);
  VtuneOptions spilled;
  spilled.spool_memory = 100;
  std::map<std::string, std::string> files;
  const absl::Status status = VtuneFiles(bytes, spilled, &files);
  if (tmpdir != nullptr) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("VTune counters CSV: a temporary file for the counters' rows"),
            std::string_view::npos)
      << status;
  EXPECT_NE(status.message().find("/nonexistent-dir-of-itt-dump-tests"), std::string_view::npos)
      << status;
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files.begin()->second, in_memory.rbegin()->second);
}

// The time of the last thread goes back in the middle of its events: the
// pass on every core has written much of the JSON when it reads that
// chunk; the serial pass writes it again, checks it, and goes on past it.
TEST(Pieces, ChromeOfATraceWhoseTimeGoesBackIsWrittenOnceBySerialPass) {
  TraceOptions options;
  options.time_back = true;
  options.ids = true;
  options.events_per_thread = 4500;
  const std::string bytes = RandomTrace(7, options);
  const WritingPass pass = ChromeOnEveryCore({bytes});
  EXPECT_FALSE(pass.on_every_core);
  EXPECT_GT(pass.rewritten, 100000u);
  ExpectSameChrome(bytes, "time back");
}

// `perfetto` on every core, like chrome: the pieces pair the simple tasks
// and write their begins' and ends' packets, each at its place, on a
// sequence each piece starts again; the serial pass writes the same
// packets there (its classifier: PerfettoExporter::OnSerialEvent).
absl::StatusOr<PassSummary> WritePerfettoUncompressed(const VerbContext& ctx, uint64_t* rewritten) {
  PerfettoOptions options;
  options.compression = PerfettoCompression::kNone;
  return WritePerfetto(ctx, options, rewritten);
}
WritingPass PerfettoOnEveryCore(const std::vector<std::string>& files) {
  return OnEveryCore(&WritePerfettoUncompressed, files);
}

void ExpectSamePerfetto(const std::string& bytes, const std::string& what) {
  SameOnEveryCoreAsOnOneEach(
      {{"perfetto", "--compress=none", "-o", "out.pftrace", "trace.itt"},
       {"perfetto", "-o", "out.pftrace", "trace.itt"},
       {"perfetto", "--compress=none", "--name=t1[23]", "-o", "out.pftrace", "trace.itt"},
       {"perfetto", "--compress=none", "--domain=d2", "-o", "out.pftrace", "trace.itt"},
       {"perfetto", "--compress=none", "--from=3000", "--to=60000", "--thread=w1", "-o",
        "out.pftrace", "trace.itt"}},
      bytes, what);
}

TEST(Pieces, PerfettoWritesWhatTheSerialPassWrites) {
  for (uint64_t seed = 700; seed < 706; ++seed) {
    TraceOptions options;
    options.threads = 1 + static_cast<int>(seed % 4);
    options.ids = seed % 2 == 0;
    const std::string bytes = RandomTrace(seed, options);
    ASSERT_TRUE(PerfettoOnEveryCore({bytes}).on_every_core) << seed;
    ExpectSamePerfetto(bytes, "seed " + std::to_string(seed));
  }
}

// A task_begin_fn of a null function is forwarded as any task_begin_fn
// (by its call): its piece writes nothing for it (review helper 51: the
// piece wrote its begin, the output was dropped, and the piece's sequence
// started again where the serial pass's did not).
TEST(Pieces, PerfettoOfATaskOfANullFunctionWritesWhatTheSerialPassWrites) {
  TraceBuilder b;
  b.String(1, "t1").Domain(1, "d1");
  b.Thread(0, 7, "w1");
  std::vector<format::Event> v;
  for (uint64_t t = 2000; t < 40000; t += 60) {
    v.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
    v.push_back(Ev(EventKind::kTaskBeginFn, t + 10, {{F::kDomain, U(1)}, {F::kFn, U(0)}}));
    v.push_back(Ev(EventKind::kTaskEnd, t + 20, {{F::kDomain, U(1)}}));
    v.push_back(Ev(EventKind::kTaskBegin, t + 30, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
    v.push_back(Ev(EventKind::kTaskEnd, t + 40, {{F::kDomain, U(1)}}));
    v.push_back(Ev(EventKind::kTaskEnd, t + 50, {{F::kDomain, U(1)}}));
  }
  // Chunks of a few hundred events: tasks in them and across them.
  for (size_t at = 0; at < v.size(); at += 300) {
    b.Events(0, std::vector<format::Event>(
                    v.begin() + static_cast<std::ptrdiff_t>(at),
                    v.begin() + static_cast<std::ptrdiff_t>(std::min(at + 300, v.size()))));
  }
  b.End(50000);
  ASSERT_TRUE(PerfettoOnEveryCore({b.bytes()}).on_every_core);
  ExpectSamePerfetto(b.bytes(), "null function");
}

TEST(Pieces, PerfettoOfADamagedTraceWritesWhatTheSerialPassWrites) {
  int on_every_core = 0;
  for (uint64_t seed = 706; seed < 712; ++seed) {
    TraceOptions options;
    options.ids = true;
    const std::string bytes = DamagedTrace(seed, options);
    on_every_core += PerfettoOnEveryCore({bytes}).on_every_core ? 1 : 0;
    SameOnEveryCoreAsOnOne({"perfetto", "--compress=none", "-o", "out.pftrace", "trace.itt"}, bytes,
                           "damaged seed " + std::to_string(seed));
  }
  EXPECT_GT(on_every_core, 2);
}

TEST(Pieces, PerfettoOfSeveralFilesWritesWhatTheSerialPassWrites) {
  for (uint64_t seed = 712; seed < 715; ++seed) {
    const std::vector<std::string> files = RandomSet(seed, 3, /*heap=*/seed % 2 == 1);
    const std::map<std::string, std::string> traces = RunDir(files);
    EXPECT_TRUE(PerfettoOnEveryCore(files).on_every_core) << seed;
    SameOnEveryCoreAsOnOne({"perfetto", "--compress=none", "-o", "out.pftrace", "run"}, traces,
                           std::to_string(seed));
  }
}

// As chrome's: the serial pass writes the trace again, checks what the
// pass on every core wrote (whole blocks of packets of 1 MiB: two here)
// and goes on.
TEST(Pieces, PerfettoOfATraceWhoseTimeGoesBackIsWrittenOnceBySerialPass) {
  TraceOptions options;
  options.time_back = true;
  options.ids = true;
  options.events_per_thread = 100000;
  const std::string bytes = RandomTrace(7, options);
  const WritingPass pass = PerfettoOnEveryCore({bytes});
  EXPECT_FALSE(pass.on_every_core);
  EXPECT_GT(pass.rewritten, 0u);
  SameOnEveryCoreAsOnOne({"perfetto", "--compress=none", "-o", "out.pftrace", "trace.itt"}, bytes,
                         "time back");
}

// `text` on every core, like chrome, and where that cannot be exact on
// two cores (two_passes.h): two passes read every event, each formats
// every other batch of TwoPasses::kBatchEvents events. The output is byte
// for byte the one pass's: with filters, wall-clock times, task_begin_fn
// names, damage and several files.
void ExpectSameText(const std::string& bytes, const std::string& what) {
  SameOnEveryCoreAsOnOneEach({{"text", "trace.itt"},
                              {"text", "--wall", "trace.itt"},
                              {"text", "--name=t1[23]", "trace.itt"},
                              {"text", "--from=3000", "--to=60000", "--thread=w1", "trace.itt"}},
                             bytes, what);
}

TEST(Pieces, TextPrintsWhatOnePassPrints) {
  for (uint64_t seed = 600; seed < 606; ++seed) {
    TraceOptions options;
    options.threads = 1 + static_cast<int>(seed % 4);
    options.events_per_thread = 5 * TwoPasses::kBatchEvents / 2 + seed;
    options.ids = seed % 2 == 0;
    const std::string bytes = RandomTrace(seed, options);
    EXPECT_TRUE(OnEveryCore(&PrintText, {bytes}).on_every_core) << seed;
    ExpectSameText(bytes, "seed " + std::to_string(seed));
  }
}

// The time of the last thread goes back in the middle of its events: the
// pass on every core has written much of the text when it reads that
// chunk; two passes write it again (batches enough for several turns each
// way, and a last one in part), check it and go on past it.
TEST(TwoPasses, TextOfATraceWhoseTimeGoesBackIsWrittenOnceByTwoPasses) {
  for (uint64_t seed = 606; seed < 609; ++seed) {
    TraceOptions options;
    options.threads = 2 + static_cast<int>(seed % 3);
    options.time_back = true;
    options.events_per_thread = 5 * TwoPasses::kBatchEvents / 2 + seed;
    const std::string bytes = RandomTrace(seed, options);
    const WritingPass pass = OnEveryCore(&PrintText, {bytes});
    EXPECT_FALSE(pass.on_every_core) << seed;
    EXPECT_GT(pass.rewritten, 100000u) << seed;
    ExpectSameText(bytes, "time back, seed " + std::to_string(seed));
  }
}

TEST(Pieces, TextOfADamagedTracePrintsWhatOnePassPrints) {
  for (uint64_t seed = 610; seed < 614; ++seed) {
    TraceOptions options;
    options.events_per_thread = 2 * TwoPasses::kBatchEvents;
    const std::string bytes = DamagedTrace(seed, options);
    ExpectSameText(bytes, "damaged seed " + std::to_string(seed));
  }
}

// Files of two hosts are placed by wall clock, through clocks the set
// shares: text takes one pass (two would race on their caches).
TEST(TwoPasses, TextOfFilesOfSeveralHostsPrintsWhatOnePassPrints) {
  TraceOptions a;
  TraceOptions b;
  b.host = "otherhost";
  b.pid = 4343;
  a.events_per_thread = b.events_per_thread = 3 * TwoPasses::kBatchEvents;
  const std::map<std::string, std::string> traces = {{"run/a.itt", RandomTrace(630, a)},
                                                     {"run/b.itt", RandomTrace(631, b)}};
  const DumpResult one = SameOnEveryCoreAsOnOne({"text", "run"}, traces);
  EXPECT_EQ(one.status, 0);
}

TEST(Pieces, TextOfSeveralFilesPrintsWhatOnePassPrints) {
  for (uint64_t seed = 620; seed < 623; ++seed) {
    const std::vector<std::string> files = RandomSet(seed, 3, /*heap=*/seed % 2 == 1);
    const std::map<std::string, std::string> traces = RunDir(files);
    SameOnEveryCoreAsOnOne({"text", "run"}, traces, std::to_string(seed));
  }
}

// `vtune-csv` on every core, like chrome: each of its files (the
// intervals, then the counters, a pass each) is written on every core
// where that can be exact, else by the serial pass, which checks what the
// first wrote; both files byte for byte the serial pass's.
void ExpectSameVtune(const std::string& bytes, const std::string& what) {
  const DumpResult one = SameOnEveryCoreAsOnOne({"vtune-csv", "-o", "d", "trace.itt"}, bytes, what);
  EXPECT_EQ(one.files.size(), 2u) << what;  // intervals and counters
  SameOnEveryCoreAsOnOneEach(
      {{"vtune-csv", "--name=t1[23]", "-o", "d", "trace.itt"},
       {"vtune-csv", "--domain=d2", "-o", "d", "trace.itt"},
       {"vtune-csv", "--from=3000", "--to=60000", "--thread=w1", "-o", "d", "trace.itt"}},
      bytes, what);
}

TEST(Pieces, VtuneCsvWritesWhatTheSerialPassWrites) {
  for (uint64_t seed = 670; seed < 676; ++seed) {
    TraceOptions options;
    options.threads = 1 + static_cast<int>(seed % 4);
    options.ids = seed % 2 == 0;
    const std::string bytes = RandomTrace(seed, options);
    const VtunePasses passes = VtuneOnEveryCore({bytes});
    EXPECT_TRUE(passes.intervals_on_every_core) << seed;
    ExpectSameVtune(bytes, "seed " + std::to_string(seed));
  }
}

TEST(Pieces, VtuneCsvOfADamagedTraceWritesWhatTheSerialPassWrites) {
  int on_every_core = 0;
  for (uint64_t seed = 676; seed < 682; ++seed) {
    TraceOptions options;
    options.ids = true;
    const std::string bytes = DamagedTrace(seed, options);
    on_every_core += VtuneOnEveryCore({bytes}).intervals_on_every_core ? 1 : 0;
    SameOnEveryCoreAsOnOne({"vtune-csv", "-o", "d", "trace.itt"}, bytes,
                           "damaged seed " + std::to_string(seed));
  }
  EXPECT_GT(on_every_core, 2);
}

TEST(Pieces, VtuneCsvOfSeveralFilesWritesWhatTheSerialPassWrites) {
  for (uint64_t seed = 682; seed < 685; ++seed) {
    const std::vector<std::string> files = RandomSet(seed, 3, /*heap=*/seed % 2 == 1);
    const std::map<std::string, std::string> traces = RunDir(files);
    const VtunePasses passes = VtuneOnEveryCore(files);
    EXPECT_TRUE(passes.intervals_on_every_core) << seed;
    const DumpResult one =
        SameOnEveryCoreAsOnOne({"vtune-csv", "-o", "d", "run"}, traces, std::to_string(seed));
    EXPECT_EQ(one.files.size(), 2u) << seed;
  }
}

// The time of the last thread goes back in the middle of its events: the
// pass on every core has written much of the intervals file when it reads
// that chunk; the serial pass writes it again, checks it, and goes on past
// it (making the counters' rows again).
TEST(Pieces, VtuneCsvOfATraceWhoseTimeGoesBackIsWrittenOnceBySerialPasses) {
  TraceOptions options;
  options.time_back = true;
  options.ids = true;
  options.events_per_thread = 4000;
  const std::string bytes = RandomTrace(7, options);
  const VtunePasses passes = VtuneOnEveryCore({bytes});
  EXPECT_FALSE(passes.intervals_on_every_core);
  EXPECT_GT(passes.intervals_rewritten, 20000u);
  ExpectSameVtune(bytes, "time back");
}

// `parquet` on every core: the pieces pair their simple tasks and make
// their slices' rows on the workers, numbered from their threads' counts
// before them; the reading thread adds them where the serial pass makes
// them, with the depth and parent of the whole trace. Every table is the
// serial pass's byte for byte. A pass that cannot go on exactly leaves
// nothing of its own (FilesUnder would see a temporary file).
bool ParquetOnEveryCore(const std::vector<std::string>& files, const std::string& dir) {
  TraceSet set = OpenSet(files);
  if (set.empty()) return false;
  PassContext pc(set, MergeOptions().max_buffered_bytes);
  ParquetOptions options;
  options.dir = dir;
  bool on_every_core = false;
  const absl::Status status = RunParquet(pc.ctx, options, &on_every_core);
  EXPECT_TRUE(status.ok()) << status;
  return on_every_core;
}

// The dataset of `args` (a parquet command line without -o) on every core
// and on one, for each of the filters.
void ExpectSameParquet(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& traces, const std::string& what) {
  const std::vector<std::vector<std::string>> filters = {
      {}, {"--name=t1[23]"}, {"--domain=d2"}, {"--from=3000", "--to=60000", "--thread=w1"}};
  for (size_t f = 0; f < filters.size(); ++f) {
    std::vector<std::string> run = args;
    run.insert(run.begin() + 1, filters[f].begin(), filters[f].end());
    const std::string dir = "pq_" + std::to_string(f);
    const DumpResult all = RunDumpToDir(run, traces, dir + "_all", false);
    const DumpResult one = RunDumpToDir(run, traces, dir + "_one", true);
    EXPECT_EQ(all.status, 0) << what << " " << f << ": " << all.err;
    EXPECT_EQ(one.status, 0) << what << " " << f << ": " << one.err;
    EXPECT_GE(all.files.size(), 8u) << what << " " << f;  // a file per table (and partition)
    EXPECT_TRUE(all.files == one.files) << what << " " << f;
  }
}

TEST(Pieces, ParquetWritesWhatTheSerialPassWrites) {
  for (uint64_t seed = 690; seed < 696; ++seed) {
    TraceOptions options;
    options.threads = 1 + static_cast<int>(seed % 4);
    options.ids = seed % 2 == 0;
    options.heap = seed % 3 == 0;
    const std::string bytes = RandomTrace(seed, options);
    EXPECT_TRUE(ParquetOnEveryCore({bytes}, TestTempPath("pq_check"))) << seed;
    ExpectSameParquet({"parquet", "trace.itt"}, {{"trace.itt", bytes}},
                      "seed " + std::to_string(seed));
  }
}

TEST(Pieces, ParquetOfADamagedTraceWritesWhatTheSerialPassWrites) {
  int on_every_core = 0;
  for (uint64_t seed = 696; seed < 700; ++seed) {
    TraceOptions options;
    options.ids = true;
    const std::string bytes = DamagedTrace(seed, options);
    on_every_core += ParquetOnEveryCore({bytes}, TestTempPath("pq_check")) ? 1 : 0;
    ExpectSameParquet({"parquet", "trace.itt"}, {{"trace.itt", bytes}},
                      "damaged seed " + std::to_string(seed));
  }
  EXPECT_GT(on_every_core, 1);
}

TEST(Pieces, ParquetOfSeveralFilesWritesWhatTheSerialPassWrites) {
  for (uint64_t seed = 700; seed < 703; ++seed) {
    const std::vector<std::string> files = RandomSet(seed, 3, /*heap=*/seed % 2 == 1);
    const std::map<std::string, std::string> traces = RunDir(files);
    EXPECT_TRUE(ParquetOnEveryCore(files, TestTempPath("pq_check"))) << seed;
    ExpectSameParquet({"parquet", "run"}, traces, std::to_string(seed));
  }
}

// parquet's batched tables are written at once, each by a thread of its
// own, a batch of rows at a time: with many small batches and row groups
// (a table's rows of one batch crossing row groups, a batch reused once
// every table has written it) the dataset is the one the reading thread
// writes alone, with batches of the default size.
TEST(Pieces, ParquetTablesWrittenAtOnceAreTheTablesWrittenOnOneThread) {
  for (uint64_t seed = 704; seed < 706; ++seed) {
    const std::vector<std::string> files = RandomSet(seed, 3, /*heap=*/true);
    std::map<std::string, std::string> datasets[2];
    for (int threads = 0; threads < 2; ++threads) {
      TraceSet set = OpenSet(files);
      ASSERT_FALSE(set.empty());
      PassContext pc(set, MergeOptions().max_buffered_bytes);
      ParquetOptions options;
      options.dir = TestTempPath("pq_tables_" + std::to_string(threads));
      options.encoder_threads = threads == 0 ? 0 : 2;
      options.row_group_rows = 300;
      if (threads != 0) options.batch_rows = 37;
      const absl::Status status = RunParquet(pc.ctx, options);
      ASSERT_TRUE(status.ok()) << status;
      datasets[threads] = FilesUnder(options.dir);
    }
    // Several batches and row groups of the slice table in each partition.
    EXPECT_GT(datasets[0].size(), 8u) << seed;
    for (const auto& [path, bytes] : datasets[0]) {
      if (path.rfind("slice/", 0) == 0) {
        EXPECT_GT(bytes.size(), 2000u) << path;
      }
    }
    EXPECT_TRUE(datasets[0] == datasets[1]) << seed;
  }
}

// Time goes back in the middle of the last thread's events: the pass on
// every core has made rows when it reads that chunk, drops them, and the
// serial pass writes the dataset.
TEST(Pieces, ParquetOfATraceWhoseTimeGoesBackIsWrittenBySerialPass) {
  TraceOptions options;
  options.time_back = true;
  options.ids = true;
  options.events_per_thread = 4000;
  const std::string bytes = RandomTrace(7, options);
  EXPECT_FALSE(ParquetOnEveryCore({bytes}, TestTempPath("pq_check")));
  ExpectSameParquet({"parquet", "trace.itt"}, {{"trace.itt", bytes}}, "time back");
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
