// Lanes: Perfetto draws the slices of one track as a stack, so slices on a
// track must nest. Overlapped tasks, regions and frames may overlap without
// nesting; each group of them (say "overlapped tasks of domain d") gets as
// many sibling tracks of one name as it has slices open at once, and a
// slice goes on the first lane free when it begins.
//
// Memory: one entry per lane ever opened, i.e. the largest number of slices
// of the group open at the same time.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_PERFETTO_LANES_H_
#define TOOLS_ITT_DUMP_PERFETTO_LANES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ittc::itt_dump {

class Lanes {
 public:
  // Returns the index of the lane the next slice goes on (the first free
  // one) and marks it busy. `*created` is true when that lane is new (the
  // caller makes its track). A word of 64 lanes at a time: a group of
  // frames has many lanes when a long frame holds the first ones.
  size_t Acquire(bool* created) {
    for (size_t w = 0; w < busy_.size(); ++w) {
      const uint64_t free = ~busy_[w];
      if (free == 0) continue;
      const size_t lane = w * 64 + static_cast<size_t>(__builtin_ctzll(free));
      if (lane >= lanes_) break;  // every lane there is is busy
      busy_[w] |= uint64_t{1} << (lane % 64);
      *created = false;
      return lane;
    }
    const size_t lane = lanes_++;
    if (lane / 64 == busy_.size()) busy_.push_back(0);
    busy_[lane / 64] |= uint64_t{1} << (lane % 64);
    *created = true;
    return lane;
  }
  // The slice on `lane` ended. REQUIRES: lane came from Acquire and is busy.
  void Release(size_t lane) { busy_[lane / 64] &= ~(uint64_t{1} << (lane % 64)); }
  size_t size() const { return lanes_; }

 private:
  std::vector<uint64_t> busy_;  // bit i % 64 of word i / 64: lane i is busy
  size_t lanes_ = 0;            // lanes ever opened
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_LANES_H_
