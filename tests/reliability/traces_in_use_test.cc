// Row 6d: with a fixed ITTC_OUTPUT (no %p), a process whose trace would
// begin where a trace still in use lies writes beside it instead of over
// it: after exec (same pid; the image before it wrote its trace, which
// reads as cut, as a kill leaves it), and a process forked before its
// parent's first ITT call (the later one of the two). The trace kept has
// every event it had; the new one is `<path>.<pid>`; one warning says so.

#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

struct Image {
  std::string role;
  std::string pid;
  uint64_t emitted = 0;
  uint64_t written = 0;  // of them, certainly written before the image ended
};

std::vector<Image> Images(const std::string& out) {
  std::vector<Image> images;
  for (const std::string& line : ReadLines(out)) {
    std::istringstream in(line);
    Image i;
    if (in >> i.role >> i.pid >> i.emitted >> i.written) images.push_back(i);
  }
  return images;
}

// The trace at `file`: `pid`'s, ended or cut; every event of `written` in
// it or lost, and none beyond `emitted`.
void ExpectTrace(const std::string& file, const Image& image, bool ended) {
  SCOPED_TRACE(file);
  auto trace = LoadTrace(file);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(std::to_string(trace->header.pid), image.pid);
  EXPECT_EQ(trace->has_end, ended);
  EXPECT_EQ(trace->corruptions, 0);
  uint64_t recorded = 0;
  for (const auto& [thread, count] : trace->event_counts) recorded += count;
  EXPECT_GE(recorded + trace->TotalLoss(), image.written);
  EXPECT_LE(recorded + trace->TotalLoss(), image.emitted);
}

// The program in `mode` with its trace at DIR/trace.itt: its two images'
// reports, or a failure.
struct ProgramRun {
  std::string dir;
  std::string path;
  std::vector<Image> images;
};
void RunProgram(const std::string& mode, ProgramRun* run) {
  run->dir = MakeTempDir("traces_in_use_" + mode);
  run->path = run->dir + "/trace.itt";
  const std::string& dir = run->dir;
  ExitInfo exit = RunFor({Runfile("tests/reliability/traces_in_use_program"), mode},
                         CollectorEnv(run->path), dir + "/out", dir + "/err", 120);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << ReadFileOrEmpty(dir + "/err");
  run->images = Images(dir + "/out");
  ASSERT_EQ(run->images.size(), 2u) << ReadFileOrEmpty(dir + "/out");
}

TEST(TracesInUse, AnExecdImageWritesBesideTheTraceOfTheImageBefore) {
  ProgramRun run;
  ASSERT_NO_FATAL_FAILURE(RunProgram("exec", &run));
  const std::string& dir = run.dir;
  const std::string& path = run.path;
  const std::vector<Image>& images = run.images;
  ASSERT_EQ(images[0].role, "before");
  ASSERT_EQ(images[1].role, "after");
  ASSERT_EQ(images[0].pid, images[1].pid);  // exec keeps the pid
  // The image before exec had no exit: its trace is cut, its events there
  // (it waited for the flusher to write them) but perhaps the last pair of
  // its wait, which may follow the start of the round it waited for (in 1
  // of the ASan runs of 2026-12-01).
  ExpectTrace(path, images[0], /*ended=*/false);
  ExpectTrace(path + "." + images[1].pid, images[1], /*ended=*/true);
  const std::vector<std::string> warnings = CollectorLines(dir + "/err");
  ASSERT_EQ(warnings.size(), 1u) << ReadFileOrEmpty(dir + "/err");
  EXPECT_NE(warnings[0].find("that path with \"." + images[1].pid + "\" added"), std::string::npos)
      << warnings[0];
}

TEST(TracesInUse, TheLaterOfTwoProcessesWritesBesideTheOthersTrace) {
  ProgramRun run;
  ASSERT_NO_FATAL_FAILURE(RunProgram("fork", &run));
  const std::string& dir = run.dir;
  const std::string& path = run.path;
  const std::vector<Image>& images = run.images;
  ASSERT_EQ(images[0].role, "child");
  ASSERT_EQ(images[1].role, "parent");
  ExpectTrace(path, images[0], /*ended=*/true);
  ExpectTrace(path + "." + images[1].pid, images[1], /*ended=*/true);
  EXPECT_EQ(CollectorLines(dir + "/err").size(), 1u) << ReadFileOrEmpty(dir + "/err");
}

}  // namespace
}  // namespace ittc::testing
