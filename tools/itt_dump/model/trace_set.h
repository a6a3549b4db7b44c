// Several trace files read as one: the processes of one job, a fork tree,
// the ranks of an MPI run (issue 14 builds the command line on this).
//
// Each file keeps its own index (definitions, threads and clock are per
// file; a ThreadRec belongs to one file). The TraceSetMerger delivers the
// events of all files in one time order. Today every file's ticks are taken
// as they are, which is right for traces of one boot of one host (they share
// the TSC); TraceSet::TickOffset is the one place where traces of different
// hosts will be aligned through their wall-clock sync points.
//
// Thread safety: none. Memory: one index per file, and per file what its
// EventMerger buffers (merge.h).

#ifndef TOOLS_ITT_DUMP_MODEL_TRACE_SET_H_
#define TOOLS_ITT_DUMP_MODEL_TRACE_SET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "format/format.h"
#include "tools/itt_dump/model/merge.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

struct TraceFile {
  TraceSource source;
  std::unique_ptr<TraceIndex> index;
};

class TraceSet {
 public:
  struct Failure {
    std::string name;
    OpenFailure failure = OpenFailure::kNone;
    absl::Status status;
  };

  // Indexes every source in order. A file that cannot be read is listed in
  // failures() and left out; the others are read whatever happened to it.
  static TraceSet Open(std::vector<TraceSource> sources, const IndexOptions& options);

  const std::vector<TraceFile>& files() const { return files_; }
  const std::vector<Failure>& failures() const { return failures_; }

  // Ticks added to file `i`'s times to put them on the set's time axis.
  // 0 for every file today (one boot, one TSC): the hook for aligning
  // traces of different hosts.
  int64_t TickOffset(size_t i) const { return 0; }

 private:
  std::vector<TraceFile> files_;
  std::vector<Failure> failures_;
};

// The events of every file of a set in time order (ties: the file listed
// first). Each file is merged by its own EventMerger; this merges those.
class TraceSetMerger {
 public:
  // `set` must outlive the merger.
  TraceSetMerger(const TraceSet& set, const MergeOptions& options);
  ~TraceSetMerger();

  // Why a file could not be opened for the pass (the others still are).
  const std::vector<std::pair<size_t, absl::Status>>& open_errors() const { return errors_; }

  // The next event, its thread, and the position of its file in
  // set.files(); false at the end. Pointers stay valid until the next call.
  bool Next(const format::Event** event, const ThreadRec** thread, size_t* file);

 private:
  struct Input {
    size_t file = 0;
    std::unique_ptr<format::TraceReader> reader;
    std::unique_ptr<EventMerger> merger;
    const format::Event* head = nullptr;  // the merger's pending event
    const ThreadRec* thread = nullptr;
  };

  const TraceSet& set_;
  std::vector<Input> inputs_;
  std::vector<std::pair<size_t, absl::Status>> errors_;
  int last_ = -1;  // input whose head was delivered last and must advance
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_TRACE_SET_H_
