// The JIT profiling API's dynamic part: NotifyEvent and Initialize, which
// the JIT static part (libjitprofiling.a) looks up in the library named by
// INTEL_JIT_PROFILER64. The same library serves ITT, so one process writes
// one trace.
//
// Method names, file names and line tables are copied into the record
// (names capped at kMaxRawBytesField, marked when cut; a line table too
// large for the ring is counted as too large).

#include "collector/internal/api_util.h"
#include "collector/internal/process_maps.h"
#include "collector/internal/session.h"

using namespace ittc::collector_internal;  // NOLINT: entry points only
using ittc::format::EventKind;

namespace {

bool LineTableEmpty(const LineNumberInfo* table, unsigned int entries) {
  return table == nullptr || entries == 0;
}

RawBytes LineTable(const LineNumberInfo* table, unsigned int entries) {
  if (LineTableEmpty(table, entries)) return RawBytes{"", 0};
  // LineNumberInfo is two host-order (little-endian here) u32s: exactly the
  // format's line-table encoding.
  static_assert(sizeof(LineNumberInfo) == 8, "LineNumberInfo is two u32s");
  return RawBytes{table, static_cast<size_t>(entries) * sizeof(LineNumberInfo)};
}

// Records a method load or update: the fields every iJIT_Method_Load*
// struct has, in the schema's order, followed by `tail` (the fields only the
// newer structs have). `tail` is computed by the caller, after it checked
// `m` is not null.
template <typename Method, typename... Tail>
int MethodRecord(EventKind kind, const Method* m, const Tail&... tail) {
  CallScope call;
  // The live perf map names the code even while recording is paused: a
  // load's, and an update's (the code moved), as itt-dump perf-map does.
  if (m->method_id != 0 && PerfMapOn()) {
    PerfMapAddMethod(reinterpret_cast<uint64_t>(m->method_load_address), m->method_size,
                     m->method_name, m->method_id);
  }
  if (!call.ok()) return 0;
  uint64_t now = ReadTicks();
  if (m->method_id == 0) {
    CountInvalidCall(call.thread());
    return 0;
  }
  const RawBytes name = StringField(m->method_name, -1);
  const auto address = reinterpret_cast<uint64_t>(m->method_load_address);
  const uint64_t id = m->method_id, size = m->method_size;
  if constexpr (sizeof...(Tail) == 0) {
    if (kind == EventKind::kJitMethodLoad) {
      // Without files or lines, a smaller record (raw_record.h). A JIT that
      // reports only names takes the first branch: no empty fields are
      // measured or laid out on the stack (35 instructions of 276).
      if (EmptyString(m->class_file_name) && EmptyString(m->source_file_name) &&
          LineTableEmpty(m->line_number_table, m->line_number_size)) {
        WriteJitMethodLoadName(id, name, address, size, RingWriter(call.thread(), now));
      } else {
        WriteJitMethodLoad(id, name, address, size, StringField(m->class_file_name, -1),
                           StringField(m->source_file_name, -1),
                           LineTable(m->line_number_table, m->line_number_size),
                           RingWriter(call.thread(), now));
      }
      return 1;
    }
  }
  Emit(call.thread(), kind, now, id, name, address, size, StringField(m->class_file_name, -1),
       StringField(m->source_file_name, -1), LineTable(m->line_number_table, m->line_number_size),
       tail...);
  return 1;
}

// A call with missing data or a method id of 0: counted, not recorded.
int InvalidJitCall() {
  CallScope call;
  if (call.ok()) CountInvalidCall(call.thread());
  return 0;
}

int MethodLoad(EventKind kind, const iJIT_Method_Load* m) {
  return m != nullptr ? MethodRecord(kind, m) : InvalidJitCall();
}

int MethodLoadV2(const iJIT_Method_Load_V2* m) {
  if (m == nullptr) return InvalidJitCall();
  return MethodRecord(EventKind::kJitMethodLoadV2, m, StringField(m->module_name, -1));
}

int MethodLoadV3(const iJIT_Method_Load_V3* m) {
  if (m == nullptr) return InvalidJitCall();
  return MethodRecord(EventKind::kJitMethodLoadV3, m, StringField(m->module_name, -1),
                      EnumBits(m->module_arch));
}

int InlineLoad(const iJIT_Method_Inline_Load* m) {
  CallScope call;
  if (!call.ok()) return 0;
  uint64_t now = ReadTicks();
  if (m == nullptr || m->method_id == 0) {
    CountInvalidCall(call.thread());
    return 0;
  }
  Emit(call.thread(), EventKind::kJitInlineLoad, now, uint64_t{m->method_id},
       uint64_t{m->parent_method_id}, StringField(m->method_name, -1),
       reinterpret_cast<uint64_t>(m->method_load_address), uint64_t{m->method_size},
       StringField(m->class_file_name, -1), StringField(m->source_file_name, -1),
       LineTable(m->line_number_table, m->line_number_size));
  return 1;
}

int MethodUpdateV2(const iJIT_Method_Update* m) {
  CallScope call;
  if (!call.ok()) return 0;
  uint64_t now = ReadTicks();
  if (m == nullptr) {
    CountInvalidCall(call.thread());
    return 0;
  }
  // iJIT_Method_Update names no method; the address identifies the code.
  Emit(call.thread(), EventKind::kJitMethodUpdateV2, now, uint64_t{0},
       reinterpret_cast<uint64_t>(m->load_address), uint64_t{m->size}, EnumBits(m->type),
       StringField(m->data_format, -1));
  return 1;
}

int SimpleEvent(EventKind kind, uint64_t arg, bool with_arg) {
  CallScope call;
  if (!call.ok()) return 0;
  uint64_t now = ReadTicks();
  if (with_arg) {
    Emit(call.thread(), kind, now, arg);
  } else {
    Emit(call.thread(), kind, now);
  }
  return 1;
}

}  // namespace

ITTC_EXPORT int NotifyEvent(iJIT_JVM_EVENT event_type, void* data) {
  // While paused or detached nothing records: return before looking at
  // the event (the per-kind paths below would each reach the same gate),
  // unless the live perf map still wants method loads (MethodRecord).
  if (g_recording.load(std::memory_order_relaxed) == kGateClosed && !PerfMapOn()) return 0;
  switch (event_type) {
    case iJVM_EVENT_TYPE_SHUTDOWN:
      return SimpleEvent(EventKind::kJitShutdown, 0, false);
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED:
      return MethodLoad(EventKind::kJitMethodLoad, static_cast<const iJIT_Method_Load*>(data));
    case iJVM_EVENT_TYPE_METHOD_UPDATE:
      return MethodLoad(EventKind::kJitMethodUpdate, static_cast<const iJIT_Method_Load*>(data));
    case iJVM_EVENT_TYPE_METHOD_UNLOAD_START: {
      auto* m = static_cast<const iJIT_Method_Load*>(data);
      if (m == nullptr || m->method_id == 0) return InvalidJitCall();
      return SimpleEvent(EventKind::kJitMethodUnload, m->method_id, true);
    }
    case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED:
      return InlineLoad(static_cast<const iJIT_Method_Inline_Load*>(data));
    case iJVM_EVENT_TYPE_METHOD_UPDATE_V2:
      return MethodUpdateV2(static_cast<const iJIT_Method_Update*>(data));
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2:
      return MethodLoadV2(static_cast<const iJIT_Method_Load_V2*>(data));
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3:
      return MethodLoadV3(static_cast<const iJIT_Method_Load_V3*>(data));
    default:
      return InvalidJitCall();
  }
}

// Called by the JIT static part when it loads us (its answer to
// iJIT_IsProfilingActive, which it keeps): on while the session runs, or
// nothing where it could not start (its trace file cannot be made: every
// NotifyEvent would do nothing, and a JIT that asks would build its
// reports for nothing).
ITTC_EXPORT int Initialize(void) {
  return SessionStartIfNeeded() ? iJIT_SAMPLING_ON : iJIT_NOTHING_RUNNING;
}

// For a JIT static part that looks for it (ours, stub/src/jitprofiling.c):
// this agent checks every event itself and counts a malformed one (NULL
// data, method id 0) as an invalid argument, so the static part passes
// those on instead of dropping them as it does for a foreign agent.
ITTC_EXPORT int ittc_jit_checks_events(void) { return 1; }

// For a JIT static part that looks for it (ours, stub/src/jitprofiling.c),
// after Initialize: an int that is negative exactly while NotifyEvent does
// nothing and returns 0 at its first line (paused, detached, shut down, and
// no live perf map), so that the static part can skip the call. A relaxed
// load of it sees what NotifyEvent's own first load would. With the perf map
// on, calls are never skipped: one that never reads negative.
ITTC_EXPORT const int* ittc_recording_gate(void) {
  static_assert(sizeof(g_recording) == sizeof(int) && std::atomic<int>::is_always_lock_free,
                "the gate is read as a plain int by the static part");
  static_assert(kGateClosed < 0 && kGateOpen >= 0 && kGateSlow >= 0,
                "negative means closed, and only closed");
  static const int kNeverClosed = kGateOpen;
  SessionStartIfNeeded();  // the perf map setting is read at the start
  if (PerfMapOn()) return &kNeverClosed;
  return reinterpret_cast<const int*>(&g_recording);
}
