/* Stress: N threads call task_begin/task_end as fast as they can for S
 * seconds. Each thread prints its name, how many events it emitted, and how
 * many times it gave up the CPU voluntarily (blocked) while doing so:
 * preemption by a busy machine does not count, waiting for the flusher does.
 *
 * Usage: stress_program SECONDS THREADS */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static __itt_domain* g_domain;
static __itt_string_handle* g_name;
static double g_seconds;

struct Result {
  char name[32];
  unsigned long long emitted;
  long voluntary_switches;
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
  struct rusage before, after;
  getrusage(RUSAGE_THREAD, &before);
  double start = NowSeconds();
  for (unsigned long i = 0;; ++i) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_name);
    __itt_task_end(g_domain);
    r->emitted += 2;
    if ((i & 255) == 0 && NowSeconds() - start >= g_seconds) break;
  }
  getrusage(RUSAGE_THREAD, &after);
  r->voluntary_switches = after.ru_nvcsw - before.ru_nvcsw;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  g_seconds = atof(argv[1]);
  int n = atoi(argv[2]);
  g_domain = __itt_domain_create("stress");
  g_name = __itt_string_handle_create("work");
  struct Result* results = calloc((size_t)n, sizeof(struct Result));
  pthread_t* threads = calloc((size_t)n, sizeof(pthread_t));
  for (int i = 0; i < n; ++i) {
    snprintf(results[i].name, sizeof(results[i].name), "stress-%d", i);
    pthread_create(&threads[i], NULL, Worker, &results[i]);
  }
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < n; ++i) {
    printf("%s %llu %ld\n", results[i].name, results[i].emitted, results[i].voluntary_switches);
  }
  free(threads);
  free(results);
  return 0;
}
