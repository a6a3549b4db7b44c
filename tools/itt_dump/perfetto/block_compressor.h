// Compresses blocks of trace packets on a second thread and writes each as
// one TracePacket whose compressed-packets field holds the block, which is
// what Perfetto's tracing service writes and trace_processor expands
// (protos/perfetto/trace/trace_packet.proto): `compressed_packets` (field
// 50) holds a zlib stream, read by every Perfetto release since 2019;
// `zstd_compressed_packets` (field 133) a zstd frame, read since Perfetto
// v58 (2026-08). Compression is much of the export's work; on its own
// thread it overlaps with decoding the trace.
//
// Thread safety: Submit and Finish are called by one thread (the
// producer). The worker thread alone touches the output between the first
// Submit and Finish's return; the producer must not write to it meanwhile.
// Shared state (pending_, has_pending_, done_, status_) is guarded by mu_.
//
// Memory: three blocks at most (the one the producer fills, one waiting,
// one being compressed).

#ifndef TOOLS_ITT_DUMP_PERFETTO_BLOCK_COMPRESSOR_H_
#define TOOLS_ITT_DUMP_PERFETTO_BLOCK_COMPRESSOR_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "tools/itt_dump/output.h"

namespace ittc::itt_dump {

class BlockCompressor {
 public:
  enum class Codec { kDeflate, kZstd };

  // `out` must outlive the compressor. Starts the worker thread.
  BlockCompressor(Output* out, Codec codec);
  ~BlockCompressor();
  BlockCompressor(const BlockCompressor&) = delete;
  BlockCompressor& operator=(const BlockCompressor&) = delete;

  // Queues *packets (Trace.packet fields), taking its bytes without a copy,
  // and leaves in *packets a spent buffer for the caller to reuse. Waits
  // while the previous block has not been taken by the worker yet.
  void Submit(std::string* packets);

  // Waits until every block is written and stops the worker. Returns the
  // first error (compression or output). Idempotent.
  absl::Status Finish();

  // Bytes written to the output; final after Finish.
  uint64_t output_bytes() const { return output_bytes_; }

 private:
  void Run();
  // Compresses `block` and writes its packet; false on a codec error.
  bool WriteBlock(const std::string& block);

  Output* out_;
  const Codec codec_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string pending_;        // guarded by mu_
  bool has_pending_ = false;   // guarded by mu_
  bool done_ = false;          // guarded by mu_: no more blocks come
  absl::Status status_;        // guarded by mu_
  bool finished_ = false;      // producer only
  uint64_t output_bytes_ = 0;  // worker until Finish, then producer
  std::string compressed_;     // worker only
  void* zstd_ = nullptr;       // worker only: a ZSTD_CCtx, reused
  std::thread worker_;
};

}  // namespace ittc::itt_dump

#endif  // TOOLS_ITT_DUMP_PERFETTO_BLOCK_COMPRESSOR_H_
