// The trace file as the flusher threads share it: the file header once,
// then batches of whole chunks, each batch written in one piece and every
// chunk numbered in the order it reaches the file.
//
// A flusher frames its chunks (format::ChunkWriter) before it knows where
// they will land among the other flushers' chunks; Commit gives each the
// next sequence number (format::SetChunkSequence, which rewrites only the
// 32-byte header) and writes the batch, both under one lock, so the file's
// sequence numbers rise by one from chunk to chunk whatever the number of
// flushers (FORMAT.md, section 4: a reader drops a chunk whose number is
// not above the last one's).
//
// In flight recorder mode (ITTC_FLIGHT_MB) the destination is a
// FlightStore instead of a file: Commit hands it the numbered batch with
// its ChunkNotes, and the store keeps what it can (flight_store.h); the
// file header goes to it too, and nothing is written until a dump.
//
// Thread safety: Commit may be called from any thread; calls are
// serialised by mu_, which guards every field below it. WriteHeader and
// Close are called with no Commit running (before the flushers start,
// after they stopped). chunks_committed() and failed() read atomics.

#ifndef COLLECTOR_INTERNAL_TRACE_OUTPUT_H_
#define COLLECTOR_INTERNAL_TRACE_OUTPUT_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "collector/internal/flight_store.h"
#include "collector/internal/output_file.h"

namespace ittc::collector_internal {

class TraceOutput {
 public:
  // Writes to `file`, which must be open, or in flight recorder mode keeps
  // the chunks in `flight`: one of the two is null, and the other must
  // outlive this object.
  TraceOutput(OutputFile* file, FlightStore* flight) : file_(file), flight_(flight) {}
  TraceOutput(const TraceOutput&) = delete;
  TraceOutput& operator=(const TraceOutput&) = delete;

  // Writes the encoded file header (format::EncodeFileHeader). REQUIRES:
  // called once, before any Commit.
  bool WriteHeader(std::string_view header);

  // Numbers the whole framed chunks in *chunks in order, after every chunk
  // committed before (their headers are rewritten in place), and appends
  // them to the file in one write (in flight mode: hands them and `notes`,
  // which describe them, to the store). False if the file could not be written,
  // then and for every later call: collection must stop (the caller says
  // so; the file keeps what was written whole before). REQUIRES: *chunks
  // holds only whole chunks framed by format::ChunkWriter. Cost: one lock,
  // then per chunk two CRCs of 28 bytes and crc32c::Combine (about a
  // microsecond, whatever the chunk's size), then the write.
  bool Commit(std::string* chunks, const ChunkNotes& notes);

  // Chunks numbered so far: the sequence number the next one gets. Exact
  // when no Commit runs (the end record's chunk count is taken then).
  uint64_t chunks_committed() const { return next_sequence_.load(std::memory_order_relaxed); }

  bool failed() const { return failed_.load(std::memory_order_relaxed); }

  void Close();

  // In a fork child: forgets the file without touching it.
  void AbandonInChild() {
    if (file_ != nullptr) file_->AbandonInChild();
  }

 private:
  OutputFile* const file_;  // one of these two
  FlightStore* const flight_;
  std::mutex mu_;
  // Written under mu_; relaxed loads outside it are counts for reports.
  std::atomic<uint64_t> next_sequence_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_TRACE_OUTPUT_H_
