#include "format/chunk_writer.h"

#include <zstd.h>

#include <cstdint>
#include <string>

#include "format/chunk.h"
#include "format/event_stream.h"
#include "format/file_header.h"
#include "format/records.h"
#include "format/schema.h"
#include "format/trace_reader.h"
#include "gtest/gtest.h"

namespace ittc::format {
namespace {

// The payload of a tight loop of task begin + end pairs cycling over four
// names, as the collector writes it: in the op stream every 7-byte pair
// differs from the pair before it only in the name.
std::string FourNameTaskLoop(int pairs) {
  EventStreamEncoder encoder;
  encoder.Reset(/*thread_index=*/0, /*base_time=*/1000);
  uint64_t time = 1000;
  Event e;
  for (int i = 0; i < pairs; ++i) {
    e.Init(EventKind::kTaskBegin, time += 21);
    e.Set(Field::kDomain, 1);
    e.Set(Field::kName, 1 + (i & 3));
    encoder.Append(e);
    e.Init(EventKind::kTaskEnd, time += 21);
    e.Set(Field::kDomain, 1);
    encoder.Append(e);
  }
  return std::string(encoder.payload());
}

std::string Decompress(std::string_view chunk) {
  std::string out(
      ZSTD_getFrameContentSize(chunk.data() + kChunkHeaderSize, chunk.size() - kChunkHeaderSize),
      '\0');
  const size_t n = ZSTD_decompress(&out[0], out.size(), chunk.data() + kChunkHeaderSize,
                                   chunk.size() - kChunkHeaderSize);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

// Warming compresses and discards: the next chunk still gets sequence 0,
// frames the same bytes as a cold writer's, and the writer's own level
// holds again after warming at others.
TEST(ChunkWriterTest, WarmTakesNoSequenceNumberAndChangesNoChunk) {
  const std::string payload = FourNameTaskLoop(20000);
  ChunkWriter cold(1);
  std::string cold_chunk;
  ASSERT_TRUE(cold.AppendChunk(ChunkType::kEvents, payload, &cold_chunk).ok());

  ChunkWriter warm(1);
  for (int level : {1, -1000, 3}) ASSERT_TRUE(warm.Warm(payload, level).ok()) << level;
  EXPECT_EQ(warm.next_sequence(), 0u);
  std::string warm_chunk;
  ASSERT_TRUE(warm.AppendChunk(ChunkType::kEvents, payload, &warm_chunk).ok());
  EXPECT_EQ(warm_chunk, cold_chunk);
  EXPECT_EQ(warm.next_sequence(), 1u);
  EXPECT_EQ(Decompress(warm_chunk), payload);

  // Errors as AppendChunk's: a payload past the limit is refused.
  EXPECT_FALSE(warm.Warm(std::string(kMaxChunkPayloadBytes + 1, 'x'), 1).ok());
}

// zstd's fast levels, left to themselves, code such a loop as one short
// match per pair (0.13 bytes per event, and 2.5x the time); the writer's
// match length makes it one match per block.
TEST(ChunkWriterTest, TightLoopOfPairsCompressesToAlmostNothingAtFastLevels) {
  constexpr int kPairs = 50000;
  const std::string payload = FourNameTaskLoop(kPairs);
  for (int level : {1, 2}) {
    SCOPED_TRACE(level);
    ChunkWriter writer(level);
    std::string chunk;
    ASSERT_TRUE(writer.AppendChunk(ChunkType::kEvents, payload, &chunk).ok());
    const double bytes_per_event = static_cast<double>(chunk.size()) / (2 * kPairs);
    EXPECT_LT(bytes_per_event, 0.02) << chunk.size() << " bytes for " << 2 * kPairs << " events";
    EXPECT_EQ(Decompress(chunk), payload);
  }
}

// A writer that falls behind compresses some chunks at a faster level: each
// chunk is one frame whatever its level, so the chunks decode the same and
// the sequence runs on; the level of the chunks after it is the writer's.
TEST(ChunkWriterTest, ChunksAtAnotherLevelDecodeTheSameAndKeepTheSequence) {
  const std::string payload = FourNameTaskLoop(20000);
  ChunkWriter writer(1);
  std::string normal, fast, again;
  ASSERT_TRUE(writer.AppendChunk(ChunkType::kEvents, payload, &normal).ok());
  ASSERT_TRUE(writer.AppendChunk(ChunkType::kEvents, payload, -1000, &fast).ok());
  ASSERT_TRUE(writer.AppendChunk(ChunkType::kEvents, payload, &again).ok());
  EXPECT_EQ(writer.next_sequence(), 3u);
  for (const std::string* chunk : {&normal, &fast, &again}) {
    EXPECT_EQ(Decompress(*chunk), payload);
  }
  // The fast level really is another level, and the writer's own level,
  // with its match length, comes back after it.
  EXPECT_GT(fast.size(), 4 * normal.size());
  EXPECT_EQ(again.size(), normal.size());
}

// A chunk framed with one sequence number and given another afterwards is
// byte for byte the chunk framed with the other, for payloads of several
// lengths (the chunk CRC is carried past each without reading it).
TEST(ChunkWriterTest, SetChunkSequenceEqualsFramingWithThatSequence) {
  const std::string payload = FourNameTaskLoop(20000);
  for (size_t length : {size_t{0}, size_t{1}, size_t{57}, size_t{4096}, payload.size()}) {
    const std::string stored = payload.substr(0, length);
    std::string chunk = FrameChunkForTest(1, 0, 7, stored, static_cast<uint32_t>(length));
    for (uint64_t sequence : {uint64_t{0}, uint64_t{8}, uint64_t{1} << 40, ~uint64_t{0}}) {
      SetChunkSequence(&chunk[0], sequence);
      EXPECT_EQ(chunk, FrameChunkForTest(1, 0, sequence, stored, static_cast<uint32_t>(length)))
          << length << " " << sequence;
    }
  }
}

// A chunk framed uncompressed from its header alone (the crash dump's way)
// reads back whole, between compressed chunks, in sequence.
TEST(ChunkWriterTest, StoredChunkHeaderFramesAChunkTheReaderAccepts) {
  RecordEncoder records;
  records.Append(ToRecord(LossRecord{2, LossCause::kOverwritten, 40}));
  const std::string loss(records.payload());
  records.Clear();
  records.Append(ToRecord(EndRecord{0, 40, 2, 5}));
  ChunkWriter writer;
  std::string file = EncodeFileHeader(FileHeader());
  ASSERT_TRUE(writer.AppendChunk(ChunkType::kEvents, FourNameTaskLoop(100), &file).ok());
  char header[kChunkHeaderSize];
  FrameStoredChunkHeader(ChunkType::kLoss, 1, loss, header);
  file.append(header, sizeof header);
  file.append(loss);
  FrameStoredChunkHeader(ChunkType::kEnd, 2, records.payload(), header);
  file.append(header, sizeof header);
  file.append(records.payload());

  TraceReader reader(MemorySource(file), nullptr);
  ASSERT_TRUE(reader.ReadHeader().ok());
  Chunk chunk;
  ASSERT_TRUE(reader.Next(&chunk));
  EXPECT_EQ(chunk.type, ChunkType::kEvents);
  ASSERT_TRUE(reader.Next(&chunk));
  EXPECT_EQ(chunk.type, ChunkType::kLoss);
  EXPECT_EQ(chunk.flags, 0);
  EXPECT_EQ(chunk.sequence, 1u);
  EXPECT_EQ(chunk.payload, loss);
  ASSERT_TRUE(reader.Next(&chunk));
  EXPECT_EQ(chunk.type, ChunkType::kEnd);
  EXPECT_EQ(chunk.payload, records.payload());
  EXPECT_FALSE(reader.Next(&chunk));
  EXPECT_TRUE(reader.status().ok());
  EXPECT_EQ(reader.stats().corrupt_regions, 0u);
  EXPECT_EQ(reader.stats().chunks_missing, 0u);
  EXPECT_FALSE(reader.stats().truncated);
}

}  // namespace
}  // namespace ittc::format
