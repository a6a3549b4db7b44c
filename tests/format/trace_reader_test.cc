// Corruption tests in the style of leveldb's log_test: build a small
// trace, damage it in every way a disk, a crash or a bad copy can, and
// check exactly what the reader returns and reports.

#include "format/trace_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/chunk_writer.h"
#include "format/coding.h"
#include "format/crc32c.h"
#include "gtest/gtest.h"
#include "tests/format/test_util.h"

namespace ittc::format {
namespace {

using testing::ReadResult;
using testing::ReadTrace;
using testing::Report;
using testing::TestTraceWriter;

class ReaderTest : public ::testing::Test {
 protected:
  ReaderTest() : trace_(testing::SmallTrace()) {}

  const std::string& bytes() const { return trace_.bytes(); }
  const std::vector<TestTraceWriter::ChunkInfo>& chunks() const { return trace_.chunks(); }

  // Index of the chunk holding byte `offset`, or -1 for the file header.
  int ChunkAt(uint64_t offset) const {
    for (size_t i = 0; i < chunks().size(); ++i) {
      if (offset >= chunks()[i].offset && offset < chunks()[i].offset + chunks()[i].size) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // Asserts that `r` holds exactly the chunks of `expected` (indices into
  // chunks()), in order, each with all of its records.
  // Offsets are compared unless bytes were inserted before a chunk.
  void ExpectChunks(const ReadResult& r, const std::vector<int>& expected,
                    bool check_offsets = true) {
    ASSERT_EQ(r.chunks.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& want = chunks()[expected[i]];
      if (check_offsets) {
        EXPECT_EQ(r.chunks[i].offset, want.offset);
      }
      EXPECT_EQ(r.chunks[i].sequence, want.sequence);
      EXPECT_EQ(r.chunks[i].type, want.type);
      EXPECT_EQ(r.chunks[i].records, want.records);
      EXPECT_EQ(r.chunks[i].decode_error, "");
    }
  }

  std::vector<int> AllBut(int skip) const {
    std::vector<int> v;
    for (int i = 0; i < static_cast<int>(chunks().size()); ++i) {
      if (i != skip) v.push_back(i);
    }
    return v;
  }

  std::vector<int> FirstN(int n) const {
    std::vector<int> v;
    for (int i = 0; i < n; ++i) v.push_back(i);
    return v;
  }

  static std::string Describe(const ReadResult& r) {
    std::string s;
    for (const Report& rep : r.reports) {
      absl::StrAppend(&s, rep.truncation ? "truncation" : "corruption", " @", rep.offset, " +",
                      rep.bytes, " ", rep.reason, "\n");
    }
    return s;
  }

  TestTraceWriter trace_;
};

TEST_F(ReaderTest, CleanTraceReadsEverythingWithNoReports) {
  ASSERT_GE(chunks().size(), 8u);
  for (size_t max_read : {size_t{0}, size_t{1}, size_t{7}, size_t{100}}) {
    SCOPED_TRACE(max_read);
    ReadResult r = ReadTrace(bytes(), max_read);
    ASSERT_TRUE(r.header_status.ok()) << r.header_status;
    EXPECT_EQ(r.header.pid, 4242u);
    ExpectChunks(r, AllBut(-1));
    EXPECT_TRUE(r.reports.empty()) << Describe(r);
    EXPECT_TRUE(r.status.ok());
    EXPECT_FALSE(r.stats.truncated);
    EXPECT_EQ(r.stats.chunks_read, chunks().size());
    EXPECT_EQ(r.stats.bytes_read, bytes().size());
    EXPECT_EQ(r.chunks.back().type, ChunkType::kEnd);
  }
}

TEST_F(ReaderTest, FlippedByteInAnyChunkLosesOnlyThatChunk) {
  for (size_t off = trace_.header_size(); off < bytes().size(); ++off) {
    std::string bad = bytes();
    bad[off] ^= 0x40;
    ReadResult r = ReadTrace(bad);
    const int hit = ChunkAt(off);
    ASSERT_GE(hit, 0);
    SCOPED_TRACE(absl::StrCat("offset ", off, " in chunk ", hit, "\n", Describe(r)));
    ASSERT_TRUE(r.header_status.ok());
    ExpectChunks(r, AllBut(hit));
    if (HasFailure()) return;
    // One report for the damaged chunk, one for the sequence gap it leaves
    // (none when the last chunk is lost: nothing follows to show the gap).
    const bool last = hit + 1 == static_cast<int>(chunks().size());
    ASSERT_EQ(r.reports.size(), last ? 1u : 2u);
    EXPECT_FALSE(r.reports[0].truncation);
    EXPECT_EQ(r.reports[0].offset, chunks()[hit].offset);
    EXPECT_EQ(r.reports[0].bytes, chunks()[hit].size);
    if (!last) {
      EXPECT_FALSE(r.reports[1].truncation);
      EXPECT_EQ(r.reports[1].offset, chunks()[hit + 1].offset);
      EXPECT_EQ(r.reports[1].bytes, 0u);
      EXPECT_EQ(r.stats.chunks_missing, 1u);
    }
    EXPECT_FALSE(r.stats.truncated);
    if (HasFailure()) return;
  }
}

TEST_F(ReaderTest, FlippedByteInTheHeaderFailsTheHeader) {
  for (size_t off = 0; off < trace_.header_size(); ++off) {
    std::string bad = bytes();
    bad[off] ^= 0x01;
    ReadResult r = ReadTrace(bad);
    EXPECT_FALSE(r.header_status.ok()) << off;
    EXPECT_TRUE(r.chunks.empty());
  }
}

TEST_F(ReaderTest, TruncationAtEveryOffsetIsACleanEnd) {
  for (size_t len = 0; len < bytes().size(); ++len) {
    ReadResult r = ReadTrace(std::string_view(bytes()).substr(0, len));
    SCOPED_TRACE(absl::StrCat("length ", len, "\n", Describe(r)));
    if (len < trace_.header_size()) {
      EXPECT_EQ(r.header_status.code(), absl::StatusCode::kOutOfRange);
      continue;
    }
    ASSERT_TRUE(r.header_status.ok());
    // Every chunk that ends at or before the cut is returned whole.
    int complete = 0;
    bool boundary = len == trace_.header_size();
    for (const auto& c : chunks()) {
      if (c.offset + c.size <= len) ++complete;
      if (c.offset + c.size == len) boundary = true;
    }
    ExpectChunks(r, FirstN(complete));
    if (boundary) {
      EXPECT_TRUE(r.reports.empty());
      EXPECT_FALSE(r.stats.truncated);
    } else {
      ASSERT_EQ(r.reports.size(), 1u);
      EXPECT_TRUE(r.reports[0].truncation);
      EXPECT_EQ(r.reports[0].offset, chunks()[complete].offset);
      EXPECT_EQ(r.reports[0].bytes, len - chunks()[complete].offset);
      EXPECT_TRUE(r.stats.truncated);
      EXPECT_EQ(r.stats.corrupt_regions, 0u);
    }
    if (HasFailure()) return;
  }
}

TEST_F(ReaderTest, ZeroFilledTailIsTruncation) {
  for (size_t zeros : {size_t{1}, size_t{31}, size_t{32}, size_t{4096}, size_t{300000}}) {
    ReadResult r = ReadTrace(bytes() + std::string(zeros, '\0'));
    SCOPED_TRACE(absl::StrCat(zeros, " zeros\n", Describe(r)));
    ExpectChunks(r, AllBut(-1));
    ASSERT_EQ(r.reports.size(), 1u);
    EXPECT_TRUE(r.reports[0].truncation);
    EXPECT_EQ(r.reports[0].offset, bytes().size());
    EXPECT_EQ(r.reports[0].bytes, zeros);
  }
}

TEST_F(ReaderTest, ZeroFilledRangeInsideTheFileIsCorruption) {
  // Zero the second half of chunk 3 and the first half of chunk 4.
  const auto& c3 = chunks()[3];
  const auto& c4 = chunks()[4];
  const size_t from = c3.offset + c3.size / 2;
  const size_t to = c4.offset + c4.size / 2;
  std::string bad = bytes();
  std::fill(bad.begin() + from, bad.begin() + to, '\0');
  ReadResult r = ReadTrace(bad);
  SCOPED_TRACE(Describe(r));
  std::vector<int> want = AllBut(3);
  want.erase(want.begin() + 3);  // chunk 4
  ExpectChunks(r, want);
  ASSERT_EQ(r.reports.size(), 2u);
  EXPECT_FALSE(r.reports[0].truncation);
  EXPECT_EQ(r.reports[0].offset, c3.offset);
  EXPECT_EQ(r.reports[0].bytes, c3.size + c4.size);
  EXPECT_EQ(r.reports[1].reason, "2 chunk(s) missing before sequence 5");
  EXPECT_EQ(r.stats.chunks_missing, 2u);
}

TEST_F(ReaderTest, GarbageTailIsCorruption) {
  ReadResult r = ReadTrace(bytes() + "this is not a chunk at all, just text");
  ExpectChunks(r, AllBut(-1));
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_FALSE(r.reports[0].truncation);
  EXPECT_EQ(r.reports[0].offset, bytes().size());
}

TEST_F(ReaderTest, GarbageBetweenChunksIsSkippedAndReported) {
  const auto& c2 = chunks()[2];
  std::string bad = bytes();
  const std::string junk = std::string(
                               "\xd7"
                               "CH",
                               3) +
                           std::string(500, 'j');
  bad.insert(c2.offset, junk);
  ReadResult r = ReadTrace(bad);
  SCOPED_TRACE(Describe(r));
  ASSERT_EQ(r.chunks.size(), chunks().size());
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_EQ(r.reports[0].offset, c2.offset);
  EXPECT_EQ(r.reports[0].bytes, junk.size());
  EXPECT_EQ(r.chunks[2].offset, c2.offset + junk.size());
  EXPECT_EQ(r.chunks[2].records, c2.records);
}

TEST_F(ReaderTest, DuplicatedChunkIsReportedAndSkipped) {
  for (size_t i = 0; i < chunks().size(); ++i) {
    const auto& c = chunks()[i];
    std::string dup = bytes();
    dup.insert(c.offset + c.size, bytes().substr(c.offset, c.size));
    ReadResult r = ReadTrace(dup);
    SCOPED_TRACE(absl::StrCat("chunk ", i, "\n", Describe(r)));
    ExpectChunks(r, AllBut(-1), /*check_offsets=*/false);
    ASSERT_EQ(r.reports.size(), 1u);
    EXPECT_FALSE(r.reports[0].truncation);
    EXPECT_EQ(r.reports[0].offset, c.offset + c.size);
    EXPECT_EQ(r.reports[0].bytes, c.size);
    EXPECT_EQ(r.stats.chunks_out_of_order, 1u);
  }
}

TEST_F(ReaderTest, SwappedChunksDoNotSplice) {
  const auto& a = chunks()[4];
  const auto& b = chunks()[5];
  std::string bad = bytes().substr(0, a.offset) + bytes().substr(b.offset, b.size) +
                    bytes().substr(a.offset, a.size) + bytes().substr(b.offset + b.size);
  ReadResult r = ReadTrace(bad);
  SCOPED_TRACE(Describe(r));
  // Chunk 5 is returned (after a reported gap), chunk 4 is older than it
  // and is reported and dropped: events never go back in time.
  ASSERT_EQ(r.chunks.size(), chunks().size() - 1);
  EXPECT_EQ(r.chunks[4].sequence, 5u);
  EXPECT_EQ(r.chunks[4].records, b.records);
  EXPECT_EQ(r.chunks[5].sequence, 6u);
  ASSERT_EQ(r.reports.size(), 2u);
  EXPECT_EQ(r.reports[0].reason, "1 chunk(s) missing before sequence 5");
  EXPECT_EQ(r.reports[1].reason, "duplicate or out-of-order chunk: sequence 4 after 5");
  EXPECT_EQ(r.reports[1].offset, a.offset + b.size);
}

TEST_F(ReaderTest, UnknownChunkTypesAndFlagsAreSkipped) {
  std::string t = bytes();
  const auto& end = chunks().back();
  t.resize(end.offset);  // drop the end chunk, append hand-made ones
  const uint64_t seq = end.sequence;
  std::string stored = "opaque";
  t += FrameChunkForTest(0x8001, 0, seq, stored, 6);  // private type
  t += FrameChunkForTest(7, 0, seq + 1, stored, 6);   // future type
  t += FrameChunkForTest(1, kChunkFlagZstd | testing::kUnknownMustUnderstandFlag, seq + 2, stored,
                         6);  // must-understand bit
  // An advisory flag bit is ignored: an uncompressed thread-info chunk.
  RecordEncoder rec;
  rec.Append(ToRecord(ThreadInfo{9, 99, "late", false}));
  t += FrameChunkForTest(3, 0x0100, seq + 3, rec.payload(),
                         static_cast<uint32_t>(rec.payload().size()));
  ReadResult r = ReadTrace(t);
  SCOPED_TRACE(Describe(r));
  // The types are extensions, skipped quietly; the known type with a flag
  // it must understand holds data lost to this reader, which says so.
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_EQ(r.reports[0].offset, end.offset + 2 * (kChunkHeaderSize + 6));
  EXPECT_EQ(r.reports[0].bytes, kChunkHeaderSize + 6);
  EXPECT_EQ(r.reports[0].reason,
            absl::StrCat("events chunk with flags 0x",
                         absl::Hex(kChunkFlagZstd | testing::kUnknownMustUnderstandFlag),
                         " this reader does not know (a newer format version?): skipped"));
  EXPECT_EQ(r.stats.chunks_unknown_skipped, 3u);
  // Counted as a corrupt region as it is reported: its bytes are lost.
  EXPECT_EQ(r.stats.corrupt_regions, 1u);
  EXPECT_EQ(r.stats.corrupt_bytes, kChunkHeaderSize + 6);
  ASSERT_EQ(r.chunks.size(), chunks().size());
  EXPECT_EQ(r.chunks.back().type, ChunkType::kThreadInfo);
  ASSERT_EQ(r.chunks.back().records.size(), 1u);
  EXPECT_EQ(r.chunks.back().records[0],
            "thread_info @0 thread_index=9 tid=99 name=\"late\" ignored=0");
}

TEST_F(ReaderTest, BadZstdFrameWithGoodCrcIsReported) {
  std::string t = bytes();
  const uint64_t seq = chunks().size();
  t += FrameChunkForTest(2, kChunkFlagZstd, seq, "not zstd at all", 100);
  // Two frames in one payload: not allowed, a chunk is one frame.
  ChunkWriter w;
  std::string two;
  ASSERT_TRUE(w.AppendChunk(ChunkType::kDefinitions, "abc", &two).ok());
  ASSERT_TRUE(w.AppendChunk(ChunkType::kDefinitions, "def", &two).ok());
  const std::string f1 = two.substr(kChunkHeaderSize, DecodeFixed32(&two[8]));
  const std::string f2 = two.substr(2 * kChunkHeaderSize + f1.size());
  t += FrameChunkForTest(2, kChunkFlagZstd, seq + 1, f1 + f2, 3);
  // The frame's content size disagrees with the header.
  t += FrameChunkForTest(2, kChunkFlagZstd, seq + 2, f1, 4);
  // A good one afterwards is still read.
  t += FrameChunkForTest(2, kChunkFlagZstd, seq + 3, f1, 3);
  ReadResult r = ReadTrace(t);
  SCOPED_TRACE(Describe(r));
  ASSERT_EQ(r.reports.size(), 3u);
  EXPECT_EQ(r.reports[0].reason, "zstd frame size does not match the chunk header");
  EXPECT_EQ(r.reports[0].offset, bytes().size());
  EXPECT_EQ(r.reports[1].reason, "payload is not exactly one zstd frame");
  EXPECT_EQ(r.reports[2].reason, "zstd frame size does not match the chunk header");
  ASSERT_EQ(r.chunks.size(), chunks().size() + 1);
  EXPECT_EQ(r.chunks.back().sequence, seq + 3);
}

TEST_F(ReaderTest, LengthBeyondTheLimitIsCorruptionNotAnAllocation) {
  std::string chunk = FrameChunkForTest(2, kChunkFlagZstd, chunks().size(), "x", 1);
  // Claim a payload of 1 GiB with a valid header CRC.
  PutFixed32(&chunk[8], 1u << 30);
  PutFixed32(&chunk[24], crc32c::Value(chunk.data(), 24));
  std::string t = bytes() + chunk;
  ReadResult r = ReadTrace(t);
  SCOPED_TRACE(Describe(r));
  ExpectChunks(r, AllBut(-1));
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_FALSE(r.reports[0].truncation);
  EXPECT_EQ(r.reports[0].reason, "chunk length exceeds the format limit");
}

TEST_F(ReaderTest, CorruptionThenTruncationAreBothReported) {
  std::string bad = bytes();
  bad[chunks()[3].offset + 40] ^= 0x10;
  bad.resize(chunks()[5].offset + 20);  // inside chunk 5's header
  ReadResult r = ReadTrace(bad);
  SCOPED_TRACE(Describe(r));
  ExpectChunks(r, {0, 1, 2, 4});
  ASSERT_EQ(r.reports.size(), 3u);
  EXPECT_FALSE(r.reports[0].truncation);
  EXPECT_EQ(r.reports[0].offset, chunks()[3].offset);
  EXPECT_EQ(r.reports[0].bytes, chunks()[3].size);
  EXPECT_EQ(r.reports[1].reason, "1 chunk(s) missing before sequence 4");
  EXPECT_TRUE(r.reports[2].truncation);
  EXPECT_EQ(r.reports[2].offset, chunks()[5].offset);
  EXPECT_EQ(r.reports[2].bytes, 20u);
}

TEST_F(ReaderTest, DamageRunningToTheEndIsCorruption) {
  // The last chunk's payload damaged, nothing after it: not a truncation,
  // since the chunk is whole but wrong.
  std::string bad = bytes();
  bad[bad.size() - 3] ^= 0x01;
  ReadResult r = ReadTrace(bad);
  ExpectChunks(r, FirstN(static_cast<int>(chunks().size()) - 1));
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_FALSE(r.reports[0].truncation);
  EXPECT_EQ(r.reports[0].offset, chunks().back().offset);
  EXPECT_EQ(r.reports[0].reason, "chunk checksum mismatch");
}

class FailingSource : public ByteSource {
 public:
  FailingSource(std::string_view data, size_t fail_at) : data_(data), fail_at_(fail_at) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ >= fail_at_) return absl::DataLossError("EIO");
    n = std::min({n, data_.size() - pos_, fail_at_ - pos_});
    std::memcpy(buf, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string_view data_;
  size_t fail_at_;
  size_t pos_ = 0;
};

TEST_F(ReaderTest, ReadErrorStopsWithTheError) {
  const size_t fail_at = chunks()[4].offset + 10;
  testing::CollectingReporter rep;
  TraceReader reader(std::make_unique<FailingSource>(bytes(), fail_at), &rep);
  ASSERT_TRUE(reader.ReadHeader().ok());
  Chunk c;
  int n = 0;
  while (reader.Next(&c)) ++n;
  EXPECT_EQ(n, 4);
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(reader.status().message(), "EIO");
  EXPECT_FALSE(reader.Next(&c));
  EXPECT_TRUE(rep.reports.empty()) << "an I/O error is neither damage nor a cut";
}

TEST(Reader, NotATraceAndEmptyFile) {
  ReadResult r = ReadTrace("#!/bin/sh\necho hello\n");
  EXPECT_TRUE(IsNotATrace(r.header_status));
  r = ReadTrace("");
  EXPECT_EQ(r.header_status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_FALSE(IsNotATrace(r.header_status));
}

TEST(Reader, NextBeforeTheHeaderIsAnError) {
  const TestTraceWriter w = testing::SmallTrace();
  TraceReader reader(MemorySource(w.bytes()), nullptr);
  Chunk c;
  EXPECT_FALSE(reader.Next(&c));
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(Reader, HeaderOnlyTraceHasNoChunksAndNoReports) {
  ReadResult r = ReadTrace(EncodeFileHeader(testing::SampleHeader()));
  ASSERT_TRUE(r.header_status.ok());
  EXPECT_TRUE(r.chunks.empty());
  EXPECT_TRUE(r.reports.empty());
}

TEST(Reader, OpensAFileByPath) {
  TestTraceWriter w = testing::SmallTrace();
  char path[] = "/tmp/ittc_reader_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, w.bytes().data(), w.bytes().size()), static_cast<ssize_t>(w.bytes().size()));
  close(fd);
  testing::CollectingReporter rep;
  auto reader = TraceReader::Open(path, &rep);
  ASSERT_TRUE(reader.ok()) << reader.status();
  Chunk c;
  size_t n = 0;
  while ((*reader)->Next(&c)) ++n;
  EXPECT_EQ(n, w.chunks().size());
  EXPECT_TRUE(rep.reports.empty());
  unlink(path);
  EXPECT_FALSE(TraceReader::Open("/nonexistent/trace.itt", &rep).ok());
}

TEST(Reader, LargeChunksRoundTrip) {
  FileHeader h = testing::SampleHeader();
  TestTraceWriter w(h);
  testing::Rng rng(1);
  uint64_t t = 0;
  // ~2 MiB of events in one chunk.
  w.AddEvents(0, testing::RealisticMix(rng, 300000, &t));
  ReadResult r = ReadTrace(w.bytes(), 65536);
  ASSERT_EQ(r.chunks.size(), 1u);
  EXPECT_EQ(r.chunks[0].records, w.chunks()[0].records);
  EXPECT_TRUE(r.reports.empty());
}

}  // namespace
}  // namespace ittc::format
