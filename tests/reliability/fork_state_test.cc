// Row 6c: a fork child starts from its thread's own state, not from what its
// parent's flusher had read, and from a fresh session after its parent's
// trace failed (fork_state_program.cc).

#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

using format::EventKind;

// The child's pid from the program's "child <pid> <tasks>" line.
std::string ChildPid(const std::string& out_path) {
  for (const std::string& line : ReadLines(out_path)) {
    std::istringstream in(line);
    std::string role, pid;
    if (in >> role >> pid && role == "child") return pid;
  }
  return "";
}

TEST(ForkState, AnIgnoredNamedThreadStaysSoInTheChild) {
  const std::string dir = MakeTempDir("fork_ignore");
  const std::string path = dir + "/trace.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/fork_state_program"), "ignore"},
                         CollectorEnv(path), dir + "/out", dir + "/err", 120);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << ReadFileOrEmpty(dir + "/err");
  const std::string child = ChildPid(dir + "/out");
  ASSERT_FALSE(child.empty()) << ReadFileOrEmpty(dir + "/out");
  auto trace = LoadTrace(path + "." + child);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->has_end);
  // The ignored thread recorded its control calls only.
  EXPECT_TRUE(trace->OfKind(EventKind::kTaskBegin).empty());
  EXPECT_EQ(trace->OfKind(EventKind::kPause).size(), 1u);
  ASSERT_EQ(trace->threads.size(), 1u);
  EXPECT_TRUE(trace->threads.begin()->second.ignored);
  EXPECT_EQ(trace->thread_names.begin()->second, "parent-main");
}

TEST(ForkState, AChildOfAParentWhoseTraceFailedRecordsItsOwn) {
  const std::string dir = MakeTempDir("fork_failed");
  ExitInfo exit = RunFor({Runfile("tests/reliability/fork_state_program"), "failed"},
                         CollectorEnv(dir + "/parent-%p.itt"), dir + "/out", dir + "/err", 120);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << ReadFileOrEmpty(dir + "/err");
  const std::string child = ChildPid(dir + "/out");
  ASSERT_FALSE(child.empty()) << ReadFileOrEmpty(dir + "/out");
  auto trace = LoadTrace(dir + "/parent-" + child + ".itt");
  ASSERT_TRUE(trace.ok()) << trace.status() << ReadFileOrEmpty(dir + "/err");
  EXPECT_TRUE(trace->has_end);
  EXPECT_EQ(trace->OfKind(EventKind::kTaskBegin).size(), 100u);
  EXPECT_EQ(trace->TotalLoss(), 0u);
}

}  // namespace
}  // namespace ittc::testing
