#include "tools/itt_dump/perfetto/block_compressor.h"

#include <pthread.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string_view>
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
// Room for the heads of the two length-delimited fields in front of a
// block's compressed bytes (Trace.packet, then the compressed field).
constexpr size_t kHead = 2 * ProtoWriter::kMaxBytesHead;

}  // namespace

BlockCompressor::BlockCompressor(Output* out, Codec codec, int threads) : out_(out), codec_(codec) {
  if (threads <= 0) {
    threads =
        std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxDefaultThreads);
  }
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

BlockCompressor::~BlockCompressor() { Finish().IgnoreError(); }

void BlockCompressor::Submit(std::string* packets) {
  std::unique_ptr<Block> block;
  {
    std::unique_lock<std::mutex> lock(mu_);
    space_cv_.wait(lock, [this] { return blocks_.size() < kBlocksPerThread * threads_.size(); });
    if (!spare_.empty()) {
      block = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (block == nullptr) block = std::make_unique<Block>();
  // The spare block's spent bytes go back, kept at their size: the
  // caller's writer fills a buffer once, not per block (ProtoWriter::
  // SwapOut).
  block->packets.swap(*packets);
  block->taken = false;
  block->done = false;
  block->failed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks_.push_back(std::move(block));
  }
  // With the lock let go: woken while it is held, a thread would only wait
  // for it again.
  work_cv_.notify_one();
}

absl::Status BlockCompressor::Finish() {
  if (!finished_) {
    finished_ = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void BlockCompressor::Run() {
  pthread_setname_np(pthread_self(), "itt-dump-zstd");  // for profilers and the benchmark
  void* zstd = nullptr;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    Block* block = nullptr;
    work_cv_.wait(lock, [&] {
      for (const std::unique_ptr<Block>& b : blocks_) {
        if (!b->taken) {
          block = b.get();
          return true;
        }
      }
      return done_;
    });
    if (block == nullptr) break;  // done_ and nothing left to take
    block->taken = true;
    lock.unlock();
    const bool ok = Compress(block, &zstd);
    lock.lock();
    block->done = true;
    block->failed = !ok;
    if (!writing_) WriteDone(&lock);
  }
  lock.unlock();
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd));
}

void BlockCompressor::WriteDone(std::unique_lock<std::mutex>* lock) {
  writing_ = true;
  while (!blocks_.empty() && blocks_.front()->done) {
    std::unique_ptr<Block> block = std::move(blocks_.front());
    blocks_.pop_front();
    if (block->failed && status_.ok()) {
      status_ = absl::InternalError(codec_ == Codec::kZstd ? "zstd compression failed"
                                                           : "zlib compress2 failed");
    }
    lock->unlock();
    if (!block->failed) {
      out_->Write(std::string_view(block->compressed).substr(block->start, block->size));
      output_bytes_ += block->size;
    }
    lock->lock();
    spare_.push_back(std::move(block));
    space_cv_.notify_all();
  }
  writing_ = false;
}

bool BlockCompressor::Compress(Block* block, void** zstd) {
  // The compressed bytes go at kHead; the packet's keys and lengths are
  // written right before them once their size is known. `compressed` only
  // grows (resizing it down to each block's size and up again to the
  // bound would zero-fill most of it per block).
  const std::string& packets = block->packets;
  std::string& out = block->compressed;
  uint32_t field = kPacketCompressedPackets;
  size_t n = 0;
  if (codec_ == Codec::kZstd) {
    if (*zstd == nullptr) *zstd = ZSTD_createCCtx();
    if (*zstd == nullptr) return false;
    const size_t bound = kHead + ZSTD_compressBound(packets.size());
    if (out.size() < bound) out.resize(bound);
    n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(*zstd), &out[kHead], out.size() - kHead,
                          packets.data(), packets.size(), kZstdLevel);
    if (ZSTD_isError(n)) return false;
    field = kPacketZstdCompressedPackets;
  } else {
    const size_t bound = kHead + compressBound(static_cast<uLong>(packets.size()));
    if (out.size() < bound) out.resize(bound);
    uLongf size = static_cast<uLongf>(out.size() - kHead);
    const int rc = compress2(reinterpret_cast<Bytef*>(&out[kHead]), &size,
                             reinterpret_cast<const Bytef*>(packets.data()),
                             static_cast<uLong>(packets.size()), Z_BEST_SPEED);
    if (rc != Z_OK) return false;
    n = size;
  }
  // Trace.packet (a TracePacket) holding one bytes field, the block.
  char inner[ProtoWriter::kMaxBytesHead];
  const auto inner_size = static_cast<size_t>(ProtoWriter::PutBytesHead(inner, field, n) - inner);
  char outer[ProtoWriter::kMaxBytesHead];
  const auto outer_size =
      static_cast<size_t>(ProtoWriter::PutBytesHead(outer, kTracePacket, inner_size + n) - outer);
  block->start = kHead - inner_size - outer_size;
  block->size = outer_size + inner_size + n;
  std::memcpy(&out[block->start], outer, outer_size);
  std::memcpy(&out[block->start + outer_size], inner, inner_size);
  return true;
}

PacketBlocks::PacketBlocks(Output* out, BlockCompressor::Codec codec, int threads)
    : compressor_(out, codec, threads) {
  block_.reserve(kBlockBytes + (kBlockBytes >> 4));
}

// (The block not filled is dropped: Finish hands it on.)
PacketBlocks::~PacketBlocks() { compressor_.Finish().IgnoreError(); }

size_t PacketBlocks::CutAfter(const char* p, size_t n, size_t need) {
  // Each packet: its key (field 1, length-delimited: one byte, 0x0A), its
  // length as a varint, its bytes.
  constexpr unsigned char kPacketKey = (kTracePacket << 3) | 2;
  const auto* const begin = reinterpret_cast<const unsigned char*>(p);
  const unsigned char* at = begin;
  const unsigned char* const end = begin + n;
  while (at < end) {
    if (*at++ != kPacketKey) return n;
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      if (at == end || shift > 63) return n;
      const unsigned char b = *at++;
      length |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    if (length > static_cast<uint64_t>(end - at)) return n;
    at += length;
    if (static_cast<size_t>(at - begin) >= need) return static_cast<size_t>(at - begin);
  }
  return n;
}

void PacketBlocks::WriteRaw(const char* p, size_t n) {
  while (n != 0) {
    // (A block below kBlockBytes: each that reaches it goes.)
    const size_t need = kBlockBytes - block_.size();
    if (n < need) {
      block_.append(p, n);
      return;
    }
    const size_t cut = CutAfter(p, n, need);
    block_.append(p, cut);
    p += cut;
    n -= cut;
    if (block_.size() >= kBlockBytes) Submit();
  }
}

void PacketBlocks::Submit() {
  // The compressor takes the bytes and leaves a spent buffer, its size kept.
  compressor_.Submit(&block_);
  block_.clear();
}

absl::Status PacketBlocks::Finish() {
  if (!finished_) {
    finished_ = true;
    Output::Flush();
    if (!block_.empty()) Submit();
  }
  return compressor_.Finish();
}

}  // namespace ittc::itt_dump
