// Helpers for the fault-matrix tests: start a program under the collector
// without waiting for it, wait with a deadline, read what it printed.
// Everything here runs in the test process, never in the program under test.

#ifndef TESTS_RELIABILITY_FAULT_UTIL_H_
#define TESTS_RELIABILITY_FAULT_UTIL_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/collector/trace_loader.h"

namespace ittc::testing {

// Environment that loads the collector through our static part and writes
// the trace to `trace_path`, plus `extra` (NAME=VALUE), which replaces a
// default of the same name.
std::vector<std::string> CollectorEnv(const std::string& trace_path,
                                      const std::vector<std::string>& extra = {});

// Starts `argv` with the test's environment plus `env` (which overrides
// variables of the same name); stdout and stderr go
// to the given files. Returns the pid, or -1.
pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& stdout_path, const std::string& stderr_path);

struct ExitInfo {
  bool finished = false;  // false: still running at the deadline (then killed)
  int status = 0;         // wait status
  double seconds = 0;     // from the call to WaitFor until the child ended
  long max_rss_kb = 0;    // ru_maxrss of the child
};

// Waits up to `timeout_s` for `pid`; on timeout kills it with SIGKILL, reaps
// it and returns finished = false.
ExitInfo WaitFor(pid_t pid, double timeout_s);

// Like WaitFor, but a hang is `stall_s` seconds in which none of `watched`
// (the trace, the program's output) changed size: a program that keeps
// making progress on a slow, busy machine is never killed.
ExitInfo WaitWhileProgressing(pid_t pid, const std::vector<std::string>& watched, double stall_s);

// Spawn + WaitFor.
ExitInfo RunFor(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                const std::string& stdout_path, const std::string& stderr_path, double timeout_s);

// True if the child exited normally with code 0.
bool ExitedCleanly(const ExitInfo& info);
std::string Describe(const ExitInfo& info);

std::string ReadFileOrEmpty(const std::string& path);
std::vector<std::string> ReadLines(const std::string& path);
// Lines the collector wrote to stderr ("ittcollector: ...").
std::vector<std::string> CollectorLines(const std::string& stderr_path);

// Parses "key value" lines with an integer value (the programs report their
// own counts this way, e.g. "emitted worker-3 12345"): map[key] = value for
// lines starting with `prefix` followed by a space.
std::map<std::string, uint64_t> ParseCounts(const std::string& path, const std::string& prefix);

// A trace read in one streaming pass, for traces too big to load whole:
// counts per thread, and only the events of kinds other than task begin/end
// kept in full.
struct TraceSummary {
  format::FileHeader header;
  uint64_t total_events = 0;
  std::map<uint32_t, uint64_t> events_per_thread;
  std::map<uint32_t, std::string> thread_names;
  std::map<std::pair<uint32_t, int>, uint64_t> losses;  // (thread, cause) -> count
  std::map<uint64_t, std::string> strings;
  std::map<uint64_t, std::string> domains;
  std::vector<DecodedEvent> rare_events;  // every kind but task begin/end
  bool has_end = false;
  format::EndRecord end;
  bool has_flight = false;  // a flight recorder's dump
  format::FlightDump flight;
  int corruptions = 0;
  int truncations = 0;
  uint64_t chunks_missing = 0;

  uint64_t TotalLoss() const;
  // Rare events of `kind` whose field `field` names the string `text`.
  int CountNamed(format::EventKind kind, const char* field, const std::string& text) const;
};
absl::StatusOr<TraceSummary> SummarizeTrace(const std::string& path);

// Per thread name: number of events and total losses (every cause).
struct ThreadTally {
  uint64_t events = 0;
  uint64_t lost = 0;
  std::map<int, uint64_t> lost_by_cause;
};
std::map<std::string, ThreadTally> TallyByThreadName(const LoadedTrace& trace);
std::map<std::string, ThreadTally> TallyByThreadName(const TraceSummary& trace);

// Reads the trace at `path` (while its program may still be writing it)
// until `done` holds for what is on disk, or `timeout_s` passes; returns
// the last summary read (or the last error). The timeout only catches a
// hang: the condition, not an amount of time, is what the caller waits for.
absl::StatusOr<TraceSummary> WaitForTrace(const std::string& path,
                                          const std::function<bool(const TraceSummary&)>& done,
                                          double timeout_s);

// Sleeps until `path` holds a line starting with `prefix` or `timeout_s`
// passes; returns that line (empty on timeout).
std::string WaitForLine(const std::string& path, const std::string& prefix, double timeout_s);

}  // namespace ittc::testing

#endif  // TESTS_RELIABILITY_FAULT_UTIL_H_
