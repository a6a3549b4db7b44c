// Metadata events (metadata_add*, metadata_str_add*,
// formatted_metadata_add*) as one (key, value) pair, for the pairing
// engine (args of the task they belong to) and the exports.
//
// Thread safety: pure functions.

#ifndef TOOLS_ITT_DUMP_MODEL_METADATA_H_
#define TOOLS_ITT_DUMP_MODEL_METADATA_H_

#include <string>
#include <string_view>

#include "format/schema.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

struct MetadataValue {
  std::string_view key;  // the key's (or format's) string; "" if none
  std::string value;     // JSON-ready: a number or array, or text when is_text
  bool is_text = false;
  bool is_real = false;  // one float or double (its text may read as an integer)
};

bool IsMetadataKind(format::EventKind kind);

// The key and value of a metadata event. REQUIRES: IsMetadataKind(e.kind).
// The key views `index`'s strings. Formatted metadata recorded with raw
// arguments is rendered as printf would have.
MetadataValue DecodeMetadata(const TraceIndex& index, const format::Event& e);

// Whether formatted metadata `e` was recorded with raw arguments, which a
// reader renders (values.h, RenderFormatted), rather than as its text.
// Text that printf made "" is recorded as "" without arguments.
bool RecordedWithArgs(const format::Event& e);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_METADATA_H_
