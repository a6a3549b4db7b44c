// The call that loads the collector may be a variadic one: the static part
// must forward every variadic argument, including those passed on the stack
// (more than 6 integer and 8 floating-point arguments). With a collector
// that takes them as a va_list (ittc_formatted_metadata_add_va: the
// init collector, as ours) any number of them; with another (the
// per-symbol collector), re-issued, up to 16 stack values.
#include <ittnotify.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/stub/test_collector.h"

namespace ittc::testing {
namespace {

#define STR2(x) #x
#define STR(x) STR2(x)

TEST(FirstCallVariadic, FormattedMetadataLoadsTheCollectorWithAllArguments) {
  const std::string path = RunfilePath("tests/stub/" STR(TEST_COLLECTOR_SO) ".so");
  setenv("INTEL_LIBITTNOTIFY64", path.c_str(), 1);
  setenv("INTEL_ITTNOTIFY_GROUPS", "all", 1);  // what a per-symbol collector gets bound
  __itt_domain *d = __itt_domain_create("variadic");
  ASSERT_NE(d, nullptr);
#ifdef MANY_STACK_ARGUMENTS
  // 20 ints and 2 doubles past the registers: 24 stack values.
  __itt_string_handle *fmt = __itt_string_handle_create(
      "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
      "%f %f %f %f %f %f %f %f %f %f %s %llu");
  ASSERT_NE(fmt, nullptr);
  __itt_formatted_metadata_add(d, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                               18, 19, 20, 21, 22, 23, 24, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5,
                               8.5, 9.5, "tail", 123456789012ull);
  const std::string want = Call("formatted_metadata_add", d, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 0.5, 1.5, 2.5,
                                3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, "tail", 123456789012ull);
#else
  // 8 stack values.
  __itt_string_handle *fmt =
      __itt_string_handle_create("%d %d %d %d %d %d %d %d %f %f %f %f %f %f %f %f %f %f %s %llu");
  ASSERT_NE(fmt, nullptr);
  __itt_formatted_metadata_add(d, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5,
                               7.5, 8.5, 9.5, "tail", 123456789012ull);
  const std::string want = Call("formatted_metadata_add", d, fmt, 1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5,
                                2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, "tail", 123456789012ull);
#endif

  CollectorLog log(path);
  ASSERT_TRUE(log.ok());
#ifdef COLLECTOR_HAS_API_INIT
  EXPECT_EQ(log.InitCount(), 1);
#endif
  std::vector<std::string> lines = log.Take();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), want);  // after the binding's lines
}

}  // namespace
}  // namespace ittc::testing
