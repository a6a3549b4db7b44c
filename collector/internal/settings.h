// Collector settings, read once from ITTC_* environment variables.
//
// Thread safety: ReadSettings() is called once, under the session's init
// lock, before any other thread can see the result; afterwards the Settings
// object is immutable.

#ifndef COLLECTOR_INTERNAL_SETTINGS_H_
#define COLLECTOR_INTERNAL_SETTINGS_H_

#include <signal.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/file_header.h"

namespace ittc::collector_internal {

enum class OverflowMode { kDrop, kBlock };

// The range of Linux nice values (ITTC_FLUSHER_NICE).
inline constexpr int kMinNice = -20;
inline constexpr int kMaxNice = 19;

// Most flusher threads one process starts (ITTC_FLUSHERS's upper bound):
// past a few dozen, the one file they share is the bottleneck.
inline constexpr int kMaxFlushers = 64;

// Launcher variables that carry a process's rank, in the order they are
// tried: the launcher-specific ones first, because under `mpirun` inside a
// Slurm allocation SLURM_PROCID describes the launcher's daemon, not the rank.
inline constexpr const char* kRankVariables[] = {
    "OMPI_COMM_WORLD_RANK",  // Open MPI's mpirun
    "PMIX_RANK",             // PMIx launchers (Open MPI 4+, prrte, Slurm with PMIx)
    "PMI_RANK",              // MPICH / Intel MPI's Hydra
    "SLURM_PROCID",          // srun
};

// The rank value of a process no launcher started.
using ::ittc::format::kNoRank;

struct Settings {
  // Output path pattern (ExpandOutputPath); ends in '/' for a directory.
  std::string output = "%e-%p.itt";
  // The launcher's rank (kRankVariables), or kNoRank.
  int64_t rank = kNoRank;
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
  // Longest wait at exit (or detach) for the flusher to write what the rings
  // hold and the end record; past it the process exits without them.
  uint32_t exit_timeout_ms = 5000;
  int zstd_level = 1;
  // The flusher thread's nice value (absolute), set when the thread starts.
  // -10: while the application's threads keep every core busy, a flusher
  // at their priority gets a core only its fair share of the time, its
  // rings fill and events are dropped; above them it gets the CPU it
  // needs, which is little beside what the producers use. Lowering a nice
  // value needs CAP_SYS_NICE or an RLIMIT_NICE that allows it: without
  // them the flusher takes the lowest value RLIMIT_NICE allows, or keeps
  // its creator's (Flusher::SetPriority).
  int flusher_nice = -10;
  // Whether ITTC_FLUSHER_NICE set flusher_nice: then a value the flusher
  // cannot take is warned about; the default is tried silently.
  bool flusher_nice_explicit = false;
  // ITTC_FLUSHERS: how many flusher threads drain the rings; 0 lets the
  // collector pick, from the threads that record fast and the cores the
  // process may use (flusher.h, TargetFlushers).
  int flushers = 0;
  bool start_paused = false;
  // Domain filter: glob patterns ('*' and '?'); empty means every domain.
  std::vector<std::string> domain_patterns;
  // ITTC_PERF_MAP: append JIT method loads to /tmp/perf-<pid>.map.
  bool perf_map = false;
  // ITTC_FLIGHT_MB: flight recorder mode (flight_recorder.h) keeping at
  // most this many bytes of chunks in memory; 0: off, the trace is written
  // as it is recorded.
  size_t flight_bytes = 0;
  // ITTC_FLIGHT_SIGNAL: the signal that makes the flight recorder write a
  // dump; 0: none.
  int flight_signal = SIGUSR2;
  // ITTC_FLIGHT_MARKER: markers whose name matches this glob make the
  // flight recorder write a dump; empty: none.
  std::string flight_marker;
  // ITTC_FLIGHT_FATAL: a fatal signal (kFlightFatalSignals) makes the flight
  // recorder write a dump before the signal's default action.
  bool flight_fatal = true;
};

// The signals after which the flight recorder writes what it holds.
inline constexpr int kFlightFatalSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};

// ITTC_FLIGHT_MB's range: 1 MiB to 64 GiB (address space is reserved for
// all of it; memory is touched as chunks fill it).
inline constexpr uint64_t kMaxFlightMb = 65536;

// Parses an ITTC_FLIGHT_SIGNAL value: a signal name with or without "SIG"
// (USR1, USR2, HUP, WINCH...) or number, not one the flight recorder
// cannot take (SIGKILL, SIGSTOP, a fatal one); "none" or "0" for none.
// False if `text` is none of these.
bool ParseFlightSignal(const char* text, int* signal);

// What names this process in its trace file's name.
struct ProcessNames {
  int pid = 0;
  std::string exe_name;
  int64_t rank = kNoRank;
  std::string host;
};

// Reads ITTC_* (and INTEL_LIBITTNOTIFY_LOG_DIR for the default directory),
// and the rank from kRankVariables. A bad value gets one line on stderr and
// the default. Never fails.
Settings ReadSettings();

// The rank from the first of kRankVariables that is set, if it is a decimal
// in [0, 2^31); kNoRank if none is set. A set but malformed variable is
// warned about and ends the search with kNoRank.
int64_t ReadLauncherRank();

// True if `pattern` names a directory (ends in '/'): one file per process
// inside it.
bool IsDirectoryPattern(const std::string& pattern);

// Expands %p (pid), %e (executable name), %r (rank; "norank" without one),
// %h (host name) and %% in `pattern`. If the pattern is a directory, the
// file name DirectoryFileName() is appended.
std::string ExpandOutputPath(const std::string& pattern, const ProcessNames& names);

// The name of a process's file in an output directory:
// "r<rank, 6 digits>-p<pid, 7 digits>-<exe>.itt", or without a rank
// "p<pid, 7 digits>-<exe>.itt". A plain listing then sorts by rank, then by
// pid, with the processes without a rank first ('p' < 'r').
std::string DirectoryFileName(const ProcessNames& names);

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_SETTINGS_H_
