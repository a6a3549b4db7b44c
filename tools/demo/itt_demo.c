/* itt_demo: a small program instrumented with ITT, run by tools/quickstart.sh.
 *
 * Four worker threads each render a number of "frames"; every frame runs a
 * few nested tasks, bumps a counter, and drops a marker now and then. The
 * main thread names itself, submits a frame per round, and sets a
 * queue-depth counter. Run it under the collector with
 *   INTEL_LIBITTNOTIFY64=.../libittcollector.so ./itt_demo
 * and look at the trace with itt-dump. Without a collector it just runs.
 */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define kWorkers 4
#define kFramesPerWorker 50

static __itt_domain* g_domain;
static __itt_string_handle* g_frame_work;
static __itt_string_handle* g_simulate;
static __itt_string_handle* g_render;
static __itt_string_handle* g_checkpoint;
static __itt_counter g_items;

/* Burns roughly `ns` nanoseconds of CPU, so tasks have real durations. */
static unsigned long Spin(long ns) {
  struct timespec start, now;
  unsigned long x = 1;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    for (int i = 0; i < 200; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < ns);
  return x;
}

static void* Worker(void* arg) {
  long index = (long)arg;
  char name[32];
  snprintf(name, sizeof(name), "worker-%ld", index);
  __itt_thread_set_name(name);
  unsigned long sink = 0;
  for (int frame = 0; frame < kFramesPerWorker; ++frame) {
    __itt_frame_begin_v3(g_domain, NULL);
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_frame_work);
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_simulate);
    sink += Spin(100000 + 20000 * index);
    __itt_task_end(g_domain);
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_render);
    sink += Spin(50000);
    __itt_task_end(g_domain);
    __itt_task_end(g_domain);
    __itt_counter_inc(g_items);
    if (frame % 10 == 0) __itt_marker(g_domain, __itt_null, g_checkpoint, __itt_scope_track);
    __itt_frame_end_v3(g_domain, NULL);
  }
  return (void*)sink;
}

int main(void) {
  g_domain = __itt_domain_create("demo");
  g_frame_work = __itt_string_handle_create("frame_work");
  g_simulate = __itt_string_handle_create("simulate");
  g_render = __itt_string_handle_create("render");
  g_checkpoint = __itt_string_handle_create("checkpoint");
  g_items = __itt_counter_create("items_done", "demo");
  __itt_counter depth = __itt_counter_create_typed("queue_depth", "demo", __itt_metadata_u64);
  __itt_thread_set_name("main");

  pthread_t threads[kWorkers];
  for (long i = 0; i < kWorkers; ++i) pthread_create(&threads[i], NULL, Worker, (void*)i);
  for (unsigned long long round = 0; round < 20; ++round) {
    __itt_timestamp begin = __itt_get_timestamp();
    Spin(500000);
    unsigned long long value = kWorkers * 10 - round;
    __itt_counter_set_value(depth, &value);
    __itt_frame_submit_v3(g_domain, NULL, begin, __itt_get_timestamp());
  }
  for (int i = 0; i < kWorkers; ++i) pthread_join(threads[i], NULL);
  __itt_marker(g_domain, __itt_null, g_checkpoint, __itt_scope_global);
  printf("itt_demo: %d workers rendered %d frames each\n", kWorkers, kFramesPerWorker);
  return 0;
}
