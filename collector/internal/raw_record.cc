#include "collector/internal/raw_record.h"

namespace ittc::collector_internal {

namespace {

// The visitor of format::internal::WithFixedFields for a record: a kind
// with a straight-line list and no bytes fields has one layout per id mask,
// so a record whose size is that layout's is read with no checks; any
// other record (another size, id bits the kind has no ids for, a kind with
// bytes or with no list) is read by its schema, every read checked.
struct LaidOutAppender {
  const uint8_t* record;
  uint64_t header;
  uint64_t ticks;
  format::EventStreamEncoder* encoder;

  template <format::FieldType... kTypes>
  bool Fixed() {
    using format::FieldType;
    if constexpr (((kTypes == FieldType::kBytes) || ...)) {
      return Other();
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
      return encoder->AppendFixed<kTypes...>(static_cast<format::EventKind>(RawKind(header)), ticks,
                                             0, source);
    }
  }
  bool Other() {
    RawFieldSource source(record);
    return encoder->AppendFrom(static_cast<format::EventKind>(RawKind(header)), ticks,
                               RawSize(header), source);
  }
};

// The ring-only task kinds (raw_record.h), in either time form: as the
// kTaskBegin or kTaskEnd they stand for, through `emit(kind, source)`, with
// *task_word kept. False if the record is not one of them; *ok false if it
// is one but malformed.
template <typename Emit>
bool RingOnlyTask(const uint8_t* record, uint64_t* task_word, bool* ok, Emit&& emit) {
  uint64_t header;
  std::memcpy(&header, record, 8);
  const auto kind = static_cast<format::EventKind>(RawKind(header));
  size_t words;
  if (kind == kRawPackedTaskBegin) {
    words = 1;
  } else if (kind == kRawTaskBeginRepeat || kind == kRawTaskEndRepeat) {
    words = 0;
  } else {
    return false;
  }
  const size_t offset = RawFieldsOffset(header);
  *ok = RawIdMask(header) == 0 && RawSize(header) == offset + 8 * words;
  if (!*ok) return true;
  if (kind == kRawPackedTaskBegin) std::memcpy(task_word, record + offset, 8);
  // A task end's one field is the source's first word: the domain.
  *ok =
      emit(kind == kRawTaskEndRepeat ? format::EventKind::kTaskEnd : format::EventKind::kTaskBegin,
           PackedTaskBeginSource(*task_word));
  return true;
}

}  // namespace

bool AppendRawRecordChecked(const uint8_t* record, uint64_t ticks, uint64_t* task_word,
                            format::EventStreamEncoder* encoder) {
  bool ok = false;
  auto append = [&](format::EventKind kind, auto source) {
    constexpr format::FieldType U = format::FieldType::kUint, I = format::FieldType::kId;
    if (kind == format::EventKind::kTaskEnd) return encoder->AppendFixed<U>(kind, ticks, 0, source);
    return encoder->AppendFixed<U, I, I, U>(kind, ticks, 0, source);
  };
  if (RingOnlyTask(record, task_word, &ok, append)) return ok;
  uint64_t header;
  std::memcpy(&header, record, 8);
  return format::internal::WithFixedFields(static_cast<format::EventKind>(RawKind(header)),
                                           LaidOutAppender{record, header, ticks, encoder});
}

bool DecodeRawRecord(const uint8_t* record, uint64_t ticks, uint64_t* task_word,
                     format::Event* event) {
  bool ok = false;
  auto decode = [&](format::EventKind kind, auto source) {
    event->Init(kind, ticks);
    event->Set(format::Field::kDomain, source.Word());
    if (kind == format::EventKind::kTaskBegin) event->Set(format::Field::kName, source.Word());
    return true;
  };
  if (RingOnlyTask(record, task_word, &ok, decode)) return ok;
  uint64_t header;
  std::memcpy(&header, record, 8);
  const auto kind = static_cast<format::EventKind>(RawKind(header));
  const format::KindSchema* schema = format::FindSchema(kind);
  if (schema == nullptr) return false;
  event->kind = kind;
  event->time = ticks;
  event->field_count = schema->field_count;
  RawFieldSource source(record);
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

}  // namespace ittc::collector_internal
