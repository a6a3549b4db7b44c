// `itt-dump perfetto`: the trace in Perfetto's native protobuf format
// (trace_writer.h), streamed in the time-ordered merge's order.
//
// Which ITT item becomes which Perfetto item:
//   process                  a process track (pid, executable name, or
//                            "rank R (host) exe" when the trace has a
//                            launcher's rank; host and rank as labels)
//   thread                   a thread track (tid, name) with two packet
//                            sequences: the reading thread's, and its
//                            events chunks' (each starts it again: the
//                            workers write a chunk's tasks, export.cc)
//   task (task_begin*)       a slice on its thread's track, category = the
//                            domain; metadata of the task as debug
//                            annotations of the slice
//   legacy event             a slice on a "events" lane track of its thread
//   overlapped task, region  a slice on a lane track of the process named
//                            "overlapped <domain>" / "region <domain>"
//                            (lanes: model/lanes.h)
//   frame                    a slice named "frame" on a lane track of the
//                            process named "frames <domain>"
//   marker                   an instant on the track its scope names:
//                            thread and task scope the thread's track,
//                            process scope the process track, global scope a
//                            top-level "global markers" track
//   counter                  a counter track under the process carrying
//                            every sample (integer values as int64, others
//                            as double)
//   relation                 a flow from an instant "relation" at the
//                            relation to an instant at the begin of the
//                            tail task (model/flows.h)
//   metadata with a scope    an instant named by its key, with the value
//   other than task          as an annotation
//   JIT method load          an instant on the thread's track named after
//                            the method, with address and size annotations
//   sync wait                a slice named after the object, from the
//                            latest sync_prepare to sync_acquired/cancel
//                            (the model's wait: SyncTracker), on a
//                            "waits" lane track of the thread, written
//                            when it ends
//   heap                     a counter track "<heap function> live bytes"
//                            per heap function under the process
// Timestamps are nanoseconds on the trace's time axis (since its start);
// the writer's clock declares where that axis sits on REALTIME.
//
// Memory: open intervals, definitions, tracks and interning tables; nothing
// grows with the number of events.

#ifndef TOOLS_ITT_DUMP_PERFETTO_EXPORT_H_
#define TOOLS_ITT_DUMP_PERFETTO_EXPORT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/itt_dump/perfetto/trace_writer.h"
#include "tools/itt_dump/verb.h"

namespace ittc::itt_dump {

struct PerfettoOptions {
  PerfettoCompression compression = PerfettoCompression::kZstd;
};

// Writes the trace to ctx.out: on every core where it can be exact
// (pieces.h), else, or after what that pass wrote, on one thread
// (WriteOnce, verb.h; *rewritten, when not null: the bytes the first pass
// wrote and the second checked). The writer's own failure (compressing,
// writing) goes to *writer_status when not null, else is returned.
absl::StatusOr<PassSummary> WritePerfetto(const VerbContext& ctx, const PerfettoOptions& options,
                                          uint64_t* rewritten = nullptr,
                                          absl::Status* writer_status = nullptr);
absl::Status RunPerfetto(const VerbContext& ctx, const PerfettoOptions& options);

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_EXPORT_H_
