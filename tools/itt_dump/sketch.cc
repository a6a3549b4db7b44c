#include "tools/itt_dump/sketch.h"

#include <algorithm>
#include <cmath>

namespace ittc {
namespace itt_dump {
namespace {

// Must agree with BucketOf in the header.
constexpr uint64_t kSub = 64;           // buckets per octave
constexpr uint64_t kLinear = 2 * kSub;  // values with their own bucket

}  // namespace

uint64_t PercentileSketch::BucketLow(int b) {
  if (b < static_cast<int>(kLinear)) return static_cast<uint64_t>(b);
  const uint64_t k = static_cast<uint64_t>(b) - kLinear;
  const int e = static_cast<int>(k / kSub) + 1;
  const uint64_t mant = k % kSub + kSub;
  return mant << e;
}

uint64_t PercentileSketch::BucketHigh(int b) {
  if (b < static_cast<int>(kLinear)) return static_cast<uint64_t>(b);
  const uint64_t k = static_cast<uint64_t>(b) - kLinear;
  const int e = static_cast<int>(k / kSub) + 1;
  const uint64_t mant = k % kSub + kSub;
  // For the top bucket (mant + 1) << e wraps to 0: it ends at 2^64 - 1.
  return ((mant + 1) << e) - 1;
}

uint64_t PercentileSketch::BucketMid(int b) {
  const uint64_t lo = BucketLow(b);
  return lo + (BucketHigh(b) - lo) / 2;
}

void PercentileSketch::SwitchToHistogram() {
  exact_mode_ = false;
  std::vector<uint64_t> samples;
  samples.swap(exact_);
  for (uint64_t v : samples) AddToHistogram(v);
}

void PercentileSketch::Merge(const PercentileSketch& other) {
  if (other.count_ == 0) return;
  if (other.exact_mode_) {
    // Add() gives the same answer in any order: exact up to kExact
    // samples, then the histogram of all of them.
    for (uint64_t v : other.exact_) Add(v);
    return;
  }
  if (exact_mode_) SwitchToHistogram();
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  Cover(other.lo_ + static_cast<int>(other.buckets_.size()) - 1);
  const size_t first = Cover(other.lo_);
  for (size_t i = 0; i < other.buckets_.size(); ++i) buckets_[first + i] += other.buckets_[i];
}

void PercentileSketch::Clear() {
  count_ = 0;
  sum_ = 0;
  min_ = ~uint64_t{0};
  max_ = 0;
  exact_mode_ = true;
  sorted_ = true;
  exact_.clear();
  lo_ = 0;
  buckets_.clear();
}

size_t PercentileSketch::Cover(int b) {
  if (buckets_.empty()) {
    lo_ = b;
    buckets_.assign(1, 0);
  } else if (b < lo_) {
    buckets_.insert(buckets_.begin(), static_cast<size_t>(lo_ - b), 0);
    lo_ = b;
  } else if (b >= lo_ + static_cast<int>(buckets_.size())) {
    buckets_.resize(static_cast<size_t>(b - lo_ + 1), 0);
  }
  return static_cast<size_t>(b - lo_);
}

void PercentileSketch::AddToHistogram(uint64_t v) { ++buckets_[Cover(BucketOf(v))]; }

uint64_t PercentileSketch::Quantile(double q) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  if (exact_mode_) {
    if (!sorted_) {
      std::sort(exact_.begin(), exact_.end());
      sorted_ = true;
    }
    return exact_[rank - 1];
  }
  // The extremes are known exactly.
  if (rank == count_) return max_;
  if (rank == 1) return min_;
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      const uint64_t mid = BucketMid(lo_ + static_cast<int>(i));
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

}  // namespace itt_dump
}  // namespace ittc
