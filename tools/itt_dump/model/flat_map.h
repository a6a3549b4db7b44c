// A small open-addressing hash map from 64-bit keys to values, for the
// per-event lookups of itt-dump (names by id, statistics by key), where
// std::unordered_map's node allocation and pointer chasing cost more than
// the decoding does.
//
// Entries are kept in insertion order in a std::deque, so pointers to values
// stay valid while the map grows and iteration order is deterministic.
// Cost: Find is one multiply-shift hash and a short linear probe of
// pointers to the entries.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_FLAT_MAP_H_
#define TOOLS_ITT_DUMP_MODEL_FLAT_MAP_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace ittc {
namespace itt_dump {

template <typename V>
class U64Map {
 public:
  using Entry = std::pair<uint64_t, V>;

  U64Map() = default;
  // A copy points its slots at its own entries.
  U64Map(const U64Map& other) : entries_(other.entries_) { Reindex(other.slots_.size()); }
  U64Map& operator=(const U64Map& other) {
    if (this != &other) {
      entries_ = other.entries_;
      Reindex(other.slots_.size());
    }
    return *this;
  }
  // A moved deque keeps its elements where they are.
  U64Map(U64Map&&) = default;
  U64Map& operator=(U64Map&&) = default;

  V* Find(uint64_t key) {
    if (slots_.empty()) return nullptr;
    for (size_t i = Hash(key);; i = (i + 1) & mask_) {
      Entry* const e = slots_[i];
      if (e == nullptr) return nullptr;
      if (e->first == key) return &e->second;
    }
  }
  const V* Find(uint64_t key) const { return const_cast<U64Map*>(this)->Find(key); }

  // The value for `key`, default-constructed if new. The reference stays
  // valid for the map's lifetime.
  V& operator[](uint64_t key) { return *Insert(key).first; }
  // The value for `key` and whether it is new (then default-constructed):
  // one probe for both.
  std::pair<V*, bool> Insert(uint64_t key) {
    if ((entries_.size() + 1) * 2 > slots_.size()) Rehash();
    size_t i = Hash(key);
    for (;; i = (i + 1) & mask_) {
      Entry* const e = slots_[i];
      if (e == nullptr) break;
      if (e->first == key) return {&e->second, false};
    }
    Entry& added = entries_.emplace_back(key, V());
    slots_[i] = &added;
    return {&added.second, true};
  }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Insertion order.
  const std::deque<Entry>& entries() const { return entries_; }
  std::deque<Entry>& entries() { return entries_; }
  void clear() {
    entries_.clear();
    slots_.clear();
    mask_ = 0;
  }

 private:
  size_t Hash(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
  }
  void Rehash() { Reindex(slots_.empty() ? 16 : slots_.size() * 2); }
  // Points n slots (a power of 2, or 0 with no entries) at the entries.
  void Reindex(size_t n) {
    slots_.assign(n, nullptr);
    mask_ = n == 0 ? 0 : n - 1;
    for (Entry& e : entries_) {
      size_t i = Hash(e.first);
      while (slots_[i] != nullptr) i = (i + 1) & mask_;
      slots_[i] = &e;
    }
  }

  std::deque<Entry> entries_;
  // Each a pointer to its entry (a deque's elements stay put), null where
  // free: a lookup reads the slot and the entry, nothing in between.
  std::vector<Entry*> slots_;
  size_t mask_ = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_FLAT_MAP_H_
