// Runs itt-dump in-process on traces held in memory, capturing stdout,
// stderr and the files it creates: for the tests and the fuzz target.

#ifndef TESTS_TOOLS_DUMP_RUNNER_H_
#define TESTS_TOOLS_DUMP_RUNNER_H_

#include <map>
#include <string>
#include <vector>

namespace ittc {
namespace itt_dump {
namespace testing {

struct DumpResult {
  int status = -1;
  std::string out;
  std::string err;
  std::map<std::string, std::string> files;  // path -> contents
};

// Runs of merged output a pass on every core makes hold about this many
// outputs here (Env::run_outputs), for many runs in a small trace; but in
// RunDumpWithDefaults.
constexpr size_t kTestRunOutputs = 100;

// Runs `args`; the file name "trace.itt" (and any other path) reads
// `trace`, except "missing.itt", which does not exist. `output_limit` caps
// what stdout and each file keep.
DumpResult RunDump(const std::vector<std::string>& args, const std::string& trace,
                   size_t output_limit = static_cast<size_t>(-1));

// The same with the pass on every core joining what its pieces keep apart
// in stretches of `items` (Env::stretch_items): many joins in a small trace.
DumpResult RunDumpInStretches(const std::vector<std::string>& args, const std::string& trace,
                              size_t items);

// The same with Env::parallel off: every verb takes its serial pass.
DumpResult RunDumpOnOneCore(const std::vector<std::string>& args, const std::string& trace);
DumpResult RunDumpOnOneCore(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& traces);

// Runs `args` with several traces: a path reads traces[path]; a path not
// in the map does not exist. A FILE argument that is no path but a prefix
// "DIR" of paths "DIR/x.itt" names that directory's traces, as on disk;
// one that names a directory on disk names its traces (itt-dump's own
// ExpandTraceArgument).
DumpResult RunDump(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& traces,
                   size_t output_limit = static_cast<size_t>(-1));

// RunDump with every size as itt-dump's own (for the benchmark).
DumpResult RunDumpWithDefaults(const std::vector<std::string>& args, const std::string& trace,
                               size_t output_limit = static_cast<size_t>(-1));
DumpResult RunDumpWithDefaults(const std::vector<std::string>& args,
                               const std::map<std::string, std::string>& traces,
                               size_t output_limit = static_cast<size_t>(-1));

// Every file under `dir` and its subdirectories (its path relative to
// `dir` -> its bytes): what a verb that writes a directory wrote.
std::map<std::string, std::string> FilesUnder(const std::string& dir);

// `name` under the test's temporary directory (TEST_TMPDIR, else /tmp).
std::string TestTempPath(const std::string& name);

// A verb that writes a directory (`args`, with "-o DIR" put after the
// verb), DIR TestTempPath(name), emptied first:
// on every core, or with `one_core` as RunDumpOnOneCore. `files` holds
// what it wrote there (FilesUnder).
DumpResult RunDumpToDir(std::vector<std::string> args,
                        const std::map<std::string, std::string>& traces, const std::string& name,
                        bool one_core);

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc

#endif  // TESTS_TOOLS_DUMP_RUNNER_H_
