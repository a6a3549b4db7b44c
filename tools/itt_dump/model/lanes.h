// Lanes: Perfetto and the Chrome viewers draw the slices of one track as a
// stack, so slices on a track must nest. Overlapped tasks, regions, frames
// and legacy events may overlap without nesting; each group of them (say
// "overlapped tasks of domain d") gets as many sibling tracks of one name
// as it has slices open at once, and a slice goes on the first lane free
// when it begins: no slice open on it, and the last one it held ended by
// then. (Slices are handed out in the order their events came, which for
// those with times of their own - a frame_submit, a
// task_begin_overlapped_ex - is not their begins' order: a lane released
// earlier may hold a slice that ends after the new one begins.)
//
// A writer that gets each slice whole, at its end (Chrome's complete "X"
// events), acquires and releases its lane at once: the slice goes on the
// first lane whose slices all ended by its begin, so the slices of a lane
// never overlap, whatever their order.
//
// Memory: one entry per lane ever opened, i.e. the largest number of slices
// of the group open at the same time.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_LANES_H_
#define TOOLS_ITT_DUMP_MODEL_LANES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ittc::itt_dump {

class Lanes {
 public:
  // Returns the index of the lane a slice beginning at `begin` goes on (the
  // first one free then) and marks it busy. `*created` is true when that
  // lane is new (the caller makes its track). A word of 64 lanes at a time:
  // a group of frames has many lanes when a long frame holds the first ones.
  size_t Acquire(uint64_t begin, bool* created) {
    for (size_t w = 0; w < busy_.size(); ++w) {
      for (uint64_t free = ~busy_[w]; free != 0; free &= free - 1) {
        const size_t lane = w * 64 + static_cast<size_t>(__builtin_ctzll(free));
        if (lane >= lanes_) break;  // every lane there is is busy
        if (ends_[lane] > begin) continue;
        busy_[w] |= uint64_t{1} << (lane % 64);
        *created = false;
        return lane;
      }
    }
    const size_t lane = lanes_++;
    if (lane / 64 == busy_.size()) busy_.push_back(0);
    busy_[lane / 64] |= uint64_t{1} << (lane % 64);
    ends_.push_back(0);
    *created = true;
    return lane;
  }
  // The slice on `lane` ended at `end`. REQUIRES: lane came from Acquire
  // and is busy.
  void Release(size_t lane, uint64_t end) {
    busy_[lane / 64] &= ~(uint64_t{1} << (lane % 64));
    ends_[lane] = std::max(ends_[lane], end);
  }
  size_t size() const { return lanes_; }

 private:
  std::vector<uint64_t> busy_;  // bit i % 64 of word i / 64: lane i is busy
  std::vector<uint64_t> ends_;  // by lane: the latest end of its slices
  size_t lanes_ = 0;            // lanes ever opened
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_MODEL_LANES_H_
