// Chunk framing: the fixed 32-byte header every chunk starts with, chunk
// types and flags, and the limits a reader enforces. FORMAT.md ("Chunks")
// has the byte diagram and the reason for every limit.
//
// Thread safety: constants and pure functions only.

#ifndef FORMAT_CHUNK_H_
#define FORMAT_CHUNK_H_

#include <cstddef>
#include <cstdint>

namespace ittc {
namespace format {

// Format version written by this library. A reader accepts any minor
// version of its major version; a different major version is refused.
inline constexpr uint16_t kFormatMajorVersion = 1;
inline constexpr uint16_t kFormatMinorVersion = 5;

enum class ChunkType : uint16_t {
  kEvents = 1,       // one thread's events (EventStreamEncoder)
  kDefinitions = 2,  // kDef* records
  kThreadInfo = 3,   // kThreadInfo records
  kClockSync = 4,    // kClockSync records
  kLoss = 5,         // kLoss records
  kEnd = 6,          // one kEnd record; the last chunk of a clean trace
  // 7..0x7fff: reserved for future core types.
  // 0x8000..0xffff: private/experimental; never assigned by this format.
};

inline constexpr bool IsKnownChunkType(uint16_t t) { return t >= 1 && t <= 6; }

const char* ChunkTypeName(uint16_t type);

// Chunk flags. Bits 0..7 are "must understand": a reader that finds a set bit
// it does not know skips the chunk. Bits 8..15 are advisory and ignored when
// unknown. Version 1.0 defines kChunkFlagZstd, 1.2 kChunkFlagDeltaFields,
// 1.3 kChunkFlagDeltaAddresses, 1.4 kChunkFlagDeltaTimes.
inline constexpr uint16_t kChunkFlagZstd = 1u << 0;  // payload is a zstd frame
// An events chunk whose fields are stored as differences from the same
// field of the previous event of the same kind (FORMAT.md, "Delta-coded
// fields"); EventStreamEncoder::chunk_flags() says whether to set it.
inline constexpr uint16_t kChunkFlagDeltaFields = 1u << 1;
// With kChunkFlagDeltaFields: the address fields (KindSchema::address_mask)
// are stored as differences too.
inline constexpr uint16_t kChunkFlagDeltaAddresses = 1u << 2;
// With kChunkFlagDeltaFields: each time field is stored against whichever
// of two references is closer, its last value less its event's time (as
// without this bit) or its last value (KindSchema::time_mask).
inline constexpr uint16_t kChunkFlagDeltaTimes = 1u << 3;
inline constexpr uint16_t kChunkFlagsMustUnderstand = 0x00ff;
inline constexpr uint16_t kChunkFlagsKnown =
    kChunkFlagZstd | kChunkFlagDeltaFields | kChunkFlagDeltaAddresses | kChunkFlagDeltaTimes;

// The four bytes every chunk begins with; the reader resynchronises on them.
inline constexpr unsigned char kChunkSync[4] = {0xD7, 'C', 'H', 'K'};

// Chunk header layout, all little-endian:
//   [0, 4)   sync marker kChunkSync
//   [4, 6)   u16 type
//   [6, 8)   u16 flags
//   [8, 12)  u32 stored payload length (bytes following the header)
//   [12, 16) u32 decompressed payload length
//   [16, 24) u64 sequence number (0 for the first chunk of the file)
//   [24, 28) u32 header CRC32C of bytes [0, 24)
//   [28, 32) u32 chunk CRC32C of bytes [0, 28) followed by the payload
inline constexpr size_t kChunkHeaderSize = 32;

// Largest decompressed payload (16 MiB). Bounds a reader's memory to a few
// times this figure whatever the file claims; the collector cuts chunks well
// below it (a thread's batch is at most its ring size).
inline constexpr uint32_t kMaxChunkPayloadBytes = 16u << 20;

// Largest stored (compressed) payload: zstd's worst-case expansion of the
// largest decompressed payload, rounded up.
inline constexpr uint32_t kMaxChunkStoredBytes = (16u << 20) + (128u << 10);

// The file header's total size is at most this (1 MiB): it holds the command
// line, which Linux bounds by the stack limit; longer strings are truncated
// by the writer and kHeaderFlagTruncated is set.
inline constexpr uint32_t kMaxFileHeaderBytes = 1u << 20;
inline constexpr uint32_t kMaxHeaderStringBytes = 256u << 10;

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_CHUNK_H_
