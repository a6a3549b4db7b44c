// `itt-dump chrome`: Chrome Trace Event Format JSON, as chrome://tracing and
// ui.perfetto.dev load it:
//
//   {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}
//
//   process and thread names   "M" process_name / thread_name
//   tasks                      "X" on their thread, with metadata as args
//   overlapped tasks, regions, "b"/"e" async pairs, id = the task's or
//   legacy events              region's id (legacy events: their thread and
//                              event)
//   frames                     "X" on frame tracks per domain (pseudo-
//                              threads named "frames <domain>", tid
//                              kFrameTrackTid + n), one per frame open at
//                              once (model/lanes.h)
//   markers                    "i" with "s" from the scope (g, p or t)
//   counters                   "C" with args {"value": v}
//   relations                  "s" at the relation, "f" (bp "e") at the
//                              begin of the task whose id is the tail
//   metadata without a task    "i" named by its key, with scope
//
// ts and dur are microseconds since the start of the trace with three
// decimals (nanosecond precision). Events appear in the order they
// complete, not sorted (viewers sort); on every core as in one pass. Intervals still open at the
// end of the trace end there and carry args {"open_at_end": true}.

#ifndef TOOLS_ITT_DUMP_CHROME_H_
#define TOOLS_ITT_DUMP_CHROME_H_

#include <cstdint>

#include "absl/status/status.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {

inline constexpr uint64_t kFrameTrackTid = 1u << 30;

absl::Status RunChrome(const VerbContext& ctx);

// RunChrome's pass, without its warnings: on every core (pieces.h) when
// ctx.parallel and it can be exact, else (or once it cannot be) the
// serial pass, which then writes again what the first had written, checks
// it and does not write it twice (*rewritten: how many bytes; fails if
// they differ).
absl::StatusOr<PassSummary> WriteChrome(const VerbContext& ctx, uint64_t* rewritten = nullptr);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_CHROME_H_
