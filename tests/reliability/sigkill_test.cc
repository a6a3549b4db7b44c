// Row 3: SIGKILL in the middle of a run with several threads. The trace reads
// as truncated (no end record), never as corrupt, and keeps every event the
// flusher had written before the kill.
//
// The test waits until the file holds everything the threads had emitted at
// the snapshot, then kills: how soon the flusher gets there depends on the
// machine's load, so only a hang (the deadline) fails it.

#include <signal.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kThreads = 4;
constexpr int kFlushMs = 50;
constexpr double kHangSeconds = 120;

// True if, for every thread of `snapshot`, the trace accounts for at least
// the events it had emitted (recorded, or counted as dropped when its ring
// was full).
bool AccountsForSnapshot(const TraceSummary& trace,
                         const std::map<std::string, uint64_t>& snapshot) {
  auto tally = TallyByThreadName(trace);
  for (const auto& [thread, emitted] : snapshot) {
    if (tally[thread].events + tally[thread].lost < emitted) return false;
  }
  return true;
}

TEST(SigKill, TraceIsTruncatedNotCorruptAndKeepsWhatWasFlushedBeforeTheKill) {
  std::string dir = MakeTempDir("sigkill");
  std::string trace_path = dir + "/killed.itt";
  pid_t pid = Spawn({Runfile("tests/reliability/sigkill_program"), std::to_string(kThreads)},
                    CollectorEnv(trace_path, {"ITTC_FLUSH_MS=" + std::to_string(kFlushMs)}),
                    dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  auto kill_and_fail = [&](const std::string& why) {
    kill(pid, SIGKILL);
    WaitFor(pid, kHangSeconds);
    ADD_FAILURE() << why << "\n" << ReadFileOrEmpty(dir + "/err");
  };
  if (WaitForLine(dir + "/out", "snapshot-done", kHangSeconds).empty()) {
    return kill_and_fail("the program never reported its snapshot");
  }
  auto snapshot = ParseCounts(dir + "/out", "snapshot");
  ASSERT_EQ(snapshot.size(), static_cast<size_t>(kThreads));
  // The threads keep running while the flusher catches up with the snapshot.
  auto before_kill = WaitForTrace(
      trace_path, [&](const TraceSummary& t) { return AccountsForSnapshot(t, snapshot); },
      kHangSeconds);
  if (!before_kill.ok() || !AccountsForSnapshot(*before_kill, snapshot)) {
    return kill_and_fail("the flusher never wrote the snapshot's events");
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ExitInfo exit = WaitFor(pid, kHangSeconds);
  ASSERT_TRUE(exit.finished);
  ASSERT_TRUE(WIFSIGNALED(exit.status) && WTERMSIG(exit.status) == SIGKILL) << Describe(exit);

  auto loaded = SummarizeTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const TraceSummary& trace = *loaded;
  EXPECT_EQ(trace.corruptions, 0);
  EXPECT_FALSE(trace.has_end);
  // Nothing the file held before the kill went missing, and every thread
  // recorded something.
  EXPECT_GE(trace.total_events, before_kill->total_events);
  EXPECT_TRUE(AccountsForSnapshot(trace, snapshot));
  auto tally = TallyByThreadName(trace);
  for (const auto& [thread, emitted] : snapshot) EXPECT_GT(tally[thread].events, 0u) << thread;
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
}

}  // namespace
}  // namespace ittc::testing
