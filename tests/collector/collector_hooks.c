#define _GNU_SOURCE
#include "tests/collector/collector_hooks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The collector's own symbol, or exit(3): the static part loaded it with
 * RTLD_LOCAL, so only its handle finds the hooks. */
static void* Hook(const char* name) {
  const char* path = getenv("INTEL_LIBITTNOTIFY64");
  void* lib = path != NULL ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
  void* sym = lib != NULL ? dlsym(lib, name) : NULL;
  if (sym == NULL) {
    fprintf(stderr, "collector_hooks: no %s in %s (%s)\n", name, path != NULL ? path : "(unset)",
            lib == NULL ? "not loaded" : dlerror());
    exit(3);
  }
  return sym;
}

void HoldFlusher(void) {
  int (*hold)(int) = (int (*)(int))Hook("ittc_test_hold_flusher");
  if (hold(1) != 1) {
    fprintf(stderr, "collector_hooks: no running flusher to hold\n");
    exit(3);
  }
}

void HoldFlusherThroughExit(void) {
  int (*hold)(int) = (int (*)(int))Hook("ittc_test_hold_flusher");
  if (hold(2) != 1) {
    fprintf(stderr, "collector_hooks: no running flusher to hold\n");
    exit(3);
  }
}

int Flushers(void) {
  int (*count)(void) = (int (*)(void))Hook("ittc_test_flushers");
  return count();
}

int FullRoundsAsked(void) {
  int (*count)(void) = (int (*)(void))Hook("ittc_test_full_rounds_asked");
  return count();
}

int FullRound(void) {
  int (*round)(void) = (int (*)(void))Hook("ittc_test_full_round");
  return round();
}

void HoldLastRound(int hold) {
  int (*set)(int) = (int (*)(int))Hook("ittc_test_hold_last_round");
  set(hold ? 1 : 0);
}

int WaitLastRoundHeld(void) {
  int (*wait)(int) = (int (*)(int))Hook("ittc_test_hold_last_round");
  return wait(2);
}

int FlusherOfThisThread(void) {
  int (*owner)(void) = (int (*)(void))Hook("ittc_test_flusher_of_this_thread");
  return owner();
}

unsigned FlusherMovesOfThisThread(void) {
  unsigned (*moves)(void) = (unsigned (*)(void))Hook("ittc_test_flusher_moves_of_this_thread");
  return moves();
}

unsigned long long BacklogOfThisThread(void) {
  unsigned long long (*backlog)(void) =
      (unsigned long long (*)(void))Hook("ittc_test_backlog_of_this_thread");
  return backlog();
}

int WaitUntilDrained(void) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (BacklogOfThisThread() != 0) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 120) return 5;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  return 0;
}

int FlusherCpuNs(unsigned long long* cpu_ns, int max) {
  int (*times)(unsigned long long*, int) =
      (int (*)(unsigned long long*, int))Hook("ittc_test_flusher_cpu_ns");
  return times(cpu_ns, max);
}

int MoveThisThread(int to) {
  int (*move)(int) = (int (*)(int))Hook("ittc_test_move_this_thread");
  return move(to);
}

void ReleaseFlusher(void) {
  int (*hold)(int) = (int (*)(int))Hook("ittc_test_hold_flusher");
  hold(0);
}

unsigned long long BlockedReserves(void) {
  unsigned long long (*count)(void) =
      (unsigned long long (*)(void))Hook("ittc_test_blocked_reserves");
  return count();
}

unsigned long long ReentrantDrops(void) {
  unsigned long long (*count)(void) =
      (unsigned long long (*)(void))Hook("ittc_test_reentrant_drops");
  return count();
}

void FlusherStageTicks(unsigned long long* compress, unsigned long long* write) {
  void (*ticks)(unsigned long long*, unsigned long long*) =
      (void (*)(unsigned long long*, unsigned long long*))Hook("ittc_test_flusher_stage_ticks");
  ticks(compress, write);
}

void WaitForBlockedReserves(unsigned long long n) {
  /* 10 minutes: a hang, not a slow machine (the producers need no CPU to
   * be counted, only to reach their full ring). */
  for (long waited_ms = 0; BlockedReserves() < n; ++waited_ms) {
    if (waited_ms > 10 * 60 * 1000) {
      fprintf(stderr, "collector_hooks: %llu of %llu producers blocked\n", BlockedReserves(), n);
      exit(4);
    }
    struct timespec ms = {0, 1000 * 1000};
    nanosleep(&ms, NULL);
  }
}
