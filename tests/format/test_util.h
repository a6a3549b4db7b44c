// Helpers shared by the format tests, the mutation test, the fuzz target and
// the benchmark: building realistic traces the way the collector writes
// them, and reading a trace end to end into comparable strings.

#ifndef TESTS_FORMAT_TEST_UTIL_H_
#define TESTS_FORMAT_TEST_UTIL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "format/format.h"

namespace ittc {
namespace format {
namespace testing {

// A must-understand chunk flag no version defines yet: a chunk that carries
// it is skipped.
inline constexpr uint16_t kUnknownMustUnderstandFlag = 1u << 4;
static_assert((kUnknownMustUnderstandFlag & kChunkFlagsKnown) == 0 &&
                  (kUnknownMustUnderstandFlag & kChunkFlagsMustUnderstand) != 0,
              "pick the next bit when a version defines this one");

using Rng = std::mt19937_64;

// Fills every field of `kind` with random values that exercise the
// encodings (zero, small, large, extreme values; empty, short and long
// bytes; times before and after `time`). Bytes live in *storage.
Event RandomEvent(Rng& rng, EventKind kind, uint64_t time, std::deque<std::string>* storage);

// A harder mix of one thread: nested task begin/end pairs with randomly
// chosen names and durations spread over three orders of magnitude
// (lognormal), with counters, markers, frames and metadata.
// `time` advances like a 3 GHz TSC.
// Bytes fields point at static data.
std::vector<Event> RealisticMix(Rng& rng, size_t n, uint64_t* time);

// task_begin/task_end only, as a loop program produces them: a fixed
// sequence of named tasks per iteration, each name with its own duration
// varying ~10% per instance. The "typical program" of the 2-byte goal.
// May end with tasks open (the stream is cut at n events).
std::vector<Event> TaskPairs(Rng& rng, size_t n, uint64_t* time);

// Writes a trace the way the collector does, remembering where each chunk
// went and what it held.
class TestTraceWriter {
 public:
  struct ChunkInfo {
    uint64_t offset = 0;
    uint64_t size = 0;
    ChunkType type = ChunkType::kEvents;
    uint64_t sequence = 0;
    std::vector<std::string> records;  // DebugString of each record/event
  };

  explicit TestTraceWriter(const FileHeader& header, int zstd_level = 1);

  void AddEvents(uint32_t thread_index, const std::vector<Event>& events);
  void AddRecords(ChunkType type, const std::vector<Event>& records);
  // Appends raw bytes (a hand-made chunk) that is not counted as a chunk.
  void AddRaw(std::string_view bytes) { bytes_.append(bytes); }

  const std::string& bytes() const { return bytes_; }
  const std::vector<ChunkInfo>& chunks() const { return chunks_; }
  size_t header_size() const { return header_size_; }

 private:
  std::string bytes_;
  size_t header_size_ = 0;
  std::unique_ptr<ChunkWriter> writer_;
  std::vector<ChunkInfo> chunks_;
};

FileHeader SampleHeader();

// A small complete trace: definitions, thread info, clock sync, events of
// two threads in several chunks, loss and end. Deterministic.
TestTraceWriter SmallTrace();

struct Report {
  bool truncation = false;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::string reason;
};

class CollectingReporter : public Reporter {
 public:
  void Corruption(uint64_t offset, uint64_t bytes, std::string_view reason) override;
  void Truncation(uint64_t offset, uint64_t bytes, std::string_view reason) override;
  std::vector<Report> reports;
};

struct ReadChunk {
  uint64_t offset = 0;
  uint64_t stored_size = 0;
  ChunkType type = ChunkType::kEvents;
  uint64_t sequence = 0;
  std::vector<std::string> records;
  std::string decode_error;  // empty if the payload decoded cleanly
};

struct ReadResult {
  absl::Status header_status;
  FileHeader header;
  std::vector<ReadChunk> chunks;
  std::vector<Report> reports;
  ReaderStats stats;
  absl::Status status;
  uint64_t events = 0;
};

// Reads `bytes` with TraceReader and decodes every payload. `max_read`
// limits how many bytes each source read returns (0: no limit), to test
// chunks split across reads.
ReadResult ReadTrace(std::string_view bytes, size_t max_read = 0);

}  // namespace testing
}  // namespace format
}  // namespace ittc

#endif  // TESTS_FORMAT_TEST_UTIL_H_
