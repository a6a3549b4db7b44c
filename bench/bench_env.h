// Process plumbing shared by the benchmarks: where the collectors are,
// setting the ITT environment before the first ITT call, re-running the
// benchmark binary in a child process with another environment, and the
// clocks the figures are computed from.
//
// The static part reads INTEL_LIBITTNOTIFY64 once, on the first ITT call of
// the process, and a loaded collector stays loaded: every benchmark state
// that needs a different environment runs in its own process.
//
// Thread safety: SetEnv/UnsetEnv only before any other thread exists; the
// rest may be called from any thread.

#ifndef BENCH_BENCH_ENV_H_
#define BENCH_BENCH_ENV_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ittc::bench {

// Absolute path of a runfile of this binary, e.g.
// "collector/libittcollector.so". Looks in $RUNFILES_DIR, then next to
// /proc/self/exe, then relative to the working directory (bazel run).
std::string Runfile(const std::string& workspace_path);

// Our collector and the naive one built in bench/.
std::string CollectorPath();
std::string NaiveCollectorPath();

void SetEnv(const char* name, const std::string& value);
void UnsetEnv(const char* name);

// A fresh directory for trace files, under $TMPDIR or /tmp. It and what it
// holds are left for the caller to remove (RemoveTree).
std::string MakeTempDir(const char* prefix);
void RemoveTree(const std::string& dir);

// Runs this binary again with `args` (argv[1..]) and the current
// environment plus `env` (NAME=VALUE each). Its stdout goes to
// `stdout_path` when not empty. Returns the exit status, or -1.
int RunSelf(const std::vector<std::string>& args, const std::vector<std::string>& env,
            const std::string& stdout_path = "");

// Value of a --name=value flag in argv, or "" (also removes nothing).
std::string FlagValue(int argc, char** argv, const char* name);
// argv without the flags named in `drop` (for passing on to a child).
std::vector<std::string> ArgsWithout(int argc, char** argv, const std::vector<std::string>& drop);

// TSC frequency measured against CLOCK_MONOTONIC_RAW over ~20 ms (first
// call only; later calls return the cached value).
double TscHz();

// CPU time of the whole process (every thread, live or exited) and of the
// calling thread, in nanoseconds.
uint64_t ProcessCpuNs();
uint64_t ThreadCpuNs();

// The /proc directory of this process's thread named `comm`, or "".
std::string FindTask(const char* comm);
// From the schedstat of the thread whose /proc directory is `task_dir`
// ("/proc/thread-self" for the caller), in ns: how long it has run on a CPU,
// and how long it was runnable but waiting for one. 0 if unavailable.
uint64_t TaskRunNs(const std::string& task_dir);
uint64_t RunQueueWaitNs(const std::string& task_dir);

uint64_t FileSize(const std::string& path);

// The single regular file in `dir` whose name ends with ".itt", or "".
std::string FindTrace(const std::string& dir);

}  // namespace ittc::bench

#endif  // BENCH_BENCH_ENV_H_
