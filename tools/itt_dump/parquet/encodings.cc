#include "tools/itt_dump/parquet/encodings.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ittc::parquet {
namespace {

void AppendLe32(uint32_t v, std::string* out) {
  const char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 24)};
  out->append(b, 4);
}

void AppendLe64(uint64_t v, std::string* out) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 8);
}

// How many values from `i` equal values[i] (at most `limit`).
size_t RunLength(const uint32_t* values, size_t count, size_t i, size_t limit) {
  size_t j = i + 1;
  const size_t end = std::min(count, i + limit);
  while (j < end && values[j] == values[i]) ++j;
  return j - i;
}

// Runs this long or longer go out as RLE runs: below it, a bit-packed
// group of 8 is no larger.
constexpr size_t kMinRepeat = 8;

}  // namespace

void AppendUleb128(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void AppendBitPacked(const uint64_t* values, size_t count, int width, std::string* out) {
  if (width == 0 || count == 0) return;
  const size_t start = out->size();
  const size_t bytes = (count * static_cast<size_t>(width) + 7) / 8;
  out->resize(start + bytes + 8);  // room for the last word's spill
  char* p = out->data() + start;
  // Bits wait in a 128-bit accumulator and leave 8 bytes at a time.
  unsigned __int128 acc = 0;
  int bits = 0;
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  for (size_t i = 0; i < count; ++i) {
    acc |= static_cast<unsigned __int128>(values[i] & mask) << bits;
    bits += width;
    if (bits >= 64) {
      const uint64_t word = static_cast<uint64_t>(acc);
      for (int b = 0; b < 8; ++b) p[b] = static_cast<char>(word >> (8 * b));
      p += 8;
      acc >>= 64;
      bits -= 64;
    }
  }
  const uint64_t word = static_cast<uint64_t>(acc);
  for (int b = 0; b < 8; ++b) p[b] = static_cast<char>(word >> (8 * b));
  out->resize(start + bytes);
}

void AppendRleHybrid(const uint32_t* values, size_t count, int width, std::string* out) {
  const size_t value_bytes = (static_cast<size_t>(width) + 7) / 8;
  uint64_t group[8 * 64];
  size_t i = 0;
  while (i < count) {
    const size_t run = RunLength(values, count, i, count);
    if (run >= kMinRepeat) {
      AppendUleb128(uint64_t{run} << 1, out);
      for (size_t b = 0; b < value_bytes; ++b)
        out->push_back(static_cast<char>(values[i] >> (8 * b)));
      i += run;
      continue;
    }
    // Bit-packed groups of 8 until a long run begins at a group's start
    // (at most 64 groups a run, so its header is one or two bytes).
    const size_t start = i;
    size_t groups = 0;
    do {
      i += 8;
      ++groups;
    } while (i < count && groups < 64 && RunLength(values, count, i, kMinRepeat) < kMinRepeat);
    const size_t real = std::min(i, count) - start;
    for (size_t k = 0; k < groups * 8; ++k) group[k] = k < real ? values[start + k] : 0;
    AppendUleb128(uint64_t{groups} << 1 | 1, out);
    AppendBitPacked(group, groups * 8, width, out);
    i = std::min(i, count);
  }
}

void AppendLevels(const uint8_t* levels, size_t count, std::string* out) {
  const size_t at = out->size();
  AppendLe32(0, out);
  // The hybrid takes 32-bit values; a page's levels are converted at once
  // (a bit-packed run may be padded only at the end of the data).
  std::vector<uint32_t> wide(levels, levels + count);
  AppendRleHybrid(wide.data(), count, 1, out);
  const auto size = static_cast<uint32_t>(out->size() - at - 4);
  for (int b = 0; b < 4; ++b) (*out)[at + b] = static_cast<char>(size >> (8 * b));
}

void AppendDeltaBinaryPacked(const int64_t* values, size_t count, bool byte_aligned,
                             std::string* out) {
  constexpr size_t kMini = kDeltaBlock / kDeltaMiniblocks;
  AppendUleb128(kDeltaBlock, out);
  AppendUleb128(kDeltaMiniblocks, out);
  AppendUleb128(count, out);
  AppendUleb128(ZigZag(count != 0 ? values[0] : 0), out);
  uint64_t deltas[kDeltaBlock];
  for (size_t block = 1; block < count; block += kDeltaBlock) {
    const size_t n = std::min(kDeltaBlock, count - block);
    // Differences wrap as the spec's two's-complement arithmetic does.
    int64_t min_delta = INT64_MAX;
    for (size_t k = 0; k < n; ++k) {
      const int64_t d = static_cast<int64_t>(static_cast<uint64_t>(values[block + k]) -
                                             static_cast<uint64_t>(values[block + k - 1]));
      deltas[k] = static_cast<uint64_t>(d);
      min_delta = std::min(min_delta, d);
    }
    AppendUleb128(ZigZag(min_delta), out);
    int widths[kDeltaMiniblocks] = {};
    for (size_t k = 0; k < n; ++k) {
      deltas[k] -= static_cast<uint64_t>(min_delta);
    }
    for (size_t m = 0; m < kDeltaMiniblocks; ++m) {
      uint64_t all = 0;
      for (size_t k = m * kMini; k < std::min(n, (m + 1) * kMini); ++k) all |= deltas[k];
      widths[m] = byte_aligned ? (BitWidth(all) + 7) / 8 * 8 : BitWidth(all);
      out->push_back(static_cast<char>(widths[m]));
    }
    // The last miniblock with values is padded to 32 (zeros); miniblocks
    // after it have no bytes.
    for (size_t k = n; k < kDeltaBlock; ++k) deltas[k] = 0;
    for (size_t m = 0; m * kMini < n; ++m) {
      AppendBitPacked(deltas + m * kMini, kMini, widths[m], out);
    }
  }
}

void AppendPlainDoubles(const double* values, size_t count, std::string* out) {
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    AppendLe64(bits, out);
  }
}

void AppendPlainBools(const uint8_t* values, size_t count, std::string* out) {
  for (size_t i = 0; i < count; i += 8) {
    uint8_t byte = 0;
    for (size_t k = 0; k < 8 && i + k < count; ++k) byte |= (values[i + k] != 0 ? 1 : 0) << k;
    out->push_back(static_cast<char>(byte));
  }
}

void AppendPlainByteArray(std::string_view value, std::string* out) {
  AppendLe32(static_cast<uint32_t>(value.size()), out);
  out->append(value);
}

}  // namespace ittc::parquet
