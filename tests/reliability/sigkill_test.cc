// Row 3: SIGKILL in the middle of a run with several threads. The trace reads
// as truncated (no end record), never as corrupt, and holds every event
// recorded more than one flush interval before the kill.

#include <signal.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kThreads = 4;
constexpr int kFlushMs = 50;

TEST(SigKill, TraceIsTruncatedNotCorruptAndHoldsEventsOlderThanOneFlushInterval) {
  std::string dir = MakeTempDir("sigkill");
  std::string trace_path = dir + "/killed.itt";
  pid_t pid = Spawn({Runfile("tests/reliability/sigkill_program"), std::to_string(kThreads)},
                    CollectorEnv(trace_path, {"ITTC_FLUSH_MS=" + std::to_string(kFlushMs)}),
                    dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  std::string done = WaitForLine(dir + "/out", "snapshot-done", 30);
  if (done.empty()) {
    kill(pid, SIGKILL);
    WaitFor(pid, 10);
    FAIL() << "the program never reported its snapshot";
  }
  // Several flush intervals after the snapshot: all of it must be on disk.
  // ThreadSanitizer slows the flusher several times over; the guarantee is
  // about flush intervals of a flusher that keeps up.
#if defined(__SANITIZE_THREAD__)
  usleep(40 * kFlushMs * 1000);
#else
  usleep(4 * kFlushMs * 1000);
#endif
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ExitInfo exit = WaitFor(pid, 10);
  ASSERT_TRUE(exit.finished);
  ASSERT_TRUE(WIFSIGNALED(exit.status) && WTERMSIG(exit.status) == SIGKILL) << Describe(exit);

  auto snapshot = ParseCounts(dir + "/out", "snapshot");
  ASSERT_EQ(snapshot.size(), static_cast<size_t>(kThreads));
  auto loaded = SummarizeTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const TraceSummary& trace = *loaded;
  EXPECT_EQ(trace.corruptions, 0);
  EXPECT_FALSE(trace.has_end);
  auto tally = TallyByThreadName(trace);
  for (const auto& [thread, emitted] : snapshot) {
    // Dropped events (ring full) were never recorded; every recorded one is
    // in the file.
    EXPECT_GE(tally[thread].events + tally[thread].lost, emitted) << thread;
    EXPECT_GT(tally[thread].events, 0u) << thread;
  }
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
}

}  // namespace
}  // namespace ittc::testing
