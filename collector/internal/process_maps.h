// Maps of this process's code, kept current by the flusher: the module map
// recorded in the trace (module_mapped / module_unmapped records, so that
// itt-dump can symbolize __itt_task_begin_fn addresses) and, with
// ITTC_PERF_MAP=1, the live perf map /tmp/perf-<pid>.map (so that
// `perf record` names JIT-compiled code).
//
// Neither touches the ITT hot path. The module map is polled once per
// flusher round: dl_iterate_phdr's load/unload counters tell whether
// anything changed, and only then are the objects listed again. JIT method
// loads append a line to a bounded in-memory buffer (under a mutex: a JIT
// compiles for far longer than the lock costs); the flusher writes it out.
//
// Thread safety: UpdateProcessMaps runs on the flusher thread only (one
// flusher at a time). ResetProcessMaps runs under the session lock before a
// flusher starts, which orders it before that flusher's rounds
// (pthread_create). PerfMapAddMethod may be called from any thread.

#ifndef COLLECTOR_INTERNAL_PROCESS_MAPS_H_
#define COLLECTOR_INTERNAL_PROCESS_MAPS_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "collector/internal/settings.h"
#include "format/chunk_writer.h"

namespace ittc::collector_internal {

// Before the flusher of a new trace starts: its first round records every
// loaded module. In a fork child, also forgets perf map lines and state the
// parent's threads may have left half-updated (the old state is leaked).
void ResetProcessMaps(const Settings& settings, bool in_fork_child);

// One flusher round: appends a definitions chunk with the module map's
// changes since the last round (all modules in a trace's first round) to
// `out` through `writer`, and appends queued perf map lines to the map file.
void UpdateProcessMaps(format::ChunkWriter* writer, std::string* out);

// Whether ITTC_PERF_MAP is on (known once the session has started): JIT
// method loads then matter even while recording is paused. Inline: every
// method load asks.
inline std::atomic<bool> g_perf_map_on{false};
inline bool PerfMapOn() { return g_perf_map_on.load(std::memory_order_relaxed); }

// JIT method load: queues "START SIZE NAME" for the perf map when
// ITTC_PERF_MAP is on (callers ask PerfMapOn first). `name` may be null
// (the line then says "jit_method_<method_id>").
void PerfMapAddMethod(uint64_t address, uint64_t size, const char* name, uint64_t method_id);

// fork(): glibc does not reset the loader's dl_iterate_phdr lock in the
// child, so a fork while the flusher iterates would leave every later
// dl_iterate_phdr of the child (ours, and the C++ unwinder's) blocked
// forever. The session's prepare handler takes this lock, which the flusher
// holds around its iterations; parent and child handlers release it.
void LockProcessMapsForFork();
void UnlockProcessMapsAfterFork();

// Bytes of perf map lines held between two flusher rounds; a line that
// does not fit is dropped (logged once): a JIT loading more than ~10 000
// methods per flush interval is far beyond any real one.
inline constexpr size_t kPerfMapBufferBytes = 1 << 20;

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_PROCESS_MAPS_H_
