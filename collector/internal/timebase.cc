#include "collector/internal/timebase.h"

#include <cpuid.h>

#include <cstdlib>

namespace ittc::collector_internal {

Timebase g_timebase;

namespace {

uint64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// TSC frequency from CPUID leaf 0x15 (crystal ratio), or 0 if not reported.
uint64_t CpuidTscHz() {
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid_max(0, nullptr) < 0x15) return 0;
  __cpuid_count(0x15, 0, eax, ebx, ecx, edx);
  if (eax == 0 || ebx == 0 || ecx == 0) return 0;
  return static_cast<uint64_t>(ecx) * ebx / eax;
}

// TSC frequency from the hypervisor timing leaf 0x40000010 (KVM, VMware), or 0.
uint64_t HypervisorTscHz() {
  unsigned eax, ebx, ecx, edx;
  __cpuid(1, eax, ebx, ecx, edx);
  if (!(ecx & (1u << 31))) return 0;  // not under a hypervisor
  __cpuid(0x40000000, eax, ebx, ecx, edx);
  if (eax < 0x40000010) return 0;
  __cpuid(0x40000010, eax, ebx, ecx, edx);
  return static_cast<uint64_t>(eax) * 1000;  // kHz
}

// Measures the TSC against CLOCK_MONOTONIC_RAW over about `window_ns`.
uint64_t MeasureTscHz(uint64_t window_ns) {
  SyncPoint a = TakeSyncPoint();
  SyncPoint b;
  do {
    b = TakeSyncPoint();
  } while (b.monotonic_raw_ns - a.monotonic_raw_ns < window_ns);
  double seconds = static_cast<double>(b.monotonic_raw_ns - a.monotonic_raw_ns) * 1e-9;
  return static_cast<uint64_t>(static_cast<double>(b.ticks - a.ticks) / seconds + 0.5);
}

bool WithinFraction(uint64_t a, uint64_t b, double fraction) {
  double d = static_cast<double>(a) - static_cast<double>(b);
  if (d < 0) d = -d;
  return d <= fraction * static_cast<double>(b);
}

}  // namespace

bool CpuHasInvariantTsc() {
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid_max(0x80000000, nullptr) < 0x80000007) return false;
  __cpuid(0x80000007, eax, ebx, ecx, edx);
  return (edx & (1u << 8)) != 0;
}

SyncPoint TakeSyncPoint() {
  // The monotonic reads bracket the TSC read; keep the tightest of a few.
  SyncPoint best;
  uint64_t best_width = ~uint64_t{0};
  for (int i = 0; i < 5; ++i) {
    uint64_t m0 = MonotonicRawNs();
    uint64_t t = ReadTicks();
    uint64_t m1 = MonotonicRawNs();
    if (m1 - m0 < best_width) {
      best_width = m1 - m0;
      best.ticks = t;
      best.monotonic_raw_ns = m0 + (m1 - m0) / 2;
    }
  }
  best.realtime_ns = RealtimeNs();
  return best;
}

void InitTimebase() {
  Timebase tb;
  if (std::getenv("ITTC_FORCE_CLOCK") == nullptr && CpuHasInvariantTsc()) {
    tb.use_tsc = true;
    g_timebase = tb;  // TakeSyncPoint reads the TSC from here on.
    // A short measurement checks what the CPU or hypervisor reports; the
    // periodic sync points in the trace let readers correct any residue.
    // 2 ms: the tightest of five bracketed reads at each end keeps the
    // error near 1e-4, and this runs inside the host's first ITT call.
    uint64_t measured = MeasureTscHz(2 * 1000 * 1000);
    uint64_t reported = CpuidTscHz();
    const char* source = "cpuid";
    if (reported == 0) {
      reported = HypervisorTscHz();
      source = "hypervisor";
    }
    if (reported != 0 && WithinFraction(reported, measured, 0.002)) {
      tb.hz = reported;
      tb.hz_source = source;
    } else {
      tb.hz = measured;
      tb.hz_source = "measured";
    }
  }
  g_timebase = tb;
}

}  // namespace ittc::collector_internal
