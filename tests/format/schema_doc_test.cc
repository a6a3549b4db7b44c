// FORMAT.md's kind table must be exactly what the schema table generates.
// To regenerate after changing schema.cc:
//   bazel run //tests/format:print_kind_table
// and paste its output between the markers in format/FORMAT.md.

#include "tests/format/schema_doc.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace ittc::format {
namespace {

TEST(FormatDoc, KindTableMatchesTheSchema) {
  std::ifstream in("format/FORMAT.md");
  ASSERT_TRUE(in.good()) << "format/FORMAT.md not in runfiles";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const size_t b = doc.find(testing::kTableBegin);
  const size_t e = doc.find(testing::kTableEnd);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  const size_t start = b + std::string(testing::kTableBegin).size();
  ASSERT_LE(start, e);
  EXPECT_EQ(doc.substr(start, e - start), testing::KindTableMarkdown())
      << "regenerate with: bazel run //tests/format:print_kind_table";
}

}  // namespace
}  // namespace ittc::format
