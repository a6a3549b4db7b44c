// Row 6: fork() without exec from a process with several tracing threads,
// while the flusher is writing. Parent and every child each write their own
// valid trace; a child's trace holds only the child's own events (nothing
// the parent recorded, not even the forking thread's unflushed events).
// Without %p in ITTC_OUTPUT a child writes "<path>.<pid>".

#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kChildren = 12;

struct Child {
  std::string pid;
  std::string outcome;
  uint64_t emitted = 0;
};

std::vector<Child> ReadChildren(const std::string& path) {
  std::vector<Child> children;
  for (const std::string& line : ReadLines(path)) {
    std::istringstream in(line);
    std::string word;
    Child c;
    if (in >> word >> c.pid >> c.outcome && word == "child") {
      in >> c.emitted;
      children.push_back(c);
    }
  }
  return children;
}

void ExpectValidEndedTrace(const TraceSummary& t, const std::string& what) {
  EXPECT_TRUE(t.has_end) << what;
  EXPECT_EQ(t.corruptions, 0) << what;
  EXPECT_EQ(t.truncations, 0) << what;
}

class ForkTest : public ::testing::TestWithParam<bool> {};

TEST_P(ForkTest, ParentAndChildrenWriteTheirOwnValidTraces) {
  const bool with_pid = GetParam();
  std::string dir = MakeTempDir(with_pid ? "fork_pid" : "fork_fixed");
  std::string pattern = dir + (with_pid ? "/trace-%p.itt" : "/trace.itt");
  pid_t pid = Spawn({Runfile("tests/reliability/fork_program"), std::to_string(kChildren)},
                    CollectorEnv(pattern), dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  ExitInfo exit = WaitFor(pid, 240);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");

  std::string parent_path =
      with_pid ? dir + "/trace-" + std::to_string(pid) + ".itt" : dir + "/trace.itt";
  auto parent = SummarizeTrace(parent_path);
  ASSERT_TRUE(parent.ok()) << parent.status();
  ExpectValidEndedTrace(*parent, "parent");
  EXPECT_EQ(parent->header.pid, static_cast<uint32_t>(pid));
  EXPECT_EQ(parent->CountNamed(format::EventKind::kMarker, "name", "parent-main"), kChildren);

  std::vector<Child> children = ReadChildren(dir + "/out");
  ASSERT_EQ(children.size(), static_cast<size_t>(kChildren)) << ReadFileOrEmpty(dir + "/out");
  for (const Child& c : children) {
    SCOPED_TRACE("child " + c.pid);
    ASSERT_EQ(c.outcome, "ok") << "a fork child hung or failed";
    std::string path = with_pid ? dir + "/trace-" + c.pid + ".itt" : dir + "/trace.itt." + c.pid;
    auto child = SummarizeTrace(path);
    ASSERT_TRUE(child.ok()) << child.status();
    ExpectValidEndedTrace(*child, "child");
    EXPECT_EQ(std::to_string(child->header.pid), c.pid);
    EXPECT_EQ(child->header.ppid, static_cast<uint32_t>(pid));
    // Only the child's own events: its three threads' task pairs.
    EXPECT_EQ(child->total_events + child->TotalLoss(), c.emitted);
    EXPECT_EQ(child->rare_events.size(), 0u) << "parent markers or thread names leaked";
    EXPECT_LE(child->events_per_thread.size(), 3u);
    for (const auto& [index, name] : child->thread_names) {
      EXPECT_EQ(name.rfind("worker-", 0), std::string::npos) << "parent thread " << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OutputPattern, ForkTest, ::testing::Bool());

}  // namespace
}  // namespace ittc::testing
