// The trace timebase: RDTSC where the CPU has an invariant TSC, otherwise
// CLOCK_MONOTONIC_RAW nanoseconds.
//
// Thread safety: InitTimebase() runs once, under the session's init lock,
// before any event is recorded; g_timebase is read-only afterwards, so the
// hot path reads it without synchronisation.

#ifndef COLLECTOR_INTERNAL_TIMEBASE_H_
#define COLLECTOR_INTERNAL_TIMEBASE_H_

#include <time.h>
#include <x86intrin.h>

#include <cstdint>

namespace ittc::collector_internal {

struct Timebase {
  bool use_tsc = false;
  // Ticks per second: the TSC frequency, or 1e9 for CLOCK_MONOTONIC_RAW.
  uint64_t hz = 1000000000;
  // Where `hz` came from: "cpuid", "hypervisor", "measured" or "clock".
  const char* hz_source = "clock";
};

extern Timebase g_timebase;

// Decides the timebase and its frequency. Costs a few milliseconds when the
// frequency must be measured.
void InitTimebase();

// Clock `clock` in nanoseconds (0 if it cannot be read).
inline uint64_t ClockNs(clockid_t clock) {
  timespec ts;
  if (clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t MonotonicRawNs() { return ClockNs(CLOCK_MONOTONIC_RAW); }

// The MonotonicRawNs time `ms` milliseconds from now. Async-signal-safe.
inline uint64_t DeadlineAfterMs(uint64_t ms) { return MonotonicRawNs() + ms * 1000000u; }

// The current time in trace ticks. Hot path: one RDTSC.
inline uint64_t ReadTicks() {
  if (__builtin_expect(g_timebase.use_tsc, 1)) return __rdtsc();
  return MonotonicRawNs();
}

// A timebase value taken together with both system clocks.
struct SyncPoint {
  uint64_t ticks = 0;
  uint64_t monotonic_raw_ns = 0;
  uint64_t realtime_ns = 0;
};

// Takes the reading whose clock reads bracket the tick read most tightly.
SyncPoint TakeSyncPoint();

// True if CPUID reports an invariant TSC (leaf 0x80000007, EDX bit 8).
bool CpuHasInvariantTsc();

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_TIMEBASE_H_
