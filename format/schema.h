// The record vocabulary of the trace format: every kind of event and
// definition record, its on-disk number, and the ordered list of its fields.
//
// One table (schema.cc) is the single source of truth. The event encoder and
// decoder are driven by it, FORMAT.md's kind table is generated from it
// (tests/format/schema_doc_test.cc keeps the two equal), and itt-dump prints
// field names from it.
//
// The numbers of EventKind are on-disk values: never renumber, never reuse.
// Ranges (see FORMAT.md, "Record kinds"):
//   0x0001..0x00ff  core event kinds (one-byte varint for 1..127)
//   0x0100..0x0fff  core record kinds of definition, thread-info, clock-sync,
//                   loss and end chunks
//   0x1000..0xffff  sized kinds: the field block is preceded by its length,
//                   so a reader that does not know the kind skips it.
//
// Thread safety: everything here is immutable after static initialisation
// (constant data only, no constructors run).

#ifndef FORMAT_SCHEMA_H_
#define FORMAT_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ittc {
namespace format {

enum class EventKind : uint16_t {
  kInvalid = 0,

  // Tasks. The *Ex forms carry a user clock domain: see kTaskBeginEx.
  kTaskBegin = 1,
  kTaskEnd = 2,
  kTaskBeginFn = 3,
  kTaskBeginOverlapped = 4,
  kTaskEndOverlapped = 5,
  kTaskBeginEx = 6,
  kTaskBeginFnEx = 7,
  kTaskEndEx = 8,
  kTaskBeginOverlappedEx = 9,
  kTaskEndOverlappedEx = 10,
  kTaskGroup = 11,

  // Regions and frames.
  kRegionBegin = 12,
  kRegionEnd = 13,
  kFrameBegin = 14,
  kFrameEnd = 15,
  kFrameSubmit = 16,

  // Markers.
  kMarker = 17,
  kMarkerEx = 18,

  // Counters.
  kCounterInc = 19,
  kCounterIncDelta = 20,
  kCounterDec = 21,
  kCounterDecDelta = 22,
  kCounterIncV3 = 23,
  kCounterIncDeltaV3 = 24,
  kCounterDecV3 = 25,
  kCounterDecDeltaV3 = 26,
  kCounterSetValue = 27,
  kCounterSetValueV3 = 28,
  kCounterSetValueEx = 29,
  kCounterDestroy = 30,
  kCounterBindContextMetadata = 31,

  // Legacy __itt_event API.
  kEventStart = 32,
  kEventEnd = 33,

  // Metadata and histograms.
  kMetadataAdd = 34,
  kMetadataStrAdd = 35,
  kMetadataAddWithScope = 36,
  kMetadataStrAddWithScope = 37,
  kFormattedMetadataAdd = 38,
  kFormattedMetadataAddOverlapped = 39,
  kHistogramSubmit = 40,

  // Relations.
  kRelationAdd = 41,
  kRelationAddToCurrent = 42,
  kRelationAddEx = 43,
  kRelationAddToCurrentEx = 44,

  // Instance ids.
  kIdCreate = 45,
  kIdDestroy = 46,
  kIdCreateEx = 47,
  kIdDestroyEx = 48,

  // User-defined synchronisation; objects are identified by address.
  kSyncCreate = 49,
  kSyncRename = 50,
  kSyncDestroy = 51,
  kSyncPrepare = 52,
  kSyncCancel = 53,
  kSyncAcquired = 54,
  kSyncReleasing = 55,

  // Heap.
  kHeapAllocateBegin = 56,
  kHeapAllocateEnd = 57,
  kHeapFreeBegin = 58,
  kHeapFreeEnd = 59,
  kHeapReallocateBegin = 60,
  kHeapReallocateEnd = 61,
  kHeapInternalAccessBegin = 62,
  kHeapInternalAccessEnd = 63,
  kHeapRecordMemoryGrowthBegin = 64,
  kHeapRecordMemoryGrowthEnd = 65,
  kHeapResetDetection = 66,
  kHeapRecord = 67,

  // Modules.
  kModuleLoad = 68,
  kModuleUnload = 69,

  // Threads and collection control.
  kThreadSetName = 70,
  kThreadIgnore = 71,
  kPause = 72,
  kResume = 73,
  kDetach = 74,
  kPauseScoped = 75,
  kResumeScoped = 76,
  kClockDomainReset = 77,
  kSuppressPush = 78,
  kSuppressPop = 79,
  kSuppressMarkRange = 80,
  kSuppressClearRange = 81,
  kSetTrack = 82,

  // JIT profiling API (iJIT_NotifyEvent).
  kJitMethodLoad = 96,
  kJitMethodLoadV2 = 97,
  kJitMethodLoadV3 = 98,
  kJitInlineLoad = 99,
  kJitMethodUpdate = 100,
  kJitMethodUpdateV2 = 101,
  kJitMethodUnload = 102,
  kJitShutdown = 103,

  // Definitions (definitions chunks). A definition gives a small integer id
  // to something events refer to; ids of each definition kind are their own
  // namespace, and id 0 always means "none".
  kDefString = 0x100,
  kDefDomain = 0x101,
  kDefCounter = 0x102,
  kDefHistogram = 0x103,
  kDefClockDomain = 0x104,
  kDefHeapFunction = 0x105,
  kDefEvent = 0x106,
  kDefTrackGroup = 0x107,
  kDefTrack = 0x108,

  // Records of the other chunk types.
  kThreadInfo = 0x180,
  kClockSync = 0x181,
  kLoss = 0x182,
  kEnd = 0x183,
  // The process's module map (1.1), written in definitions chunks.
  kModuleMapped = 0x184,
  kModuleUnmapped = 0x185,
  // Why and over which time a flight recorder's dump was written (1.5), in
  // the dump's end chunk.
  kFlightDump = 0x186,
};

// First kind whose field block is length-prefixed in event streams.
inline constexpr uint16_t kFirstSizedKind = 0x1000;

inline constexpr bool IsSizedKind(EventKind k) {
  return static_cast<uint16_t>(k) >= kFirstSizedKind;
}

enum class FieldType : uint8_t {
  kUint = 1,    // unsigned varint: ids, sizes, addresses, enum values, bits
  kSint = 2,    // zigzag varint; FieldValue::u holds two's-complement bits
  kDouble = 3,  // 8 bytes little-endian IEEE 754; FieldValue::u holds bits
  kId = 4,      // __itt_id: presence byte + varints of nonzero parts
  kBytes = 5,   // varint length + bytes: text, raw arrays
  kTime = 6,    // absolute trace ticks, stored as zigzag delta from the
                // record's own time (0 in non-event chunks)
};

// Maximum number of fields of any kind. Small so that an Event is a fixed
// array the decoder fills without allocating; the widest kind today is
// kJitMethodLoadV3 with 9.
inline constexpr int kMaxFields = 10;

// Every field name of the schema, as a type: readers say
// `e.Get(Field::kDomain)`, never a position. The enumerator kFoo is the
// field named "foo" (FieldName); its meaning is the same in every kind that
// has it (FORMAT.md, "Meaning of fields"). Not an on-disk value: fields are
// stored by position, so these may be renumbered freely.
enum class Field : uint8_t {
  kUnknown = 0,
  kDomain,
  kId,
  kParent,
  kName,
  kFn,
  kClockDomain,
  kUserTimestamp,
  kTimestamp,
  kBegin,
  kEnd,
  kScope,
  kCounter,
  kDelta,
  kType,
  kValue,
  kContextType,
  kText,
  kEvent,
  kKey,
  kCount,
  kData,
  kFormat,
  kArgs,
  kHistogram,
  kLength,
  kX,
  kY,
  kHead,
  kRelation,
  kTail,
  kAddr,
  kObjtype,
  kObjname,
  kAttribute,
  kFunction,
  kSize,
  kInitialized,
  kNewSize,
  kNewAddr,
  kMask,
  kStartAddr,
  kEndAddr,
  kPath,
  kMode,
  kTrack,
  kMethodId,
  kMethodName,
  kAddress,
  kClassFile,
  kSourceFile,
  kLineTable,
  kModuleName,
  kArch,
  kParentMethodId,
  kSegmentType,
  kDataFormat,
  kDomainName,
  kXType,
  kYType,
  kFrequencyHz,
  kClockBase,
  kTicks,
  kTrackGroup,
  kThreadIndex,
  kTid,
  kIgnored,
  kMonotonicRawNs,
  kRealtimeNs,
  kCause,
  kEventsRecorded,
  kEventsDropped,
  kChunkCount,
  kEndTicks,
  kLoadBias,
  kBuildId,
  kReason,
  kSignal,
  kWindowBegin,
  kWindowEnd,
  kDump,
  kTriggers,
  kCollectionScope,
  kCount_,  // number of enumerators; not a field
};

inline constexpr int kFieldCount = static_cast<int>(Field::kCount_);

// What a field's value is, beyond its wire type: which definition an id
// refers to, or how a number reads. Derived from the field (and its type),
// so tools print, resolve and export a field without knowing its kind.
enum class FieldRole : uint8_t {
  kPlain = 0,        // a number or raw bytes with no further meaning
  kStringRef,        // kDefString id: name, key, format, objtype, objname, path
  kDomainRef,        // kDefDomain id
  kCounterRef,       // kDefCounter id
  kHistogramRef,     // kDefHistogram id
  kClockDomainRef,   // kDefClockDomain id
  kHeapFunctionRef,  // kDefHeapFunction id
  kEventRef,         // kDefEvent id
  kTrackRef,         // kDefTrack id
  kTrackGroupRef,    // kDefTrackGroup id
  kAddress,          // a code or data address (printed in hex)
  kScope,            // an __itt_scope value
  kCollectionScope,  // an __itt_collection_scope mask (pause/resume_scoped)
  kRelation,         // an __itt_relation value
  kMetadataType,     // an __itt_metadata_type value
  kTime,             // trace ticks (type kTime)
  kText,             // UTF-8 text (type kBytes)
  kMetadataArray,    // packed elements of a metadata/histogram type
};

// Whether successive values of the kUint field `f` tend to count up
// (user timestamps, JIT method ids), so that a delta-coded events chunk
// stores its differences. Reference and enum fields are not: their values
// recur from a small set, which zstd matches best as they are.
bool IsCountingField(Field f);

// The schema name of `f` ("domain", "clock_domain", ...), "" for kUnknown.
const char* FieldName(Field f);
// The field named `name`, or Field::kUnknown.
Field FieldNamed(std::string_view name);

struct FieldSpec {
  const char* name;  // snake_case, stable: tools key on it
  FieldType type;
  Field field;     // the same name, as a type
  FieldRole role;  // what the value means
};

struct KindSchema {
  EventKind kind;
  const char* name;  // snake_case, e.g. "task_begin"
  uint8_t field_count;
  FieldSpec fields[kMaxFields];
  // How many of the fields are kBytes: lets encoders skip sizing variable
  // parts of kinds that have none.
  uint8_t bytes_field_count;
  // Bit i set: fields[i] is stored as a difference from the previous event
  // of the kind in a delta-coded events chunk (FORMAT.md, "Delta-coded
  // fields"): every kId and kTime field, and the kUint fields whose values
  // count up (IsCountingField).
  uint16_t delta_mask = 0;
  // Bit i set: fields[i] is a kUint address (role kAddress), also stored
  // as a difference in an events chunk that has kChunkFlagDeltaAddresses
  // besides kChunkFlagDeltaFields (version 1.3): a loop on one lock, one
  // heap or neighbouring code repeats or steps its addresses.
  uint16_t address_mask = 0;
  // Bit i set: fields[i] is a kTime field, stored against two references
  // in an events chunk that has kChunkFlagDeltaTimes besides
  // kChunkFlagDeltaFields (version 1.4); without it against one.
  uint16_t time_mask = 0;

  // Position of `f` in fields, or -1.
  int IndexOf(Field f) const;
};

// The schema of `kind`, or nullptr if this version does not know it.
// Cost: one inline table load (defined below). The pointer is valid
// forever.
inline const KindSchema* FindSchema(EventKind kind);

// Every known kind in ascending order (events first, then records).
const KindSchema* AllSchemas(int* count);

// Index of the field named `name` in `schema`, or -1.
int FindField(const KindSchema& schema, std::string_view name);

namespace internal {
// kFieldIndex[kind][field]: the field's slot in the kind's schema, or -1
// (also for kinds this version does not know). A slot is the position in
// its low 4 bits and, above them, which FieldValue member holds the value
// (a Storage), so a getter checks the member in the same load. Kinds at
// or above kFieldIndexKinds are sized kinds, which have no fields here yet.
inline constexpr int kFieldIndexKinds = 0x200;
struct FieldIndexTable {
  int8_t at[kFieldIndexKinds][kFieldCount];
};
extern const FieldIndexTable kFieldIndex;

// kSchemaOf.of[kind]: FindSchema's answer for the kinds below
// kFieldIndexKinds (every kind this version knows).
struct SchemaTable {
  const KindSchema* of[kFieldIndexKinds];
};
extern const SchemaTable kSchemaOf;

// The member of FieldValue a field type uses, as stored in a slot.
enum Storage : int8_t { kStoredInU = 0, kStoredInId = 1, kStoredInBytes = 2 };
inline constexpr int8_t kSlotPositionMask = 0x0f;
inline constexpr int kSlotStorageShift = 4;
constexpr Storage StorageOf(FieldType type) {
  return type == FieldType::kId      ? kStoredInId
         : type == FieldType::kBytes ? kStoredInBytes
                                     : kStoredInU;
}

inline int FieldSlotOf(EventKind kind, Field f) {
  const auto k = static_cast<uint16_t>(kind);
  return k < kFieldIndexKinds ? kFieldIndex.at[k][static_cast<int>(f)] : -1;
}
// The position in a slot whose storage is `s`, or -1 (no such field, or it
// holds another member).
inline int PositionIf(int slot, Storage s) {
  return slot >= 0 && (slot >> kSlotStorageShift) == s ? (slot & kSlotPositionMask) : -1;
}
}  // namespace internal

// Position of field `f` in the schema of `kind`, or -1 if the kind has no
// such field. Cost: one table load.
inline int FieldIndexOf(EventKind kind, Field f) {
  const int slot = internal::FieldSlotOf(kind, f);
  return slot >= 0 ? (slot & internal::kSlotPositionMask) : -1;
}

inline int KindSchema::IndexOf(Field f) const { return FieldIndexOf(kind, f); }

// Whether a kUint field of `role` holds the id of a definition record
// (strings, domains, counters, histograms, heap functions, event names,
// clock domains). Tracks are left out: no writer defines them yet.
constexpr bool IsDefinitionRef(FieldRole role) {
  return role == FieldRole::kStringRef || role == FieldRole::kDomainRef ||
         role == FieldRole::kCounterRef || role == FieldRole::kHistogramRef ||
         role == FieldRole::kHeapFunctionRef || role == FieldRole::kEventRef ||
         role == FieldRole::kClockDomainRef;
}

namespace internal {
// kDefinitionRefs[kind]: the kind's kUint fields whose role
// IsDefinitionRef, in schema order (none for kinds this version does not
// know).
struct DefinitionRefs {
  uint8_t count;
  uint8_t index[kMaxFields];
  FieldRole role[kMaxFields];
};
struct DefinitionRefTable {
  DefinitionRefs of[kFieldIndexKinds];
};
extern const DefinitionRefTable kDefinitionRefs;
}  // namespace internal

inline const KindSchema* FindSchema(EventKind kind) {
  const auto k = static_cast<uint16_t>(kind);
  return k < internal::kFieldIndexKinds ? internal::kSchemaOf.of[k] : nullptr;
}

const char* FieldTypeName(FieldType type);

// An __itt_id. {0, 0, 0} is __itt_null.
struct Id {
  uint64_t d1 = 0;
  uint64_t d2 = 0;
  uint64_t d3 = 0;
  bool operator==(const Id& o) const { return d1 == o.d1 && d2 == o.d2 && d3 == o.d3; }
  bool operator!=(const Id& o) const { return !(*this == o); }
};

// One field of an in-memory record. Which member is meaningful depends on
// the field's type in the schema: kUint/kSint/kDouble/kTime use `u`
// (see FieldType), kId uses `id`, kBytes uses `bytes`. `bytes` points into
// storage owned by whoever filled the Event: the caller when encoding, the
// decoder's payload when decoding (valid until the payload goes away).
// The members share storage (24 bytes, so an Event is 264 bytes rather
// than 504 and a batch of decoded events stays in the cache); Event's
// getters and setters use only the member of the field's type.
struct FieldValue {
  union {
    uint64_t u;
    Id id;
    std::string_view bytes;
  };
  FieldValue() : id() {}

  static FieldValue Uint(uint64_t v) {
    FieldValue f;
    f.u = v;
    return f;
  }
  static FieldValue Sint(int64_t v) { return Uint(static_cast<uint64_t>(v)); }
  static FieldValue Double(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return Uint(bits);
  }
  static FieldValue Time(uint64_t ticks) { return Uint(ticks); }
  static FieldValue OfId(const Id& v) {
    FieldValue f;
    f.id = v;
    return f;
  }
  static FieldValue Bytes(std::string_view v) {
    FieldValue f;
    f.bytes = v;
    return f;
  }

  int64_t as_sint() const { return static_cast<int64_t>(u); }
  double as_double() const {
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
  }
};

// One record in memory: an event of an events chunk, or a record of any
// other chunk (then `time` is 0 and unused).
//
// Fields are reached by name: Get(Field::kDomain), GetId(Field::kId),
// GetBytes(Field::kText); a field the kind does not have reads as 0 / null
// / empty, and Has() tells the difference. Only the codecs in format/ walk
// `fields` by position, through the kind's schema.
//
// The encoders read `kind`, `time` and the first schema->field_count fields;
// `field_count` is set by Init() and by the decoders. A fixed-size value
// type: copying it copies the views, not the bytes they point to.
struct Event {
  EventKind kind = EventKind::kInvalid;
  // Not of the format: set by a reader (itt-dump's merge) on the first
  // event its thread has after some of its events were lost (a chunk
  // missing or undecodable before it), where pairing must not reach back.
  bool after_loss = false;
  // Not of the format either: set by the same merge on the first event of
  // each of a thread's events chunks (where a pass on every core begins a
  // piece: itt_dump/model/pieces.h).
  bool chunk_start = false;
  uint64_t time = 0;  // absolute ticks in the trace timebase
  uint8_t field_count = 0;
  FieldValue fields[kMaxFields];

  // Sets kind and time, and field_count from the schema (0 if unknown), and
  // clears every field.
  void Init(EventKind k, uint64_t t) {
    kind = k;
    time = t;
    const KindSchema* s = FindSchema(k);
    field_count = s != nullptr ? s->field_count : 0;
    for (int i = 0; i < field_count; ++i) fields[i] = FieldValue();
  }

  bool Has(Field f) const { return FieldIndexOf(kind, f) >= 0; }

  // Each getter reads the member its field's type uses (FieldValue), and
  // reads as 0 / null / empty when the kind has no such field or the field
  // has another type (a `name` is a string id in a task, text in a
  // definition).
  // kUint, kTime fields (and the raw bits of kSint, kDouble).
  uint64_t Get(Field f) const {
    const int i = PositionIf(f, internal::kStoredInU);
    return i >= 0 ? fields[i].u : 0;
  }
  int64_t GetSint(Field f) const { return static_cast<int64_t>(Get(f)); }
  double GetDouble(Field f) const {
    const int i = PositionIf(f, internal::kStoredInU);
    return i >= 0 ? fields[i].as_double() : 0;
  }
  const Id& GetId(Field f) const {
    static constexpr Id kNull{};
    const int i = PositionIf(f, internal::kStoredInId);
    return i >= 0 ? fields[i].id : kNull;
  }
  std::string_view GetBytes(Field f) const {
    const int i = PositionIf(f, internal::kStoredInBytes);
    return i >= 0 ? fields[i].bytes : std::string_view();
  }

  // Setters return false (and change nothing) if the kind has no field `f`
  // of the setter's type.
  bool Set(Field f, uint64_t v) { return Put(f, internal::kStoredInU, FieldValue::Uint(v)); }
  bool SetSint(Field f, int64_t v) { return Put(f, internal::kStoredInU, FieldValue::Sint(v)); }
  bool SetDouble(Field f, double v) { return Put(f, internal::kStoredInU, FieldValue::Double(v)); }
  bool SetId(Field f, const Id& v) { return Put(f, internal::kStoredInId, FieldValue::OfId(v)); }
  bool SetBytes(Field f, std::string_view v) {
    return Put(f, internal::kStoredInBytes, FieldValue::Bytes(v));
  }

 private:
  int PositionIf(Field f, internal::Storage s) const {
    return internal::PositionIf(internal::FieldSlotOf(kind, f), s);
  }
  bool Put(Field f, internal::Storage s, const FieldValue& v) {
    const int i = PositionIf(f, s);
    if (i < 0) return false;
    fields[i] = v;
    return true;
  }
};

// A kTime field's value for __itt_timestamp_none: "the time of the call",
// which no conversion of times changes (FORMAT.md).
inline constexpr uint64_t kTimestampNone = ~uint64_t{0};

// The time an event happened on the trace clock: its `timestamp` field for
// the kinds that carry a user clock domain (*_ex), else its own time.
inline uint64_t EffectiveTime(const Event& e) {
  const int i = FieldIndexOf(e.kind, Field::kTimestamp);
  return i >= 0 ? e.fields[i].u : e.time;
}

// Values of enum-typed fields. Numerically equal to the ITT/JIT API's own
// enums, so the collector stores the API value unchanged.

// __itt_metadata_type: element type of metadata arrays, counters, histograms.
enum class MetadataType : uint8_t {
  kUnknown = 0,
  kU64 = 1,
  kS64 = 2,
  kU32 = 3,
  kS32 = 4,
  kU16 = 5,
  kS16 = 6,
  kFloat = 7,
  kDouble = 8,
};

// Size in bytes of one element of `type`, or 0 for kUnknown/out of range.
// Inline: the collector's flusher asks it for every compact metadata record.
constexpr int MetadataTypeSize(uint64_t type) {
  if (type > static_cast<uint64_t>(MetadataType::kDouble)) return 0;
  switch (static_cast<MetadataType>(type)) {
    case MetadataType::kU64:
    case MetadataType::kS64:
    case MetadataType::kDouble:
      return 8;
    case MetadataType::kU32:
    case MetadataType::kS32:
    case MetadataType::kFloat:
      return 4;
    case MetadataType::kU16:
    case MetadataType::kS16:
      return 2;
    default:
      return 0;
  }
}

// __itt_scope.
enum class Scope : uint8_t {
  kUnknown = 0,
  kGlobal = 1,
  kTrackGroup = 2,
  kTrack = 3,
  kTask = 4,
  kMarker = 5,
};

// __itt_relation.
enum class Relation : uint8_t {
  kUnknown = 0,
  kDependentOn = 1,
  kSiblingOf = 2,
  kParentOf = 3,
  kContinuationOf = 4,
  kChildOf = 5,
  kContinuedBy = 6,
  kPredecessorTo = 7,
};

// Why events were dropped (kLoss records).
enum class LossCause : uint8_t {
  kUnknown = 0,
  kBufferFull = 1,       // the thread's ring was full (drop mode)
  kRecordTooLarge = 2,   // one record larger than the ring or a chunk
  kWriteFailed = 3,      // write(2) failed; the chunk's events are lost
  kInvalidArgument = 4,  // a call with arguments the collector rejected
  kBlockTimeout = 5,     // block mode gave up after its timeout
  kOutOfMemory = 6,      // the thread's ring could not be allocated
  kReentrant = 7,        // a call from a signal handler interrupting an ITT
                         // call of the same thread
  kOverwritten = 8,      // flight recorder: its events chunk was dropped to
                         // make room for newer ones (1.5)
};

const char* LossCauseName(uint64_t cause);

// The bytes of `e`'s kBytes fields, all together; `s` is its kind's
// schema. Cost: nothing for a kind without such fields.
inline size_t BytesFieldsSize(const Event& e, const KindSchema& s) {
  size_t bytes = 0;
  for (int i = 0; s.bytes_field_count != 0 && i < s.field_count; ++i) {
    if (s.fields[i].type == FieldType::kBytes) bytes += e.fields[i].bytes.size();
  }
  return bytes;
}

// Calls fn(role, id) for each nonzero field of `e` holding the id of a
// definition (IsDefinitionRef), in schema order. Cost: one table load and
// a loop over those fields only.
template <typename Fn>
inline void ForEachDefinitionRef(const Event& e, Fn&& fn) {
  const auto k = static_cast<uint16_t>(e.kind);
  if (k >= internal::kFieldIndexKinds) return;
  const internal::DefinitionRefs& r = internal::kDefinitionRefs.of[k];
  for (int i = 0; i < r.count; ++i) {
    const uint64_t id = e.fields[r.index[i]].u;
    if (id != 0) fn(r.role[i], id);
  }
}

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_SCHEMA_H_
