// Maps of this process's code, kept current by the flusher: the module map
// recorded in the trace (module_mapped / module_unmapped records, so that
// itt-dump can symbolize __itt_task_begin_fn addresses) and, with
// ITTC_PERF_MAP=1, the live perf map /tmp/perf-<pid>.map (so that
// `perf record` names JIT-compiled code).
//
// Neither touches the ITT hot path. The module map is polled once per
// flusher round: dl_iterate_phdr's load/unload counters tell whether
// anything changed, and only then are the objects listed again. A module
// loaded and unloaded between two rounds is recorded all the same when a
// thread named a task by one of its functions meanwhile: the first time a
// thread meets such an address (code_ranges.h), NoteCodeAddress keeps the
// module's description for the next round, which records it mapped when it
// was met and unmapped when the round saw it gone. JIT method
// loads append a line to a bounded in-memory buffer (under a mutex: a JIT
// compiles for far longer than the lock costs); the flusher writes it out.
//
// Thread safety: UpdateProcessMaps runs on the flusher thread only (one
// flusher at a time). ResetProcessMaps runs under the session lock before a
// flusher starts, which orders it before that flusher's rounds
// (pthread_create). PerfMapAddMethod and NoteCodeAddress may be called
// from any thread. The modules threads met wait for the flusher in fixed
// storage guarded by the loader lock (process_maps.cc), which the flusher
// and NoteCodeAddress hold around dl_iterate_phdr.

#ifndef COLLECTOR_INTERNAL_PROCESS_MAPS_H_
#define COLLECTOR_INTERNAL_PROCESS_MAPS_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "collector/internal/code_ranges.h"
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

// JIT method load or update: queues "START SIZE NAME" for the perf map when
// ITTC_PERF_MAP is on (callers ask PerfMapOn first), as itt-dump perf-map
// writes it from the trace: nothing for a size of 0, the name cut where the
// trace cuts it (kMaxRawBytesField). `name` may be null (the line then says
// "jit_method_<method_id>"; itt-dump names an update without a name after
// its method's load, which the collector keeps no table of).
void PerfMapAddMethod(uint64_t address, uint64_t size, const char* name, uint64_t method_id);

// task_begin_fn and task_begin_fn_ex, the first time the calling thread
// meets `address` (CodeRangeKnown was false): makes sure the next flusher
// round records the module whose code holds it, even if that module is
// unloaded before, and adds the module's range to `cache` (or, when no
// module holds the address, the address alone). `ticks` is the call's
// time. Cold path: takes the loader lock and walks the loaded modules
// (dl_iterate_phdr); allocates nothing. When the storage for the modules
// met in one flusher interval is full (kMaxModulesMet, or their paths fill
// kModulesMetTextBytes), the address is left out of the cache, so a later
// call tries again.
// REQUIRES: inside an ITT call (CallScope) of the thread that owns `cache`.
void NoteCodeAddress(CodeRangeCache* cache, uint64_t address, uint64_t ticks);

// Modules threads may meet in one flush interval, and the bytes of their
// paths and build ids: far more than the libraries a program loads between
// two rounds.
inline constexpr size_t kMaxModulesMet = 64;
inline constexpr size_t kModulesMetTextBytes = 32 * 1024;

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
