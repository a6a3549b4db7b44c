// Entry points: tasks, regions, frames, markers, ids, relations and
// metadata. These are the hot calls: each is BeginCall (a TLS load and two
// checks), one RDTSC, a handle->id load and a record written to the
// thread's ring, with no lock, no syscall and no allocation.
//
// A NULL domain (or a handle that cannot be read) is counted as an invalid
// call and not recorded.

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "collector/internal/api_util.h"
#include "collector/internal/flight_recorder.h"
#include "collector/internal/process_maps.h"

using namespace ittc::collector_internal;  // NOLINT: entry points only
using ittc::format::EventKind;

namespace {

// A task begin in the ring's compact forms (raw_record.h): `repeat` when its
// packed word is the ring's task word, else `packed`, whose word then
// becomes it; `tail` is the overlapped task's id, if any.
template <typename... Tail>
inline void EmitCompactBegin(ThreadState* t, uint64_t now, uint64_t word, EventKind packed,
                             EventKind repeat, const Tail&... tail) {
  if (word == t->ring_task_word) {
    Emit(t, repeat, now, tail...);
  } else if (Emit(t, packed, now, word, tail...)) {
    t->ring_task_word = word;
  }
}

// A task begin with null ids in its compact form (WriteTaskBegin).
inline void EmitTaskBegin(ThreadState* t, uint64_t now, uint64_t word) {
  WriteTaskBegin(word, &t->ring_task_word, RingWriter(t, now));
}

// A task end: `repeat` (with `tail`, the overlapped task's id, if any) when
// its domain is the ring's task word's, else what full() emits.
template <typename Full, typename... Tail>
inline void EmitCompactEnd(ThreadState* t, uint64_t now, uint32_t domain, EventKind repeat,
                           Full&& full, const Tail&... tail) {
  if (domain == TaskWordDomain(t->ring_task_word)) {
    Emit(t, repeat, now, tail...);
  } else {
    full();
  }
}

// For a task named by a function (task_begin_fn, task_begin_fn_ex): the
// first time this thread meets an address outside the code ranges it knows,
// makes sure the module map will hold the module that holds it, even if the
// module is unloaded before the flusher's next round (process_maps.h).
inline void NoteFunction(ThreadState* t, uint64_t fn, uint64_t now) {
  if (__builtin_expect(fn == 0 || CodeRangeKnown(t->code_ranges, fn), 1)) return;
  NoteCodeAddress(&t->code_ranges, fn, now);
}

// The function address of a task_begin_fn_ex record's fields (id, parent,
// fn); 0 for the other _ex shapes, which name no function.
inline uint64_t FunctionField(const RawId&, const RawId&, uint64_t fn) { return fn; }
template <typename... Fields>
inline uint64_t FunctionField(const Fields&...) {
  return 0;
}

// Records kind(domain, id, parent, name) - the task/region/group shape.
inline void TaskLike(EventKind kind, const __itt_domain* domain, const __itt_id& id,
                     const __itt_id& parent, uint64_t name) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  const RawId raw_id = ToRaw(id), raw_parent = ToRaw(parent);
  if (kind == EventKind::kTaskBegin && !raw_id.present() && !raw_parent.present() &&
      (name >> 32) == 0) {
    // The common begin: two words in the ring, or one (raw_record.h).
    return EmitTaskBegin(call.thread(), now,
                         PackTaskBegin(DomainId(domain), static_cast<uint32_t>(name)));
  }
  if (kind == EventKind::kTaskBeginOverlapped && raw_id.present() && raw_id.d3 == 0 &&
      !raw_parent.present() && (name >> 32) == 0) {
    return EmitCompactBegin(
        call.thread(), now, PackTaskBegin(DomainId(domain), static_cast<uint32_t>(name)),
        kRawPackedOverlappedBegin, kRawOverlappedBeginRepeat, raw_id.d1, raw_id.d2);
  }
  if (kind == EventKind::kTaskBeginFn) NoteFunction(call.thread(), name, now);
  Emit(call.thread(), kind, now, uint64_t{DomainId(domain)}, raw_id, raw_parent, name);
}

// Records kind(domain, id).
inline void DomainAndId(EventKind kind, const __itt_domain* domain, const __itt_id& id) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), kind, now, uint64_t{DomainId(domain)}, ToRaw(id));
}

// Records the _ex shape: kind(domain, clock_domain, user_timestamp,
// timestamp, rest...), converting the user timestamp to ticks; or, on the
// default clock (clock id 0: the ticks are the user timestamp), what
// default_clock(thread, now, domain id, timestamp) records, if it returns
// true. Returns whether the call was the thread's to record (recording,
// the thread not ignored, a domain), as a plain call's CallScope says:
// recorded, or counted as dropped.
template <typename DefaultClock, typename... Rest>
inline bool ExLikeOr(DefaultClock&& default_clock, EventKind kind, const __itt_domain* domain,
                     const __itt_clock_domain* cd, unsigned long long timestamp,
                     const Rest&... rest) {
  CallScope call;
  if (!call.ok()) return false;
  uint64_t now = ReadTicks();
  if (domain == nullptr) {
    CountInvalidCall(call.thread());
    return false;
  }
  const uint32_t domain_id = DomainId(domain);
  if (kind == EventKind::kTaskBeginFnEx) NoteFunction(call.thread(), FunctionField(rest...), now);
  uint64_t clock_id;
  uint64_t ticks = UserTimeToTicks(cd, timestamp, &clock_id);
  if (clock_id == 0 && default_clock(call.thread(), now, domain_id, uint64_t{timestamp})) {
    return true;
  }
  Emit(call.thread(), kind, now, uint64_t{domain_id}, clock_id, static_cast<uint64_t>(timestamp),
       ticks, rest...);
  return true;
}

template <typename... Rest>
inline bool ExLike(EventKind kind, const __itt_domain* domain, const __itt_clock_domain* cd,
                   unsigned long long timestamp, const Rest&... rest) {
  return ExLikeOr([](ThreadState*, uint64_t, uint32_t, uint64_t) { return false; }, kind, domain,
                  cd, timestamp, rest...);
}

}  // namespace

// ---- Tasks ------------------------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_task_begin(const __itt_domain* domain, __itt_id taskid,
                                         __itt_id parentid, __itt_string_handle* name) {
  TaskLike(EventKind::kTaskBegin, domain, taskid, parentid, StringId(name));
}

ITTC_EXPORT void ITTAPI __itt_task_begin_fn(const __itt_domain* domain, __itt_id taskid,
                                            __itt_id parentid, void* fn) {
  TaskLike(EventKind::kTaskBeginFn, domain, taskid, parentid, reinterpret_cast<uint64_t>(fn));
}

ITTC_EXPORT void ITTAPI __itt_task_end(const __itt_domain* domain) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  ThreadState* t = call.thread();
  const uint32_t id = DomainId(domain);
  EmitCompactEnd(t, now, id, kRawTaskEndRepeat,
                 [&] { Emit(t, EventKind::kTaskEnd, now, uint64_t{id}); });
}

ITTC_EXPORT void ITTAPI __itt_task_group(const __itt_domain* domain, __itt_id id, __itt_id parentid,
                                         __itt_string_handle* name) {
  TaskLike(EventKind::kTaskGroup, domain, id, parentid, StringId(name));
}

ITTC_EXPORT void ITTAPI __itt_task_begin_overlapped(const __itt_domain* domain, __itt_id taskid,
                                                    __itt_id parentid, __itt_string_handle* name) {
  TaskLike(EventKind::kTaskBeginOverlapped, domain, taskid, parentid, StringId(name));
}

ITTC_EXPORT void ITTAPI __itt_task_end_overlapped(const __itt_domain* domain, __itt_id taskid) {
  if (domain == nullptr || taskid.d3 != 0 || (taskid.d1 | taskid.d2) == 0) {
    return DomainAndId(EventKind::kTaskEndOverlapped, domain, taskid);
  }
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  ThreadState* t = call.thread();
  const uint32_t id = DomainId(domain);
  const uint64_t d1 = taskid.d1, d2 = taskid.d2;
  EmitCompactEnd(
      t, now, id, kRawOverlappedEndRepeat,
      [&] {
        Emit(t, EventKind::kTaskEndOverlapped, now, uint64_t{id}, RawId{d1, d2, 0});
      },
      d1, d2);
}

ITTC_EXPORT void ITTAPI __itt_task_begin_ex(const __itt_domain* domain,
                                            __itt_clock_domain* clock_domain,
                                            unsigned long long timestamp, __itt_id taskid,
                                            __itt_id parentid, __itt_string_handle* name) {
  const RawId raw_id = ToRaw(taskid), raw_parent = ToRaw(parentid);
  const uint32_t name_id = StringId(name);
  // With null ids on the default clock: the compact record (raw_record.h).
  const bool compact = !raw_id.present() && !raw_parent.present();
  ExLikeOr(
      [&](ThreadState* t, uint64_t now, uint32_t domain_id, uint64_t ts) {
        if (compact) {
          WriteDefaultClockBeginEx(PackTaskBegin(domain_id, name_id), ts, &t->ring_task_word,
                                   RingWriter(t, now));
        }
        return compact;
      },
      EventKind::kTaskBeginEx, domain, clock_domain, timestamp, raw_id, raw_parent,
      uint64_t{name_id});
}

ITTC_EXPORT void ITTAPI __itt_task_begin_fn_ex(const __itt_domain* domain,
                                               __itt_clock_domain* clock_domain,
                                               unsigned long long timestamp, __itt_id taskid,
                                               __itt_id parentid, void* fn) {
  ExLike(EventKind::kTaskBeginFnEx, domain, clock_domain, timestamp, ToRaw(taskid), ToRaw(parentid),
         reinterpret_cast<uint64_t>(fn));
}

ITTC_EXPORT void ITTAPI __itt_task_end_ex(const __itt_domain* domain,
                                          __itt_clock_domain* clock_domain,
                                          unsigned long long timestamp) {
  ExLikeOr(
      [](ThreadState* t, uint64_t now, uint32_t domain_id, uint64_t ts) {
        WriteDefaultClockEndEx(domain_id, ts, t->ring_task_word,
                               RingWriter(t, now));  // raw_record.h
        return true;
      },
      EventKind::kTaskEndEx, domain, clock_domain, timestamp);
}

ITTC_EXPORT void ITTAPI __itt_task_begin_overlapped_ex(const __itt_domain* domain,
                                                       __itt_clock_domain* clock_domain,
                                                       unsigned long long timestamp,
                                                       __itt_id taskid, __itt_id parentid,
                                                       __itt_string_handle* name) {
  ExLike(EventKind::kTaskBeginOverlappedEx, domain, clock_domain, timestamp, ToRaw(taskid),
         ToRaw(parentid), uint64_t{StringId(name)});
}

ITTC_EXPORT void ITTAPI __itt_task_end_overlapped_ex(const __itt_domain* domain,
                                                     __itt_clock_domain* clock_domain,
                                                     unsigned long long timestamp,
                                                     __itt_id taskid) {
  ExLike(EventKind::kTaskEndOverlappedEx, domain, clock_domain, timestamp, ToRaw(taskid));
}

// ---- Regions and frames -----------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_region_begin(const __itt_domain* domain, __itt_id id,
                                           __itt_id parentid, __itt_string_handle* name) {
  TaskLike(EventKind::kRegionBegin, domain, id, parentid, StringId(name));
}

ITTC_EXPORT void ITTAPI __itt_region_end(const __itt_domain* domain, __itt_id id) {
  DomainAndId(EventKind::kRegionEnd, domain, id);
}

namespace {

// __itt_frame_begin_v3 and _end_v3: kind kFrameBegin or kFrameEnd.
inline void Frame(EventKind kind, const __itt_domain* domain, const __itt_id* id) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  WriteFrame(kind, DomainId(domain), ToRaw(id != nullptr ? *id : __itt_null),
             RingWriter(call.thread(), now));
}

}  // namespace

ITTC_EXPORT void ITTAPI __itt_frame_begin_v3(const __itt_domain* domain, __itt_id* id) {
  Frame(EventKind::kFrameBegin, domain, id);
}

ITTC_EXPORT void ITTAPI __itt_frame_end_v3(const __itt_domain* domain, __itt_id* id) {
  Frame(EventKind::kFrameEnd, domain, id);
}

// begin/end are __itt_get_timestamp() values, i.e. already trace ticks.
ITTC_EXPORT void ITTAPI __itt_frame_submit_v3(const __itt_domain* domain, __itt_id* id,
                                              __itt_timestamp begin, __itt_timestamp end) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kFrameSubmit, now, uint64_t{DomainId(domain)}, ToRawPtr(id),
       static_cast<uint64_t>(begin), static_cast<uint64_t>(end));
}

// ---- Markers and ids --------------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_marker(const __itt_domain* domain, __itt_id id,
                                     __itt_string_handle* name, __itt_scope scope) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  const uint32_t name_id = StringId(name);
  WriteMarker(DomainId(domain), ToRaw(id), name_id, static_cast<uint64_t>(scope),
              RingWriter(call.thread(), now));
  flight::OnMarker(name_id, now);
}

ITTC_EXPORT void ITTAPI __itt_marker_ex(const __itt_domain* domain,
                                        __itt_clock_domain* clock_domain,
                                        unsigned long long timestamp, __itt_id id,
                                        __itt_string_handle* name, __itt_scope scope) {
  const uint32_t name_id = StringId(name);
  // Only a marker the thread records (not paused, detached or ignored)
  // triggers, as __itt_marker.
  if (ExLike(EventKind::kMarkerEx, domain, clock_domain, timestamp, ToRaw(id), uint64_t{name_id},
             static_cast<uint64_t>(scope)) &&
      g_marker_triggers.on()) {
    flight::OnMarker(name_id, ReadTicks());
  }
}

ITTC_EXPORT void ITTAPI __itt_id_create(const __itt_domain* domain, __itt_id id) {
  DomainAndId(EventKind::kIdCreate, domain, id);
}

ITTC_EXPORT void ITTAPI __itt_id_destroy(const __itt_domain* domain, __itt_id id) {
  DomainAndId(EventKind::kIdDestroy, domain, id);
}

ITTC_EXPORT void ITTAPI __itt_id_create_ex(const __itt_domain* domain,
                                           __itt_clock_domain* clock_domain,
                                           unsigned long long timestamp, __itt_id id) {
  ExLike(EventKind::kIdCreateEx, domain, clock_domain, timestamp, ToRaw(id));
}

ITTC_EXPORT void ITTAPI __itt_id_destroy_ex(const __itt_domain* domain,
                                            __itt_clock_domain* clock_domain,
                                            unsigned long long timestamp, __itt_id id) {
  ExLike(EventKind::kIdDestroyEx, domain, clock_domain, timestamp, ToRaw(id));
}

// ---- Relations --------------------------------------------------------------

ITTC_EXPORT void ITTAPI __itt_relation_add_to_current(const __itt_domain* domain,
                                                      __itt_relation relation, __itt_id tail) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  Emit(call.thread(), EventKind::kRelationAddToCurrent, now, uint64_t{DomainId(domain)},
       static_cast<uint64_t>(relation), ToRaw(tail));
}

ITTC_EXPORT void ITTAPI __itt_relation_add(const __itt_domain* domain, __itt_id head,
                                           __itt_relation relation, __itt_id tail) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr) return CountInvalidCall(call.thread());
  WriteRelation(DomainId(domain), ToRaw(head), static_cast<uint64_t>(relation), ToRaw(tail),
                RingWriter(call.thread(), now));
}

ITTC_EXPORT void ITTAPI __itt_relation_add_to_current_ex(const __itt_domain* domain,
                                                         __itt_clock_domain* clock_domain,
                                                         unsigned long long timestamp,
                                                         __itt_relation relation, __itt_id tail) {
  ExLike(EventKind::kRelationAddToCurrentEx, domain, clock_domain, timestamp,
         static_cast<uint64_t>(relation), ToRaw(tail));
}

ITTC_EXPORT void ITTAPI __itt_relation_add_ex(const __itt_domain* domain,
                                              __itt_clock_domain* clock_domain,
                                              unsigned long long timestamp, __itt_id head,
                                              __itt_relation relation, __itt_id tail) {
  ExLike(EventKind::kRelationAddEx, domain, clock_domain, timestamp, ToRaw(head),
         static_cast<uint64_t>(relation), ToRaw(tail));
}

// ---- Metadata ---------------------------------------------------------------

namespace {

// Bytes of `count` elements of `type`, or 0 with *ok false when either is
// invalid (an unknown type, or a count whose size overflows).
size_t MetadataBytes(__itt_metadata_type type, size_t count, bool* ok) {
  int element = ittc::format::MetadataTypeSize(static_cast<uint64_t>(type));
  *ok = element > 0 && count <= (size_t{1} << 40) / static_cast<size_t>(element);
  return *ok ? count * static_cast<size_t>(element) : 0;
}

}  // namespace

ITTC_EXPORT void ITTAPI __itt_metadata_add(const __itt_domain* domain, __itt_id id,
                                           __itt_string_handle* key, __itt_metadata_type type,
                                           size_t count, void* data) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  bool ok;
  size_t bytes = MetadataBytes(type, count, &ok);
  if (domain == nullptr || !ok || (data == nullptr && count != 0)) {
    return CountInvalidCall(call.thread());
  }
  if (count == 0) return;  // "no metadata is added" (ittnotify.h)
  const uint32_t domain_id = DomainId(domain);
  const RawId raw_id = ToRaw(id);
  if (count == 1 && !raw_id.present() && domain_id <= kMaxPackedDomain) {
    // One value: the compact record (raw_record.h). The type is known here
    // (its size is), so it fits its byte.
    uint64_t value = 0;
    if (bytes == 8) {
      std::memcpy(&value, data, 8);
    } else {
      std::memcpy(&value, data, bytes);
    }
    Emit(call.thread(), kRawMetadataValue, now,
         PackMetadataValue(domain_id, static_cast<uint8_t>(type), StringId(key)), value);
    return;
  }
  // An array too large for the ring is counted as too large by Emit.
  Emit(call.thread(), EventKind::kMetadataAdd, now, uint64_t{domain_id}, raw_id,
       uint64_t{StringId(key)}, static_cast<uint64_t>(type), static_cast<uint64_t>(count),
       RawBytes{data, bytes});
}

ITTC_EXPORT void ITTAPI __itt_metadata_str_add(const __itt_domain* domain, __itt_id id,
                                               __itt_string_handle* key, const char* data,
                                               size_t length) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr || data == nullptr) return CountInvalidCall(call.thread());
  long n = length == 0 ? -1 : static_cast<long>(length);
  Emit(call.thread(), EventKind::kMetadataStrAdd, now, uint64_t{DomainId(domain)}, ToRaw(id),
       uint64_t{StringId(key)}, StringField(data, n));
}

ITTC_EXPORT void ITTAPI __itt_metadata_add_with_scope(const __itt_domain* domain, __itt_scope scope,
                                                      __itt_string_handle* key,
                                                      __itt_metadata_type type, size_t count,
                                                      void* data) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  bool ok;
  size_t bytes = MetadataBytes(type, count, &ok);
  if (domain == nullptr || !ok || (data == nullptr && count != 0)) {
    return CountInvalidCall(call.thread());
  }
  if (count == 0) return;  // "no metadata is added" (ittnotify.h)
  Emit(call.thread(), EventKind::kMetadataAddWithScope, now, uint64_t{DomainId(domain)},
       static_cast<uint64_t>(scope), uint64_t{StringId(key)}, static_cast<uint64_t>(type),
       static_cast<uint64_t>(count), RawBytes{data, bytes});
}

ITTC_EXPORT void ITTAPI __itt_metadata_str_add_with_scope(const __itt_domain* domain,
                                                          __itt_scope scope,
                                                          __itt_string_handle* key,
                                                          const char* data, size_t length) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr || data == nullptr) return CountInvalidCall(call.thread());
  long n = length == 0 ? -1 : static_cast<long>(length);
  Emit(call.thread(), EventKind::kMetadataStrAddWithScope, now, uint64_t{DomainId(domain)},
       static_cast<uint64_t>(scope), uint64_t{StringId(key)}, StringField(data, n));
}

// Formatted metadata is formatted at record time with vsnprintf into a
// stack buffer (glibc allocates nothing for the conversions ITT formats
// use); the text goes into the trace, the raw arguments do not.
namespace {

constexpr size_t kFormattedTextBytes = 1024;

void FormattedMetadata(EventKind kind, const __itt_domain* domain, const __itt_id& id, bool with_id,
                       __itt_string_handle* format, va_list args) {
  CallScope call;
  if (!call.ok()) return;
  uint64_t now = ReadTicks();
  if (domain == nullptr || format == nullptr || format->strA == nullptr) {
    return CountInvalidCall(call.thread());
  }
  char text[kFormattedTextBytes];
  int n = std::vsnprintf(text, sizeof(text), format->strA, args);
  if (n < 0) return CountInvalidCall(call.thread());
  size_t len = static_cast<size_t>(n);
  if (len >= sizeof(text)) {
    constexpr size_t kMark = sizeof(kTruncatedMark) - 1;
    len = sizeof(text) - 1;
    std::memcpy(text + len - kMark, kTruncatedMark, kMark);
  }
  RawBytes no_args{"", 0};
  if (with_id) {
    Emit(call.thread(), kind, now, uint64_t{DomainId(domain)}, ToRaw(id),
         uint64_t{StringId(format)}, no_args, RawBytes{text, len});
  } else {
    Emit(call.thread(), kind, now, uint64_t{DomainId(domain)}, uint64_t{StringId(format)}, no_args,
         RawBytes{text, len});
  }
}

}  // namespace

ITTC_EXPORT void __itt_formatted_metadata_add(const __itt_domain* domain,
                                              __itt_string_handle* format, ...) {
  va_list args;
  va_start(args, format);
  FormattedMetadata(EventKind::kFormattedMetadataAdd, domain, __itt_null, false, format, args);
  va_end(args);
}

ITTC_EXPORT void __itt_formatted_metadata_add_overlapped(const __itt_domain* domain,
                                                         __itt_id taskid,
                                                         __itt_string_handle* format, ...) {
  va_list args;
  va_start(args, format);
  FormattedMetadata(EventKind::kFormattedMetadataAddOverlapped, domain, taskid, true, format, args);
  va_end(args);
}

// The same with the arguments as a va_list: what our static part calls when
// such a call is the one that loads the collector (stub/README.md), since
// a call cannot re-issue an unknown number of variadic arguments.
ITTC_EXPORT void ittc_formatted_metadata_add_va(const __itt_domain* domain,
                                                __itt_string_handle* format, va_list args) {
  FormattedMetadata(EventKind::kFormattedMetadataAdd, domain, __itt_null, false, format, args);
}

ITTC_EXPORT void ittc_formatted_metadata_add_overlapped_va(const __itt_domain* domain,
                                                           __itt_id taskid,
                                                           __itt_string_handle* format,
                                                           va_list args) {
  FormattedMetadata(EventKind::kFormattedMetadataAddOverlapped, domain, taskid, true, format, args);
}
