// Row 7: the program closes every descriptor or reuses the trace's
// descriptor number. The collector never writes into the program's file:
// it reopens the trace by path and carries on (one line on stderr), or, if
// the trace cannot be reopened, stops and says so (one line).

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr char kVictimText[] = "the program's own file\n";

struct Outcome {
  std::string dir;
  std::string trace;
  std::string victim;
  ExitInfo exit;
  std::vector<std::string> collector_lines;
};

// Only a hang reaches it.
constexpr double kHangSeconds = 120;

void CreateFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  std::fclose(f);
}

// Runs the program through its two handshakes: it takes the descriptor away
// once the trace holds its first 1000 task pairs, and finishes once the
// collector has said what it did about it.
Outcome RunMode(const std::string& mode) {
  Outcome o;
  o.dir = MakeTempDir("descriptors_" + mode);
  o.trace = o.dir + "/trace.itt";
  o.victim = o.dir + "/victim.txt";
  FILE* f = std::fopen(o.victim.c_str(), "w");
  std::fputs(kVictimText, f);
  std::fclose(f);
  pid_t pid =
      Spawn({Runfile("tests/reliability/descriptors_program"), mode, o.trace, o.victim, o.dir},
            CollectorEnv(o.trace, {"ITTC_FLUSH_MS=20"}), o.dir + "/out", o.dir + "/err");
  EXPECT_GT(pid, 0);
  if (pid <= 0) return o;
  bool shook = !WaitForLine(o.dir + "/out", "recorded before", kHangSeconds).empty();
  auto before = WaitForTrace(
      o.trace, [](const TraceSummary& t) { return t.total_events >= 2000; }, kHangSeconds);
  shook = shook && before.ok() && before->total_events >= 2000;
  EXPECT_TRUE(shook) << "the first 1000 pairs never reached the trace";
  if (shook) CreateFile(o.dir + "/go-steal");
  shook = shook && !WaitForLine(o.dir + "/out", "recorded after", kHangSeconds).empty() &&
          !WaitForLine(o.dir + "/err", "ittcollector", kHangSeconds).empty();
  EXPECT_TRUE(shook) << "the collector never noticed the switch";
  if (shook) CreateFile(o.dir + "/go-finish");
  o.exit = WaitFor(pid, kHangSeconds);
  EXPECT_TRUE(ExitedCleanly(o.exit)) << Describe(o.exit) << ReadFileOrEmpty(o.dir + "/out");
  EXPECT_EQ(ReadFileOrEmpty(o.victim), kVictimText)
      << "the collector wrote into the program's file";
  o.collector_lines = CollectorLines(o.dir + "/err");
  return o;
}

bool DefinesString(const TraceSummary& t, const std::string& text) {
  for (const auto& [id, s] : t.strings) {
    if (s == text) return true;
  }
  return false;
}

void ExpectReopenedAndComplete(const Outcome& o) {
  ASSERT_EQ(o.collector_lines.size(), 1u) << ReadFileOrEmpty(o.dir + "/err");
  EXPECT_NE(o.collector_lines[0].find("reopened"), std::string::npos) << o.collector_lines[0];
  auto trace = SummarizeTrace(o.trace);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->has_end);
  EXPECT_EQ(trace->corruptions, 0);
  EXPECT_EQ(trace->truncations, 0);
  // 3000 task pairs plus nothing lost: events after the switch are there.
  EXPECT_EQ(trace->total_events + trace->TotalLoss(), 6000u);
  EXPECT_TRUE(DefinesString(*trace, "after"));
}

TEST(Descriptors, ClosingEveryDescriptorReopensTheTrace) {
  ExpectReopenedAndComplete(RunMode("close_all"));
}

TEST(Descriptors, Dup2OverTheTraceDescriptorReopensTheTrace) {
  ExpectReopenedAndComplete(RunMode("dup2"));
}

TEST(Descriptors, TraceThatCannotBeReopenedStopsCollectionWithOneLine) {
  Outcome o = RunMode("close_move");
  ASSERT_EQ(o.collector_lines.size(), 1u) << ReadFileOrEmpty(o.dir + "/err");
  EXPECT_NE(o.collector_lines[0].find("stops"), std::string::npos) << o.collector_lines[0];
  // What was written before stays readable: truncated or ended, not corrupt.
  auto trace = SummarizeTrace(o.trace + ".moved");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(trace->corruptions, 0);
  EXPECT_FALSE(trace->has_end);
  EXPECT_EQ(trace->total_events, 2000u);  // the first 1000 pairs
}

}  // namespace
}  // namespace ittc::testing
