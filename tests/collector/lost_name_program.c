/* A thread that names itself while its ring is full: the naming's record
 * is dropped (counted), yet the trace must show the name. The flusher is
 * held while the worker overruns its ring (ITTC_RING_KB=64, drop mode),
 * then names itself; once the flusher is released and has drained the
 * ring, the worker records a few more tasks. A second worker, named
 * "ignoring-worker" first, calls __itt_thread_ignore while its ring is
 * full: the trace must show it ignored. Exits 0, or 3 or 4
 * (collector_hooks.h), or 5 if the backlog never empties before a deadline
 * only a hang reaches. */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <pthread.h>

#include "tests/collector/collector_hooks.h"

static __itt_domain* g_domain;
static pthread_barrier_t g_barrier; /* main and both workers */

static void RecordTasks(int n) {
  for (int i = 0; i < n; ++i) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, NULL);
    __itt_task_end(g_domain);
  }
}

static void* Worker(void* arg) {
  const int ignoring = arg != NULL;
  if (ignoring) __itt_thread_set_name("ignoring-worker");
  pthread_barrier_wait(&g_barrier); /* the flusher is held */
  RecordTasks(40000);               /* far past 64 KiB */
  if (ignoring) {
    __itt_thread_ignore();
  } else {
    __itt_thread_set_name("my-worker");
  }
  pthread_barrier_wait(&g_barrier); /* main releases the flusher */
  const int drained = WaitUntilDrained();
  if (drained != 0) return (void*)(long)drained;
  RecordTasks(10);
  return NULL;
}

int main(void) {
  g_domain = __itt_domain_create("lost_name");
  RecordTasks(1); /* loads the collector and starts the session */
  pthread_barrier_init(&g_barrier, NULL, 3);
  pthread_t ids[2];
  if (pthread_create(&ids[0], NULL, Worker, NULL) != 0) return 2;
  if (pthread_create(&ids[1], NULL, Worker, &g_barrier) != 0) return 2;
  HoldFlusher();
  pthread_barrier_wait(&g_barrier);
  pthread_barrier_wait(&g_barrier);
  ReleaseFlusher();
  int status = 0;
  for (int i = 0; i < 2; ++i) {
    void* result = NULL;
    pthread_join(ids[i], &result);
    if (result != NULL) status = (int)(long)result;
  }
  return status;
}
