// Several traces read as one run (model/trace_set.h): the verbs over the
// processes of one boot (shared TSC), of two hosts (wall clock), with a
// damaged file among them, and directories as FILE arguments.

#include "tools/itt_dump/model/trace_set.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/trace_builder.h"
#include "tools/itt_dump/cli.h"

namespace ittc::itt_dump {
namespace {

using format::EventKind;
using testing::Ev;
using testing::I;
using testing::Null;
using testing::RunDump;
using testing::U;
using F = format::Field;

constexpr std::array<uint8_t, 16> kBootA = {0xa0, 1, 2, 3};
constexpr std::array<uint8_t, 16> kBootB = {0xb0, 1, 2, 3};

format::FileHeader Header(uint32_t pid, int64_t rank, const std::string& host,
                          const std::array<uint8_t, 16>& boot) {
  format::FileHeader h = testing::TestHeader();
  h.pid = pid;
  h.rank = rank;
  h.host_name = host;
  h.boot_id = boot;
  return h;
}

// A process of one boot: task "work" from `begin` to `end` (its string id
// is `work_id`: the two files number their strings differently), and a
// heap block at 0xa000 that it allocates (`alloc`) or frees.
std::string Process(uint32_t pid, int64_t rank, uint64_t tid, uint64_t work_id, uint64_t begin,
                    uint64_t end, bool alloc) {
  testing::TraceBuilder b(Header(pid, rank, "node1", kBootA));
  b.String(work_id, "work").String(3 - work_id, "io").Domain(1, "app");
  b.HeapFunction(1, "malloc", "libc");
  b.Thread(0, tid, "main").SyncAt(1000);
  std::vector<format::Event> ev = {
      Ev(EventKind::kTaskBegin, begin,
         {{F::kDomain, U(1)}, {F::kId, Null()}, {F::kParent, Null()}, {F::kName, U(work_id)}}),
      Ev(EventKind::kTaskEnd, end, {{F::kDomain, U(1)}}),
  };
  if (alloc) {
    ev.push_back(Ev(EventKind::kHeapAllocateEnd, end + 10,
                    {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}, {F::kSize, U(64)}}));
  } else {
    ev.push_back(
        Ev(EventKind::kHeapFreeEnd, end + 10, {{F::kFunction, U(1)}, {F::kAddr, U(0xa000)}}));
  }
  b.Events(0, ev).SyncAt(5000).End(5000);
  return b.bytes();
}

std::map<std::string, std::string> TwoRanks() {
  return {{"run/r0.itt", Process(100, 0, 11, 1, 1100, 1200, true)},
          {"run/r1.itt", Process(200, 1, 21, 2, 1150, 1350, false)}};
}

// A process of one boot with a v3 counter "hits" (domain "d"): set to 100
// by its id, then 10 incs of 5 by (domain, name).
std::string V3CounterProcess(uint32_t pid, int64_t rank, uint64_t tid) {
  testing::TraceBuilder b(Header(pid, rank, "node1", kBootA));
  b.String(1, "hits").Domain(1, "d").Counter(7, "hits", "d", 1, format::MetadataType::kU64);
  b.Thread(0, tid, "main").SyncAt(1000);
  std::vector<format::Event> ev = {testing::CounterSetU64(1100, 7, 100)};
  for (uint64_t i = 0; i < 10; ++i) {
    ev.push_back(Ev(EventKind::kCounterIncDeltaV3, 1200 + i,
                    {{F::kDomain, U(1)}, {F::kName, U(1)}, {F::kDelta, U(5)}}));
  }
  b.Events(0, ev).SyncAt(5000).End(5000);
  return b.bytes();
}

// Each process of a set has its own v3 counter: its incs by (domain, name)
// join its own create_v3's counter, not the other process's or a counter
// of the two.
TEST(TraceSetVerbs, AV3CounterOfEachProcessTakesItsOwnIncs) {
  const std::map<std::string, std::string> run = {{"run/r0.itt", V3CounterProcess(100, 0, 11)},
                                                  {"run/r1.itt", V3CounterProcess(200, 1, 21)}};
  const std::vector<std::string> args = {"stats", "--format=csv", "run"};
  for (const testing::DumpResult& r : {RunDump(args, run), testing::RunDumpOnOneCore(args, run)}) {
    ASSERT_EQ(r.status, 0) << r.err;
    // Two rows, each process's counter as it was alone.
    const std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string& l) { return absl::StartsWith(l, "counters,"); }),
              2)
        << r.out;
    EXPECT_EQ(std::count(lines.begin(), lines.end(), "counters,d,hits,11,100,150,150"), 2) << r.out;
  }
}

TEST(TraceSetVerbs, TextOrdersEveryProcessOnTheSharedTscAndLabelsTheRank) {
  const testing::DumpResult r = RunDump({"text", "run"}, TwoRanks());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string want =
      "100 r0:11/main task_begin app \"work\" id=- parent=-\n"
      "150 r1:21/main task_begin app \"work\" id=- parent=-\n"
      "200 r0:11/main task_end app \"work\"\n"
      "210 r0:11/main heap_allocate_end libc \"malloc\" addr=0xa000 size=64 initialized=0\n"
      "350 r1:21/main task_end app \"work\"\n"
      "360 r1:21/main heap_free_end libc \"malloc\" addr=0xa000\n";
  EXPECT_EQ(r.out, want);
}

TEST(TraceSetModel, NullIdsAndAddressesStayNullInEveryProcess) {
  std::vector<TraceSource> sources;
  const std::map<std::string, std::string> run = TwoRanks();
  for (const auto& [name, bytes] : run) sources.push_back(TraceSource::Memory(bytes, name));
  const TraceSet set = TraceSet::Open(std::move(sources), IndexOptions());
  TraceSetMerger merger(set, MergeOptions());
  const format::Event* e;
  const ThreadRec* t;
  int begins = 0;
  while (merger.Next(&e, &t)) {
    if (e->kind != EventKind::kTaskBegin) continue;
    ++begins;
    EXPECT_EQ(e->GetId(F::kId), format::Id{}) << "process " << t->process;
    EXPECT_EQ(e->GetId(F::kParent), format::Id{});
  }
  EXPECT_EQ(begins, 2);
}

// The same __itt_id and object address in two processes are two
// identities on the merged stream (the second process's carry its tag in
// d1 and the address's top byte); the first process's stay as written.
TEST(TraceSetModel, IdsAndAddressesOfEachProcessAreItsOwn) {
  const auto process = [](uint32_t pid, int64_t rank, uint64_t tid) {
    testing::TraceBuilder b(Header(pid, rank, "node1", kBootA));
    b.String(1, "work").Domain(1, "app").String(2, "mutex").String(3, "lock");
    b.Thread(0, tid, "main").SyncAt(1000);
    b.Events(
         0,
         {
             Ev(EventKind::kTaskBeginOverlapped, 1100,
                {{F::kDomain, U(1)}, {F::kId, I(5, 6, 7)}, {F::kParent, I(9)}, {F::kName, U(1)}}),
             Ev(EventKind::kSyncCreate, 1110,
                {{F::kAddr, U(0xb000)}, {F::kObjtype, U(2)}, {F::kObjname, U(3)}}),
             Ev(EventKind::kTaskEndOverlapped, 1200, {{F::kDomain, U(1)}, {F::kId, I(5, 6, 7)}}),
         })
        .SyncAt(5000)
        .End(5000);
    return b.bytes();
  };
  std::vector<TraceSource> sources;
  const std::string r0 = process(100, 0, 11);
  const std::string r1 = process(200, 1, 21);
  sources.push_back(TraceSource::Memory(r0, "run/r0.itt"));
  sources.push_back(TraceSource::Memory(r1, "run/r1.itt"));
  const TraceSet set = TraceSet::Open(std::move(sources), IndexOptions());
  TraceSetMerger merger(set, MergeOptions());
  const format::Event* e;
  const ThreadRec* t;
  int seen[2] = {0, 0};
  while (merger.Next(&e, &t)) {
    const uint64_t tag = ProcessTag(t->process);
    ASSERT_LT(t->process, 2u);
    ++seen[t->process];
    switch (e->kind) {
      case EventKind::kTaskBeginOverlapped:
        EXPECT_EQ(e->GetId(F::kId), (format::Id{5 ^ tag, 6, 7})) << t->process;
        EXPECT_EQ(e->GetId(F::kParent), (format::Id{9 ^ tag, 0, 0})) << t->process;
        break;
      case EventKind::kTaskEndOverlapped:
        EXPECT_EQ(e->GetId(F::kId), (format::Id{5 ^ tag, 6, 7})) << t->process;
        break;
      case EventKind::kSyncCreate:
        EXPECT_EQ(e->Get(F::kAddr), 0xb000 ^ tag) << t->process;
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(seen[0], 3);
  EXPECT_EQ(seen[1], 3);
  EXPECT_NE(ProcessTag(1), 0u);
}

TEST(TraceSetVerbs, StatsSumOverProcessesByNameAndSplitPerProcess) {
  const testing::DumpResult r =
      RunDump({"stats", "--format=csv", "--per-process", "run"}, TwoRanks());
  ASSERT_EQ(r.status, 0) << r.err;
  // One row for "work" over both processes (its ids differ per file).
  EXPECT_NE(r.out.find("app,work,task,2,300,300,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("app,io,"), std::string::npos) << r.out;
  // process_tasks: one row per process.
  EXPECT_NE(r.out.find("100,rank 0 (node1) demo,app,work,task,1,100,100,"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("200,rank 1 (node1) demo,app,work,task,1,200,200,"), std::string::npos)
      << r.out;
}

// Frames and overlapped tasks of one domain with null ids in two
// processes that overlap in time: each process's end closes its own
// (paired across processes the two would be 50 and 250 ns). On every core
// (each thread is alone in its process: its pieces pair the frames) and
// on one.
TEST(TraceSetVerbs, FramesAndOverlappedTasksArePairedInTheirProcess) {
  const auto process = [](uint32_t pid, int64_t rank, uint64_t begin, uint64_t end) {
    testing::TraceBuilder b(Header(pid, rank, "node1", kBootA));
    b.Domain(1, "frames").String(1, "copy");
    b.Thread(0, pid + 1, "main").SyncAt(1000);
    b.Events(0, {Ev(EventKind::kFrameBegin, begin, {{F::kDomain, U(1)}, {F::kId, Null()}}),
                 Ev(EventKind::kTaskBeginOverlapped, begin,
                    {{F::kDomain, U(1)}, {F::kId, Null()}, {F::kParent, Null()}, {F::kName, U(1)}}),
                 Ev(EventKind::kTaskEndOverlapped, end, {{F::kDomain, U(1)}, {F::kId, Null()}}),
                 Ev(EventKind::kFrameEnd, end, {{F::kDomain, U(1)}, {F::kId, Null()}})})
        .SyncAt(5000)
        .End(5000);
    return b.bytes();
  };
  const std::map<std::string, std::string> run = {{"run/r0.itt", process(100, 0, 1100, 1200)},
                                                  {"run/r1.itt", process(200, 1, 1150, 1350)}};
  const std::vector<std::string> args = {"stats", "--format=csv", "run"};
  for (const testing::DumpResult& r : {RunDump(args, run), testing::RunDumpOnOneCore(args, run)}) {
    ASSERT_EQ(r.status, 0) << r.err;
    // count, rate, then min, mean, p50, p90, p99, max.
    EXPECT_NE(r.out.find("\nframes,frames,2,8000000.000,100,150,100,200,200,200\n"),
              std::string::npos)
        << r.out;
    // count, total, self, then the durations.
    EXPECT_NE(r.out.find("\ntasks,frames,copy,overlapped_task,2,300,300,100,150,100,200,200,200\n"),
              std::string::npos)
        << r.out;
  }
}

TEST(TraceSetVerbs, AddressesOfTwoProcessesNeverMeet) {
  // Rank 0 allocates 0xa000 and never frees it; rank 1 frees its own
  // 0xa000, which it never allocated.
  const testing::DumpResult r = RunDump({"leaks", "--format=json", "run"}, TwoRanks());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"leaked_count\":1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"address\":\"0xa000\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"tid\":11"), std::string::npos) << r.out;
}

// 257 ranks: the first allocates 0xa000 and the others free their own
// 0xa000, which they never allocated. Rank 256's tag is not rank 0's
// (an 8-bit tag made them one, and its free released rank 0's block).
TEST(TraceSetVerbs, AddressesOfProcessesPast256NeverMeet) {
  std::map<std::string, std::string> run;
  for (int rank = 0; rank < 257; ++rank) {
    run[absl::StrFormat("run/r%03d.itt", rank)] =
        Process(100 + rank, rank, 11 + rank, 1, 1100, 1200, rank == 0);
  }
  const testing::DumpResult r = RunDump({"leaks", "--format=json", "run"}, run);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"leaked_count\":1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"unknown_frees\":256"), std::string::npos) << r.out;
}

// A file that lost the definition of a string it uses (here: never wrote
// it) does not take another file's text for it: the id is undefined in the
// set, as in the file alone.
TEST(TraceSetVerbs, AnIdAFileDoesNotDefineIsNoOtherFilesName) {
  testing::TraceBuilder a(Header(100, 0, "node1", kBootA));
  a.Domain(1, "app").Thread(0, 11, "a").SyncAt(1000);
  a.Events(0, {Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(2)}}),
               Ev(EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}})});
  a.SyncAt(5000).End(5000);
  testing::TraceBuilder b(Header(200, 1, "node1", kBootA));
  b.String(1, "x").String(2, "only_in_b").Domain(1, "app").Thread(0, 21, "b").SyncAt(1000);
  b.Events(0, {Ev(EventKind::kTaskBegin, 1300, {{F::kDomain, U(1)}, {F::kName, U(2)}}),
               Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
  b.SyncAt(5000).End(5000);
  const testing::DumpResult r =
      RunDump({"text", "run"}, {{"run/a.itt", a.bytes()}, {"run/b.itt", b.bytes()}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("r0:11/a task_begin app \"only_in_b\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("r1:21/b task_begin app \"only_in_b\""), std::string::npos) << r.out;
}

TEST(TraceSetVerbs, ChromeGivesEachProcessItsPidAndName) {
  const testing::DumpResult r = RunDump({"chrome", "run"}, TwoRanks());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"pid\":100,\"tid\":0,\"ts\":0,\"name\":\"process_name\",\"args\":{"
                       "\"name\":\"rank 0 (node1) demo\"}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"pid\":200,\"tid\":0,\"ts\":0,\"name\":\"process_name\",\"args\":{"
                       "\"name\":\"rank 1 (node1) demo\"}"),
            std::string::npos);
  EXPECT_NE(r.out.find("{\"ph\":\"X\",\"pid\":200,\"tid\":21,\"ts\":0.150"), std::string::npos);
  EXPECT_NE(r.out.find("{\"ph\":\"X\",\"pid\":100,\"tid\":11,\"ts\":0.100"), std::string::npos);
}

TEST(TraceSetVerbs, DiffComparesTwoRunsOfSeveralProcesses) {
  std::map<std::string, std::string> traces = TwoRanks();
  // The next run: "work" takes 150 and 400 ns instead of 100 and 200.
  traces["next/r0.itt"] = Process(100, 0, 11, 1, 1100, 1250, true);
  traces["next/r1.itt"] = Process(200, 1, 21, 2, 1150, 1550, false);
  const testing::DumpResult r =
      RunDump({"diff", "--format=csv", "--fail-above=20", "run", "next"}, traces);
  EXPECT_EQ(r.status, kExitRegression) << r.err;
  // Both sides: 2 tasks over 2 processes; total 300 ns -> 550 ns.
  EXPECT_NE(r.out.find("app,work,task,both,2,300,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",2,550,"), std::string::npos) << r.out;
}

// A process whose module `path` held [0x400000, +0x10000) and that ran a
// task_begin_fn task at 0x401234.
std::string FnProcess(uint32_t pid, const std::string& path) {
  testing::TraceBuilder b(Header(pid, format::kNoRank, "node1", kBootA));
  b.Domain(1, "app").Thread(0, pid + 1, "main").SyncAt(1000);
  b.Module(1000, 0x400000, 0x10000, path);
  b.Events(0,
           {Ev(EventKind::kTaskBeginFn, 1100,
               {{F::kDomain, U(1)}, {F::kId, Null()}, {F::kParent, Null()}, {F::kFn, U(0x401234)}}),
            Ev(EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}})});
  b.SyncAt(5000).End(5000);
  return b.bytes();
}

TEST(TraceSetVerbs, FunctionsAreNamedFromTheirOwnProcesssModules) {
  // The same address in two processes, in two different (gone) modules.
  const testing::DumpResult r = RunDump({"stats", "--format=csv", "a.itt", "b.itt"},
                                        {{"a.itt", FnProcess(500, "/nonexistent/alpha")},
                                         {"b.itt", FnProcess(600, "/nonexistent/beta")}});
  ASSERT_EQ(r.status, 0) << r.err;
  // No load bias: the offset in the file is the address.
  EXPECT_NE(r.out.find("app,fn@0x401234 (alpha+0x401234),task,1,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("app,fn@0x401234 (beta+0x401234),task,1,"), std::string::npos) << r.out;
}

TEST(TraceSetVerbs, OneFunctionInTwoProcessesIsOneRow) {
  // Two ranks of one program: the same module and function.
  const testing::DumpResult r = RunDump({"stats", "--format=csv", "a.itt", "b.itt"},
                                        {{"a.itt", FnProcess(500, "/nonexistent/app")},
                                         {"b.itt", FnProcess(600, "/nonexistent/app")}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("app,fn@0x401234 (app+0x401234),task,2,"), std::string::npos) << r.out;
}

TEST(TraceSetVerbs, InfoListsEachFileThenTotals) {
  const testing::DumpResult r = RunDump({"info", "run"}, TwoRanks());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("file      run/r0.itt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("file      run/r1.itt"), std::string::npos);
  EXPECT_NE(r.out.find("set       2 traces\n"), std::string::npos);
  EXPECT_NE(r.out.find("  r1  pid 200, ppid 1: rank 1 (node1) demo: 3 events  run/r1.itt\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("time      one boot of one host"), std::string::npos);
  EXPECT_NE(r.out.find("total     6 events\n"), std::string::npos);
}

TEST(TraceSetVerbs, OneUnreadableFileNeverStopsTheOthers) {
  std::map<std::string, std::string> traces = TwoRanks();
  traces["run/r2.itt"] = "this is not a trace";
  const testing::DumpResult r = RunDump({"stats", "--format=csv", "run"}, traces);
  EXPECT_EQ(r.status, 3);  // not a trace, as for one file
  EXPECT_EQ(r.err.rfind("itt-dump: run/r2.itt: ", 0), 0u) << r.err;
  EXPECT_NE(r.out.find("app,work,task,2,"), std::string::npos) << r.out;

  const testing::DumpResult v = RunDump({"verify", "run"}, traces);
  EXPECT_EQ(v.status, 3);
  EXPECT_NE(v.out.find("run/r0.itt: ok"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("run/r1.itt: ok"), std::string::npos);
  EXPECT_NE(v.out.find("run/r2.itt: not a trace"), std::string::npos);
}

TEST(TraceSetVerbs, DamageInOneFileIsReportedForThatFile) {
  std::map<std::string, std::string> traces = TwoRanks();
  std::string& bytes = traces["run/r1.itt"];
  bytes[bytes.size() - 20] ^= 0x55;  // inside the last chunk: the end record
  const testing::DumpResult r = RunDump({"stats", "--format=csv", "run"}, traces);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("itt-dump: run/r1.itt: corrupt at offset"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("run/r0.itt"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("app,work,task,2,"), std::string::npos) << r.out;
}

// Files are indexed on several threads (one per CPU): whichever finishes
// first, the set keeps the order of its sources, for the files, the
// failures and the problems, and each file's damage stays its own.
TEST(TraceSetModel, FilesIndexedInParallelKeepTheirOrder) {
  std::vector<std::string> bytes;
  std::vector<TraceSource> sources;
  std::vector<std::string> want_files, want_failures;
  for (uint32_t i = 0; i < 12; ++i) {
    const std::string name = "r" + std::to_string(i) + ".itt";
    if (i % 5 == 3) {
      bytes.push_back("not a trace " + name);
      want_failures.push_back(name);
    } else {
      // Later files start earlier: the merge order is not the file order.
      bytes.push_back(Process(100 + i, i, 10 + i, 1 + i % 2, 2000 - 10 * i, 2500, true));
      if (i == 7) bytes.back()[bytes.back().size() - 20] ^= 0x55;  // the end record
      want_files.push_back(name);
    }
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    sources.push_back(TraceSource::Memory(bytes[i], "r" + std::to_string(i) + ".itt"));
  }
  const TraceSet set = TraceSet::Open(std::move(sources), IndexOptions());
  std::vector<std::string> files, failures;
  for (const TraceFile& f : set.files()) files.push_back(f.source.name());
  for (const TraceSet::Failure& f : set.failures()) failures.push_back(f.name);
  EXPECT_EQ(files, want_files);
  EXPECT_EQ(failures, want_failures);
  ASSERT_FALSE(set.index().problems.empty());
  for (const Problem& p : set.index().problems) {
    EXPECT_EQ(p.reason.rfind("r7.itt: ", 0), 0u) << p.reason;
  }
  // Every begin in time order, each from its own process: the last file's
  // first.
  TraceSetMerger merger(set, MergeOptions());
  const format::Event* e;
  const ThreadRec* t;
  std::vector<uint64_t> tids;
  while (merger.Next(&e, &t)) {
    if (e->kind == EventKind::kTaskBegin) tids.push_back(t->tid);
  }
  std::vector<uint64_t> want_tids;
  for (uint32_t i = 12; i-- > 0;) {
    if (i % 5 != 3) want_tids.push_back(10 + i);
  }
  EXPECT_EQ(tids, want_tids);
}

// Host b's TSC runs at 2 GHz and its trace started 20 ns of wall-clock
// time after host a's; a marker 100 ns into a and one 30 ns into b.
std::map<std::string, std::string> TwoHosts() {
  constexpr int64_t kReal = 1700000000000000000;
  format::FileHeader ha = Header(300, format::kNoRank, "host-a", kBootA);
  ha.start_ticks = 1000;
  ha.start_realtime_ns = kReal;
  ha.start_monotonic_raw_ns = 5000000;
  testing::TraceBuilder a(ha);
  a.String(1, "tick").Domain(1, "app").Thread(0, 31, "a").Sync(1000, 5000000, kReal);
  a.Events(0, {Ev(EventKind::kMarker, 1100,
                  {{F::kDomain, U(1)}, {F::kId, Null()}, {F::kName, U(1)}, {F::kScope, U(1)}})});
  a.Sync(5000, 5004000, kReal + 4000).End(5000);

  format::FileHeader hb = Header(300, format::kNoRank, "host-b", kBootB);
  hb.timebase_hz = 2000000000;
  hb.start_ticks = 50000;
  hb.start_realtime_ns = kReal + 20;
  hb.start_monotonic_raw_ns = 9000000;
  testing::TraceBuilder b(hb);
  b.String(1, "tick").Domain(1, "app").Thread(0, 41, "b").Sync(50000, 9000000, kReal + 20);
  b.Events(0, {Ev(EventKind::kMarker, 50060,
                  {{F::kDomain, U(1)}, {F::kId, Null()}, {F::kName, U(1)}, {F::kScope, U(1)}})});
  b.Sync(58000, 9004000, kReal + 4020).End(58000);
  return {{"a.itt", a.bytes()}, {"b.itt", b.bytes()}};
}

TEST(TraceSetVerbs, TwoHostsLineUpByWallClock) {
  const testing::DumpResult r = RunDump({"text", "a.itt", "b.itt"}, TwoHosts());
  ASSERT_EQ(r.status, 0) << r.err;
  // Both processes have pid 300: the second is told apart by the pid the
  // exports give it, 4194304 + 300.
  EXPECT_EQ(r.out,
            "50 p4194604:41/b marker app \"tick\" id=- scope=global\n"
            "100 p300:31/a marker app \"tick\" id=- scope=global\n");
  EXPECT_EQ(r.err,
            "itt-dump: 2 traces: traces of 2 hosts or boots, lined up by wall clock: their wall "
            "clocks moved up to 0 ns against their monotonic clocks; the hosts' clock offset adds "
            "to that\n");
  const testing::DumpResult info = RunDump({"info", "a.itt", "b.itt"}, TwoHosts());
  EXPECT_NE(info.out.find("time      2 hosts or boots aligned by wall clock; their wall clocks "
                          "moved up to 0.000000000 s"),
            std::string::npos)
      << info.out;
  // Same pid on both hosts: chrome keeps the processes apart.
  const testing::DumpResult chrome = RunDump({"chrome", "a.itt", "b.itt"}, TwoHosts());
  EXPECT_NE(chrome.out.find("\"name\":\"demo (host-a)\""), std::string::npos) << chrome.out;
  EXPECT_NE(chrome.out.find("\"pid\":4194604,\"tid\":0,\"ts\":0,\"name\":\"process_name\","
                            "\"args\":{\"name\":\"demo (host-b)\"}"),
            std::string::npos)
      << chrome.out;
}

TEST(TraceSetModel, WallClockUncertaintyIsHowFarTheWallClockMoved) {
  std::map<std::string, std::string> traces = TwoHosts();
  // Host a's wall clock was stepped 3 us forward between its sync points.
  constexpr int64_t kReal = 1700000000000000000;
  format::FileHeader ha = Header(300, format::kNoRank, "host-a", kBootA);
  ha.start_realtime_ns = kReal;
  ha.start_monotonic_raw_ns = 5000000;
  testing::TraceBuilder a(ha);
  a.Thread(0, 31, "a").Sync(1000, 5000000, kReal).Sync(5000, 5004000, kReal + 7000).End(5000);
  std::vector<TraceSource> sources;
  sources.push_back(TraceSource::Memory(a.bytes(), "a.itt"));
  sources.push_back(TraceSource::Memory(traces["b.itt"], "b.itt"));
  const TraceSet set = TraceSet::Open(std::move(sources), IndexOptions());
  ASSERT_EQ(set.files().size(), 2u);
  EXPECT_EQ(set.alignment(), TimeAlignment::kWallClock);
  EXPECT_EQ(set.groups(), 2);
  EXPECT_EQ(set.wall_uncertainty_ns(), 3000);
}

TEST(TraceSetCli, DirectoryArgumentsListTheirTracesSortedByName) {
  char tmpl[] = "/tmp/ittc_set_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  for (const char* name : {"r000001-p0000002-x.itt", "r000000-p0000009-x.itt", "notes.txt"}) {
    std::ofstream(dir + "/" + name) << "x";
  }
  absl::StatusOr<std::vector<std::string>> got = ExpandTraceArgument(dir);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<std::string>{dir + "/r000000-p0000009-x.itt",
                                            dir + "/r000001-p0000002-x.itt"}));
  got = ExpandTraceArgument(dir + "/notes.txt");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, std::vector<std::string>{dir + "/notes.txt"});
  for (const char* name : {"r000001-p0000002-x.itt", "r000000-p0000009-x.itt", "notes.txt"}) {
    std::remove((dir + "/" + name).c_str());
  }
  EXPECT_FALSE(ExpandTraceArgument(dir).ok());  // no traces in it
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace ittc::itt_dump
