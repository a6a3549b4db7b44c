// Heap calls as allocations: the one place that pairs __itt_heap_allocate,
// reallocate and free by address. stats reads per-function totals from
// here; a leak report reads what is still live at the end.
//
// Only the *_end kinds carry the outcome (the address), so only they are
// consumed. An allocation at an address that is still live (a free the
// trace did not see) first releases the old block. A free of an unknown
// address releases nothing and is counted, never fatal; a free of address
// 0 does nothing. An allocation that returned 0 failed and allocated
// nothing (size 0); a reallocation that returned 0 for a nonzero size
// failed too: it releases and allocates nothing (for size 0 it is a free).
//
// Thread safety: none. Memory: one entry per live allocation, at most
// kMaxLive (past it new allocations are counted, not tracked).

#ifndef TOOLS_ITT_DUMP_MODEL_HEAP_H_
#define TOOLS_ITT_DUMP_MODEL_HEAP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "format/schema.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

struct Allocation {
  uint64_t addr = 0;
  uint64_t size = 0;
  uint64_t function = 0;              // kDefHeapFunction id
  const ThreadRec* thread = nullptr;  // the thread that allocated it
  uint64_t ticks = 0;                 // when
  // 1, 2, ... for each block made live, in order: the block's identity
  // for a consumer that names blocks (the parquet export's heap table).
  uint64_t serial = 0;
};

// What one heap event did. Each block means something only where its flag
// (released, replaced, allocated) is set: OnEvent leaves the others as
// they were.
struct HeapChange {
  enum class Kind { kAllocate, kFree, kReallocate };
  Kind kind = Kind::kAllocate;
  uint64_t function = 0;  // the event's heap function
  uint64_t size = 0;      // bytes requested (allocate, reallocate), else 0
  // The block the event freed, or the one a reallocation moved.
  bool released = false;
  Allocation released_block;
  // A block still live at the address the event allocated at: its free
  // was not seen, and the new block replaces it.
  bool replaced = false;
  Allocation replaced_block;
  // The block the event made live (an allocation or reallocation with a
  // nonzero address that was tracked).
  bool allocated = false;
  Allocation allocated_block;
};

bool IsHeapChangeKind(format::EventKind kind);

class HeapTracker;

// The heap calls of one stretch of the trace (PieceMerger's stretches),
// paired by address among themselves as HeapTracker pairs them. The first
// call at an address in the stretch (a free, a reallocation's old or new
// address, an allocation) may meet a block of before the stretch, which
// it releases: that part of it is left for HeapTracker::JoinStretch, in
// order, as the stretch's points.
//
// Thread safety: none (one stretch, on one thread, at a time).
class HeapStretch {
 public:
  void Clear();
  // Like HeapTracker::OnEvent, for the same kinds: *change as it gives it,
  // except that what the call releases at an address new to the stretch
  // is left out (released or replaced false): it is the stretch's next
  // point (points() grows by one, or two for a reallocation), before the
  // rest of the change; and the serials of the blocks it makes live count
  // from the stretch's start (JoinStretch makes them the tracker's).
  bool OnEvent(const format::Event& e, const ThreadRec& t, HeapChange* change);
  size_t points() const { return points_.size(); }

 private:
  friend class HeapTracker;
  struct Point {
    uint64_t addr;
    bool counts_unknown;  // a free: finding no block there is counted
  };
  struct Local {
    bool live = false;
    Allocation block;
  };
  // At `addr`: releases the stretch's block there into *block, or makes
  // the address a point; false if it released nothing. *at: the address's
  // entry (valid until the next call).
  bool Release(uint64_t addr, bool counts_unknown, Allocation* block, Local** at);
  U64Map<Local> local_;  // the addresses it has seen
  std::vector<Point> points_;
  uint64_t allocations_ = 0;  // blocks it made live (their serials: 1, 2...)
  uint64_t unknown_frees_ = 0;
};

class HeapTracker {
 public:
  static constexpr size_t kMaxLive = 10000000;

  // Applies a heap_*_end event; false (and nothing changes) for other kinds.
  bool OnEvent(const format::Event& e, const ThreadRec& t, HeapChange* change);

  // Blocks allocated and not yet freed, by address.
  const absl::flat_hash_map<uint64_t, Allocation>& live() const { return live_; }
  uint64_t untracked_allocations() const { return untracked_; }
  // Joins `stretch` (HeapStretch): for its points in order, releases the
  // block live at each one's address, if any, and calls on_point(i,
  // block) with it (null if none); then the blocks the stretch left live
  // are live here, numbered after the tracker's own (serial). False, and
  // nothing changes, where OnEvent could meet kMaxLive on the way: then
  // the caller feeds the stretch's calls to OnEvent, and drops what the
  // stretch made of them.
  template <typename OnPoint>
  bool JoinStretch(const HeapStretch& stretch, OnPoint&& on_point) {
    if (live_.size() + stretch.allocations_ >= kMaxLive) return false;
    for (size_t i = 0; i < stretch.points_.size(); ++i) {
      const HeapStretch::Point& p = stretch.points_[i];
      Allocation block;
      if (Release(p.addr, &block)) {
        on_point(i, &block);
      } else {
        if (p.counts_unknown) ++unknown_frees_;
        on_point(i, static_cast<const Allocation*>(nullptr));
      }
    }
    // Every address the stretch saw was a point first: none is live here.
    for (const auto& [addr, local] : stretch.local_.entries()) {
      if (!local.live) continue;
      Allocation& block = live_[addr];
      block = local.block;
      block.serial += serial_;  // the stretch counts from its start
    }
    serial_ += stretch.allocations_;
    unknown_frees_ += stretch.unknown_frees_;
    return true;
  }
  uint64_t unknown_frees() const { return unknown_frees_; }

 private:
  // Removes the block at `addr` into *block; false if none is live there.
  bool Release(uint64_t addr, Allocation* block);

  absl::flat_hash_map<uint64_t, Allocation> live_;
  uint64_t untracked_ = 0;
  uint64_t unknown_frees_ = 0;
  uint64_t serial_ = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_HEAP_H_
