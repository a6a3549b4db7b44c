// __itt_fini_ittlib() hands the collector __itt_api_fini and unbinds every
// pointer; __itt_release_resources() frees the objects the static part kept
// for the collector.
#include <ittnotify.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "stub/abi/itt_static_abi.h"
#include "tests/stub/test_collector.h"

namespace ittc::testing {
namespace {

using Lines = std::vector<std::string>;

TEST(Fini, UnbindsAndTellsTheCollector) {
  const std::string path = RunfilePath("tests/stub/libtest_collector_init.so");
  setenv("INTEL_LIBITTNOTIFY64", path.c_str(), 1);
  __itt_domain *d = __itt_domain_create("fini");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(__itt__ittapi_global.domain_list, nullptr);
  __itt_task_begin(d, __itt_null, __itt_null, nullptr);  // loads
  EXPECT_NE(__itt_task_begin_ptr, nullptr);

  CollectorLog log(path);
  ASSERT_TRUE(log.ok());
  log.Take();
  __itt_fini_ittlib();
  EXPECT_EQ(log.Take(), (Lines{Call("api_fini", static_cast<void *>(&__itt__ittapi_global))}));
  EXPECT_EQ(__itt__ittapi_global.api_initialized, 0);
  EXPECT_EQ(__itt_task_begin_ptr, nullptr);
  __itt_task_end(d);
  EXPECT_TRUE(log.Take().empty());

  __itt_release_resources();
  EXPECT_EQ(__itt__ittapi_global.domain_list, nullptr);
  EXPECT_EQ(__itt__ittapi_global.string_list, nullptr);
  EXPECT_EQ(__itt__ittapi_global.counter_list, nullptr);
  EXPECT_EQ(log.InitCount(), 1);
}

}  // namespace
}  // namespace ittc::testing
