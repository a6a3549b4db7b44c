// Row 9: a signal handler making ITT calls while the interrupted thread is
// inside an ITT call (or attaching to the collector): no deadlock, no
// corrupted record. A handler's calls made while its thread was inside a
// call are dropped and counted as "reentrant" (cause 7); all others are
// recorded, so per thread: recorded + dropped == emitted.

#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kReentrant = 7;
// No growth of the trace or the output for this long is a deadlock.
constexpr double kStallSeconds = 60;

class SignalsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SignalsTest, HandlerCallsAreRecordedOrCountedNeverInterleaved) {
  std::string dir = MakeTempDir(std::string("signals_") + GetParam());
  std::string trace_path = dir + "/signals.itt";
  pid_t pid = Spawn({Runfile("tests/reliability/signals_program"), GetParam()},
                    CollectorEnv(trace_path), dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  // A deadlock stops the trace from growing; a slow machine does not.
  ExitInfo exit =
      WaitWhileProgressing(pid, {trace_path, dir + "/out", dir + "/err"}, kStallSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << " (a hang here is a deadlock)\n"
                                   << ReadFileOrEmpty(dir + "/err");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
  auto emitted = ParseCounts(dir + "/out", "emitted");
  auto handled = ParseCounts(dir + "/out", "handled");
  auto dropped = ParseCounts(dir + "/out", "reentrant");
  ASSERT_FALSE(emitted.empty());
  EXPECT_TRUE(ParseCounts(dir + "/out", "deadline").empty())
      << "in 5 minutes, no signal landed inside an ITT call (or the timers stopped)";

  auto loaded = SummarizeTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const TraceSummary& trace = *loaded;
  EXPECT_TRUE(trace.has_end);
  EXPECT_EQ(trace.corruptions, 0);
  EXPECT_EQ(trace.truncations, 0);

  // Markers recorded per thread: each handler run is recorded whole or
  // dropped whole (its thread stays inside the interrupted call throughout).
  std::map<uint32_t, uint64_t> markers;
  for (const DecodedEvent& e : trace.rare_events) {
    if (e.kind == format::EventKind::kMarker && trace.strings.at(e.U("name")) == "in-handler") {
      ++markers[e.thread];
    }
  }
  std::map<std::string, uint64_t> markers_by_name;
  for (const auto& [index, n] : markers) markers_by_name[trace.thread_names.at(index)] += n;

  auto tally = TallyByThreadName(trace);
  uint64_t total_handled = 0, total_reentrant = 0;
  for (const auto& [thread, n] : emitted) {
    SCOPED_TRACE(thread);
    const ThreadTally& t = tally[thread];
    EXPECT_EQ(t.events + t.lost, n) << t.events << " recorded + " << t.lost << " dropped";
    uint64_t reentrant = t.lost_by_cause.count(kReentrant) ? t.lost_by_cause.at(kReentrant) : 0;
    // The trace holds exactly the re-entrant drops the collector counted
    // for the thread while it ran.
    EXPECT_EQ(reentrant, dropped[thread]);
    if (t.lost == reentrant) {
      // No other loss: every handler run is either a marker or 3 drops.
      EXPECT_EQ(markers_by_name[thread] + reentrant / 3, handled[thread]);
      EXPECT_EQ(reentrant % 3, 0u);
    }
    total_handled += handled[thread];
    total_reentrant += reentrant;
  }
  // One state per thread: the workers plus main (its marker). A thread that
  // a handler attached while the thread itself was attaching must not end
  // up with a second, orphaned state.
  EXPECT_EQ(trace.events_per_thread.size(), emitted.size() + 1);

  // The test only means something if signals did land inside ITT calls;
  // the program goes on until they have (or a deadline only a broken
  // timer reaches).
  EXPECT_GE(total_handled, 2000u);
  EXPECT_GT(total_reentrant, 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, SignalsTest, ::testing::Values("steady", "first_calls"));

}  // namespace
}  // namespace ittc::testing
