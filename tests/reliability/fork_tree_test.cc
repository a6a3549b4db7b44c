// Row 6b: forks of forks without exec, with a fixed ITTC_OUTPUT (no %p).
// Every process of the tree writes a valid trace of its own: the top one
// "<path>", every other "<path>.<pid>", a grandchild's never into the top
// one's (its parent's path has the suffix already), and a process forked
// before its parent's first call names its own thread, not its parent's.

#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

struct Process {
  std::string role;
  std::string pid;
  std::string ppid;
  uint64_t emitted = 0;
};

TEST(ForkTree, EveryProcessOfATreeWritesItsOwnTrace) {
  const std::string dir = MakeTempDir("fork_tree");
  const std::string path = dir + "/trace.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/fork_tree_program")}, CollectorEnv(path),
                         dir + "/out", dir + "/err", 120);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << ReadFileOrEmpty(dir + "/err");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
  std::vector<Process> processes;
  for (const std::string& line : ReadLines(dir + "/out")) {
    std::istringstream in(line);
    Process p;
    if (in >> p.role >> p.pid >> p.ppid >> p.emitted) processes.push_back(p);
  }
  ASSERT_EQ(processes.size(), 5u) << ReadFileOrEmpty(dir + "/out");
  for (const Process& p : processes) {
    SCOPED_TRACE(p.role + " " + p.pid);
    const std::string file = p.role == "P" ? path : path + "." + p.pid;
    auto trace = LoadTrace(file);
    ASSERT_TRUE(trace.ok()) << trace.status();
    EXPECT_TRUE(trace->has_end);
    EXPECT_EQ(trace->corruptions, 0);
    EXPECT_EQ(trace->truncations, 0);
    EXPECT_EQ(std::to_string(trace->header.pid), p.pid);
    EXPECT_EQ(std::to_string(trace->header.ppid), p.ppid);
    uint64_t recorded = 0;
    for (const auto& [thread, count] : trace->event_counts) recorded += count;
    EXPECT_EQ(recorded + trace->TotalLoss(), p.emitted);
    // One thread, the process's main one: its tid is the pid.
    ASSERT_EQ(trace->threads.size(), 1u);
    EXPECT_EQ(std::to_string(trace->threads.begin()->second.tid), p.pid);
  }
}

}  // namespace
}  // namespace ittc::testing
