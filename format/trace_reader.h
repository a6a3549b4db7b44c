// Streaming reader of a trace file: the header, then the chunks one at a
// time, decompressed and verified. Used by itt-dump.
//
// Serial or parallel (ReaderOptions): a parallel reader scans the framing
// (sync markers, header CRCs, lengths) on the caller's thread and hands the
// chunk CRC check and the zstd decompression of the next chunks to worker
// threads. It returns the same chunks, makes the same Reporter calls in the
// same order relative to Next() and keeps the same stats() as the serial
// reader; it does so by speculating that each chunk found by the framing
// scan is intact, and by going back to rescan from the byte after a chunk
// whose CRC turns out wrong (what the serial reader does at that byte).
//
// Memory is bounded by the largest chunk the format allows (chunk.h) and,
// in a damaged file, its longest damaged region, not by the file's length
// otherwise: the reader keeps the input it read in blocks (each
// 256 KiB, or the largest chunk's header and stored bytes if more) and, per
// chunk in flight, one decompressed payload. A block stays while it holds
// a chunk in flight (its worker reads the chunk there, uncopied) or bytes
// kept for a rescan: everything from the oldest chunk in flight on, so a
// damaged region the scan skips while chunks are in flight is kept whole
// until the scan finds the next chunk (the bound grows by its length). With
// K = max_in_flight chunks in flight (1 for the serial reader, which holds
// one block) and chunks of the format's maximum size, about K + 3 blocks:
// at most
//   (K + 3) * (kChunkHeaderSize + kMaxChunkStoredBytes) + K * kMaxChunkPayloadBytes
// or about 32.1 MiB per chunk in flight plus 48.4 MiB; the collector's chunks
// are far smaller (at most one thread's ring). A parallel reader of a
// positional source (ByteSource::Positional) reads on its workers instead,
// up to two reads of 1 MiB (or a block's size, if more) ahead of the scan,
// each into a block with room before it for the bytes the scan has not
// passed yet (up to one block's size): its blocks are then up to twice that
// size plus 1 MiB, and two more are in flight, at most
//   (K + 5) * (2 * (kChunkHeaderSize + kMaxChunkStoredBytes) + 1 MiB) + K * kMaxChunkPayloadBytes
// or about 49.3 MiB per chunk in flight plus 166.3 MiB. Whatever the input,
// the reader neither crashes nor allocates more.
//
// Damage handling (FORMAT.md, "Reading a damaged trace"):
//  - A bad sync marker, header CRC, length, chunk CRC or zstd frame makes
//    the reader report the bytes as corrupt and scan for the next sync
//    marker. One Corruption() call covers each contiguous damaged region.
//  - A tail that ends inside a chunk (a process killed mid-write), or
//    all-zero bytes at the end, is a clean end of data reported through
//    Truncation(), not Corruption().
//  - Chunks whose sequence number is not above the last one returned
//    (duplicated or out of order) are reported and skipped; a jump in
//    sequence numbers is reported as missing chunks. Each returned chunk is
//    complete and decodes on its own: nothing is spliced across a gap.
//  - Chunks of unknown type, or with must-understand flags this version
//    does not know, are verified and skipped (counted in stats()).
//
// Thread safety: one thread calls the reader (and receives the Reporter
// calls); a parallel reader's worker threads touch only the chunks and the
// reads handed to them, through a mutex (trace_reader.cc).

#ifndef FORMAT_TRACE_READER_H_
#define FORMAT_TRACE_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/chunk.h"
#include "format/file_header.h"

namespace ittc {
namespace format {

// Where the bytes come from.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into buf. Returns the count, 0 only at end of data.
  virtual absl::StatusOr<size_t> Read(char* buf, size_t n) = 0;
  // Whether ReadAt works: then a parallel reader reads ahead with it on its
  // workers, and Read is not called (a regular file, bytes in memory).
  virtual bool Positional() const { return false; }
  // Reads the bytes at `offset` (from the start of the data) into buf: n of
  // them unless the data ends first, or a read fails after some (then
  // those: the call for the bytes after them meets the failure, as read(2)
  // does). Called by any thread, several at once for different ranges.
  // REQUIRES: Positional().
  virtual absl::StatusOr<size_t> ReadAt(char* buf, size_t n, uint64_t offset) {
    return absl::UnimplementedError("not a positional source");
  }
  // The data's length when the source was opened (it may grow later); 0 if
  // unknown. Sizes the reads ahead of a positional source.
  virtual uint64_t SizeHint() const { return 0; }
};

// A file opened by path (read(2) underneath; pread(2) for a regular file:
// positional).
absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path);
// Bytes in memory; `data` must outlive the source.
std::unique_ptr<ByteSource> MemorySource(std::string_view data);

// Receives damage reports. Offsets are byte offsets from the file start.
class Reporter {
 public:
  virtual ~Reporter() = default;
  // `bytes` bytes starting at `offset` could not be used.
  virtual void Corruption(uint64_t offset, uint64_t bytes, std::string_view reason) = 0;
  // The data ends inside a chunk at `offset`; `bytes` bytes were left over.
  virtual void Truncation(uint64_t offset, uint64_t bytes, std::string_view reason) = 0;
};

class DecodedChunk;

// One chunk, as TraceReader::Next returns it.
struct Chunk {
  ChunkType type = ChunkType::kEvents;
  uint16_t flags = 0;
  uint64_t sequence = 0;
  uint64_t offset = 0;       // file offset of the chunk header
  uint64_t stored_size = 0;  // header + stored payload bytes
  std::string_view payload;  // decompressed; valid until the next Next()
  // ReaderOptions::decoder's result for this chunk (null without one);
  // valid until the next Next().
  const DecodedChunk* decoded = nullptr;
};

// What a ChunkDecoder makes of a chunk; the decoder's own subclass.
class DecodedChunk {
 public:
  virtual ~DecodedChunk() = default;
};

// Work on a chunk that needs nothing outside the chunk (decoding an events
// chunk into columns, per-chunk statistics), done where the chunk is
// decompressed: on a parallel reader's workers, ahead of Next(), or on the
// calling thread of a serial reader. Next() hands the result over in
// Chunk::decoded, in file order like the chunks.
class ChunkDecoder {
 public:
  virtual ~ChunkDecoder() = default;
  // A result object; the reader makes one per chunk in flight and reuses
  // it for later chunks (Decode must reset what it keeps).
  virtual std::unique_ptr<DecodedChunk> NewResult() const = 0;
  // Decodes `chunk` (as Next() would return it; its payload valid during
  // the call) into *out. Runs on any of the reader's threads, concurrently
  // for different results: it must not touch shared state unsynchronised.
  // May also run for a chunk Next() then drops (a duplicate sequence).
  virtual void Decode(const Chunk& chunk, DecodedChunk* out) const = 0;
};

struct ReaderStats {
  uint64_t chunks_read = 0;             // returned by Next
  uint64_t chunks_unknown_skipped = 0;  // unknown type or flags
  uint64_t chunks_out_of_order = 0;     // duplicated or older sequence
  uint64_t chunks_missing = 0;          // sum of sequence gaps
  // Regions reported as corruption: damaged bytes, duplicate or
  // out-of-order chunks, and intact chunks of a known type with a
  // must-understand flag this reader does not know (their data is lost).
  uint64_t corrupt_regions = 0;
  uint64_t corrupt_bytes = 0;
  // Intact events chunks not returned (their sequence numbers taken, so
  // no gap shows them): undecodable, or with a must-understand flag this
  // reader does not know. A reader that pairs events must not pair across
  // them, nor across a gap (chunks_missing).
  uint64_t events_chunks_lost = 0;
  uint64_t truncated_bytes = 0;
  bool truncated = false;
  uint64_t bytes_read = 0;  // total input consumed
};

class ReaderPool;

// How a TraceReader spreads its work over threads.
struct ReaderOptions {
  // Threads that verify chunk CRCs and decompress payloads ahead of Next().
  // 0: none; the calling thread does all the work (the serial reader).
  int workers = 0;
  // Chunks scanned ahead and held at once, the one Next() returned
  // included (K in the memory bound above). 0: 1 for a serial reader,
  // 2 * workers + 2 for a parallel one.
  int max_in_flight = 0;
  // Run on every chunk Next() returns, before it is returned (see
  // ChunkDecoder); null: none. Must outlive the reader. Its results count
  // towards the memory bound: one per chunk in flight.
  const ChunkDecoder* decoder = nullptr;
  // With workers 0: the threads of `pool` do what workers would, for this
  // reader and the others that share it (a pass over many files). Must
  // outlive the reader.
  ReaderPool* pool = nullptr;

  // A parallel reader with one worker per online CPU.
  static ReaderOptions Parallel();
};

// Work other than a chunk's for a ReaderPool's threads (ReaderPool::Submit).
class PoolTask {
 public:
  virtual ~PoolTask() = default;
  // The work; runs once, on one of the pool's threads.
  virtual void Run() = 0;
  // The pool's: where the task stands, and how many threads wait for it
  // (guarded by the pool's lock).
  int pool_state = 0;
  mutable int pool_waiters = 0;
};

// Worker threads shared by several TraceReaders (ReaderOptions::pool):
// each reader hands them its chunks, oldest first over all readers, and
// anyone tasks, among the chunks in the order submitted.
//
// Thread safety: Submit, Done and Wait may be called from any thread.
class ReaderPool {
 public:
  explicit ReaderPool(int threads);
  ~ReaderPool();
  ReaderPool(const ReaderPool&) = delete;
  ReaderPool& operator=(const ReaderPool&) = delete;

  // Queues `task` for a worker. It must outlive its run (Wait), and the
  // pool must outlive that too. Not again before it is done.
  void Submit(PoolTask* task);
  // Whether the submitted `task` has run; what it wrote is then visible
  // to the caller (the pool's lock orders them).
  bool Done(const PoolTask* task);
  // Returns once the submitted `task` has run (on a worker: the caller
  // waits rather than run it), with what it wrote visible.
  void Wait(const PoolTask* task);
  // Returns once the submitted `task` has run, with what it wrote visible:
  // on the calling thread if no worker has started it (counted in
  // ThisThreadQueuedWorkCpuNs), where the caller would otherwise sleep
  // until a worker gets to it.
  void RunOrWait(PoolTask* task);

 private:
  friend class TraceReader;
  class Threads;
  std::unique_ptr<Threads> threads_;
};

// The number of online CPUs (at least 1), as the process first asked.
int OnlineCpus();

// The CPU time (ns) the calling thread has spent on chunks it took off a
// reader's queue because no worker had started them (decompressing,
// checking and decoding them, as a worker would: the reader does not idle
// while that work is queued). That is any thread's work, not the reading
// thread's own: the benchmark counts it apart from the reading thread's.
uint64_t ThisThreadQueuedWorkCpuNs();

class TraceReader {
 public:
  // `reporter` may be null; it must outlive the reader.
  // A parallel reader starts its worker threads here; the destructor stops
  // and joins them.
  TraceReader(std::unique_ptr<ByteSource> source, Reporter* reporter,
              const ReaderOptions& options = ReaderOptions());
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // Convenience: OpenFileSource + constructor + ReadHeader.
  static absl::StatusOr<std::unique_ptr<TraceReader>> Open(
      const std::string& path, Reporter* reporter, const ReaderOptions& options = ReaderOptions());

  // Reads the file header. Must be called once, before Next. Errors as for
  // DecodeFileHeader (IsNotATrace() for "not a trace"; kOutOfRange for a
  // file that ends inside the header, including an empty file), or the
  // source's I/O error.
  absl::Status ReadHeader();
  const FileHeader& header() const { return header_; }
  // Bytes the header occupies (first chunk offset).
  uint64_t header_size() const { return header_size_; }

  // Returns the next good chunk of a known type. False at the end of data,
  // or on an I/O error (then status() is not OK). The chunk's payload stays
  // valid until the next call.
  // REQUIRES: ReadHeader() succeeded (else false, FailedPrecondition).
  bool Next(Chunk* chunk);
  // Hands the next chunks (up to max_in_flight in flight) to the workers
  // and returns: a reader opened for a later pass gets its first chunks
  // verified and decoded while an earlier pass ends. Next() goes on from
  // there, with the same results. No effect without workers, or before
  // ReadHeader() succeeded.
  void ReadAhead();

  // Hands over the ChunkDecoder's result of the chunk Next() returned last
  // (null without one, or after a first call): the caller keeps it past
  // the next Next(), and the reader makes a new one for a later chunk.
  std::unique_ptr<DecodedChunk> TakeDecoded();

  const absl::Status& status() const { return status_; }
  // As of the last Next(): what it returned and reported so far, and in
  // bytes_read the input the serial reader had read by then (it reads
  // ahead in 256 KiB blocks). A parallel reader shows the same figures
  // (it has read further, for the chunks in flight), except that after a
  // chunk whose CRC fails bytes_read may run ahead of the serial one; at
  // the end they are equal.
  const ReaderStats& stats() const { return stats_; }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  FileHeader header_;
  uint64_t header_size_ = 0;
  absl::Status status_;
  ReaderStats stats_;
};

}  // namespace format
}  // namespace ittc

#endif  // FORMAT_TRACE_READER_H_
