// Row 1: producers faster than the flusher. Whatever the ring cannot hold is
// dropped (or, in block mode, waited for and then dropped) and counted, so
// that for every thread: events in the trace + losses counted == emitted.
// The program holds the flusher (a test hook) while its threads overrun
// their rings, so the overflow happens on an idle and on a busy machine
// alike; then it releases it and the threads race the flusher at full rate.

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kThreads = 4;
// Ring of the runs below, and the smallest record a task event takes in it
// (collector/internal/raw_record.h: a task begin or end that repeats the
// ring's last task is its 8-byte header alone, whose time is a difference
// from the record before): while the flusher is held a ring holds at most
// this many events.
constexpr int kRingKb = 64;
constexpr uint64_t kMostEventsInRing = kRingKb * 1024 / 8;
// Held pairs: twice as many events as a ring can hold.
constexpr long kHeldPairs = kMostEventsInRing;
constexpr long kFreePairs = 300000;

enum class Release { kWhenDone, kWhenBlocked, kWhenBlockedThenPaused, kWhenBlockedDetach };

struct OverflowRun {
  std::string dir;
  std::string trace_path;
  TraceSummary trace;
  std::map<std::string, uint64_t> emitted;
  uint64_t blocked_reserves = 0;
  std::vector<std::string> collector_lines;
};

OverflowRun RunOverflow(const std::string& name, std::vector<std::string> settings,
                        Release release = Release::kWhenDone, long free_pairs = kFreePairs) {
  settings.push_back("ITTC_RING_KB=" + std::to_string(kRingKb));
  OverflowRun run;
  std::string dir = MakeTempDir(name);
  std::string trace = dir + "/overflow.itt";
  run.dir = dir;
  run.trace_path = trace;
  // The deadline only catches a hang (it takes seconds under TSan).
  ExitInfo exit = RunFor({Runfile("tests/reliability/overflow_program"), std::to_string(kThreads),
                          std::to_string(kHeldPairs), std::to_string(free_pairs),
                          release == Release::kWhenDone                ? "done"
                          : release == Release::kWhenBlocked           ? "blocked"
                          : release == Release::kWhenBlockedThenPaused ? "paused"
                                                                       : "detached"},
                         CollectorEnv(trace, settings), dir + "/out", dir + "/err", 240);
  EXPECT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  run.emitted = ParseCounts(dir + "/out", "emitted");
  run.blocked_reserves = ParseCounts(dir + "/out", "blocked")["reserves"];
  run.collector_lines = CollectorLines(dir + "/err");
  auto loaded = SummarizeTrace(trace);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (loaded.ok()) run.trace = std::move(*loaded);
  return run;
}

void ExpectEveryEventAccountedFor(const OverflowRun& run, int expected_cause) {
  ASSERT_EQ(run.emitted.size(), static_cast<size_t>(kThreads));
  EXPECT_TRUE(run.trace.has_end);
  EXPECT_EQ(run.trace.corruptions, 0);
  EXPECT_EQ(run.trace.truncations, 0);
  auto tally = TallyByThreadName(run.trace);
  uint64_t total_lost = 0;
  for (const auto& [thread, emitted] : run.emitted) {
    const ThreadTally& t = tally[thread];
    EXPECT_EQ(t.events + t.lost, emitted)
        << thread << ": " << t.events << " recorded + " << t.lost << " dropped";
    for (const auto& [cause, n] : t.lost_by_cause) {
      EXPECT_EQ(cause, expected_cause) << thread << " lost " << n << " events to cause " << cause;
    }
    total_lost += t.lost;
  }
  EXPECT_EQ(run.trace.end.events_dropped, run.trace.TotalLoss());
  EXPECT_EQ(run.trace.end.events_recorded, run.trace.total_events);
  // The collector reports losses in the trace, not on the host's stderr.
  EXPECT_TRUE(run.collector_lines.empty()) << run.collector_lines[0];
  ::testing::Test::RecordProperty("events_lost", std::to_string(total_lost));
}

// While the flusher was held, each thread emitted 1 + 2 * kHeldPairs events
// into a ring that holds at most kMostEventsInRing: the rest were lost.
void ExpectEveryThreadOverran(const OverflowRun& run) {
  auto tally = TallyByThreadName(run.trace);
  for (const auto& [thread, emitted] : run.emitted) {
    EXPECT_GE(tally[thread].lost, 1 + 2 * kHeldPairs - kMostEventsInRing) << thread;
  }
}

TEST(Overflow, DropModeCountsEveryDroppedEvent) {
  OverflowRun run = RunOverflow("drop", {});
  ExpectEveryEventAccountedFor(run, static_cast<int>(format::LossCause::kBufferFull));
  ExpectEveryThreadOverran(run);
  // Drop mode never waits for the flusher, however full the ring.
  EXPECT_EQ(run.blocked_reserves, 0u);
}

// Runs `itt-dump <verb> <trace>` and returns its standard output.
std::string Dump(const OverflowRun& run, const std::string& verb) {
  std::string out = run.dir + "/" + verb + ".txt";
  ExitInfo exit = RunFor({Runfile("tools/itt-dump"), verb, run.trace_path}, {}, out,
                         run.dir + "/" + verb + ".err", 60);
  EXPECT_TRUE(ExitedCleanly(exit)) << verb << ": " << Describe(exit);
  return ReadFileOrEmpty(out);
}

TEST(Overflow, DropsAreReportedByIttDumpInfoAndAtTheTopOfStats) {
  OverflowRun run = RunOverflow("reported", {});
  const uint64_t lost = run.trace.TotalLoss();
  ASSERT_GT(lost, 0u);
  std::string info = Dump(run, "info");
  EXPECT_NE(info.find("losses    " + std::to_string(lost) + " events dropped"), std::string::npos)
      << info;
  // The end record's totals.
  EXPECT_NE(info.find("(" + std::to_string(run.trace.total_events) + " recorded, " +
                      std::to_string(lost) + " dropped"),
            std::string::npos)
      << info;
  std::string stats = Dump(run, "stats");
  // The losses table is the first section after the title line.
  size_t title_end = stats.find("\n\n");
  ASSERT_NE(title_end, std::string::npos) << stats;
  EXPECT_EQ(stats.compare(title_end + 2, 7, "losses\n"), 0) << stats;
  // One row per (thread, cause) whose last column is the count.
  std::multiset<uint64_t> rows;
  std::istringstream lines(stats.substr(title_end + 2));
  std::string line;
  while (std::getline(lines, line) && !line.empty()) {
    if (line.find("buffer_full") == std::string::npos) continue;
    rows.insert(std::stoull(line.substr(line.find_last_of(' ') + 1)));
  }
  std::multiset<uint64_t> expected;
  for (const auto& [key, count] : run.trace.losses) expected.insert(count);
  EXPECT_EQ(rows, expected) << stats;
  Dump(run, "verify");  // exits 0: the trace is clean despite the drops
}

TEST(Overflow, BlockModeCountsTimeoutsAsLosses) {
  // A 1 ms block timeout against a flusher held until every thread has
  // emitted its held pairs: every event beyond the ring waits and gives up.
  // No free pairs: once released, the flusher may fall behind again, and
  // each such wait would cost up to a millisecond more.
  OverflowRun run = RunOverflow("block", {"ITTC_OVERFLOW=block", "ITTC_BLOCK_TIMEOUT_MS=1"},
                                Release::kWhenDone, /*free_pairs=*/0);
  ExpectEveryEventAccountedFor(run, static_cast<int>(format::LossCause::kBlockTimeout));
  ExpectEveryThreadOverran(run);
  EXPECT_GE(run.blocked_reserves, run.trace.TotalLoss());
}

TEST(Overflow, BlockModeWaitsInsteadOfDropping) {
  // Released once every thread waits for room (BlockedReserves); a
  // 60 s timeout, which only a hang reaches, so nothing is dropped.
  OverflowRun run = RunOverflow(
      "block_wait", {"ITTC_OVERFLOW=block", "ITTC_BLOCK_TIMEOUT_MS=60000"}, Release::kWhenBlocked);
  ExpectEveryEventAccountedFor(run, static_cast<int>(format::LossCause::kBlockTimeout));
  EXPECT_EQ(run.trace.TotalLoss(), 0u);
  EXPECT_GE(run.blocked_reserves, static_cast<uint64_t>(kThreads));
}

// The session stops (__itt_detach) while every thread waits for room: each
// waiting call is dropped, and counted in the trace (the last round waits
// for the calls waiting to count their drops before it writes the losses).
TEST(Overflow, BlockModeCallsWaitingWhenTheSessionStopsAreCounted) {
  OverflowRun run =
      RunOverflow("block_detach", {"ITTC_OVERFLOW=block", "ITTC_BLOCK_TIMEOUT_MS=60000"},
                  Release::kWhenBlockedDetach);
  ExpectEveryEventAccountedFor(run, static_cast<int>(format::LossCause::kBlockTimeout));
  EXPECT_EQ(run.trace.TotalLoss(), static_cast<uint64_t>(kThreads));  // one call each
}

TEST(Overflow, BlockModeKeepsWaitingWhenPaused) {
  // Every thread waits for room when collection is paused, then the
  // flusher is released: the calls waiting were made before the pause and
  // are recorded, none dropped as a timeout (the rest, made while paused,
  // are not recorded, by design).
  OverflowRun run =
      RunOverflow("block_paused", {"ITTC_OVERFLOW=block", "ITTC_BLOCK_TIMEOUT_MS=60000"},
                  Release::kWhenBlockedThenPaused);
  EXPECT_TRUE(run.trace.has_end);
  EXPECT_EQ(run.trace.corruptions, 0);
  EXPECT_EQ(run.trace.TotalLoss(), 0u);
  EXPECT_GE(run.blocked_reserves, static_cast<uint64_t>(kThreads));
  // Each thread: its name, and every event up to the one that waited.
  auto tally = TallyByThreadName(run.trace);
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_GT(tally["worker-" + std::to_string(i)].events, kMostEventsInRing / 2) << i;
  }
}

}  // namespace
}  // namespace ittc::testing
