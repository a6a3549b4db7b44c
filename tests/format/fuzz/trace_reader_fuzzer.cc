// libFuzzer target for everything that reads untrusted bytes: the trace
// reader (header, framing, resynchronisation, decompression) and the event
// and record decoders. Built and run by run_fuzz.sh with clang.
//
// An input that starts with the file magic is read as a trace file and
// every chunk is decoded; it is read again by a parallel reader, which
// must show exactly what the serial one showed. Any other input is fed
// straight to the payload decoders, which the chunk CRC would otherwise
// shield from mutations.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "format/format.h"

namespace {

using namespace ittc::format;

// Everything a reader shows its consumer, in order, as one string.
class TranscriptReporter : public Reporter {
 public:
  void Corruption(uint64_t offset, uint64_t bytes, std::string_view reason) override {
    Add('C', offset, bytes, reason);
  }
  void Truncation(uint64_t offset, uint64_t bytes, std::string_view reason) override {
    Add('T', offset, bytes, reason);
  }
  void AddChunk(const Chunk& c) {
    Add('K', c.offset, c.stored_size, c.payload);
    Add('k', c.sequence, static_cast<uint64_t>(c.type) << 16 | c.flags, std::string_view());
  }
  const std::string& transcript() const { return transcript_; }

 private:
  void Add(char what, uint64_t a, uint64_t b, std::string_view text) {
    transcript_ += what;
    transcript_.append(reinterpret_cast<const char*>(&a), sizeof a);
    transcript_.append(reinterpret_cast<const char*>(&b), sizeof b);
    const uint64_t n = text.size();
    transcript_.append(reinterpret_cast<const char*>(&n), sizeof n);
    transcript_.append(text);
  }
  std::string transcript_;
};

void DecodeEvents(std::string_view payload, uint16_t chunk_flags) {
  EventStreamDecoder dec;
  Event e;
  if (!dec.Reset(payload, chunk_flags).ok()) return;
  uint64_t n = 0;
  while (dec.Next(&e)) {
    // Touch every byte of every view: ASan checks they lie in the payload.
    // Only kBytes fields hold a view (FieldValue's members share storage).
    const KindSchema* s = FindSchema(e.kind);
    for (int i = 0; s != nullptr && i < e.field_count; ++i) {
      if (s->fields[i].type != FieldType::kBytes) continue;
      for (char c : e.fields[i].bytes) n += static_cast<unsigned char>(c);
    }
    n += DebugString(e).size();
  }
  if (n == 1) __builtin_trap();  // keeps n alive; never true in practice
}

void DecodeRecords(std::string_view payload) {
  RecordDecoder dec;
  dec.Reset(payload);
  Event e;
  while (dec.Next(&e)) {
    ThreadInfo ti;
    LossRecord lr;
    if (FromRecord(e, &ti)) (void)ti.name.size();
    if (FromRecord(e, &lr)) (void)lr.count;
    (void)DebugString(e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (size >= sizeof kFileMagic && std::memcmp(data, kFileMagic, sizeof kFileMagic) == 0) {
    TranscriptReporter serial;
    TraceReader reader(MemorySource(input), &serial);
    if (!reader.ReadHeader().ok()) return 0;
    Chunk chunk;
    while (reader.Next(&chunk)) {
      if (chunk.offset + chunk.stored_size > size) __builtin_trap();
      serial.AddChunk(chunk);
      if (chunk.type == ChunkType::kEvents) {
        DecodeEvents(chunk.payload, chunk.flags);
      } else {
        DecodeRecords(chunk.payload);
      }
    }
    if (reader.stats().bytes_read != size) __builtin_trap();

    TranscriptReporter parallel;
    ReaderOptions options;
    options.workers = 2;
    options.max_in_flight = 3;
    TraceReader preader(MemorySource(input), &parallel, options);
    if (!preader.ReadHeader().ok()) __builtin_trap();
    while (preader.Next(&chunk)) parallel.AddChunk(chunk);
    if (parallel.transcript() != serial.transcript()) __builtin_trap();
    const ReaderStats& a = reader.stats();
    const ReaderStats& b = preader.stats();
    if (a.chunks_read != b.chunks_read || a.corrupt_regions != b.corrupt_regions ||
        a.corrupt_bytes != b.corrupt_bytes || a.truncated_bytes != b.truncated_bytes ||
        a.chunks_missing != b.chunks_missing || a.chunks_out_of_order != b.chunks_out_of_order ||
        a.chunks_unknown_skipped != b.chunks_unknown_skipped || a.bytes_read != b.bytes_read) {
      __builtin_trap();
    }
    return 0;
  }
  DecodeEvents(input, 0);
  DecodeEvents(input, kChunkFlagDeltaFields);
  DecodeEvents(input, kChunkFlagDeltaFields | kChunkFlagDeltaAddresses);
  DecodeEvents(input, kChunkFlagDeltaFields | kChunkFlagDeltaAddresses | kChunkFlagDeltaTimes);
  DecodeRecords(input);
  FileHeader h;
  size_t header_size;
  (void)DecodeFileHeader(input, &h, &header_size);
  return 0;
}
