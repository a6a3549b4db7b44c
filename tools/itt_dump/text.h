// `itt-dump text`: one line per event, in time order across threads.
//
//   <time> <thread> <kind> <domain> <name> [<field>=<value> ...]
//
// time: nanoseconds since the start of the trace, or with wall_clock the
// UTC wall-clock time. thread: "tid/name" (or "tid"). domain: the domain's
// name or "-". name: the quoted name the event refers to (task, marker,
// counter, heap function, sync object, method...) or "-"; ends of tasks and
// regions show the name of their begin. Then every other field of the
// event's schema, in schema order (docs/ITT_DUMP.md, "text").

#ifndef TOOLS_ITT_DUMP_TEXT_H_
#define TOOLS_ITT_DUMP_TEXT_H_

#include "absl/status/status.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {

// Runs the text verb's pass. Errors: the trace cannot be reopened.
absl::Status RunText(const VerbContext& ctx);

// RunText's pass, without its warnings: on every core (pieces.h) when
// ctx.parallel and it can be exact, else (or once it cannot be) on two
// cores or one, which then write again what the first had written, check
// it and do not write it twice (*rewritten: how many bytes; fails if they
// differ).
absl::StatusOr<PassSummary> PrintText(const VerbContext& ctx, uint64_t* rewritten = nullptr);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_TEXT_H_
