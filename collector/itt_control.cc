// Entry points: handles (domains, strings, counters, histograms, clock
// domains, heap functions, legacy events), thread naming and collection
// control. Handles are interned, so repeated creation returns the same
// object; a new one takes the registry's lock. Creating a domain or string
// handle whose name exists is a lookup without a lock (name_table.h): some
// programs create the name before every task they begin.

#include "collector/internal/api_util.h"
#include "collector/internal/session.h"

using namespace ittc::collector_internal;  // NOLINT: entry points only
using ittc::format::EventKind;

ITTC_EXPORT __itt_domain* ITTAPI __itt_domain_create(const char* name) {
  SessionStartIfNeeded();
  return Registry::Get().CreateDomain(name);
}

ITTC_EXPORT __itt_string_handle* ITTAPI __itt_string_handle_create(const char* name) {
  SessionStartIfNeeded();
  return Registry::Get().CreateStringHandle(name);
}

ITTC_EXPORT __itt_counter ITTAPI __itt_counter_create(const char* name, const char* domain) {
  SessionStartIfNeeded();
  return reinterpret_cast<__itt_counter>(
      Registry::Get().CreateCounter(name, domain, nullptr, __itt_metadata_u64));
}

ITTC_EXPORT __itt_counter ITTAPI __itt_counter_create_typed(const char* name, const char* domain,
                                                            __itt_metadata_type type) {
  SessionStartIfNeeded();
  return reinterpret_cast<__itt_counter>(
      Registry::Get().CreateCounter(name, domain, nullptr, type));
}

ITTC_EXPORT __itt_counter ITTAPI __itt_counter_create_v3(const __itt_domain* domain,
                                                         const char* name,
                                                         __itt_metadata_type type) {
  SessionStartIfNeeded();
  if (domain == nullptr) return nullptr;
  return reinterpret_cast<__itt_counter>(
      Registry::Get().CreateCounter(name, nullptr, domain, type));
}

ITTC_EXPORT __itt_histogram* ITTAPI __itt_histogram_create(const __itt_domain* domain,
                                                           const char* name,
                                                           __itt_metadata_type x_type,
                                                           __itt_metadata_type y_type) {
  SessionStartIfNeeded();
  return Registry::Get().CreateHistogram(domain, name, x_type, y_type);
}

ITTC_EXPORT __itt_track_group* ITTAPI __itt_track_group_create(__itt_string_handle* name,
                                                               __itt_track_group_type type) {
  SessionStartIfNeeded();
  return Registry::Get().CreateTrackGroup(name, static_cast<int>(type));
}

ITTC_EXPORT __itt_track* ITTAPI __itt_track_create(__itt_track_group* group,
                                                   __itt_string_handle* name,
                                                   __itt_track_type type) {
  SessionStartIfNeeded();
  return Registry::Get().CreateTrack(group, name, static_cast<int>(type));
}

ITTC_EXPORT __itt_clock_domain* ITTAPI __itt_clock_domain_create(__itt_get_clock_info_fn fn,
                                                                 void* fn_data) {
  SessionStartIfNeeded();
  return Registry::Get().CreateClockDomain(fn, fn_data);
}

ITTC_EXPORT void ITTAPI __itt_clock_domain_reset(void) {
  SessionStartIfNeeded();
  Registry::Get().ResetClockDomains();
  CallScope call;
  if (!call.ok()) return;
  Emit(call.thread(), EventKind::kClockDomainReset, ReadTicks());
}

ITTC_EXPORT __itt_heap_function ITTAPI __itt_heap_function_create(const char* name,
                                                                  const char* domain) {
  SessionStartIfNeeded();
  return Registry::Get().CreateHeapFunction(name, domain);
}

ITTC_EXPORT __itt_event ITTAPI __itt_event_create(const char* name, int namelen) {
  SessionStartIfNeeded();
  return Registry::Get().CreateEvent(name, namelen);
}

ITTC_EXPORT __itt_timestamp ITTAPI __itt_get_timestamp(void) { return ReadTicks(); }

// The thread naming API works in every state, paused or not (spec), so
// these record through the control path, which ignores pause.
namespace {

// Names the calling thread; `length` bytes at most (the text also ends at
// its NUL).
void SetThreadName(const char* name, size_t length) {
  if (name == nullptr || !SessionStartIfNeeded()) return;
  uint32_t id = Registry::Get().InternString(std::string_view(name, strnlen(name, length)));
  CallScope call(CallScope::kControl);
  if (!call.ok()) return;
  ThreadState* t = call.thread();
  t->name_id.store(id, std::memory_order_relaxed);  // published with the record
  if (!Emit(t, EventKind::kThreadSetName, ReadTicks(), uint64_t{id})) {
    // Dropped (counted): the flusher names the thread by name_id instead.
    t->info_lost.fetch_or(ThreadState::kNameLost, std::memory_order_release);
  }
}

// __itt_event_start/end: the event must come from __itt_event_create.
int LegacyEvent(EventKind kind, __itt_event event) {
  CallScope call;
  if (!call.ok()) return 0;
  if (!Registry::Get().IsEvent(event)) {
    CountInvalidCall(call.thread());
    return 0;
  }
  Emit(call.thread(), kind, ReadTicks(), static_cast<uint64_t>(event));
  return 0;
}

}  // namespace

ITTC_EXPORT void ITTAPI __itt_thread_set_name(const char* name) {
  SetThreadName(name, kMaxRawBytesField + 1);
}

// Recorded; from then on the thread records nothing but control calls
// (naming, pause and resume, detach), for as long as it exists.
ITTC_EXPORT void ITTAPI __itt_thread_ignore(void) {
  if (!SessionStartIfNeeded()) return;
  CallScope call(CallScope::kControl);
  if (!call.ok()) return;
  if (!Emit(call.thread(), EventKind::kThreadIgnore, ReadTicks())) {
    // Dropped (counted): the flusher marks the thread ignored all the same.
    call.thread()->info_lost.fetch_or(ThreadState::kIgnoreLost, std::memory_order_release);
  }
  call.thread()->ignored = true;  // in_call becomes kIgnored as the call ends
}

// Legacy forms of the two above.
ITTC_EXPORT int ITTAPI __itt_thr_name_set(const char* name, int namelen) {
  SetThreadName(name, namelen > 0 ? static_cast<size_t>(namelen) : kMaxRawBytesField + 1);
  return 0;
}

ITTC_EXPORT void ITTAPI __itt_thr_ignore(void) { __itt_thread_ignore(); }

ITTC_EXPORT void ITTAPI __itt_pause(void) { SessionPause(); }
ITTC_EXPORT void ITTAPI __itt_resume(void) { SessionResume(); }
ITTC_EXPORT void ITTAPI __itt_detach(void) { SessionDetach(); }

// Scoped forms: the collector records the host's work only, so only a
// scope with the host's bit pauses or resumes it.
ITTC_EXPORT void ITTAPI __itt_pause_scoped(__itt_collection_scope scope) {
  SessionPauseScoped(static_cast<uint32_t>(scope));
}
ITTC_EXPORT void ITTAPI __itt_resume_scoped(__itt_collection_scope scope) {
  SessionResumeScoped(static_cast<uint32_t>(scope));
}

ITTC_EXPORT void ITTAPI __itt_enable_attach(void) {}

ITTC_EXPORT int ITTAPI __itt_event_start(__itt_event event) {
  return LegacyEvent(EventKind::kEventStart, event);
}

ITTC_EXPORT int ITTAPI __itt_event_end(__itt_event event) {
  return LegacyEvent(EventKind::kEventEnd, event);
}
