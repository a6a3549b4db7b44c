// Test-only entry points. A test that needs a producer to outrun the
// flusher makes that happen instead of hoping a busy or idle machine does:
// it holds the flusher, fills a ring, and checks what the collector counted.
// Test programs find these with dlopen(RTLD_NOLOAD) + dlsym on the library
// INTEL_LIBITTNOTIFY64 names (tests/collector/collector_hooks.h); nothing
// else calls them, and they record nothing in the trace.

#include <cstdint>

#include "collector/internal/api_util.h"
#include "collector/internal/flusher.h"
#include "collector/internal/session.h"
#include "collector/internal/thread_state.h"

namespace ci = ittc::collector_internal;

// hold != 0: returns 1 once the flusher is parked between rounds (it then
// drains nothing until released or the process ends), 0 if no session runs.
// hold == 0: releases it; returns 1. Blocks while the flusher finishes the
// round it is in.
ITTC_EXPORT int ittc_test_hold_flusher(int hold) {
  if (hold != 0 && !ci::SessionRunning()) return 0;
  return ci::Flusher::HoldForTest(hold != 0) ? 1 : 0;
}

// How many times, so far in this process, a producer in block mode found
// its ring full and waited for the flusher.
ITTC_EXPORT unsigned long long ittc_test_blocked_reserves(void) {
  return ci::g_blocked_reserves.load(std::memory_order_relaxed);
}

// How many of the calling thread's calls were dropped so far because a
// signal handler made them while the thread was inside an ITT call (or
// attaching itself): the loss cause "reentrant".
ITTC_EXPORT unsigned long long ittc_test_reentrant_drops(void) {
  return ci::ReentrantDropsOfThisThread();
}

// The ticks (the collector's clock, RDTSC) the flusher has spent so far in
// this process compressing and framing events chunks, and writing to the
// trace file (g_flusher_stage_ticks).
ITTC_EXPORT void ittc_test_flusher_stage_ticks(unsigned long long* compress,
                                               unsigned long long* write) {
  *compress = ci::g_flusher_stage_ticks.compress.load(std::memory_order_relaxed);
  *write = ci::g_flusher_stage_ticks.write.load(std::memory_order_relaxed);
}
