#include "format/debug_string.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ittc {
namespace format {

std::string EscapeBytes(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) {
    if (c == '\\' || c == '"') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  return out;
}

std::string DebugString(const Event& e) {
  const KindSchema* s = FindSchema(e.kind);
  std::string out =
      s != nullptr ? std::string(s->name) : absl::StrCat("kind_", static_cast<uint16_t>(e.kind));
  absl::StrAppend(&out, " @", e.time);
  if (s == nullptr) return out;
  for (int i = 0; i < s->field_count && i < e.field_count; ++i) {
    const FieldValue& f = e.fields[i];
    absl::StrAppend(&out, " ", s->fields[i].name, "=");
    switch (s->fields[i].type) {
      case FieldType::kUint:
        absl::StrAppend(&out, f.u);
        break;
      case FieldType::kSint:
        absl::StrAppend(&out, f.as_sint());
        break;
      case FieldType::kDouble:
        absl::StrAppendFormat(&out, "%.17g", f.as_double());
        break;
      case FieldType::kTime:
        absl::StrAppend(&out, "@", f.u);
        break;
      case FieldType::kId:
        if (f.id == Id{}) {
          out += "{}";
        } else {
          absl::StrAppend(&out, "{", f.id.d1, ",", f.id.d2, ",", f.id.d3, "}");
        }
        break;
      case FieldType::kBytes:
        absl::StrAppend(&out, "\"", EscapeBytes(f.bytes), "\"");
        break;
    }
  }
  return out;
}

}  // namespace format
}  // namespace ittc
