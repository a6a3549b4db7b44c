// itt-dump's command line: parsing, help texts, and running a verb with
// its exit status (docs/ITT_DUMP.md is the reference). main() is a thin
// wrapper; tests and the fuzz target call RunItDump with their own Env.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_CLI_H_
#define TOOLS_ITT_DUMP_CLI_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/output.h"

namespace ittc {
namespace itt_dump {

// Exit statuses of every verb. verify's own statuses are in verify.h
// (0 clean, 1 truncated, 2 corrupt, 3 not a trace, 4 unreadable); the other
// verbs exit 0 when they produced their output (damage is reported on
// stderr), and 1..4 as verify does when the file header cannot be read.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 5;  // diff: --fail-above exceeded
inline constexpr int kExitUsage = 64;      // bad command line
inline constexpr int kExitOutput = 73;     // cannot create/write the output

// Where a run reads and writes. The defaults are the real files.
struct Env {
  Output* out = nullptr;  // stdout
  Output* err = nullptr;  // stderr
  // Opens a trace named on the command line.
  std::function<TraceSource(const std::string& path)> source;
  // The traces a FILE argument names: itself, or a directory's .itt files
  // sorted by name. Null: each argument is one trace.
  std::function<absl::StatusOr<std::vector<std::string>>(const std::string&)> expand;
  // Creates an output file (chrome -o, vtune-csv files). `path` is the
  // full path.
  std::function<absl::StatusOr<std::unique_ptr<Output>>(const std::string&)> create_file;
  // Creates the vtune-csv output directory if missing.
  std::function<absl::Status(const std::string&)> make_dir;
  bool progress = false;  // show the progress line (stderr is a terminal)
  // VerbContext::parallel: false reads every file on one core's pass (the
  // tests compare the two).
  bool parallel = true;
  // MergeOptions::stretch_items (0: the pass's own): the tests make it small.
  size_t stretch_items = 0;
  // MergeOptions::run_outputs (0: the pass's own): the tests make it small.
  size_t run_outputs = 0;
};

// Env for the real process: fds 1 and 2, files, progress when stderr is a
// terminal. The Outputs are owned by the returned holder.
struct ProcessEnv {
  std::unique_ptr<Output> out;
  std::unique_ptr<Output> err;
  Env env;
};
std::unique_ptr<ProcessEnv> MakeProcessEnv();

// Runs `args` (without the program name). Returns the exit status.
// Env::expand of the real file system.
absl::StatusOr<std::vector<std::string>> ExpandTraceArgument(const std::string& path);

int RunItDump(const std::vector<std::string>& args, const Env& env);

// Entry point for main(): ignores SIGPIPE, runs, flushes.
int IttDumpMain(int argc, char** argv);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_CLI_H_
