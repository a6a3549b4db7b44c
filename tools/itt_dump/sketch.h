// A bounded percentile sketch for durations (nanoseconds).
//
// The first kExact samples are kept as they are, so small populations get
// exact nearest-rank percentiles (and golden tests exact numbers). After
// that the samples move into a log-linear histogram: values below 128 have
// their own bucket, larger ones 64 buckets per power of two, so a reported
// percentile is the midpoint of a bucket at most 1/64 of its value wide:
// within 0.8% of the true nearest-rank sample (clamped to [min, max]).
// Memory: 8 KiB of exact samples, then 8 bytes per bucket between the
// smallest and largest occupied bucket, at most 30 KiB whatever the input.
//
// Percentile definition: the nearest rank, the smallest sample such that at
// least q of all samples are at most it (rank ceil(q * n)).
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_SKETCH_H_
#define TOOLS_ITT_DUMP_SKETCH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ittc {
namespace itt_dump {

class PercentileSketch {
 public:
  static constexpr size_t kExact = 1024;

  void Add(uint64_t v) {
    ++count_;
    sum_ += v;
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
    if (exact_mode_) {
      sorted_ = false;
      exact_.push_back(v);
      if (exact_.size() > kExact) SwitchToHistogram();
      return;
    }
    // Inline when the bucket is already in range (almost always).
    const size_t i = static_cast<size_t>(BucketOf(v) - lo_);
    if (i < buckets_.size()) {
      ++buckets_[i];
      return;
    }
    AddToHistogram(v);
  }

  // Adds every sample of `other`: the result is the same as if they had
  // been added here one by one, in any order.
  void Merge(const PercentileSketch& other);
  // Back to empty (keeps its memory).
  void Clear();

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  // Saturates at 2^64-1.
  uint64_t sum() const { return sum_ > ~uint64_t{0} ? ~uint64_t{0} : static_cast<uint64_t>(sum_); }
  uint64_t mean() const { return count_ == 0 ? 0 : static_cast<uint64_t>(sum_ / count_); }
  bool exact() const { return exact_mode_; }

  // REQUIRES: 0 < q <= 1. 0 when empty. Sorts the exact samples (mutable).
  uint64_t Quantile(double q) const;

  // Bucket of v and the midpoint value of a bucket; exposed for tests.
  // Values below 128 have their own bucket; above, 64 per power of two.
  static int BucketOf(uint64_t v) {
    if (v < 128) return static_cast<int>(v);
    const int msb = 63 - __builtin_clzll(v);
    const int e = msb - 6;         // >= 1
    const uint64_t mant = v >> e;  // in [64, 128)
    return static_cast<int>(128 + static_cast<uint64_t>(e - 1) * 64 + (mant - 64));
  }
  static uint64_t BucketMid(int bucket);
  static uint64_t BucketLow(int bucket);
  static uint64_t BucketHigh(int bucket);

 private:
  void SwitchToHistogram();
  void AddToHistogram(uint64_t v);
  // Widens buckets_ to hold bucket b; returns its position.
  size_t Cover(int b);

  uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  uint64_t min_ = ~uint64_t{0};
  uint64_t max_ = 0;
  bool exact_mode_ = true;
  mutable bool sorted_ = true;
  mutable std::vector<uint64_t> exact_;
  int lo_ = 0;  // bucket of buckets_[0]
  std::vector<uint64_t> buckets_;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_SKETCH_H_
