// Deterministic sample traces for the itt-dump golden tests, the fuzz seed
// corpus and manual runs (make_sample_trace writes them to files).

#ifndef TESTS_TOOLS_SAMPLE_TRACES_H_
#define TESTS_TOOLS_SAMPLE_TRACES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/format.h"

namespace ittc {
namespace itt_dump {
namespace testing {

// Two threads ("main" tid 101, "worker" tid 102) in three events chunks
// that interleave in time: nested tasks, metadata, a marker, counters, a
// frame and a submitted frame, an overlapped task, a sync object, heap
// calls, a legacy event, a JIT method, an _ex task, a 3-event loss, an end
// without begin and a task left open; clean end at tick 4000. The clock is
// TestHeader's: ns since start = ticks - 1000. `coding`: how its events
// chunks store their fields.
std::string SampleTrace(format::EventStreamEncoder::FieldCoding coding =
                            format::EventStreamEncoder::FieldCoding::kDelta);

// Names an exporter may keep by key: one thread's legacy events
// (__itt_event_start/end) of two defined names and one undefined id,
// interleaved with tasks, and a task whose domain and name have ids too
// large for a key (2^62), in one chunk: each slice must keep its own
// names wherever the exporters write them later.
std::string NamesTrace();

// One thread's task with metadata of each kind of number as its args:
// "whole_double" (double 2.0), "half_double" (double 2.5), "float" (4.0),
// "u64_max" (2^64 - 1), "u64_big" (2^63), "s64" (-3); and global-scope
// metadata "global_double" (double 8.0).
std::string MetadataTypesTrace();

// One thread's task around two allocations (0xa000, 64 bytes; 0xb000, 32)
// and a reallocation of 0xb000 to 0xa000 (128 bytes), which was never
// freed: it releases one block and replaces the other; then a free(NULL).
std::string ReallocTrace();

// One thread's task "work" (100-900) around three waits on "queue_lock"
// (0x1000, a std::mutex): acquired (200-300), cancelled (400-450), and one
// still open at the end (500; the trace ends at 1000).
std::string WaitsTrace();

// `threads` threads each with `events_per_thread` task_begin/task_end
// events (nested two deep), in chunks of `events_per_chunk` per thread,
// interleaved round-robin like the collector's flush rounds.
// `compress` false writes uncompressed chunks.
std::string SyntheticTrace(int threads, uint64_t events_per_thread, uint64_t events_per_chunk,
                           bool compress = true);

// The "big trace" of the itt-dump benchmark (issue 12): `threads` threads
// each running `frames_per_thread` frames; a frame holds an outer task with
// two nested inner tasks (8 events per frame), and every 64th frame also a
// counter sample and a marker. Threads' chunks of `events_per_chunk`
// events interleave in time like the collector's flush rounds. About
// 8.03 events per frame: 4 threads x 2 M frames is 64 M events.
// `header` defaults to TestHeader(). `id_offset` numbers the names and
// domains from 1 + id_offset instead of 1 (a rank that defined another
// first).
std::string FrameTrace(int threads, uint64_t frames_per_thread, uint64_t events_per_chunk = 65536,
                       bool compress = true, const format::FileHeader* header = nullptr,
                       uint64_t id_offset = 0);

// The benchmark's second trace (issue 47): what a real program records,
// mixed. `threads` threads ("main", then "worker"s) each running
// `frames_per_thread` iterations: an iteration holds a task "frame_work"
// (domain "app") with a u64 metadata_add of task scope, a nested "update"
// with a counter sample (counter_set_value), a lock taken (sync_prepare,
// sync_acquired, sync_releasing on one of four objects named by
// sync_create) and a heap allocation (malloc), then a nested "render" of
// domain "gpu" that frees it; every 16th also a marker and a counter_inc
// of a second counter. On "main" an iteration is a frame of domain
// "frames" (frame_begin ... frame_end). 15 events an iteration (17 on
// "main"), 15.125 with those: 4 threads x 1 M iterations is 62.5 M events.
// Chunks go out in flush rounds of 4 ms, each thread's events of the
// round together, as the collector writes them.
std::string MixedTrace(int threads, uint64_t frames_per_thread, uint64_t events_per_chunk = 65536);

// The files an MPI job's ITTC_OUTPUT=DIR/ would hold: `files` frame traces
// of `threads` threads each (ranks 0.., pids 10000.., one boot of one
// host), by file name ("r000003-p0010003-frames.itt"). 64 files of 125000
// frames (one thread) are 64 M events, the same as the big FrameTrace in
// one file. With `other_ids` the odd ranks number their names and domains
// from 2 (a set maps their ids).
std::vector<std::pair<std::string, std::string>> RunTraces(int files, uint64_t frames_per_thread,
                                                           int threads = 1, bool other_ids = false);

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc

#endif  // TESTS_TOOLS_SAMPLE_TRACES_H_
