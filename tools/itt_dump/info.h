// `itt-dump info`: what the trace is and what it holds. Runs the index pass
// only (with every event decoded, to count them).
//
//   file      trace.itt (1234567 bytes, format 1.0)
//   process   pid 4242, ppid 1
//   exe       /usr/bin/app
//   command   app --flag "two words"
//   host      build-7
//   writer    ittcollector 0.1
//   start     2026-11-22T13:30:16.123456789Z
//   timebase  tsc at 2995200000 Hz, 12 clock sync points
//   duration  1.234567890 s
//   threads   2
//     tid 101 "main" (index 0): 12 events
//   total     15 events
//   losses    none | thread tid 101 (index 0): 5 buffer_full
//   damage    none | corrupt at offset N (B bytes): reason
//   end       clean (15 recorded, 0 dropped) | missing: the trace did not
//             end cleanly
//
// docs/ITT_DUMP.md has the exact format.

#ifndef TOOLS_ITT_DUMP_INFO_H_
#define TOOLS_ITT_DUMP_INFO_H_

#include "absl/status/status.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {

// REQUIRES: ctx.index was built with decode_all_events.
absl::Status RunInfo(const VerbContext& ctx);

// The command line as shell words: NUL-separated argv, each word quoted
// when it needs it.
std::string FormatCommandLine(std::string_view nul_separated);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_INFO_H_
