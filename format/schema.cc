// The schema table. Order: ascending kind. To add a kind: append a row to
// kSchemas with a new number, regenerate FORMAT.md's table (schema_doc_test
// prints the expected text on mismatch), and bump kFormatMinorVersion. A
// row names its fields; each name is a Field (schema.h) whose meaning
// (FieldRole) comes from its kFields row, so a new kind made of existing
// field names needs nothing else. A new field name needs an enumerator in
// Field and a row in kFields (the static_asserts below say so if missing).
// FORMAT.md, "Adding a field or a kind", has the whole recipe.

#include "format/schema.h"

#include <array>
#include <cstddef>

namespace ittc {
namespace format {
namespace {

// The name and meaning of every Field. Order: as the enum (checked below).
struct FieldInfo {
  Field field;
  const char* name;
  // The meaning of a kUint field of this name; kBytes fields are kText
  // unless listed in kRawBytes, kTime fields kTime.
  FieldRole role;
};

using F = Field;
using R = FieldRole;

constexpr FieldInfo kFields[] = {
    {F::kUnknown, "", R::kPlain},
    {F::kDomain, "domain", R::kDomainRef},
    {F::kId, "id", R::kPlain},
    {F::kParent, "parent", R::kPlain},
    {F::kName, "name", R::kStringRef},
    {F::kFn, "fn", R::kAddress},
    {F::kClockDomain, "clock_domain", R::kClockDomainRef},
    {F::kUserTimestamp, "user_timestamp", R::kPlain},
    {F::kTimestamp, "timestamp", R::kTime},
    {F::kBegin, "begin", R::kTime},
    {F::kEnd, "end", R::kTime},
    {F::kScope, "scope", R::kScope},
    {F::kCounter, "counter", R::kCounterRef},
    {F::kDelta, "delta", R::kPlain},
    {F::kType, "type", R::kMetadataType},
    {F::kValue, "value", R::kPlain},
    {F::kContextType, "context_type", R::kPlain},
    {F::kText, "text", R::kText},
    {F::kEvent, "event", R::kEventRef},
    {F::kKey, "key", R::kStringRef},
    {F::kCount, "count", R::kPlain},
    {F::kData, "data", R::kMetadataArray},
    {F::kFormat, "format", R::kStringRef},
    {F::kArgs, "args", R::kPlain},
    {F::kHistogram, "histogram", R::kHistogramRef},
    {F::kLength, "length", R::kPlain},
    {F::kX, "x", R::kMetadataArray},
    {F::kY, "y", R::kMetadataArray},
    {F::kHead, "head", R::kPlain},
    {F::kRelation, "relation", R::kRelation},
    {F::kTail, "tail", R::kPlain},
    {F::kAddr, "addr", R::kAddress},
    {F::kObjtype, "objtype", R::kStringRef},
    {F::kObjname, "objname", R::kStringRef},
    {F::kAttribute, "attribute", R::kPlain},
    {F::kFunction, "function", R::kHeapFunctionRef},
    {F::kSize, "size", R::kPlain},
    {F::kInitialized, "initialized", R::kPlain},
    {F::kNewSize, "new_size", R::kPlain},
    {F::kNewAddr, "new_addr", R::kAddress},
    {F::kMask, "mask", R::kPlain},
    {F::kStartAddr, "start_addr", R::kAddress},
    {F::kEndAddr, "end_addr", R::kAddress},
    {F::kPath, "path", R::kStringRef},
    {F::kMode, "mode", R::kPlain},
    {F::kTrack, "track", R::kTrackRef},
    {F::kMethodId, "method_id", R::kPlain},
    {F::kMethodName, "method_name", R::kText},
    {F::kAddress, "address", R::kAddress},
    {F::kClassFile, "class_file", R::kText},
    {F::kSourceFile, "source_file", R::kText},
    {F::kLineTable, "line_table", R::kPlain},
    {F::kModuleName, "module_name", R::kText},
    {F::kArch, "arch", R::kPlain},
    {F::kParentMethodId, "parent_method_id", R::kPlain},
    {F::kSegmentType, "segment_type", R::kPlain},
    {F::kDataFormat, "data_format", R::kText},
    {F::kDomainName, "domain_name", R::kText},
    {F::kXType, "x_type", R::kMetadataType},
    {F::kYType, "y_type", R::kMetadataType},
    {F::kFrequencyHz, "frequency_hz", R::kPlain},
    {F::kClockBase, "clock_base", R::kPlain},
    {F::kTicks, "ticks", R::kPlain},
    {F::kTrackGroup, "track_group", R::kTrackGroupRef},
    {F::kThreadIndex, "thread_index", R::kPlain},
    {F::kTid, "tid", R::kPlain},
    {F::kIgnored, "ignored", R::kPlain},
    {F::kMonotonicRawNs, "monotonic_raw_ns", R::kPlain},
    {F::kRealtimeNs, "realtime_ns", R::kPlain},
    {F::kCause, "cause", R::kPlain},
    {F::kEventsRecorded, "events_recorded", R::kPlain},
    {F::kEventsDropped, "events_dropped", R::kPlain},
    {F::kChunkCount, "chunk_count", R::kPlain},
    {F::kEndTicks, "end_ticks", R::kPlain},
    {F::kLoadBias, "load_bias", R::kAddress},
    {F::kBuildId, "build_id", R::kPlain},
    {F::kReason, "reason", R::kPlain},
    {F::kSignal, "signal", R::kPlain},
    {F::kWindowBegin, "window_begin", R::kPlain},
    {F::kWindowEnd, "window_end", R::kPlain},
    {F::kDump, "dump", R::kPlain},
    {F::kTriggers, "triggers", R::kPlain},
    {F::kCollectionScope, "collection_scope", R::kCollectionScope},
};
static_assert(sizeof kFields / sizeof kFields[0] == kFieldCount, "one kFields row per Field");

constexpr bool FieldsInEnumOrder() {
  for (int i = 0; i < kFieldCount; ++i) {
    if (static_cast<int>(kFields[i].field) != i) return false;
  }
  return true;
}
static_assert(FieldsInEnumOrder(), "kFields must follow the order of enum Field");

constexpr bool SameName(const char* a, const char* b) {
  while (*a != 0 && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

constexpr Field FieldOfName(const char* n) {
  for (int i = 1; i < kFieldCount; ++i) {
    if (SameName(kFields[i].name, n)) return kFields[i].field;
  }
  return Field::kUnknown;
}

// A field of the table: its name must be one of kFields (a new name needs a
// Field enumerator and a kFields row first; AllFieldsKnown checks it).
constexpr FieldSpec Spec(const char* n, FieldType type) {
  const Field f = FieldOfName(n);
  FieldRole role = kFields[static_cast<int>(f)].role;
  if (type == FieldType::kTime) role = FieldRole::kTime;
  if (type == FieldType::kId) role = FieldRole::kPlain;
  // A bytes field is text unless its name says raw data (data, x, y,
  // args, line_table: kPlain or kMetadataArray in kFields).
  if (type == FieldType::kBytes && role != FieldRole::kMetadataArray && role != FieldRole::kPlain) {
    role = FieldRole::kText;
  }
  if (type == FieldType::kBytes && f == Field::kName) role = FieldRole::kText;
  return {n, type, f, role};
}

constexpr FieldSpec U(const char* n) { return Spec(n, FieldType::kUint); }
constexpr FieldSpec S(const char* n) { return Spec(n, FieldType::kSint); }
constexpr FieldSpec I(const char* n) { return Spec(n, FieldType::kId); }
constexpr FieldSpec B(const char* n) { return Spec(n, FieldType::kBytes); }
constexpr FieldSpec T(const char* n) { return Spec(n, FieldType::kTime); }

// The kUint fields IsCountingField names: the one list of them.
constexpr Field kCountingFields[] = {F::kUserTimestamp, F::kMethodId, F::kParentMethodId};

constexpr bool Counts(Field f) {
  for (Field c : kCountingFields) {
    if (c == f) return true;
  }
  return false;
}

constexpr bool DeltaCoded(const FieldSpec& f) {
  return f.type == FieldType::kId || f.type == FieldType::kTime ||
         (f.type == FieldType::kUint && Counts(f.field));
}

constexpr bool IsAddress(const FieldSpec& f) {
  return f.type == FieldType::kUint && f.role == FieldRole::kAddress;
}

template <size_t N>
constexpr KindSchema K(EventKind kind, const char* name, const FieldSpec (&f)[N]) {
  static_assert(N <= kMaxFields, "too many fields");
  static_assert(kMaxFields <= 16, "delta_mask has a bit per field");
  KindSchema s{kind, name, static_cast<uint8_t>(N), {}, 0, 0};
  for (size_t i = 0; i < N; ++i) {
    s.fields[i] = f[i];
    if (f[i].type == FieldType::kBytes) ++s.bytes_field_count;
    if (DeltaCoded(f[i])) s.delta_mask = static_cast<uint16_t>(s.delta_mask | (1u << i));
    if (IsAddress(f[i])) s.address_mask = static_cast<uint16_t>(s.address_mask | (1u << i));
    if (f[i].type == FieldType::kTime) s.time_mask = static_cast<uint16_t>(s.time_mask | (1u << i));
  }
  return s;
}

constexpr KindSchema K(EventKind kind, const char* name) {
  return KindSchema{kind, name, 0, {}, 0, 0};
}

using E = EventKind;

// Field naming conventions (FORMAT.md, "Field conventions"):
//   domain        kDefDomain id          counter      kDefCounter id
//   name, key, format, objtype, objname, path        kDefString id
//   clock_domain  kDefClockDomain id     histogram    kDefHistogram id
//   function      kDefHeapFunction id    event        kDefEvent id
//   user_timestamp  the raw value passed with a user clock domain;
//   timestamp       the same converted to trace ticks.
constexpr KindSchema kSchemas[] = {
    K(E::kTaskBegin, "task_begin", {U("domain"), I("id"), I("parent"), U("name")}),
    K(E::kTaskEnd, "task_end", {U("domain")}),
    K(E::kTaskBeginFn, "task_begin_fn", {U("domain"), I("id"), I("parent"), U("fn")}),
    K(E::kTaskBeginOverlapped, "task_begin_overlapped",
      {U("domain"), I("id"), I("parent"), U("name")}),
    K(E::kTaskEndOverlapped, "task_end_overlapped", {U("domain"), I("id")}),
    K(E::kTaskBeginEx, "task_begin_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("id"), I("parent"),
       U("name")}),
    K(E::kTaskBeginFnEx, "task_begin_fn_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("id"), I("parent"),
       U("fn")}),
    K(E::kTaskEndEx, "task_end_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp")}),
    K(E::kTaskBeginOverlappedEx, "task_begin_overlapped_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("id"), I("parent"),
       U("name")}),
    K(E::kTaskEndOverlappedEx, "task_end_overlapped_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("id")}),
    K(E::kTaskGroup, "task_group", {U("domain"), I("id"), I("parent"), U("name")}),
    K(E::kRegionBegin, "region_begin", {U("domain"), I("id"), I("parent"), U("name")}),
    K(E::kRegionEnd, "region_end", {U("domain"), I("id")}),
    K(E::kFrameBegin, "frame_begin", {U("domain"), I("id")}),
    K(E::kFrameEnd, "frame_end", {U("domain"), I("id")}),
    K(E::kFrameSubmit, "frame_submit", {U("domain"), I("id"), T("begin"), T("end")}),
    K(E::kMarker, "marker", {U("domain"), I("id"), U("name"), U("scope")}),
    K(E::kMarkerEx, "marker_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("id"), U("name"),
       U("scope")}),
    K(E::kCounterInc, "counter_inc", {U("counter")}),
    K(E::kCounterIncDelta, "counter_inc_delta", {U("counter"), U("delta")}),
    K(E::kCounterDec, "counter_dec", {U("counter")}),
    K(E::kCounterDecDelta, "counter_dec_delta", {U("counter"), U("delta")}),
    K(E::kCounterIncV3, "counter_inc_v3", {U("domain"), U("name")}),
    K(E::kCounterIncDeltaV3, "counter_inc_delta_v3", {U("domain"), U("name"), U("delta")}),
    K(E::kCounterDecV3, "counter_dec_v3", {U("domain"), U("name")}),
    K(E::kCounterDecDeltaV3, "counter_dec_delta_v3", {U("domain"), U("name"), U("delta")}),
    K(E::kCounterSetValue, "counter_set_value", {U("counter"), U("type"), U("value")}),
    K(E::kCounterSetValueV3, "counter_set_value_v3", {U("counter"), U("type"), U("value")}),
    K(E::kCounterSetValueEx, "counter_set_value_ex",
      {U("counter"), U("clock_domain"), U("user_timestamp"), T("timestamp"), U("type"),
       U("value")}),
    K(E::kCounterDestroy, "counter_destroy", {U("counter")}),
    K(E::kCounterBindContextMetadata, "counter_bind_context_metadata",
      {U("counter"), U("context_type"), U("value"), B("text")}),
    K(E::kEventStart, "event_start", {U("event")}),
    K(E::kEventEnd, "event_end", {U("event")}),
    K(E::kMetadataAdd, "metadata_add",
      {U("domain"), I("id"), U("key"), U("type"), U("count"), B("data")}),
    K(E::kMetadataStrAdd, "metadata_str_add", {U("domain"), I("id"), U("key"), B("text")}),
    K(E::kMetadataAddWithScope, "metadata_add_with_scope",
      {U("domain"), U("scope"), U("key"), U("type"), U("count"), B("data")}),
    K(E::kMetadataStrAddWithScope, "metadata_str_add_with_scope",
      {U("domain"), U("scope"), U("key"), B("text")}),
    K(E::kFormattedMetadataAdd, "formatted_metadata_add",
      {U("domain"), U("format"), B("args"), B("text")}),
    K(E::kFormattedMetadataAddOverlapped, "formatted_metadata_add_overlapped",
      {U("domain"), I("id"), U("format"), B("args"), B("text")}),
    K(E::kHistogramSubmit, "histogram_submit", {U("histogram"), U("length"), B("x"), B("y")}),
    K(E::kRelationAdd, "relation_add", {U("domain"), I("head"), U("relation"), I("tail")}),
    K(E::kRelationAddToCurrent, "relation_add_to_current", {U("domain"), U("relation"), I("tail")}),
    K(E::kRelationAddEx, "relation_add_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("head"),
       U("relation"), I("tail")}),
    K(E::kRelationAddToCurrentEx, "relation_add_to_current_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), U("relation"),
       I("tail")}),
    K(E::kIdCreate, "id_create", {U("domain"), I("id")}),
    K(E::kIdDestroy, "id_destroy", {U("domain"), I("id")}),
    K(E::kIdCreateEx, "id_create_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("id")}),
    K(E::kIdDestroyEx, "id_destroy_ex",
      {U("domain"), U("clock_domain"), U("user_timestamp"), T("timestamp"), I("id")}),
    K(E::kSyncCreate, "sync_create", {U("addr"), U("objtype"), U("objname"), U("attribute")}),
    K(E::kSyncRename, "sync_rename", {U("addr"), U("name")}),
    K(E::kSyncDestroy, "sync_destroy", {U("addr")}),
    K(E::kSyncPrepare, "sync_prepare", {U("addr")}),
    K(E::kSyncCancel, "sync_cancel", {U("addr")}),
    K(E::kSyncAcquired, "sync_acquired", {U("addr")}),
    K(E::kSyncReleasing, "sync_releasing", {U("addr")}),
    K(E::kHeapAllocateBegin, "heap_allocate_begin", {U("function"), U("size"), U("initialized")}),
    K(E::kHeapAllocateEnd, "heap_allocate_end",
      {U("function"), U("addr"), U("size"), U("initialized")}),
    K(E::kHeapFreeBegin, "heap_free_begin", {U("function"), U("addr")}),
    K(E::kHeapFreeEnd, "heap_free_end", {U("function"), U("addr")}),
    K(E::kHeapReallocateBegin, "heap_reallocate_begin",
      {U("function"), U("addr"), U("new_size"), U("initialized")}),
    K(E::kHeapReallocateEnd, "heap_reallocate_end",
      {U("function"), U("addr"), U("new_addr"), U("new_size"), U("initialized")}),
    K(E::kHeapInternalAccessBegin, "heap_internal_access_begin"),
    K(E::kHeapInternalAccessEnd, "heap_internal_access_end"),
    K(E::kHeapRecordMemoryGrowthBegin, "heap_record_memory_growth_begin"),
    K(E::kHeapRecordMemoryGrowthEnd, "heap_record_memory_growth_end"),
    K(E::kHeapResetDetection, "heap_reset_detection", {U("mask")}),
    K(E::kHeapRecord, "heap_record", {U("mask")}),
    K(E::kModuleLoad, "module_load", {U("start_addr"), U("end_addr"), U("path")}),
    K(E::kModuleUnload, "module_unload", {U("addr")}),
    K(E::kThreadSetName, "thread_set_name", {U("name")}),
    K(E::kThreadIgnore, "thread_ignore"),
    K(E::kPause, "pause"),
    K(E::kResume, "resume"),
    K(E::kDetach, "detach"),
    K(E::kPauseScoped, "pause_scoped", {U("collection_scope")}),
    K(E::kResumeScoped, "resume_scoped", {U("collection_scope")}),
    K(E::kClockDomainReset, "clock_domain_reset"),
    K(E::kSuppressPush, "suppress_push", {U("mask")}),
    K(E::kSuppressPop, "suppress_pop"),
    K(E::kSuppressMarkRange, "suppress_mark_range", {U("mode"), U("mask"), U("addr"), U("size")}),
    K(E::kSuppressClearRange, "suppress_clear_range", {U("mode"), U("mask"), U("addr"), U("size")}),
    K(E::kSetTrack, "set_track", {U("track")}),
    K(E::kJitMethodLoad, "jit_method_load",
      {U("method_id"), B("method_name"), U("address"), U("size"), B("class_file"), B("source_file"),
       B("line_table")}),
    K(E::kJitMethodLoadV2, "jit_method_load_v2",
      {U("method_id"), B("method_name"), U("address"), U("size"), B("class_file"), B("source_file"),
       B("line_table"), B("module_name")}),
    K(E::kJitMethodLoadV3, "jit_method_load_v3",
      {U("method_id"), B("method_name"), U("address"), U("size"), B("class_file"), B("source_file"),
       B("line_table"), B("module_name"), U("arch")}),
    K(E::kJitInlineLoad, "jit_inline_load",
      {U("method_id"), U("parent_method_id"), B("method_name"), U("address"), U("size"),
       B("class_file"), B("source_file"), B("line_table")}),
    K(E::kJitMethodUpdate, "jit_method_update",
      {U("method_id"), B("method_name"), U("address"), U("size"), B("class_file"), B("source_file"),
       B("line_table")}),
    K(E::kJitMethodUpdateV2, "jit_method_update_v2",
      {U("method_id"), U("address"), U("size"), U("segment_type"), B("data_format")}),
    K(E::kJitMethodUnload, "jit_method_unload", {U("method_id")}),
    K(E::kJitShutdown, "jit_shutdown"),

    K(E::kDefString, "def_string", {U("id"), B("text")}),
    K(E::kDefDomain, "def_domain", {U("id"), B("name")}),
    K(E::kDefCounter, "def_counter",
      {U("id"), B("name"), B("domain_name"), U("domain"), U("type")}),
    K(E::kDefHistogram, "def_histogram",
      {U("id"), U("domain"), B("name"), U("x_type"), U("y_type")}),
    K(E::kDefClockDomain, "def_clock_domain",
      {U("id"), U("frequency_hz"), U("clock_base"), U("ticks")}),
    K(E::kDefHeapFunction, "def_heap_function", {U("id"), B("name"), B("domain_name")}),
    K(E::kDefEvent, "def_event", {U("id"), B("name")}),
    K(E::kDefTrackGroup, "def_track_group", {U("id"), U("name"), U("type")}),
    K(E::kDefTrack, "def_track", {U("id"), U("track_group"), U("name"), U("type")}),

    K(E::kThreadInfo, "thread_info", {U("thread_index"), U("tid"), B("name"), U("ignored")}),
    K(E::kClockSync, "clock_sync", {U("ticks"), U("monotonic_raw_ns"), S("realtime_ns")}),
    K(E::kLoss, "loss", {U("thread_index"), U("cause"), U("count")}),
    K(E::kEnd, "end",
      {U("events_recorded"), U("events_dropped"), U("chunk_count"), U("end_ticks")}),
    K(E::kModuleMapped, "module_mapped",
      {U("ticks"), U("load_bias"), U("start_addr"), U("size"), B("path"), B("build_id")}),
    K(E::kModuleUnmapped, "module_unmapped", {U("ticks"), U("start_addr")}),
    K(E::kFlightDump, "flight_dump",
      {U("reason"), U("signal"), U("name"), U("window_begin"), U("window_end"), U("dump"),
       U("triggers")}),
};

constexpr int kSchemaCount = static_cast<int>(sizeof kSchemas / sizeof kSchemas[0]);

// Kinds below this bound are looked up by direct index.
constexpr int kIndexSize = 0x200;

constexpr std::array<int16_t, kIndexSize> BuildIndex() {
  std::array<int16_t, kIndexSize> index{};
  for (int i = 0; i < kIndexSize; ++i) index[i] = -1;
  for (int i = 0; i < kSchemaCount; ++i) {
    index[static_cast<uint16_t>(kSchemas[i].kind)] = static_cast<int16_t>(i);
  }
  return index;
}

constexpr std::array<int16_t, kIndexSize> kIndex = BuildIndex();

constexpr bool Sorted() {
  for (int i = 1; i < kSchemaCount; ++i) {
    if (static_cast<uint16_t>(kSchemas[i - 1].kind) >= static_cast<uint16_t>(kSchemas[i].kind)) {
      return false;
    }
  }
  return static_cast<uint16_t>(kSchemas[kSchemaCount - 1].kind) < kIndexSize;
}
static_assert(Sorted(), "kSchemas must be in ascending kind order");

constexpr bool AllFieldsKnown() {
  for (int i = 0; i < kSchemaCount; ++i) {
    for (int f = 0; f < kSchemas[i].field_count; ++f) {
      if (kSchemas[i].fields[f].field == Field::kUnknown) return false;
      for (int g = 0; g < f; ++g) {
        if (kSchemas[i].fields[g].field == kSchemas[i].fields[f].field) return false;
      }
    }
  }
  return true;
}
static_assert(AllFieldsKnown(),
              "every field name in kSchemas must have a kFields row, once per kind");

}  // namespace

namespace internal {

constexpr FieldIndexTable BuildFieldIndex() {
  FieldIndexTable t{};
  for (int k = 0; k < kFieldIndexKinds; ++k) {
    for (int f = 0; f < kFieldCount; ++f) t.at[k][f] = -1;
  }
  for (int i = 0; i < kSchemaCount; ++i) {
    const int k = static_cast<uint16_t>(kSchemas[i].kind);
    for (int f = 0; f < kSchemas[i].field_count; ++f) {
      const FieldSpec& spec = kSchemas[i].fields[f];
      t.at[k][static_cast<int>(spec.field)] =
          static_cast<int8_t>(f | (StorageOf(spec.type) << kSlotStorageShift));
    }
  }
  return t;
}

constexpr FieldIndexTable kFieldIndex = BuildFieldIndex();
static_assert(kMaxFields <= kSlotPositionMask + 1, "a slot's position must fit its low bits");

constexpr DefinitionRefTable BuildDefinitionRefs() {
  DefinitionRefTable t{};
  for (int i = 0; i < kSchemaCount; ++i) {
    DefinitionRefs& r = t.of[static_cast<uint16_t>(kSchemas[i].kind)];
    for (int f = 0; f < kSchemas[i].field_count; ++f) {
      const FieldSpec& spec = kSchemas[i].fields[f];
      if (spec.type != FieldType::kUint || !IsDefinitionRef(spec.role)) continue;
      r.index[r.count] = static_cast<uint8_t>(f);
      r.role[r.count] = spec.role;
      ++r.count;
    }
  }
  return t;
}

constexpr DefinitionRefTable kDefinitionRefs = BuildDefinitionRefs();

constexpr SchemaTable BuildSchemaTable() {
  SchemaTable t{};
  for (int k = 0; k < kFieldIndexKinds; ++k) {
    t.of[k] = k < kIndexSize && kIndex[k] >= 0 ? &kSchemas[kIndex[k]] : nullptr;
  }
  return t;
}
constexpr SchemaTable kSchemaOf = BuildSchemaTable();
static_assert(kIndexSize == kFieldIndexKinds, "every kind this version knows is in kSchemaOf");

}  // namespace internal

const KindSchema* AllSchemas(int* count) {
  *count = kSchemaCount;
  return kSchemas;
}

bool IsCountingField(Field f) { return Counts(f); }

const char* FieldName(Field f) {
  const int i = static_cast<int>(f);
  return i >= 0 && i < kFieldCount ? kFields[i].name : "";
}

Field FieldNamed(std::string_view name) {
  for (int i = 1; i < kFieldCount; ++i) {
    if (name == kFields[i].name) return kFields[i].field;
  }
  return Field::kUnknown;
}

int FindField(const KindSchema& schema, std::string_view name) {
  for (int i = 0; i < schema.field_count; ++i) {
    if (name == schema.fields[i].name) return i;
  }
  return -1;
}

const char* FieldTypeName(FieldType type) {
  switch (type) {
    case FieldType::kUint:
      return "uint";
    case FieldType::kSint:
      return "sint";
    case FieldType::kDouble:
      return "double";
    case FieldType::kId:
      return "id";
    case FieldType::kBytes:
      return "bytes";
    case FieldType::kTime:
      return "time";
  }
  return "?";
}

const char* LossCauseName(uint64_t cause) {
  switch (cause) {
    case 1:
      return "buffer_full";
    case 2:
      return "record_too_large";
    case 3:
      return "write_failed";
    case 4:
      return "invalid_argument";
    case 5:
      return "block_timeout";
    case 6:
      return "out_of_memory";
    case 7:
      return "reentrant";
    case 8:
      return "overwritten";
    default:
      return "unknown";
  }
}

}  // namespace format
}  // namespace ittc
