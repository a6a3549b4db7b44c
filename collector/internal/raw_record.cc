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

// Whether `header` is a well-formed packed task begin (either time form).
bool IsPackedTaskBegin(uint64_t header) {
  return RawKind(header) == static_cast<uint16_t>(kRawPackedTaskBegin) && RawIdMask(header) == 0 &&
         RawSize(header) == RawFieldsOffset(header) + 8;
}

}  // namespace

bool AppendRawRecordChecked(const uint8_t* record, uint64_t ticks,
                            format::EventStreamEncoder* encoder) {
  uint64_t header;
  std::memcpy(&header, record, 8);
  if (RawKind(header) == static_cast<uint16_t>(kRawPackedTaskBegin)) {
    // The whole-ticks form (the plain path took the other), or malformed.
    if (!IsPackedTaskBegin(header)) return false;
    PackedTaskBeginSource source(record + RawFieldsOffset(header));
    constexpr format::FieldType U = format::FieldType::kUint, I = format::FieldType::kId;
    return encoder->AppendFixed<U, I, I, U>(format::EventKind::kTaskBegin, ticks, 0, source);
  }
  return format::internal::WithFixedFields(static_cast<format::EventKind>(RawKind(header)),
                                           LaidOutAppender{record, header, ticks, encoder});
}

bool DecodeRawRecord(const uint8_t* record, uint64_t ticks, format::Event* event) {
  uint64_t header;
  std::memcpy(&header, record, 8);
  if (RawKind(header) == static_cast<uint16_t>(kRawPackedTaskBegin)) {
    if (!IsPackedTaskBegin(header)) return false;
    PackedTaskBeginSource source(record + RawFieldsOffset(header));
    event->Init(format::EventKind::kTaskBegin, ticks);
    event->Set(format::Field::kDomain, source.Word());
    event->Set(format::Field::kName, source.Word());
    return true;
  }
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
