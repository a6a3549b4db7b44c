#include "tests/tools/dump_runner.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "tools/itt_dump/cli.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/output.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

DumpResult Run(
    const std::vector<std::string>& args, std::function<TraceSource(const std::string&)> source,
    size_t output_limit,
    std::function<absl::StatusOr<std::vector<std::string>>(const std::string&)> expand = nullptr,
    bool parallel = true, size_t stretch_items = 0, size_t run_outputs = kTestRunOutputs) {
  DumpResult r;
  std::unique_ptr<Output> out = StringOutput(&r.out, output_limit);
  std::unique_ptr<Output> err = StringOutput(&r.err);
  Env env;
  env.out = out.get();
  env.err = err.get();
  env.source = std::move(source);
  env.expand = std::move(expand);
  env.parallel = parallel;
  env.stretch_items = stretch_items;
  env.run_outputs = run_outputs;
  env.create_file =
      [&r, output_limit](const std::string& path) -> absl::StatusOr<std::unique_ptr<Output>> {
    if (path.rfind("/nonexistent", 0) == 0) {
      return absl::NotFoundError(path + ": No such file or directory");
    }
    // As a file is: created or truncated (a second Create of one path
    // loses what the first wrote, as it would on disk).
    std::string& file = r.files[path];
    file.clear();
    return StringOutput(&file, output_limit);
  };
  env.make_dir = [](const std::string& dir) -> absl::Status {
    if (dir.rfind("/nonexistent", 0) == 0) {
      return absl::NotFoundError(dir + ": No such file or directory");
    }
    return absl::OkStatus();
  };
  r.status = RunItDump(args, env);
  out.reset();
  err.reset();
  return r;
}

}  // namespace

DumpResult RunDump(const std::vector<std::string>& args, const std::string& trace,
                   size_t output_limit) {
  return Run(
      args,
      [&trace](const std::string& path) {
        if (path == "missing.itt") return TraceSource::File(path);
        return TraceSource::Memory(trace, path);
      },
      output_limit);
}

DumpResult RunDumpWithDefaults(const std::vector<std::string>& args, const std::string& trace,
                               size_t output_limit) {
  return Run(
      args, [&trace](const std::string& path) { return TraceSource::Memory(trace, path); },
      output_limit, nullptr, /*parallel=*/true, /*stretch_items=*/0, /*run_outputs=*/0);
}

DumpResult RunDumpInStretches(const std::vector<std::string>& args, const std::string& trace,
                              size_t items) {
  return Run(
      args, [&trace](const std::string& path) { return TraceSource::Memory(trace, path); },
      static_cast<size_t>(-1), nullptr, /*parallel=*/true, items);
}

DumpResult RunDumpOnOneCore(const std::vector<std::string>& args, const std::string& trace) {
  return Run(
      args, [&trace](const std::string& path) { return TraceSource::Memory(trace, path); },
      static_cast<size_t>(-1), nullptr, /*parallel=*/false);
}

namespace {

DumpResult RunOnTraces(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& traces, size_t output_limit,
                       bool parallel, size_t run_outputs = kTestRunOutputs) {
  return Run(
      args,
      [&traces](const std::string& path) {
        auto it = traces.find(path);
        if (it == traces.end()) return TraceSource::File(path);
        return TraceSource::Memory(it->second, path);
      },
      output_limit,
      [&traces](const std::string& arg) -> absl::StatusOr<std::vector<std::string>> {
        if (traces.count(arg) != 0) return std::vector<std::string>{arg};
        // A directory on disk: its traces as itt-dump finds them.
        if (std::filesystem::is_directory(arg)) return ExpandTraceArgument(arg);
        std::vector<std::string> in_dir;  // std::map: sorted by name
        for (const auto& [path, bytes] : traces) {
          if (path.rfind(arg + "/", 0) == 0) in_dir.push_back(path);
        }
        if (in_dir.empty()) return std::vector<std::string>{arg};
        return in_dir;
      },
      parallel, /*stretch_items=*/0, run_outputs);
}

}  // namespace

DumpResult RunDump(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& traces, size_t output_limit) {
  return RunOnTraces(args, traces, output_limit, /*parallel=*/true);
}

DumpResult RunDumpWithDefaults(const std::vector<std::string>& args,
                               const std::map<std::string, std::string>& traces,
                               size_t output_limit) {
  return RunOnTraces(args, traces, output_limit, /*parallel=*/true, /*run_outputs=*/0);
}

DumpResult RunDumpOnOneCore(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& traces) {
  return RunOnTraces(args, traces, static_cast<size_t>(-1), /*parallel=*/false);
}

std::map<std::string, std::string> FilesUnder(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    files[std::filesystem::relative(entry.path(), dir).string()] = bytes.str();
  }
  return files;
}

std::string TestTempPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
}

DumpResult RunDumpToDir(std::vector<std::string> args,
                        const std::map<std::string, std::string>& traces, const std::string& name,
                        bool one_core) {
  const std::string dir = TestTempPath(name);
  std::filesystem::remove_all(dir);
  args.insert(args.begin() + 1, {"-o", dir});
  DumpResult r = RunOnTraces(args, traces, static_cast<size_t>(-1), /*parallel=*/!one_core);
  r.files = FilesUnder(dir);
  return r;
}

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
