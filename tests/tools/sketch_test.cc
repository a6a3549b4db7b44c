// PercentileSketch: exact nearest-rank percentiles for small populations,
// within 0.8% beyond, and consistent buckets over the whole 64-bit range.

#include "tools/itt_dump/sketch.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace ittc {
namespace itt_dump {
namespace {

uint64_t NearestRank(std::vector<uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  rank = std::max<size_t>(rank, 1);
  return v[rank - 1];
}

TEST(PercentileSketch, SmallPopulationsAreExact) {
  PercentileSketch s;
  for (uint64_t v = 1000; v >= 1; --v) s.Add(v);
  EXPECT_TRUE(s.exact());
  EXPECT_EQ(s.count(), 1000u);
  EXPECT_EQ(s.min(), 1u);
  EXPECT_EQ(s.max(), 1000u);
  EXPECT_EQ(s.mean(), 500u);  // 500.5 rounded down
  EXPECT_EQ(s.Quantile(0.5), 500u);
  EXPECT_EQ(s.Quantile(0.9), 900u);
  EXPECT_EQ(s.Quantile(0.99), 990u);
  EXPECT_EQ(s.Quantile(1.0), 1000u);
}

TEST(PercentileSketch, EmptyIsZero) {
  PercentileSketch s;
  EXPECT_EQ(s.Quantile(0.5), 0u);
  EXPECT_EQ(s.min(), 0u);
  EXPECT_EQ(s.max(), 0u);
  EXPECT_EQ(s.mean(), 0u);
}

TEST(PercentileSketch, LargePopulationsAreWithinTheDocumentedError) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 5; ++round) {
    PercentileSketch s;
    std::vector<uint64_t> all;
    std::lognormal_distribution<double> dist(10 + round * 3, 2.0);
    for (int i = 0; i < 200000; ++i) {
      const uint64_t v = static_cast<uint64_t>(dist(rng));
      s.Add(v);
      all.push_back(v);
    }
    EXPECT_FALSE(s.exact());
    for (double q : {0.01, 0.5, 0.9, 0.99, 0.999}) {
      const double want = static_cast<double>(NearestRank(all, q));
      const double got = static_cast<double>(s.Quantile(q));
      EXPECT_LE(std::fabs(got - want), want / 128 + 1) << q;
    }
    EXPECT_EQ(s.min(), *std::min_element(all.begin(), all.end()));
    EXPECT_EQ(s.max(), *std::max_element(all.begin(), all.end()));
  }
}

TEST(PercentileSketch, BucketsTileTheRange) {
  for (int b = 0; b < PercentileSketch::BucketOf(~uint64_t{0}); ++b) {
    ASSERT_EQ(PercentileSketch::BucketHigh(b) + 1, PercentileSketch::BucketLow(b + 1)) << b;
  }
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = rng() >> (rng() % 64);
    const int b = PercentileSketch::BucketOf(v);
    ASSERT_LE(PercentileSketch::BucketLow(b), v);
    ASSERT_GE(PercentileSketch::BucketHigh(b), v);
    // Bucket width at most 1/64 of its low end (or exact below 128).
    const uint64_t width = PercentileSketch::BucketHigh(b) - PercentileSketch::BucketLow(b);
    ASSERT_LE(width, std::max<uint64_t>(PercentileSketch::BucketLow(b) / 64, 0));
  }
  EXPECT_EQ(PercentileSketch::BucketHigh(PercentileSketch::BucketOf(~uint64_t{0})), ~uint64_t{0});
}

TEST(PercentileSketch, ExtremeValuesDoNotOverflow) {
  PercentileSketch s;
  for (int i = 0; i < 3000; ++i) s.Add(i % 2 ? ~uint64_t{0} : 0);
  EXPECT_EQ(s.Quantile(1.0), ~uint64_t{0});
  EXPECT_EQ(s.Quantile(0.4), 0u);
  EXPECT_EQ(s.sum(), ~uint64_t{0});  // saturates
  EXPECT_EQ(s.mean(), ~uint64_t{0} / 2);
}

// A sketch filled in parts and merged answers exactly as one filled with
// every sample: both exact, one or both past kExact, wide value ranges.
TEST(PercentileSketch, MergedPartsAnswerAsOneSketch) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    const int parts = 1 + static_cast<int>(rng() % 5);
    PercentileSketch whole;
    PercentileSketch merged;
    for (int p = 0; p < parts; ++p) {
      PercentileSketch part;
      const size_t n = rng() % 3 == 0 ? rng() % 3000 : rng() % 600;
      const int shift = static_cast<int>(rng() % 40);
      for (size_t i = 0; i < n; ++i) {
        const uint64_t v = (rng() % 100000) << shift;
        whole.Add(v);
        part.Add(v);
      }
      merged.Merge(part);
    }
    ASSERT_EQ(merged.count(), whole.count()) << round;
    EXPECT_EQ(merged.sum(), whole.sum()) << round;
    EXPECT_EQ(merged.min(), whole.min()) << round;
    EXPECT_EQ(merged.max(), whole.max()) << round;
    EXPECT_EQ(merged.exact(), whole.exact()) << round;
    for (double q : {0.01, 0.25, 0.5, 0.9, 0.99, 1.0}) {
      EXPECT_EQ(merged.Quantile(q), whole.Quantile(q)) << round << " q " << q;
    }
  }
  PercentileSketch cleared;
  cleared.Add(5);
  cleared.Clear();
  EXPECT_EQ(cleared.count(), 0u);
  EXPECT_EQ(cleared.Quantile(0.5), 0u);
  EXPECT_TRUE(cleared.exact());
}

}  // namespace
}  // namespace itt_dump
}  // namespace ittc
