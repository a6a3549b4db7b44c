// Rendering helpers: formatted metadata from raw arguments, JSON and CSV
// quoting, metadata arrays, counter values, times.

#include "tools/itt_dump/model/values.h"

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "format/records.h"
#include "gtest/gtest.h"

namespace ittc {
namespace itt_dump {
namespace {

TEST(RenderFormatted, FormatsEveryArgumentKind) {
  std::string args;
  format::AppendFormatArgInt(&args, -42);
  format::AppendFormatArgUint(&args, 255);
  format::AppendFormatArgDouble(&args, 2.5);
  format::AppendFormatArgString(&args, "abc");
  format::AppendFormatArgPointer(&args, 0x1000);
  format::AppendFormatArgInt(&args, 'A');
  EXPECT_EQ(RenderFormatted("i=%d x=%04x f=%.2f s=[%-5s] p=%p c=%c 100%%", args),
            "i=-42 x=00ff f=2.50 s=[abc  ] p=0x1000 c=A 100%");
}

TEST(RenderFormatted, MissingAndMalformedArguments) {
  std::string one;
  format::AppendFormatArgInt(&one, 7);
  EXPECT_EQ(RenderFormatted("%d and %s", one), "7 and %s");
  EXPECT_EQ(RenderFormatted("%d", std::string("\x09\x01", 2)), "<bad args>");
  EXPECT_EQ(RenderFormatted("trailing %", ""), "trailing %");
  std::string wide;
  format::AppendFormatArgInt(&wide, 1);
  EXPECT_EQ(RenderFormatted("%999999d", wide).size(), 256u);
}

TEST(Values, JsonStringsAreValidWhateverTheBytes) {
  std::string out;
  AppendJsonString(&out, std::string("a\"b\\c\n\x01\xff\xc3\xa9", 10));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\"");
}

TEST(Values, CsvFieldsAreQuotedOnlyWhenNeeded) {
  std::string out;
  AppendCsvField(&out, "plain");
  out.push_back('|');
  AppendCsvField(&out, "a,\"b\"");
  EXPECT_EQ(out, "plain|\"a,\"\"b\"\"\"");
  // Each of the four characters on its own, first or last.
  for (const std::string s : {",x", "x\"", "\rx", "x\n"}) {
    out.clear();
    AppendCsvField(&out, s);
    EXPECT_EQ(out.front(), '"') << s;
    EXPECT_EQ(out.back(), '"') << s;
  }
  out.clear();
  AppendCsvField(&out, "tab\tand space ok");
  EXPECT_EQ(out, "tab\tand space ok");
}

TEST(Values, MetadataArraysAndCounterValues) {
  std::string out;
  AppendMetadataArray(&out, 4, 3, std::string("\x01\0\0\0\xfe\xff\xff\xff\x03\0\0\0", 12));
  EXPECT_EQ(out, "[1,-2,3]");
  out.clear();
  AppendMetadataArray(&out, 1, 5, std::string(8, '\0'));  // short data
  EXPECT_EQ(out, "0");
  out.clear();
  AppendNumber(&out, CounterValue(4, static_cast<uint64_t>(-7)));
  EXPECT_EQ(out, "-7");
  out.clear();
  AppendNumber(&out, CounterValue(1, ~uint64_t{0}));
  EXPECT_EQ(out, "18446744073709551615");
}

// Integers in decimal (at the ends of both integer ranges too), others
// (integers past them too) as "%.17Lg" prints them, into both kinds of
// output.
TEST(Values, NumbersIntegerOrNot) {
  const long double two63 = 9223372036854775808.0L;
  const std::vector<std::pair<long double, std::string>> cases = {
      {0.0L, "0"},
      {-0.0L, "0"},
      {1.0L, "1"},
      {-1.0L, "-1"},
      {123456789.0L, "123456789"},
      // Integers a double does not hold (2^53 + 1): the long double's.
      {9007199254740993.0L, "9007199254740993"},
      {-9007199254740993.0L, "-9007199254740993"},
      {two63, "9223372036854775808"},
      {2 * two63 - 1, "18446744073709551615"},
      {-two63, "-9223372036854775808"},
      {1.5L, "1.5"},
      {-3.25L, "-3.25"},
      {0.1L, "0.1"},
      {1e20L, "1e+20"},
      {-1e20L, "-1e+20"},
      // Integers just past each 64-bit range: as 1e20 (a conversion to an
      // integer type would be undefined there).
      {2 * two63, "1.8446744073709552e+19"},
      {1.85e19L, "1.85e+19"},
      {-two63 - 2048, "-9.2233720368547779e+18"},
      {-1e19L, "-1e+19"},
      {std::numeric_limits<long double>::infinity(), "inf"},
      {-std::numeric_limits<long double>::infinity(), "-inf"},
      {std::numeric_limits<long double>::quiet_NaN(), "nan"},
  };
  for (const auto& [v, want] : cases) {
    std::string s;
    TextBuffer b;
    AppendNumber(&s, v);
    AppendNumber(&b, v);
    EXPECT_EQ(s, want);
    EXPECT_EQ(std::string(b.view()), want);
  }
}

TEST(Values, Times) {
  std::string out;
  AppendSeconds(&out, -1500);
  out.push_back(' ');
  AppendMicros(&out, 1234567);
  out.push_back(' ');
  AppendUtc(&out, 1700000000123456789);
  EXPECT_EQ(out, "-0.000001500 1234.567 2023-11-14T22:13:20.123456789Z");
}

TEST(Values, DecimalsAsStrAppendWritesThem) {
  std::string out = "x";
  for (uint64_t v :
       {uint64_t{0}, uint64_t{9}, uint64_t{10}, uint64_t{1234567890123}, ~uint64_t{0}}) {
    AppendDecimal(&out, v);
    out.push_back(' ');
  }
  for (int64_t v : {int64_t{-1}, int64_t{0}, int64_t{42}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    AppendDecimal(&out, v);
    out.push_back(' ');
  }
  EXPECT_EQ(out,
            "x0 9 10 1234567890123 18446744073709551615 -1 0 42 -9223372036854775808 "
            "9223372036854775807 ");
}

// Every length from 1 to 16 hex digits, both sides of each power of 16,
// into both kinds of output, against snprintf.
TEST(Values, HexOfEveryLength) {
  std::vector<uint64_t> values = {0, 1, 15, 16, ~uint64_t{0}};
  for (int shift = 4; shift < 64; shift += 4) {
    const uint64_t p = uint64_t{1} << shift;
    for (uint64_t v : {p - 1, p, p + 1, p * 11 / 7}) values.push_back(v);
  }
  std::string s = "x";
  TextBuffer b;
  std::string want = "x";
  for (uint64_t v : values) {
    AppendHex(&s, v);
    AppendHex(&b, v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    want += buf;
    s.push_back(' ');
    b.push_back(' ');
    want.push_back(' ');
  }
  EXPECT_EQ(s, want);
  EXPECT_EQ("x" + std::string(b.view()), want);
}

// An id's text: d1 alone, or all three parts when d2 or d3 is set.
TEST(Values, IdTextHasOneOrThreeParts) {
  EXPECT_EQ(IdText(format::Id{0, 0, 0}), "0x0");
  EXPECT_EQ(IdText(format::Id{0xabc, 0, 0}), "0xabc");
  EXPECT_EQ(IdText(format::Id{1, 0, 0x2f}), "0x1:0x0:0x2f");
  EXPECT_EQ(IdText(format::Id{~uint64_t{0}, 0x10, 0}), "0xffffffffffffffff:0x10:0x0");
}

// Every length from 1 to 20 digits, both sides of each power of ten, and
// numbers whose digits all differ, into both kinds of output, against
// snprintf.
TEST(Values, DecimalsOfEveryLength) {
  std::vector<uint64_t> values = {0, ~uint64_t{0}};
  uint64_t p = 1;
  for (int i = 0; i < 20; ++i) {
    values.push_back(p);
    values.push_back(p - 1);
    values.push_back(p + 1);
    values.push_back(p * 7 + 3);
    if (i < 19) p *= 10;
  }
  // Every digit different: "1", "12", ... "1234567890123456789".
  for (uint64_t v = 1, i = 2; v < ~uint64_t{0} / 10; ++i) {
    values.push_back(v);
    v = v * 10 + i % 10;
  }
  std::string s;
  TextBuffer b;
  std::string want;
  for (uint64_t v : values) {
    AppendDecimal(&s, v);
    AppendDecimal(&b, v);
    AppendDecimal(&s, -static_cast<int64_t>(v >> 1));
    AppendDecimal(&b, -static_cast<int64_t>(v >> 1));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu%lld", static_cast<unsigned long long>(v),
                  -static_cast<long long>(v >> 1));
    want += buf;
  }
  EXPECT_EQ(s, want);
  EXPECT_EQ(b.view(), want);
}

// NearDecimals against AppendDecimal and AppendMicros on runs that stay within a prefix,
// cross one, jump back and forth, go negative and reach both ends of
// int64_t: the same text.
TEST(Values, NearDecimalsAsAppendDecimalWritesThem) {
  std::vector<int64_t> values;
  for (int64_t v = 9990; v < 10030; v += 3) values.push_back(v);  // into the first prefix
  for (int64_t v = 1234567; v < 1264567; v += 1777) values.push_back(v);
  for (int64_t v : {int64_t{19999}, int64_t{20000}, int64_t{19999}, int64_t{0}, int64_t{-1},
                    int64_t{-10000}, int64_t{-123456789}, int64_t{10000}, int64_t{99999999},
                    int64_t{100000000}, int64_t{100009999}, int64_t{100010000}}) {
    values.push_back(v);
  }
  int64_t p = 1;
  for (int i = 0; i < 19; ++i) {
    for (int64_t d : {int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{9999}}) {
      if (p <= std::numeric_limits<int64_t>::max() - d) values.push_back(p + d);
    }
    if (i < 18) p *= 10;
  }
  for (int64_t k = 0; k < 5; ++k) {
    values.push_back(std::numeric_limits<int64_t>::max() - 20000 + k * 4999);  // the last prefixes
  }
  values.push_back(std::numeric_limits<int64_t>::min());
  values.push_back(std::numeric_limits<int64_t>::max());
  NearDecimals near;
  NearDecimals near_micros;
  TextBuffer got;
  TextBuffer want;
  for (int64_t v : values) {
    near.Append(&got, v);
    AppendDecimal(&want, v);
    got.push_back(' ');
    want.push_back(' ');
    near_micros.AppendMicros(&got, v);
    AppendMicros(&want, v);
    got.push_back(' ');
    want.push_back(' ');
  }
  EXPECT_EQ(got.view(), want.view());
}

// Chrome's microseconds with three decimals, against snprintf, into both
// kinds of output: zero, negatives, every length of the integer part.
TEST(Values, MicrosOfEveryLength) {
  std::vector<int64_t> values = {0,
                                 1,
                                 -1,
                                 999,
                                 -999,
                                 1000,
                                 -1000,
                                 1500,
                                 -1500,
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min()};
  int64_t p = 1;
  for (int i = 0; i < 18; ++i) {
    p *= 10;
    values.push_back(p + 7);
    values.push_back(-(p - 3));
    values.push_back(1234567890123456789 % p);  // digits that differ
  }
  for (int64_t v : values) {
    const uint64_t a = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    char want[64];
    std::snprintf(want, sizeof want, "%s%llu.%03u", v < 0 ? "-" : "",
                  static_cast<unsigned long long>(a / 1000), static_cast<unsigned>(a % 1000));
    std::string s;
    TextBuffer b;
    AppendMicros(&s, v);
    AppendMicros(&b, v);
    EXPECT_EQ(s, want) << v;
    EXPECT_EQ(b.view(), want) << v;
  }
}

// text's names: printable ASCII as is, quote and backslash escaped, every
// other byte as \xNN. The expected text of one byte `c`.
std::string QuotedByte(int c) {
  if (c == '"' || c == '\\') return std::string("\\") + static_cast<char>(c);
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  char x[8];
  std::snprintf(x, sizeof x, "\\x%02x", c);
  return x;
}

TEST(Values, QuotedEscapesExactlyTheBytesItMust) {
  for (int c = 0; c < 256; ++c) {
    const std::string in = std::string("a") + static_cast<char>(c) + "b";
    std::string out;
    AppendQuoted(&out, in);
    EXPECT_EQ(out, "\"a" + QuotedByte(c) + "b\"") << c;
  }
}

// The same in longer names, which are scanned a word at a time: the byte
// to escape at each position of a 20-byte name, around every word edge.
TEST(Values, QuotedFindsTheByteAtEveryPosition) {
  for (int c : std::vector<int>{0x00, 0x1f, 0x20, '"', '\\', 0x7e, 0x7f, 0x80, 0xff, 'a'}) {
    for (size_t pos = 0; pos < 20; ++pos) {
      std::string in(20, 'x');
      in[pos] = static_cast<char>(c);
      TextBuffer out;
      AppendQuoted(&out, in);
      EXPECT_EQ(out.view(),
                "\"" + std::string(pos, 'x') + QuotedByte(c) + std::string(19 - pos, 'x') + "\"")
          << c << " at " << pos;
    }
  }
}

// JSON strings are scanned a word at a time too: a byte at any position of
// a 20-byte string comes out as it does alone (which takes the byte path).
TEST(Values, JsonStringFindsTheByteAtEveryPosition) {
  for (int c = 0; c < 256; ++c) {
    std::string alone;
    AppendJsonString(&alone, std::string(1, static_cast<char>(c)));
    const std::string inner = alone.substr(1, alone.size() - 2);
    for (size_t pos = 0; pos < 20; ++pos) {
      std::string in(20, 'x');
      in[pos] = static_cast<char>(c);
      TextBuffer out;
      AppendJsonString(&out, in);
      EXPECT_EQ(out.view(),
                "\"" + std::string(pos, 'x') + inner + std::string(19 - pos, 'x') + "\"")
          << c << " at " << pos;
    }
  }
}

TEST(Values, TextBufferGrowsAndKeepsWhatItHolds) {
  TextBuffer b;
  b.append("lit");
  b.push_back('-');
  const std::string big(5000, 'x');  // past the first allocation
  b.append(big);
  b.append(std::string_view("end"));
  b.append(std::string_view());  // null data: nothing to copy
  AppendQuoted(&b, "q\"");
  EXPECT_EQ(b.view(), "lit-" + big + "end\"q\\\"\"");
  b.clear();
  EXPECT_TRUE(b.empty());
  AppendDecimal(&b, uint64_t{7});
  EXPECT_EQ(b.view(), "7");
}

}  // namespace
}  // namespace itt_dump
}  // namespace ittc
