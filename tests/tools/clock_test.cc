// Clock: ticks to nanoseconds through clock-sync points, piecewise, with
// extrapolation at both ends and the header's frequency as the fallback.

#include "tools/itt_dump/model/clock.h"

#include <random>

#include "gtest/gtest.h"

namespace ittc {
namespace itt_dump {
namespace {

format::FileHeader Header(uint64_t hz, uint64_t start_ticks) {
  format::FileHeader h;
  h.timebase = format::Timebase::kTsc;
  h.timebase_hz = hz;
  h.start_ticks = start_ticks;
  h.start_realtime_ns = 1000000000000;
  return h;
}

format::ClockSync P(uint64_t ticks, uint64_t mono, int64_t real) {
  format::ClockSync s;
  s.ticks = ticks;
  s.monotonic_raw_ns = mono;
  s.realtime_ns = real;
  return s;
}

TEST(Clock, FewerThanTwoPointsUseTheHeaderFrequency) {
  Clock c(Header(2000000000, 100), {P(100, 5, 5)});
  EXPECT_EQ(c.SinceStartNs(100), 0);
  EXPECT_EQ(c.SinceStartNs(2100), 1000);
  EXPECT_EQ(c.SinceStartNs(0), -50);
  EXPECT_EQ(c.RealtimeNs(2100), 1000000001000);
  EXPECT_EQ(c.DurationNs(100, 2100), 1000);
}

TEST(Clock, ZeroFrequencyMeansNanoseconds) {
  Clock c(Header(0, 0), {});
  EXPECT_EQ(c.SinceStartNs(12345), 12345);
}

TEST(Clock, PiecewiseLinearBetweenSyncPoints) {
  // 1 ns/tick up to tick 1000, then 2 ns/tick; points given out of order.
  Clock c(Header(1000000000, 0), {P(2000, 3000, 103000), P(0, 0, 100000), P(1000, 1000, 101000)});
  EXPECT_EQ(c.SinceStartNs(500), 500);
  EXPECT_EQ(c.SinceStartNs(1000), 1000);
  EXPECT_EQ(c.SinceStartNs(1500), 2000);
  EXPECT_EQ(c.SinceStartNs(3000), 5000);  // extrapolates the last segment
  EXPECT_EQ(c.RealtimeNs(1500), 102000);
  EXPECT_EQ(c.DurationNs(500, 1500), 1500);  // spans two segments
  EXPECT_EQ(c.DurationNs(1200, 1300), 200);
}

TEST(Clock, StartTicksIsTimeZero) {
  Clock c(Header(1000000000, 700), {P(0, 10000, 0), P(1000, 11000, 1000)});
  EXPECT_EQ(c.SinceStartNs(700), 0);
  EXPECT_EQ(c.SinceStartNs(900), 200);
}

TEST(Clock, BackwardsAndDuplicatePointsAreDropped) {
  Clock c(Header(1000000000, 0), {P(0, 0, 0), P(1000, 1000, 0), P(1000, 7, 0), P(2000, 500, 0)});
  EXPECT_EQ(c.sync_points(), 2u);
}

TEST(Clock, DurationMatchesDifferenceOfTimes) {
  std::mt19937_64 rng(1);
  std::vector<format::ClockSync> points;
  uint64_t ticks = 1000;
  uint64_t ns = 0;
  for (int i = 0; i < 50; ++i) {
    points.push_back(P(ticks, ns, static_cast<int64_t>(ns)));
    ticks += 2900000000 + rng() % 200000000;  // a drifting ~3 GHz TSC
    ns += 1000000000;
  }
  Clock c(Header(3000000000, 1000), points);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t a = 1000 + rng() % (ticks + 1000000000);
    const uint64_t b = a + rng() % 10000000000;
    const int64_t d = c.DurationNs(a, b);
    const int64_t want = c.SinceStartNs(b) - c.SinceStartNs(a);
    ASSERT_LE(std::llabs(d - want), 1) << a << " " << b;
  }
}

TEST(Clock, TicksAtInvertsSinceStart) {
  Clock c(Header(1000000000, 0), {P(0, 0, 0), P(1000, 1000, 0), P(2000, 3000, 0)});
  for (int64_t ns : {0, 1, 999, 1000, 1001, 2000, 2999, 5000}) {
    const uint64_t t = c.TicksAt(ns);
    EXPECT_GE(c.SinceStartNs(t), ns);
    if (t > 0) {
      EXPECT_LT(c.SinceStartNs(t - 1), ns);
    }
  }
}

}  // namespace
}  // namespace itt_dump
}  // namespace ittc
