// libFuzzer target: every itt-dump verb (with and without filters) on the
// input as a trace file. Must not crash, leak, hit UB, or take memory
// beyond the format's bounds; any exit status is fine.
//
// Built and run by tests/tools/fuzz/run_fuzz.sh.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/tools/dump_runner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string trace(reinterpret_cast<const char*>(data), size);
  static const std::vector<std::vector<std::string>> kRuns = {
      {"info", "trace.itt"},
      {"verify", "trace.itt"},
      {"text", "trace.itt"},
      {"text", "--wall", "--thread=*a*", "--name=*", "--to=100000", "trace.itt"},
      {"stats", "--per-thread", "trace.itt"},
      {"stats", "--format=json", "--domain=d*", "--from=10", "trace.itt"},
      {"stats", "--format=csv", "trace.itt"},
      {"chrome", "trace.itt", "-o", "out.json"},
      {"vtune-csv", "trace.itt", "-o", "dir"},
      {"perfetto", "--compress=none", "trace.itt", "-o", "out.pftrace"},
      {"perfetto", "trace.itt", "-o", "out.pftrace"},
      {"leaks", "--group", "--format=json", "trace.itt"},
      {"perf-map", "trace.itt", "-o", "maps"},
      {"parquet", "trace.itt", "-o", "tables"},
      {"diff", "--format=json", "--fail-above=0", "--name=*", "trace.itt", "same.itt"},
      {"text", "--lookahead-mb=1", "trace.itt"},
  };
  for (const auto& args : kRuns) {
    ittc::itt_dump::testing::RunDump(args, trace, /*output_limit=*/1 << 20);
  }
  return 0;
}
