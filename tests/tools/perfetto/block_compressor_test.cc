// Tests of the block compressor: on any number of threads, every block
// comes out once, whole and in the order it was handed over, each as one
// TracePacket whose compressed field expands to the block; the output is
// the same bytes on one thread as on several.

#include "tools/itt_dump/perfetto/block_compressor.h"

#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/itt_dump/output.h"

namespace ittc::itt_dump {
namespace {

bool GetVarint(const std::string& s, size_t* at, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *at < s.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(s[(*at)++]);
    *v |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// The length-delimited field at *at: its number and bytes.
bool GetField(const std::string& s, size_t* at, uint64_t* field, std::string* bytes) {
  uint64_t key = 0;
  uint64_t length = 0;
  if (!GetVarint(s, at, &key) || (key & 7) != 2 || !GetVarint(s, at, &length) ||
      length > s.size() - *at) {
    return false;
  }
  *field = key >> 3;
  *bytes = s.substr(*at, length);
  *at += length;
  return true;
}

// The blocks in the compressor's output, expanded, in order.
std::vector<std::string> Blocks(const std::string& out, BlockCompressor::Codec codec) {
  std::vector<std::string> blocks;
  size_t at = 0;
  while (at < out.size()) {
    uint64_t field = 0;
    std::string packet;
    if (!GetField(out, &at, &field, &packet) || field != 1) {
      ADD_FAILURE() << "not a Trace.packet at " << at;
      break;
    }
    size_t in = 0;
    std::string compressed;
    if (!GetField(packet, &in, &field, &compressed) || in != packet.size()) {
      ADD_FAILURE() << "not one bytes field in the packet";
      break;
    }
    std::string block;
    if (codec == BlockCompressor::Codec::kZstd) {
      EXPECT_EQ(field, 133u);
      const unsigned long long size =
          ZSTD_getFrameContentSize(compressed.data(), compressed.size());
      block.resize(static_cast<size_t>(size));
      EXPECT_EQ(ZSTD_decompress(block.data(), block.size(), compressed.data(), compressed.size()),
                block.size());
    } else {
      EXPECT_EQ(field, 50u);
      block.resize(4 << 20);
      uLongf size = block.size();
      EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(block.data()), &size,
                           reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()),
                Z_OK);
      block.resize(size);
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// Blocks of compressible bytes of many sizes, each unlike the others.
std::vector<std::string> SampleBlocks(size_t count) {
  std::mt19937_64 random(7);
  std::vector<std::string> blocks;
  for (size_t i = 0; i < count; ++i) {
    std::string b;
    const size_t size = 1 + random() % (i % 5 == 0 ? 300000 : 3000);
    while (b.size() < size)
      b += "packet " + std::to_string(random() % 64) + " of block " + std::to_string(i) + ";";
    b.resize(size);
    blocks.push_back(std::move(b));
  }
  return blocks;
}

std::string Compress(const std::vector<std::string>& blocks, BlockCompressor::Codec codec,
                     int threads) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  BlockCompressor c(out.get(), codec, threads);
  EXPECT_EQ(c.threads(), threads);
  std::string buffer;
  for (const std::string& b : blocks) {
    buffer = b;  // the buffer given back is reused, as the writer does
    c.Submit(&buffer);
  }
  EXPECT_TRUE(c.Finish().ok());
  out->Flush();
  EXPECT_EQ(c.output_bytes(), bytes.size());
  return bytes;
}

TEST(BlockCompressor, BlocksComeOutWholeAndInOrderOnAnyNumberOfThreads) {
  const std::vector<std::string> blocks = SampleBlocks(60);
  const std::string one = Compress(blocks, BlockCompressor::Codec::kZstd, 1);
  EXPECT_EQ(Blocks(one, BlockCompressor::Codec::kZstd), blocks);
  for (int threads : {2, 3, 8}) {
    EXPECT_EQ(Compress(blocks, BlockCompressor::Codec::kZstd, threads), one) << threads;
  }
}

TEST(BlockCompressor, DeflateBlocksToo) {
  const std::vector<std::string> blocks = SampleBlocks(25);
  const std::string one = Compress(blocks, BlockCompressor::Codec::kDeflate, 1);
  EXPECT_EQ(Blocks(one, BlockCompressor::Codec::kDeflate), blocks);
  EXPECT_EQ(Compress(blocks, BlockCompressor::Codec::kDeflate, 4), one);
}

TEST(BlockCompressor, NoBlocksNoBytes) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  BlockCompressor c(out.get(), BlockCompressor::Codec::kZstd, 3);
  EXPECT_TRUE(c.Finish().ok());
  EXPECT_TRUE(c.Finish().ok());  // idempotent
  out->Flush();
  EXPECT_TRUE(bytes.empty());
}

}  // namespace
}  // namespace ittc::itt_dump
