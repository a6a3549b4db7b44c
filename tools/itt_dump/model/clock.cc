#include "tools/itt_dump/model/clock.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ittc {
namespace itt_dump {
namespace {

int64_t Saturate(__int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) {
    return std::numeric_limits<int64_t>::max();
  }
  if (v < std::numeric_limits<int64_t>::min()) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(v);
}

}  // namespace

Clock::Clock(const format::FileHeader& header, std::vector<format::ClockSync> points)
    : start_ticks_(header.start_ticks),
      hz_(header.timebase_hz != 0 ? header.timebase_hz : 1000000000),
      start_real_(header.start_realtime_ns) {
  std::sort(
      points.begin(), points.end(),
      [](const format::ClockSync& a, const format::ClockSync& b) { return a.ticks < b.ticks; });
  for (const format::ClockSync& p : points) {
    const Point q{p.ticks, static_cast<int64_t>(p.monotonic_raw_ns), p.realtime_ns, 0.0};
    if (!points_.empty()) {
      const Point& last = points_.back();
      if (q.ticks == last.ticks || q.mono < last.mono) continue;
    }
    points_.push_back(q);
  }
  for (size_t i = 0; i + 1 < points_.size(); ++i) {
    points_[i].slope = static_cast<double>(points_[i + 1].mono - points_[i].mono) /
                       static_cast<double>(points_[i + 1].ticks - points_[i].ticks);
  }
  if (!points_.empty()) points_.back().slope = 0;
  hz_slope_ = 1e9 / static_cast<double>(hz_);
  if (points_.size() >= 2) start_mono_ = Interpolate(start_ticks_, false);
}

int64_t Clock::DurationNsSlow(uint64_t begin, uint64_t end) const {
  const int64_t dt = static_cast<int64_t>(end - begin);
  // Short spans by double arithmetic; long ones (or huge tick differences
  // from damaged input) exactly.
  constexpr int64_t kShort = int64_t{1} << 52;
  if (dt > -kShort && dt < kShort) {
    double slope;
    if (points_.size() < 2) {
      slope = hz_slope_;
      fast_lo_ = 0;
      fast_hi_ = ~uint64_t{0};
    } else {
      const size_t i = Segment(begin);
      uint64_t lo, hi;
      SegmentSpan(i, &lo, &hi);
      if (end < lo || end >= hi) return SinceStartNs(end) - SinceStartNs(begin);
      slope = points_[i].slope;
      fast_lo_ = lo;
      fast_hi_ = hi;
    }
    fast_slope_ = slope;
    return static_cast<int64_t>(static_cast<double>(dt) * slope + (dt >= 0 ? 0.5 : -0.5));
  }
  return SinceStartNs(end) - SinceStartNs(begin);
}

void Clock::SegmentSpan(size_t i, uint64_t* lo, uint64_t* hi) const {
  const size_t last = points_.size() - 2;
  *lo = i == 0 ? 0 : points_[i].ticks;
  *hi = i == last ? ~uint64_t{0} : points_[i + 1].ticks;
}

size_t Clock::Segment(uint64_t ticks) const {
  const size_t last = points_.size() - 2;
  size_t i = cache_;
  if (points_[i].ticks <= ticks && (i == last || ticks < points_[i + 1].ticks)) {
    return i;
  }
  if (ticks < points_[1].ticks) {
    i = 0;
  } else {
    // First point above `ticks`, minus one: the segment's left end.
    auto it = std::upper_bound(points_.begin(), points_.end(), ticks,
                               [](uint64_t t, const Point& p) { return t < p.ticks; });
    i = static_cast<size_t>(it - points_.begin()) - 1;
    if (i > last) i = last;
  }
  cache_ = i;
  return i;
}

int64_t Clock::Interpolate(uint64_t ticks, bool real) const {
  const size_t i = Segment(ticks);
  const Point& a = points_[i];
  const Point& b = points_[i + 1];
  const int64_t ya = real ? a.real : a.mono;
  const int64_t yb = real ? b.real : b.mono;
  const __int128 dt = static_cast<__int128>(ticks) - a.ticks;
  const __int128 span = static_cast<__int128>(b.ticks) - a.ticks;
  const __int128 dy = static_cast<__int128>(yb) - ya;
  // dt * dy fits: |dt| < 2^64 and |dy| < 2^65.
  return Saturate(ya + dt * dy / span);
}

void Clock::SetNear(uint64_t lo, uint64_t hi, uint64_t origin, int64_t base, double slope) const {
  // Within 2^52 ticks of the origin, as SinceStartNsSlow requires.
  constexpr uint64_t kNear = uint64_t{1} << 52;
  const uint64_t near_lo = origin >= kNear - 1 ? origin - (kNear - 1) : 0;
  const uint64_t near_hi = origin <= ~uint64_t{0} - kNear ? origin + kNear : ~uint64_t{0};
  lo = std::max(lo, near_lo);
  hi = std::min(hi, near_hi);
  near_lo_ = lo;
  near_width_ = hi > lo ? hi - lo : 0;
  near_origin_ = origin;
  near_base_ = base;
  near_slope_ = slope;
}

int64_t Clock::SinceStartNsSlow(uint64_t ticks) const {
  // Ticks within 2^52 of the segment's start (a segment is about a second)
  // by one double multiply, which is exact to well under a nanosecond;
  // anything else (damaged input) by exact 128-bit arithmetic. The inline
  // SinceStartNs repeats the first form for the span set here.
  constexpr int64_t kNear = int64_t{1} << 52;
  if (points_.size() < 2) {
    const int64_t dt = static_cast<int64_t>(ticks - start_ticks_);
    if (dt > -kNear && dt < kNear) {
      SetNear(0, ~uint64_t{0}, start_ticks_, 0, hz_slope_);
      return std::llround(static_cast<double>(dt) * hz_slope_);
    }
    const __int128 wide = static_cast<__int128>(ticks) - start_ticks_;
    return Saturate(wide * 1000000000 / hz_);
  }
  const size_t i = Segment(ticks);
  const Point& p = points_[i];
  const int64_t dt = static_cast<int64_t>(ticks - p.ticks);
  if (dt > -kNear && dt < kNear && p.mono - start_mono_ > -kNear && p.mono - start_mono_ < kNear) {
    uint64_t lo, hi;
    SegmentSpan(i, &lo, &hi);
    SetNear(lo, hi, p.ticks, p.mono - start_mono_, p.slope);
    return (p.mono - start_mono_) + std::llround(static_cast<double>(dt) * p.slope);
  }
  return Saturate(static_cast<__int128>(Interpolate(ticks, false)) - start_mono_);
}

int64_t Clock::RealtimeNs(uint64_t ticks) const {
  if (points_.size() < 2) {
    return Saturate(static_cast<__int128>(start_real_) + SinceStartNs(ticks));
  }
  return Interpolate(ticks, true);
}

uint64_t Clock::TicksAt(int64_t ns) const {
  // Binary search over ticks: SinceStartNs is monotonic (non-decreasing).
  uint64_t lo = 0;
  uint64_t hi = std::numeric_limits<uint64_t>::max();
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (SinceStartNs(mid) < ns) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace itt_dump
}  // namespace ittc
