/* For test programs run under the collector: its test hooks
 * (collector/test_hooks.cc), found in the library INTEL_LIBITTNOTIFY64
 * names. They let a program make a situation certain (a producer outrunning
 * the flusher) instead of hoping the machine's load produces it. */
#ifndef TESTS_COLLECTOR_COLLECTOR_HOOKS_H_
#define TESTS_COLLECTOR_COLLECTOR_HOOKS_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Returns once the collector's flusher is parked between two rounds; it
 * drains no ring until ReleaseFlusher() or the end of the process.
 * REQUIRES: a recording ITT call (not domain or handle creation, which the
 * static part answers without loading the collector) has started the session. Exits the process
 * with status 3 if the collector is not loaded or has no running session. */
void HoldFlusher(void);
void ReleaseFlusher(void);

/* How many times a producer in block mode found its ring full and waited. */
unsigned long long BlockedReserves(void);

/* Returns once BlockedReserves() >= n: with the flusher held, n producers
 * that each overran their ring are all waiting. Exits the process with
 * status 4 if that does not happen before a deadline only a hang reaches. */
void WaitForBlockedReserves(unsigned long long n);

/* How many of the calling thread's ITT calls the collector dropped so far
 * because a signal handler made them while the thread was inside an ITT
 * call or attaching itself (loss cause "reentrant"). */
unsigned long long ReentrantDrops(void);

/* The ticks the flusher has spent so far compressing and framing events
 * chunks, and writing the trace file. */
void FlusherStageTicks(unsigned long long* compress, unsigned long long* write);

/* Several flushers (collector/internal/flusher.h): how many run, which
 * one drains the calling thread's ring (-1: none yet), how many times the
 * ring changed flusher so far, and a request that the calling thread's
 * ring move to flusher `to` (0: no such flusher, or the thread has not
 * recorded yet; else 1, and the move happens at the owner's next round). */
int Flushers(void);
/* Full rounds asked of the flushers so far (a flight dump asks one). */
int FullRoundsAsked(void);
/* Asks every flusher for a full round, as a flight dump does, and waits
 * for it: 1 once served (every ring drained of what it held at the
 * request), 0 when no flusher has served it and none runs (no session,
 * or it has stopped) or at a deadline only a hang reaches. */
int FullRound(void);
/* With `hold`, flusher 0 waits in its last rounds (once the other
 * flushers have stopped, before it looks at the full rounds asked) until
 * HoldLastRound(0). WaitLastRoundHeld returns 1 once it waits there, 0
 * at a deadline only a hang reaches. Neither takes the session's lock. */
void HoldLastRound(int hold);
int WaitLastRoundHeld(void);
int FlusherOfThisThread(void);
unsigned FlusherMovesOfThisThread(void);
int MoveThisThread(int to);

/* Bytes of the calling thread's ring no flusher has drained yet. */
unsigned long long BacklogOfThisThread(void);
/* Returns 0 once BacklogOfThisThread() is 0, or 5 at a deadline only a
 * hang reaches. */
int WaitUntilDrained(void);

/* The CPU time of each flusher thread so far, flusher 0 first, at most
 * `max`; returns how many. */
int FlusherCpuNs(unsigned long long* cpu_ns, int max);

/* Like HoldFlusher, and the flushers stay parked through the end of the
 * session: the exit then waits ITTC_EXIT_TIMEOUT_MS for them in vain. */
void HoldFlusherThroughExit(void);

#ifdef __cplusplus
}
#endif

#endif /* TESTS_COLLECTOR_COLLECTOR_HOOKS_H_ */
