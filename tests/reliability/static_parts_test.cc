// Row 11: our static part, oneTBB's (libtbb12) and LLVM OpenMP's (libomp5)
// in one process, their first calls racing from many threads: the process
// runs normally, one registry serves all (every domain and string defined
// once, whichever static part created it), and all three record into one
// trace. The "concurrency" tag runs this under ThreadSanitizer in CI too.

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

constexpr int kStubThreads = 6;

long ExpectedSum() {
  long sum = 0;
  for (int i = 0; i < kStubThreads; ++i) sum += i;
  sum += 10000 / 2 + 8;  // TBB: odd numbers below 10000, and 8 tasks
  for (int i = 0; i < 10000; ++i) sum += i % 3;
  return sum;
}

TEST(StaticParts, ThreeStaticPartsRacingToInitialiseShareOneRegistry) {
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    std::string dir = MakeTempDir("static_parts_" + std::to_string(run));
    std::string trace_path = dir + "/parts.itt";
    ExitInfo exit =
        RunFor({Runfile("tests/reliability/static_parts_program"), std::to_string(kStubThreads)},
               CollectorEnv(trace_path), dir + "/out", dir + "/err", 120);
    ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
    EXPECT_EQ(ReadFileOrEmpty(dir + "/out"),
              "sum " + std::to_string(ExpectedSum()) + "\nthreads-done\n");
    EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");

    auto loaded = LoadTrace(trace_path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const LoadedTrace& t = *loaded;
    EXPECT_TRUE(t.has_end);
    EXPECT_EQ(t.corruptions, 0);
    EXPECT_EQ(t.TotalLoss(), 0u);

    // One registry: no name is defined twice.
    std::set<std::string> domain_names, strings;
    for (const auto& [id, name] : t.domains) {
      EXPECT_TRUE(domain_names.insert(name).second) << "domain defined twice: " << name;
    }
    for (const auto& [id, text] : t.strings) {
      EXPECT_TRUE(strings.insert(text).second) << "string defined twice: " << text;
    }
    EXPECT_TRUE(domain_names.count("reliability.static_parts"));
    EXPECT_TRUE(domain_names.count("tbb"));

    // All three static parts recorded: our tasks from every stub thread,
    // TBB's and libomp's own sync or frame events.
    std::set<uint32_t> stub_threads;
    size_t runtime_events = 0;
    for (const DecodedEvent& e : t.events) {
      if (e.kind == format::EventKind::kTaskBegin && t.strings.at(e.U("name")) == "stub-task") {
        stub_threads.insert(e.thread);
      }
      if (e.kind == format::EventKind::kSyncCreate || e.kind == format::EventKind::kSyncAcquired ||
          e.kind == format::EventKind::kFrameSubmit) {
        ++runtime_events;
      }
    }
    EXPECT_EQ(stub_threads.size(), static_cast<size_t>(kStubThreads));
    EXPECT_EQ(t.OfKind(format::EventKind::kTaskBegin).size() >= 100u * kStubThreads, true);
    EXPECT_GT(runtime_events, 0u);
  }
}

}  // namespace
}  // namespace ittc::testing
