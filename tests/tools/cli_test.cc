// The command line: --help of every verb, usage errors, and the real
// binary piped into a reader that goes away early (`itt-dump text | head`):
// it exits 0 quietly, without SIGPIPE, and never shows a progress line when
// stderr is not a terminal.

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Cli, EveryVerbHasHelp) {
  for (const char* verb : {"text", "info", "stats", "chrome", "vtune-csv", "verify"}) {
    DumpResult r = RunDump({verb, "--help"}, "");
    EXPECT_EQ(r.status, 0) << verb;
    EXPECT_NE(r.out.find(std::string("usage: itt-dump ")), std::string::npos) << verb;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(RunDump({"help", verb}, "").out, r.out) << verb;
  }
  DumpResult top = RunDump({"--help"}, "");
  EXPECT_EQ(top.status, 0);
  EXPECT_NE(top.out.find("vtune-csv"), std::string::npos);
  EXPECT_NE(RunDump({"stats", "--help"}, "").out.find("--per-thread"), std::string::npos);
  EXPECT_NE(RunDump({"text", "-h"}, "").out.find("--thread=ID|NAME"), std::string::npos);
}

TEST(Cli, UsageErrorsAre64WithOneHint) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"stats"},
      {"stats", "--format=xml", "trace.itt"},
      {"vtune-csv", "trace.itt"},
      {"stats", "--per-process=yes", "trace.itt"},
      {"text", "--bogus", "trace.itt"},
      {"info", "--thread=1", "trace.itt"},
      {"text", "--from=abc", "trace.itt"},
      {"verify", "-o", "x", "trace.itt"},
      {"chrome", "trace.itt", "-o"},
  };
  for (const auto& args : bad) {
    DumpResult r = RunDump(args, SampleTrace());
    EXPECT_EQ(r.status, 64) << (args.empty() ? "" : args[0]);
    EXPECT_NE(r.err.find("Try 'itt-dump --help'."), std::string::npos);
    EXPECT_EQ(r.out, "");
  }
}

TEST(Cli, ChromeWithoutOutputWritesToStdout) {
  DumpResult r = RunDump({"chrome", "trace.itt"}, SampleTrace());
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("{\"traceEvents\":[", 0), 0u);
  EXPECT_TRUE(r.files.empty());
}

TEST(Cli, OutputFileErrorsAre73) {
  DumpResult r = RunDump({"chrome", "trace.itt", "-o", "/nonexistent/x.json"}, SampleTrace());
  EXPECT_EQ(r.status, 73);
  EXPECT_NE(r.err.find("/nonexistent/x.json"), std::string::npos);
  DumpResult v = RunDump({"vtune-csv", "trace.itt", "-o", "/nonexistent/d"}, SampleTrace());
  EXPECT_EQ(v.status, 73);
}

// Thread 1's only chunk comes after about 2 MiB of thread 0's payloads but
// starts before all of them.
std::string LaggingThreadTrace() {
  TraceBuilder b;
  b.String(1, "m").Domain(1, "d").Thread(0, 10, "busy").Thread(1, 11, "late");
  uint64_t time = 1000;
  for (int c = 0; c < 8; ++c) {
    std::vector<format::Event> events;
    for (int i = 0; i < 40000; ++i) {
      time += 3;
      events.push_back(
          Ev(format::EventKind::kMarker, time,
             {{F::kDomain, U(1)}, {F::kId, I(1000000 + i)}, {F::kName, U(1)}, {F::kScope, U(1)}}));
    }
    b.Events(0, events);
  }
  b.Events(1, {Ev(format::EventKind::kMarker, 1001,
                  {{F::kDomain, U(1)}, {F::kName, U(1)}, {F::kScope, U(1)}})});
  return b.bytes();
}

TEST(Cli, MergeBoundExceededIsReportedAndDefaultBoundKeepsOrder) {
  const std::string trace = LaggingThreadTrace();
  DumpResult small = RunDump({"text", "--lookahead-mb=1", "trace.itt"}, trace);
  EXPECT_EQ(small.status, 0);
  EXPECT_NE(small.err.find("itt-dump: trace.itt: 1 events out of time order"), std::string::npos)
      << small.err;
  DumpResult normal = RunDump({"text", "trace.itt"}, trace);
  EXPECT_EQ(normal.status, 0);
  EXPECT_EQ(normal.err, "");
  EXPECT_EQ(normal.out.rfind("1 11/late marker d \"m\"", 0), 0u) << normal.out.substr(0, 200);
  EXPECT_EQ(std::count(normal.out.begin(), normal.out.end(), '\n'), 8 * 40000 + 1);
}

// --serial makes the verbs that read on every core (stats in pieces, text
// in two passes) read on one: the same output.
TEST(Cli, SerialPrintsWhatEveryCorePrints) {
  const std::string trace = FrameTrace(4, 3000);
  for (const std::string verb : {"text", "stats"}) {
    DumpResult every = RunDump({verb, "trace.itt"}, trace);
    DumpResult serial = RunDump({verb, "--serial", "trace.itt"}, trace);
    EXPECT_EQ(serial.status, 0) << verb;
    EXPECT_EQ(serial.out, every.out) << verb;
    EXPECT_EQ(serial.err, every.err) << verb;
    EXPECT_GT(serial.out.size(), 500u) << verb;
  }
}

std::string BinaryPath() {
  const char* dir = std::getenv("TEST_SRCDIR");
  return std::string(dir != nullptr ? dir : ".") + "/ittcollector/tools/itt-dump";
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(Cli, ClosedPipeEndsQuietlyWithStatusZero) {
  const std::string trace = TempPath("big.itt");
  {
    std::ofstream f(trace, std::ios::binary);
    f << SyntheticTrace(4, 200000, 65536);  // 800k lines of text
  }
  const std::string err_path = TempPath("stderr.txt");
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Default SIGPIPE disposition, as a shell gives it.
    signal(SIGPIPE, SIG_DFL);
    dup2(pipefd[1], STDOUT_FILENO);
    close(pipefd[0]);
    close(pipefd[1]);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, STDERR_FILENO);
    const std::string bin = BinaryPath();
    execl(bin.c_str(), bin.c_str(), "text", trace.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipefd[1]);
  // Read the first line, like `head -1`, then go away.
  std::string first;
  char c;
  while (read(pipefd[0], &c, 1) == 1 && c != '\n') first.push_back(c);
  close(pipefd[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(first.rfind("37 1000/thread task_begin bench \"outer\"", 0), 0u) << first;
  EXPECT_EQ(ReadFile(err_path), "");
}

// In a child: execs itt-dump `verb[0]` with `inputs`, then the rest of
// `verb`, its stdout to /dev/null and its stderr to `err_path`.
[[noreturn]] void ExecVerb(const std::vector<std::string>& verb,
                           const std::vector<std::string>& inputs, const std::string& err_path) {
  const int out = open("/dev/null", O_WRONLY);
  dup2(out, STDOUT_FILENO);
  const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(err, STDERR_FILENO);
  const std::string bin = BinaryPath();
  std::vector<std::string> args = {bin, verb[0]};
  args.insert(args.end(), inputs.begin(), inputs.end());
  args.insert(args.end(), verb.begin() + 1, verb.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(bin.c_str(), argv.data());
  _exit(127);
}

// A pipe reads once: the verbs that read the trace twice find nothing the
// second time. That is the input's failure (truncated, 1, with a hint),
// not the output's (73), for every verb that reads twice.
TEST(Cli, ATraceThatReadsOnlyOnceIsAnInputFailure) {
  const std::string trace = TempPath("once.itt");
  {
    std::ofstream f(trace, std::ios::binary);
    f << SampleTrace();
  }
  const std::vector<std::vector<std::string>> verbs = {{"stats"},
                                                       {"text"},
                                                       {"leaks"},
                                                       {"chrome"},
                                                       {"perfetto", "-o", TempPath("once.pftrace")},
                                                       {"parquet", "-o", TempPath("once.pq")},
                                                       {"vtune-csv", "-o", TempPath("once.vt")},
                                                       {"diff", trace}};
  for (const std::vector<std::string>& verb : verbs) {
    const std::string err_path = TempPath("once.err");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int in = open(trace.c_str(), O_RDONLY);
      int pipefd[2];
      if (in < 0 || pipe(pipefd) != 0) _exit(126);
      // A child of this child copies the trace into the pipe: stdin.
      if (fork() == 0) {
        close(pipefd[0]);
        char buf[4096];
        for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;) {
          if (write(pipefd[1], buf, static_cast<size_t>(n)) != n) break;
        }
        _exit(0);
      }
      dup2(pipefd[0], STDIN_FILENO);
      close(pipefd[0]);
      close(pipefd[1]);
      ExecVerb(verb, {"/dev/stdin"}, err_path);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << verb[0];
    EXPECT_EQ(WEXITSTATUS(status), 1) << verb[0] << ": " << ReadFile(err_path);
    EXPECT_NE(ReadFile(err_path).find("itt-dump reads FILE twice: a file, not a pipe"),
              std::string::npos)
        << verb[0] << ": " << ReadFile(err_path);
  }
}

// Whether process `pid` has file `path` (its real path) open.
bool HasOpen(pid_t pid, const std::string& path) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  bool open = false;
  while (const dirent* e = readdir(d)) {
    char target[4096];
    const ssize_t n = readlink((dir + "/" + e->d_name).c_str(), target, sizeof target);
    if (n > 0 && std::string(target, static_cast<size_t>(n)) == path) open = true;
  }
  closedir(d);
  return open;
}

// Opens FIFO `path` for writing once a reader has it open, unless `child`
// exits first (then -1).
int OpenWhenRead(const std::string& path, pid_t child, int* status) {
  for (;;) {
    const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
      fcntl(fd, F_SETFL, 0);  // blocking writes
      return fd;
    }
    if (waitpid(child, status, WNOHANG) == child) return -1;
    usleep(1000);  // (waits for the reader, not for time: no deadline here)
  }
}

// A file cut between the index pass and the verb's own: through a FIFO,
// the first reading gets the whole trace and the second its first part.
// The verb says so and fails as a truncated input (1); parquet leaves no
// table named as if whole.
TEST(Cli, ATraceCutWhileItIsReadFailsTheVerb) {
  signal(SIGPIPE, SIG_IGN);
  const std::string trace = FrameTrace(2, 2000);
  const std::vector<std::vector<std::string>> verbs = {
      {"stats"}, {"parquet", "-o", TempPath("cut.pq")}, {"chrome", "-o", TempPath("cut.json")}};
  std::filesystem::remove_all(TempPath("cut.pq"));
  for (const std::vector<std::string>& verb : verbs) {
    const std::string fifo = TempPath("cut.fifo");
    unlink(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const std::string err_path = TempPath("cut.err");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ExecVerb(verb, {"--no-progress", fifo}, err_path);
    // Every reading after the first (the verb's own pass, and any
    // other) gets the cut trace, until the verb exits.
    int status = 0;
    int readings = 0;
    char real[PATH_MAX];
    ASSERT_NE(realpath(fifo.c_str(), real), nullptr);
    for (int fd; (fd = OpenWhenRead(fifo, pid, &status)) >= 0;) {
      const size_t bytes = readings++ == 0 ? trace.size() : trace.size() * 3 / 5;
      for (size_t done = 0; done < bytes;) {
        const ssize_t n = write(fd, trace.data() + done, bytes - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      // The reader's descriptor may come after our open: wait for it (it
      // stays until our close ends the data), then for the reader to close
      // it, so that the next open is a new reading (a reader waiting in
      // open() has no descriptor yet).
      bool gone = false;
      while (!HasOpen(pid, real) && !gone) {
        gone = waitpid(pid, &status, WNOHANG) == pid;
        if (!gone) usleep(1000);
      }
      close(fd);
      if (gone) break;
      while (HasOpen(pid, real)) usleep(1000);
    }
    EXPECT_EQ(readings, 2) << verb[0];
    ASSERT_TRUE(WIFEXITED(status)) << verb[0];
    const std::string err = ReadFile(err_path);
    EXPECT_EQ(WEXITSTATUS(status), 1) << verb[0] << ": " << err;
    EXPECT_NE(err.find("changed while it was read: the second reading ended at byte"),
              std::string::npos)
        << verb[0] << ": " << err;
    if (verb[0] == "parquet") {
      EXPECT_TRUE(FilesUnder(TempPath("cut.pq")).empty()) << "a table left named as if whole";
    }
  }
}

// An output that names one of the input traces (by another spelling too)
// is refused before anything is written: the trace stays whole.
TEST(Cli, AnOutputThatIsTheInputIsRefusedAndTheTraceKept) {
  const std::string trace = TempPath("input.itt");
  const std::string bytes = FrameTrace(2, 100);
  WriteFile(trace, bytes);
  const std::string dir = trace.substr(0, trace.rfind('/'));
  const std::string err_path = TempPath("same_stderr.txt");
  for (const std::string verb : {"chrome", "perfetto"}) {
    const std::string cmd =
        BinaryPath() + " " + verb + " " + trace + " -o " + dir + "/./input.itt 2> " + err_path;
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << verb;
    EXPECT_EQ(WEXITSTATUS(status), 73) << verb;
    const std::string err = ReadFile(err_path);
    EXPECT_NE(err.find("is the input trace"), std::string::npos) << verb << ": " << err;
    EXPECT_EQ(ReadFile(trace), bytes) << verb;
  }
}

// An output that fails (a full disk) stops the pass where it is: the
// tasks and frames open there are not reported as the trace's unbalanced
// ones, only the failure is, with status 73.
TEST(Cli, AFullDiskIsReportedAloneWithStatus73) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full here";
  const std::string trace = TempPath("frames.itt");
  WriteFile(trace, FrameTrace(4, 30000));
  const std::string err_path = TempPath("full_stderr.txt");
  for (const std::string verb :
       {"chrome", "chrome --serial", "perfetto -o /dev/full", "perfetto --serial -o /dev/full"}) {
    const std::string cmd = BinaryPath() + " " + verb + " " + trace + " > /dev/full 2> " + err_path;
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << verb;
    EXPECT_EQ(WEXITSTATUS(status), 73) << verb;
    const std::string err = ReadFile(err_path);
    EXPECT_NE(err.find("No space left on device"), std::string::npos) << verb << ": " << err;
    EXPECT_EQ(err.find("unbalanced"), std::string::npos) << verb << ": " << err;
  }
  // The trace is balanced: written whole, nothing is reported.
  const std::string ok = BinaryPath() + " chrome " + trace + " > /dev/null 2> " + err_path;
  ASSERT_EQ(std::system(ok.c_str()), 0);
  EXPECT_EQ(ReadFile(err_path), "");
}

TEST(Cli, RealBinaryWritesCompleteOutput) {
  const std::string trace = TempPath("sample.itt");
  WriteFile(trace, SampleTrace());
  const std::string out = TempPath("out.txt");
  const std::string cmd = BinaryPath() + " stats --format=csv " + trace + " > " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string csv = ReadFile(out);
  EXPECT_NE(csv.find("jit,1,0,0,0,256\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
