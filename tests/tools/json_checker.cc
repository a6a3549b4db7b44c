#include "tests/tools/json_checker.h"

#include <cctype>
#include <cstdlib>

namespace ittc {
namespace itt_dump {
namespace testing {

const JsonValue* JsonValue::Get(std::string_view key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  bool Document(JsonValue* v) {
    Ws();
    if (!Value(v, 0)) return false;
    Ws();
    if (p_ != s_.size()) return Fail("trailing characters");
    return true;
  }
  std::string error() const { return error_; }

 private:
  bool Fail(const char* why) {
    if (error_.empty()) error_ = "offset " + std::to_string(p_) + ": " + why;
    return false;
  }
  void Ws() {
    while (p_ < s_.size() &&
           (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t')) {
      ++p_;
    }
  }
  bool Lit(std::string_view w) {
    if (s_.substr(p_, w.size()) != w) return Fail("bad literal");
    p_ += w.size();
    return true;
  }
  bool Value(JsonValue* v, int depth) {
    if (depth > 200) return Fail("too deep");
    if (p_ >= s_.size()) return Fail("unexpected end");
    const char c = s_[p_];
    if (c == '{') return Object(v, depth);
    if (c == '[') return Array(v, depth);
    if (c == '"') {
      v->type = JsonValue::Type::kString;
      return String(&v->text);
    }
    if (c == 't') {
      v->type = JsonValue::Type::kBool;
      v->boolean = true;
      return Lit("true");
    }
    if (c == 'f') {
      v->type = JsonValue::Type::kBool;
      return Lit("false");
    }
    if (c == 'n') return Lit("null");
    return Number(v);
  }
  bool Number(JsonValue* v) {
    const size_t start = p_;
    if (p_ < s_.size() && s_[p_] == '-') ++p_;
    if (p_ >= s_.size()) return Fail("bad number");
    if (s_[p_] == '0') {
      ++p_;
    } else if (s_[p_] >= '1' && s_[p_] <= '9') {
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    } else {
      return Fail("bad number");
    }
    if (p_ < s_.size() && s_[p_] == '.') {
      ++p_;
      if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9') {
        return Fail("bad fraction");
      }
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    }
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      ++p_;
      if (p_ < s_.size() && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
      if (p_ >= s_.size() || s_[p_] < '0' || s_[p_] > '9') {
        return Fail("bad exponent");
      }
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
    }
    v->type = JsonValue::Type::kNumber;
    v->text = std::string(s_.substr(start, p_ - start));
    v->number = std::strtod(v->text.c_str(), nullptr);
    return true;
  }
  bool String(std::string* out) {
    ++p_;  // opening quote
    while (p_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[p_++]);
      if (c == '"') return true;
      if (c < 0x20) return Fail("control character in string");
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        continue;
      }
      if (p_ >= s_.size()) return Fail("bad escape");
      const char e = s_[p_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
          out->push_back(' ');
          break;
        case 'u':
          for (int i = 0; i < 4; ++i) {
            if (p_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[p_]))) {
              return Fail("bad \\u escape");
            }
            ++p_;
          }
          out->push_back('?');
          break;
        default:
          return Fail("bad escape");
      }
    }
    return Fail("unterminated string");
  }
  bool Array(JsonValue* v, int depth) {
    v->type = JsonValue::Type::kArray;
    ++p_;
    Ws();
    if (p_ < s_.size() && s_[p_] == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      Ws();
      v->items.emplace_back();
      if (!Value(&v->items.back(), depth + 1)) return false;
      Ws();
      if (p_ >= s_.size()) return Fail("unterminated array");
      if (s_[p_] == ',') {
        ++p_;
        continue;
      }
      if (s_[p_] == ']') {
        ++p_;
        return true;
      }
      return Fail("expected , or ]");
    }
  }
  bool Object(JsonValue* v, int depth) {
    v->type = JsonValue::Type::kObject;
    ++p_;
    Ws();
    if (p_ < s_.size() && s_[p_] == '}') {
      ++p_;
      return true;
    }
    for (;;) {
      Ws();
      if (p_ >= s_.size() || s_[p_] != '"') return Fail("expected key");
      std::string key;
      if (!String(&key)) return false;
      Ws();
      if (p_ >= s_.size() || s_[p_] != ':') return Fail("expected :");
      ++p_;
      Ws();
      v->members.emplace_back(key, JsonValue());
      if (!Value(&v->members.back().second, depth + 1)) return false;
      Ws();
      if (p_ >= s_.size()) return Fail("unterminated object");
      if (s_[p_] == ',') {
        ++p_;
        continue;
      }
      if (s_[p_] == '}') {
        ++p_;
        return true;
      }
      return Fail("expected , or }");
    }
  }

  std::string_view s_;
  size_t p_ = 0;
  std::string error_;
};

}  // namespace

bool ParseJson(std::string_view text, JsonValue* out, std::string* error) {
  Parser p(text);
  *out = JsonValue();
  if (p.Document(out)) return true;
  *error = p.error();
  return false;
}

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
