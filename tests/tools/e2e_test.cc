// End to end: ITT programs run under the real collector, and every
// itt-dump verb on their traces. e2e_program's numbers are known exactly;
// the collector's every-API program must go through every verb cleanly.

#include <sys/wait.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"
#include "tests/tools/json_checker.h"
#include "tools/itt_dump/cli.h"
#include "tools/itt_dump/output.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

struct Result {
  int status = -1;
  std::string out;
  std::string err;
  std::map<std::string, std::string> files;
};

// itt-dump in-process on real files; created files are captured.
Result Dump(const std::vector<std::string>& args) {
  Result r;
  std::unique_ptr<Output> out = StringOutput(&r.out);
  std::unique_ptr<Output> err = StringOutput(&r.err);
  Env env;
  env.out = out.get();
  env.err = err.get();
  env.source = [](const std::string& p) { return TraceSource::File(p); };
  env.create_file = [&r](const std::string& path) -> absl::StatusOr<std::unique_ptr<Output>> {
    return StringOutput(&r.files[path]);
  };
  env.make_dir = [](const std::string&) { return absl::OkStatus(); };
  r.status = RunItDump(args, env);
  out.reset();
  err.reset();
  return r;
}

std::string RunUnderCollector(const std::string& program, const std::string& name) {
  const std::string dir = ittc::testing::MakeTempDir(name);
  const std::string trace = dir + "/" + name + ".itt";
  const std::string lib = ittc::testing::Runfile("collector/libittcollector.so");
  const int status = ittc::testing::RunProgram(
      {ittc::testing::Runfile(program)},
      {"INTEL_LIBITTNOTIFY64=" + lib, "INTEL_JIT_PROFILER64=" + lib, "ITTC_OUTPUT=" + trace},
      dir + "/stdout.txt", dir + "/stderr.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return trace;
}

class E2eProgram : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    trace_ = new std::string(RunUnderCollector("tests/tools/e2e_program", "e2e"));
  }
  static std::string* trace_;
};
std::string* E2eProgram::trace_ = nullptr;

TEST_F(E2eProgram, VerifyIsClean) {
  Result r = Dump({"verify", *trace_});
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(E2eProgram, InfoCountsThreadsAndEvents) {
  Result r = Dump({"info", *trace_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"e2e-main\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"e2e-worker\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("end       clean"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("losses    none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("timebase  tsc at "), std::string::npos) << r.out;
}

TEST_F(E2eProgram, StatsHasExactCounts) {
  Result r = Dump({"stats", "--format=csv", "--per-thread", *trace_});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tasks,e2e,outer,task,1000,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tasks,e2e,inner,task,1000,"), std::string::npos);
  EXPECT_NE(r.out.find(",e2e-worker,e2e,outer,task,500,"), std::string::npos);
  EXPECT_NE(r.out.find("frames,e2e,500,"), std::string::npos);
  EXPECT_NE(r.out.find("counters,e2e,progress,1000,0,499,"), std::string::npos);
  EXPECT_NE(r.out.find(",e2e-mutex,e2e-lock,500,0,"), std::string::npos);
  EXPECT_NE(r.out.find("heap,e2e_alloc,e2e,1,0,1,100,100"), std::string::npos);
  EXPECT_EQ(r.out.find("unbalanced"), std::string::npos);
  EXPECT_EQ(r.out.find("losses"), std::string::npos);
}

TEST_F(E2eProgram, TextIsInTimeOrderWithOneLinePerEvent) {
  Result r = Dump({"text", *trace_});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  long long last = -1;
  int lines = 0;
  int outer_begins = 0;
  while (std::getline(in, line)) {
    ++lines;
    const long long t = std::stoll(line.substr(0, line.find(' ')));
    EXPECT_GE(t, last) << line;
    last = t;
    if (line.find(" task_begin e2e \"outer\"") != std::string::npos) {
      ++outer_begins;
    }
  }
  EXPECT_EQ(outer_begins, 1000);
  // Main: 2 heap + marker + 500 x (frame 2 + tasks 4 + counter 1) + 2 heap
  // + thread name; worker: sync create + 1500 sync + 500 x 5 + thread name.
  EXPECT_GE(lines, 3500 + 4000 + 5);
}

TEST_F(E2eProgram, ChromeParses) {
  Result r = Dump({"chrome", *trace_, "-o", "out.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  JsonValue doc;
  std::string err;
  ASSERT_TRUE(ParseJson(r.files["out.json"], &doc, &err)) << err;
  const JsonValue* events = doc.Get("traceEvents");
  ASSERT_NE(events, nullptr);
  int complete = 0;
  for (const JsonValue& e : events->items) {
    if (e.Get("ph")->text == "X") ++complete;
  }
  EXPECT_EQ(complete, 2000 + 500);  // tasks and frames
}

TEST_F(E2eProgram, VtuneCsvHasTasksFramesAndCounters) {
  Result r = Dump({"vtune-csv", *trace_, "-o", "d", "--prefix=e2e"});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.files.size(), 2u);
  for (const auto& [path, text] : r.files) {
    EXPECT_NE(path.find("-hostname-"), std::string::npos);
    const size_t lines = std::count(text.begin(), text.end(), '\n');
    if (path.find("intervals") != std::string::npos) {
      EXPECT_EQ(text.rfind("name,start_tsc.RDTSC,end_tsc,pid,tid\n", 0), 0u);
      EXPECT_EQ(lines, 1u + 2000 + 500);
    } else {
      EXPECT_EQ(text.rfind("tsc.RDTSC,progress.INST,pid,tid\n", 0), 0u);
      EXPECT_EQ(lines, 1u + 1000);
    }
  }
}

TEST(E2eEveryApi, EveryVerbRunsCleanly) {
  const std::string trace = RunUnderCollector("tests/collector/every_api_program", "every_api");
  EXPECT_EQ(Dump({"verify", trace}).status, 0);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"info", trace},
                                             {"text", trace},
                                             {"text", "--wall", trace},
                                             {"stats", trace},
                                             {"stats", "--format=json", "--per-thread", trace},
                                             {"stats", "--format=csv", trace},
                                             {"chrome", trace, "-o", "c.json"},
                                             {"vtune-csv", trace, "-o", "d"}}) {
    Result r = Dump(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
    if (args[0] == "chrome") {
      JsonValue doc;
      std::string err;
      EXPECT_TRUE(ParseJson(r.files["c.json"], &doc, &err)) << err;
    }
    if (args[0] == "stats" && args[1] == "--format=json") {
      JsonValue doc;
      std::string err;
      EXPECT_TRUE(ParseJson(r.out, &doc, &err)) << err;
    }
    if (args[0] == "text") {
      EXPECT_GT(std::count(r.out.begin(), r.out.end(), '\n'), 50);
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
