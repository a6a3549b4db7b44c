// `itt-dump perf-map`: the JIT method loads of a trace as a Linux perf map
// file, so `perf report` names JIT code recorded in the same run.
//
// perf reads /tmp/perf-PID.map for a process PID (perf's
// tools/perf/Documentation/jit-interface.txt): one line per code region,
// "START SIZE symbolname", START and SIZE in hexadecimal without 0x. This
// writes DIR/perf-PID.map (PID from the trace's header) with one line per
// jit_method_load* and jit_method_update event, in load order; a later line
// for the same addresses supersedes an earlier one, as perf reads it.
// Inline loads (jit_inline_load) lie inside their parent's code and get no
// line. A method without a name is named "jit_method_<id>".

#ifndef TOOLS_ITT_DUMP_PERF_MAP_H_
#define TOOLS_ITT_DUMP_PERF_MAP_H_

#include <string>

#include "absl/status/status.h"
#include "tools/itt_dump/output.h"
#include "tools/itt_dump/verb.h"

namespace ittc::itt_dump {

// The file name perf looks for: "perf-PID.map".
std::string PerfMapFileName(const TraceIndex& index);

// Writes the map to `out`; *lines gets the number of lines written.
// Writes perf-PID.map of every process of the set through `files`; warns
// about a process without JIT method loads (its map is empty).
absl::Status RunPerfMap(const VerbContext& ctx, OutputFactory* files);

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERF_MAP_H_
