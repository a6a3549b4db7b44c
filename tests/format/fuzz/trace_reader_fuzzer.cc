// libFuzzer target for everything that reads untrusted bytes: the trace
// reader (header, framing, resynchronisation, decompression) and the event
// and record decoders. Built and run by run_fuzz.sh with clang.
//
// An input that starts with the file magic is read as a trace file and
// every chunk is decoded. Any other input is fed straight to the payload
// decoders, which the chunk CRC would otherwise shield from mutations.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "format/format.h"

namespace {

using namespace ittc::format;

class NullReporter : public Reporter {
 public:
  void Corruption(uint64_t offset, uint64_t bytes, std::string_view) override {
    last_ = offset + bytes;
  }
  void Truncation(uint64_t offset, uint64_t bytes, std::string_view) override {
    last_ = offset + bytes;
  }
  uint64_t last_ = 0;
};

void DecodeEvents(std::string_view payload) {
  EventStreamDecoder dec;
  Event e;
  if (!dec.Reset(payload).ok()) return;
  uint64_t n = 0;
  while (dec.Next(&e)) {
    // Touch every byte of every view: ASan checks they lie in the payload.
    for (int i = 0; i < e.field_count; ++i) {
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
    NullReporter reporter;
    TraceReader reader(MemorySource(input), &reporter);
    if (!reader.ReadHeader().ok()) return 0;
    Chunk chunk;
    while (reader.Next(&chunk)) {
      if (chunk.offset + chunk.stored_size > size) __builtin_trap();
      if (chunk.type == ChunkType::kEvents) {
        DecodeEvents(chunk.payload);
      } else {
        DecodeRecords(chunk.payload);
      }
    }
    if (reader.stats().bytes_read != size) __builtin_trap();
    return 0;
  }
  DecodeEvents(input);
  DecodeRecords(input);
  FileHeader h;
  size_t header_size;
  (void)DecodeFileHeader(input, &h, &header_size);
  return 0;
}
