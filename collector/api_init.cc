// __itt_api_init: the entry a static part calls (holding its own mutex)
// after it dlopen()s us. We adopt the handles it made before the load, then
// point each row of its function table at our implementation, or at the
// row's null function for calls we do not implement.
//
// Static parts of different ittapi versions meet here (the application's,
// libtbb's, libomp's...), possibly concurrently and more than once each:
// the table walk only reads `name`, `func_ptr` and `null_func`, which every
// version since 2010 has, and Registry::AdoptStaticPart reads only the
// __itt_global fields that the part's version has (itt_static_abi.h).

#include <atomic>
#include <cstring>
#include <vector>

#include "collector/internal/api_util.h"
#include "collector/internal/session.h"

using namespace ittc::collector_internal;  // NOLINT: entry points only

// Legacy entry points defined in itt_sync_heap.cc / itt_control.cc; not in
// the public header.
extern "C" {
void __itt_sync_set_name(void*, const char*, const char*, int);
int __itt_notify_sync_name(void*, const char*, int, const char*, int, int);
void __itt_notify_sync_prepare(void*);
void __itt_notify_sync_cancel(void*);
void __itt_notify_sync_acquired(void*);
void __itt_notify_sync_releasing(void*);
int __itt_thr_name_set(const char*, int);
void __itt_thr_ignore(void);
}

namespace {

struct Entry {
  const char* name;
  void* fn;
};

#define ITTC_ENTRY(name) \
  { #name, reinterpret_cast < void*>(&name) }

// Sorted by name (checked at first use) for binary search.
const Entry kEntries[] = {
    ITTC_ENTRY(__itt_bind_context_metadata_to_counter),
    ITTC_ENTRY(__itt_clock_domain_create),
    ITTC_ENTRY(__itt_clock_domain_reset),
    ITTC_ENTRY(__itt_counter_create),
    ITTC_ENTRY(__itt_counter_create_typed),
    ITTC_ENTRY(__itt_counter_create_v3),
    ITTC_ENTRY(__itt_counter_dec),
    ITTC_ENTRY(__itt_counter_dec_delta),
    ITTC_ENTRY(__itt_counter_dec_delta_v3),
    ITTC_ENTRY(__itt_counter_dec_v3),
    ITTC_ENTRY(__itt_counter_destroy),
    ITTC_ENTRY(__itt_counter_inc),
    ITTC_ENTRY(__itt_counter_inc_delta),
    ITTC_ENTRY(__itt_counter_inc_delta_v3),
    ITTC_ENTRY(__itt_counter_inc_v3),
    ITTC_ENTRY(__itt_counter_set_value),
    ITTC_ENTRY(__itt_counter_set_value_ex),
    ITTC_ENTRY(__itt_counter_set_value_v3),
    ITTC_ENTRY(__itt_detach),
    ITTC_ENTRY(__itt_domain_create),
    ITTC_ENTRY(__itt_enable_attach),
    ITTC_ENTRY(__itt_event_create),
    ITTC_ENTRY(__itt_event_end),
    ITTC_ENTRY(__itt_event_start),
    ITTC_ENTRY(__itt_formatted_metadata_add),
    ITTC_ENTRY(__itt_formatted_metadata_add_overlapped),
    ITTC_ENTRY(__itt_frame_begin_v3),
    ITTC_ENTRY(__itt_frame_end_v3),
    ITTC_ENTRY(__itt_frame_submit_v3),
    ITTC_ENTRY(__itt_fsync_acquired),
    ITTC_ENTRY(__itt_fsync_cancel),
    ITTC_ENTRY(__itt_fsync_prepare),
    ITTC_ENTRY(__itt_fsync_releasing),
    ITTC_ENTRY(__itt_get_timestamp),
    ITTC_ENTRY(__itt_heap_allocate_begin),
    ITTC_ENTRY(__itt_heap_allocate_end),
    ITTC_ENTRY(__itt_heap_free_begin),
    ITTC_ENTRY(__itt_heap_free_end),
    ITTC_ENTRY(__itt_heap_function_create),
    ITTC_ENTRY(__itt_heap_internal_access_begin),
    ITTC_ENTRY(__itt_heap_internal_access_end),
    ITTC_ENTRY(__itt_heap_reallocate_begin),
    ITTC_ENTRY(__itt_heap_reallocate_end),
    ITTC_ENTRY(__itt_heap_record),
    ITTC_ENTRY(__itt_heap_record_memory_growth_begin),
    ITTC_ENTRY(__itt_heap_record_memory_growth_end),
    ITTC_ENTRY(__itt_heap_reset_detection),
    ITTC_ENTRY(__itt_histogram_create),
    ITTC_ENTRY(__itt_histogram_submit),
    ITTC_ENTRY(__itt_id_create),
    ITTC_ENTRY(__itt_id_create_ex),
    ITTC_ENTRY(__itt_id_destroy),
    ITTC_ENTRY(__itt_id_destroy_ex),
    ITTC_ENTRY(__itt_marker),
    ITTC_ENTRY(__itt_marker_ex),
    ITTC_ENTRY(__itt_metadata_add),
    ITTC_ENTRY(__itt_metadata_add_with_scope),
    ITTC_ENTRY(__itt_metadata_str_add),
    ITTC_ENTRY(__itt_metadata_str_add_with_scope),
    ITTC_ENTRY(__itt_module_load),
    ITTC_ENTRY(__itt_module_load_with_sections),
    ITTC_ENTRY(__itt_module_unload),
    ITTC_ENTRY(__itt_module_unload_with_sections),
    ITTC_ENTRY(__itt_notify_sync_acquired),
    ITTC_ENTRY(__itt_notify_sync_cancel),
    ITTC_ENTRY(__itt_notify_sync_name),
    ITTC_ENTRY(__itt_notify_sync_prepare),
    ITTC_ENTRY(__itt_notify_sync_releasing),
    ITTC_ENTRY(__itt_pause),
    ITTC_ENTRY(__itt_pause_scoped),
    ITTC_ENTRY(__itt_region_begin),
    ITTC_ENTRY(__itt_region_end),
    ITTC_ENTRY(__itt_relation_add),
    ITTC_ENTRY(__itt_relation_add_ex),
    ITTC_ENTRY(__itt_relation_add_to_current),
    ITTC_ENTRY(__itt_relation_add_to_current_ex),
    ITTC_ENTRY(__itt_resume),
    ITTC_ENTRY(__itt_resume_scoped),
    ITTC_ENTRY(__itt_set_track),
    ITTC_ENTRY(__itt_string_handle_create),
    ITTC_ENTRY(__itt_suppress_clear_range),
    ITTC_ENTRY(__itt_suppress_mark_range),
    ITTC_ENTRY(__itt_suppress_pop),
    ITTC_ENTRY(__itt_suppress_push),
    ITTC_ENTRY(__itt_sync_acquired),
    ITTC_ENTRY(__itt_sync_cancel),
    ITTC_ENTRY(__itt_sync_create),
    ITTC_ENTRY(__itt_sync_destroy),
    ITTC_ENTRY(__itt_sync_prepare),
    ITTC_ENTRY(__itt_sync_releasing),
    ITTC_ENTRY(__itt_sync_rename),
    ITTC_ENTRY(__itt_sync_set_name),
    ITTC_ENTRY(__itt_task_begin),
    ITTC_ENTRY(__itt_task_begin_ex),
    ITTC_ENTRY(__itt_task_begin_fn),
    ITTC_ENTRY(__itt_task_begin_fn_ex),
    ITTC_ENTRY(__itt_task_begin_overlapped),
    ITTC_ENTRY(__itt_task_begin_overlapped_ex),
    ITTC_ENTRY(__itt_task_end),
    ITTC_ENTRY(__itt_task_end_ex),
    ITTC_ENTRY(__itt_task_end_overlapped),
    ITTC_ENTRY(__itt_task_end_overlapped_ex),
    ITTC_ENTRY(__itt_task_group),
    ITTC_ENTRY(__itt_thr_ignore),
    ITTC_ENTRY(__itt_thr_name_set),
    ITTC_ENTRY(__itt_thread_ignore),
    ITTC_ENTRY(__itt_thread_set_name),
    ITTC_ENTRY(__itt_track_create),
    ITTC_ENTRY(__itt_track_group_create),
};

#undef ITTC_ENTRY

void* FindEntry(const char* name) {
  size_t lo = 0;
  size_t hi = sizeof(kEntries) / sizeof(kEntries[0]);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = std::strcmp(kEntries[mid].name, name);
    if (c == 0) return kEntries[mid].fn;
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return nullptr;
}

bool IsLegacyTable(const __itt_global* g) {
  // Rows without null_func: static parts of build 20101001 and older.
  return g->version_build <= 20101001;
}

void BindTable(__itt_global* g, __itt_group_id groups) {
  if (g->api_list_ptr == nullptr) return;
  if (IsLegacyTable(g)) {
    auto* row = reinterpret_cast<__itt_api_info_20101001*>(g->api_list_ptr);
    for (; row->name != nullptr; ++row) {
      void* fn = (row->group & groups) ? FindEntry(row->name) : nullptr;
      if (fn != nullptr) __atomic_store_n(row->func_ptr, fn, __ATOMIC_RELEASE);
    }
    return;
  }
  for (__itt_api_info* row = g->api_list_ptr; row->name != nullptr; ++row) {
    void* fn = (row->group & groups) ? FindEntry(row->name) : nullptr;
    // Release: a thread that loads the pointer sees our initialised state.
    __atomic_store_n(row->func_ptr, fn != nullptr ? fn : row->null_func, __ATOMIC_RELEASE);
  }
}

}  // namespace

ITTC_EXPORT void ITTAPI __itt_api_init(__itt_global* p, __itt_group_id init_groups) {
  if (p == nullptr) return;
  static const unsigned char kMagic[8] = ITT_MAGIC;
  if (std::memcmp(p->magic, kMagic, sizeof(kMagic)) != 0) return;
  SessionStartIfNeeded();
  Registry::Get().AdoptStaticPart(p);
  BindTable(p, init_groups);
  // Counter metadata bound before the load (the static part keeps it on
  // its list; the binding does not load us): bound now, once, as the call
  // would have bound it (its counters were taken over above).
  if (ITTC_ABI_HAS_COUNTER_METADATA_LIST(p)) {
    for (__itt_counter_metadata* m = p->counter_metadata_list; m != nullptr; m = m->next) {
      if (__atomic_exchange_n(&m->extra1, 1, __ATOMIC_ACQ_REL) > 0) continue;
      const bool text = IsTextContext(m->type);
      if (text && m->str_valueA == nullptr) continue;
      __itt_context_metadata one;
      one.type = m->type;
      one.value = text ? const_cast<char*>(m->str_valueA) : static_cast<void*>(&m->value);
      __itt_bind_context_metadata_to_counter(m->counter, 1, &one);
    }
  }
}

// A static part being finalised: its pointers are reset by the part itself;
// the handles it owns stay valid (they are never freed while we run).
ITTC_EXPORT void ITTAPI __itt_api_fini(__itt_global* p) {}

namespace ittc::collector_internal {

// For tests: true if the entry table is sorted (binary search needs it).
bool EntryTableIsSorted() {
  for (size_t i = 1; i < sizeof(kEntries) / sizeof(kEntries[0]); ++i) {
    if (std::strcmp(kEntries[i - 1].name, kEntries[i].name) >= 0) return false;
  }
  return true;
}

// For tests: the names in the entry table, which a test checks against the
// API list the stub is generated from (stub/src/itt_api_list.inc).
std::vector<const char*> EntryNames() {
  std::vector<const char*> names;
  for (const Entry& e : kEntries) names.push_back(e.name);
  return names;
}

}  // namespace ittc::collector_internal
