// A small open-addressing hash map from 64-bit keys to values, for the
// per-event lookups of itt-dump (names by id, statistics by key), where
// std::unordered_map's node allocation and pointer chasing cost more than
// the decoding does.
//
// Entries are kept in insertion order in a std::deque, so pointers to values
// stay valid while the map grows and iteration order is deterministic.
// Cost: Find is one multiply-shift hash and a short linear probe.
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

  V* Find(uint64_t key) {
    if (slots_.empty()) return nullptr;
    for (size_t i = Hash(key);; i = (i + 1) & mask_) {
      const int32_t s = slots_[i];
      if (s < 0) return nullptr;
      if (entries_[static_cast<size_t>(s)].first == key) {
        return &entries_[static_cast<size_t>(s)].second;
      }
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
      const int32_t s = slots_[i];
      if (s < 0) break;
      if (entries_[static_cast<size_t>(s)].first == key) {
        return {&entries_[static_cast<size_t>(s)].second, false};
      }
    }
    entries_.emplace_back(key, V());
    slots_[i] = static_cast<int32_t>(entries_.size() - 1);
    return {&entries_.back().second, true};
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
  void Rehash() {
    const size_t n = slots_.empty() ? 16 : slots_.size() * 2;
    slots_.assign(n, -1);
    mask_ = n - 1;
    for (size_t e = 0; e < entries_.size(); ++e) {
      size_t i = Hash(entries_[e].first);
      while (slots_[i] >= 0) i = (i + 1) & mask_;
      slots_[i] = static_cast<int32_t>(e);
    }
  }

  std::deque<Entry> entries_;
  std::vector<int32_t> slots_;
  size_t mask_ = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_FLAT_MAP_H_
