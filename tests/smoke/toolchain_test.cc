// Checks that the system libraries link and work under the offline build.
#include <zstd.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace ittc::testing {
namespace {

TEST(Toolchain, ZstdRoundTrips) {
  const std::string input(1000, 'x');
  std::string compressed(ZSTD_compressBound(input.size()), '\0');
  size_t n = ZSTD_compress(compressed.data(), compressed.size(), input.data(), input.size(), 1);
  ASSERT_FALSE(ZSTD_isError(n));
  std::string output(input.size(), '\0');
  size_t m = ZSTD_decompress(output.data(), output.size(), compressed.data(), n);
  ASSERT_EQ(m, input.size());
  EXPECT_EQ(output, input);
}

TEST(Toolchain, AbslStatusCarriesMessage) {
  absl::Status s = absl::InvalidArgumentError(absl::StrCat("bad ", 42));
  EXPECT_EQ(s.message(), "bad 42");
}

}  // namespace
}  // namespace ittc::testing
