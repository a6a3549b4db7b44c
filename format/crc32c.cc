#include "format/crc32c.h"

#include <array>

#include "format/coding.h"

namespace ittc {
namespace format {
namespace crc32c {
namespace {

// Reflected Castagnoli polynomial.
constexpr uint32_t kPoly = 0x82F63B78u;

// Slicing-by-4 tables, computed at compile time.
constexpr std::array<std::array<uint32_t, 256>, 4> MakeTables() {
  std::array<std::array<uint32_t, 256>, 4> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][i] = c;
  }
  for (int j = 1; j < 4; ++j) {
    for (uint32_t i = 0; i < 256; ++i) {
      t[j][i] = (t[j - 1][i] >> 8) ^ t[0][t[j - 1][i] & 0xff];
    }
  }
  return t;
}

constexpr auto kTables = MakeTables();

#if defined(__x86_64__)
// The SSE4.2 path runs three lanes of this many bytes at once (the crc32
// instruction's latency is three times its throughput), then joins them.
constexpr size_t kLane = 256;

// What kLane zero bytes do to a CRC register (a linear map: the XOR of its
// four bytes' images), as four tables, from the images of the 32 single
// bits (few enough steps for any compiler's constant evaluation).
constexpr std::array<std::array<uint32_t, 256>, 4> MakeLaneShiftTables() {
  std::array<uint32_t, 32> bit{};
  for (int b = 0; b < 32; ++b) {
    uint32_t c = uint32_t{1} << b;
    for (size_t k = 0; k < kLane; ++k) c = (c >> 8) ^ kTables[0][c & 0xff];
    bit[static_cast<size_t>(b)] = c;
  }
  std::array<std::array<uint32_t, 256>, 4> t{};
  for (size_t j = 0; j < 4; ++j) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = 0;
      for (size_t b = 0; b < 8; ++b) {
        if ((i >> b & 1) != 0) c ^= bit[8 * j + b];
      }
      t[j][i] = c;
    }
  }
  return t;
}
constexpr auto kLaneShift = MakeLaneShiftTables();

uint32_t ShiftByLane(uint32_t c) {
  return kLaneShift[0][c & 0xff] ^ kLaneShift[1][(c >> 8) & 0xff] ^
         kLaneShift[2][(c >> 16) & 0xff] ^ kLaneShift[3][c >> 24];
}
#endif

uint32_t ExtendPortable(uint32_t crc, const unsigned char* p, size_t n) {
  uint32_t c = ~crc;
  while (n >= 4) {
    c ^= DecodeFixed32(reinterpret_cast<const char*>(p));
    c = kTables[3][c & 0xff] ^ kTables[2][(c >> 8) & 0xff] ^ kTables[1][(c >> 16) & 0xff] ^
        kTables[0][c >> 24];
    p += 4;
    n -= 4;
  }
  while (n-- > 0) c = kTables[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t crc, const unsigned char* p,
                                                       size_t n) {
  uint64_t c = ~crc;
  // Three lanes: the register after A, B, C is A's shifted past B and C,
  // XOR B's (from zero) shifted past C, XOR C's (from zero).
  while (n >= 3 * kLane) {
    uint64_t b = 0;
    uint64_t d = 0;
    for (size_t i = 0; i < kLane; i += 8) {
      c = __builtin_ia32_crc32di(c, DecodeFixed64(reinterpret_cast<const char*>(p + i)));
      b = __builtin_ia32_crc32di(b, DecodeFixed64(reinterpret_cast<const char*>(p + kLane + i)));
      d = __builtin_ia32_crc32di(d,
                                 DecodeFixed64(reinterpret_cast<const char*>(p + 2 * kLane + i)));
    }
    c = ShiftByLane(ShiftByLane(static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(b)) ^
        static_cast<uint32_t>(d);
    p += 3 * kLane;
    n -= 3 * kLane;
  }
  while (n >= 8) {
    c = __builtin_ia32_crc32di(c, DecodeFixed64(reinterpret_cast<const char*>(p)));
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return ~c32;
}

bool HasSse42() {
  // Evaluated once; __builtin_cpu_supports needs no initialisation call
  // from GCC 12 / clang 14 in a normal process.
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

// The product of two polynomials modulo the Castagnoli polynomial, in the
// reflected representation: bit 31 holds x^0, bit 0 holds x^31.
uint32_t MultiplyModPoly(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (int i = 0; i < 32; ++i) {
    if ((a & 0x80000000u) != 0) product ^= b;
    a <<= 1;
    b = (b & 1) != 0 ? (b >> 1) ^ kPoly : b >> 1;  // b * x
  }
  return product;
}

// x^(8n) modulo the polynomial: what n zero bytes multiply a register by.
uint32_t ZeroBytesOperator(uint64_t n) {
  uint32_t result = 0x80000000u;  // x^0
  uint32_t square = 0x00800000u;  // x^8, then x^16, x^32, ...
  for (; n != 0; n >>= 1) {
    if ((n & 1) != 0) result = MultiplyModPoly(result, square);
    square = MultiplyModPoly(square, square);
  }
  return result;
}

}  // namespace

uint32_t Combine(uint32_t crc_a, uint32_t crc_b, uint64_t n_b) {
  // With R(M, c) the register after M from c, and S_n what n zero bytes
  // do to a register (linear), R(M, c) = S_|M|(c) ^ R(M, 0), and
  // Value(M) = ~R(M, ~0). So Value(AB) = ~(S_|B|(~crc_a) ^ R(B, 0)) and
  // R(B, 0) = ~crc_b ^ S_|B|(~0), whence Value(AB) = S_|B|(crc_a) ^ crc_b.
  return MultiplyModPoly(crc_a, ZeroBytesOperator(n_b)) ^ crc_b;
}

namespace internal {
uint32_t ExtendPortable(uint32_t crc, const char* data, size_t n) {
  return crc32c::ExtendPortable(crc, reinterpret_cast<const unsigned char*>(data), n);
}
}  // namespace internal

uint32_t Extend(uint32_t crc, const char* data, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (HasSse42()) return ExtendSse42(crc, p, n);
#endif
  return ExtendPortable(crc, p, n);
}

}  // namespace crc32c
}  // namespace format
}  // namespace ittc
