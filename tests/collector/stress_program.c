/* Stress: N threads call task_begin/task_end as fast as they can. First,
 * with the collector's flusher held (a test hook), each emits HELD pairs,
 * more than a small ring holds, so every ring overflows whatever the
 * machine's load; then the flusher is released and they race it for
 * SECONDS. The flusher is released when every thread has finished its held
 * pairs ("done") or when every thread waits for room in block mode
 * ("blocked"). Prints each thread's name and how many events it emitted,
 * then "blocked_reserves <n>": how often a producer waited for room.
 *
 * Usage: stress_program SECONDS THREADS HELD done|blocked */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/collector/collector_hooks.h"

static __itt_domain* g_domain;
static __itt_string_handle* g_name;
static double g_seconds;
static long g_held;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_held_done; /* guarded by g_mu */
static int g_released;  /* guarded by g_mu */

struct Result {
  char name[32];
  unsigned long long emitted;
};

static double NowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void* Worker(void* arg) {
  struct Result* r = (struct Result*)arg;
  __itt_thread_set_name(r->name);
  r->emitted = 1;
  for (long i = 0; i < g_held; ++i) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_name);
    __itt_task_end(g_domain);
    r->emitted += 2;
  }
  pthread_mutex_lock(&g_mu);
  ++g_held_done;
  pthread_cond_broadcast(&g_cv);
  while (!g_released) pthread_cond_wait(&g_cv, &g_mu);
  pthread_mutex_unlock(&g_mu);
  /* The duration only sizes the run; nothing is asserted about it. */
  double start = NowSeconds();
  for (unsigned long i = 0;; ++i) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_name);
    __itt_task_end(g_domain);
    r->emitted += 2;
    if ((i & 255) == 0 && NowSeconds() - start >= g_seconds) break;
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  g_seconds = atof(argv[1]);
  int n = atoi(argv[2]);
  g_held = atol(argv[3]);
  int release_when_blocked = strcmp(argv[4], "blocked") == 0;
  if (!release_when_blocked && strcmp(argv[4], "done") != 0) return 2;
  g_domain = __itt_domain_create("stress");
  g_name = __itt_string_handle_create("work");
  __itt_thread_set_name("stress-main"); /* loads the collector, starts its session */
  HoldFlusher();
  struct Result* results = calloc((size_t)n, sizeof(struct Result));
  pthread_t* threads = calloc((size_t)n, sizeof(pthread_t));
  for (int i = 0; i < n; ++i) {
    snprintf(results[i].name, sizeof(results[i].name), "stress-%d", i);
    pthread_create(&threads[i], NULL, Worker, &results[i]);
  }
  if (release_when_blocked) {
    WaitForBlockedReserves((unsigned long long)n);
  } else {
    pthread_mutex_lock(&g_mu);
    while (g_held_done < n) pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
  }
  ReleaseFlusher();
  pthread_mutex_lock(&g_mu);
  g_released = 1;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < n; ++i) printf("%s %llu\n", results[i].name, results[i].emitted);
  printf("blocked_reserves %llu\n", BlockedReserves());
  /* The trace closed (every chunk compressed and written): what the
   * flusher counted for those stages. */
  __itt_detach();
  unsigned long long compress = 0, write = 0;
  FlusherStageTicks(&compress, &write);
  printf("compress_ticks %llu\nwrite_ticks %llu\n", compress, write);
  free(threads);
  free(results);
  return 0;
}
