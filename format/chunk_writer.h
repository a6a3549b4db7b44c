// Frames payloads into chunks: compresses each payload into one zstd frame
// and prepends the 32-byte header (chunk.h). The caller writes the bytes.
//
// Thread safety: none; the collector's flusher owns one ChunkWriter.
// Cost: one ZSTD_compress2 per chunk with a reused context, one CRC32C pass
// over header and compressed payload. No allocation once `out` has capacity.

#ifndef FORMAT_CHUNK_WRITER_H_
#define FORMAT_CHUNK_WRITER_H_

#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "format/chunk.h"

namespace ittc {
namespace format {

class ChunkWriter {
 public:
  // `zstd_level` as zstd understands it (1..19; negative = faster levels).
  explicit ChunkWriter(int zstd_level = 1);
  ~ChunkWriter();
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // Appends the complete framed chunk to *out and advances the sequence
  // number. On error nothing is appended and the sequence number is not
  // consumed. Errors: payload larger than kMaxChunkPayloadBytes
  // (kInvalidArgument), zstd failure (kInternal), no memory for the
  // compressed bytes (kResourceExhausted; the writer keeps a buffer of the
  // largest chunk's bound).
  //
  // If the caller then fails to write the bytes, the chunk is lost and a
  // reader sees a sequence gap, which is what happened.
  //
  // `flags` are set in the header besides kChunkFlagZstd: an events chunk
  // passes its encoder's chunk_flags() (how its fields are coded).
  absl::Status AppendChunk(ChunkType type, std::string_view payload, std::string* out,
                           uint16_t flags = 0) {
    return AppendChunk(type, payload, level_, out, flags);
  }
  // The same at another zstd level for this chunk only (a writer that has
  // fallen behind trades size for speed; the reader needs no notice).
  absl::Status AppendChunk(ChunkType type, std::string_view payload, int zstd_level,
                           std::string* out, uint16_t flags = 0);

  // Compresses `payload` at `zstd_level` and discards the result: no
  // chunk, no sequence number. Allocates and touches what compressing a
  // payload of that size at that level uses (zstd's workspace, the scratch
  // buffer), so that the first real chunks do not pay for the first touch
  // of their pages. Errors as AppendChunk's.
  absl::Status Warm(std::string_view payload, int zstd_level);

  // Sequence number the next chunk gets; also the number of chunks so far.
  uint64_t next_sequence() const { return next_sequence_; }

  int zstd_level() const { return level_; }

 private:
  // Sets the context's parameters for `level` unless they are set already.
  void UseLevel(int level);
  // Compresses `payload` at `zstd_level` into scratch_; *size = its length.
  absl::Status Compress(std::string_view payload, int zstd_level, size_t* size);

  void* cctx_ = nullptr;             // ZSTD_CCtx*, kept out of this header
  std::unique_ptr<char[]> scratch_;  // compressed bytes before they are appended
  size_t scratch_size_ = 0;
  int level_;
  int cctx_level_ = INT_MIN;  // the level cctx_ is set up for; INT_MIN: none yet
  uint64_t next_sequence_ = 0;
};

// Gives the framed chunk whose 32-byte header starts at `header` the
// sequence number `sequence`, and both CRCs that go with it, without
// reading the payload: the chunk CRC changes by what the header's change
// contributes, carried past the payload's stored length (crc32c::Combine).
// For writers that frame chunks before they know their place in the file
// (several flushers, the flight recorder's dumps). REQUIRES: a header
// framed by this library, whose CRCs match. Pure computation on the 32
// bytes (no allocation, no lock): safe in a signal handler.
void SetChunkSequence(char* header, uint64_t sequence);

// Fills the 32-byte header at `header` of a chunk of `type` whose payload,
// stored uncompressed (no kChunkFlagZstd), is `payload`: the payload
// follows the header in the file, not necessarily in memory. For writers
// that may not allocate or call zstd (the collector's crash dump, in a
// signal handler): pure computation. REQUIRES: payload.size() <=
// kMaxChunkPayloadBytes.
void FrameStoredChunkHeader(ChunkType type, uint64_t sequence, std::string_view payload,
                            char* header);

// Frames one chunk with explicit header values and no compression checks:
// for tests that build corrupt or unusual chunks (bad flags, unknown types,
// chosen sequence numbers). `stored` is the payload bytes as they go on disk.
std::string FrameChunkForTest(uint16_t type, uint16_t flags, uint64_t sequence,
                              std::string_view stored, uint32_t decompressed_length);

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_CHUNK_WRITER_H_
