/* ITTC_DOMAINS and ITTC_START_PAUSED, seen from the program: prints each
 * domain's flags after creation, records tasks on two domains, resumes,
 * and records again. Then counters, a histogram and heap functions of
 * both domains, which have no flags (their calls reach the collector):
 * only those of the kept domain, and those without a domain, record. Then
 * scoped pauses and resumes: only a scope with the host's bit pauses or
 * resumes (a task between each). Last, __itt_thread_ignore: the thread's
 * later calls record nothing, but for control calls (pause, resume). */
#include <ittnotify.h>
#include <stdio.h>

int main(void) {
  __itt_domain* keep = __itt_domain_create("keep.me");
  __itt_domain* drop = __itt_domain_create("drop.me");
  __itt_string_handle* before = __itt_string_handle_create("before_resume");
  __itt_string_handle* after = __itt_string_handle_create("after_resume");
  __itt_task_begin(keep, __itt_null, __itt_null, before);
  __itt_task_end(keep);
  __itt_resume();
  printf("%d %d\n", keep->flags, drop->flags);
  __itt_task_begin(keep, __itt_null, __itt_null, after);
  __itt_task_end(keep);
  __itt_task_begin(drop, __itt_null, __itt_null, after);
  __itt_task_end(drop);

  unsigned long long value = 7;
  __itt_counter kept_counter = __itt_counter_create("kept", "keep.me");
  __itt_counter no_domain_counter = __itt_counter_create("no_domain", NULL);
  __itt_counter dropped_counters[3] = {
      __itt_counter_create("dropped", "drop.me"),
      __itt_counter_create_typed("dropped_typed", "drop.me", __itt_metadata_u64),
      __itt_counter_create_v3(drop, "dropped_v3", __itt_metadata_u64)};
  for (int i = 0; i < 3; ++i) {
    __itt_counter_inc(dropped_counters[i]);
    __itt_counter_inc_delta(dropped_counters[i], 2);
    __itt_counter_set_value(dropped_counters[i], &value);
    __itt_counter_set_value_v3(dropped_counters[i], &value);
    __itt_counter_destroy(dropped_counters[i]);
  }
  __itt_counter_inc(kept_counter);
  __itt_counter_inc(no_domain_counter);

  unsigned long long ys[2] = {1, 2};
  __itt_histogram* dropped_histogram =
      __itt_histogram_create(drop, "dropped", __itt_metadata_u64, __itt_metadata_u64);
  __itt_histogram_submit(dropped_histogram, 2, NULL, ys);

  __itt_heap_function kept_heap = __itt_heap_function_create("kept_alloc", "keep.me");
  __itt_heap_function dropped_heap = __itt_heap_function_create("dropped_alloc", "drop.me");
  void* block = &value;
  __itt_heap_allocate_begin(dropped_heap, 8, 0);
  __itt_heap_allocate_end(dropped_heap, &block, 8, 0);
  __itt_heap_free_begin(dropped_heap, block);
  __itt_heap_free_end(dropped_heap, block);
  __itt_heap_allocate_begin(kept_heap, 8, 0);
  __itt_heap_allocate_end(kept_heap, &block, 8, 0);

  __itt_string_handle* scoped = __itt_string_handle_create("scoped");
  __itt_pause_scoped(__itt_collection_scope_offload);
  __itt_task_begin(keep, __itt_null, __itt_null, scoped); /* recorded */
  __itt_task_end(keep);
  __itt_resume_scoped(__itt_collection_scope_offload);
  __itt_pause();
  __itt_resume_scoped(__itt_collection_scope_offload);
  __itt_task_begin(keep, __itt_null, __itt_null, scoped); /* paused */
  __itt_task_end(keep);
  __itt_resume_scoped(__itt_collection_scope_host);
  __itt_task_begin(keep, __itt_null, __itt_null, scoped); /* recorded */
  __itt_task_end(keep);

  __itt_thread_ignore();
  __itt_task_begin(keep, __itt_null, __itt_null, scoped); /* ignored */
  __itt_task_end(keep);
  __itt_counter_inc(kept_counter);
  __itt_pause();
  __itt_resume();
  __itt_task_begin(keep, __itt_null, __itt_null, scoped); /* ignored */
  __itt_task_end(keep);
  return 0;
}
