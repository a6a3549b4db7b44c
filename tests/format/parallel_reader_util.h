// What the parallel-reader tests compare: everything a TraceReader shows
// its one consumer (each chunk's fields and payload bytes, each Reporter
// call, stats() after every Next, the final status), in the order shown.

#ifndef TESTS_FORMAT_PARALLEL_READER_UTIL_H_
#define TESTS_FORMAT_PARALLEL_READER_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "format/trace_reader.h"
#include "tests/format/test_util.h"

namespace ittc {
namespace format {
namespace testing {

struct Transcript {
  absl::Status header_status;
  // One entry per chunk returned or report made, in the order they came.
  std::vector<std::string> log;
  ReaderStats stats;  // at the end
  absl::Status status;
};

struct ReadPlan {
  ReaderOptions options;
  size_t max_read = 0;            // bytes per source read; 0: no limit
  uint64_t fail_at = UINT64_MAX;  // reads at or past this offset fail (EIO)
  // Log bytes_read after every chunk too. Only without a chunk whose CRC
  // fails: after one, a parallel reader may have read further (see
  // TraceReader::stats()).
  bool log_bytes_read = true;
  // Stop after this many chunks (destroying the reader with work in flight).
  size_t max_chunks = SIZE_MAX;
  // Call ReadAhead() after the header and after every chunk.
  bool read_ahead = false;
  // The source reads at offsets too (ByteSource::ReadAt), as a regular
  // file does: a parallel reader reads ahead with it on its workers. Its
  // reads are whole (max_read does not apply), as a regular file's are.
  bool positional = false;
};

Transcript ReadTranscript(std::string_view bytes, const ReadPlan& plan);

// A multi-thread trace: definitions, thread info and clock sync, then the
// event chunks of `threads` threads interleaved, `chunks_per_thread` each,
// with a loss chunk and an end chunk.
TestTraceWriter MultiThreadTrace(int threads, int chunks_per_thread, size_t events_per_chunk);

}  // namespace testing
}  // namespace format
}  // namespace ittc

#endif  // TESTS_FORMAT_PARALLEL_READER_UTIL_H_
