// Rendering of field values shared by the verbs: enum names, metadata
// arrays, counter values, JSON and CSV quoting, times.
//
// The helpers a verb calls for every line take an Out that is std::string
// or TextBuffer (text_buffer.h), the line buffer of text and chrome.
//
// Thread safety: pure functions.

#ifndef TOOLS_ITT_DUMP_MODEL_VALUES_H_
#define TOOLS_ITT_DUMP_MODEL_VALUES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "format/schema.h"
#include "tools/itt_dump/model/text_buffer.h"

namespace ittc {
namespace itt_dump {

const char* ScopeName(uint64_t scope);  // "global", "track", ...
// An __itt_collection_scope mask's name ("host", "offload", "all"); null
// for another mask.
const char* CollectionScopeName(uint64_t mask);
const char* RelationName(uint64_t relation);  // "parent_of", ...
const char* MetadataTypeName(uint64_t type);  // "u64", "double", ...

// A counter_set_value* value: `bits` holds u64 bits as the collector stores
// them (unsigned zero-extended, signed sign-extended, float/double as the
// bits of a double). long double keeps every 64-bit integer exact.
long double CounterValue(uint64_t type, uint64_t bits);

// Whether `v` is an integer in int64_t's range: then *i is it. Where a
// double holds `v` (most values), tested and converted through the
// double, by SSE: converting a long double to an integer type truncates
// on the x87 unit, which takes two changes of its control word, each a
// stall of the pipeline (per counter sample, 5% of vtune-csv's reading
// thread on the mixed benchmark trace). Integers past 2^53 by the long
// double itself.
inline bool ExactInt64(long double v, int64_t* i) {
  const auto d = static_cast<double>(v);
  if (static_cast<long double>(d) == v) {
    if (!(d >= -9223372036854775808.0) || !(d < 9223372036854775808.0)) return false;
    *i = static_cast<int64_t>(d);
    return static_cast<double>(*i) == d;
  }
  if (!(v >= -9223372036854775808.0L) || !(v < 9223372036854775808.0L)) return false;  // or NaN
  *i = static_cast<int64_t>(v);
  return static_cast<long double>(*i) == v;
}

// Appends `v` as a number: integral values without a fraction, others with
// up to 17 significant digits. Non-finite values print as "nan", "inf".
template <typename Out>
void AppendNumber(Out* out, long double v);

// Appends the elements of a metadata array of `count` elements of `type`
// stored little-endian in `data`, as "v" for one element or "[v1,v2,...]".
// Elements past the data (a damaged record) are not printed.
template <typename Out>
void AppendMetadataArray(Out* out, uint64_t type, uint64_t count, std::string_view data);

// formatted_metadata_add* recorded with raw arguments: `format` rendered
// with the tagged values in `args` (format::NextFormatArg), as printf would.
// Widths and precisions are capped at 256; a conversion without a matching
// argument prints as written; malformed args end the rendering with
// "<bad args>". Never reads outside its inputs.
std::string RenderFormatted(std::string_view format, std::string_view args);

// The UTF-8 sequence at [p, end): its length in bytes (1 to 4) with its
// code point in *cp, or 0 where none valid starts (a stray or truncated
// byte, an overlong form, a surrogate, past U+10FFFF).
int DecodeUtf8(const unsigned char* p, const unsigned char* end, uint32_t* cp);

// Whether DecodeUtf8 finds a valid sequence at each character of `s`.
bool IsValidUtf8(std::string_view s);

// `s` with each byte where no valid UTF-8 sequence starts replaced by
// U+FFFD, as AppendJsonString writes it.
std::string ValidUtf8(std::string_view s);

// `s` as a JSON string with quotes; invalid UTF-8 bytes become U+FFFD.
template <typename Out>
void AppendJsonString(Out* out, std::string_view s);

// `s` as one CSV field: quoted (RFC 4180) only when it contains a comma,
// quote, CR or LF.
template <typename Out>
void AppendCsvField(Out* out, std::string_view s);

// `s` quoted for the text verb: printable ASCII kept, '"' and '\' escaped,
// other bytes as \xNN.
template <typename Out>
void AppendQuoted(Out* out, std::string_view s);

// `s` escaped as AppendQuoted escapes it, without the quotes.
template <typename Out>
void AppendEscaped(Out* out, std::string_view s);

// `v` in decimal, as absl::StrAppend(out, v) writes it, without the
// generic piece list (the verbs' per-line hot path).
template <typename Out>
void AppendDecimal(Out* out, uint64_t v);
template <typename Out>
void AppendDecimal(Out* out, int64_t v);

// AppendDecimal and AppendMicros for a run of values that mostly share
// every digit but the last four, such as the times of a listing's lines:
// the shared part is formatted once per 10^4, each value then costs a
// copy and four digits. The same text as those two for every value.
class NearDecimals {
 public:
  void Append(TextBuffer* out, int64_t v);
  void AppendMicros(TextBuffer* out, int64_t ns);

 private:
  static constexpr int64_t kSpan = 10000;  // the values one prefix covers
  static constexpr size_t kCopied = 16;    // bytes of prefix_ copied whole
  // For v >= kSpan: the digits of v / kSpan (prefix_size_ of them) at the
  // end of *out, with room for 5 more bytes after them; returns where they
  // end, *low = v % kSpan. The caller advances *out.
  char* Prefix(TextBuffer* out, int64_t v, uint32_t* low);

  int64_t base_ = 0;  // a multiple of kSpan, > 0 once set
  // The digits of base_ / kSpan (at most 15), with room for PutDecimal's
  // 20.
  char prefix_[20] = {};
  size_t prefix_size_ = 0;
};

// `v` as "0x" and lowercase hex digits without leading zeros, as
// absl::StrFormat("0x%x", v) writes it (addresses in the verbs' lines).
template <typename Out>
void AppendHex(Out* out, uint64_t v);

// AppendHex's text, for a field of its own (the stats and leaks rows).
std::string HexText(uint64_t v);

// An __itt_id as the exports name it: "0x1", or "0x1:0x2:0x3" when d2 or
// d3 is set (chrome's "id" and relation args, parquet's flow heads and
// tails).
std::string IdText(const format::Id& id);

// Nanoseconds as "seconds.nnnnnnnnn" (e.g. "-0.000001500").
void AppendSeconds(std::string* out, int64_t ns);

// Realtime nanoseconds since the epoch as UTC
// "YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ".
template <typename Out>
void AppendUtc(Out* out, int64_t realtime_ns);

// Nanoseconds as microseconds with three decimals ("12.345"), for Chrome's
// "ts" and "dur".
template <typename Out>
void AppendMicros(Out* out, int64_t ns);

// Defined in values.cc for these two.
#define ITTC_VALUES_TEMPLATES(Out)                                                      \
  extern template void AppendNumber(Out*, long double);                                 \
  extern template void AppendMetadataArray(Out*, uint64_t, uint64_t, std::string_view); \
  extern template void AppendJsonString(Out*, std::string_view);                        \
  extern template void AppendQuoted(Out*, std::string_view);                            \
  extern template void AppendEscaped(Out*, std::string_view);                           \
  extern template void AppendDecimal(Out*, uint64_t);                                   \
  extern template void AppendDecimal(Out*, int64_t);                                    \
  extern template void AppendHex(Out*, uint64_t);                                       \
  extern template void AppendUtc(Out*, int64_t);                                        \
  extern template void AppendMicros(Out*, int64_t);
ITTC_VALUES_TEMPLATES(std::string)
ITTC_VALUES_TEMPLATES(TextBuffer)
#undef ITTC_VALUES_TEMPLATES

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_VALUES_H_
