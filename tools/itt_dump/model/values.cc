#include "tools/itt_dump/model/values.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/records.h"

namespace ittc {
namespace itt_dump {

const char* ScopeName(uint64_t scope) {
  switch (scope) {
    case 1:
      return "global";
    case 2:
      return "track_group";
    case 3:
      return "track";
    case 4:
      return "task";
    case 5:
      return "marker";
    default:
      return "unknown";
  }
}

const char* CollectionScopeName(uint64_t mask) {
  switch (mask) {
    case 1:
      return "host";
    case 2:
      return "offload";
    case 0x7fffffff:
      return "all";
    default:
      return nullptr;
  }
}

const char* RelationName(uint64_t relation) {
  switch (relation) {
    case 1:
      return "dependent_on";
    case 2:
      return "sibling_of";
    case 3:
      return "parent_of";
    case 4:
      return "continuation_of";
    case 5:
      return "child_of";
    case 6:
      return "continued_by";
    case 7:
      return "predecessor_to";
    default:
      return "unknown";
  }
}

const char* MetadataTypeName(uint64_t type) {
  switch (type) {
    case 1:
      return "u64";
    case 2:
      return "s64";
    case 3:
      return "u32";
    case 4:
      return "s32";
    case 5:
      return "u16";
    case 6:
      return "s16";
    case 7:
      return "float";
    case 8:
      return "double";
    default:
      return "unknown";
  }
}

namespace {

// Little-endian loads of metadata array elements.
uint64_t Le(const char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  }
  return v;
}

double BitsToDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace

long double CounterValue(uint64_t type, uint64_t bits) {
  switch (type) {
    case 2:  // s64
    case 4:  // s32
    case 6:  // s16
      return static_cast<long double>(static_cast<int64_t>(bits));
    case 7:  // float
    case 8:  // double
      return static_cast<long double>(BitsToDouble(bits));
    default:
      return static_cast<long double>(bits);
  }
}

template <typename Out>
void AppendNumber(Out* out, long double v) {
  // Integers in the 64-bit ranges in decimal: int64_t's, and uint64_t's
  // past them, tested without the library's floorl.
  if (int64_t i; ExactInt64(v, &i)) {
    if (i >= 0) {
      AppendDecimal(out, static_cast<uint64_t>(i));
    } else {
      AppendDecimal(out, i);
    }
    return;
  }
  if (v >= 9223372036854775808.0L && v < 18446744073709551616.0L) {
    const auto u = static_cast<uint64_t>(v);
    if (static_cast<long double>(u) == v) {
      AppendDecimal(out, u);
      return;
    }
  }
  // Integers past the 64-bit ranges, like fractions: with 17 significant
  // digits (converting them to an integer type would be undefined).
  if (std::isnan(v)) {
    out->append("nan");
  } else if (std::isinf(v)) {
    out->append(v < 0 ? "-inf" : "inf");
  } else {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%.17Lg", v);
    out->append(buf, static_cast<size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
  }
}

template <typename Out>
void AppendMetadataArray(Out* out, uint64_t type, uint64_t count, std::string_view data) {
  const int size = format::MetadataTypeSize(type);
  if (size == 0) {
    out->append("[]");
    return;
  }
  const uint64_t have = data.size() / static_cast<uint64_t>(size);
  const uint64_t n = count < have ? count : have;
  if (n != 1) out->push_back('[');
  for (uint64_t i = 0; i < n; ++i) {
    if (i != 0) out->push_back(',');
    const char* p = data.data() + i * static_cast<uint64_t>(size);
    uint64_t u = 0;
    long double v = 0;
    switch (type) {
      case 1:
        v = static_cast<long double>(Le(p, 8));
        break;
      case 2:
        v = static_cast<long double>(static_cast<int64_t>(Le(p, 8)));
        break;
      case 3:
        v = Le(p, 4);
        break;
      case 4:
        v = static_cast<int32_t>(static_cast<uint32_t>(Le(p, 4)));
        break;
      case 5:
        v = Le(p, 2);
        break;
      case 6:
        v = static_cast<int16_t>(static_cast<uint16_t>(Le(p, 2)));
        break;
      case 7: {
        float f;
        const uint32_t b = static_cast<uint32_t>(Le(p, 4));
        std::memcpy(&f, &b, sizeof f);
        v = f;
        break;
      }
      case 8:
        u = Le(p, 8);
        v = BitsToDouble(u);
        break;
    }
    AppendNumber(out, v);
  }
  if (n != 1) out->push_back(']');
}

std::string RenderFormatted(std::string_view fmt, std::string_view args) {
  std::string out;
  size_t i = 0;
  while (i < fmt.size()) {
    const char c = fmt[i];
    if (c != '%') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out.push_back('%');
      i += 2;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    const size_t start = i++;
    std::string flags;
    while (i < fmt.size() && std::strchr("-+ #0", fmt[i]) != nullptr) {
      flags.push_back(fmt[i++]);
    }
    int width = -1;
    int precision = -1;
    while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
      width = std::min(256, (width < 0 ? 0 : width) * 10 + (fmt[i++] - '0'));
    }
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      precision = 0;
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        precision = std::min(256, precision * 10 + (fmt[i++] - '0'));
      }
    }
    while (i < fmt.size() && std::strchr("hlLqjzt", fmt[i]) != nullptr) ++i;
    if (i >= fmt.size()) {
      out.append(fmt.substr(start));
      break;
    }
    const char conv = fmt[i++];
    format::FormatArg arg;
    bool malformed = false;
    if (std::strchr("diuoxXcfFeEgGaAsp", conv) == nullptr ||
        !format::NextFormatArg(&args, &arg, &malformed)) {
      if (malformed) {
        out.append("<bad args>");
        break;
      }
      out.append(fmt.substr(start, i - start));  // as written
      continue;
    }
    std::string spec = "%" + flags;
    if (width >= 0) absl::StrAppend(&spec, width);
    if (precision >= 0) absl::StrAppend(&spec, ".", precision);
    char buf[600];
    switch (arg.tag) {
      case format::FormatArgTag::kInt:
        if (conv == 'c') {
          std::snprintf(buf, sizeof buf, (spec + "c").c_str(),
                        static_cast<int>(static_cast<unsigned char>(arg.u)));
        } else {
          std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), static_cast<long long>(arg.u));
        }
        break;
      case format::FormatArgTag::kUint: {
        const char u = std::strchr("oxX", conv) != nullptr ? conv : 'u';
        std::snprintf(buf, sizeof buf, (spec + "ll" + u).c_str(),
                      static_cast<unsigned long long>(arg.u));
        break;
      }
      case format::FormatArgTag::kDouble: {
        const char d = std::strchr("fFeEgGaA", conv) != nullptr ? conv : 'g';
        std::snprintf(buf, sizeof buf, (spec + d).c_str(), arg.d);
        break;
      }
      case format::FormatArgTag::kString: {
        const int n = static_cast<int>(std::min<size_t>(
            arg.text.size(), precision >= 0 ? static_cast<size_t>(precision) : arg.text.size()));
        std::string text(arg.text.substr(0, static_cast<size_t>(n)));
        if (width > static_cast<int>(text.size())) {
          const std::string pad(static_cast<size_t>(width) - text.size(), ' ');
          text = flags.find('-') != std::string::npos ? text + pad : pad + text;
        }
        out.append(text);
        continue;
      }
      case format::FormatArgTag::kPointer:
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(arg.u));
        break;
      default:
        out.append("<bad args>");
        return out;
    }
    out.append(buf);
  }
  return out;
}

namespace {

// The bytes AppendQuoted escapes, and those AppendJsonString does not copy
// as they are: one table load per byte.
struct QuotedEscapes {
  bool at[256];
};
constexpr QuotedEscapes MakeQuotedEscapes() {
  QuotedEscapes t{};
  for (int c = 0; c < 256; ++c) t.at[c] = c < 0x20 || c >= 0x7f || c == '\\' || c == '"';
  return t;
}
constexpr QuotedEscapes kQuotedEscapes = MakeQuotedEscapes();

// Whether any of the 8 bytes of w is one of kQuotedEscapes (below 0x20,
// 0x7f and above, '"', '\\'): the usual "has a zero / smaller byte" word
// tricks, exact as yes/no answers. Names rarely need an escape, so most
// words are passed over whole.
bool WordNeedsEscape(uint64_t w) {
  constexpr uint64_t k01 = 0x0101010101010101;
  constexpr uint64_t k80 = 0x8080808080808080;
  const auto has_zero = [](uint64_t v) { return ((v - k01) & ~v & k80) != 0; };
  const bool below_space_or_high = ((((w - k01 * 0x20) & ~w) | w) & k80) != 0;
  return below_space_or_high || has_zero(w ^ (k01 * 0x7f)) || has_zero(w ^ (k01 * '"')) ||
         has_zero(w ^ (k01 * '\\'));
}

// The first byte in [p, end) that is one of kQuotedEscapes, or end: whole
// words first, then byte by byte within the word that has one.
const unsigned char* SkipPlain(const unsigned char* p, const unsigned char* end) {
  for (uint64_t w; end - p >= 8; p += 8) {
    std::memcpy(&w, p, 8);
    if (WordNeedsEscape(w)) break;
  }
  while (p < end && !kQuotedEscapes.at[*p]) ++p;
  return p;
}

}  // namespace

int DecodeUtf8(const unsigned char* p, const unsigned char* end, uint32_t* cp) {
  if (p >= end) return 0;
  const unsigned char c = *p;
  int len = 0;
  uint32_t v = 0;
  if (c < 0x80) {
    len = 1;
    v = c;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2;
    v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    v = c & 0x07;
  }
  if (len == 0 || end - p < len) return 0;
  for (int i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  uint32_t cp = 0;
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    const int n = DecodeUtf8(p, end, &cp);
    if (n == 0) return false;
    p += n;
  }
  return true;
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  uint32_t cp = 0;
  while (p < end) {
    const int n = *p < 0x80 ? 1 : DecodeUtf8(p, end, &cp);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");  // U+FFFD
      ++p;
      continue;
    }
    out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
  }
  return out;
}

template <typename Out>
void AppendJsonString(Out* out, std::string_view s) {
  out->push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    // Printable ASCII other than '"' and '\\' is copied in runs.
    const auto* run = p;
    p = SkipPlain(p, end);
    if (p != run) out->append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p == end) break;
    const unsigned char c = *p;
    if (c < 0x80) {
      switch (c) {
        case '"':
          out->append("\\\"");
          break;
        case '\\':
          out->append("\\\\");
          break;
        case '\n':
          out->append("\\n");
          break;
        case '\r':
          out->append("\\r");
          break;
        case '\t':
          out->append("\\t");
          break;
        default:
          if (c < 0x20 || c == 0x7f) {
            char u[8];
            std::snprintf(u, sizeof u, "\\u%04x", c);
            out->append(u, 6);
          } else {
            out->push_back(static_cast<char>(c));
          }
      }
      ++p;
      continue;
    }
    // Copy one valid UTF-8 sequence, or replace the lead byte.
    uint32_t cp;
    const int len = DecodeUtf8(p, end, &cp);
    if (len != 0) {
      out->append(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
      p += len;
    } else {
      out->append("\\ufffd");
      ++p;
    }
  }
  out->push_back('"');
}

template <typename Out>
void AppendCsvField(Out* out, std::string_view s) {
  // One pass of compares (find_first_of calls memchr on the set for each
  // character: 6% of vtune-csv's samples on the 64 M-event trace).
  bool plain = true;
  for (const char c : s) plain &= c != ',' && c != '"' && c != '\r' && c != '\n';
  if (plain) {
    out->append(s.data(), s.size());
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

template <typename Out>
void AppendQuoted(Out* out, std::string_view s) {
  out->push_back('"');
  AppendEscaped(out, s);
  out->push_back('"');
}

template <typename Out>
void AppendEscaped(Out* out, std::string_view s) {
  const auto* begin = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = begin + s.size();
  size_t run = 0;  // start of the pending run of characters copied as-is
  for (const unsigned char* p = SkipPlain(begin, end); p < end; p = SkipPlain(p + 1, end)) {
    const unsigned char c = *p;
    const auto i = static_cast<size_t>(p - begin);
    out->append(s.data() + run, i - run);
    run = i + 1;
    if (c == '\\' || c == '"') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else {
      char x[8];
      std::snprintf(x, sizeof x, "\\x%02x", c);
      out->append(x, 4);
    }
  }
  out->append(s.data() + run, s.size() - run);
}

namespace {

// "00" "01" ... "99": two digits per table load. absl::AlphaNum formats
// into a buffer of its own that is then copied; `text` and `chrome` print
// a few numbers per line, and that copy showed in their profiles.
struct DigitPairs {
  char at[200];
};
constexpr DigitPairs MakeDigitPairs() {
  DigitPairs t{};
  for (int i = 0; i < 100; ++i) {
    t.at[2 * i] = static_cast<char>('0' + i / 10);
    t.at[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return t;
}
constexpr DigitPairs kDigitPairs = MakeDigitPairs();

constexpr size_t kMaxDecimalDigits = 20;  // 18446744073709551615
constexpr uint64_t kE8 = 100000000;

[[gnu::always_inline]] inline void PutPair(char* p, uint32_t v) {
  std::memcpy(p, &kDigitPairs.at[2 * v], 2);
}
// The two digits of v < 100, as the 16-bit word whose bytes they are.
[[gnu::always_inline]] inline uint64_t PairWord(uint32_t v) {
  uint16_t w;
  std::memcpy(&w, &kDigitPairs.at[2 * v], 2);
  return w;
}
// Exactly 4 digits (leading zeros) of v < 10^4.
[[gnu::always_inline]] inline void Put4(char* p, uint32_t v) {
  PutPair(p, v / 100);
  PutPair(p + 2, v % 100);
}
// Exactly 8 digits (leading zeros) of v < 10^8, as the 64-bit word whose
// bytes they are (little-endian: the first digit lowest), built in a
// register: the halves are independent, so their 32-bit divisions
// overlap.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "Digits8 builds little-endian words");
[[gnu::always_inline]] inline uint64_t Digits8(uint32_t v) {
  const uint32_t high = v / 10000;
  const uint32_t low = v % 10000;
  return PairWord(high / 100) | PairWord(high % 100) << 16 | PairWord(low / 100) << 32 |
         PairWord(low % 100) << 48;
}
[[gnu::always_inline]] inline void Put8(char* p, uint32_t v) {
  const uint64_t w = Digits8(v);
  std::memcpy(p, &w, 8);
}

// The digits of v < 10^8 without leading zeros at p, which has room for
// 8; returns how many. Up to 4 digits, a pair or two; above, all 8 digits
// are made in one word, shifted down over the leading zeros and stored
// once, which costs less than a loop or a variable-length copy (and than
// shifting the word in memory after storing its pairs: that load waits
// for the four stores, which cannot forward to it).
[[gnu::always_inline]] inline size_t PutUpTo8(char* p, uint32_t v) {
  if (v < 100) {
    if (v < 10) {
      p[0] = static_cast<char>('0' + v);
      return 1;
    }
    PutPair(p, v);
    return 2;
  }
  if (v < 10000) {
    if (v < 1000) {
      p[0] = static_cast<char>('0' + v / 100);
      PutPair(p + 1, v % 100);
      return 3;
    }
    Put4(p, v);
    return 4;
  }
  const size_t n = v < 1000000 ? (v < 100000 ? 5 : 6) : (v < 10000000 ? 7 : 8);
  const uint64_t w = Digits8(v) >> (8 * (8 - n));
  std::memcpy(p, &w, 8);
  return n;
}

// The digits of v at p (room for kMaxDecimalDigits); returns how many.
// 64-bit values are cut into 8-digit pieces printed with 32-bit arithmetic.
[[gnu::always_inline]] inline size_t PutDecimal(char* p, uint64_t v) {
  if (v < kE8) return PutUpTo8(p, static_cast<uint32_t>(v));
  const auto low = static_cast<uint32_t>(v % kE8);
  const uint64_t high = v / kE8;
  size_t n;
  if (high < kE8) {
    n = PutUpTo8(p, static_cast<uint32_t>(high));
  } else {
    n = PutUpTo8(p, static_cast<uint32_t>(high / kE8));  // at most 1844
    Put8(p + n, static_cast<uint32_t>(high % kE8));
    n += 8;
  }
  Put8(p + n, low);
  return n + 8;
}

}  // namespace

template <typename Out>
void AppendDecimal(Out* out, uint64_t v) {
  if constexpr (std::is_same_v<Out, TextBuffer>) {
    out->Advance(PutDecimal(out->Room(kMaxDecimalDigits), v));
  } else {
    char digits[kMaxDecimalDigits];
    out->append(digits, PutDecimal(digits, v));
  }
}

template <typename Out>
void AppendDecimal(Out* out, int64_t v) {
  const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if constexpr (std::is_same_v<Out, TextBuffer>) {
    char* p = out->Room(kMaxDecimalDigits + 1);
    *p = '-';
    const size_t sign = v < 0 ? 1 : 0;
    out->Advance(sign + PutDecimal(p + sign, magnitude));
  } else {
    if (v < 0) out->push_back('-');
    AppendDecimal(out, magnitude);
  }
}

char* NearDecimals::Prefix(TextBuffer* out, int64_t v, uint32_t* low) {
  if (static_cast<uint64_t>(v) - static_cast<uint64_t>(base_) >= kSpan) {
    base_ = v - v % kSpan;
    prefix_size_ = PutDecimal(prefix_, static_cast<uint64_t>(v / kSpan));
  }
  *low = static_cast<uint32_t>(v - base_);
  // One fixed-size copy of the prefix's room.
  char* p = out->Room(kCopied + 5);
  std::memcpy(p, prefix_, kCopied);
  return p + prefix_size_;
}

void NearDecimals::Append(TextBuffer* out, int64_t v) {
  // (Below kSpan the digits are fewer than a prefix's and four.)
  if (v < kSpan) return AppendDecimal(out, v);
  uint32_t low = 0;
  char* p = Prefix(out, v, &low);
  Put4(p, low);
  out->Advance(prefix_size_ + 4);
}

void NearDecimals::AppendMicros(TextBuffer* out, int64_t ns) {
  if (ns < kSpan) return itt_dump::AppendMicros(out, ns);
  // The prefix, then the thousands digit, '.', three decimals.
  uint32_t low = 0;
  char* p = Prefix(out, ns, &low);
  p[0] = static_cast<char>('0' + low / 1000);
  p[1] = '.';
  p[2] = static_cast<char>('0' + low / 100 % 10);
  PutPair(p + 3, low % 100);
  out->Advance(prefix_size_ + 5);
}

template <typename Out>
void AppendHex(Out* out, uint64_t v) {
  constexpr size_t kMax = 2 + 16;
  char digits[kMax];
  const int n = v == 0 ? 1 : (64 - __builtin_clzll(v) + 3) / 4;
  digits[0] = '0';
  digits[1] = 'x';
  for (int i = n; i-- > 0; v >>= 4) digits[2 + i] = "0123456789abcdef"[v & 15];
  out->append(digits, static_cast<size_t>(2 + n));
}

std::string HexText(uint64_t v) {
  std::string out;
  AppendHex(&out, v);
  return out;
}

std::string IdText(const format::Id& id) {
  std::string out;
  AppendHex(&out, id.d1);
  if (id.d2 != 0 || id.d3 != 0) {
    out.push_back(':');
    AppendHex(&out, id.d2);
    out.push_back(':');
    AppendHex(&out, id.d3);
  }
  return out;
}

void AppendSeconds(std::string* out, int64_t ns) {
  const bool neg = ns < 0;
  const uint64_t a = neg ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  absl::StrAppendFormat(out, "%s%u.%09u", neg ? "-" : "", a / 1000000000, a % 1000000000);
}

template <typename Out>
void AppendUtc(Out* out, int64_t ns) {
  int64_t sec = ns / 1000000000;
  int64_t frac = ns % 1000000000;
  if (frac < 0) {
    frac += 1000000000;
    --sec;
  }
  const time_t t = static_cast<time_t>(sec);
  struct tm tm;
  if (gmtime_r(&t, &tm) == nullptr) {
    AppendDecimal(out, ns);
    out->append("ns");
    return;
  }
  // Into a local buffer: `text --wall` prints one per line.
  char utc[64];
  const int n = std::snprintf(utc, sizeof utc, "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ",
                              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                              tm.tm_sec, static_cast<int>(frac));
  out->append(utc, static_cast<size_t>(std::clamp(n, 0, static_cast<int>(sizeof utc) - 1)));
}

template <typename Out>
void AppendMicros(Out* out, int64_t ns) {
  // By hand: chrome calls this twice per event.
  const bool neg = ns < 0;
  const uint64_t a = neg ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  const auto frac = static_cast<uint32_t>(a % 1000);
  // Sign, integer digits, '.', three decimals: at most 1 + 20 + 4 bytes.
  char local[kMaxDecimalDigits + 5];
  char* p = local;
  if constexpr (std::is_same_v<Out, TextBuffer>) p = out->Room(sizeof local);
  *p = '-';
  size_t n = neg ? 1 : 0;
  n += PutDecimal(p + n, a / 1000);
  p[n] = '.';
  p[n + 1] = static_cast<char>('0' + frac / 100);
  PutPair(p + n + 2, frac % 100);
  n += 4;
  if constexpr (std::is_same_v<Out, TextBuffer>) {
    out->Advance(n);
  } else {
    out->append(local, n);
  }
}

#define ITTC_VALUES_TEMPLATES(Out)                                               \
  template void AppendNumber(Out*, long double);                                 \
  template void AppendMetadataArray(Out*, uint64_t, uint64_t, std::string_view); \
  template void AppendJsonString(Out*, std::string_view);                        \
  template void AppendCsvField(Out*, std::string_view);                          \
  template void AppendQuoted(Out*, std::string_view);                            \
  template void AppendEscaped(Out*, std::string_view);                           \
  template void AppendDecimal(Out*, uint64_t);                                   \
  template void AppendDecimal(Out*, int64_t);                                    \
  template void AppendHex(Out*, uint64_t);                                       \
  template void AppendUtc(Out*, int64_t);                                        \
  template void AppendMicros(Out*, int64_t);
ITTC_VALUES_TEMPLATES(std::string)
ITTC_VALUES_TEMPLATES(TextBuffer)
#undef ITTC_VALUES_TEMPLATES

}  // namespace itt_dump
}  // namespace ittc
