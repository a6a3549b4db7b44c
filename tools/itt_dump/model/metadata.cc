#include "tools/itt_dump/model/metadata.h"

#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::EventKind;
using F = format::Field;

bool IsMetadataKind(EventKind kind) {
  switch (kind) {
    case EventKind::kMetadataAdd:
    case EventKind::kMetadataStrAdd:
    case EventKind::kMetadataAddWithScope:
    case EventKind::kMetadataStrAddWithScope:
    case EventKind::kFormattedMetadataAdd:
    case EventKind::kFormattedMetadataAddOverlapped:
      return true;
    default:
      return false;
  }
}

bool RecordedWithArgs(const format::Event& e) {
  return e.GetBytes(F::kText).empty() && !e.GetBytes(F::kArgs).empty();
}

MetadataValue DecodeMetadata(const TraceIndex& index, const format::Event& e) {
  MetadataValue m;
  if (e.Has(F::kFormat)) {
    // The text, or the format rendered with the raw arguments.
    m.key = index.String(e.Get(F::kFormat));
    m.value = RecordedWithArgs(e) ? RenderFormatted(m.key, e.GetBytes(F::kArgs))
                                  : std::string(e.GetBytes(F::kText));
    m.is_text = true;
    return m;
  }
  m.key = index.String(e.Get(F::kKey));
  if (e.Has(F::kData)) {
    const uint64_t type = e.Get(F::kType);
    AppendMetadataArray(&m.value, type, e.Get(F::kCount), e.GetBytes(F::kData));
    m.is_real = type == static_cast<uint64_t>(format::MetadataType::kFloat) ||
                type == static_cast<uint64_t>(format::MetadataType::kDouble);
  } else {
    m.value = std::string(e.GetBytes(F::kText));
    m.is_text = true;
  }
  return m;
}

}  // namespace itt_dump
}  // namespace ittc
