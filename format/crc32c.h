// CRC32C (Castagnoli polynomial, reflected, as in iSCSI/ext4/leveldb).
// Uses the SSE4.2 crc32 instruction when the CPU has it, else a table.
//
// Thread safety: pure functions.

#ifndef FORMAT_CRC32C_H_
#define FORMAT_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace ittc {
namespace format {
namespace crc32c {

// CRC32C of concat(A, data[0, n)) given crc = Value(A).
uint32_t Extend(uint32_t crc, const char* data, size_t n);

inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// CRC32C of concat(A, B) given crc_a = Value(A), crc_b = Value(B) and B's
// length, without B's bytes: the CRC is linear, and what A contributes is
// its CRC carried through n zero bytes, a multiplication by x^(8n) modulo
// the polynomial. Cost: about log2(n_b) multiplications of 32 steps each
// (well under a microsecond), whatever n_b; no tables, no allocation, so
// also safe in a signal handler.
uint32_t Combine(uint32_t crc_a, uint32_t crc_b, uint64_t n_b);

namespace internal {
// The table-driven implementation, exposed so tests compare both paths.
uint32_t ExtendPortable(uint32_t crc, const char* data, size_t n);
}  // namespace internal

}  // namespace crc32c
}  // namespace format
}  // namespace ittc

#endif  // FORMAT_CRC32C_H_
