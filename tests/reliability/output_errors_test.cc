// Row 8: disk full (a small tmpfs; without mount rights, RLIMIT_FSIZE with
// SIGXFSZ ignored, which fails writes with EFBIG instead, runs as well), an unwritable
// output directory (a read-only tmpfs), an output path that is a directory.
// In each case the program runs to completion with correct output, the
// collector prints exactly one line on stderr, and nothing crashes.

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr long kRecords = 200000;
// Room for the trace: the file header, the definitions and the first
// events chunk must fit whatever the flusher's timing, and the program
// must write far more (about 16 MB before compression). The flusher closes
// an events chunk at 512 KiB of payload (kEventsChunkTarget in
// collector/internal/flusher.cc), checked every 256 events, and this data
// hardly compresses: a first chunk may take some 530 KiB. With 256 KiB of
// room, a flusher that fell behind wrote its first chunk past the limit and
// the trace held no event (seen under ASan).
constexpr uint64_t kRoomBytes = 1024 * 1024;
constexpr const char* kRoomOption = "size=1m";

// `started`: whether the collector could start (its trace file made), which
// is what iJIT_IsProfilingActive answers.
std::string ExpectedOutput(bool started) {
  unsigned long long per_thread = static_cast<unsigned long long>(kRecords) * (kRecords - 1) / 2;
  return std::string("jit_active ") + (started ? "1" : "0") + "\nresult " +
         std::to_string(2 * per_thread) + "\n";
}

// A private mount namespace for this test process, so mounts vanish with it.
bool PrivateMounts() {
  static const bool ok =
      unshare(CLONE_NEWNS) == 0 && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
  return ok;
}

bool MountTmpfs(const std::string& dir, const char* options, unsigned long flags) {
  return PrivateMounts() && mount("tmpfs", dir.c_str(), "tmpfs", flags, options) == 0;
}

struct Outcome {
  ExitInfo exit;
  std::string out;
  std::vector<std::string> collector_lines;
  std::string err;
};

Outcome RunProgramTo(const std::string& name, const std::string& trace_path) {
  Outcome o;
  std::string logs = MakeTempDir(name + "_logs");
  o.exit = RunFor({Runfile("tests/reliability/output_errors_program"), std::to_string(kRecords)},
                  CollectorEnv(trace_path), logs + "/out", logs + "/err", 120);
  o.out = ReadFileOrEmpty(logs + "/out");
  o.err = ReadFileOrEmpty(logs + "/err");
  o.collector_lines = CollectorLines(logs + "/err");
  return o;
}

void ExpectCompletedWithOneLine(const Outcome& o, const std::string& reason, bool started) {
  EXPECT_TRUE(ExitedCleanly(o.exit)) << Describe(o.exit) << "\n" << o.err;
  EXPECT_EQ(o.out, ExpectedOutput(started));
  ASSERT_EQ(o.collector_lines.size(), 1u) << o.err;
  EXPECT_NE(o.collector_lines[0].find(reason), std::string::npos) << o.collector_lines[0];
  // Nothing else on stderr either.
  EXPECT_EQ(o.err, o.collector_lines[0] + "\n");
}

TEST(OutputErrors, DiskFullStopsCollectionWithOneLine) {
  std::string dir = MakeTempDir("disk_full");
  std::string trace = dir + "/trace.itt";
  if (!MountTmpfs(dir, kRoomOption, 0)) {
    GTEST_SKIP() << "cannot mount a tmpfs (" << std::strerror(errno)
                 << "); FileSizeLimitStopsCollectionWithOneLine covers the same path";
  }
  Outcome o = RunProgramTo("disk_full", trace);
  // What fit on the disk still reads: truncated at worst, never corrupt.
  auto summary = SummarizeTrace(trace);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (summary.ok()) {
    EXPECT_EQ(summary->corruptions, 0);
    EXPECT_GT(summary->total_events, 0u);
  }
  umount2(dir.c_str(), MNT_DETACH);
  ExpectCompletedWithOneLine(o, "No space left on device", /*started=*/true);
}

// The same failure without mount rights: a file size limit fails the write
// with EFBIG (SIGXFSZ ignored, or the limit would kill the host itself).
TEST(OutputErrors, FileSizeLimitStopsCollectionWithOneLine) {
  std::string dir = MakeTempDir("file_size_limit");
  std::string trace = dir + "/trace.itt";
  rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit limit = old;
  limit.rlim_cur = kRoomBytes;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  sighandler_t old_handler = signal(SIGXFSZ, SIG_IGN);
  Outcome o = RunProgramTo("file_size_limit", trace);
  signal(SIGXFSZ, old_handler);
  setrlimit(RLIMIT_FSIZE, &old);
  ExpectCompletedWithOneLine(o, "File too large", /*started=*/true);
  auto summary = SummarizeTrace(trace);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->corruptions, 0);
  EXPECT_GT(summary->total_events, 0u);
}

TEST(OutputErrors, UnwritableDirectoryStopsCollectionWithOneLine) {
  std::string dir = MakeTempDir("read_only");
  std::string reason = "Read-only file system";
  std::string trace = dir + "/trace.itt";
  bool mounted = MountTmpfs(dir, "size=64k", MS_RDONLY);
  if (!mounted) {
    // /proc refuses new files even to root.
    trace = "/proc/self/trace.itt";
    reason = "cannot create trace file";
  }
  Outcome o = RunProgramTo("read_only", trace);
  if (mounted) umount2(dir.c_str(), MNT_DETACH);
  ExpectCompletedWithOneLine(o, reason, /*started=*/false);
}

TEST(OutputErrors, OutputPathThatIsADirectoryStopsCollectionWithOneLine) {
  std::string dir = MakeTempDir("is_directory");
  std::string trace = dir + "/trace.itt";
  ASSERT_EQ(mkdir(trace.c_str(), 0755), 0);
  Outcome o = RunProgramTo("is_directory", trace);
  ExpectCompletedWithOneLine(o, trace, /*started=*/false);
  struct stat st;
  ASSERT_EQ(stat(trace.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}

}  // namespace
}  // namespace ittc::testing
