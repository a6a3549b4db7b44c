// What every verb gets: the trace (source and index), where output and
// diagnostics go, the filters, and the pass's tuning; plus the helpers the
// verbs share to run their pass and report.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_VERB_H_
#define TOOLS_ITT_DUMP_VERB_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "tools/itt_dump/filter.h"
#include "tools/itt_dump/model/merge.h"
#include "tools/itt_dump/model/progress.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/output.h"

namespace ittc {
namespace itt_dump {

struct VerbContext {
  const TraceSource* source = nullptr;
  const TraceIndex* index = nullptr;
  Output* out = nullptr;  // the verb's main output (stdout or -o FILE)
  Output* err = nullptr;  // diagnostics: one line each, "itt-dump: FILE: "
  FilterSpec filter;
  MergeOptions merge;       // merge.progress is set when a progress line shows
  bool wall_clock = false;  // text: wall clock instead of ns since start
};

// Writes "itt-dump: <file>: <message>\n" to ctx.err.
void Warn(const VerbContext& ctx, std::string_view message);

// Reports what the index pass found that every verb should mention:
// damaged regions and truncation, one line each (at most three; the rest
// are counted in a fourth line).
void WarnDamage(const VerbContext& ctx);

// Reports merge anomalies (late events) after a pass.
void WarnMerge(const VerbContext& ctx, const EventMerger& merger);

// The last tick of the trace: the end record's, else the largest of the
// last sync point and `last_event`.
uint64_t TraceEndTicks(const TraceIndex& index, uint64_t last_event);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_VERB_H_
