// Real multi-process runs read as one: a fork tree (parent, two children, a
// grandchild) recorded with ITTC_OUTPUT=DIR/ and read as a directory. What
// is checked is structural and causal, never timing: one trace per process,
// the parent links, every task counted once, and the parent's last task
// after every child's on the merged timeline (it waited for them).

#include <sys/wait.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"
#include "tests/tools/dump_runner.h"
#include "tools/itt_dump/cli.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/trace_set.h"

namespace ittc::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

// Runs the fork tree under the collector; returns the directory of its
// traces.
std::string RunForkTree(const std::string& name) {
  const std::string dir = MakeTempDir(name);
  const std::string out = dir + "/traces/";
  const int status = RunProgram(
      {Runfile("tests/tools/fork_tree_program")},
      {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"), "ITTC_OUTPUT=" + out},
      dir + "/stdout.txt", dir + "/stderr.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return out;
}

// The traces of a directory as RunDump's in-memory files "PREFIX/NAME".
std::map<std::string, std::string> ReadDir(const std::string& dir, const std::string& prefix,
                                           std::map<std::string, std::string> into = {}) {
  absl::StatusOr<std::vector<std::string>> files = itt_dump::ExpandTraceArgument(dir);
  EXPECT_TRUE(files.ok()) << files.status();
  if (!files.ok()) return into;
  for (const std::string& f : *files) into[prefix + "/" + f.substr(f.rfind('/') + 1)] = ReadFile(f);
  return into;
}

TEST(ForkTree, TwoRunsOfTheTreeDiffTaskByTask) {
  std::map<std::string, std::string> traces = ReadDir(RunForkTree("tree_base"), "base");
  traces = ReadDir(RunForkTree("tree_next"), "next", std::move(traces));
  ASSERT_EQ(traces.size(), 8u);
  const itt_dump::testing::DumpResult r =
      itt_dump::testing::RunDump({"diff", "--format=csv", "base", "next"}, traces);
  ASSERT_EQ(r.status, 0) << r.err;
  // Every task in both runs, with the same counts (timing may differ).
  for (const char* row : {"tree,parent,task,both,1,", "tree,child,task,both,2,",
                          "tree,grandchild,task,both,1,", "tree,parent_end,task,both,1,"}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find(",new,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(",gone,"), std::string::npos) << r.out;
}

TEST(ForkTree, EveryProcessHasItsTraceAndTheDirectoryReadsAsOneRun) {
  const std::string out = RunForkTree("fork_tree");

  absl::StatusOr<std::vector<std::string>> files = itt_dump::ExpandTraceArgument(out);
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 4u);
  std::vector<itt_dump::TraceSource> sources;
  for (const std::string& f : *files) sources.push_back(itt_dump::TraceSource::File(f));
  const itt_dump::TraceSet set = itt_dump::TraceSet::Open(std::move(sources), {});
  ASSERT_EQ(set.files().size(), 4u);
  ASSERT_TRUE(set.failures().empty());
  EXPECT_EQ(set.alignment(), itt_dump::TimeAlignment::kSharedTsc);

  // The tree: one root whose pid is two processes' ppid; the grandchild's
  // ppid is a child's pid.
  std::map<uint32_t, uint32_t> parent_of;
  for (const itt_dump::TraceFile& f : set.files()) {
    EXPECT_TRUE(f.index->has_end) << f.index->name;
    parent_of[f.index->header.pid] = f.index->header.ppid;
  }
  ASSERT_EQ(parent_of.size(), 4u);
  uint32_t root = 0;
  for (const auto& [pid, ppid] : parent_of) {
    if (parent_of.count(ppid) == 0) {
      EXPECT_EQ(root, 0u) << "two roots";
      root = pid;
    }
  }
  ASSERT_NE(root, 0u);
  std::set<uint32_t> children;
  for (const auto& [pid, ppid] : parent_of) {
    if (ppid == root) children.insert(pid);
  }
  ASSERT_EQ(children.size(), 2u);
  int grandchildren = 0;
  for (const auto& [pid, ppid] : parent_of) grandchildren += children.count(ppid);
  EXPECT_EQ(grandchildren, 1);

  // The merged timeline: the root's parent_end begins after every other
  // process's tasks ended.
  struct Collect : itt_dump::IntervalListener {
    const itt_dump::TraceSet* set = nullptr;
    std::map<std::string, int> count;
    uint64_t parent_end_begin = 0;
    uint64_t others_last_end = 0;
    uint32_t root = 0;
    void OnInterval(const itt_dump::Interval& iv) override {
      const std::string name = itt_dump::IntervalName(set->index(), iv);
      ++count[name];
      if (name == "parent_end") parent_end_begin = iv.begin;
      if (set->FileOf(*iv.thread).index->header.pid != root) {
        others_last_end = std::max(others_last_end, iv.end);
      }
    }
  } c;
  c.set = &set;
  c.root = root;
  itt_dump::IntervalTracker tracker(set.index(), &c);
  itt_dump::TraceSetMerger merger(set, {});
  const format::Event* e;
  const itt_dump::ThreadRec* t;
  uint64_t last = 0;
  while (merger.Next(&e, &t)) {
    tracker.OnEvent(*e, *t);
    last = e->time;
  }
  tracker.Finish(last);
  EXPECT_EQ(c.count, (std::map<std::string, int>{
                         {"parent", 1}, {"child", 2}, {"grandchild", 1}, {"parent_end", 1}}));
  EXPECT_GT(c.others_last_end, 0u);
  EXPECT_GE(c.parent_end_begin, c.others_last_end);

  // The same through the command line: the directory is one argument.
  const std::map<std::string, std::string> traces = ReadDir(out, "tree");
  const itt_dump::testing::DumpResult stats =
      itt_dump::testing::RunDump({"stats", "--format=csv", "tree"}, traces);
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("tree,child,task,2,"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("tree,grandchild,task,1,"), std::string::npos) << stats.out;
  const itt_dump::testing::DumpResult text =
      itt_dump::testing::RunDump({"text", "--name=parent_end", "tree"}, traces);
  EXPECT_NE(text.out.find(" p" + std::to_string(root) + ":"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace ittc::testing
