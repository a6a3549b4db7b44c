// Searches of sorted ranges the merge makes often.
//
// Thread safety: none needed (functions of their arguments).

#ifndef TOOLS_ITT_DUMP_MODEL_SEARCH_H_
#define TOOLS_ITT_DUMP_MODEL_SEARCH_H_

#include <algorithm>
#include <cstddef>

namespace ittc {
namespace itt_dump {

// std::partition_point(first, last, before) searched outward from `guess`
// (clamped to the range): steps doubling from it until the point is
// bracketed, then a binary search of the bracket. Where the guess is near
// (a queue's outputs in a run are about as many as in the last), it reads
// a few lines around it, not the far ones a search of the whole range
// starts with: each a miss in memory another core wrote.
template <typename It, typename Pred>
It PartitionPointNear(It first, It last, It guess, Pred before) {
  guess = std::clamp(guess, first, last);
  if (guess != last && before(*guess)) {
    // The point is past the guess: in (lo, hi].
    It lo = guess;
    for (std::ptrdiff_t step = 1;; step *= 2) {
      if (last - lo <= step) return std::partition_point(lo + 1, last, before);
      const It hi = lo + step;
      if (!before(*hi)) return std::partition_point(lo + 1, hi, before);
      lo = hi;
    }
  }
  // The point is at the guess or before it: in [lo, hi].
  It hi = guess;
  for (std::ptrdiff_t step = 1;; step *= 2) {
    if (hi - first <= step) return std::partition_point(first, hi, before);
    const It lo = hi - step;
    if (before(*lo)) return std::partition_point(lo + 1, hi, before);
    hi = lo;
  }
}

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_SEARCH_H_
