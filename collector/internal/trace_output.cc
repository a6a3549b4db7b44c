#include "collector/internal/trace_output.h"

#include "format/chunk.h"
#include "format/chunk_writer.h"
#include "format/coding.h"

namespace ittc::collector_internal {

bool TraceOutput::WriteHeader(std::string_view header) {
  std::lock_guard<std::mutex> lock(mu_);
  if (flight_ != nullptr) {
    flight_->SetHeader(header);
    return true;
  }
  if (file_->Write(header.data(), header.size())) return true;
  failed_.store(true, std::memory_order_relaxed);
  return false;
}

bool TraceOutput::Commit(std::string* chunks, const ChunkNotes& notes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_.load(std::memory_order_relaxed)) return false;
  uint64_t sequence = next_sequence_.load(std::memory_order_relaxed);
  for (size_t at = 0; at + format::kChunkHeaderSize <= chunks->size();) {
    char* header = &(*chunks)[at];
    // One flusher frames its chunks with the numbers they get anyway.
    if (format::DecodeFixed64(header + 16) != sequence) format::SetChunkSequence(header, sequence);
    ++sequence;
    at += format::kChunkHeaderSize + format::DecodeFixed32(header + 8);
  }
  // A chunk that fails to reach the file has still used its number: the
  // loss shows as a gap (FORMAT.md, section 4).
  next_sequence_.store(sequence, std::memory_order_relaxed);
  if (flight_ != nullptr) {
    flight_->Add(*chunks, notes);
    return true;
  }
  if (chunks->empty() || file_->Write(chunks->data(), chunks->size())) return true;
  failed_.store(true, std::memory_order_relaxed);
  return false;
}

void TraceOutput::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (file_ != nullptr) file_->Close();
}

}  // namespace ittc::collector_internal
