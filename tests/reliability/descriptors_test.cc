// Row 7: the program closes every descriptor or reuses the trace's
// descriptor number. The collector never writes into the program's file:
// it reopens the trace by path and carries on (one line on stderr), or, if
// the trace cannot be reopened, stops and says so (one line).

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

Outcome RunMode(const std::string& mode) {
  Outcome o;
  o.dir = MakeTempDir("descriptors_" + mode);
  o.trace = o.dir + "/trace.itt";
  o.victim = o.dir + "/victim.txt";
  FILE* f = std::fopen(o.victim.c_str(), "w");
  std::fputs(kVictimText, f);
  std::fclose(f);
  o.exit = RunFor({Runfile("tests/reliability/descriptors_program"), mode, o.trace, o.victim},
                  CollectorEnv(o.trace, {"ITTC_FLUSH_MS=20"}), o.dir + "/out", o.dir + "/err", 60);
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
