// A parallel TraceReader shows its consumer exactly what the serial one
// does: the same chunks (type, flags, sequence, offset, size, payload
// bytes), the same Reporter calls in the same order relative to the
// chunks, the same stats() and status, on a multi-thread trace damaged in
// every way trace_reader_test damages the small one, for 1, 2, 4 and 8
// workers and several bounds on the chunks in flight, with and without
// ReadAhead calls, from a source read in turn and from one the workers
// read ahead at offsets.

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/chunk_writer.h"
#include "format/coding.h"
#include "format/crc32c.h"
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

struct Config {
  int workers;
  int max_in_flight;  // 0: the default
};

// 1, 2, 4 and 8 workers with the default bound, plus the tightest bound
// (one chunk: no read-ahead at all) and a small one.
const Config kConfigs[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {2, 1}, {8, 2}};

class ParallelReaderTest : public ::testing::Test {
 protected:
  ParallelReaderTest() : trace_(testing::MultiThreadTrace(4, 5, 700)) {}

  const std::string& bytes() const { return trace_.bytes(); }
  const std::vector<TestTraceWriter::ChunkInfo>& chunks() const { return trace_.chunks(); }

  // Reads `t` serially and with every Config, and expects the same
  // transcript each time. Returns the serial one.
  Transcript ExpectSameAsSerial(const std::string& t, ReadPlan plan = ReadPlan()) {
    plan.options = ReaderOptions();
    const Transcript serial = ReadTranscript(t, plan);
    for (const Config& c : kConfigs) {
      for (const bool read_ahead : {false, true}) {
        // A positional source is read on the workers (reads whole: only
        // where the serial reader's are too).
        for (const bool positional : {false, true}) {
          if (positional && plan.max_read != 0) continue;
          plan.options.workers = c.workers;
          plan.options.max_in_flight = c.max_in_flight;
          plan.read_ahead = read_ahead;
          plan.positional = positional;
          SCOPED_TRACE(absl::StrCat(c.workers, " workers, max_in_flight ", c.max_in_flight,
                                    read_ahead ? ", read ahead" : "",
                                    positional ? ", positional" : ""));
          ExpectSame(ReadTranscript(t, plan), serial);
        }
      }
    }
    return serial;
  }

  static void ExpectSame(const Transcript& par, const Transcript& serial) {
    EXPECT_EQ(par.header_status, serial.header_status);
    EXPECT_EQ(par.log, serial.log);
    EXPECT_EQ(par.stats.chunks_read, serial.stats.chunks_read);
    EXPECT_EQ(par.stats.chunks_unknown_skipped, serial.stats.chunks_unknown_skipped);
    EXPECT_EQ(par.stats.chunks_out_of_order, serial.stats.chunks_out_of_order);
    EXPECT_EQ(par.stats.chunks_missing, serial.stats.chunks_missing);
    EXPECT_EQ(par.stats.corrupt_regions, serial.stats.corrupt_regions);
    EXPECT_EQ(par.stats.corrupt_bytes, serial.stats.corrupt_bytes);
    EXPECT_EQ(par.stats.truncated_bytes, serial.stats.truncated_bytes);
    EXPECT_EQ(par.stats.truncated, serial.stats.truncated);
    EXPECT_EQ(par.stats.bytes_read, serial.stats.bytes_read);
    EXPECT_EQ(par.status, serial.status);
  }

  // A plan for damage that fails a chunk's CRC.
  static ReadPlan CrcDamage() {
    ReadPlan p;
    p.log_bytes_read = false;
    return p;
  }

  size_t ChunkCount(const Transcript& t) const {
    size_t n = 0;
    for (const std::string& line : t.log) n += line.rfind("chunk ", 0) == 0;
    return n;
  }

  TestTraceWriter trace_;
};

TEST_F(ParallelReaderTest, CleanTraceIsReadTheSame) {
  ASSERT_GE(chunks().size(), 20u);
  const Transcript t = ExpectSameAsSerial(bytes());
  EXPECT_EQ(ChunkCount(t), chunks().size());
  EXPECT_EQ(t.log.size(), chunks().size()) << "no reports";
}

TEST_F(ParallelReaderTest, SmallReadsAreReadTheSame) {
  for (size_t max_read : {size_t{1000}, size_t{4096}, size_t{100000}}) {
    SCOPED_TRACE(max_read);
    ReadPlan plan;
    plan.max_read = max_read;
    ExpectSameAsSerial(bytes(), plan);
  }
}

TEST_F(ParallelReaderTest, FlippedBytesAreReadTheSame) {
  // In every chunk: the sync marker, the header fields, both CRCs, the
  // payload's start, middle and end.
  for (size_t i = 0; i < chunks().size(); ++i) {
    const auto& c = chunks()[i];
    for (uint64_t at : {uint64_t{0}, uint64_t{5}, uint64_t{9}, uint64_t{18}, uint64_t{25},
                        uint64_t{30}, uint64_t{33}, c.size / 2, c.size - 1}) {
      std::string bad = bytes();
      bad[c.offset + at] ^= 0x21;
      SCOPED_TRACE(absl::StrCat("chunk ", i, " byte ", at));
      const Transcript t = ExpectSameAsSerial(bad, CrcDamage());
      EXPECT_EQ(ChunkCount(t), chunks().size() - 1);
      if (HasFailure()) return;
    }
  }
}

TEST_F(ParallelReaderTest, SeveralDamagedChunksInFlightAreReadTheSame) {
  // Payload flips in neighbouring chunks, and in every third chunk: the
  // rescans after each cancel work already handed out.
  for (size_t stride : {size_t{1}, size_t{3}}) {
    std::string bad = bytes();
    for (size_t i = 2; i < chunks().size(); i += stride) {
      if (i % 4 == 3) continue;
      bad[chunks()[i].offset + chunks()[i].size / 3] ^= 0x08;
    }
    SCOPED_TRACE(stride);
    ExpectSameAsSerial(bad, CrcDamage());
  }
}

TEST_F(ParallelReaderTest, RescansAcrossReadBlocksAreReadTheSame) {
  // A trace of many 256 KiB read blocks, damaged in chunks spread over it:
  // a rescan goes back to bytes the reader read into an earlier block
  // than the one it reads into now (Window's history in trace_reader.cc).
  const TestTraceWriter big = testing::MultiThreadTrace(2, 10, 40000);
  ASSERT_GT(big.bytes().size(), size_t{4} << 18);
  for (size_t stride : {size_t{7}, size_t{23}}) {
    std::string bad = big.bytes();
    size_t flipped = 0;
    for (size_t i = 3; i < big.chunks().size(); i += stride) {
      bad[big.chunks()[i].offset + big.chunks()[i].size / 2] ^= 0x10;
      ++flipped;
    }
    SCOPED_TRACE(stride);
    const Transcript t = ExpectSameAsSerial(bad, CrcDamage());
    EXPECT_EQ(ChunkCount(t), big.chunks().size() - flipped);
  }
}

TEST_F(ParallelReaderTest, ChunksLargerThanAReadAreReadTheSame) {
  // Small chunks, then chunks larger than the 256 KiB a read asks for and
  // than a read ahead's 1 MiB: the reads grow, and the bytes a read ahead
  // left room for before its own outgrow that room (Window::TakeRead's
  // copy), undamaged and with a chunk's CRC failing.
  TestTraceWriter mixed = testing::MultiThreadTrace(2, 2, 500);
  const TestTraceWriter big = testing::MultiThreadTrace(1, 3, 400000);
  size_t largest = 0;
  for (const auto& c : big.chunks()) largest = std::max<size_t>(largest, c.size);
  ASSERT_GT(largest, size_t{1} << 20);
  std::string t = mixed.bytes();
  const size_t header = big.chunks().front().offset;
  t.append(big.bytes(), header, std::string::npos);  // its chunks after the small ones
  ExpectSameAsSerial(t);
  std::string bad = t;
  bad[t.size() - big.chunks().back().size / 2] ^= 0x08;
  ExpectSameAsSerial(bad, CrcDamage());
}

TEST_F(ParallelReaderTest, ChunkInsideADamagedChunkIsFoundByTheRescan) {
  // An uncompressed chunk whose payload is a whole valid chunk, and whose
  // CRC is then broken: the serial reader skips one byte and finds the
  // inner chunk; so must the parallel one, whose scan had jumped past it.
  const auto& last = chunks().back();
  std::string t = bytes().substr(0, last.offset);
  const std::string inner = bytes().substr(last.offset, last.size);  // the end chunk
  std::string outer =
      FrameChunkForTest(2, 0, last.sequence, inner, static_cast<uint32_t>(inner.size()));
  outer[28] ^= 0x01;  // the outer chunk CRC
  t += outer;
  t += FrameChunkForTest(2, 0, last.sequence + 1, "x", 1);
  const Transcript r = ExpectSameAsSerial(t, CrcDamage());
  ASSERT_GE(r.log.size(), 3u);
  EXPECT_EQ(r.log[r.log.size() - 3], absl::StrCat("corruption @", last.offset, " +",
                                                  kChunkHeaderSize, " chunk checksum mismatch"));
  EXPECT_NE(r.log[r.log.size() - 2].find(absl::StrCat("type=6 flags=1 seq=", last.sequence, " @",
                                                      last.offset + kChunkHeaderSize)),
            std::string::npos)
      << r.log[r.log.size() - 2];
}

TEST_F(ParallelReaderTest, TruncationsAreReadTheSame) {
  for (size_t i = 0; i < chunks().size(); ++i) {
    const auto& c = chunks()[i];
    for (uint64_t len : {c.offset, c.offset + 1, c.offset + 31, c.offset + 32,
                         c.offset + c.size / 2, c.offset + c.size - 1}) {
      SCOPED_TRACE(absl::StrCat("cut at ", len));
      ExpectSameAsSerial(bytes().substr(0, len));
      if (HasFailure()) return;
    }
  }
}

TEST_F(ParallelReaderTest, ZeroedAndGarbageRegionsAreReadTheSame) {
  const auto& c3 = chunks()[3];
  const auto& c7 = chunks()[7];
  std::string zeroed = bytes();
  std::fill(zeroed.begin() + static_cast<ptrdiff_t>(c3.offset + c3.size / 2),
            zeroed.begin() + static_cast<ptrdiff_t>(c7.offset + 40), '\0');
  ExpectSameAsSerial(zeroed, CrcDamage());
  ExpectSameAsSerial(bytes() + std::string(4096, '\0'));
  ExpectSameAsSerial(bytes() + std::string(300000, '\0'));
  ExpectSameAsSerial(bytes() + "this is not a chunk at all, just text");
  std::string junk = bytes();
  junk.insert(c7.offset, std::string("\xd7"
                                     "CH",
                                     3) +
                             std::string(500, 'j'));
  ExpectSameAsSerial(junk);
}

TEST_F(ParallelReaderTest, DuplicatedAndSwappedChunksAreReadTheSame) {
  for (size_t i : {size_t{0}, size_t{4}, chunks().size() - 1}) {
    const auto& c = chunks()[i];
    std::string dup = bytes();
    dup.insert(c.offset + c.size, bytes().substr(c.offset, c.size));
    SCOPED_TRACE(absl::StrCat("duplicate chunk ", i));
    const Transcript t = ExpectSameAsSerial(dup);
    EXPECT_EQ(t.stats.chunks_out_of_order, 1u);
  }
  const auto& a = chunks()[5];
  const auto& b = chunks()[6];
  const std::string swapped = bytes().substr(0, a.offset) + bytes().substr(b.offset, b.size) +
                              bytes().substr(a.offset, a.size) + bytes().substr(b.offset + b.size);
  ExpectSameAsSerial(swapped);
}

TEST_F(ParallelReaderTest, UnknownAndUndecodableChunksAreReadTheSame) {
  std::string t = bytes();
  const uint64_t seq = chunks().size();
  t += FrameChunkForTest(0x8001, 0, seq, "opaque", 6);
  t += FrameChunkForTest(1, kChunkFlagZstd | testing::kUnknownMustUnderstandFlag, seq + 1, "opaque",
                         6);
  t += FrameChunkForTest(2, kChunkFlagZstd, seq + 2, "not zstd at all", 100);
  t += FrameChunkForTest(2, 0, seq + 3, "short", 9);
  ChunkWriter w;
  std::string framed;
  ASSERT_TRUE(w.AppendChunk(ChunkType::kDefinitions, "abc", &framed).ok());
  const std::string frame = framed.substr(kChunkHeaderSize);
  t += FrameChunkForTest(2, kChunkFlagZstd, seq + 4, frame + frame, 3);
  t += FrameChunkForTest(2, kChunkFlagZstd, seq + 5, frame, 4);
  t += FrameChunkForTest(2, kChunkFlagZstd, seq + 6, frame, 3);
  std::string too_long = FrameChunkForTest(2, kChunkFlagZstd, seq + 7, "x", 1);
  PutFixed32(&too_long[8], 1u << 30);
  PutFixed32(&too_long[24], crc32c::Value(too_long.data(), 24));
  t += too_long;
  const Transcript r = ExpectSameAsSerial(t);
  EXPECT_EQ(r.stats.chunks_unknown_skipped, 2u);
  // The five undecodable chunks, and the events chunk with a flag it must
  // understand (its data lost; the private type is skipped quietly).
  EXPECT_EQ(r.stats.corrupt_regions, 6u);
}

TEST_F(ParallelReaderTest, ReadErrorsAreReadTheSame) {
  for (size_t i : {size_t{0}, size_t{3}, size_t{10}, chunks().size() - 1}) {
    const auto& c = chunks()[i];
    for (uint64_t at : {c.offset, c.offset + 10, c.offset + c.size - 1}) {
      for (size_t max_read : {size_t{0}, size_t{3000}}) {
        ReadPlan plan;
        plan.fail_at = at;
        plan.max_read = max_read;
        SCOPED_TRACE(absl::StrCat("fail at ", at, " reads of ", max_read));
        const Transcript t = ExpectSameAsSerial(bytes(), plan);
        EXPECT_EQ(t.status.code(), absl::StatusCode::kDataLoss);
        if (HasFailure()) return;
      }
    }
  }
  // A read error after a chunk whose CRC fails: the rescan must meet it at
  // the same point.
  std::string bad = bytes();
  bad[chunks()[8].offset + 100] ^= 0x04;
  ReadPlan plan = CrcDamage();
  plan.fail_at = chunks()[12].offset + 7;
  plan.max_read = 5000;
  const Transcript t = ExpectSameAsSerial(bad, plan);
  EXPECT_EQ(t.status.code(), absl::StatusCode::kDataLoss);
}

TEST(ParallelReader, HeaderErrorsAreTheSame) {
  const TestTraceWriter w = testing::MultiThreadTrace(2, 2, 100);
  for (size_t len : {size_t{0}, size_t{10}, w.header_size() - 1}) {
    ReadPlan plan;
    const Transcript serial = ReadTranscript(w.bytes().substr(0, len), plan);
    plan.options = ReaderOptions::Parallel();
    const Transcript par = ReadTranscript(w.bytes().substr(0, len), plan);
    EXPECT_FALSE(serial.header_status.ok());
    EXPECT_EQ(par.header_status, serial.header_status);
  }
}

TEST(ParallelReader, ParallelOptionsUseEveryOnlineCpu) {
  EXPECT_GE(OnlineCpus(), 1);
  EXPECT_EQ(ReaderOptions::Parallel().workers, OnlineCpus());
  EXPECT_EQ(ReaderOptions().workers, 0) << "the serial reader stays the default";
}

// Chunks as the consumer sees them: sequence, type, payload.
std::vector<std::string> ChunksOf(TraceReader* reader, size_t max_chunks = SIZE_MAX) {
  std::vector<std::string> out;
  Chunk c;
  while (out.size() < max_chunks && reader->Next(&c)) {
    out.push_back(absl::StrCat(c.sequence, " ", static_cast<int>(c.type), " ") +
                  std::string(c.payload));
  }
  return out;
}

// Readers that share a pool read what each reads alone, taking turns chunk
// by chunk, damage included, two of them (one damaged) read ahead before
// the first; one destroyed with work in flight, and one read ahead and
// destroyed before any chunk, leave the others reading.
TEST(ReaderPool, SharedThreadsReadWhatEachReaderReadsAlone) {
  std::vector<std::string> traces;
  for (int i = 0; i < 4; ++i) {
    std::string bytes(testing::MultiThreadTrace(2 + i, 6, 200).bytes());
    if (i % 2 == 1) bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
    traces.push_back(std::move(bytes));
  }
  std::vector<std::vector<std::string>> alone;
  for (const std::string& t : traces) {
    TraceReader r(MemorySource(t), nullptr);
    ASSERT_TRUE(r.ReadHeader().ok());
    alone.push_back(ChunksOf(&r));
  }
  ReaderPool pool(2);
  ReaderOptions options;
  options.pool = &pool;
  options.max_in_flight = 3;
  std::vector<std::unique_ptr<TraceReader>> readers;
  for (const std::string& t : traces) {
    readers.push_back(std::make_unique<TraceReader>(MemorySource(t), nullptr, options));
    ASSERT_TRUE(readers.back()->ReadHeader().ok());
    if (readers.size() <= 2) readers.back()->ReadAhead();
  }
  {
    TraceReader dropped(MemorySource(traces[1]), nullptr, options);
    ASSERT_TRUE(dropped.ReadHeader().ok());
    dropped.ReadAhead();  // its chunks the pool's when it goes
  }
  std::vector<std::vector<std::string>> shared(traces.size());
  bool more = true;
  for (size_t round = 0; more; ++round) {
    more = false;
    for (size_t i = 0; i < readers.size(); ++i) {
      if (readers[i] == nullptr) continue;
      if (i == 2 && round == 3) {
        readers[i].reset();  // its chunks in flight are the pool's still
        continue;
      }
      const std::vector<std::string> next = ChunksOf(readers[i].get(), 1);
      if (next.empty()) continue;
      shared[i].push_back(next[0]);
      more = true;
    }
  }
  for (size_t i = 0; i < traces.size(); ++i) {
    if (i == 2) {
      ASSERT_EQ(shared[i].size(), 3u);
      EXPECT_TRUE(std::equal(shared[i].begin(), shared[i].end(), alone[i].begin()));
      continue;
    }
    EXPECT_EQ(shared[i], alone[i]) << i;
  }
}

// A task that records the thread it ran on, and optionally blocks its
// worker until released.
class RecordingTask : public PoolTask {
 public:
  explicit RecordingTask(bool block = false) : block_(block) {}
  void Run() override {
    std::unique_lock<std::mutex> lock(mu_);
    ran_on_ = std::this_thread::get_id();
    started_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return !block_; });
  }
  void WaitStarted() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return started_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    block_ = false;
    cv_.notify_all();
  }
  std::thread::id ran_on() {
    std::lock_guard<std::mutex> lock(mu_);
    return ran_on_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool block_;
  bool started_ = false;
  std::thread::id ran_on_;
};

// RunOrWait runs a task no worker has started on the calling thread (the
// pool's one worker is held by another), and waits for one a worker runs.
TEST(ReaderPool, RunOrWaitRunsAQueuedTaskOnTheCaller) {
  ReaderPool pool(1);
  RecordingTask blocker(/*block=*/true);
  pool.Submit(&blocker);
  blocker.WaitStarted();  // the worker is now held
  RecordingTask queued;
  pool.Submit(&queued);
  pool.RunOrWait(&queued);
  EXPECT_TRUE(pool.Done(&queued));
  EXPECT_EQ(queued.ran_on(), std::this_thread::get_id());

  std::thread release([&blocker] { blocker.Release(); });
  pool.RunOrWait(&blocker);  // running on the worker: waited for
  release.join();
  EXPECT_TRUE(pool.Done(&blocker));
  EXPECT_NE(blocker.ran_on(), std::this_thread::get_id());
}

}  // namespace
}  // namespace format
}  // namespace ittc
