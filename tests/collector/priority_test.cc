// The flusher thread runs at ITTC_FLUSHER_NICE (default -10) when the
// process may give it that value, and otherwise at its own, with a warning
// only for a value the user asked for.

#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "collector/internal/settings.h"
#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

struct Priorities {
  std::vector<int> flusher;  // one per ittc-flusher thread
  int main = 0;
  std::string stderr_text;
};

// util-linux's setpriv (in every Debian system): runs a program with fewer
// capabilities.
constexpr char kSetpriv[] = "/usr/bin/setpriv";

// Runs priority_program under the collector with `env` added; with
// `drop_nice_capability`, through setpriv without CAP_SYS_NICE.
Priorities RunUnderCollector(const std::string& name, const std::vector<std::string>& env,
                             bool drop_nice_capability = false) {
  const std::string dir = MakeTempDir(name);
  std::vector<std::string> full = {
      "INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
      "ITTC_OUTPUT=" + dir + "/priority.itt"};
  full.insert(full.end(), env.begin(), env.end());
  std::vector<std::string> argv;
  if (drop_nice_capability) {
    argv = {kSetpriv, "--bounding-set=-sys_nice", "--inh-caps=-sys_nice"};
  }
  argv.push_back(Runfile("tests/collector/priority_program"));
  const int status = RunProgram(argv, full, dir + "/stdout.txt", dir + "/stderr.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  Priorities p;
  std::ifstream out(dir + "/stdout.txt");
  std::string word;
  int value = 0;
  while (out >> word >> value) {
    if (word == "flusher") p.flusher.push_back(value);
    if (word == "main") p.main = value;
  }
  std::stringstream err;
  err << std::ifstream(dir + "/stderr.txt").rdbuf();
  p.stderr_text = err.str();
  return p;
}

// Whether a thread of this process (with the credentials and limits the
// program inherits) may take nice `value`: tried on a thread of its own.
bool MayTakeNice(int value) {
  bool ok = false;
  std::thread([&] {
    ok = setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), value) == 0;
  }).join();
  return ok;
}

int OwnNice() {
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, 0);
  EXPECT_EQ(errno, 0);
  return nice;
}

TEST(FlusherPriority, TakesARaisedValue) {
  // Raising a nice value needs no privilege.
  const int wanted = std::min(OwnNice() + 5, collector_internal::kMaxNice);
  const Priorities p =
      RunUnderCollector("priority_raised", {"ITTC_FLUSHER_NICE=" + std::to_string(wanted)});
  ASSERT_EQ(p.flusher.size(), 1u);
  EXPECT_EQ(p.flusher[0], wanted);
  EXPECT_EQ(p.main, OwnNice());  // the application's threads keep theirs
  EXPECT_EQ(p.stderr_text, "");
}

// Checks a run with the default: the flusher at the default where the
// program may take it, else between it and its own, silently.
void ExpectDefault(const Priorities& p, bool permitted) {
  const int wanted = collector_internal::Settings().flusher_nice;
  ASSERT_EQ(p.flusher.size(), 1u);
  if (permitted) {
    EXPECT_EQ(p.flusher[0], wanted);
  } else {
    // What RLIMIT_NICE allows, or its creator's.
    EXPECT_GE(p.flusher[0], wanted);
    EXPECT_LE(p.flusher[0], OwnNice());
  }
  EXPECT_EQ(p.main, OwnNice());  // the application's threads keep theirs
  EXPECT_EQ(p.stderr_text, "");  // the default is tried silently
}

TEST(FlusherPriority, DefaultIsAboveTheApplicationWherePermitted) {
  ExpectDefault(RunUnderCollector("priority_default", {}),
                MayTakeNice(collector_internal::Settings().flusher_nice));
}

// Whether this process can run priority_program without CAP_SYS_NICE,
// and needs to (it has the capability).
bool CanDropNiceCapability() {
  return MayTakeNice(collector_internal::kMinNice) && access(kSetpriv, X_OK) == 0;
}

TEST(FlusherPriority, DefaultWithoutThePrivilegeIsSilent) {
  if (!CanDropNiceCapability()) GTEST_SKIP() << "covered by the test above";
  ExpectDefault(RunUnderCollector("priority_unprivileged", {}, /*drop_nice_capability=*/true),
                /*permitted=*/false);
}

TEST(FlusherPriority, AValueItCannotTakeIsWarnedAbout) {
  const int wanted = collector_internal::kMinNice;
  const bool drop = CanDropNiceCapability();
  if (MayTakeNice(wanted) && !drop) GTEST_SKIP() << "this process may take nice " << wanted;
  const Priorities p =
      RunUnderCollector("priority_denied", {"ITTC_FLUSHER_NICE=" + std::to_string(wanted)}, drop);
  ASSERT_EQ(p.flusher.size(), 1u);
  EXPECT_GT(p.flusher[0], wanted);
  EXPECT_LE(p.flusher[0], OwnNice());
  EXPECT_NE(p.stderr_text.find("cannot give the flusher threads nice -20"), std::string::npos)
      << p.stderr_text;
}

}  // namespace
}  // namespace ittc::testing
