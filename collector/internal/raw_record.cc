#include "collector/internal/raw_record.h"

namespace ittc::collector_internal {

bool AppendRawRecordChecked(const uint8_t* record, uint64_t ticks,
                            format::EventStreamEncoder* encoder) {
  uint64_t header;
  std::memcpy(&header, record, 8);
  RawFieldSource source(record);
  return encoder->AppendFrom(static_cast<format::EventKind>(RawKind(header)), ticks,
                             RawSize(header), source);
}

bool DecodeRawRecord(const uint8_t* record, uint64_t ticks, format::Event* event) {
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
