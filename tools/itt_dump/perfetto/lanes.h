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

#include <cstdint>
#include <vector>

namespace ittc::itt_dump {

class Lanes {
 public:
  // Returns the index of the lane the next slice goes on and marks it busy.
  // `*created` is true when that lane is new (the caller makes its track).
  size_t Acquire(bool* created) {
    for (size_t i = 0; i < busy_.size(); ++i) {
      if (!busy_[i]) {
        busy_[i] = true;
        *created = false;
        return i;
      }
    }
    busy_.push_back(true);
    *created = true;
    return busy_.size() - 1;
  }
  // The slice on `lane` ended. REQUIRES: lane came from Acquire and is busy.
  void Release(size_t lane) { busy_[lane] = false; }
  size_t size() const { return busy_.size(); }

 private:
  std::vector<bool> busy_;
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_LANES_H_
