// `itt-dump parquet`: the trace as a dataset of Parquet tables
// (table_writer.h), one directory per table, named and laid out after
// Perfetto's trace processor tables so that SQL written for those carries
// over (docs/ITT_DUMP.md, "Queries", has the schema):
//
//   slice     tasks, overlapped tasks, regions, frames, legacy events and
//             sync waits: id, ts, dur, category, name, kind, depth,
//             parent_id, utid, upid, open_at_end
//   instant   markers and JIT method loads
//   counter   every counter sample, with its track
//   flow      relations, from the relation to the begin of the tail task
//   heap      allocations, reallocations and frees, with the open task
//   args      metadata: of a slice (slice_id) or of a scope
//   thread    utid, upid, tid, name
//   process   upid, pid, names, host, the axis's wall-clock origin
//
// One file (DIR/slice/part-0.parquet) per table, or with several traces,
// or one with a launcher's rank, one per process as hive-style partitions
// (DIR/slice/rank=3/part-0.parquet; pid=PID when the traces have no
// distinct ranks), so that datasets converted on different machines
// combine by being put in one directory. Times are ns on the trace set's
// axis (ts since its start); ids are unique within the dataset one run
// writes.
//
// It is a consumer of the model like the other exports: one pass over the
// time-ordered merge, the pairing engine's intervals, and the counter,
// sync, heap and flow trackers. On every core (pieces.h) the pieces pair
// their simple tasks and make those slices' rows on the workers, and the
// reading thread takes them where the serial pass would make them; it
// describes the other rows itself. The tables that get many rows (slice,
// instant, counter, heap, args) are written into row groups in order, a
// batch of rows at a time, each table by a thread of its own, at once;
// the column chunks are encoded and compressed on every core
// (EncoderPool). The dataset is the same either way, byte for byte.

#ifndef TOOLS_ITT_DUMP_PARQUET_EXPORT_H_
#define TOOLS_ITT_DUMP_PARQUET_EXPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/itt_dump/parquet/column.h"
#include "tools/itt_dump/verb.h"

namespace ittc::itt_dump {

struct ParquetTable {
  const char* name;
  std::vector<parquet::ColumnSpec> columns;
};

// The tables, in the order written; each row's values follow its columns.
const std::vector<ParquetTable>& ParquetTables();

struct ParquetOptions {
  std::string dir;  // created if missing, with every table's directory
  // Threads that encode column chunks: 0 encodes on the reading thread.
  int encoder_threads = -1;  // -1: one per online CPU
  size_t row_group_rows = size_t{1} << 18;
  // Rows handed to the tables' writers at once (the dataset does not
  // depend on it).
  size_t batch_rows = size_t{1} << 14;
};

// Writes the dataset. Fails (the verb's status 73) when a directory or file
// cannot be made or written; a file is renamed to its name only once
// whole. *on_every_core (if given): whether the pass on every core
// (pieces.h) wrote it, else the serial pass.
absl::Status RunParquet(const VerbContext& ctx, const ParquetOptions& options,
                        bool* on_every_core = nullptr);

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PARQUET_EXPORT_H_
