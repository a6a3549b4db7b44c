// What stats makes of a stretch of what the pieces keep apart (pieces.h,
// ApartConsumer): the frames it pairs, and, for one file, the heap calls
// and counter changes, summed up on a worker (Stretch) and joined in order
// on the reading thread (JoinStretch), with the same results as the serial
// pass's. (Sync waits pair per thread: each piece takes its own,
// TakesForwarded, and the reading thread joins the pieces: MergeSyncWaits.)
//
// Heap: a function's live bytes, and so their peak, follow its calls in
// the merge's order. A stretch knows every call's change but what the
// first call at each address releases of a block before the stretch (the
// model's HeapStretch leaves those for the join, as its points); so it
// keeps, between points, each function's change of live bytes and its
// highest point after an allocation, and the join walks those with the
// points' releases in between.

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "tools/itt_dump/stats.h"
#include "tools/itt_dump/stats_rows.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;
using stats_internal::Family;
using stats_internal::FamilyOf;

class StatsCollector::Stretch final : public ApartStretch {
 public:
  explicit Stretch(const StatsCollector& whole) : rows(EmptyLike(whole)) {
    counters.set_index(&whole.x_);
    Clear();
  }

  // The frames the stretch pairs.
  void OnInterval(const Interval& iv) override { rows->OnInterval(iv); }
  void OnRecord(const Event& e, const ThreadRec& t) override;
  void Clear() {
    rows = EmptyLike(*rows);
    heap.Clear();
    counters.Clear();
    deltas.clear();
    segment_starts.assign(1, 0);
    counter_rows.clear();
  }

  // A function's change of live bytes over a segment, and the most it
  // reached after an allocation the filters keep (if `allocated`), from
  // the segment's start.
  struct LiveDelta {
    uint64_t function = 0;
    int64_t delta = 0;
    int64_t peak = 0;
    bool allocated = false;
  };
  // To the last segment; `peak`: an allocation the filters keep, where the
  // peak is taken.
  void AddLive(uint64_t function, int64_t bytes, bool peak) {
    const auto first = deltas.begin() + static_cast<std::ptrdiff_t>(segment_starts.back());
    auto it = std::find_if(first, deltas.end(),
                           [function](const LiveDelta& d) { return d.function == function; });
    if (it == deltas.end()) it = deltas.insert(deltas.end(), LiveDelta{function});
    it->delta += bytes;
    if (peak) {
      it->peak = it->allocated ? std::max(it->peak, it->delta) : it->delta;
      it->allocated = true;
    }
  }

  // Its frame rows and heap rows (counts and bytes).
  std::unique_ptr<StatsCollector> rows;
  HeapStretch heap;
  CounterStretch counters;
  // Segment i, the live deltas before heap point i (the last: after every
  // point): deltas from segment_starts[i] to the next segment's start.
  std::vector<LiveDelta> deltas;
  std::vector<size_t> segment_starts;
  // The samples of counters whose value it knows, by counter key.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, CounterRow> counter_rows;
};

void StatsCollector::Stretch::OnRecord(const Event& e, const ThreadRec& t) {
  switch (FamilyOf(e.kind)) {
    case Family::kHeap: {
      // As OnHeap: every call paired and followed, the kept ones counted,
      // the peak taken at their allocations.
      const bool kept = rows->HeapKept(e, t);
      HeapChange c;
      if (!heap.OnEvent(e, t, &c)) return;
      if (kept) rows->CountHeap(c);
      // The call's points come before the rest of its change.
      while (segment_starts.size() <= heap.points()) segment_starts.push_back(deltas.size());
      if (c.released) {
        AddLive(c.released_block.function, -static_cast<int64_t>(c.released_block.size), false);
      }
      if (c.replaced) {
        AddLive(c.replaced_block.function, -static_cast<int64_t>(c.replaced_block.size), false);
      }
      if (c.allocated) AddLive(c.function, static_cast<int64_t>(c.size), /*peak=*/kept);
      return;
    }
    case Family::kCounter: {
      CounterChange c;
      bool known = false;
      long double value = 0;
      if (!counters.OnEvent(e, t, &c, &known, &value) || !known) return;
      // The value follows every change; only the samples the filters keep
      // count (OnCounter; no name or domain filter here: KeepsApart).
      Filter& filter = rows->filter_;
      if (filter.active() && (!filter.ThreadOk(t) || !filter.TimeOk(format::EffectiveTime(e)))) {
        return;
      }
      AddSample(value, &counter_rows[std::make_tuple(c.key_kind, c.a, c.b)]);
      return;
    }
    default:
      return;  // (KeepsApart keeps no other kind)
  }
}

bool StatsCollector::KeepsApart(EventKind kind) const {
  if (!keep_apart_) return false;
  switch (FamilyOf(kind)) {
    case Family::kHeap:
    case Family::kCounter:
      return !filter_.has_name() && !filter_.has_domain();
    default:
      return false;
  }
}

std::unique_ptr<ApartStretch> StatsCollector::NewStretch() {
  return std::make_unique<Stretch>(*this);
}

void StatsCollector::JoinStretch(ApartStretch* stretch, bool frames_joined,
                                 const StretchRecords& records) {
  Stretch& s = static_cast<Stretch&>(*stretch);
  const StatsCollector& r = *s.rows;
  if (frames_joined) MergeIntervals(r);

  // Segment i of the stretch (OnRecord makes one per point, and one more).
  const auto apply = [this, &s](size_t i) {
    const size_t end = i + 1 < s.segment_starts.size() ? s.segment_starts[i + 1] : s.deltas.size();
    for (size_t k = s.segment_starts[i]; k < end; ++k) {
      const Stretch::LiveDelta& d = s.deltas[k];
      HeapRow* row = HeapRowFor(d.function);
      if (d.allocated) {
        row->peak =
            std::max(row->peak, static_cast<uint64_t>(static_cast<int64_t>(row->live) + d.peak));
      }
      row->live = static_cast<uint64_t>(static_cast<int64_t>(row->live) + d.delta);
    }
  };
  const bool heap_joined =
      heap_tracker_.JoinStretch(s.heap, [&](size_t i, const Allocation* block) {
        apply(i);
        if (block != nullptr) {
          HeapRow* owner = HeapRowFor(block->function);
          owner->live -= std::min(owner->live, block->size);
        }
      });
  if (heap_joined) {
    apply(s.heap.points());
    for (const auto& [fn, from] : r.heap_.entries()) {
      HeapRow* row = HeapRowFor(fn);
      row->allocations += from->allocations;
      row->reallocs += from->reallocs;
      row->frees += from->frees;
      row->bytes += from->bytes;
      row->used = row->used || from->used;
    }
  } else {
    // Where the tracker could pass its limit: call by call.
    records.ForEachRecord([this](const Event& e, const ThreadRec& t) {
      if (FamilyOf(e.kind) == Family::kHeap) OnHeap(e, t);
    });
  }

  counter_tracker_.JoinStretch(s.counters, [this](const CounterSample& sample, const ThreadRec& t) {
    OnCounter(sample, t);
  });
  for (const auto& [key, from] : s.counter_rows) {
    if (from.samples == 0) continue;
    CounterChange c;
    std::tie(c.key_kind, c.a, c.b) = key;
    const Counter* counter = counter_tracker_.Find(c);
    if (counter_rows_.size() <= counter->index) counter_rows_.resize(counter->index + 1);
    CounterRow& row = counter_rows_[counter->index];
    row.Add(from.samples, from.ordered, from.min, from.max, from.last);
  }
  s.Clear();
}

}  // namespace itt_dump
}  // namespace ittc
