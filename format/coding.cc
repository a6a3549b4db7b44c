#include "format/coding.h"

namespace ittc {
namespace format {

const char* GetVarint64Slow(const char* p, const char* limit, uint64_t* v) {
  if (limit - p >= 8) {
    const uint64_t w = DecodeFixed64(p);
    // Bit 8k+7 set where byte k ends the varint (its high bit is clear).
    const uint64_t ends = ~w & 0x8080808080808080ull;
    if (ends != 0) {
      const int bits = __builtin_ctzll(ends) + 1;  // 8 * the varint's length
      uint64_t x = (bits == 64 ? w : w & ((uint64_t{1} << bits) - 1)) & 0x7f7f7f7f7f7f7f7full;
      // The 7-bit groups side by side: pairs in 16-bit lanes, then fours in
      // 32-bit lanes, then all eight.
      x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
      x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
      x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
      *v = x;
      return p + bits / 8;
    }
  }
  return GetVarint64Bytewise(p, limit, v);
}

const char* GetVarint64Bytewise(const char* p, const char* limit, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    const uint64_t byte = static_cast<unsigned char>(*p++);
    // The tenth byte holds bit 63 only; anything more overflows.
    if (shift == 63 && byte > 1) return nullptr;
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

void AppendFixed16(std::string* dst, uint16_t v) {
  char buf[2];
  PutFixed16(buf, v);
  dst->append(buf, sizeof buf);
}

void AppendFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  PutFixed32(buf, v);
  dst->append(buf, sizeof buf);
}

void AppendFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  PutFixed64(buf, v);
  dst->append(buf, sizeof buf);
}

void AppendVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  const char* end = PutVarint64(buf, v);
  dst->append(buf, static_cast<size_t>(end - buf));
}

}  // namespace format
}  // namespace ittc
