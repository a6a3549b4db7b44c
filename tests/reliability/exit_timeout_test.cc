// Row 13: flushers that never finish do not hang the process's exit. With
// the flushers parked for good (a test hook) and a short
// ITTC_EXIT_TIMEOUT_MS, the program ends normally, the collector says on
// stderr that the trace ends without its end record, and the trace reads
// as cut short, never as corrupt.

#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kThreads = 3;
// Only a hang reaches it; the exit itself waits kExitTimeoutMs.
constexpr double kHangSeconds = 120;
constexpr int kExitTimeoutMs = 200;

TEST(ExitTimeout, StuckFlushersLetTheProcessEndAndTheTraceReadsCutShort) {
  std::string dir = MakeTempDir("exit_timeout");
  std::string trace_path = dir + "/stuck.itt";
  ExitInfo exit =
      RunFor({Runfile("tests/reliability/exit_timeout_program"), std::to_string(kThreads)},
             CollectorEnv(trace_path, {"ITTC_EXIT_TIMEOUT_MS=" + std::to_string(kExitTimeoutMs)}),
             dir + "/out", dir + "/err", kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  EXPECT_EQ(ReadLines(dir + "/out"), std::vector<std::string>{"held"});
  const std::vector<std::string> lines = CollectorLines(dir + "/err");
  ASSERT_EQ(lines.size(), 1u) << ReadFileOrEmpty(dir + "/err");
  EXPECT_NE(lines[0].find("did not finish within " + std::to_string(kExitTimeoutMs) + " ms"),
            std::string::npos)
      << lines[0];

  auto loaded = SummarizeTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->has_end);
  EXPECT_EQ(loaded->corruptions, 0);
}

}  // namespace
}  // namespace ittc::testing
