// `itt-dump vtune-csv`: the external-data CSV files VTune imports (Intel
// VTune Profiler User Guide, "Creating a CSV File with External Data").
// Two files in the output directory, named as VTune requires,
// "[user-defined]-hostname-<host>.csv":
//
//   <prefix>-intervals-hostname-<host>.csv
//     name,start_tsc.<CLOCK>,end_tsc,pid,tid
//     tasks, overlapped tasks, regions and legacy events with their tid
//     (VTune shows them as tasks); frames with an empty tid (VTune shows
//     rows without a tid as frames).
//   <prefix>-counters-hostname-<host>.csv   (only when there are counters)
//     tsc.<CLOCK>,<Counter1>.COUNT|INST,...,pid,tid
//     one row per sample, the counter's own column filled, the others
//     empty. Counters only ever incremented or decremented are cumulative
//     (.COUNT); counters that are set are instantaneous (.INST).
//
// <CLOCK> is the trace's timebase: RDTSC for a TSC trace (raw tick values),
// CLOCK_MONOTONIC_RAW for a CLOCK_MONOTONIC_RAW trace (raw ns); a trace of
// unknown timebase is converted to CLOCK_MONOTONIC_RAW nanoseconds through
// the clock-sync points. Fields with a comma, quote or line break are
// quoted (RFC 4180). <host> is the header's host name with characters
// other than [A-Za-z0-9._-] replaced by '_'.
//
// One pass over the trace writes both, on every core as `chrome` (the
// workers write the lines of the intervals a chunk pairs, the reading
// thread the rest in the serial order; docs/ITT_DUMP.md, "Time order and
// memory"), the same byte for byte as on one core. The counters file's
// rows wait for its last column to be known: in memory up to
// VtuneOptions::spool_memory bytes, the rest in an unnamed temporary file
// (in TMPDIR, else /tmp).

#ifndef TOOLS_ITT_DUMP_VTUNE_CSV_H_
#define TOOLS_ITT_DUMP_VTUNE_CSV_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "tools/itt_dump/output.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {

struct VtuneOptions {
  std::string prefix;  // default: the trace's file name without ".itt"
  // The counters file's rows held in memory before they go to the
  // temporary file, at most (and the temporary file's writes).
  size_t spool_memory = size_t{4} << 20;
};

// Default file-name prefix for a trace path.
std::string DefaultVtunePrefix(const std::string& trace_path);
// The host part of the file names.
std::string VtuneHostName(const std::string& host);

// How RunVtuneCsv's pass went: on every core (pieces.h: the workers pair
// the tasks and write their lines) unless that cannot be exact; then a
// serial pass writes the intervals file all again, checks what the first
// wrote and writes the rest (WriteOnce, verb.h), and makes the counters'
// rows again.
struct VtunePasses {
  bool intervals_on_every_core = false;
  uint64_t intervals_rewritten = 0;  // bytes the serial pass checked
};

// Creates the files through `files`; ctx.out is not used. *passes (may be
// null): how the passes went, of the last host with several hosts.
absl::Status RunVtuneCsv(const VerbContext& ctx, const VtuneOptions& options, OutputFactory* files,
                         VtunePasses* passes = nullptr);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_VTUNE_CSV_H_
