#include "tools/itt_dump/model/heap.h"

namespace ittc {
namespace itt_dump {

using format::EventKind;
using F = format::Field;

bool IsHeapChangeKind(EventKind kind) {
  return kind == EventKind::kHeapAllocateEnd || kind == EventKind::kHeapFreeEnd ||
         kind == EventKind::kHeapReallocateEnd;
}

bool HeapTracker::Release(uint64_t addr, Allocation* block) {
  auto it = live_.find(addr);
  if (it == live_.end()) return false;
  *block = it->second;
  live_.erase(it);
  return true;
}

namespace {

// The addresses a heap call touches: the one it releases (a free's, a
// reallocation's old one; none for an allocation) and the one it makes
// live (0: none).
struct HeapCallAddrs {
  bool releases = false;
  uint64_t released = 0;
  uint64_t made_live = 0;
};

// A heap_*_end event's change as far as the event alone tells it (kind,
// function, size) into *c, and its addresses. REQUIRES:
// IsHeapChangeKind(e.kind).
HeapCallAddrs DecodeHeapCall(const format::Event& e, HeapChange* c) {
  // (Only the flags and scalars: a block is read only where its flag is set.)
  c->size = 0;
  c->released = false;
  c->replaced = false;
  c->allocated = false;
  c->function = e.Get(F::kFunction);
  HeapCallAddrs a;
  switch (e.kind) {
    case EventKind::kHeapAllocateEnd:
      // One that returned address 0 failed and allocated nothing.
      c->kind = HeapChange::Kind::kAllocate;
      a.made_live = e.Get(F::kAddr);
      c->size = a.made_live != 0 ? e.Get(F::kSize) : 0;
      break;
    case EventKind::kHeapFreeEnd:
      // free(NULL) does nothing.
      c->kind = HeapChange::Kind::kFree;
      a.released = e.Get(F::kAddr);
      a.releases = a.released != 0;
      break;
    default:  // kHeapReallocateEnd
      c->kind = HeapChange::Kind::kReallocate;
      a.released = e.Get(F::kAddr);
      a.made_live = e.Get(F::kNewAddr);
      c->size = e.Get(F::kNewSize);
      // realloc(NULL, n) releases nothing; one that returned NULL for n > 0
      // failed and left the block where it was (n == 0: freed it), and
      // allocated nothing.
      a.releases = a.released != 0 && (a.made_live != 0 || c->size == 0);
      if (a.made_live == 0) c->size = 0;
      break;
  }
  return a;
}

// Makes *block the block the call *c made live at `addr` (the `serial`-th
// made live), and notes it in *c.
void MakeLive(uint64_t addr, const ThreadRec& t, uint64_t ticks, uint64_t serial, HeapChange* c,
              Allocation* block) {
  block->addr = addr;
  block->size = c->size;
  block->function = c->function;
  block->thread = &t;
  block->ticks = ticks;
  block->serial = serial;
  c->allocated = true;
  c->allocated_block = *block;
}

}  // namespace

bool HeapTracker::OnEvent(const format::Event& e, const ThreadRec& t, HeapChange* c) {
  if (!IsHeapChangeKind(e.kind)) return false;
  const HeapCallAddrs calls = DecodeHeapCall(e, c);
  if (calls.releases) {
    c->released = Release(calls.released, &c->released_block);
    if (!c->released && c->kind == HeapChange::Kind::kFree) ++unknown_frees_;
  }
  const uint64_t addr = calls.made_live;
  if (addr == 0) return true;
  c->replaced = Release(addr, &c->replaced_block);
  if (live_.size() >= kMaxLive) {
    ++untracked_;
    return true;
  }
  MakeLive(addr, t, e.time, ++serial_, c, &live_[addr]);
  return true;
}

void HeapStretch::Clear() {
  local_.clear();
  points_.clear();
  allocations_ = 0;
  unknown_frees_ = 0;
}

bool HeapStretch::Release(uint64_t addr, bool counts_unknown, Allocation* block, Local** at) {
  const auto [local, first] = local_.Insert(addr);
  *at = local;
  Local& l = *local;
  if (first) {
    points_.push_back({addr, counts_unknown});
    return false;
  }
  if (!l.live) {
    if (counts_unknown) ++unknown_frees_;
    return false;
  }
  *block = l.block;
  l.live = false;
  return true;
}

bool HeapStretch::OnEvent(const format::Event& e, const ThreadRec& t, HeapChange* c) {
  if (!IsHeapChangeKind(e.kind)) return false;
  const HeapCallAddrs calls = DecodeHeapCall(e, c);
  Local* at;
  if (calls.releases) {
    c->released = Release(calls.released, /*counts_unknown=*/c->kind == HeapChange::Kind::kFree,
                          &c->released_block, &at);
  }
  const uint64_t addr = calls.made_live;
  if (addr == 0) return true;
  c->replaced = Release(addr, /*counts_unknown=*/false, &c->replaced_block, &at);
  // (The join declines where the tracker could pass kMaxLive.)
  at->live = true;
  MakeLive(addr, t, e.time, ++allocations_, c, &at->block);
  return true;
}

}  // namespace itt_dump
}  // namespace ittc
