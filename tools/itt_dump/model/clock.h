// Conversion of trace ticks to nanoseconds since the start of the trace and
// to wall-clock time, through the trace's clock-sync points.
//
// Between two consecutive sync points the conversion is linear; before the
// first and after the last it extrapolates the nearest segment. So a
// timebase whose rate drifts from its nominal frequency is followed
// piecewise and long traces do not drift. With fewer than two usable sync
// points the header's timebase_hz is used (1 GHz if that is 0 too).
//
// Thread safety: none (a one-entry segment cache is updated by the const
// conversions).

#ifndef TOOLS_ITT_DUMP_MODEL_CLOCK_H_
#define TOOLS_ITT_DUMP_MODEL_CLOCK_H_

#include <cstdint>
#include <vector>

#include "format/file_header.h"
#include "format/records.h"

namespace ittc {
namespace itt_dump {

class Clock {
 public:
  Clock() = default;
  // `points` in any order; points whose ticks repeat or whose clocks go
  // backwards relative to the ticks are dropped.
  Clock(const format::FileHeader& header, std::vector<format::ClockSync> points);

  // ns(ticks) - ns(header.start_ticks). Saturates at the int64 range.
  // When `ticks` lies in the span converted last (a segment, or the part of
  // it within 2^52 ticks of its origin) it is one inline multiply and
  // rounding (the exports' hot path); else SinceStartNsSlow.
  int64_t SinceStartNs(uint64_t ticks) const {
    if (ticks - near_lo_ < near_width_) {
      const double x =
          static_cast<double>(static_cast<int64_t>(ticks - near_origin_)) * near_slope_;
      if (x > -kRoundLimit && x < kRoundLimit) return near_base_ + RoundHalfAway(x);
    }
    return SinceStartNsSlow(ticks);
  }
  // CLOCK_REALTIME nanoseconds since the epoch at `ticks`.
  int64_t RealtimeNs(uint64_t ticks) const;
  // Nanoseconds from `begin` to `end` (negative if end is earlier). Equal
  // to SinceStartNs(end) - SinceStartNs(begin) within a nanosecond; when
  // both lie in the segment used last it is one inline double multiply
  // (the stats hot path).
  int64_t DurationNs(uint64_t begin, uint64_t end) const {
    if (begin >= fast_lo_ && end < fast_hi_ && end >= begin && end - begin < (uint64_t{1} << 52)) {
      // Through int64_t, exact below 2^52: one instruction, where an
      // unsigned 64-bit value takes a branch and several.
      const auto span = static_cast<int64_t>(end - begin);
      return static_cast<int64_t>(static_cast<double>(span) * fast_slope_ + 0.5);
    }
    return DurationNsSlow(begin, end);
  }
  // The timebase value at `ns` since start (inverse of SinceStartNs, for
  // turning a --from/--to window into ticks).
  uint64_t TicksAt(int64_t ns_since_start) const;

  size_t sync_points() const { return points_.size(); }

  // std::llround(x) for |x| < kRoundLimit, inline: the integer part is
  // exact and so is the fraction x - trunc(x), so the halves round away
  // from zero exactly as llround does (clock_test compares them).
  static constexpr double kRoundLimit = 4503599627370496.0;  // 2^52
  static int64_t RoundHalfAway(double x) {
    int64_t i = static_cast<int64_t>(x);  // truncates toward zero
    const double frac = x - static_cast<double>(i);
    if (frac >= 0.5) ++i;
    if (frac <= -0.5) --i;
    return i;
  }

 private:
  struct Point {
    uint64_t ticks;
    int64_t mono;  // monotonic_raw_ns
    int64_t real;  // realtime_ns
    double slope;  // ns per tick from this point to the next
  };
  int64_t DurationNsSlow(uint64_t begin, uint64_t end) const;
  // SinceStartNs's full form; sets the near_* span for the inline one.
  int64_t SinceStartNsSlow(uint64_t ticks) const;
  // Sets the near_* span: ticks in [lo, hi) convert as base + round((ticks - origin) * slope),
  // limited to within 2^52 ticks of origin.
  void SetNear(uint64_t lo, uint64_t hi, uint64_t origin, int64_t base, double slope) const;
  // Index i of the segment [i, i+1] used for `ticks`. REQUIRES: >= 2 points.
  size_t Segment(uint64_t ticks) const;
  // The ticks [*lo, *hi) that Segment() assigns to segment i: from point i
  // (from 0 for the first) to point i+1 (to the end of the range, ~0, for
  // the last). REQUIRES: >= 2 points.
  void SegmentSpan(size_t i, uint64_t* lo, uint64_t* hi) const;
  int64_t Interpolate(uint64_t ticks, bool real) const;

  std::vector<Point> points_;
  uint64_t start_ticks_ = 0;
  uint64_t hz_ = 1000000000;
  int64_t start_real_ = 0;
  int64_t start_mono_ = 0;  // Interpolate(start_ticks_) when >= 2 points
  double hz_slope_ = 1.0;   // ns per tick from hz_
  mutable size_t cache_ = 0;
  // Ticks [fast_lo_, fast_hi_) share one slope: DurationNs's inline path.
  mutable uint64_t fast_lo_ = 1;
  mutable uint64_t fast_hi_ = 0;
  mutable double fast_slope_ = 0;
  // Ticks t with t - near_lo_ < near_width_ (unsigned) convert inline as
  // near_base_ + round((t - near_origin_) * near_slope_); empty at first.
  mutable uint64_t near_lo_ = 0;
  mutable uint64_t near_width_ = 0;
  mutable uint64_t near_origin_ = 0;
  mutable int64_t near_base_ = 0;
  mutable double near_slope_ = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_CLOCK_H_
