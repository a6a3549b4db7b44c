// A program that names its collector with setenv after a library's
// constructor created a domain (INTEL_LIBITTNOTIFY64 unset then): its first
// other call loads the collector the variable names now, as Intel's static
// part does. Its own process (the load happens once per process).
#include <ittnotify.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/stub/test_collector.h"

namespace ittc::testing {
namespace {

// Made before main, with the variable unset: no collector expected yet.
__itt_domain* const early_domain = [] {
  unsetenv("INTEL_LIBITTNOTIFY64");
  return __itt_domain_create("early");
}();

TEST(LateSetenv, TheLoadReadsTheVariableAsItIsThen) {
  EXPECT_EQ(early_domain, nullptr);  // nothing was kept for a collector
  const std::string path = RunfilePath("tests/stub/libtest_collector_init.so");
  setenv("INTEL_LIBITTNOTIFY64", path.c_str(), 1);
  __itt_thread_set_name("main-thread");
  EXPECT_EQ(__itt_get_collection_state(), __itt_collection_init_successful);
  CollectorLog log(path);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log.InitCount(), 1);
  const std::vector<std::string> lines = log.Take();
  EXPECT_NE(std::find(lines.begin(), lines.end(), Call("thread_set_name", "main-thread")),
            lines.end())
      << ::testing::PrintToString(lines);
}

}  // namespace
}  // namespace ittc::testing
