// Compresses blocks of trace packets on threads of its own and writes each
// as one TracePacket whose compressed-packets field holds the block, which
// is what Perfetto's tracing service writes and trace_processor expands
// (protos/perfetto/trace/trace_packet.proto): `compressed_packets` (field
// 50) holds a zlib stream, read by every Perfetto release since 2019;
// `zstd_compressed_packets` (field 133) a zstd frame, read since Perfetto
// v58 (2026-08). Compression is much of the export's work (about as much
// as the reading thread's on the benchmark's traces): the blocks are
// compressed at once on every thread, each on its own, and written in the
// order they came, so the output is the same on any number of threads.
//
// Thread safety: Submit and Finish are called by one thread (the
// producer). Between the first Submit and Finish's return only the
// compressor's threads touch the output, one at a time (the one that
// finished the oldest block not written writes it, and the blocks after
// it that are done). Shared state is guarded by mu_.
//
// Memory: at most kBlocksPerThread blocks per thread handed over and not
// written yet (each with its compressed copy), and the one the producer
// fills.

#ifndef TOOLS_ITT_DUMP_PERFETTO_BLOCK_COMPRESSOR_H_
#define TOOLS_ITT_DUMP_PERFETTO_BLOCK_COMPRESSOR_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "tools/itt_dump/output.h"

namespace ittc::itt_dump {

class BlockCompressor {
 public:
  enum class Codec { kDeflate, kZstd };
  // Blocks handed over and not written yet, per thread, at most: past
  // them Submit waits.
  static constexpr size_t kBlocksPerThread = 2;
  // Threads by default at most: about 10 GB of packets a second at level
  // 1 (650 MB/s a thread on the dev VM), past any reading thread.
  static constexpr int kMaxDefaultThreads = 16;

  // `out` must outlive the compressor. Starts `threads` threads (at least
  // one; 0: one per online CPU, at most kMaxDefaultThreads).
  BlockCompressor(Output* out, Codec codec, int threads = 0);
  ~BlockCompressor();
  BlockCompressor(const BlockCompressor&) = delete;
  BlockCompressor& operator=(const BlockCompressor&) = delete;

  // Queues *packets (Trace.packet fields), taking its bytes without a copy,
  // and leaves in *packets a spent buffer for the caller to reuse. Waits
  // while the blocks not written yet are at their bound.
  void Submit(std::string* packets);

  // Waits until every block is written and stops the threads. Returns the
  // first error (compression or output). Idempotent.
  absl::Status Finish();

  // Bytes written to the output; final after Finish.
  uint64_t output_bytes() const { return output_bytes_; }
  int threads() const { return static_cast<int>(threads_.size()); }

 private:
  struct Block {
    std::string packets;
    std::string compressed;  // its packet once done: `size` bytes at `start`
    size_t start = 0;
    size_t size = 0;
    bool taken = false;  // a thread compresses it
    bool done = false;
    bool failed = false;
  };
  void Run();
  // Compresses block->packets into block->compressed (its whole packet);
  // false on a codec error. `zstd`: the calling thread's context.
  bool Compress(Block* block, void** zstd);
  // Writes the blocks done at the front, in order, while this thread is
  // the writer (mu_ held on entry and exit; let go while writing).
  void WriteDone(std::unique_lock<std::mutex>* lock);

  Output* out_;
  const Codec codec_;
  std::mutex mu_;
  std::condition_variable work_cv_;   // blocks to take, or done_
  std::condition_variable space_cv_;  // a block written (room to Submit)
  // Guarded by mu_: blocks handed over and not written, in order (the
  // front ones may be done); whether a thread is writing; spent buffers;
  // no more blocks come; the first error.
  std::deque<std::unique_ptr<Block>> blocks_;
  bool writing_ = false;
  std::vector<std::unique_ptr<Block>> spare_;
  bool done_ = false;
  absl::Status status_;
  bool finished_ = false;      // producer only
  uint64_t output_bytes_ = 0;  // the writer's until Finish, then producer's
  std::vector<std::thread> threads_;
};

// The Output a trace's packets (Trace.packet fields) go to for a
// BlockCompressor: it gathers them into blocks, each ending with the
// packet that brings it to kBlockBytes or past, wherever the bytes came
// from, so the blocks, and the file, do not depend on how the packets were
// handed over (a writer's buffers, the runs a pass on every core merges:
// export.cc). REQUIRES: every write holds whole packets (it finds where
// they end from the start of the write that a block's end falls in).
//
// Thread safety: an Output (one writer); the compressor's threads write
// to `out`.
class PacketBlocks final : public Output {
 public:
  // Packets gathered before a block is compressed and written: large
  // enough for deflate to find the repetition, small enough to bound
  // memory.
  static constexpr size_t kBlockBytes = size_t{1} << 20;

  // `out` must outlive it. `threads`: BlockCompressor's. Destroyed before
  // Finish, it writes the blocks handed on, not the one it gathers.
  PacketBlocks(Output* out, BlockCompressor::Codec codec, int threads = 0);
  ~PacketBlocks() override;

  // Hands on the last block and waits until every block is written.
  // Returns the first error (compression or output).
  absl::Status Finish();

  // Final after Finish.
  uint64_t output_bytes() const { return compressor_.output_bytes(); }

  // Where the block that holds `need` more bytes ends in the packets
  // [p, p + n): just past the packet that reaches `need`; n if none does
  // (or the bytes are not whole packets).
  static size_t CutAfter(const char* p, size_t n, size_t need);

 protected:
  void WriteRaw(const char* p, size_t n) override;

 private:
  void Submit();

  BlockCompressor compressor_;
  std::string block_;  // the packets of the block being gathered
  bool finished_ = false;
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_BLOCK_COMPRESSOR_H_
