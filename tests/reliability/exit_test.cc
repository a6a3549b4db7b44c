// Row 4: return from main and exit() while other threads still call ITT at
// full rate, with ITT calls from static, thread_local and pthread-key
// destructors and atexit handlers: no crash, no hang, and the trace ends cleanly with everything
// recorded before shutdown began.

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kThreads = 3;
// Only a hang reaches it.
constexpr double kHangSeconds = 60;

class ExitTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ExitTest, EndsCleanlyWithEverythingRecordedBeforeShutdown) {
  // Repeated: the races differ from run to run.
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    std::string dir = MakeTempDir(std::string("exit_") + GetParam() + std::to_string(run));
    std::string trace_path = dir + "/exit.itt";
    // The program ends while it is still starting threads: ThreadSanitizer
    // would report those as leaked threads, which is the point here.
    std::vector<std::string> env;
    if (const char* tsan = std::getenv("TSAN_OPTIONS")) {
      env.push_back(std::string("TSAN_OPTIONS=") + tsan + ":report_thread_leaks=0");
    }
    ExitInfo exit =
        RunFor({Runfile("tests/reliability/exit_program"), GetParam(), std::to_string(kThreads)},
               CollectorEnv(trace_path, env), dir + "/out", dir + "/err", kHangSeconds);
    // No assertion on how long it took: the collector's 5 s bound on its
    // shutdown is measured in wall time that a busy machine stretches.
    ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
    EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");

    auto snapshot = ParseCounts(dir + "/out", "snapshot");
    ASSERT_EQ(snapshot.size(), static_cast<size_t>(kThreads));
    auto loaded = SummarizeTrace(trace_path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const TraceSummary& trace = *loaded;
    EXPECT_TRUE(trace.has_end);
    EXPECT_EQ(trace.corruptions, 0);
    EXPECT_EQ(trace.truncations, 0);
    EXPECT_EQ(trace.end.events_recorded, trace.total_events);
    EXPECT_EQ(trace.end.events_dropped, trace.TotalLoss());
    auto tally = TallyByThreadName(trace);
    for (const auto& [thread, emitted] : snapshot) {
      EXPECT_GE(tally[thread].events + tally[thread].lost, emitted) << thread;
    }
    // The late atexit handler ran before the collector's and was recorded.
    EXPECT_EQ(trace.CountNamed(format::EventKind::kMarker, "name", "late-atexit"), 1)
        << trace.rare_events.size() << " events besides tasks";
  }
}

INSTANTIATE_TEST_SUITE_P(Ends, ExitTest, ::testing::Values("return", "exit"));

}  // namespace
}  // namespace ittc::testing
