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
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/perfetto/perfetto_test_util.h"
#include "tools/itt_dump/output.h"

namespace ittc::itt_dump {
namespace {

// The blocks in the compressor's output, expanded, in order.
std::vector<std::string> Blocks(const std::string& out, BlockCompressor::Codec codec) {
  const bool zstd = codec == BlockCompressor::Codec::kZstd;
  std::vector<std::string> blocks;
  for (std::string_view compressed : ::ittc::testing::CompressedBlocks(out, zstd ? 133 : 50)) {
    std::string block;
    if (zstd) {
      const unsigned long long size =
          ZSTD_getFrameContentSize(compressed.data(), compressed.size());
      block.resize(static_cast<size_t>(size));
      EXPECT_EQ(ZSTD_decompress(block.data(), block.size(), compressed.data(), compressed.size()),
                block.size());
    } else {
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
