// Parquet's value encodings, as the specification defines them
// (apache/parquet-format, Encodings.md): what the column chunks of
// column_chunk.h are made of.
//
//   PLAIN                 doubles (8 bytes little-endian), booleans (one bit
//                         each, least significant first), byte arrays (a
//                         4-byte little-endian length, then the bytes)
//   RLE (hybrid)          runs of one repeated value, and groups of 8 values
//                         bit-packed: definition levels and dictionary
//                         indices
//   DELTA_BINARY_PACKED   integers as the differences between consecutive
//                         values, by blocks of 128 in 4 miniblocks of 32,
//                         each bit-packed at its own width
//
// Each Append* appends to *out; nothing is kept between calls.
//
// Thread safety: none needed (pure functions).

#ifndef TOOLS_ITT_DUMP_PARQUET_ENCODINGS_H_
#define TOOLS_ITT_DUMP_PARQUET_ENCODINGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ittc::parquet {

// ULEB128: 7 bits a byte, least significant group first.
void AppendUleb128(uint64_t v, std::string* out);

// Signed to unsigned as the spec's zigzag: 0, -1, 1, -2, ... -> 0, 1, 2, 3.
inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// The bits needed for `v` (0 for 0).
inline int BitWidth(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// Packs `count` values of `width` bits (0..64), least significant bit
// first, as bit-packed runs and DELTA_BINARY_PACKED miniblocks store them.
void AppendBitPacked(const uint64_t* values, size_t count, int width, std::string* out);

// The RLE/bit-packing hybrid of `count` values of `width` bits (1..32),
// without a length prefix (a V1 data page's levels add one:
// AppendLevels).
void AppendRleHybrid(const uint32_t* values, size_t count, int width, std::string* out);

// Definition levels of a data page with max level 1 (1 present, 0 null):
// a 4-byte little-endian length, then the hybrid at width 1.
void AppendLevels(const uint8_t* levels, size_t count, std::string* out);

// DELTA_BINARY_PACKED of `count` values: blocks of kDeltaBlock values in
// kDeltaMiniblocks miniblocks. `byte_aligned` packs each miniblock at a
// width of whole bytes (the spec allows any width that holds its values):
// zstd then codes each byte by its frequency, which for deltas that
// cluster around a typical step (the begin times of one sequence) takes
// fewer bits than the exact width; for deltas spread evenly over their
// range (durations) the exact width is smaller.
inline constexpr size_t kDeltaBlock = 128;
inline constexpr size_t kDeltaMiniblocks = 4;
void AppendDeltaBinaryPacked(const int64_t* values, size_t count, bool byte_aligned,
                             std::string* out);

void AppendPlainDoubles(const double* values, size_t count, std::string* out);
void AppendPlainBools(const uint8_t* values, size_t count, std::string* out);
void AppendPlainByteArray(std::string_view value, std::string* out);

}  // namespace ittc::parquet

#endif  // TOOLS_ITT_DUMP_PARQUET_ENCODINGS_H_
