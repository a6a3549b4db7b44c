// Row 12: the collector is never unloaded from under running threads (it is
// linked with -z nodelete: dlclose, even one too many, leaves it mapped),
// and loading it again by other paths (symlink, hard link, "..") yields the
// same single copy with the same registry: harmless.

#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

TEST(Unload, DlcloseAndOtherPathsLeaveOneLoadedCollector) {
  std::string dir = MakeTempDir("unload");
  std::string scratch = MakeTempDir("unload_links");
  std::string trace_path = dir + "/unload.itt";
  // 200 dlopen/dlclose rounds take about 50 s under ThreadSanitizer on a
  // loaded machine; only a hang reaches this deadline.
  ExitInfo exit = RunFor({Runfile("tests/reliability/unload_program"), scratch},
                         CollectorEnv(trace_path), dir + "/out", dir + "/err", 240);
  ASSERT_TRUE(ExitedCleanly(exit))
      << Describe(exit) << "\n"
      << ReadFileOrEmpty(dir + "/out") << ReadFileOrEmpty(dir + "/err");
  std::string out = ReadFileOrEmpty(dir + "/out");
  EXPECT_EQ(out, "mapped 1\nstill-loaded 1\n");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");

  auto loaded = SummarizeTrace(trace_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->has_end);
  EXPECT_EQ(loaded->corruptions, 0);
  EXPECT_EQ(loaded->truncations, 0);
  // One trace, one registry: the domain is defined once, and the main
  // thread's 200 markers made per symbol through the other paths use it.
  uint64_t domain_id = 0;
  for (const auto& [id, name] : loaded->domains) {
    if (name == "reliability.unload") {
      EXPECT_EQ(domain_id, 0u) << "domain defined twice";
      domain_id = id;
    }
  }
  EXPECT_NE(domain_id, 0u);
  int markers = 0;
  for (const DecodedEvent& e : loaded->rare_events) {
    if (e.kind != format::EventKind::kMarker) continue;
    ++markers;
    EXPECT_EQ(e.U("domain"), domain_id);
    EXPECT_EQ(loaded->strings.at(e.U("name")), "per-symbol");
  }
  EXPECT_EQ(markers, 200);
  EXPECT_EQ(loaded->events_per_thread.size(), 4u);  // three workers and main
}

}  // namespace
}  // namespace ittc::testing
