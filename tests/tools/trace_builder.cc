#include "tests/tools/trace_builder.h"

#include <cstdio>
#include <cstdlib>

namespace ittc {
namespace itt_dump {
namespace testing {

using format::Event;
using format::EventKind;

namespace {

constexpr uint64_t kStartTicks = 1000;
constexpr uint64_t kStartMono = 5000000000;
constexpr int64_t kStartReal = 1700000000000000000;

void Check(const absl::Status& s) {
  if (!s.ok()) std::abort();
}

}  // namespace

format::FileHeader TestHeader() {
  format::FileHeader h;
  h.pid = 4242;
  h.ppid = 1;
  h.timebase = format::Timebase::kTsc;
  h.timebase_hz = 1000000000;
  h.start_ticks = kStartTicks;
  h.start_realtime_ns = kStartReal;
  h.start_monotonic_raw_ns = kStartMono;
  h.host_name = "testhost";
  h.executable_path = "/usr/bin/demo";
  h.command_line = std::string("demo\0--fast\0two words\0", 22);
  h.writer = "trace_builder";
  return h;
}

Event Ev(EventKind kind, uint64_t time, std::initializer_list<FieldInit> fields) {
  Event e;
  e.Init(kind, time);
  for (const FieldInit& f : fields) {
    const format::FieldValue& v = f.value.value;
    bool set = false;
    switch (f.value.member) {
      case TypedValue::kU:
        set = e.Set(f.field, v.u);
        break;
      case TypedValue::kId:
        set = e.SetId(f.field, v.id);
        break;
      case TypedValue::kBytes:
        set = e.SetBytes(f.field, v.bytes);
        break;
    }
    if (!set) {
      std::fprintf(stderr, "trace_builder: kind %d has no field %s of that type\n",
                   static_cast<int>(kind), format::FieldName(f.field));
      std::abort();  // a test built a wrong event
    }
  }
  return e;
}

TraceBuilder::TraceBuilder(const format::FileHeader& header, bool compress,
                           format::EventStreamEncoder::FieldCoding coding)
    : compress_(compress), writer_(1), events_(coding) {
  out_ = format::EncodeFileHeader(header);
}

void TraceBuilder::Chunk(format::ChunkType type, std::string_view payload, uint16_t flags) {
  if (compress_) {
    Check(writer_.AppendChunk(type, payload, &out_, flags));
  } else {
    out_ += format::FrameChunkForTest(static_cast<uint16_t>(type), flags, sequence_, payload,
                                      static_cast<uint32_t>(payload.size()));
  }
  ++sequence_;
}

TraceBuilder& TraceBuilder::String(uint64_t id, std::string_view text) {
  defs_.Append(format::DefString(id, text));
  return *this;
}

TraceBuilder& TraceBuilder::Module(const format::ModuleMapped& m) {
  defs_.Append(format::ToRecord(m));
  return *this;
}

TraceBuilder& TraceBuilder::Module(uint64_t ticks, uint64_t start_addr, uint64_t size,
                                   std::string_view path) {
  format::ModuleMapped m;
  m.ticks = ticks;
  m.start_addr = start_addr;
  m.size = size;
  m.path = path;
  return Module(m);
}

TraceBuilder& TraceBuilder::ModuleGone(uint64_t ticks, uint64_t start_addr) {
  defs_.Append(format::ToRecord(format::ModuleUnmapped{ticks, start_addr}));
  return *this;
}

TraceBuilder& TraceBuilder::Domain(uint64_t id, std::string_view name) {
  defs_.Append(format::DefDomain(id, name));
  return *this;
}

TraceBuilder& TraceBuilder::Counter(uint64_t id, std::string_view name,
                                    std::string_view domain_name, uint64_t domain,
                                    format::MetadataType type) {
  defs_.Append(format::DefCounter(id, name, domain_name, domain, type));
  return *this;
}

TraceBuilder& TraceBuilder::Histogram(uint64_t id, uint64_t domain, std::string_view name,
                                      format::MetadataType x, format::MetadataType y) {
  defs_.Append(format::DefHistogram(id, domain, name, x, y));
  return *this;
}

TraceBuilder& TraceBuilder::HeapFunction(uint64_t id, std::string_view name,
                                         std::string_view domain_name) {
  defs_.Append(format::DefHeapFunction(id, name, domain_name));
  return *this;
}

TraceBuilder& TraceBuilder::EventName(uint64_t id, std::string_view name) {
  defs_.Append(format::DefLegacyEvent(id, name));
  return *this;
}

TraceBuilder& TraceBuilder::ClockDomain(uint64_t id, uint64_t hz, uint64_t base, uint64_t ticks) {
  defs_.Append(format::DefClockDomain(id, hz, base, ticks));
  return *this;
}

void TraceBuilder::FlushDefinitions() {
  if (defs_.record_count() == 0) return;
  Chunk(format::ChunkType::kDefinitions, defs_.payload());
  defs_.Clear();
}

void TraceBuilder::Records(format::ChunkType type, std::initializer_list<Event> records) {
  FlushDefinitions();
  format::RecordEncoder enc;
  for (const Event& record : records) enc.Append(record);
  Chunk(type, enc.payload());
}

TraceBuilder& TraceBuilder::Thread(uint32_t index, uint64_t tid, std::string_view name,
                                   bool ignored) {
  format::ThreadInfo t;
  t.thread_index = index;
  t.tid = tid;
  t.name = name;
  t.ignored = ignored;
  Records(format::ChunkType::kThreadInfo, {format::ToRecord(t)});
  return *this;
}

TraceBuilder& TraceBuilder::Sync(uint64_t ticks, uint64_t mono_ns, int64_t real_ns) {
  format::ClockSync s;
  s.ticks = ticks;
  s.monotonic_raw_ns = mono_ns;
  s.realtime_ns = real_ns;
  Records(format::ChunkType::kClockSync, {format::ToRecord(s)});
  return *this;
}

TraceBuilder& TraceBuilder::SyncAt(uint64_t ticks) {
  const uint64_t d = ticks - kStartTicks;
  return Sync(ticks, kStartMono + d, kStartReal + static_cast<int64_t>(d));
}

TraceBuilder& TraceBuilder::Loss(uint32_t thread_index, format::LossCause cause, uint64_t count) {
  format::LossRecord l;
  l.thread_index = thread_index;
  l.cause = cause;
  l.count = count;
  dropped_ += count;
  Records(format::ChunkType::kLoss, {format::ToRecord(l)});
  return *this;
}

TraceBuilder& TraceBuilder::Events(uint32_t thread_index, const std::vector<Event>& events) {
  FlushDefinitions();
  events_.Reset(thread_index, events.empty() ? 0 : events.front().time);
  for (const Event& e : events) events_.Append(e);
  Chunk(format::ChunkType::kEvents, events_.payload(), events_.chunk_flags());
  events_written_ += events.size();
  return *this;
}

TraceBuilder& TraceBuilder::EventsPayload(std::string_view payload, uint16_t flags) {
  FlushDefinitions();
  Chunk(format::ChunkType::kEvents, payload, flags);
  return *this;
}

TraceBuilder& TraceBuilder::End(uint64_t end_ticks) {
  FlushDefinitions();
  Records(format::ChunkType::kEnd, {format::ToRecord(EndOf(end_ticks))});
  return *this;
}

TraceBuilder& TraceBuilder::FlightEnd(const format::FlightDump& flight, uint64_t end_ticks) {
  FlushDefinitions();
  Records(format::ChunkType::kEnd, {format::ToRecord(flight), format::ToRecord(EndOf(end_ticks))});
  return *this;
}

format::EndRecord TraceBuilder::EndOf(uint64_t end_ticks) const {
  format::EndRecord e;
  e.events_recorded = events_written_;
  e.events_dropped = dropped_;
  e.chunk_count = sequence_;
  e.end_ticks = end_ticks;
  return e;
}

TraceBuilder& TraceBuilder::Raw(std::string_view bytes) {
  FlushDefinitions();
  out_.append(bytes.data(), bytes.size());
  return *this;
}

const std::string& TraceBuilder::bytes() {
  FlushDefinitions();
  return out_;
}

}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
