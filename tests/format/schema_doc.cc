#include "tests/format/schema_doc.h"

#include "absl/strings/str_format.h"
#include "format/schema.h"

namespace ittc {
namespace format {
namespace testing {

std::string KindTableMarkdown() {
  std::string out =
      "| kind | name | fields (in order, `name: type`) |\n"
      "|---:|---|---|\n";
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  for (int i = 0; i < count; ++i) {
    const KindSchema& s = all[i];
    std::string fields;
    for (int f = 0; f < s.field_count; ++f) {
      if (f > 0) fields += ", ";
      absl::StrAppendFormat(&fields, "%s: %s", s.fields[f].name, FieldTypeName(s.fields[f].type));
    }
    if (fields.empty()) fields = "(none)";
    absl::StrAppendFormat(&out, "| 0x%04x (%d) | `%s` | %s |\n", static_cast<unsigned>(s.kind),
                          static_cast<unsigned>(s.kind), s.name, fields);
  }
  return out;
}

}  // namespace testing
}  // namespace format
}  // namespace ittc
