// The call that loads the collector may be a variadic one: the static part
// must forward every variadic argument, including those passed on the stack
// (more than 6 integer and 8 floating-point arguments).
#include <ittnotify.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/stub/test_collector.h"

namespace ittc::testing {
namespace {

TEST(FirstCallVariadic, FormattedMetadataLoadsTheCollectorWithAllArguments) {
  const std::string path = RunfilePath("tests/stub/libtest_collector_init.so");
  setenv("INTEL_LIBITTNOTIFY64", path.c_str(), 1);
  __itt_domain *d = __itt_domain_create("variadic");
  __itt_string_handle *fmt =
      __itt_string_handle_create("%d %d %d %d %d %d %d %d %f %f %f %f %f %f %f %f %f %f %s %llu");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(fmt, nullptr);

  __itt_formatted_metadata_add(d, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5,
                               7.5, 8.5, 9.5, "tail", 123456789012ull);

  CollectorLog log(path);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log.InitCount(), 1);
  std::vector<std::string> lines = log.Take();
  ASSERT_EQ(lines.size(), 2u);  // api_init(...) and the call
  EXPECT_EQ(lines[1], Call("formatted_metadata_add", d, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5,
                           3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, "tail", 123456789012ull));
}

}  // namespace
}  // namespace ittc::testing
