// Byte-level primitives of the trace format: fixed-width little-endian
// integers, LEB128 varints and zigzag. Every multi-byte value on disk goes
// through these functions; nothing memcpy()s a host struct to disk.
//
// The Put* functions write through a raw pointer and return the pointer past
// what they wrote. REQUIRES: the destination has room (kMaxVarint64Bytes for a
// varint). They are inline because the event encoder calls them per field.
//
// The Get* functions are bounds-checked: they never read at or past `limit`,
// and return nullptr on malformed or truncated input.
//
// Thread safety: all functions are pure.

#ifndef FORMAT_CODING_H_
#define FORMAT_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>

namespace ittc {
namespace format {

// A varint of a uint64_t takes at most 10 bytes (ceil(64 / 7)).
inline constexpr int kMaxVarint64Bytes = 10;

inline char* PutFixed16(char* dst, uint16_t v) {
  dst[0] = static_cast<char>(v);
  dst[1] = static_cast<char>(v >> 8);
  return dst + 2;
}

inline char* PutFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(v >> (8 * i));
  return dst + 4;
}

inline char* PutFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(v >> (8 * i));
  return dst + 8;
}

inline uint16_t DecodeFixed16(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>(u[0] | (u[1] << 8));
}

inline uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) | (static_cast<uint32_t>(u[3]) << 24);
}

inline uint64_t DecodeFixed64(const char* p) {
  return static_cast<uint64_t>(DecodeFixed32(p)) |
         (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
}

// Unsigned LEB128: 7 bits per byte, least significant group first, high bit
// set on every byte but the last.
inline char* PutVarint64(char* dst, uint64_t v) {
  auto* p = reinterpret_cast<unsigned char*>(dst);
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return reinterpret_cast<char*>(p);
}

// Number of bytes PutVarint64 writes for `v`.
inline int VarintLength(uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Reads a varint from [p, limit). Returns the position after it, or nullptr
// if the input ends inside the varint or the varint is longer than 10 bytes
// or overflows 64 bits. A varint of up to 8 bytes with 8 bytes to read at p
// is read as one word (no loop); the rest byte by byte.
const char* GetVarint64Slow(const char* p, const char* limit, uint64_t* v);
// GetVarint64Slow's byte-by-byte loop alone (the reference of its tests).
const char* GetVarint64Bytewise(const char* p, const char* limit, uint64_t* v);

// One- and two-byte varints (small values, most time deltas) inline.
inline const char* GetVarint64(const char* p, const char* limit, uint64_t* v) {
  if (p < limit) {
    const auto b = static_cast<unsigned char>(*p);
    if (b < 0x80) {
      *v = b;
      return p + 1;
    }
    if (limit - p >= 2) {
      const auto b1 = static_cast<unsigned char>(p[1]);
      if (b1 < 0x80) {
        *v = (b & 0x7fu) | (uint64_t{b1} << 7);
        return p + 2;
      }
    }
  }
  return GetVarint64Slow(p, limit, v);
}

// A varint with a one-bit tag in front: the first byte holds the tag (bit
// 0), v's low 6 bits (bits 1-6) and a continuation bit (bit 7), after
// which v >> 6 follows as a varint. At most 10 bytes (a reader accepts
// 1 + kMaxVarint64Bytes); one byte for v below 64.
inline char* PutTaggedVarint64(char* dst, uint64_t v, unsigned tag) {
  const uint64_t rest = v >> 6;
  *dst++ = static_cast<char>(tag | ((v & 0x3f) << 1) | (rest != 0 ? 0x80 : 0));
  return rest != 0 ? PutVarint64(dst, rest) : dst;
}

// Reads PutTaggedVarint64's form from [p, limit). Returns the position
// after it, or nullptr if the input ends inside it, the varint after the
// first byte is bad, or the value overflows 64 bits.
inline const char* GetTaggedVarint64(const char* p, const char* limit, uint64_t* v, unsigned* tag) {
  if (p >= limit) return nullptr;
  const auto b = static_cast<unsigned char>(*p++);
  *tag = b & 1u;
  *v = (b >> 1) & 0x3fu;
  if (b < 0x80) return p;
  uint64_t rest;
  p = GetVarint64(p, limit, &rest);
  if (p == nullptr || (rest >> 58) != 0) return nullptr;
  *v |= rest << 6;
  return p;
}

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

inline int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// Appending forms for code off the hot path.
void AppendFixed16(std::string* dst, uint16_t v);
void AppendFixed32(std::string* dst, uint32_t v);
void AppendFixed64(std::string* dst, uint64_t v);
void AppendVarint64(std::string* dst, uint64_t v);

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_CODING_H_
