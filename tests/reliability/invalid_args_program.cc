// Row 10: every API function called with invalid arguments, straight
// through the static part's function pointers (our header's macros already
// skip a NULL domain; other static parts and per-symbol users do not).
// Short buffers sit at the end of a page followed by an inaccessible page,
// so reading past what the arguments really hold faults.
// Prints "done" at the end.

#define INTEL_ITTNOTIFY_API_PRIVATE
#include <ittnotify.h>
#include <jitprofiling.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

// `text` (with its NUL) copied to the very end of a readable page.
const char* Guarded(const char* text) {
  long page = sysconf(_SC_PAGESIZE);
  auto* base = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  mprotect(base + page, page, PROT_NONE);
  size_t n = std::strlen(text) + 1;
  char* p = base + page - n;
  std::memcpy(p, text, n);
  return p;
}

// `bytes` zero bytes at the very end of a readable page.
void* GuardedBytes(size_t bytes) { return const_cast<char*>(Guarded("")) + 1 - bytes; }

void ClockInfoNull(__itt_clock_info*, void*) {}

}  // namespace

// Like the header's macros, skips functions the collector left NULL.
#define CALL(name, ...)                                 \
  (__itt_##name##_ptr ? __itt_##name##_ptr(__VA_ARGS__) \
                      : decltype(__itt_##name##_ptr(__VA_ARGS__))())

// The malformed JIT events the static part drops for a foreign agent and
// passes to ours, which counts each: 9 calls. The session is started first
// by a valid task.
int MalformedJitEvents() {
  __itt_domain* d = __itt_domain_create("reliability.invalid");
  __itt_task_begin(d, __itt_null, __itt_null, __itt_string_handle_create("start"));
  __itt_task_end(d);
  iJIT_Method_Load m = {};
  iJIT_Method_Load_V2 m2 = {};
  iJIT_Method_Load_V3 m3 = {};
  iJIT_Method_Inline_Load inl = {};
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, nullptr);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);  // id 0
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, nullptr);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &m2);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, nullptr);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &m3);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, nullptr);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, nullptr);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inl);
  std::printf("done\n");
  return 0;
}

// A sync object renamed to no name (counted; it keeps its name): 1 call.
int RenameToNoName() {
  static int lock;
  __itt_sync_create(&lock, "Mutex", "db_lock", 0);
  __itt_sync_rename(&lock, nullptr);
  __itt_sync_prepare(&lock);
  __itt_sync_acquired(&lock);
  std::printf("done\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "jit") == 0) return MalformedJitEvents();
  if (argc == 2 && std::strcmp(argv[1], "rename") == 0) return RenameToNoName();
  const size_t kHuge = SIZE_MAX / 2;
  const size_t kNegative = static_cast<size_t>(-5);
  const char* x = Guarded("x");
  void* small = GuardedBytes(8);
  __itt_id id = __itt_id_make(&id, 1);
  __itt_id zero = __itt_null;

  // A valid domain and handle to mix with invalid ones, and foreign structs
  // the collector did not create (as another static part might hand over).
  __itt_domain* d = __itt_domain_create("reliability.invalid");
  __itt_domain* other = __itt_domain_create("reliability.invalid.other");
  __itt_string_handle* h = __itt_string_handle_create("valid");
  __itt_string_handle foreign_handle = {};
  foreign_handle.strA = "foreign";
  __itt_string_handle nameless_handle = {};
  __itt_domain foreign_domain = {};
  foreign_domain.flags = 1;
  foreign_domain.nameA = "foreign.domain";
  __itt_domain nameless_domain = {};
  nameless_domain.flags = 1;
  __itt_clock_domain foreign_clock = {};
  __itt_histogram foreign_histogram = {};
  foreign_histogram.nameA = "foreign.histogram";
  foreign_histogram.x_type = static_cast<__itt_metadata_type>(999);
  foreign_histogram.y_type = static_cast<__itt_metadata_type>(999);

  // Creation with NULL or nonsense.
  CALL(domain_create, nullptr);
  CALL(string_handle_create, nullptr);
  __itt_counter c_null = CALL(counter_create, nullptr, nullptr);
  CALL(counter_create_typed, nullptr, nullptr, static_cast<__itt_metadata_type>(999));
  __itt_counter c_bad_type =
      CALL(counter_create_typed, "c", "d", static_cast<__itt_metadata_type>(999));
  CALL(counter_create_v3, nullptr, nullptr, __itt_metadata_u64);
  __itt_histogram* hist_null =
      CALL(histogram_create, nullptr, nullptr, __itt_metadata_u64, __itt_metadata_u64);
  __itt_histogram* hist_bad = CALL(histogram_create, d, "h", static_cast<__itt_metadata_type>(999),
                                   static_cast<__itt_metadata_type>(999));
  __itt_clock_domain* cd_null_fn = CALL(clock_domain_create, nullptr, nullptr);
  __itt_clock_domain* cd_zero = CALL(clock_domain_create, &ClockInfoNull, nullptr);
  __itt_heap_function heap_null = CALL(heap_function_create, nullptr, nullptr);
  CALL(event_create, nullptr, -5);
  __itt_event ev = CALL(event_create, x, 1 << 30);
  CALL(sync_create, nullptr, nullptr, nullptr, 0);
  CALL(sync_create, small, x, x, 0xffffffff);
  CALL(sync_rename, nullptr, nullptr);
  CALL(mark_create, nullptr);
  CALL(pt_region_create, nullptr);
  CALL(track_group_create, nullptr, static_cast<__itt_track_group_type>(999));
  CALL(track_create, nullptr, nullptr, static_cast<__itt_track_type>(999));
  CALL(thread_set_name, nullptr);
  CALL(suppress_push, 0);
  CALL(suppress_pop);
  CALL(suppress_pop);
  CALL(suppress_mark_range, static_cast<__itt_suppress_mode_t>(999), 0, nullptr, kHuge);
  CALL(suppress_clear_range, static_cast<__itt_suppress_mode_t>(999), 0, nullptr, kHuge);

  // Tasks, regions, frames, markers: NULL domain, NULL/foreign handles,
  // unmatched begin/end, end on another domain.
  CALL(task_begin, nullptr, id, zero, h);
  CALL(task_begin, d, id, zero, nullptr);
  CALL(task_begin, d, id, zero, &foreign_handle);
  CALL(task_begin, d, id, zero, &nameless_handle);
  CALL(task_begin, &foreign_domain, id, zero, h);
  CALL(task_begin, &nameless_domain, id, zero, h);
  CALL(task_end, nullptr);
  CALL(task_end, other);
  CALL(task_end, d);
  CALL(task_end, d);
  CALL(task_end, d);
  CALL(task_end, d);
  CALL(task_end, d);
  CALL(task_begin_fn, nullptr, id, zero, nullptr);
  CALL(task_group, nullptr, id, zero, nullptr);
  CALL(task_begin_overlapped, nullptr, id, zero, h);
  CALL(task_end_overlapped, nullptr, id);
  CALL(task_end_overlapped, d, zero);
  CALL(task_begin_ex, nullptr, nullptr, 0, id, zero, h);
  CALL(task_begin_ex, d, &foreign_clock, ULLONG_MAX, id, zero, h);
  CALL(task_begin_ex, d, cd_null_fn, ULLONG_MAX, id, zero, h);
  CALL(task_begin_ex, d, cd_zero, ULLONG_MAX, id, zero, h);
  CALL(task_begin_fn_ex, nullptr, nullptr, 0, id, zero, nullptr);
  CALL(task_end_ex, nullptr, nullptr, 0);
  CALL(task_end_ex, other, &foreign_clock, 0);
  CALL(task_begin_overlapped_ex, nullptr, nullptr, 0, id, zero, nullptr);
  CALL(task_end_overlapped_ex, nullptr, nullptr, 0, id);
  CALL(region_begin, nullptr, id, zero, nullptr);
  CALL(region_end, nullptr, id);
  CALL(region_end, d, id);
  CALL(frame_begin_v3, nullptr, nullptr);
  CALL(frame_end_v3, d, nullptr);
  CALL(frame_end_v3, nullptr, &id);
  CALL(frame_submit_v3, nullptr, nullptr, 0, 0);
  CALL(frame_submit_v3, d, nullptr, 100, 1);
  CALL(frame_submit_v3, d, &id, __itt_timestamp_none, __itt_timestamp_none);
  CALL(marker, nullptr, id, h, __itt_scope_global);
  CALL(marker, d, id, nullptr, static_cast<__itt_scope>(999));
  CALL(marker_ex, nullptr, nullptr, 0, id, nullptr, __itt_scope_global);
  CALL(marker_ex, d, &foreign_clock, 0, id, &foreign_handle, static_cast<__itt_scope>(-1));
  CALL(id_create, nullptr, id);
  CALL(id_destroy, nullptr, id);
  CALL(id_destroy, d, zero);
  CALL(id_create_ex, nullptr, nullptr, 0, id);
  CALL(id_destroy_ex, nullptr, &foreign_clock, 0, id);
  CALL(relation_add, nullptr, id, __itt_relation_is_parent_of, id);
  CALL(relation_add, d, id, static_cast<__itt_relation>(999), zero);
  CALL(relation_add_to_current, nullptr, static_cast<__itt_relation>(-1), id);
  CALL(relation_add_ex, nullptr, nullptr, 0, id, __itt_relation_is_unknown, id);
  CALL(relation_add_to_current_ex, d, &foreign_clock, 0, static_cast<__itt_relation>(999), zero);

  // Metadata: NULL data, wrong types, negative and huge sizes.
  uint64_t value = 1;
  CALL(metadata_add, nullptr, id, h, __itt_metadata_u64, 1, &value);
  CALL(metadata_add, d, id, nullptr, static_cast<__itt_metadata_type>(999), 1, &value);
  CALL(metadata_add, d, id, h, __itt_metadata_u64, 5, nullptr);
  CALL(metadata_add, d, id, h, __itt_metadata_u64, kHuge, small);
  CALL(metadata_add, d, id, h, __itt_metadata_u64, kNegative, small);
  CALL(metadata_add, d, id, h, __itt_metadata_double, SIZE_MAX, small);
  CALL(metadata_str_add, nullptr, id, h, x, 1);
  CALL(metadata_str_add, d, id, h, nullptr, 5);
  CALL(metadata_str_add, d, id, h, x, kHuge);
  CALL(metadata_str_add, d, id, h, x, kNegative);
  CALL(metadata_add_with_scope, nullptr, __itt_scope_global, h, __itt_metadata_u64, 1, &value);
  CALL(metadata_add_with_scope, d, static_cast<__itt_scope>(999), h, __itt_metadata_u64, kHuge,
       small);
  CALL(metadata_str_add_with_scope, d, __itt_scope_global, h, nullptr, 3);
  CALL(metadata_str_add_with_scope, d, __itt_scope_global, h, x, kHuge);
  CALL(formatted_metadata_add, nullptr, h);
  CALL(formatted_metadata_add, d, nullptr);
  CALL(formatted_metadata_add, d, &nameless_handle);
  CALL(formatted_metadata_add_overlapped, nullptr, id, nullptr);

  // Counters and histograms.
  CALL(counter_inc, nullptr);
  CALL(counter_inc_delta, nullptr, 5);
  CALL(counter_dec, nullptr);
  CALL(counter_dec_delta, nullptr, kHuge);
  CALL(counter_inc, c_null);
  CALL(counter_set_value, nullptr, &value);
  CALL(counter_set_value, c_bad_type, nullptr);
  CALL(counter_set_value, c_bad_type, &value);
  CALL(counter_set_value_ex, nullptr, nullptr, 0, nullptr);
  CALL(counter_set_value_ex, c_bad_type, &foreign_clock, 0, nullptr);
  CALL(counter_inc_v3, nullptr, nullptr);
  CALL(counter_inc_v3, d, nullptr);
  CALL(counter_inc_delta_v3, nullptr, h, kHuge);
  CALL(counter_dec_v3, d, &nameless_handle);
  CALL(counter_dec_delta_v3, nullptr, nullptr, 0);
  CALL(counter_set_value_v3, nullptr, &value);
  CALL(counter_set_value_v3, c_bad_type, nullptr);
  CALL(bind_context_metadata_to_counter, nullptr, 5, nullptr);
  CALL(bind_context_metadata_to_counter, c_bad_type, 1 << 30, nullptr);
  __itt_context_metadata md[2] = {};
  md[0].type = static_cast<__itt_context_type>(999);
  md[1].type = __itt_context_tid;
  md[1].value = nullptr;
  CALL(bind_context_metadata_to_counter, c_bad_type, 2, md);
  CALL(counter_destroy, nullptr);
  CALL(counter_destroy, c_bad_type);
  CALL(counter_inc, c_bad_type);  // used after destroy: handles stay valid
  CALL(histogram_submit, nullptr, 1, &value, &value);
  CALL(histogram_submit, hist_null, 1, &value, &value);
  CALL(histogram_submit, hist_bad, 1, &value, &value);
  CALL(histogram_submit, &foreign_histogram, 1, &value, &value);
  CALL(histogram_submit, hist_bad, 5, nullptr, nullptr);
  CALL(histogram_submit, hist_bad, kHuge, small, small);

  // Sync, heap, modules, model, legacy.
  CALL(sync_prepare, nullptr);
  CALL(sync_cancel, nullptr);
  CALL(sync_acquired, nullptr);
  CALL(sync_releasing, nullptr);
  CALL(sync_destroy, small);
  CALL(fsync_prepare, nullptr);
  CALL(fsync_releasing, nullptr);
  CALL(heap_allocate_begin, nullptr, kHuge, -1);
  CALL(heap_allocate_end, nullptr, nullptr, 0, 0);
  CALL(heap_allocate_end, heap_null, nullptr, kHuge, 7);
  CALL(heap_free_begin, reinterpret_cast<__itt_heap_function>(small), nullptr);
  // A garbage handle at an address that is not mapped: never read.
  CALL(heap_allocate_begin, reinterpret_cast<__itt_heap_function>(uintptr_t{0x1234}), 8, 0);
  CALL(heap_free_end, nullptr, nullptr);
  CALL(heap_reallocate_begin, nullptr, nullptr, kHuge, 0);
  CALL(heap_reallocate_end, nullptr, nullptr, nullptr, kHuge, 0);
  CALL(heap_internal_access_end);
  CALL(heap_record_memory_growth_end);
  CALL(heap_reset_detection, 0xffffffff);
  CALL(heap_record, 0xffffffff);
  CALL(module_load, nullptr, nullptr, nullptr);
  CALL(module_unload, nullptr);
  CALL(module_load_with_sections, nullptr);
  CALL(module_unload_with_sections, nullptr);
  __itt_module_object module = {};
  module.version = 999;
  module.section_number = 1 << 30;
  module.section_array = nullptr;
  module.module_name = nullptr;
  CALL(module_load_with_sections, &module);
  module.version = 1;
  CALL(module_load_with_sections, &module);
  CALL(module_unload_with_sections, &module);
  CALL(model_site_begin, nullptr, nullptr, nullptr);
  CALL(model_site_end, nullptr, nullptr);
  CALL(model_site_end_2);
  CALL(model_task_begin, nullptr, nullptr, nullptr);
  CALL(model_task_end, nullptr, nullptr);
  CALL(model_task_end_2);
  CALL(model_lock_acquire, nullptr);
  CALL(model_lock_release_2, nullptr);
  CALL(model_record_allocation, nullptr, kHuge);
  CALL(model_record_deallocation, nullptr);
  CALL(model_induction_uses, nullptr, kHuge);
  CALL(model_reduction_uses, nullptr, kHuge);
  CALL(model_observe_uses, nullptr, kHuge);
  CALL(model_clear_uses, nullptr);
  CALL(model_disable_push, static_cast<__itt_model_disable>(999));
  CALL(model_disable_pop);
  CALL(model_disable_pop);
  CALL(model_aggregate_task, kHuge);
  CALL(event_start, -1);
  CALL(event_start, 0);
  CALL(event_end, 123456);
  CALL(event_end, ev);
  CALL(set_track, nullptr);
  CALL(set_track, reinterpret_cast<__itt_track*>(small));
  CALL(mark, -1, nullptr);
  CALL(mark_off, 999);
  CALL(mark_global, 0, x);
  CALL(mark_global_off, -7);
  __itt_mark_pt_region_begin(255);
  __itt_mark_pt_region_end(255);
  CALL(stack_callee_enter, nullptr);
  CALL(stack_callee_leave, nullptr);
  CALL(stack_caller_destroy, nullptr);
  int dims[1] = {1};
  CALL(av_save, nullptr, 0, nullptr, 0, nullptr, 0);
  CALL(av_save, small, 1 << 30, nullptr, 999, nullptr, 0);
  CALL(av_save, nullptr, 1, dims, __itt_e_int32, nullptr, 0);
  CALL(clock_domain_reset);
  CALL(resume);
  CALL(pause);
  CALL(pause);
  CALL(resume);
  CALL(resume);
  CALL(pause_scoped, static_cast<__itt_collection_scope>(999));
  CALL(resume_scoped, static_cast<__itt_collection_scope>(999));

  // JIT: NULL data, id 0, unknown event types, NULL names, bogus tables.
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, nullptr);
  iJIT_NotifyEvent(static_cast<iJIT_JVM_EVENT>(999), nullptr);
  iJIT_NotifyEvent(static_cast<iJIT_JVM_EVENT>(999), small);
  iJIT_Method_Load m = {};
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);  // id 0
  m.method_id = 7;
  m.line_number_size = 5;  // table missing
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  m.line_number_size = 0xffffffffu;
  m.line_number_table = static_cast<LineNumberInfo*>(GuardedBytes(8));
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, nullptr);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, nullptr);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, nullptr);
  iJIT_Method_Inline_Load inl = {};
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inl);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, nullptr);
  iJIT_Method_Update upd = {};
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &upd);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, nullptr);
  iJIT_Method_Load_V2 m2 = {};
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &m2);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, nullptr);
  iJIT_Method_Load_V3 m3 = {};
  m3.method_id = 9;
  m3.module_arch = static_cast<iJIT_CodeArchitecture>(999);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &m3);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, small);

  // A last valid call: recording still works after all of the above.
  __itt_task_begin(d, __itt_null, __itt_null, __itt_string_handle_create("still-recording"));
  __itt_task_end(d);
  std::printf("done\n");
  return 0;
}
