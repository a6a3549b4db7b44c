// `itt-dump diff BASE NEW`: what changed between two traces, for finding and
// gating regressions. Each side gets the stats pass (StatsCollector, the
// same filters on both); rows are joined by key:
//
//   tasks   (domain, name, kind): count, total, p50, p99 on each side and
//           the change of p50 in percent
//   frames  domain: count, rate, p50 and the change of p50
//   sync    (type, name), objects of the same name summed: acquisitions,
//           total and mean wait, and the change of the mean wait
//
// A row is "new" (only in NEW: its base side is missing, JSON null), "gone"
// (only in BASE: its new side is null) or "both". Rows in both come first,
// the largest growth first; then new rows, then gone ones, by total.
// docs/ITT_DUMP.md lists every column.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_DIFF_H_
#define TOOLS_ITT_DUMP_DIFF_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "tools/itt_dump/report.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {

struct DiffOptions {
  ReportFormat format = ReportFormat::kTable;
  // Rows with fewer than this many (tasks, frames: count; sync objects:
  // acquisitions) in both traces are left out.
  uint64_t min_count = 0;
  // Set: a task whose p50 grew by more than this many percent (or from 0
  // to more than 0) is a regression.
  std::optional<double> fail_above_pct;
};

// Compares `base` with `next` (each context names one trace; their filters
// should be the same) and writes the report to base.out. *regressed tells
// whether options.fail_above_pct is set and some task exceeded it (then one
// line on base.err names the task that grew most); the command line turns
// that into its own exit status. Fails only if a trace cannot be reopened
// for its pass.
absl::Status RunDiff(const VerbContext& base, const VerbContext& next, const DiffOptions& options,
                     bool* regressed);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_DIFF_H_
