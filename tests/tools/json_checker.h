// A small recursive-descent JSON parser for the tests: validates RFC 8259
// syntax strictly (no trailing commas, no NaN, valid escapes and UTF-8 is
// not required of the bytes but control characters in strings are
// rejected) and builds a tree to inspect.

#ifndef TESTS_TOOLS_JSON_CHECKER_H_
#define TESTS_TOOLS_JSON_CHECKER_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ittc {
namespace itt_dump {
namespace testing {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string text;  // strings: the decoded value; numbers: the source text
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;

  const JsonValue* Get(std::string_view key) const;
};

// Parses the whole of `text`. On failure returns false and sets *error to
// "offset N: reason".
bool ParseJson(std::string_view text, JsonValue* out, std::string* error);

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc

#endif  // TESTS_TOOLS_JSON_CHECKER_H_
