#include "collector/internal/raw_record.h"

namespace ittc::collector_internal {

namespace {

inline void GetId(const uint8_t* p, format::Id* id) {
  std::memcpy(&id->d1, p, 8);
  std::memcpy(&id->d2, p + 8, 8);
  std::memcpy(&id->d3, p + 16, 8);
}

}  // namespace

bool DecodeRawRecord(const uint8_t* record, format::Event* event) {
  uint64_t header;
  std::memcpy(&header, record, 8);
  const auto kind = static_cast<format::EventKind>(RawKind(header));
  const uint32_t size = RawSize(header);
  uint8_t mask = RawIdMask(header);
  event->kind = kind;
  std::memcpy(&event->time, record + 8, 8);
  const uint8_t* p = record + kRawHeaderBytes;

  // Straight-line decoding of the two kinds that make up most traces; the
  // layouts follow the schema exactly as the generic loop below would.
  if (kind == format::EventKind::kTaskEnd) {
    if (size != kRawHeaderBytes + 8) return false;
    event->field_count = 1;
    std::memcpy(&event->fields[0].u, p, 8);
    return true;
  }
  if (kind == format::EventKind::kTaskBegin) {
    // domain, id, parent, name
    size_t expected = kRawHeaderBytes + 16 + ((mask & 1) ? 24 : 0) + ((mask & 2) ? 24 : 0);
    if (size != expected) return false;
    event->field_count = 4;
    std::memcpy(&event->fields[0].u, p, 8);
    p += 8;
    if (mask & 1) {
      GetId(p, &event->fields[1].id);
      p += 24;
    } else {
      event->fields[1].id = format::Id{};
    }
    if (mask & 2) {
      GetId(p, &event->fields[2].id);
      p += 24;
    } else {
      event->fields[2].id = format::Id{};
    }
    std::memcpy(&event->fields[3].u, p, 8);
    return true;
  }

  const format::KindSchema* schema = format::FindSchema(kind);
  if (schema == nullptr) return false;
  const uint8_t* end = record + size;
  event->field_count = schema->field_count;
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
          GetId(p, &f.id);
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
