// Tests of `itt-dump leaks` and `itt-dump perf-map`: a real program that
// leaks through the ITT heap hooks, run under the collector; hand-built
// traces for reallocation, unknown frees, grouping, filters and the JSON
// keys; and the perf map's lines.

#include <sys/wait.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/trace_builder.h"

namespace ittc::testing {
namespace {

using format::EventKind;
using itt_dump::testing::B;
using itt_dump::testing::DumpResult;
using itt_dump::testing::Ev;
using itt_dump::testing::F;
using itt_dump::testing::RunDump;
using itt_dump::testing::TraceBuilder;
using itt_dump::testing::U;

std::string ReadFile(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

std::string RunLeakyProgram() {
  const std::string dir = MakeTempDir("leaky");
  const std::string trace = dir + "/leaky.itt";
  const std::string lib = Runfile("collector/libittcollector.so");
  const int status = RunProgram({Runfile("tests/tools/leaky_program")},
                                {"INTEL_LIBITTNOTIFY64=" + lib, "ITTC_OUTPUT=" + trace},
                                dir + "/stdout.txt", dir + "/stderr.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return ReadFile(trace);
}

TEST(Leaks, ARealProgramsLeaksAreFoundWithTheirTasks) {
  const std::string trace = RunLeakyProgram();
  ASSERT_FALSE(trace.empty());
  DumpResult r = RunDump({"leaks", "--format=json", "trace.itt"}, trace);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string& j = r.out;
  EXPECT_NE(j.find("\"leaked_count\":5,"), std::string::npos) << j;
  EXPECT_NE(j.find("\"leaked_bytes\":6333,"), std::string::npos) << j;
  // Peak: 10 pool blocks (1000) then, after 7 frees, 300 + 4000 -> 300 +
  // 6000 = 6300, + 33 = 6333.
  EXPECT_NE(j.find("\"peak_live_bytes\":6333,"), std::string::npos) << j;
  EXPECT_NE(j.find("\"unknown_frees\":1"), std::string::npos) << j;
  // Three pool blocks of task "load", the reallocated block of "parse",
  // the block allocated outside any task.
  int load = 0;
  for (size_t at = j.find("\"size\":100,\"function\":\"pool_alloc\",\"domain\":\"leaky\"");
       at != std::string::npos;
       at = j.find("\"size\":100,\"function\":\"pool_alloc\",\"domain\":\"leaky\"", at + 1)) {
    ++load;
    EXPECT_NE(j.find("\"task\":\"load\"", at), std::string::npos);
  }
  EXPECT_EQ(load, 3) << j;
  EXPECT_NE(j.find("\"size\":6000,\"function\":\"big_alloc\""), std::string::npos) << j;
  const size_t big = j.find("\"size\":6000");
  EXPECT_EQ(j.find("\"task\":\"parse\"", big), j.find("\"task\":", big)) << j;
  const size_t outside = j.find("\"size\":33,");
  ASSERT_NE(outside, std::string::npos) << j;
  EXPECT_EQ(j.find("\"task\":\"\"", outside), j.find("\"task\":", outside)) << j;
}

TEST(Leaks, GroupsAreByHeapFunctionAndTaskLargestFirst) {
  DumpResult r = RunDump({"leaks", "--group", "--format=csv", "trace.itt"}, RunLeakyProgram());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string& out = r.out;
  const size_t big = out.find("leak_groups,big_alloc,leaky,parse,1,6000");
  const size_t load = out.find("leak_groups,pool_alloc,leaky,load,3,300");
  const size_t none = out.find("leak_groups,pool_alloc,leaky,,1,33");
  ASSERT_NE(big, std::string::npos) << out;
  ASSERT_NE(load, std::string::npos) << out;
  ASSERT_NE(none, std::string::npos) << out;
  EXPECT_LT(big, load);
  EXPECT_LT(load, none);
}

TEST(Leaks, FiltersSelectLeaksButEveryCallIsPaired) {
  const std::string trace = RunLeakyProgram();
  DumpResult r = RunDump({"leaks", "--format=json", "--name=big_*", "trace.itt"}, trace);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"leaked_count\":1,\"leaked_bytes\":6000,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"peak_live_bytes\":6000,"), std::string::npos) << r.out;
}

// A trace the builder makes: a free of a block allocated before the time
// window still frees it; a reallocation moves the block.
TEST(Leaks, ReallocationMovesTheBlockAndFreesAreNeverFatal) {
  TraceBuilder b;
  b.Domain(1, "d").HeapFunction(1, "h", "d").Thread(0, 7, "main");
  b.Events(0, {Ev(EventKind::kHeapAllocateEnd, 1100,
                  {{F::kFunction, U(1)}, {F::kAddr, U(0x1000)}, {F::kSize, U(10)}}),
               Ev(EventKind::kHeapReallocateEnd, 1200,
                  {{F::kFunction, U(1)},
                   {F::kAddr, U(0x1000)},
                   {F::kNewAddr, U(0x2000)},
                   {F::kNewSize, U(20)}}),
               Ev(EventKind::kHeapFreeEnd, 1300, {{F::kFunction, U(1)}, {F::kAddr, U(0x1000)}}),
               Ev(EventKind::kHeapFreeEnd, 1400, {{F::kFunction, U(1)}, {F::kAddr, U(0x9999)}})});
  b.End(2000);
  DumpResult r = RunDump({"leaks", "--format=json", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"leaked_count\":1,\"leaked_bytes\":20,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"address\":\"0x2000\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"unknown_frees\":2"), std::string::npos) << r.out;
}

// A block reallocated on another thread, by another heap function, later
// is the allocation it comes from: listed, ordered and selected with that
// allocation's function, thread and time. A reallocation that returned 0
// for a nonzero size failed (its block stays, nothing is allocated), as did
// an allocation that returned 0, and free(NULL) frees nothing and is no
// unknown free.
TEST(Leaks, AReallocatedBlockIsItsFirstAllocationAndAFailedOneChangesNothing) {
  TraceBuilder b;
  b.Domain(1, "d").HeapFunction(1, "alloc", "d").HeapFunction(2, "resize", "d");
  b.Thread(0, 7, "first").Thread(1, 8, "second");
  b.Events(0, {Ev(EventKind::kHeapAllocateEnd, 1100,
                  {{F::kFunction, U(1)}, {F::kAddr, U(0x1000)}, {F::kSize, U(10)}}),
               Ev(EventKind::kHeapAllocateEnd, 1200,
                  {{F::kFunction, U(1)}, {F::kAddr, U(0x3000)}, {F::kSize, U(30)}}),
               Ev(EventKind::kHeapReallocateEnd, 1300,
                  {{F::kFunction, U(2)},
                   {F::kAddr, U(0x3000)},
                   {F::kNewAddr, U(0)},
                   {F::kNewSize, U(uint64_t{1} << 40)}}),
               Ev(EventKind::kHeapFreeEnd, 1400, {{F::kFunction, U(1)}, {F::kAddr, U(0)}}),
               Ev(EventKind::kHeapAllocateEnd, 1500,
                  {{F::kFunction, U(1)}, {F::kAddr, U(0)}, {F::kSize, U(uint64_t{1} << 30)}})});
  b.Events(1, {Ev(EventKind::kHeapReallocateEnd, 1700,
                  {{F::kFunction, U(2)},
                   {F::kAddr, U(0x1000)},
                   {F::kNewAddr, U(0x2000)},
                   {F::kNewSize, U(20)}})});
  b.End(2000);
  DumpResult r = RunDump({"leaks", "--format=csv", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  // The moved block first (allocated at 1100), then the one the failed
  // reallocation left.
  const size_t moved = r.out.find("leaks,0x2000,20,alloc,d,7,");
  const size_t kept = r.out.find("leaks,0x3000,30,alloc,d,7,");
  ASSERT_NE(moved, std::string::npos) << r.out;
  ASSERT_NE(kept, std::string::npos) << r.out;
  EXPECT_LT(moved, kept) << r.out;
  EXPECT_NE(r.out.find("summary,2,50,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",0,0\n"), std::string::npos) << r.out;  // no unknown frees
  // Selected by the allocation's function and thread.
  r = RunDump({"leaks", "--format=json", "--name=alloc", "--thread=7", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"leaked_count\":2,\"leaked_bytes\":50,"), std::string::npos) << r.out;
  r = RunDump({"leaks", "--format=json", "--name=resize", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"leaked_count\":0,"), std::string::npos) << r.out;
  // stats: the failed reallocation and allocation allocated no bytes.
  r = RunDump({"stats", "--format=csv", "trace.itt"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("heap,resize,d,0,2,0,20,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("heap,alloc,d,3,0,1,40,"), std::string::npos) << r.out;
}

TEST(PerfMap, OneLinePerMethodLoadInLoadOrder) {
  TraceBuilder b;
  b.Thread(0, 7, "main").Thread(1, 8, "jit");
  b.Events(0, {Ev(EventKind::kJitMethodLoad, 1100,
                  {{F::kMethodId, U(1)},
                   {F::kMethodName, B("conv_kernel")},
                   {F::kAddress, U(0x7f0000001000)},
                   {F::kSize, U(0x200)}}),
               Ev(EventKind::kJitMethodLoadV2, 1300,
                  {{F::kMethodId, U(3)}, {F::kAddress, U(0x7f0000003000)}, {F::kSize, U(64)}})});
  b.Events(1, {Ev(EventKind::kJitMethodLoad, 1200,
                  {{F::kMethodId, U(2)},
                   {F::kMethodName, B("relu kernel")},
                   {F::kAddress, U(0x7f0000002000)},
                   {F::kSize, U(0x80)}}),
               Ev(EventKind::kJitInlineLoad, 1250,
                  {{F::kMethodId, U(9)},
                   {F::kParentMethodId, U(2)},
                   {F::kMethodName, B("inlined")},
                   {F::kAddress, U(0x7f0000002010)},
                   {F::kSize, U(0x10)}})});
  b.End(2000);
  DumpResult r = RunDump({"perf-map", "trace.itt", "-o", "maps"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.files.count("maps/perf-4242.map"), 1u) << r.err;
  EXPECT_EQ(r.files["maps/perf-4242.map"],
            "7f0000001000 200 conv_kernel\n"
            "7f0000002000 80 relu kernel\n"
            "7f0000003000 40 jit_method_3\n");
}

// METHOD_UPDATE moves a method's code: without a name, the line names the
// method its load named; an update of a method no load named keeps the id.
TEST(PerfMap, AnUpdateWithoutANameIsNamedAsItsMethodsLoad) {
  TraceBuilder b;
  b.Thread(0, 7, "main");
  b.Events(0, {Ev(EventKind::kJitMethodLoad, 1100,
                  {{F::kMethodId, U(1)},
                   {F::kMethodName, B("conv_kernel")},
                   {F::kAddress, U(0x7f0000001000)},
                   {F::kSize, U(0x200)}}),
               Ev(EventKind::kJitMethodUpdate, 1200,
                  {{F::kMethodId, U(1)}, {F::kAddress, U(0x7f0000005000)}, {F::kSize, U(0x300)}}),
               Ev(EventKind::kJitMethodUpdate, 1300,
                  {{F::kMethodId, U(4)}, {F::kAddress, U(0x7f0000006000)}, {F::kSize, U(0x10)}})});
  b.End(2000);
  DumpResult r = RunDump({"perf-map", "trace.itt", "-o", "maps"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.files["maps/perf-4242.map"],
            "7f0000001000 200 conv_kernel\n"
            "7f0000005000 300 conv_kernel\n"
            "7f0000006000 10 jit_method_4\n");
}

// Every load of one method id is a region of that one method, named by
// its first load (jitprofiling.h): a second region's other name does not
// rename it, and an update without a name keeps it.
TEST(PerfMap, AMethodsLaterRegionsKeepItsFirstName) {
  TraceBuilder b;
  b.Thread(0, 7, "main");
  b.Events(0, {Ev(EventKind::kJitMethodLoad, 1100,
                  {{F::kMethodId, U(1)},
                   {F::kMethodName, B("foo")},
                   {F::kAddress, U(0x100000)},
                   {F::kSize, U(0x20)}}),
               Ev(EventKind::kJitMethodLoad, 1200,
                  {{F::kMethodId, U(1)},
                   {F::kMethodName, B("foo_cold")},
                   {F::kAddress, U(0x200000)},
                   {F::kSize, U(0x30)}}),
               Ev(EventKind::kJitMethodUpdate, 1300,
                  {{F::kMethodId, U(1)}, {F::kAddress, U(0x300000)}, {F::kSize, U(0x8)}})});
  b.End(2000);
  DumpResult r = RunDump({"perf-map", "trace.itt", "-o", "maps"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.files["maps/perf-4242.map"],
            "100000 20 foo\n"
            "200000 30 foo\n"
            "300000 8 foo\n");
}

TEST(PerfMap, NeedsAnOutputDirectory) {
  TraceBuilder b;
  b.End(2000);
  DumpResult r = RunDump({"perf-map", "trace.itt"}, b.bytes());
  EXPECT_EQ(r.status, 64);
}

}  // namespace
}  // namespace ittc::testing
