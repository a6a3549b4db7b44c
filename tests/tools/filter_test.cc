// itt-dump's filters (docs/ITT_DUMP.md, "Filters"): what an item without a
// name is to --name, and what the filters pair before they keep (globs:
// tests/format/glob_test).

#include "tools/itt_dump/filter.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/trace_builder.h"

namespace ittc {
namespace itt_dump {
namespace {

using format::EventKind;
using testing::Ev;
using testing::U;
using F = format::Field;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A frame, a task begun with a null name handle and a marker without a
// name have no name: a --name filter drops them, whatever its pattern ('*'
// and '' included), in every verb, as text always did.
TEST(NameFilter, ItemsWithoutANameFailIt) {
  testing::TraceBuilder b;
  b.String(1, "named").Domain(1, "app");
  b.Thread(0, 7, "main");
  b.Events(0,
           {Ev(EventKind::kFrameBegin, 1000, {{F::kDomain, U(1)}}),
            Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
            Ev(EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}}),
            Ev(EventKind::kTaskBegin, 1300, {{F::kDomain, U(1)}, {F::kName, U(0)}}),
            Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}}),
            Ev(EventKind::kMarker, 1500, {{F::kDomain, U(1)}, {F::kName, U(0)}, {F::kScope, U(1)}}),
            Ev(EventKind::kFrameEnd, 1600, {{F::kDomain, U(1)}})});
  b.End(2000);
  for (const std::string pattern : {"*", ""}) {
    SCOPED_TRACE("--name=" + pattern);
    const std::vector<std::string> serial_or_not[] = {{}, {"--serial"}};
    for (const std::vector<std::string>& extra : serial_or_not) {
      std::vector<std::string> chrome = {"chrome", "--name=" + pattern, "trace.itt", "-o", "-"};
      chrome.insert(chrome.end(), extra.begin(), extra.end());
      const testing::DumpResult c = testing::RunDump(chrome, b.bytes());
      ASSERT_EQ(c.status, 0) << c.err;
      EXPECT_EQ(Count(c.out, "\"ph\":\"X\""), pattern == "*" ? 1u : 0u) << c.out;
      EXPECT_EQ(Count(c.out, "\"ph\":\"i\""), 0u) << c.out;
    }
    const testing::DumpResult st =
        testing::RunDump({"stats", "--format=csv", "--name=" + pattern, "trace.itt"}, b.bytes());
    ASSERT_EQ(st.status, 0) << st.err;
    EXPECT_EQ(Count(st.out, "\ntasks,"), pattern == "*" ? 1u : 0u) << st.out;
    EXPECT_EQ(Count(st.out, "tasks,app,,"), 0u) << st.out;
    const testing::DumpResult vt =
        testing::RunDump({"vtune-csv", "--name=" + pattern, "trace.itt", "-o", "vt"}, b.bytes());
    ASSERT_EQ(vt.status, 0) << vt.err;
    size_t interval_files = 0;
    for (const auto& [name, bytes] : vt.files) {
      if (name.find("-intervals-") == std::string::npos) continue;
      ++interval_files;
      // The header and the named task's row at most.
      EXPECT_EQ(Count(bytes, "\n"), pattern == "*" ? 2u : 1u) << bytes;
    }
    EXPECT_EQ(interval_files, 1u);
  }
}

// A sync object never named (no sync_create) and a v3 counter of a null
// name have no name either: --name drops their waits and samples in every
// verb (review helper 50: only text did), while a named counter stays.
TEST(NameFilter, UnnamedSyncObjectsAndCountersFailIt) {
  testing::TraceBuilder b;
  b.String(1, "named").Domain(1, "app");
  b.Thread(0, 7, "main");
  b.Events(0, {Ev(EventKind::kSyncPrepare, 1000, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kSyncAcquired, 1100, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kCounterIncV3, 1200, {{F::kDomain, U(1)}, {F::kName, U(0)}}),
               Ev(EventKind::kCounterIncV3, 1300, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(EventKind::kSyncReleasing, 1400, {{F::kAddr, U(0x1000)}})});
  b.End(2000);
  // Without a filter every verb has them.
  const testing::DumpResult all =
      testing::RunDump({"stats", "--format=csv", "trace.itt"}, b.bytes());
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(Count(all.out, "\nsync,"), 1u) << all.out;
  EXPECT_EQ(Count(all.out, "\ncounters,"), 2u) << all.out;
  for (const std::string pattern : {"*", ""}) {
    SCOPED_TRACE("--name=" + pattern);
    const size_t named = pattern == "*" ? 1u : 0u;
    const std::vector<std::string> serial_or_not[] = {{}, {"--serial"}};
    for (const std::vector<std::string>& extra : serial_or_not) {
      std::vector<std::string> stats = {"stats", "--format=csv", "--name=" + pattern, "trace.itt"};
      stats.insert(stats.end(), extra.begin(), extra.end());
      const testing::DumpResult st = testing::RunDump(stats, b.bytes());
      ASSERT_EQ(st.status, 0) << st.err;
      EXPECT_EQ(Count(st.out, "\nsync,"), 0u) << st.out;
      EXPECT_EQ(Count(st.out, "\ncounters,"), named) << st.out;
      std::vector<std::string> chrome = {"chrome", "--name=" + pattern, "trace.itt", "-o", "-"};
      chrome.insert(chrome.end(), extra.begin(), extra.end());
      const testing::DumpResult c = testing::RunDump(chrome, b.bytes());
      ASSERT_EQ(c.status, 0) << c.err;
      EXPECT_EQ(Count(c.out, "\"ph\":\"C\""), named) << c.out;
      std::vector<std::string> perfetto = {
          "perfetto", "--compress=none", "--name=" + pattern, "trace.itt", "-o", "-"};
      perfetto.insert(perfetto.end(), extra.begin(), extra.end());
      const testing::DumpResult p = testing::RunDump(perfetto, b.bytes());
      ASSERT_EQ(p.status, 0) << p.err;
      EXPECT_EQ(Count(p.out, "sync 0x1000"), 0u);  // the wait slice's name
    }
    const testing::DumpResult text =
        testing::RunDump({"text", "--name=" + pattern, "trace.itt"}, b.bytes());
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_EQ(Count(text.out, "sync_"), 0u) << text.out;
    EXPECT_EQ(Count(text.out, "counter_inc_v3"), named) << text.out;
  }
}

// In text, the end of a task, overlapped task or region carries the name of
// its begin: one begun without a name has none at its end either, and a
// --name filter keeps neither end.
TEST(NameFilter, TextDropsBothEndsOfAnUnnamedInterval) {
  testing::TraceBuilder b;
  b.Domain(1, "app");
  b.Thread(0, 7, "main");
  b.Events(
      0, {Ev(EventKind::kRegionBegin, 1100,
             {{F::kDomain, U(1)},
              {F::kId, testing::I(1)},
              {F::kParent, testing::Null()},
              {F::kName, U(0)}}),
          Ev(EventKind::kRegionEnd, 1200, {{F::kDomain, U(1)}, {F::kId, testing::I(1)}}),
          Ev(EventKind::kTaskBeginOverlapped, 1300,
             {{F::kDomain, U(1)},
              {F::kId, testing::I(2)},
              {F::kParent, testing::Null()},
              {F::kName, U(0)}}),
          Ev(EventKind::kTaskEndOverlapped, 1400, {{F::kDomain, U(1)}, {F::kId, testing::I(2)}})});
  b.End(2000);
  const testing::DumpResult all = testing::RunDump({"text", "trace.itt"}, b.bytes());
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(Count(all.out, "\n"), 4u) << all.out;
  EXPECT_EQ(Count(all.out, "\"\""), 0u) << all.out;  // no end named ""
  for (const std::string pattern : {"*", ""}) {
    const testing::DumpResult r =
        testing::RunDump({"text", "--name=" + pattern, "trace.itt"}, b.bytes());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "") << "--name=" << pattern;
  }
}

std::vector<format::Event> Allocate(uint64_t t, uint64_t fn, uint64_t addr, uint64_t size) {
  return {Ev(EventKind::kHeapAllocateBegin, t,
             {{F::kFunction, U(fn)}, {F::kSize, U(size)}, {F::kInitialized, U(0)}}),
          Ev(EventKind::kHeapAllocateEnd, t + 10,
             {{F::kFunction, U(fn)},
              {F::kAddr, U(addr)},
              {F::kSize, U(size)},
              {F::kInitialized, U(0)}})};
}
std::vector<format::Event> Free(uint64_t t, uint64_t fn, uint64_t addr) {
  return {Ev(EventKind::kHeapFreeBegin, t, {{F::kFunction, U(fn)}, {F::kAddr, U(addr)}}),
          Ev(EventKind::kHeapFreeEnd, t + 10, {{F::kFunction, U(fn)}, {F::kAddr, U(addr)}})};
}

// stats pairs every heap call and sync wait, then counts those the filters
// keep: a block freed by a call the filters drop is freed (my_malloc's
// live bytes reach 2000, not the 3000 it allocated), and an acquisition
// whose prepare is before --from waited from that prepare.
TEST(StatsFilters, HeapCallsAndWaitsArePairedBeforeTheyAreFiltered) {
  testing::TraceBuilder b;
  b.Domain(1, "mem").HeapFunction(1, "my_malloc", "mem").HeapFunction(2, "my_free", "mem");
  b.Thread(0, 7, "a").Thread(1, 8, "b");
  std::vector<format::Event> a;
  for (const auto& part : {Allocate(1100, 1, 0x10, 1000), Allocate(1200, 1, 0x20, 1000)}) {
    a.insert(a.end(), part.begin(), part.end());
  }
  b.Events(0, a);
  b.Events(1, Free(1300, 2, 0x10));
  a = Allocate(1400, 1, 0x30, 1000);
  a.push_back(Ev(EventKind::kSyncPrepare, 1500, {{F::kAddr, U(0x1000)}}));
  a.push_back(Ev(EventKind::kSyncAcquired, 1800, {{F::kAddr, U(0x1000)}}));
  b.Events(0, a);
  b.End(2000);
  const std::vector<std::string> serial_or_not[] = {{}, {"--serial"}};
  for (const std::vector<std::string>& extra : serial_or_not) {
    const auto stats = [&](const std::string& filter) {
      std::vector<std::string> args = {"stats", "--format=csv", filter, "trace.itt"};
      args.insert(args.end(), extra.begin(), extra.end());
      const testing::DumpResult r = testing::RunDump(args, b.bytes());
      EXPECT_EQ(r.status, 0) << r.err;
      return r.out;
    };
    const std::string by_name = stats("--name=my_malloc");
    EXPECT_NE(by_name.find("\nheap,my_malloc,mem,3,0,0,3000,2000\n"), std::string::npos) << by_name;
    EXPECT_EQ(by_name.find("my_free"), std::string::npos) << by_name;
    // Thread a's calls: its allocations, at which my_malloc's live bytes
    // (the free on b included) peak at 2000.
    const std::string by_thread = stats("--thread=a");
    EXPECT_NE(by_thread.find("\nheap,my_malloc,mem,3,0,0,3000,2000\n"), std::string::npos)
        << by_thread;
    const std::string from = stats("--from=600");
    EXPECT_NE(from.find("\nsync,0x1000,,,1,0,300,300\n"), std::string::npos) << from;
    // The third allocation alone is kept, with the second block still live.
    const std::string late = stats("--from=350");
    EXPECT_NE(late.find("\nheap,my_malloc,mem,1,0,0,1000,2000\n"), std::string::npos) << late;
  }
}

// stats --name keeps an unload by its method's name, which its load gave:
// the load needs no other filter to keep it.
TEST(StatsFilters, AnUnloadIsKeptByItsLoadsNameWhateverElseDropsTheLoad) {
  testing::TraceBuilder b;
  b.Thread(0, 7, "main");
  const auto load = [](uint64_t t, uint64_t id, const char* name) {
    return Ev(EventKind::kJitMethodLoad, t,
              {{F::kMethodId, U(id)},
               {F::kMethodName, testing::B(name)},
               {F::kAddress, U(0x1000 * id)},
               {F::kSize, U(16)}});
  };
  const auto unload = [](uint64_t t, uint64_t id) {
    return Ev(EventKind::kJitMethodUnload, t, {{F::kMethodId, U(id)}});
  };
  b.Events(0, {load(1100, 1, "foo"), load(1110, 2, "bar"), unload(1500, 1), unload(1510, 2)});
  b.End(2000);
  for (const bool one_core : {false, true}) {
    const std::vector<std::string> args = {"stats", "--format=csv", "--name=foo", "--from=300",
                                           "trace.itt"};
    const testing::DumpResult r =
        one_core ? testing::RunDumpOnOneCore(args, b.bytes()) : testing::RunDump(args, b.bytes());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\njit,0,0,0,1,0\n"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace itt_dump
}  // namespace ittc
