/* Several flushers: THREADS threads each set a counter of their own to 0,
 * 1, 2, ... EVENTS-1, and MOVES times along the way ask the collector to
 * move their ring to the next flusher (a test hook; flusher 0 does the
 * same to spread fast threads), setting the next values while the move
 * is under way, and waiting for it at their end. flushers_test checks that every value is in the
 * trace, in order, whatever flusher wrote it.
 *
 * Prints "flushers <n>" (flusher threads running at the start), then per
 * thread "moves worker-<i> <n>" (moves that happened). Ends with `return`
 * or, with "detach", after __itt_detach().
 *
 * Usage: flushers_program THREADS EVENTS MOVES return|detach
 *
 * With "fullrounds N": N threads, one after the other, each record a value
 * and ask for a full round (as a flight dump does) at once, while their
 * ring is new to the collector; then three times ask for a move to the
 * next flusher, record a value and ask for a full round while the move
 * may be under way. After each full round, nothing the thread recorded
 * before it may be left in its ring. Prints "undrained <i> <step> <bytes>"
 * for each that is, and exits with 8 if any was.
 *
 * With "stoprounds N": N threads loop, each asking for a move of its ring
 * to the next flusher, recording a value and asking for a full round,
 * while the main thread, once every thread has had 20 rounds served,
 * ends the session (__itt_detach). The threads go on until a round finds
 * no flusher running; every round served, those the stopping flushers
 * serve too, must have drained the thread's ring. Prints "undrained ..."
 * as "fullrounds" does, then "served <rounds> <rounds that returned after
 * the main thread began to detach>" (whether any round overlapped the
 * stop is up to the scheduler; the count says how many may have).
 *
 * With "lastround": a thread records a value; flusher 0 is held in its
 * last rounds (a test hook) while another thread detaches; once it waits
 * there, a third asks for a full round, and the hold is released once
 * the round is asked. The last round must serve it: exits 0 if it was
 * served and the first thread's ring is empty, 10 if it was not served,
 * 11 if the ring still holds bytes. */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/collector/collector_hooks.h"

static __itt_domain* g_domain;
static long g_events;
static int g_moves;
static int g_flushers;

struct Worker {
  int index;
  int moves_done;
};

static double NowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits until done(arg) is nonzero, looking every 100 us: 1 then, 0 once
 * `seconds` have passed (a deadline only a hang reaches). */
static int WaitUntil(int (*done)(const void*), const void* arg, double seconds) {
  const double deadline = NowSeconds() + seconds;
  while (!done(arg)) {
    if (NowSeconds() > deadline) return 0;
    struct timespec nap = {0, 100 * 1000};
    nanosleep(&nap, NULL);
  }
  return 1;
}

/* WaitUntil's conditions. */
static int MovedSince(const void* moves) {
  return FlusherMovesOfThisThread() != *(const unsigned*)moves;
}
static int HasFlusher(const void* unused) {
  (void)unused;
  return FlusherOfThisThread() >= 0;
}
static int RoundsAskedPast(const void* asked) { return FullRoundsAsked() != *(const int*)asked; }
static int g_warm_threads;
static int AllWarm(const void* n) {
  return __atomic_load_n(&g_warm_threads, __ATOMIC_ACQUIRE) >= *(const int*)n;
}

/* Starts the session and its flushers with a recording call. */
static void StartSession(void) {
  g_domain = __itt_domain_create("flushers");
  __itt_marker(g_domain, __itt_null, __itt_string_handle_create("start"), __itt_scope_global);
  g_flushers = Flushers();
}

/* The counter of worker `index`, named in `name` ("worker-<index>"). */
static __itt_counter WorkerCounter(int index, char name[32]) {
  snprintf(name, 32, "worker-%d", index);
  return __itt_counter_create_typed(name, "flushers", __itt_metadata_u64);
}

/* Waits for the calling thread's ring to have changed flusher more than
 * `moves` times: to the flusher asked for, or to another one flusher 0
 * chose meanwhile to spread the threads (which may also move it back).
 * Only a hang reaches the deadline (the owner's next round may wait for a
 * CPU). */
static void WaitForMove(const char* name, unsigned moves) {
  if (!WaitUntil(MovedSince, &moves, 600)) {
    fprintf(stderr, "%s: never moved from flusher %d\n", name, FlusherOfThisThread());
    exit(6);
  }
}

static void* Run(void* arg) {
  struct Worker* w = (struct Worker*)arg;
  char name[32];
  snprintf(name, sizeof(name), "worker-%d", w->index);
  __itt_thread_set_name(name);
  __itt_counter counter = __itt_counter_create_typed(name, "flushers", __itt_metadata_u64);
  unsigned long long value = 0;
  int asked = 0;
  unsigned moves = 0;
  /* MOVES + 1 segments of values; a move asked for at the end of one
   * segment is under way while the next one's values are set. */
  for (int segment = 0; segment <= g_moves; ++segment) {
    const long end = g_events * (segment + 1) / (g_moves + 1);
    for (; (long)value < end; ++value) __itt_counter_set_value(counter, &value);
    if (asked) {
      WaitForMove(name, moves);
      ++w->moves_done;
      asked = 0;
    }
    if (segment < g_moves && g_flushers >= 2) {
      /* A thread flusher 0 has not seen yet has no flusher to leave. */
      if (!WaitUntil(HasFlusher, NULL, 600)) {
        fprintf(stderr, "%s: never given a flusher\n", name);
        exit(7);
      }
      moves = FlusherMovesOfThisThread();
      const int to = (FlusherOfThisThread() + 1) % g_flushers;
      asked = 1;
      if (MoveThisThread(to) != 1) {
        fprintf(stderr, "%s: cannot ask for a move to flusher %d\n", name, to);
        exit(5);
      }
    }
  }
  return NULL;
}

static int g_undrained;
static long g_served;
static long g_served_during_stop;

/* After a full round, asked after the thread's last record: every byte of
 * its ring is drained. */
static void ExpectDrained(int index, int step) {
  if (FullRound() != 1) {
    fprintf(stderr, "worker-%d: the full round was never served\n", index);
    exit(9);
  }
  const unsigned long long left = BacklogOfThisThread();
  if (left != 0) {
    printf("undrained %d %d %llu\n", index, step, left);
    __atomic_add_fetch(&g_undrained, 1, __ATOMIC_RELAXED);
  }
}

static void* FullRounds(void* arg) {
  const int index = *(const int*)arg;
  char name[32];
  __itt_counter counter = WorkerCounter(index, name);
  unsigned long long value = 0;
  __itt_counter_set_value(counter, &value);
  ExpectDrained(index, 0);
  /* The full round ran flusher 0's, which gave the thread its flusher. */
  for (int step = 1; step <= 3 && g_flushers >= 2; ++step) {
    if (MoveThisThread((FlusherOfThisThread() + 1) % g_flushers) != 1) {
      fprintf(stderr, "%s: cannot ask for a move\n", name);
      exit(5);
    }
    ++value;
    __itt_counter_set_value(counter, &value);
    ExpectDrained(index, step);
  }
  return NULL;
}

static int g_detaching;

static void* StopRounds(void* arg) {
  const int index = *(const int*)arg;
  char name[32];
  __itt_counter counter = WorkerCounter(index, name);
  unsigned long long value = 0;
  long served = 0;
  long during_stop = 0;
  for (;;) {
    /* Not once the session stops (the hook waits for the stop to end):
     * the rounds asked then go on. */
    const int owner = FlusherOfThisThread();
    if (owner >= 0 && !__atomic_load_n(&g_detaching, __ATOMIC_ACQUIRE)) {
      MoveThisThread((owner + 1) % g_flushers);
    }
    ++value;
    __itt_counter_set_value(counter, &value);
    if (FullRound() != 1) break;
    ++served;
    if (__atomic_load_n(&g_detaching, __ATOMIC_ACQUIRE)) ++during_stop;
    const unsigned long long left = BacklogOfThisThread();
    if (left != 0) {
      printf("undrained %d %ld %llu\n", index, served, left);
      __atomic_add_fetch(&g_undrained, 1, __ATOMIC_RELAXED);
    }
    if (served == 20) __atomic_add_fetch(&g_warm_threads, 1, __ATOMIC_RELEASE);
  }
  if (served < 20) {
    fprintf(stderr, "%s: only %ld full rounds served\n", name, served);
    exit(9);
  }
  __atomic_add_fetch(&g_served_during_stop, during_stop, __ATOMIC_RELAXED);
  __atomic_add_fetch(&g_served, served, __ATOMIC_RELAXED);
  return NULL;
}

static void* Detach(void* arg) {
  (void)arg;
  __itt_detach();
  return NULL;
}

static int g_last_round_served = -1;

static void* AskFullRound(void* arg) {
  (void)arg;
  __atomic_store_n(&g_last_round_served, FullRound(), __ATOMIC_RELEASE);
  return NULL;
}

static int LastRound(void) {
  StartSession();
  __itt_counter counter = __itt_counter_create_typed("value", "flushers", __itt_metadata_u64);
  unsigned long long value = 1;
  __itt_counter_set_value(counter, &value);
  HoldLastRound(1);
  pthread_t detach;
  if (pthread_create(&detach, NULL, Detach, NULL) != 0) return 4;
  /* (Every early exit frees the hold first: the exit waits for the stop,
   * which waits for flusher 0.) */
  if (WaitLastRoundHeld() != 1) {
    fprintf(stderr, "flusher 0 never reached its last round\n");
    HoldLastRound(0);
    return 7;
  }
  const int asked = FullRoundsAsked();
  pthread_t ask;
  if (pthread_create(&ask, NULL, AskFullRound, NULL) != 0) {
    HoldLastRound(0);
    return 4;
  }
  /* (With the hook's two deadlines, within the test's time limit.) */
  if (!WaitUntil(RoundsAskedPast, &asked, 30)) {
    fprintf(stderr, "the full round was never asked\n");
    HoldLastRound(0);
    return 7;
  }
  HoldLastRound(0);
  pthread_join(ask, NULL);
  pthread_join(detach, NULL);
  const int served = __atomic_load_n(&g_last_round_served, __ATOMIC_ACQUIRE);
  /* What this thread recorded before the stop is drained. */
  const unsigned long long left = BacklogOfThisThread();
  printf("served %d\nundrained %llu\n", served, left);
  fflush(stdout);
  return served != 1 ? 10 : left != 0 ? 11 : 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "lastround") == 0) return LastRound();
  if (argc == 3 && strcmp(argv[1], "stoprounds") == 0) {
    StartSession();
    const int n = atoi(argv[2]);
    pthread_t ids[64];
    int indices[64];
    if (n < 1 || n > 64) return 2;
    for (int i = 0; i < n; ++i) {
      indices[i] = i;
      if (pthread_create(&ids[i], NULL, StopRounds, &indices[i]) != 0) return 4;
    }
    /* (Within the test's time limit: a hang is reported by the program.) */
    if (!WaitUntil(AllWarm, &n, 200)) {
      fprintf(stderr, "the threads never had 20 full rounds each\n");
      return 7;
    }
    __atomic_store_n(&g_detaching, 1, __ATOMIC_RELEASE);
    __itt_detach();
    for (int i = 0; i < n; ++i) pthread_join(ids[i], NULL);
    printf("served %ld %ld\n", g_served, g_served_during_stop);
    fflush(stdout);
    return g_undrained == 0 ? 0 : 8;
  }
  if (argc == 3 && strcmp(argv[1], "fullrounds") == 0) {
    StartSession();
    const int n = atoi(argv[2]);
    for (int i = 0; i < n; ++i) {
      pthread_t id;
      if (pthread_create(&id, NULL, FullRounds, &i) != 0) return 4;
      pthread_join(id, NULL);
    }
    fflush(stdout);
    return g_undrained == 0 ? 0 : 8;
  }
  if (argc != 5) return 2;
  const int threads = atoi(argv[1]);
  g_events = atol(argv[2]);
  g_moves = atoi(argv[3]);
  const int detach = strcmp(argv[4], "detach") == 0;
  StartSession();
  printf("flushers %d\n", g_flushers);
  struct Worker* workers = calloc((size_t)threads, sizeof(struct Worker));
  pthread_t* ids = calloc((size_t)threads, sizeof(pthread_t));
  for (int i = 0; i < threads; ++i) {
    workers[i].index = i;
    if (pthread_create(&ids[i], NULL, Run, &workers[i]) != 0) return 4;
  }
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  for (int i = 0; i < threads; ++i) printf("moves worker-%d %d\n", i, workers[i].moves_done);
  fflush(stdout);
  free(workers);
  free(ids);
  if (detach) __itt_detach();
  return 0;
}
