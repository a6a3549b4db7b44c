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
  int64_t SinceStartNs(uint64_t ticks) const;
  // CLOCK_REALTIME nanoseconds since the epoch at `ticks`.
  int64_t RealtimeNs(uint64_t ticks) const;
  // Nanoseconds from `begin` to `end` (negative if end is earlier). Equal
  // to SinceStartNs(end) - SinceStartNs(begin) within a nanosecond; when
  // both lie in the segment used last it is one inline double multiply
  // (the stats hot path).
  int64_t DurationNs(uint64_t begin, uint64_t end) const {
    if (begin >= fast_lo_ && end < fast_hi_ && end >= begin && end - begin < (uint64_t{1} << 52)) {
      return static_cast<int64_t>(static_cast<double>(end - begin) * fast_slope_ + 0.5);
    }
    return DurationNsSlow(begin, end);
  }
  // The timebase value at `ns` since start (inverse of SinceStartNs, for
  // turning a --from/--to window into ticks).
  uint64_t TicksAt(int64_t ns_since_start) const;

  size_t sync_points() const { return points_.size(); }

 private:
  struct Point {
    uint64_t ticks;
    int64_t mono;  // monotonic_raw_ns
    int64_t real;  // realtime_ns
    double slope;  // ns per tick from this point to the next
  };
  int64_t DurationNsSlow(uint64_t begin, uint64_t end) const;
  // Index i of the segment [i, i+1] used for `ticks`. REQUIRES: >= 2 points.
  size_t Segment(uint64_t ticks) const;
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
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_CLOCK_H_
