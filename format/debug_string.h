// Human-readable rendering of records, for tests, diagnostics and as
// itt-dump's fallback for kinds it has no special printer for.
//
// Thread safety: pure functions.

#ifndef FORMAT_DEBUG_STRING_H_
#define FORMAT_DEBUG_STRING_H_

#include <string>
#include <string_view>

#include "format/schema.h"

namespace ittc {
namespace format {

// "task_begin @123 domain=1 id={7,0,0} parent={} name=3". Bytes fields are
// printed as C-escaped text in quotes. Unknown kinds print as "kind_4660".
// Deterministic: equal events give equal strings.
std::string DebugString(const Event& event);

// C-escapes `bytes` (printable ASCII kept, everything else \xNN).
std::string EscapeBytes(std::string_view bytes);

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_DEBUG_STRING_H_
