// Rendering of field values shared by the verbs: enum names, metadata
// arrays, counter values, JSON and CSV quoting, times.
//
// Thread safety: pure functions.

#ifndef TOOLS_ITT_DUMP_MODEL_VALUES_H_
#define TOOLS_ITT_DUMP_MODEL_VALUES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "format/schema.h"

namespace ittc {
namespace itt_dump {

const char* ScopeName(uint64_t scope);        // "global", "track", ...
const char* RelationName(uint64_t relation);  // "parent_of", ...
const char* MetadataTypeName(uint64_t type);  // "u64", "double", ...

// A counter_set_value* value: `bits` holds u64 bits as the collector stores
// them (unsigned zero-extended, signed sign-extended, float/double as the
// bits of a double). long double keeps every 64-bit integer exact.
long double CounterValue(uint64_t type, uint64_t bits);

// Appends `v` as a number: integral values without a fraction, others with
// up to 17 significant digits. Non-finite values print as "nan", "inf".
void AppendNumber(std::string* out, long double v);

// Appends the elements of a metadata array of `count` elements of `type`
// stored little-endian in `data`, as "v" for one element or "[v1,v2,...]".
// Elements past the data (a damaged record) are not printed.
void AppendMetadataArray(std::string* out, uint64_t type, uint64_t count, std::string_view data);

// formatted_metadata_add* recorded with raw arguments: `format` rendered
// with the tagged values in `args` (format::NextFormatArg), as printf would.
// Widths and precisions are capped at 256; a conversion without a matching
// argument prints as written; malformed args end the rendering with
// "<bad args>". Never reads outside its inputs.
std::string RenderFormatted(std::string_view format, std::string_view args);

// `s` as a JSON string with quotes; invalid UTF-8 bytes become U+FFFD.
void AppendJsonString(std::string* out, std::string_view s);

// `s` as one CSV field: quoted (RFC 4180) only when it contains a comma,
// quote, CR or LF.
void AppendCsvField(std::string* out, std::string_view s);

// `s` quoted for the text verb: printable ASCII kept, '"' and '\' escaped,
// other bytes as \xNN.
void AppendQuoted(std::string* out, std::string_view s);

// `v` in decimal, as absl::StrAppend(out, v) writes it, without the
// generic piece list (the verbs' per-line hot path).
void AppendDecimal(std::string* out, uint64_t v);
void AppendDecimal(std::string* out, int64_t v);

// Nanoseconds as "seconds.nnnnnnnnn" (e.g. "-0.000001500").
void AppendSeconds(std::string* out, int64_t ns);

// Realtime nanoseconds since the epoch as UTC
// "YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ".
void AppendUtc(std::string* out, int64_t realtime_ns);

// Nanoseconds as microseconds with three decimals ("12.345"), for Chrome's
// "ts" and "dur".
void AppendMicros(std::string* out, int64_t ns);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_VALUES_H_
