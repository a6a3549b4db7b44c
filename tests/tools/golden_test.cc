// Golden tests: every verb on SampleTrace() (sample_traces.h) gives exactly
// the expected output. The sample's clock makes ns since start equal to
// ticks - 1000, so each number below can be checked by hand against the
// events in sample_traces.cc, e.g. main_loop runs 1100..3000 (1900 ns)
// with children work 1200..1400 and 1700..1800 (self 1600 ns).

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"
#include "tools/itt_dump/model/intervals.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

constexpr char kText[] = R"golden(100 101/main task_begin app "main_loop" id=- parent=-
150 102/worker task_begin_overlapped app "overlap" id=9 parent=-
200 101/main task_begin app "work" id=7 parent=-
250 101/main metadata_add app "bytes" id=- type=u64 count=1 data=42
300 101/main marker app "tick" id=- scope=global
350 102/worker sync_create - "queue_lock" addr=0x1000 objtype="std::mutex" attribute=0
360 102/worker sync_prepare - "queue_lock" addr=0x1000
400 101/main task_end app "work"
460 102/worker sync_acquired - "queue_lock" addr=0x1000
500 101/main counter_inc app "queue_depth"
560 102/worker sync_releasing - "queue_lock" addr=0x1000
600 101/main counter_inc_delta app "queue_depth" delta=5
600 102/worker heap_allocate_begin libc "malloc" size=64 initialized=0
610 102/worker heap_allocate_end libc "malloc" addr=0xa000 size=64 initialized=0
700 101/main task_begin app "work" id=- parent=-
700 102/worker counter_set_value app "temperature" type=double value=21.5
800 101/main task_end app "work"
900 101/main frame_begin render - id=-
1050 102/worker task_end_overlapped app "overlap" id=9
1100 102/worker heap_free_begin libc "malloc" addr=0xa000
1110 102/worker heap_free_end libc "malloc" addr=0xa000
1200 102/worker task_end app -
1300 102/worker task_begin render "io" id=- parent=-
1900 101/main frame_end render - id=-
2000 101/main task_end app "main_loop"
2100 101/main frame_submit render - id=- begin=2100 end=2600
2200 101/main event_start - "legacy"
2300 101/main event_end - "legacy"
2400 101/main jit_method_load - "jitted_fn" method_id=5 address=0x7000 size=256 class_file="" source_file="a.cpp" line_table=[]
2500 101/main counter_dec app "queue_depth"
2650 101/main task_begin_ex app "work" clock_domain=1 user_timestamp=77 timestamp=2700 id=- parent=-
2760 101/main task_end_ex app "work" clock_domain=1 user_timestamp=88 timestamp=2750
)golden";

constexpr char kTextWallWorker[] =
    R"golden(2023-11-14T22:13:20.000000150Z 102/worker task_begin_overlapped app "overlap" id=9 parent=-
2023-11-14T22:13:20.000000350Z 102/worker sync_create - "queue_lock" addr=0x1000 objtype="std::mutex" attribute=0
2023-11-14T22:13:20.000000360Z 102/worker sync_prepare - "queue_lock" addr=0x1000
2023-11-14T22:13:20.000000460Z 102/worker sync_acquired - "queue_lock" addr=0x1000
2023-11-14T22:13:20.000000560Z 102/worker sync_releasing - "queue_lock" addr=0x1000
2023-11-14T22:13:20.000000600Z 102/worker heap_allocate_begin libc "malloc" size=64 initialized=0
2023-11-14T22:13:20.000000610Z 102/worker heap_allocate_end libc "malloc" addr=0xa000 size=64 initialized=0
2023-11-14T22:13:20.000000700Z 102/worker counter_set_value app "temperature" type=double value=21.5
2023-11-14T22:13:20.000001050Z 102/worker task_end_overlapped app "overlap" id=9
2023-11-14T22:13:20.000001100Z 102/worker heap_free_begin libc "malloc" addr=0xa000
2023-11-14T22:13:20.000001110Z 102/worker heap_free_end libc "malloc" addr=0xa000
2023-11-14T22:13:20.000001200Z 102/worker task_end app -
2023-11-14T22:13:20.000001300Z 102/worker task_begin render "io" id=- parent=-
)golden";

constexpr char kInfo[] = R"golden(file      trace.itt (1038 bytes, format 1.5)
process   pid 4242, ppid 1
exe       "/usr/bin/demo"
command   demo --fast "two words"
host      "testhost"
writer    "trace_builder"
start     2023-11-14T22:13:20.000000000Z
timebase  tsc at 1000000000 Hz, 2 clock sync points
duration  0.000003000 s
threads   2
  tid 101 "main" (index 0): 19 events
  tid 102 "worker" (index 1): 13 events
total     32 events
losses    3 events dropped
  tid 102 (index 1): 3 buffer_full
damage    none
end       clean (32 recorded, 3 dropped, 9 chunks)
)golden";

constexpr char kStatsTable[] = R"golden(trace trace.itt: 32 events

losses
  tid thread index cause       dropped
  102 worker     1 buffer_full       3

unbalanced
  what              count
  end_without_begin     1
  open_at_end           1

tasks
  domain name      kind            count total(us) self(us) min(us) mean(us) p50(us) p90(us) p99(us) max(us)
  app    main_loop task                1     1.900    1.600   1.900    1.900   1.900   1.900   1.900   1.900
  app    overlap   overlapped_task     1     0.900    0.900   0.900    0.900   0.900   0.900   0.900   0.900
  app    work      task                3     0.350    0.350   0.050    0.116   0.100   0.200   0.200   0.200
         legacy    event               1     0.100    0.100   0.100    0.100   0.100   0.100   0.100   0.100

frames
  domain count    rate(Hz) min(us) mean(us) p50(us) p90(us) p99(us) max(us)
  render     2 1176470.588   0.500    0.750   0.500   1.000   1.000   1.000

counters
  domain name        samples  min  max last
  app    queue_depth       3    1    6    5
  app    temperature       1 21.5 21.5 21.5

sync
  addr   type       name       acquired cancels total_wait(us) max_wait(us)
  0x1000 std::mutex queue_lock        1       0          0.100        0.100

heap
  function domain allocs reallocs frees bytes peak_live
  malloc   libc        1        0     1    64        64

jit
  loaded inline updated unloaded code_bytes
       1      0       0        0        256

)golden";

constexpr char kStatsCsvPerThread[] = R"golden(section,tid,thread,thread_index,cause,dropped
losses,102,worker,1,buffer_full,3

section,what,count
unbalanced,end_without_begin,1
unbalanced,open_at_end,1

section,domain,name,kind,count,total_ns,self_ns,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns
tasks,app,main_loop,task,1,1900,1600,1900,1900,1900,1900,1900,1900
tasks,app,overlap,overlapped_task,1,900,900,900,900,900,900,900,900
tasks,app,work,task,3,350,350,50,116,100,200,200,200
tasks,,legacy,event,1,100,100,100,100,100,100,100,100

section,tid,thread,domain,name,kind,count,total_ns,self_ns,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns
thread_tasks,101,main,app,main_loop,task,1,1900,1600,1900,1900,1900,1900,1900,1900
thread_tasks,101,main,app,work,task,3,350,350,50,116,100,200,200,200
thread_tasks,101,main,,legacy,event,1,100,100,100,100,100,100,100,100
thread_tasks,102,worker,app,overlap,overlapped_task,1,900,900,900,900,900,900,900,900

section,domain,count,rate_hz,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns
frames,render,2,1176470.588,500,750,500,1000,1000,1000

section,domain,name,samples,min,max,last
counters,app,queue_depth,3,1,6,5
counters,app,temperature,1,21.5,21.5,21.5

section,addr,type,name,acquisitions,cancels,total_wait_ns,max_wait_ns
sync,0x1000,std::mutex,queue_lock,1,0,100,100

section,function,domain,allocations,reallocations,frees,bytes,peak_live_bytes
heap,malloc,libc,1,0,1,64,64

section,methods_loaded,inline_loaded,updated,unloaded,code_bytes
jit,1,0,0,0,256
)golden";

constexpr char kStatsJson[] = R"golden({"trace":"trace.itt","events":32,
"losses":[
{"tid":102,"thread":"worker","thread_index":1,"cause":"buffer_full","dropped":3}],
"damage":[],
"unbalanced":[
{"what":"end_without_begin","count":1},
{"what":"open_at_end","count":1}],
"tasks":[
{"domain":"app","name":"main_loop","kind":"task","count":1,"total_ns":1900,"self_ns":1600,"min_ns":1900,"mean_ns":1900,"p50_ns":1900,"p90_ns":1900,"p99_ns":1900,"max_ns":1900},
{"domain":"app","name":"overlap","kind":"overlapped_task","count":1,"total_ns":900,"self_ns":900,"min_ns":900,"mean_ns":900,"p50_ns":900,"p90_ns":900,"p99_ns":900,"max_ns":900},
{"domain":"app","name":"work","kind":"task","count":3,"total_ns":350,"self_ns":350,"min_ns":50,"mean_ns":116,"p50_ns":100,"p90_ns":200,"p99_ns":200,"max_ns":200},
{"domain":"","name":"legacy","kind":"event","count":1,"total_ns":100,"self_ns":100,"min_ns":100,"mean_ns":100,"p50_ns":100,"p90_ns":100,"p99_ns":100,"max_ns":100}],
"frames":[
{"domain":"render","count":2,"rate_hz":1176470.588,"min_ns":500,"mean_ns":750,"p50_ns":500,"p90_ns":1000,"p99_ns":1000,"max_ns":1000}],
"counters":[
{"domain":"app","name":"queue_depth","samples":3,"min":1,"max":6,"last":5},
{"domain":"app","name":"temperature","samples":1,"min":21.5,"max":21.5,"last":21.5}],
"sync":[
{"addr":"0x1000","type":"std::mutex","name":"queue_lock","acquisitions":1,"cancels":0,"total_wait_ns":100,"max_wait_ns":100}],
"heap":[
{"function":"malloc","domain":"libc","allocations":1,"reallocations":0,"frees":1,"bytes":64,"peak_live_bytes":64}],
"jit":[
{"methods_loaded":1,"inline_loaded":0,"updated":0,"unloaded":0,"code_bytes":256}]
}
)golden";

constexpr char kChrome[] = R"golden({"traceEvents":[
{"ph":"M","pid":4242,"tid":0,"ts":0,"name":"process_name","args":{"name":"demo"}},
{"ph":"M","pid":4242,"tid":101,"ts":0,"name":"thread_name","args":{"name":"main"}},
{"ph":"M","pid":4242,"tid":102,"ts":0,"name":"thread_name","args":{"name":"worker"}},
{"ph":"i","pid":4242,"tid":101,"ts":0.300,"name":"tick","cat":"app","s":"g"},
{"ph":"X","pid":4242,"tid":101,"ts":0.200,"dur":0.200,"name":"work","cat":"app","args":{"bytes":42}},
{"ph":"C","pid":4242,"tid":101,"ts":0.500,"name":"queue_depth","cat":"app","args":{"value":1}},
{"ph":"C","pid":4242,"tid":101,"ts":0.600,"name":"queue_depth","cat":"app","args":{"value":6}},
{"ph":"C","pid":4242,"tid":102,"ts":0.700,"name":"temperature","cat":"app","args":{"value":21.5}},
{"ph":"X","pid":4242,"tid":101,"ts":0.700,"dur":0.100,"name":"work","cat":"app"},
{"ph":"b","pid":4242,"tid":102,"ts":0.150,"name":"overlap","cat":"app","id":"0x9"},
{"ph":"e","pid":4242,"tid":102,"ts":1.050,"name":"overlap","cat":"app","id":"0x9"},
{"ph":"M","pid":4242,"tid":1073741824,"ts":0,"name":"thread_name","args":{"name":"frames render"}},
{"ph":"X","pid":4242,"tid":1073741824,"ts":0.900,"dur":1.000,"name":"frame render","cat":"render"},
{"ph":"X","pid":4242,"tid":101,"ts":0.100,"dur":1.900,"name":"main_loop","cat":"app"},
{"ph":"X","pid":4242,"tid":1073741824,"ts":2.100,"dur":0.500,"name":"frame render","cat":"render"},
{"ph":"b","pid":4242,"tid":101,"ts":2.200,"name":"legacy","cat":"event","id":"thread 101 event 1"},
{"ph":"e","pid":4242,"tid":101,"ts":2.300,"name":"legacy","cat":"event","id":"thread 101 event 1"},
{"ph":"C","pid":4242,"tid":101,"ts":2.500,"name":"queue_depth","cat":"app","args":{"value":5}},
{"ph":"X","pid":4242,"tid":101,"ts":2.700,"dur":0.050,"name":"work","cat":"app"},
{"ph":"X","pid":4242,"tid":102,"ts":1.300,"dur":1.700,"name":"io","cat":"render","args":{"open_at_end":true}}
],"displayTimeUnit":"ns","otherData":{"trace":"trace.itt","host":"testhost","pid":4242,"events":32,"end_without_begin":1,"open_at_end":1,"frame_end_without_begin":0,"frames_open_at_end":0,"unresolved_relations":0}}
)golden";

constexpr char kVtuneIntervals[] = R"golden(name,start_tsc.RDTSC,end_tsc,pid,tid
work,1200,1400,4242,101
work,1700,1800,4242,101
overlap,1150,2050,4242,102
render,1900,2900,4242,
main_loop,1100,3000,4242,101
render,3100,3600,4242,
legacy,3200,3300,4242,101
work,3700,3750,4242,101
)golden";

constexpr char kVtuneCounters[] = R"golden(tsc.RDTSC,queue_depth.COUNT,temperature.INST,pid,tid
1500,1,,4242,101
1600,6,,4242,101
1700,,21.5,4242,102
3500,5,,4242,101
)golden";

class GoldenTest : public ::testing::Test {
 protected:
  DumpResult Run(const std::vector<std::string>& args) { return RunDump(args, trace_); }
  const std::string trace_ = SampleTrace();
};

TEST_F(GoldenTest, TextIsTheDefaultVerbInTimeOrder) {
  DumpResult r = Run({"trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, kText);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Run({"text", "trace.itt"}).out, kText);
}

TEST_F(GoldenTest, TextWallClockAndThreadFilter) {
  DumpResult r = Run({"text", "--wall", "--thread=worker", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, kTextWallWorker);
  // The same thread by its OS id.
  EXPECT_EQ(Run({"text", "--wall", "--thread=102", "trace.itt"}).out, kTextWallWorker);
}

TEST_F(GoldenTest, TextNameAndTimeWindowFilters) {
  DumpResult r = Run({"text", "--name=w*", "--from=150", "--to=800", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "200 101/main task_begin app \"work\" id=7 parent=-\n"
            "400 101/main task_end app \"work\"\n"
            "700 101/main task_begin app \"work\" id=- parent=-\n"
            "800 101/main task_end app \"work\"\n");
}

TEST_F(GoldenTest, TextDomainFilter) {
  DumpResult r = Run({"text", "--domain=render", "trace.itt"});
  EXPECT_EQ(r.out,
            "900 101/main frame_begin render - id=-\n"
            "1300 102/worker task_begin render \"io\" id=- parent=-\n"
            "1900 101/main frame_end render - id=-\n"
            "2100 101/main frame_submit render - id=- begin=2100 end=2600\n");
}

// A JIT method loaded without a name has none: `-`, as every nameless event.
TEST(Text, AJitMethodWithoutANameShowsADash) {
  TraceBuilder b;
  b.Thread(0, 101, "main");
  b.Events(0, {Ev(format::EventKind::kJitMethodLoad, 100,
                  {{F::kMethodId, U(2)},
                   {F::kMethodName, B("")},
                   {F::kAddress, U(0x1000)},
                   {F::kSize, U(16)}})});
  b.End(200);
  DumpResult r = RunDump({"text", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(" jit_method_load - - method_id=2 address=0x1000 size=16 "),
            std::string::npos)
      << r.out;
}

int CountOf(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Two hosts, each a process of pid 42 without a rank, placed by their wall
// clocks: a frame submitted with no end (__itt_timestamp_none, the time of
// the call) keeps it through the set's rewrite of times; text tells the two
// processes apart by the pid the exports give the second; info says how the
// set and one readable file are aligned.
TEST(Set, TwoHostsKeepTimestampNoneAndTheirTags) {
  const auto trace = [](const char* host, uint8_t boot) {
    format::FileHeader h = TestHeader();
    const uint64_t start = h.start_ticks;
    h.host_name = host;
    h.boot_id[0] = boot;
    h.pid = 42;
    TraceBuilder b(h);
    b.Domain(1, "d").Thread(0, 7, "t");
    b.Sync(start, h.start_monotonic_raw_ns, h.start_realtime_ns);
    b.Events(0,
             {Ev(format::EventKind::kFrameSubmit, start + 50100,
                 {{F::kDomain, U(1)}, {F::kBegin, T(start + 100)}, {F::kEnd, T(~uint64_t{0})}})});
    b.Sync(start + 1000000, h.start_monotonic_raw_ns + 1000000, h.start_realtime_ns + 1000000);
    b.End(start + 1000000);
    return b.bytes();
  };
  const std::map<std::string, std::string> run = {{"run/x.itt", trace("hostX", 1)},
                                                  {"run/y.itt", trace("hostY", 2)}};
  const DumpResult text = RunDump({"text", "run"}, run);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(CountOf(text.out, " end=none\n"), 2) << text.out;
  EXPECT_EQ(CountOf(text.out, " p42:7/t frame_submit"), 1) << text.out;
  EXPECT_EQ(CountOf(text.out, " p4194346:7/t frame_submit"), 1) << text.out;
  const DumpResult stats = RunDump({"stats", "--format=csv", "run"}, run);
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("frames,d,2,"), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find(",0,0,0,0,0,0\n"), std::string::npos) << stats.out;  // no 0 ns frames
  const DumpResult info = RunDump({"info", "run"}, run);
  EXPECT_NE(info.out.find("2 hosts or boots aligned by wall clock"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  p4194346  pid 42,"), std::string::npos) << info.out;
  const DumpResult one = RunDump({"info", "run/x.itt", "run/empty.itt"},
                                 {{"run/x.itt", run.at("run/x.itt")}, {"run/empty.itt", ""}});
  EXPECT_NE(one.out.find("time      one trace: its own timebase"), std::string::npos) << one.out;
}

// stats --name keeps a JIT method's unload (which names no method) with its
// load, by the method's id.
TEST(Stats, ANameFilterKeepsTheUnloadOfAKeptMethod) {
  TraceBuilder b;
  b.Thread(0, 101, "main");
  const auto load = [](uint64_t t, uint64_t id, const char* name) {
    return Ev(format::EventKind::kJitMethodLoad, t,
              {{F::kMethodId, U(id)},
               {F::kMethodName, B(name)},
               {F::kAddress, U(0x1000 * id)},
               {F::kSize, U(16)}});
  };
  const auto unload = [](uint64_t t, uint64_t id) {
    return Ev(format::EventKind::kJitMethodUnload, t, {{F::kMethodId, U(id)}});
  };
  b.Events(0, {load(100, 1, "foo"), load(110, 2, "bar"), unload(120, 1), unload(130, 2)});
  b.End(200);
  DumpResult r = RunDump({"stats", "--format=csv", "--name=foo", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("jit,1,0,0,1,16\n"), std::string::npos) << r.out;
}

// vtune-csv's counters file: every counter of a name two domains share is
// named domain/name, and a filter leaves out the columns of the counters it
// drops (their rows it already did).
TEST(VtuneCsv, CounterColumnsAreTheKeptCountersEachNamedApart) {
  TraceBuilder b;
  b.Domain(1, "d1").Domain(2, "d2").Thread(0, 7, "t");
  b.Counter(1, "depth", "d1", 1, format::MetadataType::kU64);
  b.Counter(2, "depth", "d2", 2, format::MetadataType::kU64);
  b.Counter(3, "other", "d1", 1, format::MetadataType::kU64);
  b.Events(0, {CounterSetU64(1100, 1, 1), CounterSetU64(1200, 2, 2), CounterSetU64(1300, 3, 3)});
  b.End(2000);
  const std::string file = "o/trace-counters-hostname-testhost.csv";
  DumpResult all = RunDump({"vtune-csv", "trace.itt", "-o", "o"}, b.bytes());
  ASSERT_EQ(all.status, 0) << all.err;
  ASSERT_EQ(all.files.count(file), 1u) << all.err;
  const std::string& a = all.files.at(file);
  EXPECT_EQ(a.substr(0, a.find('\n')), "tsc.RDTSC,d1/depth.INST,d2/depth.INST,other.INST,pid,tid")
      << a;
  DumpResult d2 = RunDump({"vtune-csv", "--domain=d2", "trace.itt", "-o", "o"}, b.bytes());
  ASSERT_EQ(d2.status, 0) << d2.err;
  const std::string& f = d2.files.at(file);
  EXPECT_EQ(f.substr(0, f.find('\n')), "tsc.RDTSC,depth.INST,pid,tid") << f;
  EXPECT_EQ(std::count(f.begin(), f.end(), '\n'), 2) << f;
  EXPECT_NE(f.find(",2,"), std::string::npos) << f;
}

// The ranks of a set each with their counter of one domain and name: one
// column, each row with its process's pid and its own counter's value,
// on every core and on one.
TEST(VtuneCsv, RanksShareTheColumnOfTheirCountersDomainAndName) {
  const auto rank = [](uint32_t pid, uint64_t value) {
    format::FileHeader h = TestHeader();
    h.pid = pid;
    h.boot_id[0] = 0x42;  // one boot: one pass over the files
    TraceBuilder b(h);
    b.Domain(1, "app").Thread(0, 7, "t").SyncAt(1000);
    b.Counter(1, "depth", "app", 1, format::MetadataType::kU64);
    b.Events(0, {CounterSetU64(1100 + pid, 1, value), CounterSetU64(1500 + pid, 1, value + 1)});
    b.SyncAt(3000).End(3000);
    return b.bytes();
  };
  const std::map<std::string, std::string> run = {
      {"run/a.itt", rank(11, 10)}, {"run/b.itt", rank(12, 20)}, {"run/c.itt", rank(13, 30)}};
  for (const bool one_core : {false, true}) {
    const DumpResult r = one_core ? RunDumpOnOneCore({"vtune-csv", "run", "-o", "o"}, run)
                                  : RunDump({"vtune-csv", "run", "-o", "o"}, run);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.files.at("o/run-counters-hostname-testhost.csv"),
              "tsc.RDTSC,depth.INST,pid,tid\n"
              "1111,10,11,7\n"
              "1112,20,12,7\n"
              "1113,30,13,7\n"
              "1511,11,11,7\n"
              "1512,21,12,7\n"
              "1513,31,13,7\n");
  }
}

// A relation's head and tail ids in chrome's args are as the process wrote
// them, in every process of a set (as text prints them), not with the
// set's internal process tag.
TEST(Chrome, RelationIdsOfEveryProcessAreAsItWroteThem) {
  const auto process = [](uint32_t pid) {
    format::FileHeader h = TestHeader();
    h.pid = pid;
    h.boot_id[0] = 0x42;
    TraceBuilder b(h);
    b.String(1, "t").Domain(1, "d").Thread(0, pid, "main").SyncAt(1000);
    b.Events(0, {Ev(format::EventKind::kTaskBegin, 1100,
                    {{F::kDomain, U(1)}, {F::kName, U(1)}, {F::kId, I(5)}}),
                 Ev(format::EventKind::kRelationAdd, 1150,
                    {{F::kDomain, U(1)}, {F::kHead, I(5)}, {F::kRelation, U(1)}, {F::kTail, I(6)}}),
                 Ev(format::EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}}),
                 Ev(format::EventKind::kTaskBegin, 1300,
                    {{F::kDomain, U(1)}, {F::kName, U(1)}, {F::kId, I(6)}}),
                 Ev(format::EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
    b.SyncAt(2000).End(2000);
    return b.bytes();
  };
  const DumpResult r = RunDump({"chrome", "run", "-o", "-"},
                               {{"run/a.itt", process(11)}, {"run/b.itt", process(12)}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(CountOf(r.out, "\"head\":\"0x5\",\"tail\":\"0x6\""), 2) << r.out;
  // A relation has no name (its type is not one): any --name filter drops
  // it, as text does, its type's name too.
  for (const char* filter : {"--name=*", "--name=dependent_on"}) {
    const DumpResult f =
        RunDump({"chrome", filter, "run/a.itt", "-o", "-"}, {{"run/a.itt", process(11)}});
    ASSERT_EQ(f.status, 0) << f.err;
    EXPECT_EQ(CountOf(f.out, "\"name\":\"relation\""), 0) << filter << "\n" << f.out;
  }
}

// A metadata_add of no items (older collectors recorded one) adds no arg
// to the task around it: the API adds nothing then.
TEST(Chrome, MetadataOfNoItemsIsNoArg) {
  TraceBuilder b;
  b.String(1, "work").String(2, "k").Domain(1, "app").Thread(0, 7, "t");
  const auto metadata = [](uint64_t time, uint64_t count, std::string data) {
    return Ev(format::EventKind::kMetadataAdd, time,
              {{F::kDomain, U(1)},
               {F::kKey, U(2)},
               {F::kType, U(static_cast<uint64_t>(format::MetadataType::kU64))},
               {F::kCount, U(count)},
               {F::kData, B(data)}});
  };
  const uint64_t five = 5;
  b.Events(0, {Ev(format::EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               metadata(1200, 1, std::string(reinterpret_cast<const char*>(&five), 8)),
               metadata(1300, 0, ""), metadata(1400, 0, ""),
               Ev(format::EventKind::kTaskEnd, 1500, {{F::kDomain, U(1)}})});
  b.End(1600);
  for (const bool one_core : {false, true}) {
    const std::vector<std::string> args = {"chrome", "trace.itt", "-o", "-"};
    const DumpResult r = one_core ? RunDumpOnOneCore(args, b.bytes()) : RunDump(args, b.bytes());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"name\":\"work\",\"cat\":\"app\",\"args\":{\"k\":5}}"),
              std::string::npos)
        << r.out;
  }
}

// pause_scoped and resume_scoped show their __itt_collection_scope mask
// by name (host, offload, all), another mask as its number.
TEST(Text, CollectionScopesAreNamedByTheirMask) {
  TraceBuilder b;
  b.Thread(0, 7, "t");
  const auto scoped = [](format::EventKind kind, uint64_t time, uint64_t mask) {
    return Ev(kind, time, {{F::kCollectionScope, U(mask)}});
  };
  b.Events(0, {scoped(format::EventKind::kPauseScoped, 1100, 1),
               scoped(format::EventKind::kResumeScoped, 1200, 2),
               scoped(format::EventKind::kPauseScoped, 1300, 0x7fffffff),
               scoped(format::EventKind::kResumeScoped, 1400, 3)});
  b.End(1500);
  DumpResult r = RunDump({"text", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "100 7/t pause_scoped - - collection_scope=host\n"
            "200 7/t resume_scoped - - collection_scope=offload\n"
            "300 7/t pause_scoped - - collection_scope=all\n"
            "400 7/t resume_scoped - - collection_scope=3\n");
}

// A thread or domain name with a line break or other control bytes keeps
// each event on one line: THREAD and DOMAIN are escaped as NAME is.
TEST(Text, ThreadAndDomainNamesAreEscapedOneLinePerEvent) {
  TraceBuilder b;
  b.String(1, "load").Domain(1, "My\tApp").Thread(0, 7, "io\nworker");
  b.Events(0, {Ev(format::EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(format::EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}})});
  b.End(1300);
  DumpResult r = RunDump({"text", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "100 7/io\\x0aworker task_begin My\\x09App \"load\" id=- parent=-\n"
            "200 7/io\\x0aworker task_end My\\x09App \"load\"\n");
}

// Tables line up by terminal columns (a CJK character takes two) and keep a
// row on one line (a line break in a name is \x0a).
TEST(Stats, TablesAlignWideCharactersAndKeepARowOnOneLine) {
  TraceBuilder b;
  b.String(1, "render").String(2, "\xe6\x8f\x8f\xe7\x94\xbb").String(3, "line\nbreak");
  b.Domain(1, "app").Thread(0, 7, "t");
  std::vector<format::Event> events;
  for (uint64_t name = 1; name <= 3; ++name) {
    events.push_back(Ev(format::EventKind::kTaskBegin, 1000 + 100 * name,
                        {{F::kDomain, U(1)}, {F::kName, U(name)}}));
    events.push_back(
        Ev(format::EventKind::kTaskEnd, 1000 + 100 * name + 50 - 10 * name, {{F::kDomain, U(1)}}));
  }
  b.Events(0, events);
  b.End(2000);
  DumpResult r = RunDump({"stats", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n  app    render        task "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  app    \xe6\x8f\x8f\xe7\x94\xbb          task "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  app    line\\x0abreak task "), std::string::npos) << r.out;
}

// text: a name the trace defines as "" is "" on every line; "#N" is for an
// id it does not define.
TEST(Text, ADefinedEmptyNameIsEmptyAndAnUndefinedOneIsItsId) {
  TraceBuilder b;
  b.String(1, "").Domain(1, "d").Thread(0, 101, "main");
  b.Events(0, {Ev(format::EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(format::EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}}),
               Ev(format::EventKind::kTaskBegin, 1300, {{F::kDomain, U(1)}, {F::kName, U(9)}}),
               Ev(format::EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
  DumpResult r = RunDump({"text", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("task_begin d \"\" id=-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("task_begin d \"#9\" id=-"), std::string::npos) << r.out;
  // An end carries its begin's name, as the begin shows it.
  EXPECT_NE(r.out.find("200 101/main task_end d \"\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("400 101/main task_end d \"#9\"\n"), std::string::npos) << r.out;
}

// text's every pass (on every core, on one) gives `want` for `args`.
void ExpectTextOnEveryPass(const std::vector<std::string>& args, const std::string& trace,
                           const std::string& want) {
  const DumpResult all = RunDump(args, trace);
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out, want);
  const DumpResult one = RunDumpOnOneCore(args, trace);
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, want);
}

// Formatted metadata whose text printf made "" (recorded as "", with no
// arguments) shows "", not its format rendered again.
TEST(Text, FormattedMetadataThatPrintfMadeEmptyShowsEmpty) {
  TraceBuilder b;
  b.String(1, "%s").String(2, "n=%d").Domain(1, "d").Thread(0, 101, "main");
  b.Events(0,
           {Ev(format::EventKind::kFormattedMetadataAdd, 1100,
               {{F::kDomain, U(1)}, {F::kFormat, U(1)}, {F::kArgs, B("")}, {F::kText, B("")}}),
            Ev(format::EventKind::kFormattedMetadataAdd, 1200,
               {{F::kDomain, U(1)}, {F::kFormat, U(2)}, {F::kArgs, B("")}, {F::kText, B("n=7")}})});
  b.End(2000);
  ExpectTextOnEveryPass({"text", "trace.itt"}, b.bytes(),
                        "100 101/main formatted_metadata_add d \"%s\" args=\"\" text=\"\"\n"
                        "200 101/main formatted_metadata_add d \"n=%d\" args=\"\" text=\"n=7\"\n");
}

// --from and --to keep an *_ex call's line by its timestamp, as the other
// verbs keep its item (ITT_DUMP.md, "Times").
TEST(Text, TimeFiltersKeepAnExCallByItsTimestamp) {
  TraceBuilder b;
  b.String(1, "m").Domain(1, "d").Thread(0, 101, "main");
  b.Events(0, {Ev(format::EventKind::kMarkerEx, 1100,
                  {{F::kDomain, U(1)},
                   {F::kClockDomain, U(0)},
                   {F::kUserTimestamp, U(0)},
                   {F::kTimestamp, T(6000)},
                   {F::kName, U(1)},
                   {F::kScope, U(1)}})});
  b.End(9000);
  const std::string line =
      "100 101/main marker_ex d \"m\" clock_domain=0 user_timestamp=0 timestamp=5000 id=- "
      "scope=global\n";
  ExpectTextOnEveryPass({"text", "--from=4000", "trace.itt"}, b.bytes(), line);
  ExpectTextOnEveryPass({"text", "--to=1000", "trace.itt"}, b.bytes(), "");
  const DumpResult chrome = RunDump({"chrome", "--from=4000", "trace.itt"}, b.bytes());
  EXPECT_NE(chrome.out.find("\"name\":\"m\""), std::string::npos) << chrome.out;
}

// A domain defined as "" is a domain named "": its column shows "" (one
// column still), and a domain filter tests "" as the other verbs do; an
// undefined one is "#N" in every verb (TraceIndex::Domain), and a filter
// tests that name.
TEST(Text, ADomainNamedEmptyShowsEmptyQuotesAndIsFilteredByName) {
  TraceBuilder b;
  b.String(1, "t").Domain(1, "").Thread(0, 101, "main");
  b.Histogram(1, 1, "h", format::MetadataType::kU64, format::MetadataType::kU64);
  b.Events(0, {Ev(format::EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(format::EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}}),
               Ev(format::EventKind::kTaskBegin, 1300, {{F::kDomain, U(9)}, {F::kName, U(1)}}),
               Ev(format::EventKind::kTaskEnd, 1400, {{F::kDomain, U(9)}}),
               Ev(format::EventKind::kHistogramSubmit, 1500,
                  {{F::kHistogram, U(1)}, {F::kLength, U(0)}, {F::kX, B("")}, {F::kY, B("")}})});
  b.End(2000);
  const std::string all =
      "100 101/main task_begin \"\" \"t\" id=- parent=-\n"
      "200 101/main task_end \"\" \"t\"\n"
      "300 101/main task_begin #9 \"t\" id=- parent=-\n"
      "400 101/main task_end #9 \"t\"\n"
      "500 101/main histogram_submit \"\" \"h\" length=0 x=[] y=[]\n";
  ExpectTextOnEveryPass({"text", "trace.itt"}, b.bytes(), all);
  const std::string named_empty =
      "100 101/main task_begin \"\" \"t\" id=- parent=-\n"
      "200 101/main task_end \"\" \"t\"\n"
      "500 101/main histogram_submit \"\" \"h\" length=0 x=[] y=[]\n";
  ExpectTextOnEveryPass({"text", "--domain=", "trace.itt"}, b.bytes(), named_empty);
  ExpectTextOnEveryPass({"text", "--domain=#*", "trace.itt"}, b.bytes(),
                        "300 101/main task_begin #9 \"t\" id=- parent=-\n"
                        "400 101/main task_end #9 \"t\"\n");
  const DumpResult stats = RunDump({"stats", "--format=csv", "trace.itt"}, b.bytes());
  EXPECT_EQ(CountOf(stats.out, "tasks,,t,task,1,"), 1) << stats.out;
  EXPECT_EQ(CountOf(stats.out, "tasks,#9,t,task,1,"), 1) << stats.out;
  const DumpResult empty_only =
      RunDump({"stats", "--format=csv", "--domain=", "trace.itt"}, b.bytes());
  EXPECT_EQ(CountOf(empty_only.out, "tasks,,t,task,1,"), 1) << empty_only.out;
  EXPECT_EQ(CountOf(empty_only.out, "#9"), 0) << empty_only.out;
}

// A string or domain id the trace does not define (its definition lost to
// damage) is named "#N" by every verb, as text names it: one rule, in the
// model (TraceIndex::String and Domain).
TEST(Verbs, AnUndefinedStringOrDomainIsNamedByItsIdEverywhere) {
  TraceBuilder b;
  b.String(1, "t").Domain(1, "d").Thread(0, 101, "main");
  b.Events(0, {Ev(format::EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(7)}}),
               Ev(format::EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}}),
               Ev(format::EventKind::kTaskBegin, 1300, {{F::kDomain, U(9)}, {F::kName, U(1)}}),
               Ev(format::EventKind::kTaskEnd, 1400, {{F::kDomain, U(9)}})});
  b.End(2000);
  ExpectTextOnEveryPass({"text", "trace.itt"}, b.bytes(),
                        "100 101/main task_begin d \"#7\" id=- parent=-\n"
                        "200 101/main task_end d \"#7\"\n"
                        "300 101/main task_begin #9 \"t\" id=- parent=-\n"
                        "400 101/main task_end #9 \"t\"\n");
  const DumpResult stats = RunDump({"stats", "--format=csv", "trace.itt"}, b.bytes());
  EXPECT_EQ(CountOf(stats.out, "tasks,d,#7,task,1,"), 1) << stats.out;
  EXPECT_EQ(CountOf(stats.out, "tasks,#9,t,task,1,"), 1) << stats.out;
  DumpResult chrome = RunDump({"chrome", "trace.itt", "-o", "out.json"}, b.bytes());
  const std::string& json = chrome.files["out.json"];
  EXPECT_EQ(CountOf(json, "\"name\":\"#7\""), 1) << json;
  EXPECT_EQ(CountOf(json, "\"cat\":\"#9\""), 1) << json;
  DumpResult perfetto =
      RunDump({"perfetto", "--compress=none", "trace.itt", "-o", "out.pftrace"}, b.bytes());
  const std::string& proto = perfetto.files["out.pftrace"];
  EXPECT_NE(proto.find("#7"), std::string::npos);
  EXPECT_NE(proto.find("#9"), std::string::npos);
  const DumpResult vtune = RunDump({"vtune-csv", "trace.itt", "-o", "vt"}, b.bytes());
  std::string tables;
  for (const auto& [path, text] : vtune.files) tables += text;
  EXPECT_NE(tables.find("\n#7,"), std::string::npos) << tables;  // (no domain column)
}

// A task_begin_fn_ex is named at its timestamp on its begin's line, as its
// interval (and so its end's line, stats and the exports) names it: the
// module that held the address then.
TEST(Text, ATaskBegunByFunctionWithATimestampHasOneName) {
  TraceBuilder b;
  b.Domain(1, "d");
  b.Module(format::ModuleMapped{10, 0x7f0000000000, 0x7f0000001000, 0x3000,
                                "/nonexistent/libgone.so", ""});
  b.Module(format::ModuleMapped{1200, 0x7f0000000000, 0x7f0000001000, 0x3000,
                                "/nonexistent/libnew.so", ""});
  b.ModuleGone(1200, 0x7f0000001000);
  b.Thread(0, 7, "main");
  b.Events(0, {Ev(format::EventKind::kTaskBeginFnEx, 1100,
                  {{F::kDomain, U(1)},
                   {F::kClockDomain, U(0)},
                   {F::kUserTimestamp, U(0)},
                   {F::kTimestamp, T(1300)},
                   {F::kFn, U(0x7f0000001100)}}),
               Ev(format::EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
  b.End(2000);
  const DumpResult r = RunDump({"text", "--name=*libnew*", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(CountOf(r.out, "\"fn@0x7f0000001100 (libnew.so+0x1100)\""), 2) << r.out;
  const DumpResult one = RunDumpOnOneCore({"text", "--name=*libnew*", "trace.itt"}, b.bytes());
  EXPECT_EQ(one.out, r.out);
}

// A JIT event is named by its method, as stats' --name keeps it: an
// unload and an update without a name by the method's load, a later load
// of the id named otherwise by the first name (its own as a field).
TEST(Text, JitEventsAreNamedByTheirMethod) {
  TraceBuilder b;
  b.Thread(0, 101, "main");
  const auto load = [](uint64_t t, uint64_t address, const char* name) {
    return Ev(format::EventKind::kJitMethodLoad, t,
              {{F::kMethodId, U(1)},
               {F::kMethodName, B(name)},
               {F::kAddress, U(address)},
               {F::kSize, U(16)}});
  };
  b.Events(0, {load(1100, 0x1000, "jitfn"), load(1200, 0x2000, "other"),
               Ev(format::EventKind::kJitMethodUnload, 1300, {{F::kMethodId, U(1)}}),
               Ev(format::EventKind::kJitMethodUnload, 1400, {{F::kMethodId, U(2)}})});
  b.End(2000);
  const std::string kept =
      "100 101/main jit_method_load - \"jitfn\" method_id=1 address=0x1000 size=16 class_file=\"\" "
      "source_file=\"\" line_table=[]\n"
      "200 101/main jit_method_load - \"jitfn\" method_id=1 method_name=\"other\" address=0x2000 "
      "size=16 class_file=\"\" source_file=\"\" line_table=[]\n"
      "300 101/main jit_method_unload - \"jitfn\" method_id=1\n";
  ExpectTextOnEveryPass({"text", "--name=jitfn", "trace.itt"}, b.bytes(), kept);
  ExpectTextOnEveryPass({"text", "trace.itt"}, b.bytes(),
                        kept + "400 101/main jit_method_unload - - method_id=2\n");
}

// Tasks nested past the depth a thread keeps are left out (counted as open
// at the end); their ends are theirs, so the tasks around them keep their
// pairs: a balanced trace reports no end without a begin.
// A row whose durations add up past 2^64 - 1 ns (absurd times, such as
// a task_end_ex's): its total and self saturate there, as the mean's sum
// does, never wrap below its largest duration. Three threads, each one
// task of 7e18 ns, and a child of 1000 ns under one of them; on every
// core and on one.
TEST(Stats, TotalsPastTwoToTheSixtyFourSaturate) {
  TraceBuilder b;
  b.String(1, "huge").String(2, "child").Domain(1, "d");
  constexpr uint64_t kLong = 7000000000000000000;
  for (uint32_t t = 0; t < 3; ++t) {
    b.Thread(t, 101 + t, "worker");
    std::vector<format::Event> events = {
        Ev(format::EventKind::kTaskBegin, 1000, {{F::kDomain, U(1)}, {F::kName, U(1)}})};
    if (t == 0) {
      events.push_back(
          Ev(format::EventKind::kTaskBegin, 2000, {{F::kDomain, U(1)}, {F::kName, U(2)}}));
      events.push_back(Ev(format::EventKind::kTaskEnd, 3000, {{F::kDomain, U(1)}}));
    }
    events.push_back(Ev(format::EventKind::kTaskEnd, 1000 + kLong, {{F::kDomain, U(1)}}));
    b.Events(t, events);
  }
  b.End(2000 + kLong);
  const std::string want = absl::StrCat("\ntasks,d,huge,task,3,18446744073709551615,",
                                        "18446744073709551615,", kLong, ",", kLong, ",");
  for (const bool one_core : {false, true}) {
    const std::vector<std::string> args = {"stats", "--format=csv", "trace.itt"};
    const DumpResult r = one_core ? RunDumpOnOneCore(args, b.bytes()) : RunDump(args, b.bytes());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
  }
}

TEST(Stats, TasksPastTheDepthLimitAreLeftOutAndTheirEndsWithThem) {
  TraceBuilder b;
  b.String(1, "t").String(2, "outer").Domain(1, "d").Thread(0, 101, "main");
  std::vector<format::Event> events;
  uint64_t time = 1100;
  events.push_back(
      Ev(format::EventKind::kTaskBegin, time++, {{F::kDomain, U(1)}, {F::kName, U(2)}}));
  const uint64_t n = IntervalTracker::kMaxDepth + 5;  // inside outer: 6 past the limit
  for (uint64_t i = 0; i < n; ++i) {
    events.push_back(
        Ev(format::EventKind::kTaskBegin, time++, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
  }
  for (uint64_t i = 0; i < n; ++i) {
    events.push_back(Ev(format::EventKind::kTaskEnd, time++, {{F::kDomain, U(1)}}));
  }
  events.push_back(Ev(format::EventKind::kTaskEnd, time + 1000, {{F::kDomain, U(1)}}));
  b.Events(0, events);
  b.End(time + 2000);
  DumpResult r = RunDump({"stats", "--format=csv", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("unbalanced,open_at_end,6\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("unbalanced,end_without_begin,"), std::string::npos) << r.out;
  // outer ends last, at its own end: 200011 ns after its begin.
  EXPECT_NE(r.out.find("tasks,d,outer,task,1,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(absl::StrCat("tasks,d,t,task,", IntervalTracker::kMaxDepth - 1, ",")),
            std::string::npos)
      << r.out;
}

// Frames past the depth a key keeps are frames open at the end, not tasks.
TEST(Stats, FramesPastTheDepthLimitAreFramesOpenAtTheEnd) {
  TraceBuilder b;
  b.Domain(1, "d").Thread(0, 101, "main");
  std::vector<format::Event> begins;
  const uint64_t n = IntervalTracker::kMaxDepth + 3;
  for (uint64_t i = 0; i < n; ++i) {
    begins.push_back(Ev(format::EventKind::kFrameBegin, 1100 + i, {{F::kDomain, U(1)}}));
  }
  b.Events(0, begins);
  DumpResult r = RunDump({"stats", "--format=csv", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("unbalanced,frames_open_at_end," + std::to_string(n) + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("unbalanced,open_at_end,"), std::string::npos) << r.out;
}

// A NaN sample is counted and can be the last value, but min and max are
// the other samples' (a NaN first stayed both before).
TEST(Stats, CounterMinAndMaxLeaveNaNOut) {
  TraceBuilder b;
  b.Thread(0, 101, "main");
  b.Counter(1, "ratio", "dom", 0, format::MetadataType::kDouble);
  const auto set = [](uint64_t t, double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    return Ev(format::EventKind::kCounterSetValue, t,
              {{F::kCounter, U(1)},
               {F::kType, U(static_cast<uint64_t>(format::MetadataType::kDouble))},
               {F::kValue, U(bits)}});
  };
  b.Events(0, {set(100, NAN), set(110, 2.5), set(120, -1.0), set(130, NAN)});
  b.End(200);
  DumpResult r = RunDump({"stats", "--format=csv", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("counters,dom,ratio,4,-1,2.5,nan\n"), std::string::npos) << r.out;
}

// stats --name keeps what names no method with its method: an update
// without a name (by id), a jit_method_update_v2 inside its code (by
// address; its id is 0), and an unload; each process's ids its own.
TEST(Stats, ANameFilterKeepsAMethodsUpdatesAndUnloadPerProcess) {
  const auto load = [](uint64_t t, uint64_t id, const char* name, uint64_t addr) {
    return Ev(format::EventKind::kJitMethodLoad, t,
              {{F::kMethodId, U(id)},
               {F::kMethodName, B(name)},
               {F::kAddress, U(addr)},
               {F::kSize, U(64)}});
  };
  TraceBuilder a;
  a.Thread(0, 101, "main");
  a.Events(0, {load(100, 1, "foo", 0x1000), load(105, 2, "bar", 0x2000),
               Ev(format::EventKind::kJitMethodUpdateV2, 110,
                  {{F::kMethodId, U(0)}, {F::kAddress, U(0x1010)}, {F::kSize, U(8)}}),
               Ev(format::EventKind::kJitMethodUpdateV2, 112,
                  {{F::kMethodId, U(0)}, {F::kAddress, U(0x2010)}, {F::kSize, U(8)}}),
               Ev(format::EventKind::kJitMethodUpdate, 120,
                  {{F::kMethodId, U(1)},
                   {F::kMethodName, B("")},
                   {F::kAddress, U(0x5000)},
                   {F::kSize, U(64)}}),
               Ev(format::EventKind::kJitMethodUnload, 300, {{F::kMethodId, U(1)}})});
  a.End(400);
  DumpResult r = RunDump({"stats", "--format=csv", "--name=foo", "trace.itt"}, a.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  // loaded, inline, updated, unloaded, code bytes.
  EXPECT_NE(r.out.find("jit,1,0,2,1,64\n"), std::string::npos) << r.out;
  // A second process loads and unloads its own method 1 ("bar") before the
  // first unloads foo: foo's unload stays foo's.
  format::FileHeader h = itt_dump::testing::TestHeader();
  h.pid = 4343;
  TraceBuilder b(h);
  b.Thread(0, 202, "main");
  b.Events(0, {load(150, 1, "bar", 0x1000),
               Ev(format::EventKind::kJitMethodUnload, 200, {{F::kMethodId, U(1)}})});
  b.End(400);
  DumpResult set =
      RunDump({"stats", "--format=csv", "--name=foo", "a.itt", "b.itt"},
              std::map<std::string, std::string>{{"a.itt", a.bytes()}, {"b.itt", b.bytes()}});
  ASSERT_EQ(set.status, 0) << set.err;
  EXPECT_NE(set.out.find("jit,1,0,2,1,64\n"), std::string::npos) << set.out;
}

// A flight recorder's dump: info says which dump, why and the window it
// covers; its overwritten events show as a loss; every verb reads it.
TEST(Info, ShowsTheWindowAndReasonOfAFlightDump) {
  TraceBuilder b;
  b.String(1, "checkpoint").Domain(1, "app").Thread(0, 101, "main");
  b.SyncAt(1000).Events(0, {Ev(format::EventKind::kTaskBegin, 1600, {{F::kDomain, U(1)}}),
                            Ev(format::EventKind::kTaskEnd, 1700, {{F::kDomain, U(1)}})});
  b.Loss(0, format::LossCause::kOverwritten, 40).SyncAt(2000);
  format::FlightDump f;
  f.reason = format::FlightReason::kMarker;
  f.name = 1;
  f.window_begin = 1500;
  f.window_end = 1800;
  f.dump = 2;
  f.triggers = 3;
  b.FlightEnd(f, 2000);
  DumpResult r = RunDump({"info", "trace.itt"}, b.bytes());
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(
      r.out.find("\nflight    dump 2 of the flight recorder, written on marker \"checkpoint\"; "
                 "answers 3 triggers (2 came while the dump before was written)\n"
                 "window    0.000000500 s to 0.000000800 s after the start (0.000000300 s), "
                 "from "),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  tid 101 (index 0): 40 overwritten\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nend       clean (2 recorded, 40 dropped,"), std::string::npos) << r.out;
  // The first dump has no dump before it: its other triggers came before
  // it began.
  {
    TraceBuilder first;
    first.String(1, "checkpoint").Thread(0, 101, "main").SyncAt(1000);
    format::FlightDump f1 = f;
    f1.dump = 1;
    f1.triggers = 2;
    first.FlightEnd(f1, 2000);
    const DumpResult r1 = RunDump({"info", "trace.itt"}, first.bytes());
    EXPECT_NE(r1.out.find("\nflight    dump 1 of the flight recorder, written on marker "
                          "\"checkpoint\"; answers 2 triggers (1 more came before it began)\n"),
              std::string::npos)
        << r1.out;
  }
  for (const char* verb : {"text", "stats", "chrome", "vtune-csv", "verify"}) {
    std::vector<std::string> args = {verb, "trace.itt"};
    if (std::string(verb) == "vtune-csv") args = {verb, "trace.itt", "-o", "csv"};
    DumpResult v = RunDump(args, b.bytes());
    EXPECT_EQ(v.status, 0) << verb << "\n" << v.err;
  }
  // A dump of a fatal signal names it.
  f.reason = format::FlightReason::kFatalSignal;
  f.signal = 11;
  f.name = 0;
  f.triggers = 1;
  TraceBuilder c;
  c.SyncAt(1000).FlightEnd(f, 2000);
  r = RunDump({"info", "trace.itt"}, c.bytes());
  EXPECT_NE(r.out.find("\nflight    dump 2 of the flight recorder, written on fatal signal 11 "
                       "(SIGSEGV)\n"),
            std::string::npos)
      << r.out;
}

// A flight recorder dump of process `pid` started at `start`: dump `n`,
// whose window holds `tasks` tasks from start + 100 * n on.
std::string FlightDumpOf(uint32_t pid, uint64_t start, uint64_t n, int tasks) {
  format::FileHeader h = TestHeader();
  h.pid = pid;
  h.boot_id[0] = 0x42;
  h.start_ticks = start;
  TraceBuilder b(h);
  b.String(1, "work").Domain(1, "app").Thread(0, pid, "main").SyncAt(start);
  std::vector<format::Event> events;
  for (int i = 0; i < tasks; ++i) {
    const uint64_t t = start + 100 * n + 10 * static_cast<uint64_t>(i);
    events.push_back(Ev(format::EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
    events.push_back(Ev(format::EventKind::kTaskEnd, t + 5, {{F::kDomain, U(1)}}));
  }
  b.Events(0, events);
  format::FlightDump f;
  f.reason = format::FlightReason::kExit;
  f.window_end = start + 900;
  f.dump = n;
  f.triggers = 1;
  b.FlightEnd(f, start + 1000);
  return b.bytes();
}

// A directory of flight dumps: the earlier dumps of a process whose later
// dump is there are left out, each with a line (their windows overlap:
// one process's events would count twice); another process's dump, and a
// dump of another start of the same pid (an exec), stay.
TEST(Stats, EarlierFlightDumpsOfAProcessAreLeftOut) {
  const auto& dump = FlightDumpOf;
  const std::map<std::string, std::string> run = {{"run/a.flight-1.itt", dump(11, 1000, 1, 1)},
                                                  {"run/a.flight-3.itt", dump(11, 1000, 3, 3)},
                                                  {"run/a.flight-2.itt", dump(11, 1000, 2, 2)},
                                                  {"run/b.flight-1.itt", dump(12, 1000, 1, 4)},
                                                  {"run/c.flight-1.itt", dump(11, 5000, 1, 5)}};
  const DumpResult r = RunDump({"stats", "--format=csv", "run"}, run);
  EXPECT_EQ(r.status, 0) << r.err;
  // 3 + 4 + 5 tasks: a's third dump, b's and c's.
  EXPECT_NE(r.out.find("\ntasks,app,work,task,12,"), std::string::npos) << r.out;
  for (const char* left : {"run/a.flight-1.itt", "run/a.flight-2.itt"}) {
    EXPECT_NE(r.err.find(absl::StrCat("itt-dump: ", left, ": left out: flight recorder dump ")),
              std::string::npos)
        << r.err;
  }
  EXPECT_NE(r.err.find("whose dump 3 is run/a.flight-3.itt"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("b.flight-1.itt: left out"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("c.flight-1.itt: left out"), std::string::npos) << r.err;
  // verify checks every file it is given.
  const DumpResult v = RunDump({"verify", "run"}, run);
  for (const char* file : {"run/a.flight-1.itt", "run/a.flight-2.itt", "run/a.flight-3.itt"}) {
    EXPECT_NE(v.out.find(absl::StrCat(file, ": ok")), std::string::npos) << v.out;
  }
  EXPECT_EQ(v.err.find("left out"), std::string::npos) << v.err;
}

// A dump cut before its end chunk has lost its flight_dump record (its
// number), but its header still names the process: with the process's
// earlier dump it is one process, kept as the one reaching later, and its
// events count once. verify checks both files all the same.
TEST(Stats, ADumpCutBeforeItsEndIsStillItsProcesssLatest) {
  std::string cut = FlightDumpOf(11, 1000, 2, 2);
  cut.resize(cut.size() - 20);
  const std::map<std::string, std::string> run = {
      {"run/a.flight-1.itt", FlightDumpOf(11, 1000, 1, 1)}, {"run/a.flight-2.itt", cut}};
  const DumpResult r = RunDump({"stats", "--format=csv", "run"}, run);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\ntasks,app,work,task,2,"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("itt-dump: run/a.flight-1.itt: left out: a recording of the process (pid "
                       "11) that run/a.flight-2.itt holds too"),
            std::string::npos)
      << r.err;
  const DumpResult v = RunDump({"verify", "run"}, run);
  EXPECT_NE(v.out.find("run/a.flight-1.itt: ok"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("run/a.flight-2.itt: "), std::string::npos) << v.out;
  EXPECT_EQ(v.err.find("left out"), std::string::npos) << v.err;
}

// chrome's otherData names the first file's pid for a set, on every core
// and on one alike: the second process's last events (sync calls) write no
// object, which the pass on every core does not meet as the serial one
// does.
TEST(Chrome, OtherDataOfASetNamesTheFirstFilesPid) {
  const auto trace = [](uint32_t pid, bool sync) {
    format::FileHeader h = TestHeader();
    h.pid = pid;
    h.boot_id[0] = 7;
    TraceBuilder b(h);
    b.String(1, "work").Domain(1, "d").Thread(0, pid, "main");
    std::vector<format::Event> events;
    for (uint64_t i = 0; i < 3; ++i) {
      const uint64_t t = 2000 + 100 * i + (sync ? 50 : 0);
      if (sync) {
        events.push_back(Ev(format::EventKind::kSyncPrepare, t, {{F::kAddr, U(0x10)}}));
        events.push_back(Ev(format::EventKind::kSyncAcquired, t + 10, {{F::kAddr, U(0x10)}}));
      } else {
        events.push_back(
            Ev(format::EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
        events.push_back(Ev(format::EventKind::kTaskEnd, t + 10, {{F::kDomain, U(1)}}));
      }
    }
    b.Events(0, events);
    b.End(3000);
    return b.bytes();
  };
  const std::map<std::string, std::string> run = {{"run/a.itt", trace(1111, false)},
                                                  {"run/b.itt", trace(2222, true)}};
  const DumpResult all = RunDump({"chrome", "run", "-o", "out.json"}, run);
  ASSERT_EQ(all.status, 0) << all.err;
  const std::string& json = all.files.at("out.json");
  EXPECT_NE(json.find("\"otherData\":{\"trace\":\"run\",\"host\":\"testhost\",\"pid\":1111,"),
            std::string::npos)
      << json;
  EXPECT_EQ(RunDumpOnOneCore({"chrome", "run", "-o", "out.json"}, run).files, all.files);
}

TEST(Info, ShowsRankAndBootIdWhenTheHeaderHasThem) {
  format::FileHeader h = TestHeader();
  h.flags |= format::kHeaderFlagHasRank;
  h.rank = 3;
  ASSERT_TRUE(format::ParseBootId("0123abcd-4567-89ef-0123-456789abcdef", &h.boot_id));
  TraceBuilder b(h);
  b.End(2000);
  DumpResult r = RunDump({"info", "trace.itt"}, b.bytes());
  EXPECT_NE(r.out.find("\nrank      3\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nboot id   0123abcd-4567-89ef-0123-456789abcdef\n"), std::string::npos)
      << r.out;
}

TEST_F(GoldenTest, PlainFieldsOfEarlierVersionsReadTheSame) {
  // The sample as collectors before format 1.2 wrote it (no delta-coded
  // fields): every verb reads it as it reads today's.
  const std::string plain = SampleTrace(format::EventStreamEncoder::FieldCoding::kPlain);
  ASSERT_NE(plain, trace_);
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"text", "trace.itt"},
                                             {"stats", "--format=json", "trace.itt"},
                                             {"chrome", "trace.itt", "-o", "-"},
                                             {"verify", "trace.itt"}}) {
    SCOPED_TRACE(args[0]);
    const DumpResult a = RunDump(args, plain);
    const DumpResult b = RunDump(args, trace_);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.out, b.out);
    EXPECT_EQ(a.err, b.err);
  }
}

TEST_F(GoldenTest, Info) {
  DumpResult r = Run({"info", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, kInfo);
}

TEST_F(GoldenTest, StatsTable) {
  DumpResult r = Run({"stats", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, kStatsTable);
}

TEST_F(GoldenTest, StatsCsvPerThread) {
  DumpResult r = Run({"stats", "--format=csv", "--per-thread", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, kStatsCsvPerThread);
}

TEST_F(GoldenTest, StatsJson) {
  DumpResult r = Run({"stats", "--format=json", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, kStatsJson);
}

TEST_F(GoldenTest, StatsNameFilterKeepsMatchingTasksOnly) {
  DumpResult r = Run({"stats", "--format=csv", "--name=main_loop", "trace.itt"});
  EXPECT_NE(r.out.find("tasks,app,main_loop,task,1,1900,1600,"), std::string::npos);
  EXPECT_EQ(r.out.find("tasks,app,work,"), std::string::npos);
  EXPECT_EQ(r.out.find("frames,"), std::string::npos);
}

TEST_F(GoldenTest, Chrome) {
  DumpResult r = Run({"chrome", "trace.itt", "-o", "out.json"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  ASSERT_EQ(r.files.count("out.json"), 1u);
  EXPECT_EQ(r.files["out.json"], kChrome);
  // The unbalanced input is reported on stderr, not fatal.
  EXPECT_EQ(r.err,
            "itt-dump: trace.itt: unbalanced: 1 ends without begin, 1 tasks "
            "open at the end, 0 frame ends without begin, 0 frames open at "
            "the end\n");
}

TEST_F(GoldenTest, ChromeToStdout) {
  DumpResult r = Run({"chrome", "trace.itt", "-o", "-"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, kChrome);
}

// (io, open at the end, has no row: its end is unknown. The warning says
// so, as chrome's does.)
TEST_F(GoldenTest, VtuneCsv) {
  DumpResult r = Run({"vtune-csv", "trace.itt", "-o", "out"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err,
            "itt-dump: trace.itt: unbalanced: 1 ends without begin, 1 tasks open at the end, 0 "
            "frame ends without begin, 0 frames open at the end\n");
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files["out/trace-intervals-hostname-testhost.csv"], kVtuneIntervals);
  EXPECT_EQ(r.files["out/trace-counters-hostname-testhost.csv"], kVtuneCounters);
}

TEST_F(GoldenTest, VtuneCsvPrefixAndFilter) {
  DumpResult r = Run({"vtune-csv", "--prefix=phases", "--thread=102", "trace.itt", "-o", "d"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.files["d/phases-intervals-hostname-testhost.csv"],
            "name,start_tsc.RDTSC,end_tsc,pid,tid\n"
            "overlap,1150,2050,4242,102\n");
  // Only the counter with samples on that thread has a column.
  EXPECT_EQ(r.files["d/phases-counters-hostname-testhost.csv"],
            "tsc.RDTSC,temperature.INST,pid,tid\n"
            "1700,21.5,4242,102\n");
}

// Names and domains that CSV quotes, on every row that repeats them (the
// writer formats a row's first and last columns once per name, domain and
// thread), and two threads of one tid in two processes of one boot.
TEST(VtuneCsv, QuotesEveryRowsNameAndKeepsEachProcessPid) {
  const auto trace = [](uint32_t pid, const char* name, const char* domain) {
    format::FileHeader h = TestHeader();
    h.pid = pid;
    h.boot_id[0] = 0x42;  // one boot: one pass over both files
    TraceBuilder b(h);
    b.String(1, name).String(2, "plain").Domain(1, "d").Domain(2, domain);
    b.Thread(0, 7, "t").SyncAt(1000);
    std::vector<format::Event> events;
    uint64_t t = 1100;
    for (int i = 0; i < 2; ++i) {
      for (const uint64_t task : {1, 2}) {
        events.push_back(
            Ev(format::EventKind::kTaskBegin, t += 10, {{F::kDomain, U(1)}, {F::kName, U(task)}}));
        events.push_back(Ev(format::EventKind::kTaskEnd, t += 10, {{F::kDomain, U(1)}}));
      }
      events.push_back(Ev(format::EventKind::kFrameBegin, t += 10, {{F::kDomain, U(2)}}));
      events.push_back(Ev(format::EventKind::kFrameEnd, t += 10, {{F::kDomain, U(2)}}));
    }
    b.Events(0, events);
    b.SyncAt(3000).End(3000);
    return b.bytes();
  };
  DumpResult r = RunDump({"vtune-csv", "a.itt", "-o", "o"}, trace(11, "a,b", "x\"y"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.files["o/a-intervals-hostname-testhost.csv"],
            "name,start_tsc.RDTSC,end_tsc,pid,tid\n"
            "\"a,b\",1110,1120,11,7\n"
            "plain,1130,1140,11,7\n"
            "\"x\"\"y\",1150,1160,11,\n"
            "\"a,b\",1170,1180,11,7\n"
            "plain,1190,1200,11,7\n"
            "\"x\"\"y\",1210,1220,11,\n");
  // Each file of a set under its own pid, the same tid in both: on every
  // core (a piece's rows are one thread's) and on one (every row formatted
  // by one writer).
  const std::map<std::string, std::string> run = {{"run/a.itt", trace(11, "a,b", "x\"y")},
                                                  {"run/b.itt", trace(12, "a,b", "x\"y")}};
  for (const bool one_core : {false, true}) {
    r = one_core ? RunDumpOnOneCore({"vtune-csv", "run", "-o", "o"}, run)
                 : RunDump({"vtune-csv", "run", "-o", "o"}, run);
    EXPECT_EQ(r.status, 0) << r.err;
    const std::string& rows = r.files["o/run-intervals-hostname-testhost.csv"];
    EXPECT_NE(rows.find("\"a,b\",1110,1120,11,7\n"), std::string::npos) << rows;
    EXPECT_NE(rows.find("\"a,b\",1110,1120,12,7\n"), std::string::npos) << rows;
    EXPECT_NE(rows.find("\"x\"\"y\",1210,1220,12,\n"), std::string::npos) << rows;
  }
}

// Two boots of one host (the sample's boot id is unknown: each file is a
// boot of its own) write a set of files each: the second's names say so,
// where it wrote over the first's before.
TEST_F(GoldenTest, VtuneCsvWritesEachBootOfOneHostToItsOwnFiles) {
  DumpResult r =
      RunDump({"vtune-csv", "run", "-o", "o"},
              std::map<std::string, std::string>{{"run/a.itt", trace_}, {"run/b.itt", trace_}});
  EXPECT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.files.size(), 4u);
  EXPECT_EQ(r.files["o/run-intervals-hostname-testhost.csv"], kVtuneIntervals);
  EXPECT_EQ(r.files["o/run-counters-hostname-testhost.csv"], kVtuneCounters);
  EXPECT_EQ(r.files["o/run-boot2-intervals-hostname-testhost.csv"], kVtuneIntervals);
  EXPECT_EQ(r.files["o/run-boot2-counters-hostname-testhost.csv"], kVtuneCounters);
}

// --from and --to count from the set's start (the earliest trace's) for
// vtune-csv too, whose files are per host with each host's own clock: a
// host that starts 1 ms after the other keeps all its rows from 1 ms on,
// and none before.
TEST(VtuneCsv, TimeFiltersCountFromTheSetsStartOnEveryHost) {
  const auto trace = [](const char* host, uint8_t boot, int64_t later_ns) {
    format::FileHeader h = TestHeader();
    const uint64_t start = h.start_ticks;
    const uint64_t mono = h.start_monotonic_raw_ns;
    const int64_t real = h.start_realtime_ns + later_ns;
    h.host_name = host;
    h.boot_id[0] = boot;
    h.start_realtime_ns = real;
    TraceBuilder b(h);
    b.String(1, "work").Domain(1, "d").Thread(0, 7, "t");
    b.Sync(start, mono, real);
    std::vector<format::Event> events;
    for (uint64_t t = start + 100; t < start + 900000; t += 100000) {
      events.push_back(
          Ev(format::EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
      events.push_back(Ev(format::EventKind::kTaskEnd, t + 50, {{F::kDomain, U(1)}}));
    }
    b.Events(0, events);
    b.Sync(start + 1000000, mono + 1000000, real + 1000000);
    b.End(start + 1000000);
    return b.bytes();
  };
  const std::map<std::string, std::string> run = {{"run/x.itt", trace("hostX", 1, 0)},
                                                  {"run/y.itt", trace("hostY", 2, 1000000)}};
  const std::string x = "o/run-intervals-hostname-hostX.csv";
  const std::string y = "o/run-intervals-hostname-hostY.csv";
  const std::string header = "name,start_tsc.RDTSC,end_tsc,pid,tid\n";
  for (const bool one_core : {false, true}) {
    const auto vtune = [&](std::vector<std::string> args) {
      args.insert(args.begin(), "vtune-csv");
      args.insert(args.end(), {"run", "-o", "o"});
      return one_core ? RunDumpOnOneCore(args, run) : RunDump(args, run);
    };
    const DumpResult all = vtune({});
    ASSERT_EQ(all.status, 0) << all.err;
    ASSERT_EQ(std::count(all.files.at(x).begin(), all.files.at(x).end(), '\n'), 10);
    ASSERT_EQ(all.files.at(y), all.files.at(x));  // the same rows, each on its own clock
    const DumpResult from = vtune({"--from=1000000"});
    EXPECT_EQ(from.status, 0) << from.err;
    EXPECT_EQ(from.files.at(x), header);
    EXPECT_EQ(from.files.at(y), all.files.at(y));
    const DumpResult to = vtune({"--to=999999"});
    EXPECT_EQ(to.status, 0) << to.err;
    EXPECT_EQ(to.files.at(x), all.files.at(x));
    EXPECT_EQ(to.files.at(y), header);
  }
  // As text counts them.
  const DumpResult text = RunDump({"text", "--from=1000000", "run"}, run);
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 18) << text.out;
}

// A v3 counter (__itt_counter_create_v3) set by its handle and
// incremented by its domain and name is one counter: one row, its value
// 10, 11, 16, 15, on every core (in stretches too) and on one.
TEST(Stats, AV3CounterSetAndIncrementedIsOneCounter) {
  TraceBuilder b(TestHeader());
  b.String(1, "x").Domain(1, "dom");
  b.Counter(7, "x", "dom", 1, format::MetadataType::kU64);
  b.Thread(0, 101, "main").SyncAt(1000);
  std::vector<format::Event> events;
  events.push_back(Ev(format::EventKind::kCounterSetValueV3, 1100,
                      {{F::kCounter, U(7)},
                       {F::kType, U(static_cast<uint64_t>(format::MetadataType::kU64))},
                       {F::kValue, U(10)}}));
  events.push_back(
      Ev(format::EventKind::kCounterIncV3, 1200, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
  events.push_back(Ev(format::EventKind::kCounterIncDeltaV3, 1300,
                      {{F::kDomain, U(1)}, {F::kName, U(1)}, {F::kDelta, U(5)}}));
  events.push_back(
      Ev(format::EventKind::kCounterDecV3, 1400, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
  b.Events(0, events);
  b.End(1500);
  const std::string trace = b.bytes();
  const std::vector<std::string> args = {"stats", "--format=csv", "trace.itt"};
  for (const DumpResult& r :
       {RunDump(args, trace), RunDumpOnOneCore(args, trace), RunDumpInStretches(args, trace, 1)}) {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("counters,dom,x,4,10,16,15\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("counters,dom,x,3,"), std::string::npos) << r.out;
  }
}

TEST_F(GoldenTest, VerifyCleanTrace) {
  DumpResult r = Run({"verify", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "trace.itt: ok (10 chunks, 32 events, 0 problems, 0 warnings)\n");
}

// A trace of one timebase with one task and one counter sample.
std::string OneTaskTrace(format::Timebase timebase) {
  format::FileHeader h = TestHeader();
  h.timebase = timebase;
  h.host_name = "build/host 7";
  TraceBuilder b(h);
  b.String(1, "job").Domain(1, "d").Counter(1, "depth, max", "d", 1, format::MetadataType::kS64);
  b.Thread(0, 55, "t").SyncAt(1000);
  b.Events(0,
           {Ev(format::EventKind::kTaskBegin, 1500, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
            Ev(format::EventKind::kCounterSetValue, 1600,
               {{F::kCounter, U(1)}, {F::kType, U(2)}, {F::kValue, U(static_cast<uint64_t>(-3))}}),
            Ev(format::EventKind::kTaskEnd, 2500, {{F::kDomain, U(1)}})});
  b.SyncAt(3000).End(3000);
  return b.bytes();
}

TEST(VtuneCsvTimebase, MonotonicRawTraceUsesItsOwnClock) {
  DumpResult r =
      RunDump({"vtune-csv", "x.itt", "-o", "o"}, OneTaskTrace(format::Timebase::kMonotonicRawNs));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.files["o/x-intervals-hostname-build_host_7.csv"],
            "name,start_tsc.CLOCK_MONOTONIC_RAW,end_tsc,pid,tid\n"
            "job,1500,2500,4242,55\n");
  // A counter name with a comma is quoted as one CSV field.
  EXPECT_EQ(r.files["o/x-counters-hostname-build_host_7.csv"],
            "tsc.CLOCK_MONOTONIC_RAW,\"depth, max.INST\",pid,tid\n"
            "1600,-3,4242,55\n");
}

TEST(VtuneCsvTimebase, UnknownTimebaseIsConvertedToMonotonicRaw) {
  DumpResult r =
      RunDump({"vtune-csv", "x.itt", "-o", "o"}, OneTaskTrace(format::Timebase::kUnknown));
  EXPECT_EQ(r.status, 0);
  // start_monotonic_raw_ns 5000000000 + ns since start (ticks - 1000).
  EXPECT_EQ(r.files["o/x-intervals-hostname-build_host_7.csv"],
            "name,start_tsc.CLOCK_MONOTONIC_RAW,end_tsc,pid,tid\n"
            "job,5000000500,5000001500,4242,55\n");
}

TEST(LostThreadInfo, ThreadShowsAsItsIndex) {
  TraceBuilder b;
  b.String(1, "job").Domain(1, "d");
  b.Events(3, {Ev(format::EventKind::kTaskBegin, 1500, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(format::EventKind::kTaskEnd, 2500, {{F::kDomain, U(1)}})});
  b.End(3000);
  DumpResult text = RunDump({"text", "x.itt"}, b.bytes());
  EXPECT_EQ(text.out,
            "500 #3 task_begin d \"job\" id=- parent=-\n"
            "1500 #3 task_end d \"job\"\n");
  // Its tid is made up (2^22 + its index: above any Linux tid), so that
  // the exports keep two such threads apart (review helper 41: both were
  // tid 0, their slices on one chrome thread).
  DumpResult info = RunDump({"info", "x.itt"}, b.bytes());
  EXPECT_NE(info.out.find("  tid 4194307 \"\" (index 3): 2 events, no thread info\n"),
            std::string::npos)
      << info.out;
  b.Events(2, {Ev(format::EventKind::kTaskBegin, 1600, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(format::EventKind::kTaskEnd, 2600, {{F::kDomain, U(1)}})});
  DumpResult chrome = RunDump({"chrome", "x.itt", "-o", "-"}, b.bytes());
  EXPECT_NE(chrome.out.find("\"tid\":4194306,"), std::string::npos) << chrome.out;
  EXPECT_NE(chrome.out.find("\"tid\":4194307,"), std::string::npos) << chrome.out;
  EXPECT_EQ(chrome.out.find("\"ph\":\"X\",\"pid\":4242,\"tid\":0,"), std::string::npos)
      << chrome.out;
}

TEST_F(GoldenTest, ChromeNameFilterKeepsOnlyMatchingTasks) {
  DumpResult r = Run({"chrome", "--name=work", "trace.itt"});
  EXPECT_EQ(r.status, 0);
  // One line per event (3 names, 3 "work" tasks; frames have no name) and
  // two closing lines.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3 + 3 + 2) << r.out;
  EXPECT_EQ(r.out.find("main_loop"), std::string::npos);
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
