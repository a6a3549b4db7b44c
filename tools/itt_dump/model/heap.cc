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

bool HeapTracker::OnEvent(const format::Event& e, const ThreadRec& t, HeapChange* c) {
  if (!IsHeapChangeKind(e.kind)) return false;
  *c = HeapChange();
  c->function = e.Get(F::kFunction);
  uint64_t addr = 0;  // of the block made live
  switch (e.kind) {
    case EventKind::kHeapAllocateEnd:
      c->kind = HeapChange::Kind::kAllocate;
      addr = e.Get(F::kAddr);
      c->size = e.Get(F::kSize);
      break;
    case EventKind::kHeapFreeEnd:
      c->kind = HeapChange::Kind::kFree;
      c->released = Release(e.Get(F::kAddr), &c->released_block);
      if (!c->released) ++unknown_frees_;
      return true;
    default:  // kHeapReallocateEnd
      c->kind = HeapChange::Kind::kReallocate;
      c->released = Release(e.Get(F::kAddr), &c->released_block);
      addr = e.Get(F::kNewAddr);
      c->size = e.Get(F::kNewSize);
      break;
  }
  if (addr == 0) return true;
  c->replaced = Release(addr, &c->replaced_block);
  if (live_.size() >= kMaxLive) {
    ++untracked_;
    return true;
  }
  Allocation& a = live_[addr];
  a.addr = addr;
  a.size = c->size;
  a.function = c->function;
  a.thread = &t;
  a.ticks = e.time;
  a.serial = ++serial_;
  c->allocated = true;
  c->allocated_block = a;
  return true;
}

}  // namespace itt_dump
}  // namespace ittc
