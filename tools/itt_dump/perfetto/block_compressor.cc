#include "tools/itt_dump/perfetto/block_compressor.h"

#include <pthread.h>
#include <zlib.h>
#include <zstd.h>

#include <utility>

#include "tools/itt_dump/perfetto/proto_writer.h"

namespace ittc::itt_dump {
namespace {

constexpr uint32_t kTracePacket = 1;                    // trace.proto: Trace.packet
constexpr uint32_t kPacketCompressedPackets = 50;       // TracePacket.compressed_packets
constexpr uint32_t kPacketZstdCompressedPackets = 133;  // .zstd_compressed_packets
// Fast levels: the export is bounded by compression, and the output is
// already several times smaller than the packets.
constexpr int kZstdLevel = 1;

}  // namespace

BlockCompressor::BlockCompressor(Output* out, Codec codec)
    : out_(out), codec_(codec), worker_([this] { Run(); }) {}

BlockCompressor::~BlockCompressor() {
  Finish().IgnoreError();
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_));
}

void BlockCompressor::Submit(std::string* packets) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !has_pending_; });
    // pending_ holds the block the worker took last time (Run swaps).
    pending_.swap(*packets);
    has_pending_ = true;
  }
  // With the lock let go: woken while it is held, the worker would only
  // wait for it again.
  cv_.notify_all();
}

absl::Status BlockCompressor::Finish() {
  if (!finished_) {
    finished_ = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void BlockCompressor::Run() {
  pthread_setname_np(pthread_self(), "itt-dump-zstd");  // for profilers and the benchmark
  std::string block;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return has_pending_ || done_; });
      if (!has_pending_) return;  // done_ and nothing left
      block.swap(pending_);
      has_pending_ = false;
    }
    cv_.notify_all();  // the producer may queue the next block
    if (!WriteBlock(block)) {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok()) {
        status_ = absl::InternalError(codec_ == Codec::kZstd ? "zstd compression failed"
                                                             : "zlib compress2 failed");
      }
    }
  }
}

bool BlockCompressor::WriteBlock(const std::string& block) {
  // compressed_ only grows: resizing it down to each block's compressed
  // size and up again to the bound would zero-fill most of it per block.
  uint32_t field = kPacketCompressedPackets;
  size_t n = 0;
  if (codec_ == Codec::kZstd) {
    if (zstd_ == nullptr) zstd_ = ZSTD_createCCtx();
    if (zstd_ == nullptr) return false;
    const size_t bound = ZSTD_compressBound(block.size());
    if (compressed_.size() < bound) compressed_.resize(bound);
    n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_), &compressed_[0], compressed_.size(),
                          block.data(), block.size(), kZstdLevel);
    if (ZSTD_isError(n)) return false;
    field = kPacketZstdCompressedPackets;
  } else {
    const uLong bound = compressBound(static_cast<uLong>(block.size()));
    if (compressed_.size() < bound) compressed_.resize(bound);
    uLongf size = static_cast<uLongf>(compressed_.size());
    const int rc = compress2(reinterpret_cast<Bytef*>(&compressed_[0]), &size,
                             reinterpret_cast<const Bytef*>(block.data()),
                             static_cast<uLong>(block.size()), Z_BEST_SPEED);
    if (rc != Z_OK) return false;
    n = size;
  }
  ProtoWriter wrapper;
  wrapper.Begin(kTracePacket);
  wrapper.Bytes(field, std::string_view(compressed_.data(), n));
  wrapper.End();
  out_->Write(wrapper.data());
  output_bytes_ += wrapper.size();
  return true;
}

}  // namespace ittc::itt_dump
