/* A small ITT program for itt-dump's end-to-end test: two threads, each
 * with E2E_OUTER "outer" tasks holding one "inner" task, a counter set on
 * every outer task, a frame per outer task on the main thread, a marker, a
 * named sync object acquired E2E_OUTER times by the worker, and one heap
 * allocation and free. e2e_test.cc checks itt-dump's view of the trace. */
#include <ittnotify.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define E2E_OUTER 500

static __itt_domain* g_domain;
static __itt_string_handle* g_outer;
static __itt_string_handle* g_inner;
static __itt_counter g_counter;
static int g_lock;

static void Work(int frames) {
  for (int i = 0; i < E2E_OUTER; ++i) {
    if (frames) __itt_frame_begin_v3(g_domain, NULL);
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_outer);
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_inner);
    __itt_task_end(g_domain);
    uint64_t v = (uint64_t)i;
    __itt_counter_set_value(g_counter, &v);
    __itt_task_end(g_domain);
    if (frames) __itt_frame_end_v3(g_domain, NULL);
  }
}

static void* Worker(void* arg) {
  (void)arg;
  __itt_thread_set_name("e2e-worker");
  __itt_sync_create(&g_lock, "e2e-mutex", "e2e-lock", 0);
  for (int i = 0; i < E2E_OUTER; ++i) {
    __itt_sync_prepare(&g_lock);
    __itt_sync_acquired(&g_lock);
    __itt_sync_releasing(&g_lock);
  }
  Work(0);
  return NULL;
}

int main(void) {
  g_domain = __itt_domain_create("e2e");
  g_outer = __itt_string_handle_create("outer");
  g_inner = __itt_string_handle_create("inner");
  g_counter = __itt_counter_create_typed("progress", "e2e", __itt_metadata_u64);
  __itt_thread_set_name("e2e-main");
  __itt_heap_function heap = __itt_heap_function_create("e2e_alloc", "e2e");
  __itt_heap_allocate_begin(heap, 100, 0);
  void* p = malloc(100);
  __itt_heap_allocate_end(heap, &p, 100, 0);
  pthread_t t;
  if (pthread_create(&t, NULL, Worker, NULL) != 0) return 1;
  __itt_marker(g_domain, __itt_null, g_outer, __itt_scope_global);
  Work(1);
  pthread_join(t, NULL);
  __itt_heap_free_begin(heap, p);
  free(p);
  __itt_heap_free_end(heap, p);
  return 0;
}
