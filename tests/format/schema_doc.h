// Renders the schema table (format/schema.cc) as the Markdown table of
// FORMAT.md's "Record kinds" section, so the document is generated from
// the code and schema_doc_test keeps the two equal.

#ifndef TESTS_FORMAT_SCHEMA_DOC_H_
#define TESTS_FORMAT_SCHEMA_DOC_H_

#include <string>

namespace ittc {
namespace format {
namespace testing {

// Markers around the generated table in FORMAT.md.
inline constexpr char kTableBegin[] = "<!-- BEGIN KIND TABLE (generated) -->\n";
inline constexpr char kTableEnd[] = "<!-- END KIND TABLE -->\n";

std::string KindTableMarkdown();

}  // namespace testing
}  // namespace format
}  // namespace ittc

#endif  // TESTS_FORMAT_SCHEMA_DOC_H_
