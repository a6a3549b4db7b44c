// Entry points: user-defined synchronisation (and its legacy and fsync
// forms), heap functions, modules, suppression and tracks.
//
// Sync objects are identified by address; sync_create records the object's
// type and name as string ids (interning them is a slow path, as creation
// is rare). The fsync_* and notify_sync_* forms record the same kinds as
// sync_*: readers see one kind of synchronisation event.

#include "collector/internal/api_util.h"

using namespace ittc::collector_internal;  // NOLINT: entry points only
using ittc::format::EventKind;

namespace {

uint32_t InternName(const char* s, long length) {
  if (s == nullptr) return 0;
  size_t n =
      length > 0 ? strnlen(s, static_cast<size_t>(length)) : strnlen(s, kMaxRawBytesField + 1);
  return Registry::Get().InternString(std::string_view(s, n));
}

void SyncCreate(void* addr, const char* objtype, long typelen, const char* objname, long namelen,
                int attribute) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (addr == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kSyncCreate, now, reinterpret_cast<uint64_t>(addr),
       uint64_t{InternName(objtype, typelen)}, uint64_t{InternName(objname, namelen)},
       static_cast<uint64_t>(static_cast<uint32_t>(attribute)));
}

inline void SyncAddr(EventKind kind, void* addr) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (addr == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), kind, now, reinterpret_cast<uint64_t>(addr));
}

// Whether a call of heap function h records: false, and counted as
// invalid, for a null or foreign h; false for a function of a domain
// ITTC_DOMAINS leaves out. Sets *id.
inline bool HeapFunctionRecorded(ThreadState* thread, __itt_heap_function h, uint32_t* id) {
  *id = Registry::Get().HeapFunctionId(h);
  if (*id == 0) {
    CountInvalidCall(thread);
    return false;
  }
  return !Registry::HeapFunctionFilteredOut(h);
}

inline void HeapCall(EventKind kind, __itt_heap_function h, uint64_t a) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  uint32_t id;
  if (!HeapFunctionRecorded(call.thread(), h, &id)) return;
  Emit(call.thread(), kind, now, uint64_t{id}, a);
}

inline void NoArgs(EventKind kind) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  Emit(call.thread(), kind, now);
}

inline void OneArg(EventKind kind, uint64_t a) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  Emit(call.thread(), kind, now, a);
}

}  // namespace

// ---- Sync -------------------------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_sync_create(void* addr, const char* objtype, const char* objname,
                                          int attribute) {
  SyncCreate(addr, objtype, -1, objname, -1, attribute);
}

ITTC_EXPORT void ITTAPI __itt_sync_rename(void* addr, const char* name) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  // A rename to no name is no rename: the object keeps its name.
  if (addr == nullptr || name == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kSyncRename, now, reinterpret_cast<uint64_t>(addr),
       uint64_t{InternName(name, -1)});
}

ITTC_EXPORT void ITTAPI __itt_sync_destroy(void* addr) { SyncAddr(EventKind::kSyncDestroy, addr); }
ITTC_EXPORT void ITTAPI __itt_sync_prepare(void* addr) { SyncAddr(EventKind::kSyncPrepare, addr); }
ITTC_EXPORT void ITTAPI __itt_sync_cancel(void* addr) { SyncAddr(EventKind::kSyncCancel, addr); }
ITTC_EXPORT void ITTAPI __itt_sync_acquired(void* addr) {
  SyncAddr(EventKind::kSyncAcquired, addr);
}
ITTC_EXPORT void ITTAPI __itt_sync_releasing(void* addr) {
  SyncAddr(EventKind::kSyncReleasing, addr);
}

ITTC_EXPORT void ITTAPI __itt_fsync_prepare(void* addr) { SyncAddr(EventKind::kSyncPrepare, addr); }
ITTC_EXPORT void ITTAPI __itt_fsync_cancel(void* addr) { SyncAddr(EventKind::kSyncCancel, addr); }
ITTC_EXPORT void ITTAPI __itt_fsync_acquired(void* addr) {
  SyncAddr(EventKind::kSyncAcquired, addr);
}
ITTC_EXPORT void ITTAPI __itt_fsync_releasing(void* addr) {
  SyncAddr(EventKind::kSyncReleasing, addr);
}

// Legacy sync names (bound by static parts that load a legacy collector).
ITTC_EXPORT void ITTAPI __itt_sync_set_name(void* addr, const char* objtype, const char* objname,
                                            int attribute) {
  SyncCreate(addr, objtype, -1, objname, -1, attribute);
}
ITTC_EXPORT int ITTAPI __itt_notify_sync_name(void* p, const char* objtype, int typelen,
                                              const char* objname, int namelen, int attribute) {
  SyncCreate(p, objtype, typelen, objname, namelen, attribute);
  return 0;
}
ITTC_EXPORT void ITTAPI __itt_notify_sync_prepare(void* p) { SyncAddr(EventKind::kSyncPrepare, p); }
ITTC_EXPORT void ITTAPI __itt_notify_sync_cancel(void* p) { SyncAddr(EventKind::kSyncCancel, p); }
ITTC_EXPORT void ITTAPI __itt_notify_sync_acquired(void* p) {
  SyncAddr(EventKind::kSyncAcquired, p);
}
ITTC_EXPORT void ITTAPI __itt_notify_sync_releasing(void* p) {
  SyncAddr(EventKind::kSyncReleasing, p);
}

// ---- Heap -------------------------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_heap_allocate_begin(__itt_heap_function h, size_t size,
                                                  int initialized) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  uint32_t id;
  if (!HeapFunctionRecorded(call.thread(), h, &id)) return;
  Emit(call.thread(), EventKind::kHeapAllocateBegin, now, uint64_t{id}, static_cast<uint64_t>(size),
       static_cast<uint64_t>(initialized != 0));
}

ITTC_EXPORT void ITTAPI __itt_heap_allocate_end(__itt_heap_function h, void** addr, size_t size,
                                                int initialized) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  uint32_t id;
  if (!HeapFunctionRecorded(call.thread(), h, &id)) return;
  if (addr == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kHeapAllocateEnd, now, uint64_t{id},
       reinterpret_cast<uint64_t>(*addr), static_cast<uint64_t>(size),
       static_cast<uint64_t>(initialized != 0));
}

ITTC_EXPORT void ITTAPI __itt_heap_free_begin(__itt_heap_function h, void* addr) {
  HeapCall(EventKind::kHeapFreeBegin, h, reinterpret_cast<uint64_t>(addr));
}

ITTC_EXPORT void ITTAPI __itt_heap_free_end(__itt_heap_function h, void* addr) {
  HeapCall(EventKind::kHeapFreeEnd, h, reinterpret_cast<uint64_t>(addr));
}

ITTC_EXPORT void ITTAPI __itt_heap_reallocate_begin(__itt_heap_function h, void* addr,
                                                    size_t new_size, int initialized) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  uint32_t id;
  if (!HeapFunctionRecorded(call.thread(), h, &id)) return;
  Emit(call.thread(), EventKind::kHeapReallocateBegin, now, uint64_t{id},
       reinterpret_cast<uint64_t>(addr), static_cast<uint64_t>(new_size),
       static_cast<uint64_t>(initialized != 0));
}

ITTC_EXPORT void ITTAPI __itt_heap_reallocate_end(__itt_heap_function h, void* addr,
                                                  void** new_addr, size_t new_size,
                                                  int initialized) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  uint32_t id;
  if (!HeapFunctionRecorded(call.thread(), h, &id)) return;
  if (new_addr == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kHeapReallocateEnd, now, uint64_t{id},
       reinterpret_cast<uint64_t>(addr), reinterpret_cast<uint64_t>(*new_addr),
       static_cast<uint64_t>(new_size), static_cast<uint64_t>(initialized != 0));
}

ITTC_EXPORT void ITTAPI __itt_heap_internal_access_begin(void) {
  NoArgs(EventKind::kHeapInternalAccessBegin);
}
ITTC_EXPORT void ITTAPI __itt_heap_internal_access_end(void) {
  NoArgs(EventKind::kHeapInternalAccessEnd);
}
ITTC_EXPORT void ITTAPI __itt_heap_record_memory_growth_begin(void) {
  NoArgs(EventKind::kHeapRecordMemoryGrowthBegin);
}
ITTC_EXPORT void ITTAPI __itt_heap_record_memory_growth_end(void) {
  NoArgs(EventKind::kHeapRecordMemoryGrowthEnd);
}
ITTC_EXPORT void ITTAPI __itt_heap_reset_detection(unsigned int reset_mask) {
  OneArg(EventKind::kHeapResetDetection, reset_mask);
}
ITTC_EXPORT void ITTAPI __itt_heap_record(unsigned int record_mask) {
  OneArg(EventKind::kHeapRecord, record_mask);
}

// ---- Modules ----------------------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_module_load(void* start_addr, void* end_addr, const char* path) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (path == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kModuleLoad, now, reinterpret_cast<uint64_t>(start_addr),
       reinterpret_cast<uint64_t>(end_addr), uint64_t{InternName(path, -1)});
}

ITTC_EXPORT void ITTAPI __itt_module_unload(void* start_addr) {
  OneArg(EventKind::kModuleUnload, reinterpret_cast<uint64_t>(start_addr));
}

ITTC_EXPORT void ITTAPI __itt_module_load_with_sections(__itt_module_object* module_obj) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (module_obj == nullptr || module_obj->module_name == nullptr) {
    return CountInvalidCall(call.thread());
  }
  auto start = reinterpret_cast<uint64_t>(module_obj->module_buffer);
  Emit(call.thread(), EventKind::kModuleLoad, now, start, start + module_obj->module_size,
       uint64_t{InternName(module_obj->module_name, -1)});
}

ITTC_EXPORT void ITTAPI __itt_module_unload_with_sections(__itt_module_object* module_obj) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (module_obj == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kModuleUnload, now,
       reinterpret_cast<uint64_t>(module_obj->module_buffer));
}

// ---- Suppression and tracks ---------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_suppress_push(unsigned int mask) {
  OneArg(EventKind::kSuppressPush, mask);
}
ITTC_EXPORT void ITTAPI __itt_suppress_pop(void) { NoArgs(EventKind::kSuppressPop); }

ITTC_EXPORT void ITTAPI __itt_suppress_mark_range(__itt_suppress_mode_t mode, unsigned int mask,
                                                  void* address, size_t size) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  Emit(call.thread(), EventKind::kSuppressMarkRange, now, static_cast<uint64_t>(mode),
       uint64_t{mask}, reinterpret_cast<uint64_t>(address), static_cast<uint64_t>(size));
}

ITTC_EXPORT void ITTAPI __itt_suppress_clear_range(__itt_suppress_mode_t mode, unsigned int mask,
                                                   void* address, size_t size) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  Emit(call.thread(), EventKind::kSuppressClearRange, now, static_cast<uint64_t>(mode),
       uint64_t{mask}, reinterpret_cast<uint64_t>(address), static_cast<uint64_t>(size));
}

// By the track's id (def_track); 0 for a null track, the thread's own.
ITTC_EXPORT void ITTAPI __itt_set_track(__itt_track* track) {
  CallScope call;
  if (!call.ok()) return;
  const uint64_t now = ReadTicks();
  const uint32_t id = Registry::Get().TrackId(track);
  if (track != nullptr && id == 0) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kSetTrack, now, uint64_t{id});
}
