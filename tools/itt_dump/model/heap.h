// Heap calls as allocations: the one place that pairs __itt_heap_allocate,
// reallocate and free by address. stats reads per-function totals from
// here; a leak report reads what is still live at the end.
//
// Only the *_end kinds carry the outcome (the address), so only they are
// consumed. An allocation at an address that is still live (a free the
// trace did not see) first releases the old block. A free of an unknown
// address releases nothing and is counted, never fatal.
//
// Thread safety: none. Memory: one entry per live allocation, at most
// kMaxLive (past it new allocations are counted, not tracked).

#ifndef TOOLS_ITT_DUMP_MODEL_HEAP_H_
#define TOOLS_ITT_DUMP_MODEL_HEAP_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "format/schema.h"
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

// What one heap event did.
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

class HeapTracker {
 public:
  static constexpr size_t kMaxLive = 10000000;

  // Applies a heap_*_end event; false (and nothing changes) for other kinds.
  bool OnEvent(const format::Event& e, const ThreadRec& t, HeapChange* change);

  // Blocks allocated and not yet freed, by address.
  const std::unordered_map<uint64_t, Allocation>& live() const { return live_; }
  uint64_t untracked_allocations() const { return untracked_; }
  uint64_t unknown_frees() const { return unknown_frees_; }

 private:
  // Removes the block at `addr` into *block; false if none is live there.
  bool Release(uint64_t addr, Allocation* block);

  std::unordered_map<uint64_t, Allocation> live_;
  uint64_t untracked_ = 0;
  uint64_t unknown_frees_ = 0;
  uint64_t serial_ = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_HEAP_H_
