// Writes the fuzz seed corpus: real traces as the collector writes them
// (clean, cut, with unknown chunks) and bare payloads for the decoders.
//   bazel run //tests/format/fuzz:make_seed_corpus -- $PWD/tests/format/fuzz/corpus

#include <cstdio>
#include <deque>
#include <string>

#include "format/format.h"
#include "tests/format/test_util.h"

namespace {

using namespace ittc::format;

void Write(const std::string& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seed_corpus DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const testing::TestTraceWriter small = testing::SmallTrace();
  Write(dir, "small_trace.itt", small.bytes());
  Write(dir, "small_trace_cut.itt", small.bytes().substr(0, small.chunks()[5].offset + 40));
  Write(dir, "header_only.itt", small.bytes().substr(0, small.header_size()));
  {
    std::string t = small.bytes();
    t += FrameChunkForTest(0x8001, 0, small.chunks().size(), "opaque", 6);
    t += std::string(64, '\0');
    Write(dir, "unknown_chunk_zero_tail.itt", t);
  }
  {
    testing::TestTraceWriter w(testing::SampleHeader());
    testing::Rng rng(3);
    uint64_t t = 1000;
    w.AddEvents(0, testing::TaskPairs(rng, 300, &t));
    w.AddEvents(1, testing::RealisticMix(rng, 300, &t));
    Write(dir, "tasks.itt", w.bytes());
  }
  // Bare payloads.
  testing::Rng rng(4);
  std::deque<std::string> storage;
  EventStreamEncoder enc;
  enc.Reset(2, 5000);
  RecordEncoder rec;
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  uint64_t t = 5000;
  for (int i = 0; i < count; ++i) {
    Event e = testing::RandomEvent(rng, all[i].kind, 0, &storage);
    for (int f = 0; f < e.field_count; ++f) {
      // Only kBytes fields hold a view (FieldValue's members share storage).
      if (all[i].fields[f].type != FieldType::kBytes) continue;
      if (e.fields[f].bytes.size() > 16)
        e.fields[f].bytes.remove_suffix(e.fields[f].bytes.size() - 16);
    }
    if (static_cast<uint16_t>(all[i].kind) < 0x100) {
      t += 100;
      e.time = t;
      enc.Append(e);
    } else {
      rec.Append(e);
    }
  }
  Write(dir, "events_payload.bin", std::string(enc.payload()));
  Write(dir, "records_payload.bin", std::string(rec.payload()));
  return 0;
}
