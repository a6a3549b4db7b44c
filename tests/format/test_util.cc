#include "tests/format/test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

namespace ittc {
namespace format {
namespace testing {
namespace {

uint64_t RandomUint(Rng& rng) {
  static const uint64_t kEdges[] = {0,     1,          127,        128,   16383,
                                    16384, UINT32_MAX, 1ull << 63, ~0ull, 0x7fffffffffffffffull};
  switch (rng() % 4) {
    case 0:
      return kEdges[rng() % (sizeof kEdges / sizeof kEdges[0])];
    case 1:
      return rng() % 200;
    case 2:
      return rng() >> (rng() % 64);
    default:
      return rng();
  }
}

std::string RandomBytes(Rng& rng, size_t max_bytes) {
  size_t n;
  switch (rng() % 4) {
    case 0:
      n = 0;
      break;
    case 1:
      n = rng() % 16;
      break;
    case 2:
      n = rng() % 300;
      break;
    default:
      n = rng() % (max_bytes + 1);
      break;
  }
  n = std::min(n, max_bytes);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Lognormal-ish tick delta: most events microseconds apart at 3 GHz.
uint64_t Gap(Rng& rng) {
  std::lognormal_distribution<double> d(7.0, 1.3);
  return static_cast<uint64_t>(d(rng)) + 20;
}

const char kMetadataBytes[16] = {1, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0};

class ChoppySource : public ByteSource {
 public:
  ChoppySource(std::string_view data, size_t max_read) : data_(data), max_read_(max_read) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    n = std::min({n, data_.size(), max_read_});
    std::memcpy(buf, data_.data(), n);
    data_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view data_;
  size_t max_read_;
};

}  // namespace

Event RandomEvent(Rng& rng, EventKind kind, uint64_t time, std::deque<std::string>* storage) {
  Event e;
  e.Init(kind, time);
  const KindSchema* s = FindSchema(kind);
  for (int i = 0; i < s->field_count; ++i) {
    switch (s->fields[i].type) {
      case FieldType::kUint:
      case FieldType::kSint:
      case FieldType::kDouble:
        e.fields[i] = FieldValue::Uint(RandomUint(rng));
        break;
      case FieldType::kTime:
        e.fields[i] = FieldValue::Time(rng() % 3 == 0 ? rng() : time + (rng() % 2000000) - 1000000);
        break;
      case FieldType::kId:
        e.fields[i] =
            FieldValue::OfId(Id{rng() % 2 ? RandomUint(rng) : 0, rng() % 2 ? RandomUint(rng) : 0,
                                rng() % 4 == 0 ? RandomUint(rng) : 0});
        break;
      case FieldType::kBytes:
        storage->push_back(RandomBytes(rng, 2000));
        e.fields[i] = FieldValue::Bytes(storage->back());
        break;
    }
  }
  return e;
}

std::vector<Event> TaskPairs(Rng& rng, size_t n, uint64_t* time) {
  // A loop program: each iteration is an outer task holding a fixed
  // sequence of inner tasks, some with a nested helper task. Every name has
  // its own typical duration; each instance varies by about 10%, and the
  // glue code between calls by about 30%.
  static const double kDuration[] = {0, 0, 4000, 900, 12000, 2500, 600};
  std::lognormal_distribution<double> jitter(0.0, 0.1);
  std::lognormal_distribution<double> glue(std::log(60.0), 0.3);
  std::vector<Event> out;
  out.reserve(n + 8);
  auto begin = [&](uint64_t name) {
    *time += static_cast<uint64_t>(glue(rng));
    Event e;
    e.Init(EventKind::kTaskBegin, *time);
    e.Set(Field::kDomain, 1);
    e.SetId(Field::kId, Id{});
    e.SetId(Field::kParent, Id{});
    e.Set(Field::kName, name);
    out.push_back(e);
  };
  auto end = [&]() {
    *time += static_cast<uint64_t>(glue(rng));
    Event e;
    e.Init(EventKind::kTaskEnd, *time);
    e.Set(Field::kDomain, 1);
    out.push_back(e);
  };
  uint64_t iteration = 0;
  while (out.size() < n) {
    begin(1);
    for (uint64_t name = 2; name <= 5; ++name) {
      begin(name);
      *time += static_cast<uint64_t>(kDuration[name] * jitter(rng));
      if (name == 3 && iteration % 2 == 0) {
        begin(6);
        *time += static_cast<uint64_t>(kDuration[6] * jitter(rng));
        end();
      }
      end();
    }
    end();
    ++iteration;
  }
  out.resize(n);
  return out;
}

std::vector<Event> RealisticMix(Rng& rng, size_t n, uint64_t* time) {
  std::vector<Event> out;
  out.reserve(n);
  int depth = 0;
  uint64_t counter_value = 1000;
  uint64_t frame = 0;
  while (out.size() < n) {
    *time += Gap(rng);
    Event e;
    const unsigned r = rng() % 100;
    if (r < 84) {
      const bool end = depth > 0 && (depth >= 4 || rng() % 2 == 0);
      const uint64_t domain = 1 + (rng() % 8 == 0 ? 1 : 0);
      if (end) {
        e.Init(EventKind::kTaskEnd, *time);
        e.Set(Field::kDomain, domain);
        --depth;
      } else {
        e.Init(EventKind::kTaskBegin, *time);
        e.Set(Field::kDomain, domain);
        // Some programs pass instance ids (e.g. TBB passes task addresses).
        e.SetId(Field::kId,
                rng() % 4 == 0 ? Id{0x7f0000400000ull + 64 * (rng() % 4096), 0, 0} : Id{});
        e.SetId(Field::kParent, Id{});
        e.Set(Field::kName, 1 + static_cast<uint64_t>(std::min(
                                    30.0, std::floor(std::exponential_distribution<>(0.3)(rng)))));
        ++depth;
      }
    } else if (r < 92) {
      e.Init(EventKind::kCounterSetValue, *time);
      e.Set(Field::kCounter, 1 + rng() % 2);
      e.Set(Field::kType, static_cast<uint64_t>(MetadataType::kU64));
      counter_value += rng() % 100;
      e.Set(Field::kValue, counter_value);
    } else if (r < 95) {
      e.Init(EventKind::kMarker, *time);
      e.Set(Field::kDomain, 1);
      e.SetId(Field::kId, Id{});
      e.Set(Field::kName, 40 + rng() % 3);
      e.Set(Field::kScope, static_cast<uint64_t>(Scope::kTrack));
    } else if (r < 98) {
      e.Init(rng() % 2 ? EventKind::kFrameBegin : EventKind::kFrameEnd, *time);
      e.Set(Field::kDomain, 3);
      e.SetId(Field::kId, Id{++frame / 2, 0, 0});
    } else {
      e.Init(EventKind::kMetadataAdd, *time);
      e.Set(Field::kDomain, 1);
      e.SetId(Field::kId, Id{});
      e.Set(Field::kKey, 50);
      e.Set(Field::kType, static_cast<uint64_t>(MetadataType::kU64));
      e.Set(Field::kCount, 2);
      e.SetBytes(Field::kData, std::string_view(kMetadataBytes, sizeof kMetadataBytes));
    }
    out.push_back(e);
  }
  while (depth-- > 0) {
    *time += Gap(rng);
    Event e;
    e.Init(EventKind::kTaskEnd, *time);
    e.Set(Field::kDomain, 1);
    out.push_back(e);
  }
  return out;
}

TestTraceWriter::TestTraceWriter(const FileHeader& header, int zstd_level)
    : writer_(new ChunkWriter(zstd_level)) {
  bytes_ = EncodeFileHeader(header);
  header_size_ = bytes_.size();
}

void TestTraceWriter::AddEvents(uint32_t thread_index, const std::vector<Event>& events) {
  EventStreamEncoder enc;
  enc.Reset(thread_index, events.empty() ? 0 : events.front().time);
  ChunkInfo info;
  for (const Event& e : events) {
    enc.Append(e);
    info.records.push_back(DebugString(e));
  }
  info.offset = bytes_.size();
  info.type = ChunkType::kEvents;
  info.sequence = writer_->next_sequence();
  absl::Status s =
      writer_->AppendChunk(ChunkType::kEvents, enc.payload(), &bytes_, enc.chunk_flags());
  if (!s.ok()) abort();
  info.size = bytes_.size() - info.offset;
  chunks_.push_back(std::move(info));
}

void TestTraceWriter::AddRecords(ChunkType type, const std::vector<Event>& records) {
  RecordEncoder enc;
  ChunkInfo info;
  for (const Event& e : records) {
    enc.Append(e);
    info.records.push_back(DebugString(e));
  }
  info.offset = bytes_.size();
  info.type = type;
  info.sequence = writer_->next_sequence();
  absl::Status s = writer_->AppendChunk(type, enc.payload(), &bytes_);
  if (!s.ok()) abort();
  info.size = bytes_.size() - info.offset;
  chunks_.push_back(std::move(info));
}

FileHeader SampleHeader() {
  FileHeader h;
  h.pid = 4242;
  h.ppid = 1;
  h.timebase = Timebase::kTsc;
  h.timebase_hz = 2995200000;
  h.start_ticks = 123456789012345;
  h.start_realtime_ns = 1795000000123456789;
  h.start_monotonic_raw_ns = 987654321;
  h.host_name = "build-host";
  h.executable_path = "/usr/bin/app";
  h.command_line = std::string("app\0--threads=2\0input.dat", 25);
  h.writer = "ittcollector test";
  return h;
}

namespace {

Event Def(EventKind kind, std::initializer_list<FieldValue> fields) {
  Event e;
  e.Init(kind, 0);
  int i = 0;
  for (const FieldValue& f : fields) e.fields[i++] = f;
  return e;
}

}  // namespace

TestTraceWriter SmallTrace() {
  TestTraceWriter w(SampleHeader());
  using F = FieldValue;
  w.AddRecords(
      ChunkType::kDefinitions,
      {Def(EventKind::kDefDomain, {F::Uint(1), F::Bytes("app")}),
       Def(EventKind::kDefDomain, {F::Uint(2), F::Bytes("io")}),
       Def(EventKind::kDefString, {F::Uint(1), F::Bytes("parse")}),
       Def(EventKind::kDefString, {F::Uint(2), F::Bytes("render")}),
       Def(EventKind::kDefCounter,
           {F::Uint(1), F::Bytes("queue"), F::Bytes("app"), F::Uint(1), F::Uint(1)}),
       Def(EventKind::kDefClockDomain, {F::Uint(1), F::Uint(1000000), F::Uint(5), F::Uint(77)})});
  w.AddRecords(ChunkType::kThreadInfo, {ToRecord(ThreadInfo{0, 4242, "main", false}),
                                        ToRecord(ThreadInfo{1, 4243, "worker", false})});
  w.AddRecords(ChunkType::kClockSync,
               {ToRecord(ClockSync{123456789012345, 987654321, 1795000000123456789})});
  Rng rng(7);
  uint64_t t0 = 123456789012345;
  uint64_t t1 = t0 + 100;
  w.AddEvents(0, RealisticMix(rng, 40, &t0));
  w.AddEvents(1, RealisticMix(rng, 30, &t1));
  {
    // One event of every event kind, small bytes.
    std::deque<std::string> storage;
    std::vector<Event> all;
    int count = 0;
    const KindSchema* s = AllSchemas(&count);
    for (int i = 0; i < count; ++i) {
      if (static_cast<uint16_t>(s[i].kind) >= 0x100) continue;
      t1 += 1000;
      Event e = RandomEvent(rng, s[i].kind, t1, &storage);
      for (int f = 0; f < e.field_count; ++f) {
        if (s[i].fields[f].type == FieldType::kBytes && e.fields[f].bytes.size() > 24) {
          e.fields[f].bytes = e.fields[f].bytes.substr(0, 24);
        }
      }
      all.push_back(e);
    }
    w.AddEvents(1, all);
  }
  w.AddEvents(0, RealisticMix(rng, 25, &t0));
  w.AddRecords(ChunkType::kLoss, {ToRecord(LossRecord{1, LossCause::kBufferFull, 12})});
  w.AddRecords(ChunkType::kClockSync,
               {ToRecord(ClockSync{t0 + 5000, 987654321 + 100000, 1795000000123456789 + 100000})});
  w.AddRecords(ChunkType::kEnd, {ToRecord(EndRecord{200, 12, 8, t0 + 6000})});
  return w;
}

void CollectingReporter::Corruption(uint64_t offset, uint64_t bytes, std::string_view reason) {
  reports.push_back(Report{false, offset, bytes, std::string(reason)});
}

void CollectingReporter::Truncation(uint64_t offset, uint64_t bytes, std::string_view reason) {
  reports.push_back(Report{true, offset, bytes, std::string(reason)});
}

ReadResult ReadTrace(std::string_view bytes, size_t max_read) {
  ReadResult res;
  CollectingReporter reporter;
  std::unique_ptr<ByteSource> source =
      max_read == 0 ? MemorySource(bytes)
                    : std::unique_ptr<ByteSource>(new ChoppySource(bytes, max_read));
  TraceReader reader(std::move(source), &reporter);
  res.header_status = reader.ReadHeader();
  if (res.header_status.ok()) {
    res.header = reader.header();
    Chunk chunk;
    Event e;
    while (reader.Next(&chunk)) {
      ReadChunk rc;
      rc.offset = chunk.offset;
      rc.stored_size = chunk.stored_size;
      rc.type = chunk.type;
      rc.sequence = chunk.sequence;
      if (chunk.type == ChunkType::kEvents) {
        EventStreamDecoder dec;
        if (dec.Reset(chunk.payload, chunk.flags).ok()) {
          while (dec.Next(&e)) {
            rc.records.push_back(DebugString(e));
            ++res.events;
          }
        }
        if (!dec.status().ok()) rc.decode_error = std::string(dec.status().message());
      } else {
        RecordDecoder dec;
        dec.Reset(chunk.payload);
        while (dec.Next(&e)) rc.records.push_back(DebugString(e));
        if (!dec.status().ok()) rc.decode_error = std::string(dec.status().message());
      }
      res.chunks.push_back(std::move(rc));
    }
  }
  res.reports = reporter.reports;
  res.stats = reader.stats();
  res.status = reader.status();
  return res;
}

}  // namespace testing
}  // namespace format
}  // namespace ittc
