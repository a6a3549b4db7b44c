// Tests of `itt-dump diff BASE NEW`: two traces built through the format
// writer where one task gets slower, one faster, one is new, one is gone and
// one is rare; the values, order and missing sides in JSON, CSV and table;
// --min-count, --fail-above both ways, filters on both sides, usage errors;
// and the real binary's exit status.

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/json_checker.h"
#include "tests/tools/trace_builder.h"
#include "tools/itt_dump/cli.h"

namespace ittc::itt_dump {
namespace {

using format::EventKind;
using testing::DumpResult;
using testing::Ev;
using testing::F;
using testing::JsonValue;
using testing::ParseJson;
using testing::RunDump;
using testing::TraceBuilder;
using testing::U;

// Name ids of the tasks.
constexpr uint64_t kWork = 1;
constexpr uint64_t kParse = 2;
constexpr uint64_t kLoad = 3;
constexpr uint64_t kRare = 4;
constexpr uint64_t kDraw = 5;

struct Task {
  uint64_t name;
  uint64_t duration_ns;
};

// One thread running `tasks` one after another (TestHeader's clock: one
// tick per ns), two frames of `frame_ns` in domain "render", and one wait
// of `wait_ns` for the mutex "lock" at `lock_addr`.
std::string Trace(const std::vector<Task>& tasks, uint64_t frame_ns, uint64_t wait_ns,
                  uint64_t lock_addr) {
  TraceBuilder b;
  b.String(kWork, "work")
      .String(kParse, "parse")
      .String(kLoad, "load")
      .String(kRare, "rare")
      .String(kDraw, "draw")
      .String(10, "lock")
      .String(11, "mutex")
      .Domain(1, "app")
      .Domain(2, "render");
  b.Thread(0, 100, "main").SyncAt(1000);
  std::vector<format::Event> events;
  uint64_t t = 1100;
  for (const Task& task : tasks) {
    events.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(task.name)}}));
    t += task.duration_ns;
    events.push_back(Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(1)}}));
    t += 10;
  }
  for (int frame = 0; frame < 2; ++frame) {
    events.push_back(Ev(EventKind::kFrameBegin, t, {{F::kDomain, U(2)}}));
    t += frame_ns;
    events.push_back(Ev(EventKind::kFrameEnd, t, {{F::kDomain, U(2)}}));
  }
  events.push_back(Ev(EventKind::kSyncCreate, t,
                      {{F::kAddr, U(lock_addr)},
                       {F::kObjtype, U(11)},
                       {F::kObjname, U(10)},
                       {F::kAttribute, U(0)}}));
  events.push_back(Ev(EventKind::kSyncPrepare, t + 10, {{F::kAddr, U(lock_addr)}}));
  events.push_back(Ev(EventKind::kSyncAcquired, t + 10 + wait_ns, {{F::kAddr, U(lock_addr)}}));
  b.Events(0, events);
  b.End(t + 1000);
  return b.bytes();
}

// work: p50 100 -> 150 (+50%); parse: 200 -> 180 (-10%); rare (one run):
// 10 -> 40 (+300%); load only in base; draw only in new. Frames 1000 ->
// 1200 ns; the lock's wait 100 -> 300 ns, at another address.
std::map<std::string, std::string> Traces() {
  return {{"base.itt", Trace({{kWork, 100},
                              {kWork, 100},
                              {kWork, 100},
                              {kParse, 200},
                              {kParse, 200},
                              {kParse, 200},
                              {kLoad, 50},
                              {kLoad, 50},
                              {kRare, 10}},
                             1000, 100, 0x1000)},
          {"new.itt", Trace({{kWork, 150},
                             {kWork, 140},
                             {kWork, 160},
                             {kParse, 180},
                             {kParse, 180},
                             {kParse, 180},
                             {kDraw, 30},
                             {kDraw, 30},
                             {kRare, 40}},
                            1200, 300, 0x2000)}};
}

// One thread running three task_begin_fn tasks of `duration_ns` each at
// `load_bias` + 0x1229 in "prog" (a file gone: no symbol, the offset names
// it), and one at + 0x2000 in another process of it.
std::string FunctionTrace(uint64_t load_bias, uint64_t duration_ns) {
  TraceBuilder b;
  b.Domain(1, "app");
  b.Module(
      format::ModuleMapped{10, load_bias, load_bias + 0x1000, 0x3000, "/nonexistent/prog", ""});
  b.Thread(0, 100, "main").SyncAt(1000);
  std::vector<format::Event> events;
  uint64_t t = 1100;
  for (int i = 0; i < 3; ++i) {
    events.push_back(
        Ev(EventKind::kTaskBeginFn, t, {{F::kDomain, U(1)}, {F::kFn, U(load_bias + 0x1229)}}));
    t += duration_ns;
    events.push_back(Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(1)}}));
    t += 10;
  }
  b.Events(0, events);
  b.End(t + 1000);
  return b.bytes();
}

// A function's tasks match across two runs whose module loaded at
// different addresses (ASLR, a relink): their names differ in the runtime
// address, the row is one, and --fail-above sees its growth.
TEST(Diff, FunctionTasksMatchAcrossLoadAddresses) {
  DumpResult r = RunDump({"diff", "--format=csv", "--fail-above=10", "base.itt", "new.itt"},
                         {{"base.itt", FunctionTrace(0x555500000000, 100)},
                          {"new.itt", FunctionTrace(0x566600000000, 300)}});
  EXPECT_EQ(r.status, 5) << r.err << r.out;
  EXPECT_NE(r.out.find("tasks,app,prog+0x1229,task,both,3,300,100,100,3,900,300,300,200.0"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find(",new,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(",gone,"), std::string::npos) << r.out;
}

// One thread: tasks of `nameless_ns` without a name and of `empty_ns`
// named "" in "app" (both show the name ""), and two legacy events both
// named "tick", the first of `tick_ns`, the second of twice that.
std::string LookAlikeTrace(uint64_t nameless_ns, uint64_t empty_ns, uint64_t tick_ns) {
  TraceBuilder b;
  b.String(9, "").Domain(1, "app").EventName(1, "tick").EventName(2, "tick");
  b.Thread(0, 100, "main").SyncAt(1000);
  std::vector<format::Event> events;
  uint64_t t = 1100;
  for (int i = 0; i < 3; ++i) {
    events.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(0)}}));
    t += nameless_ns;
    events.push_back(Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(1)}}));
    events.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(9)}}));
    t += empty_ns;
    events.push_back(Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(1)}}));
    for (uint64_t event : {1, 2}) {
      events.push_back(Ev(EventKind::kEventStart, t, {{F::kEvent, U(event)}}));
      t += tick_ns * event;
      events.push_back(Ev(EventKind::kEventEnd, t, {{F::kEvent, U(event)}}));
    }
  }
  b.Events(0, events);
  b.End(t + 1000);
  return b.bytes();
}

// Rows whose domain, name and kind read the same stay rows of their own:
// a task without a name and one named "" are told apart and matched as
// such (the "" one grew 5 times, the other not: --fail-above sees it),
// and two legacy events of one name are matched in order of total time,
// which diff says.
TEST(Diff, RowsThatLookAlikeStayApart) {
  DumpResult r = RunDump(
      {"diff", "--format=csv", "--fail-above=50", "base.itt", "new.itt"},
      {{"base.itt", LookAlikeTrace(100, 200, 10)}, {"new.itt", LookAlikeTrace(100, 1000, 10)}});
  EXPECT_EQ(r.status, 5) << r.err << r.out;
  EXPECT_NE(r.out.find("\ntasks,app,,task,both,3,600,200,200,3,3000,1000,1000,400.0\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\ntasks,app,,task,both,3,300,100,100,3,300,100,100,0.0\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\ntasks,,tick,event,both,3,60,20,20,3,60,20,20,0.0\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\ntasks,,tick,event,both,3,30,10,10,3,30,10,10,0.0\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("itt-dump: 2 task rows have the domain, name and kind of another row of "
                       "their trace; such rows are matched in order of total time\n"),
            std::string::npos)
      << r.err;
}

DumpResult Diff(std::vector<std::string> options) {
  options.insert(options.begin(), "diff");
  options.push_back("base.itt");
  options.push_back("new.itt");
  return RunDump(options, Traces());
}

TEST(Diff, JsonHasBothSidesTheChangeAndNullForAMissingSide) {
  DumpResult r = Diff({"--format=json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  JsonValue root;
  std::string error;
  ASSERT_TRUE(ParseJson(r.out, &root, &error)) << error << "\n" << r.out;
  const std::string& j = r.out;
  EXPECT_NE(j.find("\"base_trace\":\"base.itt\",\"base_events\":"), std::string::npos) << j;
  EXPECT_NE(j.find("\"new_trace\":\"new.itt\",\"new_events\":"), std::string::npos) << j;
  EXPECT_NE(j.find("{\"domain\":\"app\",\"name\":\"work\",\"kind\":\"task\",\"status\":\"both\","
                   "\"base\":{\"count\":3,\"total_ns\":300,\"p50_ns\":100,\"p99_ns\":100},"
                   "\"new\":{\"count\":3,\"total_ns\":450,\"p50_ns\":150,\"p99_ns\":160},"
                   "\"change_pct\":50.0}"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("{\"domain\":\"app\",\"name\":\"parse\",\"kind\":\"task\",\"status\":\"both\","
                   "\"base\":{\"count\":3,\"total_ns\":600,\"p50_ns\":200,\"p99_ns\":200},"
                   "\"new\":{\"count\":3,\"total_ns\":540,\"p50_ns\":180,\"p99_ns\":180},"
                   "\"change_pct\":-10.0}"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("{\"domain\":\"app\",\"name\":\"load\",\"kind\":\"task\",\"status\":\"gone\","
                   "\"base\":{\"count\":2,\"total_ns\":100,\"p50_ns\":50,\"p99_ns\":50},"
                   "\"new\":null,\"change_pct\":null}"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("{\"domain\":\"app\",\"name\":\"draw\",\"kind\":\"task\",\"status\":\"new\","
                   "\"base\":null,"
                   "\"new\":{\"count\":2,\"total_ns\":60,\"p50_ns\":30,\"p99_ns\":30},"
                   "\"change_pct\":null}"),
            std::string::npos)
      << j;
  // Frames: two of 1000 ns back to back are 2 per 2 us.
  EXPECT_NE(j.find("{\"domain\":\"render\",\"status\":\"both\","
                   "\"base\":{\"count\":2,\"rate_hz\":1000000.000,\"p50_ns\":1000},"
                   "\"new\":{\"count\":2,\"rate_hz\":833333.333,\"p50_ns\":1200},"
                   "\"change_pct\":20.0}"),
            std::string::npos)
      << j;
  // The lock is the same object by name, at another address.
  EXPECT_NE(j.find("{\"type\":\"mutex\",\"name\":\"lock\",\"status\":\"both\","
                   "\"base\":{\"acquisitions\":1,\"total_wait_ns\":100,\"mean_wait_ns\":100,"
                   "\"max_wait_ns\":100},"
                   "\"new\":{\"acquisitions\":1,\"total_wait_ns\":300,\"mean_wait_ns\":300,"
                   "\"max_wait_ns\":300},\"change_pct\":200.0}"),
            std::string::npos)
      << j;
  const JsonValue* tasks = root.Get("tasks");
  ASSERT_NE(tasks, nullptr);
  ASSERT_EQ(tasks->items.size(), 5u);
  EXPECT_EQ(tasks->items[2].Get("base")->Get("p50_ns")->number, 200);
  EXPECT_EQ(tasks->items[4].Get("new")->type, JsonValue::Type::kNull);
}

// The largest growth first, then new tasks, then gone ones.
TEST(Diff, RowsAreSortedByLargestRegressionThenNewThenGone) {
  DumpResult r = Diff({"--format=csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_EQ(out.rfind("section,domain,name,kind,status,base_count,base_total_ns,base_p50_ns,"
                      "base_p99_ns,new_count,new_total_ns,new_p50_ns,new_p99_ns,change_pct\n",
                      0),
            0u)
      << out;
  const size_t rare = out.find("tasks,app,rare,task,both,1,10,10,10,1,40,40,40,300.0\n");
  const size_t work = out.find("tasks,app,work,task,both,3,300,100,100,3,450,150,160,50.0\n");
  const size_t parse = out.find("tasks,app,parse,task,both,3,600,200,200,3,540,180,180,-10.0\n");
  const size_t draw = out.find("tasks,app,draw,task,new,,,,,2,60,30,30,\n");
  const size_t load = out.find("tasks,app,load,task,gone,2,100,50,50,,,,,\n");
  ASSERT_NE(rare, std::string::npos) << out;
  ASSERT_NE(work, std::string::npos) << out;
  ASSERT_NE(parse, std::string::npos) << out;
  ASSERT_NE(draw, std::string::npos) << out;
  ASSERT_NE(load, std::string::npos) << out;
  EXPECT_LT(rare, work);
  EXPECT_LT(work, parse);
  EXPECT_LT(parse, draw);
  EXPECT_LT(draw, load);
  EXPECT_NE(out.find("\nsection,domain,status,base_count,base_rate_hz,base_p50_ns,new_count,"
                     "new_rate_hz,new_p50_ns,change_pct\n"
                     "frames,render,both,2,1000000.000,1000,2,833333.333,1200,20.0\n"),
            std::string::npos)
      << out;
}

TEST(Diff, TableShowsMissingSidesAsDashes) {
  DumpResult r = Diff({});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_EQ(out.rfind("base base.itt: ", 0), 0u) << out;
  EXPECT_NE(out.find("\nnew  new.itt: "), std::string::npos) << out;
  EXPECT_NE(out.find("p50_change(%)"), std::string::npos) << out;
  EXPECT_NE(out.find("mean_wait_change(%)"), std::string::npos) << out;
  // load: its base side (2 runs of 0.050 us), then the new side's four
  // columns and the change missing.
  const size_t load = out.find("  app    load  task gone");
  ASSERT_NE(load, std::string::npos) << out;
  std::istringstream line(out.substr(load, out.find('\n', load) - load));
  std::vector<std::string> cells;
  for (std::string cell; line >> cell;) cells.push_back(cell);
  EXPECT_EQ(cells, (std::vector<std::string>{"app", "load", "task", "gone", "2", "0.100", "0.050",
                                             "0.050", "-", "-", "-", "-", "-"}));
}

TEST(Diff, MinCountLeavesOutRowsRareInBothTraces) {
  DumpResult r = Diff({"--format=csv", "--min-count=2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("tasks,app,rare,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tasks,app,work,"), std::string::npos) << r.out;
  // Two runs of draw, only in new: kept at 2, left out at 3.
  EXPECT_NE(r.out.find("tasks,app,draw,"), std::string::npos) << r.out;
  DumpResult three = Diff({"--format=csv", "--min-count=3"});
  ASSERT_EQ(three.status, 0) << three.err;
  EXPECT_EQ(three.out.find("tasks,app,draw,"), std::string::npos) << three.out;
  EXPECT_EQ(three.out.find("tasks,app,load,"), std::string::npos) << three.out;
  EXPECT_NE(three.out.find("tasks,app,parse,"), std::string::npos) << three.out;
  // Frames (2) and the lock (1 acquisition) are rows under 3 too.
  EXPECT_EQ(three.out.find("frames,"), std::string::npos) << three.out;
  EXPECT_EQ(three.out.find("sync,"), std::string::npos) << three.out;
}

TEST(Diff, FailAboveExitsWithItsOwnStatusOnlyWhenExceeded) {
  // Without rare, work's +50% is the largest growth.
  DumpResult under = Diff({"--min-count=2", "--fail-above=50"});
  EXPECT_EQ(under.status, kExitOk) << under.err;
  EXPECT_EQ(under.err, "");
  DumpResult over = Diff({"--min-count=2", "--fail-above=49.5"});
  EXPECT_EQ(over.status, kExitRegression);
  EXPECT_EQ(over.err,
            "itt-dump: 1 task's p50 grew by more than 49.5%; the most: app work task +50.0%\n");
  EXPECT_NE(over.out.find("p50_change(%)"), std::string::npos) << "the report is still written";
  // With rare: two tasks over 10%, rare first.
  DumpResult both = Diff({"--fail-above=10"});
  EXPECT_EQ(both.status, kExitRegression);
  EXPECT_EQ(both.err,
            "itt-dump: 2 tasks' p50 grew by more than 10%; the most: app rare task +300.0%\n");
  // Frames and sync waits grew too, but only tasks gate.
  EXPECT_EQ(Diff({"--fail-above=301"}).status, kExitOk);
  EXPECT_EQ(kExitRegression, 5);  // the documented value
}

TEST(Diff, FiltersApplyToBothTraces) {
  DumpResult r = Diff({"--format=csv", "--name=work"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tasks,app,work,task,both,3,300,100,100,3,450,150,160,50.0\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("tasks,app,parse"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("tasks,app,draw"), std::string::npos) << r.out;
  // Tasks that begin in the first 300 ns: two runs of work on each side
  // (base at 100 and 210 ns, new at 100 and 260 ns).
  DumpResult early = Diff({"--format=csv", "--name=work", "--to=300"});
  ASSERT_EQ(early.status, 0) << early.err;
  EXPECT_NE(early.out.find("tasks,app,work,task,both,2,200,100,100,2,290,140,150,40.0\n"),
            std::string::npos)
      << early.out;
}

TEST(Diff, UsageErrorsAndUnreadableTraces) {
  const std::map<std::string, std::string> traces = Traces();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"diff", "base.itt"},
                                             {"diff", "base.itt", "new.itt", "third.itt"},
                                             {"diff", "--fail-above=lots", "base.itt", "new.itt"},
                                             {"diff", "--min-count=-1", "base.itt", "new.itt"},
                                             {"diff", "--per-thread", "base.itt", "new.itt"},
                                             {"diff", "-o", "x", "base.itt", "new.itt"}}) {
    DumpResult r = RunDump(args, traces);
    EXPECT_EQ(r.status, kExitUsage) << args.back();
    EXPECT_NE(r.err.find("Try 'itt-dump --help'."), std::string::npos) << r.err;
  }
  DumpResult missing = RunDump({"diff", "base.itt", "missing.itt"}, traces);
  EXPECT_EQ(missing.status, 4) << missing.err;
  EXPECT_EQ(missing.err.rfind("itt-dump: missing.itt: ", 0), 0u) << missing.err;
  DumpResult help = RunDump({"diff", "--help"}, traces);
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: itt-dump diff [OPTIONS] BASE NEW"), std::string::npos);
  EXPECT_NE(help.out.find("--fail-above=PCT"), std::string::npos);
  EXPECT_NE(help.out.find("--thread=ID|NAME"), std::string::npos);
  DumpResult top = RunDump({"--help"}, traces);
  EXPECT_NE(top.out.find("5 diff --fail-above exceeded"), std::string::npos) << top.out;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : ".") + "/" + name;
}

// A CI step: the real binary on two files, gated by its exit status.
TEST(Diff, RealBinaryGatesOnItsExitStatus) {
  for (const auto& [name, bytes] : Traces()) {
    std::ofstream(TempPath(name), std::ios::binary) << bytes;
  }
  const char* srcdir = std::getenv("TEST_SRCDIR");
  auto run = [&](const std::string& fail_above) {
    const std::string cmd = std::string(srcdir != nullptr ? srcdir : ".") +
                            "/ittcollector/tools/itt-dump diff --min-count=2 --format=csv " +
                            "--fail-above=" + fail_above + " " + TempPath("base.itt") + " " +
                            TempPath("new.itt") + " > " + TempPath("out.csv");
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(run("60"), 0);
  EXPECT_EQ(run("20"), 5);
  std::ifstream f(TempPath("out.csv"));
  std::string first;
  std::getline(f, first);
  EXPECT_EQ(first.rfind("section,domain,name,kind,status,", 0), 0u) << first;
}

}  // namespace
}  // namespace ittc::itt_dump
