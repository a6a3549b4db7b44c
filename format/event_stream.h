// Encoding and decoding of the payload of one events chunk: the events of
// one thread, in the order they happened on it.
//
// Payload (FORMAT.md, "Events chunk"):
//   varint thread_index, varint base_time, varint event_count,
//   varint times_length, the time stream (times_length bytes: one zigzag
//   varint time delta per event), then the op stream up to the end (per
//   event: varint kind, [varint length if the kind is sized], fields).
// Times are kept apart from everything else because they are the one
// high-entropy part: separated, zstd codes them with their own Huffman
// table and finds long matches in the regular op stream.

#ifndef FORMAT_EVENT_STREAM_H_
#define FORMAT_EVENT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "format/chunk.h"
#include "format/coding.h"
#include "format/schema.h"

namespace ittc {
namespace format {

// Upper bound of the bytes Append(event) adds to the payload, so a writer
// keeps a chunk within the format's limit by appending only while
//   encoder.payload_size() + MaxEncodedEventSize(e) <= kMaxChunkPayloadBytes
// (a single event larger than that cannot be recorded: "record too large").
// REQUIRES: FindSchema(event.kind) != nullptr.
size_t MaxEncodedEventSize(const Event& event);

// Field-block codec shared by events and records. Exposed for the record
// codec, the collector's ring-record path and tests; most code uses the
// classes below.
namespace internal {

// Largest encoding of one field other than the bytes of a kBytes field:
// an id's presence byte and three 10-byte varints.
inline constexpr size_t kMaxFieldBytes = 1 + 3 * kMaxVarint64Bytes;

// Kind, time delta and length prefix, each at most a 10-byte varint.
inline constexpr size_t kMaxEventPrefixBytes = 3 * kMaxVarint64Bytes;

inline char* PutId(char* p, const Id& id) {
  const unsigned mask = (id.d1 != 0 ? 1u : 0u) | (id.d2 != 0 ? 2u : 0u) | (id.d3 != 0 ? 4u : 0u);
  *p++ = static_cast<char>(mask);
  if (mask & 1) p = PutVarint64(p, id.d1);
  if (mask & 2) p = PutVarint64(p, id.d2);
  if (mask & 4) p = PutVarint64(p, id.d3);
  return p;
}

// A field source is any type with
//   uint64_t Word();                the next kUint/kSint/kDouble/kTime field
//                                   (raw bits; kTime as absolute ticks)
//   Id NextId();                    the next kId field
//   std::string_view NextBytes();   the next kBytes field
// called once per field, in schema order.

// Whether `Source` says (`static constexpr bool kPadsBytes = true;`) that
// each view its NextBytes returns may be read up to its size rounded up to
// 8 bytes; whoever encodes from it then reserves room for the rounded
// sizes (EventStreamEncoder's `bytes_bound`), and PutField copies short
// views in words.
template <typename Source, typename = void>
inline constexpr bool kPadsBytes = false;
template <typename Source>
inline constexpr bool kPadsBytes<Source, std::void_t<decltype(Source::kPadsBytes)>> =
    Source::kPadsBytes;

// The longest view PutField copies in words from a source that pads.
inline constexpr size_t kInlineBytesCopy = 64;

// Writes the next field of `source`, of type kType, at p; a kTime field
// relative to `own_time`. The one definition of each field's encoding.
// Always inline: left to GCC's unit-wide budget, the bytes fields' copy
// went out of line in the collector's flusher once its translation unit
// grew, and a sustained loop of JIT method loads kept 77% instead of 89%.
template <FieldType kType, typename Source>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline char* PutField(char* p, uint64_t own_time, Source& source) {
  if constexpr (kType == FieldType::kUint) {
    return PutVarint64(p, source.Word());
  } else if constexpr (kType == FieldType::kSint) {
    return PutVarint64(p, ZigZagEncode(static_cast<int64_t>(source.Word())));
  } else if constexpr (kType == FieldType::kDouble) {
    return PutFixed64(p, source.Word());
  } else if constexpr (kType == FieldType::kTime) {
    return PutVarint64(p, ZigZagEncode(static_cast<int64_t>(source.Word() - own_time)));
  } else if constexpr (kType == FieldType::kId) {
    return PutId(p, source.NextId());
  } else {
    static_assert(kType == FieldType::kBytes);
    const std::string_view b = source.NextBytes();
    p = PutVarint64(p, b.size());
    if constexpr (kPadsBytes<Source>) {
      // A few words inline, rather than a call. The bytes past the view's
      // end are the source's padding; they land in room the caller
      // reserved for it, and the next field overwrites them.
      if (b.size() <= kInlineBytesCopy) {
        for (size_t i = 0; i < b.size(); i += 8) std::memcpy(p + i, b.data() + i, 8);
        return p + b.size();
      }
    }
    if (!b.empty()) std::memcpy(p, b.data(), b.size());
    return p + b.size();
  }
}

// Writes fields of the types kTypes, in that order: the straight-line
// encoding of a kind whose schema is known at compile time.
template <FieldType... kTypes, typename Source>
inline char* PutFields(char* p, uint64_t own_time, Source& source) {
  ((p = PutField<kTypes>(p, own_time, source)), ...);
  return p;
}

// The presence-byte bit of an id stored relative to the field's previous
// relative one (delta-coded chunks only).
inline constexpr unsigned kRelativeId = 8;

// Delta-coded fields (FORMAT.md, "Delta-coded fields"): per unsized kind
// and field, the reference the next value is stored against (the value of
// the previous event of that kind in the chunk; for an id, the previous
// relative id; for a time field, two). A row lives from the first event of its kind in the chunk
// (all zero then) to the chunk's end. Rows are zeroed when first used, so
// Clear() costs nothing per kind. About 60 KiB, in every encoder and
// decoder.
class FieldHistory {
 public:
  // Word slots per field: an id's three parts; a time field's two
  // references (PutDeltaTime); other fields use the first.
  using Slot = uint64_t[3];

  void Clear() {
    for (uint64_t& w : seen_) w = 0;
  }
  // Becomes a copy of `other` (the rows it has used).
  void CopyFrom(const FieldHistory& other) {
    for (int k = 0; k < 256; ++k) {
      if ((other.seen_[k >> 6] >> (k & 63)) & 1)
        std::memcpy(rows_[k], other.rows_[k], sizeof(rows_[k]));
    }
    std::memcpy(seen_, other.seen_, sizeof(seen_));
  }
  // The row of `kind`: a slot per field. Which fields it holds references
  // for is the kind's KindSchema::delta_mask (and address_mask in a chunk
  // of kChunkFlagDeltaAddresses). REQUIRES: !IsSizedKind(kind).
  ABSL_ATTRIBUTE_ALWAYS_INLINE Slot* Of(EventKind kind) {
    const auto k = static_cast<uint8_t>(kind);
    const uint64_t bit = uint64_t{1} << (k & 63);
    uint64_t& word = seen_[k >> 6];
    if (__builtin_expect((word & bit) == 0, 0)) {
      word |= bit;
      std::memset(rows_[k], 0, sizeof(rows_[k]));
    }
    return rows_[k];
  }

 private:
  static_assert(kFirstSizedKind > 0xff, "unsized kinds fit a byte (0x100..0xfff are records)");
  uint64_t seen_[4] = {};
  Slot rows_[256][kMaxFields];  // not initialised: see Of
};

// The stored difference of a one-word field: zigzag(value - previous).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline char* PutDeltaWord(char* p, uint64_t v, uint64_t* previous) {
  p = PutVarint64(p, ZigZagEncode(static_cast<int64_t>(v - *previous)));
  *previous = v;
  return p;
}

// An id in a delta-coded chunk: a null id is the plain byte 00 and leaves
// the field's history alone; any other is relative (presence bit 3) to the
// last relative id of the field, which it replaces: bits 0-2 mark the
// parts that differ, each stored as zigzag(part - previous part).
// `slot_of()` gives the field's slot; it is only called for a non-null id,
// so that a loop of null ids costs what the plain form does.
template <typename SlotOf>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline char* PutDeltaId(char* p, const Id& id, SlotOf&& slot_of) {
  if ((id.d1 | id.d2 | id.d3) == 0) {
    *p++ = 0;
    return p;
  }
  FieldHistory::Slot& slot = slot_of();
  const uint64_t d1 = id.d1 - slot[0], d2 = id.d2 - slot[1], d3 = id.d3 - slot[2];
  const unsigned mask = (d1 != 0 ? 1u : 0u) | (d2 != 0 ? 2u : 0u) | (d3 != 0 ? 4u : 0u);
  *p++ = static_cast<char>(kRelativeId | mask);
  if (mask == 0) return p;  // the same id again
  slot[0] = id.d1;
  slot[1] = id.d2;
  slot[2] = id.d3;
  if (mask & 1) p = PutVarint64(p, ZigZagEncode(static_cast<int64_t>(d1)));
  if (mask & 2) p = PutVarint64(p, ZigZagEncode(static_cast<int64_t>(d2)));
  if (mask & 4) p = PutVarint64(p, ZigZagEncode(static_cast<int64_t>(d3)));
  return p;
}

// A time field of `value` in an event at own_time, in a chunk of
// kChunkFlagDeltaTimes (version 1.4): the tagged varint (PutTaggedVarint64)
// of the zigzag difference from the closer of two references, both 0
// before the kind's first event, both this value's afterwards:
//   tag 0: slot[0], the field's last value less its event's time (the only
//          reference before 1.4): a clock that advances with the trace's,
//          as __itt_get_timestamp's values do, differs little from it;
//   tag 1: slot[1], the field's last value: a timestamp that counts on its
//          own (a loop's ++t) differs from it by its step, where the first
//          reference would differ by every jitter of the event times.
// Ties take tag 0.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline char* PutDeltaTime(char* p, uint64_t value, uint64_t own_time,
                                                       uint64_t* slot) {
  const uint64_t since_time = value - own_time;
  const uint64_t by_time = ZigZagEncode(static_cast<int64_t>(since_time - slot[0]));
  const uint64_t by_value = ZigZagEncode(static_cast<int64_t>(value - slot[1]));
  slot[0] = since_time;
  slot[1] = value;
  return by_value < by_time ? PutTaggedVarint64(p, by_value, 1) : PutTaggedVarint64(p, by_time, 0);
}

// PutField's form in a delta-coded chunk. `slot_of()` gives the field's
// FieldHistory slot, `delta` is its bit of the kind's delta_mask. An id is
// PutDeltaId; a kTime field is PutDeltaTime, whatever its bit (the encoder
// writes version 1.4 chunks); a kUint field with the bit is PutDeltaWord
// of its value. Every other field is stored as in the plain form.
template <FieldType kType, typename Source, typename SlotOf>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline char* PutDeltaField(char* p, uint64_t own_time,
                                                        SlotOf&& slot_of, bool delta,
                                                        Source& source) {
  if constexpr (kType == FieldType::kId) {
    return PutDeltaId(p, source.NextId(), slot_of);
  } else if constexpr (kType == FieldType::kTime) {
    return PutDeltaTime(p, source.Word(), own_time, slot_of());
  } else if constexpr (kType == FieldType::kUint) {
    if (delta) return PutDeltaWord(p, source.Word(), &slot_of()[0]);
    return PutField<kType>(p, own_time, source);
  } else {
    return PutField<kType>(p, own_time, source);
  }
}

// PutFields's delta-coded form for a kind whose field types are kTypes and
// whose delta-coded uint fields are the bits of kCounting (its
// KindSchema::delta_mask and address_mask restricted to them; for the
// WithFixedFields kinds their kAddresses). Ids and time fields are
// delta-coded anyway. Only they and the kCounting fields look at
// `history`, and ids only when they are not null.
template <uint16_t kCounting, FieldType... kTypes, typename Source>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline char* PutDeltaFields(char* p, uint64_t own_time,
                                                         FieldHistory* history, EventKind kind,
                                                         Source& source) {
  int i = 0;
  ((p = PutDeltaField<kTypes>(
        p, own_time, [ history, kind, i ]() -> auto& { return history->Of(kind)[i]; },
        ((kCounting >> i) & 1) != 0, source),
    ++i),
   ...);
  return p;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetIdField(const char* p, const char* limit, Id* id,
                                                           const char** reason) {
  if (p >= limit) {
    *reason = "truncated id field";
    return nullptr;
  }
  const unsigned mask = static_cast<unsigned char>(*p++);
  if (mask > 7) {
    *reason = "bad id presence byte";
    return nullptr;
  }
  *id = Id{};
  if (mask & 1) p = GetVarint64(p, limit, &id->d1);
  if (p != nullptr && (mask & 2)) p = GetVarint64(p, limit, &id->d2);
  if (p != nullptr && (mask & 4)) p = GetVarint64(p, limit, &id->d3);
  if (p == nullptr) *reason = "bad id field";
  return p;
}

// Reads a field of type kType from [p, limit) into *f, a kTime field
// relative to `own_time`: PutField's inverse, and the one definition of
// each field's decoding. Returns the position after it, or nullptr on
// malformed input (*reason says why).
template <FieldType kType>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetField(const char* p, const char* limit,
                                                         uint64_t own_time, FieldValue* f,
                                                         const char** reason) {
  if constexpr (kType == FieldType::kUint) {
    p = GetVarint64(p, limit, &f->u);
    if (p == nullptr) *reason = "bad varint field";
    return p;
  } else if constexpr (kType == FieldType::kSint || kType == FieldType::kTime) {
    uint64_t v;
    p = GetVarint64(p, limit, &v);
    if (p == nullptr) {
      *reason = kType == FieldType::kSint ? "bad zigzag field" : "bad time field";
      return nullptr;
    }
    f->u = (kType == FieldType::kTime ? own_time : 0) + static_cast<uint64_t>(ZigZagDecode(v));
    return p;
  } else if constexpr (kType == FieldType::kDouble) {
    if (limit - p < 8) {
      *reason = "truncated double field";
      return nullptr;
    }
    f->u = DecodeFixed64(p);
    return p + 8;
  } else if constexpr (kType == FieldType::kId) {
    return GetIdField(p, limit, &f->id, reason);
  } else {
    static_assert(kType == FieldType::kBytes);
    uint64_t v;
    p = GetVarint64(p, limit, &v);
    if (p == nullptr || v > static_cast<uint64_t>(limit - p)) {
      *reason = "bad bytes field length";
      return nullptr;
    }
    f->bytes = std::string_view(p, static_cast<size_t>(v));
    return p + v;
  }
}

// Reads fields of the types kTypes, in that order, into event->fields and
// sets event->field_count: GetField's straight-line form for a kind whose
// schema is known at compile time.
template <FieldType... kTypes>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetFields(const char* p, const char* limit,
                                                          uint64_t own_time, Event* event,
                                                          const char** reason) {
  FieldValue* f = event->fields;
  if (!(((p = GetField<kTypes>(p, limit, own_time, f++, reason)) != nullptr) && ...)) {
    return nullptr;
  }
  event->field_count = sizeof...(kTypes);
  return p;
}

// The value of a one-word delta-coded field: previous + zigzag(stored).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetDeltaWord(const char* p, const char* limit,
                                                             uint64_t* previous, uint64_t* v) {
  uint64_t zz;
  p = GetVarint64(p, limit, &zz);
  if (p != nullptr) *v = *previous += static_cast<uint64_t>(ZigZagDecode(zz));
  return p;
}

// PutDeltaId's inverse.
template <typename SlotOf>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetDeltaId(const char* p, const char* limit,
                                                           SlotOf&& slot_of, Id* id,
                                                           const char** reason) {
  if (p >= limit) {
    *reason = "truncated id field";
    return nullptr;
  }
  const unsigned presence = static_cast<unsigned char>(*p);
  if (presence < kRelativeId) return GetIdField(p, limit, id, reason);
  ++p;
  if (presence > (kRelativeId | 7)) {
    *reason = "bad id presence byte";
    return nullptr;
  }
  FieldHistory::Slot& slot = slot_of();
  uint64_t unused;
  if (presence & 1) p = GetDeltaWord(p, limit, &slot[0], &unused);
  if (p != nullptr && (presence & 2)) p = GetDeltaWord(p, limit, &slot[1], &unused);
  if (p != nullptr && (presence & 4)) p = GetDeltaWord(p, limit, &slot[2], &unused);
  if (p == nullptr) {
    *reason = "bad id field";
    return nullptr;
  }
  *id = Id{slot[0], slot[1], slot[2]};
  return p;
}

// PutDeltaTime's inverse.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetDeltaTime(const char* p, const char* limit,
                                                             uint64_t own_time, uint64_t* slot,
                                                             uint64_t* value) {
  uint64_t zz;
  unsigned tag;
  p = GetTaggedVarint64(p, limit, &zz, &tag);
  if (p == nullptr) return nullptr;
  const auto diff = static_cast<uint64_t>(ZigZagDecode(zz));
  *value = tag == 0 ? own_time + slot[0] + diff : slot[1] + diff;
  slot[0] = *value - own_time;
  slot[1] = *value;
  return p;
}

// PutDeltaField's inverse (GetField's form in a delta-coded chunk). For a
// kTime field `delta` says the chunk has kChunkFlagDeltaTimes (version
// 1.4: GetDeltaTime); without it the field is its value less own_time as
// a difference from the last (versions 1.2 and 1.3).
template <FieldType kType, typename SlotOf>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetDeltaField(const char* p, const char* limit,
                                                              uint64_t own_time, SlotOf&& slot_of,
                                                              bool delta, FieldValue* f,
                                                              const char** reason) {
  if constexpr (kType == FieldType::kId) {
    return GetDeltaId(p, limit, slot_of, &f->id, reason);
  } else if constexpr (kType == FieldType::kTime) {
    uint64_t v;
    if (delta) {
      p = GetDeltaTime(p, limit, own_time, slot_of(), &v);
    } else {
      p = GetDeltaWord(p, limit, &slot_of()[0], &v);
      v += own_time;
    }
    if (p == nullptr) {
      *reason = "bad time field";
      return nullptr;
    }
    f->u = v;
    return p;
  } else if constexpr (kType == FieldType::kUint) {
    if (!delta) return GetField<kType>(p, limit, own_time, f, reason);
    p = GetDeltaWord(p, limit, &slot_of()[0], &f->u);
    if (p == nullptr) *reason = "bad varint field";
    return p;
  } else {
    return GetField<kType>(p, limit, own_time, f, reason);
  }
}

// PutDeltaFields's inverse; bit i of `uint_deltas`: the kUint field i is
// stored as a difference (PutDeltaFields's kCounting, as the chunk's flags
// say).
template <FieldType... kTypes>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* GetDeltaFields(const char* p, const char* limit,
                                                               uint64_t own_time,
                                                               FieldHistory* history,
                                                               EventKind kind, uint16_t uint_deltas,
                                                               Event* event, const char** reason) {
  static_assert(((kTypes != FieldType::kTime) && ...),
                "a straight-line kind with a time field needs its delta_mask here");
  FieldValue* f = event->fields;
  int i = 0;
  if (!(((p = GetDeltaField<kTypes>(
              p, limit, own_time, [ history, kind, i ]() -> auto& { return history->Of(kind)[i]; },
              ((uint_deltas >> i) & 1) != 0, f++, reason)) != nullptr &&
         (++i, true)) &&
        ...)) {
    return nullptr;
  }
  event->field_count = sizeof...(kTypes);
  return p;
}

// The kinds a tight instrumented loop emits get straight-line code in the
// encoder and the decoder: calls visitor.template Fixed<kAddresses,
// kTypes...>() with the field types of `kind` and the bits of its address
// fields (KindSchema::address_mask) if it is one of them, else
// visitor.Other(). None has another field a delta-coded chunk stores as a
// difference besides its ids (KindSchema::delta_mask): the *_ex kinds,
// with their user timestamps, take the schema's path.
// Each list repeats its kind's schema (schema.cc); tests/format and the
// collector's ring-record test encode every kind through here and decode
// it with the schema-driven decoder (and compare this decoder's output with
// it), so a list that drifts fails them.
template <typename Visitor>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline auto WithFixedFields(EventKind kind, Visitor&& visitor) {
  constexpr FieldType U = FieldType::kUint, I = FieldType::kId, B = FieldType::kBytes;
  switch (kind) {
    case EventKind::kTaskEnd:
    case EventKind::kCounterInc:
    case EventKind::kCounterDec:
    case EventKind::kEventStart:
    case EventKind::kEventEnd:
      return visitor.template Fixed<0, U>();
    case EventKind::kSyncPrepare:
    case EventKind::kSyncCancel:
    case EventKind::kSyncAcquired:
    case EventKind::kSyncReleasing:
      return visitor.template Fixed<1u << 0, U>();  // addr
    case EventKind::kHeapFreeBegin:
    case EventKind::kHeapFreeEnd:
      return visitor.template Fixed<1u << 1, U, U>();  // function, addr
    case EventKind::kHeapAllocateBegin:
      return visitor.template Fixed<0, U, U, U>();
    case EventKind::kHeapAllocateEnd:
    case EventKind::kHeapReallocateBegin:
      return visitor.template Fixed<1u << 1, U, U, U, U>();  // function, addr, ...
    case EventKind::kHeapReallocateEnd:
      return visitor.template Fixed<(1u << 1) | (1u << 2), U, U, U, U, U>();  // ..., new_addr
    case EventKind::kTaskBegin:
    case EventKind::kTaskBeginOverlapped:
    case EventKind::kRegionBegin:
      return visitor.template Fixed<0, U, I, I, U>();
    case EventKind::kTaskBeginFn:
      return visitor.template Fixed<1u << 3, U, I, I, U>();  // fn
    case EventKind::kTaskEndOverlapped:
    case EventKind::kFrameBegin:
    case EventKind::kFrameEnd:
    case EventKind::kRegionEnd:
      return visitor.template Fixed<0, U, I>();
    case EventKind::kMarker:
      return visitor.template Fixed<0, U, I, U, U>();
    case EventKind::kCounterIncDelta:
    case EventKind::kCounterDecDelta:
    case EventKind::kCounterIncV3:
    case EventKind::kCounterDecV3:
      return visitor.template Fixed<0, U, U>();
    case EventKind::kCounterIncDeltaV3:
    case EventKind::kCounterDecDeltaV3:
    case EventKind::kCounterSetValue:
    case EventKind::kCounterSetValueV3:
      return visitor.template Fixed<0, U, U, U>();
    case EventKind::kMetadataAdd:
      return visitor.template Fixed<0, U, I, U, U, U, B>();
    case EventKind::kRelationAdd:
      return visitor.template Fixed<0, U, I, U, I>();
    default:
      return visitor.Other();
  }
}

// The fields of `kind` by its straight-line form (WithFixedFields), as
// DecodeFields with its schema reads them (DecodeDeltaFields with
// `history` if it is not null, its address fields as differences too if
// `addresses`). *fixed: whether `kind` has one; if not, nothing is read
// and nullptr returned.
const char* DecodeFixedFields(EventKind kind, const char* p, const char* limit, uint64_t own_time,
                              FieldHistory* history, bool addresses, Event* event,
                              const char** reason, bool* fixed);

// Calls fn(std::integral_constant<FieldType, t>{}) for the field type `t`
// and returns what it returns: the one switch over field types of the
// schema-driven codecs below.
template <typename Fn>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline auto WithFieldType(FieldType t, Fn&& fn) {
  switch (t) {
    case FieldType::kUint:
      return fn(std::integral_constant<FieldType, FieldType::kUint>{});
    case FieldType::kSint:
      return fn(std::integral_constant<FieldType, FieldType::kSint>{});
    case FieldType::kDouble:
      return fn(std::integral_constant<FieldType, FieldType::kDouble>{});
    case FieldType::kTime:
      return fn(std::integral_constant<FieldType, FieldType::kTime>{});
    case FieldType::kId:
      return fn(std::integral_constant<FieldType, FieldType::kId>{});
    case FieldType::kBytes:
      break;
  }
  return fn(std::integral_constant<FieldType, FieldType::kBytes>{});
}

// Writes the fields `source` yields, in `schema` order, at p; kTime fields
// relative to `own_time`. REQUIRES: room for field_count * kMaxFieldBytes
// + the kBytes fields' sizes.
template <typename Source>
inline char* EncodeFieldsFrom(const KindSchema& schema, uint64_t own_time, Source& source,
                              char* p) {
  for (int i = 0; i < schema.field_count; ++i) {
    p = WithFieldType(schema.fields[i].type, [&](auto type) {
      return PutField<decltype(type)::value>(p, own_time, source);
    });
  }
  return p;
}

// EncodeFieldsFrom's delta-coded form, against `row` (FieldHistory::Of):
// the fields of the bits of `delta_mask` as differences (the schema's
// delta_mask, with its address_mask in a chunk of
// kChunkFlagDeltaAddresses). Time fields take the 1.4 form whatever their
// bits (PutDeltaField), where DecodeDeltaFields reads the older form for a
// time field without its bit: the encoder writes kChunkFlagDeltaTimes on
// every delta-coded chunk, and its decoder's mask keeps those bits.
template <typename Source>
inline char* EncodeDeltaFieldsFrom(const KindSchema& schema, uint16_t delta_mask, uint64_t own_time,
                                   FieldHistory::Slot* row, Source& source, char* p) {
  for (int i = 0; i < schema.field_count; ++i) {
    const bool delta = (delta_mask >> i) & 1;
    auto slot_of = [ row, i ]() -> auto& { return row[i]; };
    p = WithFieldType(schema.fields[i].type, [&](auto type) {
      return PutDeltaField<decltype(type)::value>(p, own_time, slot_of, delta, source);
    });
  }
  return p;
}

// The field source of an in-memory Event.
class EventFieldSource {
 public:
  explicit EventFieldSource(const Event& event) : f_(event.fields) {}
  uint64_t Word() { return (f_++)->u; }
  const Id& NextId() { return (f_++)->id; }
  std::string_view NextBytes() { return (f_++)->bytes; }
  bool ok() const { return true; }

 private:
  const FieldValue* f_;
};

// Writes the fields of `event` per `schema` at dst, kTime relative to
// `own_time`. REQUIRES: room for MaxEncodedEventSize(event) bytes.
char* EncodeFields(const KindSchema& schema, const Event& event, uint64_t own_time, char* dst);

// Reads schema->field_count fields from [p, limit) into *event, kTime
// relative to `own_time`. Returns the position after them or nullptr on
// malformed input (*reason says why).
const char* DecodeFields(const KindSchema& schema, const char* p, const char* limit,
                         uint64_t own_time, Event* event, const char** reason);
// DecodeFields's delta-coded form, against `row` (FieldHistory::Of), the
// fields of the bits of `delta_mask` as differences (EncodeDeltaFieldsFrom);
// a kTime field's bit says it has two references (GetDeltaField).
const char* DecodeDeltaFields(const KindSchema& schema, uint16_t delta_mask, const char* p,
                              const char* limit, uint64_t own_time, FieldHistory::Slot* row,
                              Event* event, const char** reason);

}  // namespace internal

// One decoded event's fields alone (no kind, no time) in the plain coding
// of an events chunk: a few bytes where an Event takes 264, for a reader
// that holds many decoded events (itt_dump's pieces.h). Writes them at
// dst and returns their end. REQUIRES: FindSchema(event.kind) != nullptr;
// room for PackedFieldsBound(event) bytes.
char* PackFields(const Event& event, char* dst);
// At least the size of PackFields's bytes, and of the event's fields in an
// events chunk of either coding (MaxEncodedEventSize adds the kind and
// length); the usual kinds without a schema lookup. REQUIRES:
// FindSchema(event.kind) != nullptr.
size_t PackedFieldsBound(const Event& event);
// Reads PackFields's bytes at [p, limit) back into *event, whose kind and
// time must be the packed event's. Returns their end, or nullptr when they
// are not PackFields's (an unknown kind, a malformed field).
const char* UnpackFields(const char* p, const char* limit, Event* event);

// Builds one events-chunk payload. Used by the collector's flusher thread.
//
// Cost: appending does no allocation once the internal buffers have grown
// to the chunk size (they are reused across Reset calls) and encodes fields
// with inline varint writes; bench/flusher_bench.cc (BM_Stage_*) measures it.
//
// Thread safety: none; one encoder per thread.
class EventStreamEncoder {
 public:
  // How fields are stored: kDelta (FORMAT.md, "Delta-coded fields") is what
  // this version writes; kPlain is the form of versions 1.0 and 1.1, kept
  // so tests can write what older collectors wrote.
  enum class FieldCoding { kPlain, kDelta };

  explicit EventStreamEncoder(FieldCoding coding = FieldCoding::kDelta);
  EventStreamEncoder(const EventStreamEncoder&) = delete;
  EventStreamEncoder& operator=(const EventStreamEncoder&) = delete;

  // Starts a new payload for thread `thread_index`. `base_time` is the time
  // the first event's delta is taken from; any value works, one close to
  // the first event's time is smallest.
  void Reset(uint32_t thread_index, uint64_t base_time);

  // Appends `event`. REQUIRES: FindSchema(event.kind) != nullptr; every kBytes
  // field's view is valid during the call. Times may go backwards.
  void Append(const Event& event);

  // Appends an event of `kind` at `time` whose fields come from `source`
  // (a field source, see internal::EncodeFieldsFrom, that also has
  // `bool ok() const`: false once it found its input malformed), with no
  // Event in between: the collector encodes its ring records this way.
  // `bytes_bound` >= the total size of the kBytes fields the source yields
  // (each rounded up to 8 bytes for a source with kPadsBytes).
  // Returns false, appending nothing, if `kind` is unknown or the source
  // is not ok() after yielding the fields; the delta references the
  // fields moved are put back (RestoreHistory), so the events appended
  // after it are stored against what a reader has. Running out of memory
  // is not a false return: it sets failed(), as Append does.
  template <typename Source>
  bool AppendFrom(EventKind kind, uint64_t time, size_t bytes_bound, Source& source);

  // AppendFrom for a `kind` the caller knows to have the fields kTypes (its
  // list in internal::WithFixedFields): the straight-line code with no look
  // at the kind. The collector's hottest ring records take this path; a
  // list that does not match the kind's schema writes a payload that does
  // not decode (tests/collector compares every kind's payloads).
  template <FieldType... kTypes, typename Source>
  bool AppendFixed(EventKind kind, uint64_t time, size_t bytes_bound, Source& source);
  // AppendFixed for a kind with uint fields a delta-coded chunk stores as
  // differences (counting fields, IsCountingField, and addresses): the bits
  // of kCounting, which must be the kUint bits of its KindSchema::delta_mask
  // and address_mask (the collector's ring-record test compares the
  // payloads). AppendFixed is this with none.
  template <uint16_t kCounting, FieldType... kTypes, typename Source>
  bool AppendFixedCounting(EventKind kind, uint64_t time, size_t bytes_bound, Source& source);

  // Makes room for a payload of `payload_bytes` without growing any buffer,
  // and touches that memory (writes it): a caller that must not pay for
  // the first touch of pages later (the collector's flusher) prepares its
  // encoders ahead. Call on an empty encoder (after Reset).
  void Prepare(size_t payload_bytes);

  // The payload so far; valid until the next Reset, Append or Prepare
  // (another call writes the same bytes in the same place). Each call
  // assembles it: it writes the prefix and the time stream into the room
  // kept before the op stream, or when that is too small copies the whole
  // payload (and the next Reset makes the room large enough for this
  // payload's time stream, with an eighth to spare; the room never
  // shrinks). A caller takes it once per chunk.
  std::string_view payload() const;
  // Bytes payload() would return, without assembling it.
  size_t payload_size() const;
  size_t event_count() const { return event_count_; }
  uint32_t thread_index() const { return thread_index_; }
  // The flags the chunk holding this payload must carry besides
  // kChunkFlagZstd (ChunkWriter::AppendChunk's `flags`).
  uint16_t chunk_flags() const {
    return delta_ ? kChunkFlagDeltaFields | kChunkFlagDeltaAddresses | kChunkFlagDeltaTimes : 0;
  }
  // True if memory ran out since the last Reset: an Append dropped its
  // event (or payload() returned an empty view). The encoder never throws
  // or aborts, since it runs inside the traced process; the caller counts
  // the events as lost and Resets.
  bool failed() const { return failed_; }

  ~EventStreamEncoder();

 private:
  // A growable byte buffer written through raw pointers: the bytes so far
  // are [data, end), and it has room up to limit. Pointers rather than
  // sizes, so that an append reads two members to check its room and
  // writes one to commit.
  struct Buffer {
    char* data = nullptr;
    char* end = nullptr;
    char* limit = nullptr;
    // Bytes allocated before data (the allocation starts at data - front):
    // room to put the payload's prefix in front of the op stream.
    size_t front = 0;
    size_t size() const { return static_cast<size_t>(end - data); }
    size_t capacity() const { return static_cast<size_t>(limit - data); }
    bool HasRoom(size_t n) const { return static_cast<size_t>(limit - end) >= n; }
    // Makes room for n more bytes; returns where they go, or nullptr if
    // memory ran out (the buffer is then unchanged).
    char* Reserve(size_t n) {
      if (__builtin_expect(!HasRoom(n), 0) && !Grow(n)) return nullptr;
      return end;
    }
    bool Grow(size_t n);
    // Grows the capacity to exactly `cap` (no doubling) if it is less.
    bool GrowTo(size_t cap);
    // Makes `front` at least `bytes`, keeping the contents.
    bool GrowFront(size_t bytes);
    void Free();
  };

  // After an append that failed once its fields had moved delta references:
  // makes them those of the events appended so far again, by decoding the
  // payload (rare: a malformed ring record). Returns false.
  bool RestoreHistory();

  // AppendFrom's form for any kind, driven by its schema.
  template <typename Source>
  bool AppendBySchema(EventKind kind, uint64_t time, size_t bytes_bound, Source& source);
  // AppendFrom's visitor for internal::WithFixedFields.
  template <typename Source>
  struct FixedAppender {
    EventStreamEncoder* encoder;
    EventKind kind;
    uint64_t time;
    size_t bytes_bound;
    Source& source;
    template <uint16_t kAddresses, FieldType... kTypes>
    bool Fixed() {
      return encoder->AppendFixedCounting<kAddresses, kTypes...>(kind, time, bytes_bound, source);
    }
    bool Other() { return encoder->AppendBySchema(kind, time, bytes_bound, source); }
  };

  // Where one more event goes: its ops, and its time delta.
  struct EventRoom {
    char* ops;
    char* times;
  };
  // Room for one more event: `op_room` bytes in the op stream and a time
  // delta. Sets *room to where they go and returns true, or returns false
  // (failed_ set) if memory ran out. Nothing is committed until
  // CommitEvent. The room is counted in slots of kSmallEventRoom op bytes
  // and one time delta: an event takes op_room's slots off
  // small_events_left_ instead of comparing both buffers' room (one slot
  // for the fixed kinds, where op_room is a constant).
  // Both always inline, as PutField: GCC's unit-wide inlining budget left
  // them out of line in the collector's flusher once its code grew.
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool ReserveEvent(size_t op_room, EventRoom* room) {
    const size_t slots = (op_room + kSmallEventRoom - 1) / kSmallEventRoom;
    if (__builtin_expect(small_events_left_ < slots, 0)) {
      if (!ReserveSlow(op_room)) {
        failed_ = true;
        return false;
      }
    } else {
      small_events_left_ -= slots;
    }
    *room = EventRoom{ops_.end, times_.end};
    return true;
  }
  // ReserveEvent when it must look at the buffers: makes room for this
  // event and for a run of small ones after it, and counts those. False if
  // memory ran out.
  bool ReserveSlow(size_t op_room);
  static constexpr size_t kSmallEventRoom = 256;
  // Slots (ReserveEvent) both buffers have room for after the events
  // reserved so far; too few makes the next ReserveEvent count again.
  size_t small_events_left_ = 0;
  // Commits the event whose room `room` was, its ops ending at `op_end`.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void CommitEvent(uint64_t time, const EventRoom& room,
                                                char* op_end) {
    times_.end = PutVarint64(room.times, ZigZagEncode(static_cast<int64_t>(time - last_time_)));
    ops_.end = op_end;
    last_time_ = time;
    ++event_count_;
  }

  Buffer times_;
  Buffer ops_;  // its front holds the payload's prefix and time stream
  // The payload when ops_.front is too small for what goes before the ops.
  mutable Buffer out_;
  // The ops_.front the next Reset makes room for: 9/8 of the bytes before
  // the ops of the last payload that did not fit.
  mutable size_t wanted_front_ = 0;
  mutable bool failed_ = false;
  size_t event_count_ = 0;
  uint64_t base_time_ = 0;
  uint64_t last_time_ = 0;
  uint32_t thread_index_ = 0;
  bool delta_;
  internal::FieldHistory history_;
};

template <FieldType... kTypes, typename Source>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool EventStreamEncoder::AppendFixed(EventKind kind,
                                                                         uint64_t time,
                                                                         size_t bytes_bound,
                                                                         Source& source) {
  return AppendFixedCounting<0, kTypes...>(kind, time, bytes_bound, source);
}

template <uint16_t kCounting, FieldType... kTypes, typename Source>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool EventStreamEncoder::AppendFixedCounting(EventKind kind,
                                                                                 uint64_t time,
                                                                                 size_t bytes_bound,
                                                                                 Source& source) {
  EventRoom room;
  if (!ReserveEvent(internal::kMaxEventPrefixBytes + sizeof...(kTypes) * internal::kMaxFieldBytes +
                        bytes_bound,
                    &room)) {
    return true;  // counted by failed()
  }
  char* p = PutVarint64(room.ops, static_cast<uint16_t>(kind));
  if (delta_) {
    p = internal::PutDeltaFields<kCounting, kTypes...>(p, time, &history_, kind, source);
  } else {
    p = internal::PutFields<kTypes...>(p, time, source);
  }
  if (!source.ok()) return RestoreHistory();
  CommitEvent(time, room, p);
  return true;
}

template <typename Source>
inline bool EventStreamEncoder::AppendFrom(EventKind kind, uint64_t time, size_t bytes_bound,
                                           Source& source) {
  return internal::WithFixedFields(kind,
                                   FixedAppender<Source>{this, kind, time, bytes_bound, source});
}

template <typename Source>
bool EventStreamEncoder::AppendBySchema(EventKind kind, uint64_t time, size_t bytes_bound,
                                        Source& source) {
  const KindSchema* s = FindSchema(kind);
  if (s == nullptr) return false;
  EventRoom room;
  if (!ReserveEvent(
          internal::kMaxEventPrefixBytes + s->field_count * internal::kMaxFieldBytes + bytes_bound,
          &room)) {
    return true;  // counted by failed()
  }
  char* p = PutVarint64(room.ops, static_cast<uint16_t>(kind));
  if (IsSizedKind(kind)) {
    // Encode the block after the widest possible length prefix, then move
    // it next to the actual prefix. Rare: no 1.0 kind is sized. Sized
    // kinds are never delta-coded.
    char* block = p + kMaxVarint64Bytes;
    char* end = internal::EncodeFieldsFrom(*s, time, source, block);
    const size_t len = static_cast<size_t>(end - block);
    p = PutVarint64(p, len);
    std::memmove(p, block, len);
    p += len;
  } else if (delta_) {
    p = internal::EncodeDeltaFieldsFrom(*s, s->delta_mask | s->address_mask, time,
                                        history_.Of(kind), source, p);
  } else {
    p = internal::EncodeFieldsFrom(*s, time, source, p);
  }
  if (!source.ok()) return RestoreHistory();
  CommitEvent(time, room, p);
  return true;
}

// Reads the events of one events-chunk payload.
//
// Malformed input (a truncated field, an unknown unsized kind, a varint
// overflow, a bytes length past the end) ends the iteration with an error
// status; nothing is read outside the payload and nothing is allocated.
// Unknown sized kinds are skipped and counted.
//
// Thread safety: none; one decoder per thread.
class EventStreamDecoder {
 public:
  EventStreamDecoder() = default;

  // Starts decoding `payload`, which must stay valid while Next is called;
  // `chunk_flags` are its chunk's (format::Chunk::flags), which say how its
  // fields are coded. Fails if the payload's prefix (thread index, base
  // time) is malformed.
  absl::Status Reset(std::string_view payload, uint16_t chunk_flags);

  // Decodes the next event into *event. Returns false at the end of the
  // payload or on error (then status() is not OK). The event's kBytes views
  // point into the payload.
  bool Next(Event* event);

  // A task_begin with null ids or a task_end: what a loop of tasks is
  // made of, read without an Event.
  struct SimpleTask {
    bool begin = false;
    uint64_t time = 0;
    uint64_t domain = 0;
    uint64_t name = 0;  // task_begin's
    // The event Next would have given.
    void ToEvent(Event* e) const {
      e->Init(begin ? EventKind::kTaskBegin : EventKind::kTaskEnd, time);
      e->Set(Field::kDomain, domain);
      if (begin) e->Set(Field::kName, name);
    }
  };
  // Whether the next event is of a kind NextSimpleTask or NextSimpleFrame
  // may read (a task_begin, task_end, frame_begin or frame_end), without
  // reading it: a caller with a loop for those skips it for the others.
  bool NextMayBeSimple() const {
    return SimpleKind(EventKind::kTaskBegin, EventKind::kTaskEnd) >= 0 ||
           SimpleKind(EventKind::kFrameBegin, EventKind::kFrameEnd) >= 0;
  }
  // Decodes the next event into *task if it is one, as Next would have,
  // and returns true; else reads nothing and returns false (Next reads it,
  // and reports it if it is malformed).
  // Inlined in every loop that reads them: the pairing's loop has a copy
  // that maps ids (IntervalTracker::PairSimpleTasks), where the compiler
  // made them calls.
  [[gnu::always_inline]] bool NextSimpleTask(SimpleTask* task) {
    const int kind = SimpleKind(EventKind::kTaskBegin, EventKind::kTaskEnd);
    if (kind < 0) return false;
    // Task kinds are unsized and have only reference fields besides their
    // ids, which are plain in both codings; null ids are one 0 byte each
    // in both (FORMAT.md, "Delta-coded fields").
    // Read into locals, whose addresses the slow varint path may take:
    // *task's fields never have theirs taken, so a caller's task can live
    // in registers (one in memory, written field by field and read back
    // two fields at a time, stalls the load).
    uint64_t domain = 0;
    uint64_t name = 0;
    uint64_t time = 0;
    const char* p = GetVarint64(pos_ + 1, limit_, &domain);
    const bool begin = kind == static_cast<int>(EventKind::kTaskBegin);
    if (p != nullptr && begin) {
      if (limit_ - p < 2 || p[0] != 0 || p[1] != 0) return false;
      p = GetVarint64(p + 2, limit_, &name);
    }
    if (p == nullptr || !TakeSimple(p, &time)) return false;
    task->begin = begin;
    task->time = time;
    task->domain = domain;
    task->name = name;
    return true;
  }

  // A frame_begin or frame_end with a null id (__itt_frame_begin_v3 and
  // _end_v3 with NULL, the usual call), read without an Event.
  struct SimpleFrame {
    bool begin = false;
    uint64_t time = 0;
    uint64_t domain = 0;
    // The event Next would have given.
    void ToEvent(Event* e) const {
      e->Init(begin ? EventKind::kFrameBegin : EventKind::kFrameEnd, time);
      e->Set(Field::kDomain, domain);
      e->SetId(Field::kId, Id{});
    }
  };
  // NextSimpleTask for such a frame.
  [[gnu::always_inline]] bool NextSimpleFrame(SimpleFrame* frame) {
    const int kind = SimpleKind(EventKind::kFrameBegin, EventKind::kFrameEnd);
    if (kind < 0) return false;
    // Unsized; the domain is plain in both codings, and a null id is one
    // 0 byte in both, which leaves the delta reference as it is
    // (FORMAT.md, "Delta-coded fields").
    uint64_t domain = 0;  // locals, as in NextSimpleTask
    uint64_t time = 0;
    const char* p = GetVarint64(pos_ + 1, limit_, &domain);
    if (p == nullptr || p >= limit_ || *p != 0 || !TakeSimple(p + 1, &time)) return false;
    frame->begin = kind == static_cast<int>(EventKind::kFrameBegin);
    frame->time = time;
    frame->domain = domain;
    return true;
  }

  const absl::Status& status() const { return status_; }
  uint32_t thread_index() const { return thread_index_; }
  uint64_t base_time() const { return base_time_; }
  // The event count the payload declares (known after Reset).
  uint64_t event_count() const { return event_count_; }
  // Offset in the payload where the next event's ops start (or the bad
  // one's did).
  size_t offset() const { return static_cast<size_t>(pos_ - begin_); }
  size_t events_decoded() const { return events_decoded_; }
  size_t unknown_skipped() const { return unknown_skipped_; }

 private:
  friend class EventStreamEncoder;  // RestoreHistory reads history_
  bool Fail(const char* reason);
  // Next for a chunk whose fields are delta-coded (kDelta) or plain.
  template <bool kDelta>
  bool NextIn(Event* event);
  // NextSimpleTask's and NextSimpleFrame's first step: the next event's
  // kind if there is one and it is `a` or `b`, else -1.
  int SimpleKind(EventKind a, EventKind b) const {
    if (pos_ >= limit_ || events_decoded_ + unknown_skipped_ >= event_count_) return -1;
    const int kind = static_cast<unsigned char>(*pos_);
    return kind == static_cast<int>(a) || kind == static_cast<int>(b) ? kind : -1;
  }
  // Their last: the event whose fields end at `end` is read, its time
  // into *time; false (nothing read) if the time stream ends first.
  bool TakeSimple(const char* end, uint64_t* time) {
    uint64_t zz;
    const char* t = GetVarint64(tpos_, tlimit_, &zz);
    if (t == nullptr) return false;
    *time = last_time_ + static_cast<uint64_t>(ZigZagDecode(zz));
    last_time_ = *time;
    pos_ = end;
    tpos_ = t;
    ++events_decoded_;
    return true;
  }

  const char* begin_ = nullptr;
  const char* pos_ = nullptr;    // op stream cursor
  const char* limit_ = nullptr;  // end of the op stream (of the payload)
  const char* tpos_ = nullptr;   // time stream cursor
  const char* tlimit_ = nullptr;
  uint64_t event_count_ = 0;
  uint64_t last_time_ = 0;
  uint64_t base_time_ = 0;
  uint32_t thread_index_ = 0;
  size_t events_decoded_ = 0;
  size_t unknown_skipped_ = 0;
  absl::Status status_;
  bool delta_ = false;
  bool addresses_ = false;  // kChunkFlagDeltaAddresses (with delta_)
  bool times_ = false;      // kChunkFlagDeltaTimes (with delta_)

  // DecodeDeltaFields's delta_mask for an event of `s` in this chunk: the
  // schema's, with the address fields under kChunkFlagDeltaAddresses and
  // the time fields' bits (their two references) only under
  // kChunkFlagDeltaTimes.
  uint16_t DeltaMask(const KindSchema& s) const {
    const auto mask = static_cast<uint16_t>(s.delta_mask | (addresses_ ? s.address_mask : 0));
    return times_ ? mask : static_cast<uint16_t>(mask & ~s.time_mask);
  }
  internal::FieldHistory history_;
};

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_EVENT_STREAM_H_
