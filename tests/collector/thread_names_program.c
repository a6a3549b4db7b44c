/* Threads that name themselves with pthread_setname_np and exit before the
 * process ends. The trace must keep each one's name:
 *  - "drained-alive" records a task, waits until the flusher has drained
 *    its ring (so its info was written while it ran), then exits;
 *  - "exit-unseen" records a task and exits while the flusher is held, so
 *    the flusher first meets it after it is gone.
 * Both are joined before the process ends, whose last round writes each
 * exited thread's info again. Exits 0, or 3 or 4 (collector_hooks.h), or 5
 * if the backlog never empties before a deadline only a hang reaches. */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <pthread.h>

#include "tests/collector/collector_hooks.h"

static __itt_domain* g_domain;

static void RecordOneTask(void) {
  __itt_task_begin(g_domain, __itt_null, __itt_null, NULL);
  __itt_task_end(g_domain);
}

static void* DrainedAlive(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "drained-alive");
  RecordOneTask();
  return (void*)(long)WaitUntilDrained();
}

static void* ExitUnseen(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "exit-unseen");
  RecordOneTask();
  return NULL;
}

static int RunAndJoin(void* (*fn)(void*)) {
  pthread_t id;
  void* result = NULL;
  if (pthread_create(&id, NULL, fn, NULL) != 0) return 2;
  pthread_join(id, &result);
  return (int)(long)result;
}

int main(void) {
  g_domain = __itt_domain_create("thread_names");
  RecordOneTask(); /* loads the collector and starts the session */
  int rc = RunAndJoin(DrainedAlive);
  if (rc != 0) return rc;
  HoldFlusher();
  rc = RunAndJoin(ExitUnseen);
  ReleaseFlusher();
  return rc;
}
