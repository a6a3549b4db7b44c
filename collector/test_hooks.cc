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
#include "collector/internal/timebase.h"

namespace ci = ittc::collector_internal;

// hold != 0: returns 1 once the flusher is parked between rounds (it then
// drains nothing until released or the process ends), 0 if no session runs.
// hold == 0: releases it; returns 1. Blocks while the flusher finishes the
// round it is in.
// hold == 2: the same, and the hold outlasts the end of the session (the
// flushers stay parked, so the exit waits ITTC_EXIT_TIMEOUT_MS and the
// trace ends without its end record): a stuck flusher.
ITTC_EXPORT int ittc_test_hold_flusher(int hold) {
  if (hold != 0 && !ci::SessionRunning()) return 0;
  if (hold == 2) return ci::Flusher::HoldThroughStopForTest() ? 1 : 0;
  return ci::Flusher::HoldForTest(hold != 0) ? 1 : 0;
}

// How many flusher threads run now.
ITTC_EXPORT int ittc_test_flushers(void) { return ci::Flusher::RunningForTest(); }

// How many full rounds were asked of the flushers so far (a flight dump
// asks one before it is written).
ITTC_EXPORT int ittc_test_full_rounds_asked(void) { return ci::Flusher::FullRoundsAskedForTest(); }

// Asks every flusher for a full round (as a flight dump does) and waits
// for it: 1 once every flusher has served it, 0 when none has and none
// runs (no session, or its flushers have stopped) or at a deadline only
// a hang reaches (two minutes). While the session stops, a round is served by
// the flushers' last rounds.
ITTC_EXPORT int ittc_test_full_round(void) {
  const uint32_t ticket = ci::Flusher::RequestFullRound();
  return ci::Flusher::WaitForRound(ticket, ci::DeadlineAfterMs(120 * 1000)) ? 1 : 0;
}

// hold == 1: flusher 0 will wait in its last rounds, once the other
// flushers have stopped and before it looks at the full rounds asked,
// until released (hold == 0); returns 1. hold == 2: waits until flusher 0
// waits there; 1 then, 0 at a deadline only a hang reaches (two minutes).
// Takes no session lock: callable while the session stops.
ITTC_EXPORT int ittc_test_hold_last_round(int hold) {
  if (hold == 2) {
    return ci::Flusher::WaitLastRoundHeldForTest(ci::DeadlineAfterMs(120 * 1000)) ? 1 : 0;
  }
  ci::Flusher::HoldLastRoundForTest(hold != 0);
  return 1;
}

// Fills cpu_ns with the CPU time of each flusher thread so far (flusher 0
// first), at most `max`; returns how many (0 without a running session).
ITTC_EXPORT int ittc_test_flusher_cpu_ns(unsigned long long* cpu_ns, int max) {
  ci::Flusher* flushers = ci::SessionFlushersForTest();
  if (flushers == nullptr || max <= 0) return 0;
  uint64_t times[ci::kMaxFlushers];
  const int n = flushers->CpuTimesNs(times, max < ci::kMaxFlushers ? max : ci::kMaxFlushers);
  for (int i = 0; i < n; ++i) cpu_ns[i] = times[i];
  return n;
}

// The flusher that drains the calling thread's ring (-1: none yet, or the
// thread has not recorded).
ITTC_EXPORT int ittc_test_flusher_of_this_thread(void) {
  const ci::ThreadState* t = ci::tls_thread;
  // Acquire pairs with the release of a move (FlusherWorker::HandOver).
  return t == nullptr ? -1 : t->flusher_owner.load(std::memory_order_acquire);
}

// Bytes the calling thread's ring holds that no flusher has drained yet.
ITTC_EXPORT unsigned long long ittc_test_backlog_of_this_thread(void) {
  ci::ThreadState* t = ci::tls_thread;
  return t == nullptr ? 0 : t->ring.RefreshFill();  // the producer's own view
}

// How many times the calling thread's ring changed flusher so far.
ITTC_EXPORT unsigned ittc_test_flusher_moves_of_this_thread(void) {
  const ci::ThreadState* t = ci::tls_thread;
  // Acquire pairs with the release of a move (FlusherWorker::HandOver).
  return t == nullptr ? 0 : t->flusher_moves.load(std::memory_order_acquire);
}

// Asks that the calling thread's ring move to flusher `to` (as flusher 0
// does to spread fast threads). Returns 1 if asked, 0 if the thread has not
// recorded or there is no such flusher. The move happens at the owner's
// next round: ittc_test_flusher_moves_of_this_thread tells when.
ITTC_EXPORT int ittc_test_move_this_thread(int to) {
  ci::ThreadState* t = ci::tls_thread;
  ci::Flusher* flushers = ci::SessionFlushersForTest();
  if (t == nullptr || flushers == nullptr) return 0;
  return flushers->MoveForTest(t, to) ? 1 : 0;
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
