// HandleIds: the ids of handles whose structs cannot say whether we made
// them (an ABI struct, as __itt_track, with no room for a mark), found by
// address without reading the handle: a call given a pointer that is no
// handle of ours (freed, foreign, garbage) is counted, never a fault.
//
// An open-addressing table of addresses, grown by doubling into a new table
// that replaces the old; the old ones are kept until the process ends (a
// reader may still hold one), so memory stays within twice the last.
//
// Thread safety: Find from any thread, lock-free; Insert under the caller's
// lock (one inserter at a time).

#ifndef COLLECTOR_INTERNAL_HANDLE_IDS_H_
#define COLLECTOR_INTERNAL_HANDLE_IDS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace ittc::collector_internal {

class HandleIds {
 public:
  // The id `handle` was inserted with, or 0.
  uint32_t Find(const void* handle) const {
    const Table* t = table_.load(std::memory_order_acquire);
    if (t == nullptr || handle == nullptr) return 0;
    for (size_t i = Slot(handle, t->mask);; i = (i + 1) & t->mask) {
      // Acquire pairs with Insert's release: the id is there.
      const void* key = t->slots[i].key.load(std::memory_order_acquire);
      if (key == handle) return t->slots[i].id.load(std::memory_order_relaxed);
      if (key == nullptr) return 0;
    }
  }

  // Adds `handle` (not yet in) with `id` (nonzero); false out of memory.
  bool Insert(const void* handle, uint32_t id) {
    Table* t = table_.load(std::memory_order_relaxed);
    if (t == nullptr || (count_ + 1) * 2 > t->mask + 1) {
      t = Grown(t);
      if (t == nullptr) return false;
    }
    Put(t, handle, id);
    ++count_;
    return true;
  }

 private:
  struct Slot_ {
    std::atomic<const void*> key{nullptr};
    std::atomic<uint32_t> id{0};
  };
  struct Table {
    size_t mask = 0;
    std::unique_ptr<Slot_[]> slots;
  };

  static size_t Slot(const void* handle, size_t mask) {
    const uint64_t h = reinterpret_cast<uintptr_t>(handle) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> 32) & mask;
  }
  static void Put(Table* t, const void* handle, uint32_t id) {
    size_t i = Slot(handle, t->mask);
    while (t->slots[i].key.load(std::memory_order_relaxed) != nullptr) i = (i + 1) & t->mask;
    t->slots[i].id.store(id, std::memory_order_relaxed);
    t->slots[i].key.store(handle, std::memory_order_release);
  }
  // A table twice the size of `old` (64 slots at first) holding its
  // entries, published; null out of memory.
  Table* Grown(const Table* old) {
    const size_t size = old == nullptr ? 64 : (old->mask + 1) * 2;
    auto t = std::unique_ptr<Table>(new (std::nothrow) Table());
    if (t == nullptr) return nullptr;
    t->slots.reset(new (std::nothrow) Slot_[size]);
    if (t->slots == nullptr) return nullptr;
    t->mask = size - 1;
    if (old != nullptr) {
      for (size_t i = 0; i <= old->mask; ++i) {
        const void* key = old->slots[i].key.load(std::memory_order_relaxed);
        if (key != nullptr) Put(t.get(), key, old->slots[i].id.load(std::memory_order_relaxed));
      }
    }
    Table* made = t.get();
    tables_.push_back(std::move(t));
    table_.store(made, std::memory_order_release);
    return made;
  }

  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // every table made
  size_t count_ = 0;
};

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_HANDLE_IDS_H_
