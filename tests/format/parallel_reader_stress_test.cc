// The parallel TraceReader under stress, for ThreadSanitizer (the target is
// tagged "concurrency") as much as for the results: many workers, tight
// and loose bounds, work cancelled by damage, readers destroyed with work
// in flight, and a ChunkDecoder running on the workers.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/debug_string.h"
#include "format/event_stream.h"
#include "format/records.h"
#include "format/trace_reader.h"
#include "gtest/gtest.h"
#include "tests/format/parallel_reader_util.h"
#include "tests/format/test_util.h"

namespace ittc {
namespace format {
namespace {

using testing::ReadPlan;
using testing::ReadTranscript;
using testing::TestTraceWriter;
using testing::Transcript;

// Every round reads the whole trace, then stops after a few chunks.
TEST(ParallelReader, StressWithDamageAndEarlyStops) {
  const TestTraceWriter w = testing::MultiThreadTrace(4, 40, 150);
  std::string bad = w.bytes();
  for (size_t i = 5; i < w.chunks().size(); i += 7) {
    bad[w.chunks()[i].offset + w.chunks()[i].size - 2] ^= 0x10;
  }
  ReadPlan plan;
  plan.log_bytes_read = false;
  const Transcript serial = ReadTranscript(bad, plan);
  ASSERT_GT(serial.log.size(), 150u);
  for (int round = 0; round < 24; ++round) {
    plan.options.workers = 1 + round % 8;
    plan.options.max_in_flight = round % 5;
    plan.max_chunks = SIZE_MAX;
    SCOPED_TRACE(absl::StrCat("round ", round));
    const Transcript full = ReadTranscript(bad, plan);
    EXPECT_EQ(full.log, serial.log);
    EXPECT_EQ(full.stats.corrupt_bytes, serial.stats.corrupt_bytes);
    // Stop early: what was shown up to then is the serial reader's prefix.
    plan.max_chunks = static_cast<size_t>(round) * 7;
    const Transcript part = ReadTranscript(bad, plan);
    std::vector<std::string> prefix;
    size_t chunks = 0;
    for (const std::string& line : serial.log) {
      if (chunks == plan.max_chunks) break;  // the reports after come with the next Next
      chunks += line.rfind("chunk ", 0) == 0;
      prefix.push_back(line);
    }
    EXPECT_EQ(part.log, prefix);
  }
}

// Every record or event of a chunk, as DebugStrings.
std::vector<std::string> DecodeLines(const Chunk& chunk) {
  std::vector<std::string> lines;
  Event e;
  if (chunk.type == ChunkType::kEvents) {
    EventStreamDecoder dec;
    if (!dec.Reset(chunk.payload, chunk.flags).ok()) return {"bad prefix"};
    while (dec.Next(&e)) lines.push_back(DebugString(e));
    if (!dec.status().ok()) lines.push_back(std::string(dec.status().message()));
  } else {
    RecordDecoder dec;
    dec.Reset(chunk.payload);
    while (dec.Next(&e)) lines.push_back(DebugString(e));
    if (!dec.status().ok()) lines.push_back(std::string(dec.status().message()));
  }
  return lines;
}

class LinesDecoder : public ChunkDecoder {
 public:
  struct Result : DecodedChunk {
    uint64_t sequence = 0;
    uint64_t offset = 0;
    std::vector<std::string> lines;
  };
  std::unique_ptr<DecodedChunk> NewResult() const override { return std::make_unique<Result>(); }
  void Decode(const Chunk& chunk, DecodedChunk* out) const override {
    Result* r = static_cast<Result*>(out);
    r->sequence = chunk.sequence;
    r->offset = chunk.offset;
    r->lines = DecodeLines(chunk);
  }
};

TEST(ParallelReader, DecoderResultsComeWithTheirChunks) {
  const TestTraceWriter w = testing::MultiThreadTrace(4, 5, 300);
  std::string bad = w.bytes();
  bad[w.chunks()[6].offset + w.chunks()[6].size / 2] ^= 0x02;
  const auto& c = w.chunks()[9];
  bad.insert(c.offset + c.size, w.bytes().substr(c.offset, c.size));
  const LinesDecoder decoder;
  for (int workers : {0, 1, 2, 8}) {
    SCOPED_TRACE(absl::StrCat(workers, " workers"));
    ReaderOptions options;
    options.workers = workers;
    options.decoder = &decoder;
    TraceReader reader(MemorySource(bad), nullptr, options);
    ASSERT_TRUE(reader.ReadHeader().ok());
    Chunk chunk;
    size_t n = 0;
    while (reader.Next(&chunk)) {
      ++n;
      ASSERT_NE(chunk.decoded, nullptr);
      const auto* r = static_cast<const LinesDecoder::Result*>(chunk.decoded);
      EXPECT_EQ(r->sequence, chunk.sequence);
      EXPECT_EQ(r->offset, chunk.offset);
      EXPECT_EQ(r->lines, DecodeLines(chunk));
      EXPECT_FALSE(r->lines.empty());
    }
    EXPECT_EQ(n, w.chunks().size() - 1);
  }
}

}  // namespace
}  // namespace format
}  // namespace ittc
