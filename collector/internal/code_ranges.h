// The code address ranges a thread already made sure the module map will
// hold. __itt_task_begin_fn names a task by a function's address; itt-dump
// names the function from the module that held it (process_maps.h). The
// flusher lists the modules once per round, so a library loaded and
// unloaded between two rounds would be missing: the first time a thread
// meets an address outside these ranges, NoteCodeAddress (process_maps.h)
// records the module that holds it, and the range joins the cache. After
// that, an address in a known range costs a compare or two.
//
// Thread safety: a CodeRangeCache is its thread's own (ThreadState), used
// inside an ITT call only, so a signal handler's call on the same thread
// is dropped as re-entrant and never sees it half-updated.
// g_code_range_epoch is written by the flusher and by ResetProcessMaps
// (relaxed), read by every thread (relaxed: a hint that a cache may hold a
// range whose module has gone; a thread that sees it late only looks its
// next address up later).

#ifndef COLLECTOR_INTERNAL_CODE_RANGES_H_
#define COLLECTOR_INTERNAL_CODE_RANGES_H_

#include <atomic>
#include <cstdint>

namespace ittc::collector_internal {

// Bumped when a module seen before has gone (and when a new trace starts):
// a range cached before may now hold another module's code, which must be
// looked up again.
inline std::atomic<uint32_t> g_code_range_epoch{1};

struct CodeRangeCache {
  // Ranges a thread keeps: the executable and the few libraries a program
  // names tasks from. A thread cycling through more looks them up again.
  static constexpr int kRanges = 4;

  uint64_t start[kRanges] = {};
  uint32_t size[kRanges] = {};  // 0: empty; a module of 4 GiB or more keeps its first 4 GiB
  uint32_t epoch = 0;           // of g_code_range_epoch when filled; 0: never
  uint32_t next = 0;            // the range the next one replaces
};
static_assert(sizeof(CodeRangeCache) <= 64, "one cache line");

// Whether `address` is in a range of `cache`, still valid.
inline bool CodeRangeKnown(const CodeRangeCache& cache, uint64_t address) {
  if (cache.epoch != g_code_range_epoch.load(std::memory_order_relaxed)) return false;
    // The first range is the first module the thread met, usually the only
    // one: one compare.
#pragma GCC unroll 4
  for (int i = 0; i < CodeRangeCache::kRanges; ++i) {
    if (address - cache.start[i] < cache.size[i]) return true;
  }
  return false;
}

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_CODE_RANGES_H_
