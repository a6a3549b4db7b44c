/* Calls every ITT and JIT API function once (some twice), on the main
 * thread, with the arguments in every_api_constants.h; some calls are made
 * while paused and must not be recorded. every_api_test.cc checks the trace. */
/* Overlapped _ex tasks are in the private part of the API, as in Intel's header. */
#define INTEL_ITTNOTIFY_API_PRIVATE
#include <dlfcn.h>
#include <ittnotify.h>
#include <jitprofiling.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/collector/every_api_constants.h"

/* The collector's ittc_recording_gate (collector/jit_api.cc), looked up in
 * the library the JIT static part loaded; NULL if it has none. */
static const int* RecordingGate(void) {
  const char* path = getenv("INTEL_JIT_PROFILER64");
  void* lib = path != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  if (lib == NULL) return NULL;
  const int* (*gate)(void) = (const int* (*)(void))(uintptr_t)dlsym(lib, "ittc_recording_gate");
  const int* result = gate != NULL ? gate() : NULL;
  dlclose(lib);
  return result;
}

static void GetClockInfo(__itt_clock_info* info, void* data) {
  (void)data;
  info->clock_freq = EA_CLOCK_HZ;
  info->clock_base = EA_CLOCK_BASE;
}

int main(void) {
  __itt_domain* d = __itt_domain_create(EA_DOMAIN);
  __itt_string_handle* task = __itt_string_handle_create(EA_TASK);
  __itt_string_handle* key = __itt_string_handle_create(EA_KEY);
  __itt_string_handle* fmt = __itt_string_handle_create(EA_FORMAT);
  __itt_string_handle* paused_task = __itt_string_handle_create(EA_PAUSED_TASK);
  __itt_id id = __itt_id_make((void*)EA_ID_ADDR, EA_ID_EXTRA);
  __itt_id parent = __itt_id_make((void*)EA_PARENT_ADDR, EA_PARENT_EXTRA);
  __itt_clock_domain* cd = __itt_clock_domain_create(GetClockInfo, NULL);

  __itt_thread_set_name(EA_THREAD);

  /* Tasks. */
  __itt_task_begin(d, id, parent, task);
  __itt_task_end(d);
  __itt_task_begin_fn(d, __itt_null, __itt_null, (void*)&GetClockInfo);
  __itt_task_end(d);
  __itt_task_group(d, id, parent, task);
  __itt_task_begin_overlapped(d, id, parent, task);
  __itt_task_end_overlapped(d, id);
  /* No parent: the collector keeps these in its compact ring form. */
  __itt_task_begin_overlapped(d, id, __itt_null, task);
  __itt_task_end_overlapped(d, id);
  __itt_task_begin_ex(d, cd, EA_USER_TS, id, parent, task);
  __itt_task_end_ex(d, cd, EA_USER_TS);
  /* No clock domain: the timestamp is in trace ticks already. */
  __itt_task_begin_ex(d, NULL, EA_USER_TS, __itt_null, __itt_null, task);
  __itt_task_end_ex(d, NULL, EA_USER_TS);
  __itt_task_begin_fn_ex(d, cd, EA_USER_TS, id, parent, (void*)&GetClockInfo);
  __itt_task_begin_overlapped_ex(d, cd, EA_USER_TS, id, parent, task);
  __itt_task_end_overlapped_ex(d, cd, EA_USER_TS, id);

  /* Regions, frames, markers, ids, relations. */
  __itt_region_begin(d, id, parent, task);
  __itt_region_end(d, id);
  __itt_frame_begin_v3(d, &id);
  __itt_frame_end_v3(d, &id);
  __itt_frame_begin_v3(d, NULL); /* the ring's header-bits form */
  __itt_frame_end_v3(d, NULL);
  __itt_timestamp t0 = __itt_get_timestamp();
  __itt_timestamp t1 = __itt_get_timestamp();
  __itt_frame_submit_v3(d, &id, t0, t1);
  __itt_marker(d, id, task, __itt_scope_global);
  __itt_marker(d, __itt_null, task, __itt_scope_track); /* the ring's packed form */
  __itt_marker_ex(d, cd, EA_USER_TS, id, task, __itt_scope_task);
  __itt_id_create(d, id);
  __itt_id_destroy(d, id);
  __itt_id_create_ex(d, cd, EA_USER_TS, id);
  __itt_id_destroy_ex(d, cd, EA_USER_TS, id);
  __itt_relation_add(d, id, __itt_relation_is_parent_of, parent);
  __itt_relation_add_to_current(d, __itt_relation_is_child_of, parent);
  __itt_relation_add_ex(d, cd, EA_USER_TS, id, __itt_relation_is_dependent_on, parent);
  __itt_relation_add_to_current_ex(d, cd, EA_USER_TS, __itt_relation_is_sibling_of, parent);

  /* Counters. */
  __itt_counter c = __itt_counter_create(EA_COUNTER, EA_DOMAIN);
  __itt_counter_inc(c);
  __itt_counter_inc_delta(c, EA_DELTA);
  __itt_counter_dec(c);
  __itt_counter_dec_delta(c, EA_DEC_DELTA);
  __itt_counter cs = __itt_counter_create_typed(EA_COUNTER_S32, EA_DOMAIN, __itt_metadata_s32);
  int s32 = EA_S32_VALUE;
  __itt_counter_set_value(cs, &s32);
  __itt_counter cdbl =
      __itt_counter_create_typed(EA_COUNTER_DOUBLE, EA_DOMAIN, __itt_metadata_double);
  double dbl = EA_DOUBLE_VALUE;
  __itt_counter_set_value_v3(cdbl, &dbl);
  __itt_counter cv3 = __itt_counter_create_v3(d, EA_COUNTER_V3, __itt_metadata_u64);
  unsigned long long u64 = EA_U64_VALUE;
  __itt_counter_set_value_ex(cv3, cd, EA_USER_TS, &u64);
  __itt_counter_inc_v3(d, task);
  __itt_counter_inc_delta_v3(d, task, EA_DELTA);
  __itt_counter_dec_v3(d, task);
  __itt_counter_dec_delta_v3(d, task, EA_DEC_DELTA);
  __itt_context_metadata meta[2];
  meta[0].type = __itt_context_unitsA;
  meta[0].value = (void*)"ops";
  unsigned long long max_val = 1000;
  meta[1].type = __itt_context_max_val;
  meta[1].value = &max_val;
  __itt_bind_context_metadata_to_counter(cv3, 2, meta);
  __itt_counter_destroy(c);

  /* Legacy events. */
  __itt_event ev = __itt_event_create(EA_EVENT, (int)sizeof(EA_EVENT) - 1);
  __itt_event_start(ev);
  __itt_event_end(ev);

  /* Metadata and histograms. */
  int ints[3] = {1, -2, 3};
  __itt_metadata_add(d, id, key, __itt_metadata_s32, 3, ints);
  /* One value with a null id: the ring's compact form (raw_record.h). */
  unsigned long long one_u64 = EA_META_U64;
  double one_double = EA_META_DOUBLE;
  short one_s16 = EA_META_S16;
  __itt_metadata_add(d, __itt_null, key, __itt_metadata_u64, 1, &one_u64);
  __itt_metadata_add(d, __itt_null, key, __itt_metadata_double, 1, &one_double);
  __itt_metadata_add(d, __itt_null, key, __itt_metadata_s16, 1, &one_s16);
  /* No items: "no metadata is added" (ittnotify.h): nothing recorded. */
  __itt_metadata_add(d, __itt_null, key, __itt_metadata_u64, 0, NULL);
  __itt_metadata_add_with_scope(d, __itt_scope_global, key, __itt_metadata_s32, 0, NULL);
  __itt_metadata_str_add(d, id, key, EA_STR_META, 0);
  __itt_metadata_add_with_scope(d, __itt_scope_global, key, __itt_metadata_s32, 3, ints);
  __itt_metadata_str_add_with_scope(d, __itt_scope_task, key, EA_STR_META, 5);
  __itt_formatted_metadata_add(d, fmt, 42, "x");
  __itt_formatted_metadata_add_overlapped(d, id, fmt, 42, "x");
  __itt_histogram* h =
      __itt_histogram_create(d, EA_HIST, __itt_metadata_u32, __itt_metadata_double);
  unsigned int xs[3] = {1, 2, 3};
  double ys[3] = {0.5, 1.5, 2.5};
  __itt_histogram_submit(h, 3, xs, ys);

  /* Sync. */
  static int object;
  __itt_sync_create(&object, EA_SYNC_TYPE, EA_SYNC_NAME, EA_SYNC_ATTR);
  __itt_sync_rename(&object, EA_SYNC_RENAME);
  __itt_sync_prepare(&object);
  __itt_sync_cancel(&object);
  __itt_sync_prepare(&object);
  __itt_sync_acquired(&object);
  __itt_sync_releasing(&object);
  __itt_sync_destroy(&object);

  /* Heap. */
  __itt_heap_function hf = __itt_heap_function_create(EA_HEAP_FN, EA_DOMAIN);
  void* p = malloc(EA_ALLOC_SIZE);
  __itt_heap_allocate_begin(hf, EA_ALLOC_SIZE, 1);
  __itt_heap_allocate_end(hf, &p, EA_ALLOC_SIZE, 1);
  void* q = p;
  __itt_heap_reallocate_begin(hf, p, EA_REALLOC_SIZE, 0);
  p = realloc(p, EA_REALLOC_SIZE);
  __itt_heap_reallocate_end(hf, q, &p, EA_REALLOC_SIZE, 0);
  __itt_heap_free_begin(hf, p);
  free(p);
  __itt_heap_free_end(hf, p);
  __itt_heap_internal_access_begin();
  __itt_heap_internal_access_end();
  __itt_heap_record_memory_growth_begin();
  __itt_heap_record_memory_growth_end();
  __itt_heap_reset_detection(EA_HEAP_MASK);
  __itt_heap_record(EA_HEAP_MASK);

  /* Modules and suppression. */
  __itt_module_load((void*)EA_MODULE_START, (void*)EA_MODULE_END, EA_MODULE);
  __itt_module_unload((void*)EA_MODULE_START);
  __itt_suppress_push(EA_SUPPRESS_MASK);
  __itt_suppress_pop();

  /* Paused: none of these may be recorded, except thread naming, which the
   * spec keeps working in every state. */
  __itt_pause();
  __itt_thread_set_name(EA_THREAD);
  __itt_task_begin(d, __itt_null, __itt_null, paused_task);
  __itt_task_end(d);
  __itt_counter_inc(c);
  __itt_sync_prepare(&object);
  __itt_marker(d, __itt_null, paused_task, __itt_scope_global);
  /* The JIT static part reads the collector's recording gate and skips the
   * call (jitprofiling.c); the gate must say closed now, open after. */
  iJIT_Method_Load paused_method = {0};
  paused_method.method_id = EA_METHOD_ID;
  paused_method.method_name = (char*)EA_PAUSED_TASK;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &paused_method);
  const int* gate = RecordingGate();
  if (gate == NULL || *gate >= 0) {
    fprintf(stderr, "the collector's recording gate is missing or open while paused\n");
    return 2;
  }
  __itt_resume();
  if (*gate < 0) {
    fprintf(stderr, "the collector's recording gate is closed after resume\n");
    return 2;
  }

  /* JIT. */
  LineNumberInfo lines[2] = {{0, 10}, {16, 11}};
  iJIT_Method_Load ml = {0};
  ml.method_id = EA_METHOD_ID;
  ml.method_name = (char*)EA_METHOD;
  ml.method_load_address = (void*)EA_METHOD_ADDR;
  ml.method_size = EA_METHOD_SIZE;
  ml.line_number_size = 2;
  ml.line_number_table = lines;
  ml.class_file_name = (char*)EA_CLASS;
  ml.source_file_name = (char*)EA_SOURCE;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &ml);
  iJIT_Method_Load_V2 ml2 = {0};
  ml2.method_id = EA_METHOD_ID;
  ml2.method_name = (char*)EA_METHOD;
  ml2.method_load_address = (void*)EA_METHOD_ADDR;
  ml2.method_size = EA_METHOD_SIZE;
  ml2.module_name = (char*)EA_JIT_MODULE;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &ml2);
  iJIT_Method_Load_V3 ml3 = {0};
  ml3.method_id = EA_METHOD_ID;
  ml3.method_name = (char*)EA_METHOD;
  ml3.method_load_address = (void*)EA_METHOD_ADDR;
  ml3.method_size = EA_METHOD_SIZE;
  ml3.module_name = (char*)EA_JIT_MODULE;
  ml3.module_arch = iJIT_CA_64;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &ml3);
  iJIT_Method_Inline_Load il = {0};
  il.method_id = EA_INLINE_ID;
  il.parent_method_id = EA_METHOD_ID;
  il.method_name = (char*)EA_METHOD;
  il.method_load_address = (void*)EA_METHOD_ADDR;
  il.method_size = EA_METHOD_SIZE;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &il);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, &ml);
  iJIT_Method_Update mu = {(void*)EA_METHOD_ADDR, EA_METHOD_SIZE, iJIT_CT_CODE, "raw"};
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &mu);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &ml);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, NULL);

  /* Last: ignoring the thread marks it in the thread info. */
  __itt_thread_ignore();
  puts("every_api_program: done");
  return 0;
}
