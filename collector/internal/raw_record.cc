#include "collector/internal/raw_record.h"

namespace ittc::collector_internal {

bool DecodeRawRecord(const uint8_t* record, format::Event* event) {
  uint64_t header;
  std::memcpy(&header, record, 8);
  const auto kind = static_cast<format::EventKind>(RawKind(header));
  const format::KindSchema* schema = format::FindSchema(kind);
  if (schema == nullptr) return false;
  const uint8_t* p = record + kRawHeaderBytes;
  const uint8_t* end = record + RawSize(header);
  uint64_t ticks;
  std::memcpy(&ticks, record + 8, 8);
  event->Init(kind, ticks);
  uint8_t mask = RawIdMask(header);
  int id_index = 0;
  for (int i = 0; i < schema->field_count; ++i) {
    format::FieldValue& f = event->fields[i];
    switch (schema->fields[i].type) {
      case format::FieldType::kUint:
      case format::FieldType::kSint:
      case format::FieldType::kDouble:
      case format::FieldType::kTime:
        if (end - p < 8) return false;
        std::memcpy(&f.u, p, 8);
        p += 8;
        break;
      case format::FieldType::kId:
        if (mask & (1u << id_index)) {
          if (end - p < 24) return false;
          std::memcpy(&f.id.d1, p, 8);
          std::memcpy(&f.id.d2, p + 8, 8);
          std::memcpy(&f.id.d3, p + 16, 8);
          p += 24;
        } else {
          f.id = format::Id{};
        }
        ++id_index;
        break;
      case format::FieldType::kBytes: {
        if (end - p < 8) return false;
        uint64_t n;
        std::memcpy(&n, p, 8);
        p += 8;
        if (n > static_cast<uint64_t>(end - p)) return false;
        f.bytes = std::string_view(reinterpret_cast<const char*>(p), n);
        p += RoundUp8(n);
        break;
      }
    }
  }
  return p == end;
}

}  // namespace ittc::collector_internal
