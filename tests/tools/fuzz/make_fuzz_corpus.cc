// Writes the itt-dump fuzz seed corpus: the sample trace, a synthetic
// multi-thread trace, a trace with one event of every kind, and damaged
// variants (truncated, flipped byte, no end record).
//   make_fuzz_corpus DIR

#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "format/format.h"
#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"

namespace {

using ittc::itt_dump::testing::TraceBuilder;

// One event of every event kind, fields filled by type.
std::string EveryKind() {
  TraceBuilder b;
  b.String(1, "s1").String(2, "s2").Domain(1, "dom").Counter(1, "c", "dom", 1,
                                                             ittc::format::MetadataType::kS32);
  b.Histogram(1, 1, "h", ittc::format::MetadataType::kU16, ittc::format::MetadataType::kFloat);
  b.HeapFunction(1, "malloc", "libc").EventName(1, "ev").ClockDomain(1, 1000, 0, 1000);
  b.Thread(0, 77, "all").SyncAt(1000);
  static const std::string kData(16, '\x01');
  std::vector<ittc::format::Event> events;
  int count = 0;
  const ittc::format::KindSchema* all = ittc::format::AllSchemas(&count);
  uint64_t t = 1100;
  for (int i = 0; i < count; ++i) {
    const ittc::format::KindSchema& s = all[i];
    if (static_cast<uint16_t>(s.kind) >= 0x100) continue;
    ittc::format::Event e;
    e.Init(s.kind, t);
    for (int f = 0; f < s.field_count; ++f) {
      switch (s.fields[f].type) {
        case ittc::format::FieldType::kBytes:
          e.SetBytes(s.fields[f].field, kData);
          break;
        case ittc::format::FieldType::kTime:
          e.Set(s.fields[f].field, t + 5);
          break;
        case ittc::format::FieldType::kId:
          e.SetId(s.fields[f].field, ittc::format::Id{3, 0, 0});
          break;
        default:
          e.Set(s.fields[f].field, 1);
      }
    }
    events.push_back(e);
    t += 10;
  }
  b.Events(0, events).SyncAt(t).End(t);
  return b.bytes();
}

bool Write(const std::string& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 64;
  }
  const std::string dir = argv[1];
  const std::string sample = ittc::itt_dump::testing::SampleTrace();
  const std::string every = EveryKind();
  std::string flipped = sample;
  flipped[sample.size() / 2] ^= 0x40;
  TraceBuilder no_end;
  no_end.Thread(0, 1, "t").SyncAt(1000);
  const bool ok = Write(dir, "sample", sample) && Write(dir, "every_kind", every) &&
                  Write(dir, "synthetic", ittc::itt_dump::testing::SyntheticTrace(3, 600, 128)) &&
                  Write(dir, "truncated", sample.substr(0, sample.size() - 9)) &&
                  Write(dir, "flipped", flipped) && Write(dir, "no_end", no_end.bytes()) &&
                  Write(dir, "header_only", sample.substr(0, 120)) &&
                  Write(dir, "not_a_trace", "hello, world\n");
  if (!ok) {
    std::perror(dir.c_str());
    return 1;
  }
  return 0;
}
