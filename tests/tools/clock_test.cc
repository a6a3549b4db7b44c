// Clock: ticks to nanoseconds through clock-sync points, piecewise, with
// extrapolation at both ends and the header's frequency as the fallback.

#include "tools/itt_dump/model/clock.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

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

TEST(Clock, RoundHalfAwayIsLlround) {
  // Every half and its neighbours in a range, then random values of every
  // magnitude below the limit, both signs.
  auto check = [](double x) {
    ASSERT_EQ(Clock::RoundHalfAway(x), std::llround(x)) << std::hexfloat << x;
  };
  for (int64_t k = -200000; k <= 200000; ++k) {
    const double half = static_cast<double>(k) + 0.5;
    check(half);
    check(std::nextafter(half, 0.0));
    check(std::nextafter(half, std::numeric_limits<double>::infinity()));
    check(std::nextafter(half, -std::numeric_limits<double>::infinity()));
    check(static_cast<double>(k));
  }
  check(0.49999999999999994);
  check(-0.49999999999999994);
  check(std::nextafter(Clock::kRoundLimit, 0.0));
  check(std::nextafter(-Clock::kRoundLimit, 0.0));
  check(Clock::kRoundLimit / 2 + 0.5);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const int exponent = static_cast<int>(rng() % 53);
    const double x = std::ldexp(static_cast<double>(rng() >> 11) / 9007199254740992.0, exponent);
    check(rng() & 1 ? x : -x);
  }
}

// SinceStartNs converts the span it converted last inline: it must give
// what the full form gives for every tick. A copy of a clock that has not
// converted anything yet always takes the full form.
void ExpectInlineEqualsFull(const Clock& pristine, const std::vector<uint64_t>& ticks) {
  Clock warm = pristine;
  for (uint64_t t : ticks) {
    Clock cold = pristine;
    const int64_t want = cold.SinceStartNs(t);
    ASSERT_EQ(warm.SinceStartNs(t), want) << t;
    ASSERT_EQ(warm.SinceStartNs(t), want) << t;  // now surely inline
  }
}

// Every tick within `radius` of each of `centers`, plus random ones.
std::vector<uint64_t> TicksAround(const std::vector<uint64_t>& centers, uint64_t radius,
                                  std::mt19937_64* rng, uint64_t random_range) {
  std::vector<uint64_t> ticks;
  for (uint64_t c : centers) {
    for (uint64_t t = c >= radius ? c - radius : 0; t <= c + radius; ++t) ticks.push_back(t);
  }
  for (int i = 0; i < 100000; ++i) ticks.push_back((*rng)() % random_range);
  std::shuffle(ticks.begin(), ticks.end(), *rng);
  return ticks;
}

TEST(Clock, InlineConversionEqualsFullFormWithHeaderFrequency) {
  std::mt19937_64 rng(3);
  for (uint64_t hz : {uint64_t{1000000000}, uint64_t{2900000000}, uint64_t{3192000000},
                      uint64_t{24000000}, uint64_t{1}}) {
    const uint64_t start = 123456789;
    const Clock c(Header(hz, start), {P(start, 5, 5)});
    ExpectInlineEqualsFull(
        c, TicksAround({0, start, start + (uint64_t{1} << 52)}, 3000, &rng, uint64_t{1} << 54));
  }
}

TEST(Clock, InlineConversionEqualsFullFormAcrossSegments) {
  std::mt19937_64 rng(5);
  std::vector<format::ClockSync> points;
  std::vector<uint64_t> centers = {0};
  uint64_t ticks = 1000000;
  uint64_t ns = 777;
  for (int i = 0; i < 20; ++i) {
    points.push_back(P(ticks, ns, static_cast<int64_t>(ns)));
    centers.push_back(ticks);
    ticks += 2900000 + rng() % 200000;  // a drifting ~3 GHz TSC, short segments
    ns += 1000000;
  }
  const Clock c(Header(3000000000, 1500000), points);
  ExpectInlineEqualsFull(c, TicksAround(centers, 2000, &rng, ticks + 10000000));
  // Damaged input: a segment far away in ticks and nanoseconds.
  points.push_back(P(uint64_t{1} << 60, uint64_t{1} << 58, 0));
  const Clock far(Header(3000000000, 1500000), points);
  ExpectInlineEqualsFull(far, TicksAround({ticks, uint64_t{1} << 60}, 2000, &rng, ~uint64_t{0}));
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
