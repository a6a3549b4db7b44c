// Collector settings, read once from ITTC_* environment variables.
//
// Thread safety: ReadSettings() is called once, under the session's init
// lock, before any other thread can see the result; afterwards the Settings
// object is immutable.

#ifndef COLLECTOR_INTERNAL_SETTINGS_H_
#define COLLECTOR_INTERNAL_SETTINGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ittc::collector_internal {

enum class OverflowMode { kDrop, kBlock };

struct Settings {
  // Output path pattern; "%p" expands to the pid and "%e" to the executable name.
  std::string output = "%e-%p.itt";
  // Per-thread ring size in bytes (a power of two).
  // 4 MiB: at 20 M events/s a ring holds ~40 ms of events, slack for a
  // flusher that a busy 2-core machine keeps off the CPU. Pages are mapped
  // lazily, so a thread that records little costs little.
  size_t ring_bytes = size_t{4} << 20;
  // How often the flusher drains idle rings.
  uint32_t flush_interval_ms = 100;
  OverflowMode overflow = OverflowMode::kDrop;
  // In block mode, the longest a producer waits for ring space.
  uint32_t block_timeout_ms = 100;
  int zstd_level = 1;
  bool start_paused = false;
  // Domain filter: glob patterns ('*' and '?'); empty means every domain.
  std::vector<std::string> domain_patterns;
};

// Reads ITTC_* (and INTEL_LIBITTNOTIFY_LOG_DIR for the default directory).
// A bad value gets one line on stderr and the default. Never fails.
Settings ReadSettings();

// Expands %p and %e in `pattern`.
std::string ExpandOutputPath(const std::string& pattern, int pid, const std::string& exe_name);

// True if `name` matches the glob `pattern` ('*' any run, '?' any one char).
bool GlobMatch(const char* pattern, const char* name);

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_SETTINGS_H_
