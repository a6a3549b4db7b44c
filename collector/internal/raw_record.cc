#include "collector/internal/raw_record.h"

#include <iterator>

namespace ittc::collector_internal {

namespace {

// The visitor of format::internal::WithFixedFields for a record: a kind
// with a straight-line list and no bytes fields has one layout per id mask,
// so a record whose size is that layout's is read with no checks; a kind
// with bytes fields is read by its list, every read checked; any other
// record (another size, id bits the kind has no ids for, a kind with no
// list) is read by its schema, every read checked.
struct LaidOutAppender {
  const uint8_t* record;
  uint64_t header;
  uint64_t ticks;
  format::EventStreamEncoder* encoder;

  template <uint16_t kAddresses, format::FieldType... kTypes>
  bool Fixed() {
    using format::FieldType;
    if constexpr (((kTypes == FieldType::kBytes) || ...)) {
      // The bytes fields make the size vary, so every read is checked;
      // but the list is this one, which Other's AppendFrom would look up
      // again (a second dispatch on the kind per record).
      RawFieldSource source(record);
      return encoder->AppendFixedCounting<kAddresses, kTypes...>(
          static_cast<format::EventKind>(RawKind(header)), ticks, RawSize(header), source);
    } else {
      constexpr int kIds = ((kTypes == FieldType::kId ? 1 : 0) + ... + 0);
      constexpr size_t kWords = sizeof...(kTypes) - kIds;
      const uint8_t mask = RawIdMask(header);
      const size_t offset = RawFieldsOffset(header);
      size_t present = 0;  // the mask's bits, the kind's ids at most (no popcnt on baseline x86-64)
      for (int i = 0; i < kIds; ++i) present += (mask >> i) & 1;
      if ((mask >> kIds) != 0 || RawSize(header) != offset + 8 * kWords + 24 * present) {
        return Other();
      }
      LaidOutFieldSource source(record + offset, mask);
      return encoder->AppendFixedCounting<kAddresses, kTypes...>(
          static_cast<format::EventKind>(RawKind(header)), ticks, 0, source);
    }
  }
  bool Other() {
    RawFieldSource source(record);
    return encoder->AppendFrom(static_cast<format::EventKind>(RawKind(header)), ticks,
                               RawSize(header), source);
  }
};

// *event from `source`'s fields, by the schema of `kind`.
template <typename Source>
bool DecodeFrom(format::EventKind kind, uint64_t ticks, Source& source, format::Event* event) {
  const format::KindSchema* schema = format::FindSchema(kind);
  if (schema == nullptr) return false;
  event->kind = kind;
  event->time = ticks;
  event->field_count = schema->field_count;
  for (int i = 0; i < schema->field_count; ++i) {
    format::FieldValue& f = event->fields[i];
    switch (schema->fields[i].type) {
      case format::FieldType::kId:
        f.id = source.NextId();
        break;
      case format::FieldType::kBytes:
        f.bytes = source.NextBytes();
        break;
      default:
        f.u = source.Word();
        break;
    }
  }
  return source.ok();
}

// The ring-only task kinds (raw_record.h): what each stands for and holds.
// Their fields, in this order, each where the shape says: the packed word
// (the new task word), an id's d1 and d2.
struct RingTaskShape {
  format::EventKind kind;    // the ring-only kind
  format::EventKind stands;  // the trace's kind it is written as
  bool packed;               // a packed word
  bool id;                   // an id (d3 = 0)
  size_t words() const { return (packed ? 1 : 0) + (id ? 2 : 0); }
};
// By kind, from the first.
constexpr RingTaskShape kRingTaskShapes[] = {
    {kRawPackedTaskBegin, format::EventKind::kTaskBegin, true, false},
    {kRawTaskBeginRepeat, format::EventKind::kTaskBegin, false, false},
    {kRawTaskEndRepeat, format::EventKind::kTaskEnd, false, false},
    {kRawPackedOverlappedBegin, format::EventKind::kTaskBeginOverlapped, true, true},
    {kRawOverlappedBeginRepeat, format::EventKind::kTaskBeginOverlapped, false, true},
    {kRawOverlappedEndRepeat, format::EventKind::kTaskEndOverlapped, false, true},
};

constexpr bool ShapesInKindOrder() {
  for (size_t i = 0; i < std::size(kRingTaskShapes); ++i) {
    if (static_cast<size_t>(kRingTaskShapes[i].kind) !=
        static_cast<size_t>(kRawPackedTaskBegin) + i)
      return false;
  }
  return true;
}
static_assert(ShapesInKindOrder(), "kRingTaskShapes is indexed by kind");

// Whether a ring-only record with this header is `words` one-word fields
// after its time, with no id bits: the shape of each of them.
bool HasWords(uint64_t header, size_t words) {
  return RawIdMask(header) == 0 && RawSize(header) == RawFieldsOffset(header) + 8 * words;
}

// A ring-only task record with this header, in either time form: as the
// event it stands for, through `emit(kind, source)` (a RingTaskSource or
// RingOverlappedSource), with *task_word kept. False if the record is not
// one of them; *ok false if it is one but malformed.
template <typename Emit>
bool RingOnlyTask(const uint8_t* record, uint64_t header, uint64_t* task_word, bool* ok,
                  Emit&& emit) {
  if (RawKind(header) == static_cast<uint16_t>(kRawTaskBeginName)) {
    // No fields; the id-mask bits are the name.
    *ok = RawSize(header) == RawFieldsOffset(header);
    if (*ok) {
      *task_word = NamedTaskWord(header, *task_word);
      *ok = emit(format::EventKind::kTaskBegin, RingTaskSource(*task_word));
    }
    return true;
  }
  const size_t index = RawKind(header) - static_cast<size_t>(kRawPackedTaskBegin);
  if (index >= std::size(kRingTaskShapes)) return false;  // unsigned: below wraps too
  const RingTaskShape* shape = &kRingTaskShapes[index];
  const uint8_t* p = record + RawFieldsOffset(header);
  *ok = HasWords(header, shape->words());
  if (!*ok) return true;
  if (shape->packed) {
    *task_word = LoadRawWord(p);
    p += 8;
  }
  if (shape->id) {
    *ok = emit(shape->stands, RingOverlappedSource(*task_word, LoadShortId(p)));
  } else {
    *ok = emit(shape->stands, RingTaskSource(*task_word));
  }
  return true;
}

// A ring-only record with this header other than the task ones (raw_record.h),
// in either time form, as RingOnlyTask does for those: emit(kind, source)
// with the kind it stands for. False if it is none of them; *ok false if it
// is one but malformed.
template <typename Emit>
bool RingOnlyOther(const uint8_t* record, uint64_t header, uint64_t* task_word, bool* ok,
                   Emit&& emit) {
  const uint8_t* f = record + RawFieldsOffset(header);
  switch (RawKind(header)) {
    case static_cast<uint16_t>(kRawMetadataValue):
      *ok = HasWords(header, 2) && emit(format::EventKind::kMetadataAdd, RingMetadataSource(f));
      return true;
    case static_cast<uint16_t>(kRawDefaultClockBeginEx):
      *ok = HasWords(header, 2);
      if (*ok) {
        *task_word = LoadRawWord(f);
        *ok = emit(format::EventKind::kTaskBeginEx, DefaultClockExSource(f));
      }
      return true;
    case static_cast<uint16_t>(kRawDefaultClockBeginExRepeat):
      *ok = HasWords(header, 1) &&
            emit(format::EventKind::kTaskBeginEx, DefaultClockExSource(*task_word, LoadRawWord(f)));
      return true;
    case static_cast<uint16_t>(kRawDefaultClockEndExRepeat):
      *ok = HasWords(header, 1) &&
            emit(format::EventKind::kTaskEndEx, DefaultClockExSource(*task_word, LoadRawWord(f)));
      return true;
    case static_cast<uint16_t>(kRawDefaultClockEndEx):
      *ok = HasWords(header, 2) && emit(format::EventKind::kTaskEndEx, DefaultClockExSource(f));
      return true;
    case static_cast<uint16_t>(kRawRelationShortIds):
      *ok = HasWords(header, 5) && emit(format::EventKind::kRelationAdd, RingRelationSource(f));
      return true;
    case static_cast<uint16_t>(kRawJitMethodLoadName):
      *ok = emit(format::EventKind::kJitMethodLoad, RingJitLoadSource(record));
      return true;
    case static_cast<uint16_t>(kRawFrameBeginSmall):
    case static_cast<uint16_t>(kRawFrameEndSmall):
    case static_cast<uint16_t>(kRawCounterIncSmall):
    case static_cast<uint16_t>(kRawCounterDecSmall):
      *ok = RawSize(header) == RawFieldsOffset(header) &&
            emit(HeaderBitsStandsFor(RawKind(header)), HeaderBitsSource(header));
      return true;
    case static_cast<uint16_t>(kRawMarkerPacked):
      *ok =
          HasWords(header, 1) && emit(format::EventKind::kMarker, RingMarkerSource(LoadRawWord(f)));
      return true;
    default:
      return false;
  }
}

// A ring-only record AppendRawRecord's plain path did not take (its time a
// whole word, or malformed): rare, and out of line, as each of its sources
// inlines the encoder's whole dispatch.
__attribute__((noinline)) bool AppendRingOnlyRecord(const uint8_t* record, uint64_t header,
                                                    uint64_t ticks, uint64_t* task_word,
                                                    format::EventStreamEncoder* encoder) {
  bool ok = false;
  auto append = [&](format::EventKind kind, auto source) {
    return encoder->AppendFrom(kind, ticks, RawSize(header), source);
  };
  if (RingOnlyTask(record, header, task_word, &ok, append)) return ok;
  if (RingOnlyOther(record, header, task_word, &ok, append)) return ok;
  return false;  // no kind
}

// What a JIT that compiles a lot emits: straight-line code, each read still
// checked (the strings make the size vary). The method id counts, the
// address is an address (both delta-coded). A
// function of its own: inlined into a larger one, its fields' code was
// left out of line, and a sustained loop of method loads kept 77% of them
// instead of 89-99%.
// Source: RawFieldSource for the whole record, RingJitLoadSource for the
// ring-only one; made here, from the record (passed in, as a struct on the
// stack, it cost the flusher a third more per event).
template <typename Source>
__attribute__((noinline)) bool AppendJitMethodLoad(const uint8_t* record, uint64_t header,
                                                   uint64_t ticks,
                                                   format::EventStreamEncoder* encoder) {
  Source source(record);
  using format::FieldType;
  constexpr FieldType U = FieldType::kUint, B = FieldType::kBytes;
  // Counting: method_id; address: address.
  return encoder->AppendFixedCounting<(1u << 0) | (1u << 2), U, B, U, U, B, B, B>(
      format::EventKind::kJitMethodLoad, ticks, RawSize(header), source);
}

}  // namespace

bool AppendRawRecordChecked(const uint8_t* record, uint64_t ticks, uint64_t* task_word,
                            format::EventStreamEncoder* encoder) {
  const uint64_t header = LoadRawWord(record);
  const uint16_t kind = RawKind(header);
  if (kind == static_cast<uint16_t>(format::EventKind::kJitMethodLoad)) {
    return AppendJitMethodLoad<RawFieldSource>(record, header, ticks, encoder);
  }
  if (kind == static_cast<uint16_t>(kRawJitMethodLoadName)) {
    return AppendJitMethodLoadName(record, ticks, encoder);
  }
  if (kind >= kRawFirstRingOnlyKind) {
    return AppendRingOnlyRecord(record, header, ticks, task_word, encoder);
  }
  return format::internal::WithFixedFields(static_cast<format::EventKind>(kind),
                                           LaidOutAppender{record, header, ticks, encoder});
}

bool AppendJitMethodLoadName(const uint8_t* record, uint64_t ticks,
                             format::EventStreamEncoder* encoder) {
  return AppendJitMethodLoad<RingJitLoadSource>(record, LoadRawWord(record), ticks, encoder);
}

bool DecodeRawRecord(const uint8_t* record, uint64_t ticks, uint64_t* task_word,
                     format::Event* event) {
  bool ok = false;
  auto decode = [&](format::EventKind kind, auto source) {
    return DecodeFrom(kind, ticks, source, event);
  };
  const uint64_t header = LoadRawWord(record);
  if (RingOnlyTask(record, header, task_word, &ok, decode)) return ok;
  if (RingOnlyOther(record, header, task_word, &ok, decode)) return ok;
  RawFieldSource source(record);
  return DecodeFrom(static_cast<format::EventKind>(RawKind(header)), ticks, source, event);
}

}  // namespace ittc::collector_internal
