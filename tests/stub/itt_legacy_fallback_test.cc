// A program built with Intel's legacy header calls __itt_thr_name_set and
// __itt_thr_ignore through their pointer variables; a collector that has
// only the modern functions gets __itt_thread_set_name and
// __itt_thread_ignore instead, as from Intel's static part.
#include <ittnotify.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/stub/test_collector.h"

// The legacy pointer variables (not in the modern header).
extern "C" int(ITTAPI* __itt_thr_name_set_ptr__3_0)(const char* name, int namelen);
extern "C" void(ITTAPI* __itt_thr_ignore_ptr__3_0)(void);

namespace ittc::testing {
namespace {

TEST(LegacyFallback, LegacyThreadCallsReachTheModernFunctions) {
  const std::string path = RunfilePath("tests/stub/libtest_collector_modern.so");
  setenv("INTEL_LIBITTNOTIFY64", path.c_str(), 1);
  setenv("INTEL_ITTNOTIFY_GROUPS", "thread", 1);
  ASSERT_NE(__itt_thr_name_set_ptr__3_0, nullptr);
  EXPECT_EQ(__itt_thr_name_set_ptr__3_0("worker", 6), 0);  // loads the collector
  __itt_thr_ignore_ptr__3_0();
  CollectorLog log(path);
  ASSERT_TRUE(log.ok());
  std::vector<std::string> got;
  for (const std::string& line : log.Take()) {
    if (line.rfind("api_init", 0) != 0 && line.rfind("domain_create", 0) != 0) got.push_back(line);
  }
  EXPECT_EQ(got,
            (std::vector<std::string>{Call("thread_set_name", "worker"), Call("thread_ignore")}));
}

}  // namespace
}  // namespace ittc::testing
