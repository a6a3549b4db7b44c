// Feeds thousands of random mutations of real traces to the reader and the
// decoders. Nothing may crash (run under --config=asan too), and what comes
// out must be either exactly an original chunk or reported.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/format/test_util.h"

namespace ittc::format {
namespace {

using testing::ReadResult;
using testing::Rng;
using testing::TestTraceWriter;

std::string Mutate(const std::string& in, Rng& rng, std::string* how) {
  std::string s = in;
  const int n = 1 + static_cast<int>(rng() % 3);
  for (int m = 0; m < n; ++m) {
    if (s.empty()) s = "x";
    const size_t pos = rng() % s.size();
    const size_t len = std::min<size_t>(s.size() - pos, 1 + rng() % 64);
    switch (rng() % 8) {
      case 0:
        s[pos] ^= static_cast<char>(1u << (rng() % 8));
        absl::StrAppend(how, "flip@", pos, " ");
        break;
      case 1:
        for (size_t i = 0; i < len; ++i) s[pos + i] = static_cast<char>(rng());
        absl::StrAppend(how, "random@", pos, "+", len, " ");
        break;
      case 2:
        std::fill(s.begin() + pos, s.begin() + pos + len, '\0');
        absl::StrAppend(how, "zero@", pos, "+", len, " ");
        break;
      case 3:
        s.erase(pos, len);
        absl::StrAppend(how, "erase@", pos, "+", len, " ");
        break;
      case 4:
        s.insert(pos, s.substr(rng() % s.size(), len));
        absl::StrAppend(how, "dup@", pos, "+", len, " ");
        break;
      case 5:
        s.resize(pos);
        absl::StrAppend(how, "truncate@", pos, " ");
        break;
      case 6: {
        // Move a block elsewhere: reorders chunks when it spans them.
        const size_t blen = std::min<size_t>(s.size() - pos, rng() % 2000);
        std::string block = s.substr(pos, blen);
        s.erase(pos, blen);
        s.insert(s.empty() ? 0 : rng() % (s.size() + 1), block);
        absl::StrAppend(how, "move@", pos, "+", blen, " ");
        break;
      }
      default:
        s.insert(pos, std::string(len, static_cast<char>(rng())));
        absl::StrAppend(how, "insert@", pos, "+", len, " ");
        break;
    }
  }
  return s;
}

void CheckInvariants(const TestTraceWriter& original, const std::string& input,
                     const ReadResult& r) {
  if (!r.header_status.ok()) {
    EXPECT_TRUE(r.chunks.empty());
    return;
  }
  const auto& chunks = original.chunks();
  uint64_t accounted = 0;
  bool have_prev = false;
  uint64_t prev = 0;
  for (const auto& c : r.chunks) {
    // A returned chunk is exactly one that was written: CRC32C makes an
    // accepted damaged chunk a 1 in 2^32 event per damaged chunk.
    ASSERT_LT(c.sequence, chunks.size());
    EXPECT_EQ(c.records, chunks[c.sequence].records);
    EXPECT_EQ(c.type, chunks[c.sequence].type);
    EXPECT_EQ(c.decode_error, "");
    EXPECT_LE(c.offset + c.stored_size, input.size());
    // Sequence numbers strictly rise: nothing is spliced or replayed.
    if (have_prev) {
      EXPECT_GT(c.sequence, prev);
    }
    have_prev = true;
    prev = c.sequence;
    accounted += c.stored_size;
  }
  for (const auto& rep : r.reports) {
    EXPECT_LE(rep.offset + rep.bytes, input.size());
  }
  // Every byte after the header is in a returned chunk or was reported.
  EXPECT_EQ(accounted + r.stats.corrupt_bytes + r.stats.truncated_bytes,
            input.size() - original.header_size());
  EXPECT_EQ(r.stats.bytes_read, input.size());
  EXPECT_TRUE(r.status.ok());
}

// A trace of many small chunks from three threads, as a busy collector
// with a short flush interval writes it.
TestTraceWriter ManyChunks() {
  TestTraceWriter w(testing::SampleHeader());
  Rng rng(8);
  uint64_t t[3] = {1000, 1500, 2000};
  w.AddRecords(ChunkType::kDefinitions, {DefDomain(1, "d"), DefString(1, "a"), DefString(2, "b")});
  for (int i = 0; i < 12; ++i) {
    const uint32_t thread = static_cast<uint32_t>(i % 3);
    w.AddEvents(thread, i % 2 ? testing::TaskPairs(rng, 20, &t[thread])
                              : testing::RealisticMix(rng, 15, &t[thread]));
    if (i % 4 == 3) {
      w.AddRecords(ChunkType::kClockSync, {ToRecord(ClockSync{t[0], 1, 2})});
    }
  }
  w.AddRecords(ChunkType::kEnd, {ToRecord(EndRecord{400, 0, 16, t[0]})});
  return w;
}

TEST(Mutation, RandomMutationsOfRealTracesNeverCrashAndAreReported) {
  const TestTraceWriter traces[] = {testing::SmallTrace(), ManyChunks()};
  Rng rng(20261122);
  constexpr int kIterations = 6000;
  int header_ok = 0;
  int corrupt = 0;
  int truncated = 0;
  uint64_t chunks_read = 0;
  for (int i = 0; i < kIterations; ++i) {
    std::string how;
    const TestTraceWriter& original = traces[i % 2];
    const std::string input = Mutate(original.bytes(), rng, &how);
    SCOPED_TRACE(absl::StrCat("iteration ", i, ": ", how));
    const ReadResult r = testing::ReadTrace(input, i % 4 == 0 ? 1 + rng() % 300 : 0);
    CheckInvariants(original, input, r);
    if (HasFailure()) return;
    header_ok += r.header_status.ok();
    corrupt += r.stats.corrupt_regions > 0;
    truncated += r.stats.truncated;
    chunks_read += r.chunks.size();
  }
  // The mutations reach past the header and hit every kind of damage.
  EXPECT_GT(header_ok, kIterations / 2);
  EXPECT_GT(corrupt, kIterations / 4);
  EXPECT_GT(truncated, kIterations / 20);
  EXPECT_GT(chunks_read, uint64_t{kIterations} * 3);
}

TEST(Mutation, MutatedPayloadsNeverCrashTheDecoders) {
  // The reader rejects damaged chunks by CRC; the decoders must also hold up
  // on their own, since a buggy writer can produce a well-framed bad payload.
  const TestTraceWriter small = testing::SmallTrace();
  const ReadResult clean = testing::ReadTrace(small.bytes());
  ASSERT_TRUE(clean.header_status.ok());
  // Re-encode payloads to mutate them directly.
  Rng rng(99);
  std::deque<std::string> storage;
  EventStreamEncoder enc;
  enc.Reset(1, 0);
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  uint64_t t = 0;
  for (int i = 0; i < count; ++i) {
    t += 10;
    if (static_cast<uint16_t>(all[i].kind) < 0x100) {
      enc.Append(testing::RandomEvent(rng, all[i].kind, t, &storage));
    }
  }
  const std::string events(enc.payload());
  RecordEncoder rec;
  for (int i = 0; i < count; ++i) {
    rec.Append(testing::RandomEvent(rng, all[i].kind, 0, &storage));
  }
  const std::string records(rec.payload());
  for (int i = 0; i < 3000; ++i) {
    std::string how;
    const std::string e = Mutate(events, rng, &how);
    EventStreamDecoder ed;
    Event ev;
    if (ed.Reset(e, enc.chunk_flags()).ok()) {
      size_t n = 0;
      while (ed.Next(&ev)) {
        ASSERT_NE(FindSchema(ev.kind), nullptr);
        for (int f = 0; f < ev.field_count; ++f) {
          if (FindSchema(ev.kind)->fields[f].type == FieldType::kBytes) {
            // Views stay inside the payload.
            ASSERT_GE(ev.fields[f].bytes.data(), e.data());
            ASSERT_LE(ev.fields[f].bytes.data() + ev.fields[f].bytes.size(), e.data() + e.size());
          }
        }
        ++n;
      }
      EXPECT_LE(n, e.size());
    }
    const std::string r = Mutate(records, rng, &how);
    RecordDecoder rd;
    rd.Reset(r);
    while (rd.Next(&ev)) ASSERT_NE(FindSchema(ev.kind), nullptr);
  }
}

}  // namespace
}  // namespace ittc::format
