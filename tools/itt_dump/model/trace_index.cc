#include "tools/itt_dump/model/trace_index.h"

#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;

TraceSource TraceSource::File(std::string path) {
  TraceSource s;
  s.name_ = std::move(path);
  return s;
}

TraceSource TraceSource::Memory(std::string_view data, std::string name) {
  TraceSource s;
  s.name_ = std::move(name);
  s.memory_ = true;
  s.data_ = data;
  return s;
}

absl::StatusOr<std::unique_ptr<format::ByteSource>> TraceSource::Open() const {
  if (memory_) return format::MemorySource(data_);
  return format::OpenFileSource(name_);
}

uint64_t TraceSource::Size() const {
  if (memory_) return data_.size();
  struct stat st;
  if (stat(name_.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_size);
}

bool TraceIndex::corrupt() const {
  for (const Problem& p : problems) {
    if (p.kind == Problem::Kind::kCorrupt) return true;
  }
  return problems_dropped != 0 || reader_stats.corrupt_regions != 0 ||
         reader_stats.chunks_missing != 0;
}

std::string_view TraceIndex::String(uint64_t id) const {
  const std::string* s = id != 0 ? strings.Find(id) : nullptr;
  return s != nullptr ? std::string_view(*s) : std::string_view();
}

std::string_view TraceIndex::Domain(uint64_t id) const {
  const std::string* s = id != 0 ? domains.Find(id) : nullptr;
  return s != nullptr ? std::string_view(*s) : std::string_view();
}

void TraceIndex::AddProblem(Problem::Kind kind, uint64_t offset, uint64_t bytes,
                            std::string reason) {
  if (problems.size() >= kMaxProblems) {
    ++problems_dropped;
    return;
  }
  problems.push_back(Problem{kind, offset, bytes, std::move(reason)});
}

namespace {

class IndexReporter : public format::Reporter {
 public:
  explicit IndexReporter(TraceIndex* index) : index_(index) {}
  void Corruption(uint64_t offset, uint64_t bytes, std::string_view reason) override {
    index_->AddProblem(Problem::Kind::kCorrupt, offset, bytes, std::string(reason));
  }
  void Truncation(uint64_t offset, uint64_t bytes, std::string_view reason) override {
    index_->AddProblem(Problem::Kind::kTruncated, offset, bytes, std::string(reason));
  }

 private:
  TraceIndex* index_;
};

ThreadRec& ThreadOf(TraceIndex* index, uint32_t thread_index) {
  ThreadRec& t = index->threads[thread_index];
  t.index = thread_index;
  return t;
}

// A module_unmapped ends the oldest module of its process still mapped at
// its start address: a new module at the same address may be listed
// before it in the same scan.
void AddModuleRecord(TraceIndex* x, const Event& r) {
  format::ModuleMapped mapped;
  if (format::FromRecord(r, &mapped)) {
    ModuleRec m;
    m.mapped_ticks = mapped.ticks;
    m.load_bias = mapped.load_bias;
    m.start_addr = mapped.start_addr;
    m.size = mapped.size;
    m.path = std::string(mapped.path);
    m.build_id = std::string(mapped.build_id);
    x->modules.push_back(std::move(m));
    return;
  }
  format::ModuleUnmapped unmapped;
  if (!format::FromRecord(r, &unmapped)) return;
  for (ModuleRec& m : x->modules) {
    if (m.process == 0 && m.start_addr == unmapped.start_addr && m.unmapped_ticks == kNoEvents) {
      m.unmapped_ticks = unmapped.ticks;
      return;
    }
  }
}

void AddDefinition(TraceIndex* x, const Event& r) {
  using F = format::Field;
  const uint64_t id = r.Get(F::kId);
  switch (r.kind) {
    case EventKind::kModuleMapped:
    case EventKind::kModuleUnmapped:
      AddModuleRecord(x, r);
      break;
    case EventKind::kDefString:
      x->strings[id] = std::string(r.GetBytes(F::kText));
      break;
    case EventKind::kDefDomain:
      x->domains[id] = std::string(r.GetBytes(F::kName));
      break;
    case EventKind::kDefCounter: {
      CounterDef& c = x->counters[id];
      c.name = std::string(r.GetBytes(F::kName));
      c.domain_name = std::string(r.GetBytes(F::kDomainName));
      c.domain = r.Get(F::kDomain);
      c.type = r.Get(F::kType);
      break;
    }
    case EventKind::kDefHistogram: {
      HistogramDef& h = x->histograms[id];
      h.domain = r.Get(F::kDomain);
      h.name = std::string(r.GetBytes(F::kName));
      h.x_type = r.Get(F::kXType);
      h.y_type = r.Get(F::kYType);
      break;
    }
    case EventKind::kDefClockDomain: {
      ClockDomainDef& c = x->clock_domains[id];
      c.frequency_hz = r.Get(F::kFrequencyHz);
      c.clock_base = r.Get(F::kClockBase);
      c.ticks = r.Get(F::kTicks);
      break;
    }
    case EventKind::kDefHeapFunction: {
      HeapFunctionDef& h = x->heap_functions[id];
      h.name = std::string(r.GetBytes(F::kName));
      h.domain_name = std::string(r.GetBytes(F::kDomainName));
      break;
    }
    case EventKind::kDefEvent:
      x->event_names[id] = std::string(r.GetBytes(F::kName));
      break;
    default:
      break;  // track groups and tracks: not used by any verb yet
  }
}

void AddRecord(TraceIndex* x, const format::Chunk& chunk, const Event& r) {
  switch (chunk.type) {
    case format::ChunkType::kDefinitions:
      AddDefinition(x, r);
      return;
    case format::ChunkType::kThreadInfo: {
      format::ThreadInfo info;
      if (!format::FromRecord(r, &info)) return;
      ThreadRec& t = ThreadOf(x, info.thread_index);
      t.tid = info.tid;
      t.name = std::string(info.name);
      t.ignored = info.ignored;
      t.has_info = true;
      return;
    }
    case format::ChunkType::kClockSync: {
      format::ClockSync sync;
      if (format::FromRecord(r, &sync)) x->sync_points.push_back(sync);
      return;
    }
    case format::ChunkType::kLoss: {
      format::LossRecord loss;
      if (!format::FromRecord(r, &loss)) return;
      ThreadOf(x, loss.thread_index);
      uint64_t& n = x->losses[uint64_t{loss.thread_index} << 8 | static_cast<uint64_t>(loss.cause)];
      n = std::max(n, loss.count);
      return;
    }
    case format::ChunkType::kEnd:
      if (format::FromRecord(r, &x->end)) x->has_end = true;
      return;
    default:
      return;
  }
}

void MalformedPayload(TraceIndex* x, const format::Chunk& chunk, std::string reason) {
  if (x->malformed_payloads++ == 0) x->first_malformed_payload = reason;
  x->AddProblem(Problem::Kind::kCorrupt, chunk.offset, chunk.stored_size, std::move(reason));
}

void IndexEvents(TraceIndex* x, const format::Chunk& chunk, bool all, IndexVisitor* visitor) {
  x->events_payload_bytes += chunk.payload.size();
  format::EventStreamDecoder dec;
  if (!dec.Reset(chunk.payload).ok()) {
    MalformedPayload(x, chunk, absl::StrCat("events chunk: ", dec.status().message()));
    return;
  }
  ThreadRec& t = ThreadOf(x, dec.thread_index());
  Event e;
  uint64_t first = kNoEvents;
  if (dec.Next(&e)) first = e.time;
  t.chunk_first_times.push_back(first);
  if (all && first != kNoEvents) {
    uint64_t n = 1;
    uint64_t lo = e.time;
    uint64_t hi = e.time;
    if (visitor != nullptr) visitor->OnEvent(e, t);
    while (dec.Next(&e)) {
      if (visitor != nullptr) visitor->OnEvent(e, t);
      ++n;
      lo = std::min(lo, e.time);
      hi = std::max(hi, e.time);
    }
    t.events += n;
    x->events += n;
    x->min_event_ticks = std::min(x->min_event_ticks, lo);
    x->max_event_ticks = std::max(x->max_event_ticks, hi);
    x->unknown_events += dec.unknown_skipped();
    if (!dec.status().ok()) {
      MalformedPayload(
          x, chunk,
          absl::StrCat("events chunk of thread ", dec.thread_index(), ": ", dec.status().message(),
                       " at payload offset ", dec.offset(), " (the rest of the chunk is lost)"));
    }
  } else if (first != kNoEvents) {
    x->min_event_ticks = std::min(x->min_event_ticks, first);
  } else if (!dec.status().ok()) {
    MalformedPayload(x, chunk,
                     absl::StrCat("events chunk of thread ", dec.thread_index(), ": ",
                                  dec.status().message(), " at payload offset ", dec.offset()));
  }
}

OpenFailure Classify(const absl::Status& s, uint64_t bytes_read) {
  if (format::IsNotATrace(s)) return OpenFailure::kNotATrace;
  switch (s.code()) {
    case absl::StatusCode::kOutOfRange:
      return bytes_read == 0 ? OpenFailure::kNotATrace : OpenFailure::kTruncated;
    case absl::StatusCode::kDataLoss:
      return OpenFailure::kCorrupt;
    case absl::StatusCode::kUnimplemented:
      return OpenFailure::kUnsupported;
    default:
      return OpenFailure::kIo;
  }
}

void MakeLabels(TraceIndex* x) {
  for (auto& [index, t] : x->threads.entries()) {
    if (!t.has_info) {
      // Its thread info was lost (damage): only the trace's index is known.
      t.label = absl::StrCat("#", t.index);
    } else if (t.name.empty()) {
      t.label = absl::StrCat(t.tid);
    } else {
      t.label = absl::StrCat(t.tid, "/", t.name);
    }
  }
}

}  // namespace

IndexResult BuildIndex(const TraceSource& source, const IndexOptions& options) {
  IndexResult result;
  auto index = std::make_unique<TraceIndex>();
  index->name = source.name();
  absl::StatusOr<std::unique_ptr<format::ByteSource>> bytes = source.Open();
  if (!bytes.ok()) {
    result.failure = OpenFailure::kIo;
    result.status = bytes.status();
    return result;
  }
  IndexReporter reporter(index.get());
  format::TraceReader reader(std::move(*bytes), &reporter, format::ReaderOptions::Parallel());
  absl::Status s = reader.ReadHeader();
  if (!s.ok()) {
    result.failure = Classify(s, reader.stats().bytes_read);
    if (result.failure == OpenFailure::kNotATrace && reader.stats().bytes_read == 0) {
      s = absl::InvalidArgumentError("empty file, not a trace");
    }
    result.status = s;
    return result;
  }
  index->header = reader.header();
  index->header_size = reader.header_size();

  format::Chunk chunk;
  format::RecordDecoder records;
  Event r;
  while (reader.Next(&chunk)) {
    if (options.progress != nullptr) {
      options.progress->Update(reader.stats().bytes_read);
    }
    if (chunk.type == format::ChunkType::kEvents) {
      ++index->events_chunks;
      IndexEvents(index.get(), chunk, options.decode_all_events || options.visitor != nullptr,
                  options.visitor);
      continue;
    }
    ++index->record_chunks;
    records.Reset(chunk.payload);
    while (records.Next(&r)) {
      AddRecord(index.get(), chunk, r);
      if (options.visitor != nullptr) options.visitor->OnRecord(chunk, r);
    }
    index->unknown_records += records.unknown_skipped();
    if (!records.status().ok()) {
      MalformedPayload(index.get(), chunk,
                       absl::StrCat(format::ChunkTypeName(static_cast<uint16_t>(chunk.type)),
                                    " chunk: ", records.status().message(), " at payload offset ",
                                    records.offset()));
    }
  }
  if (!reader.status().ok()) {
    result.failure = OpenFailure::kIo;
    result.status = reader.status();
    return result;
  }
  index->reader_stats = reader.stats();
  index->file_bytes = reader.stats().bytes_read;
  index->clock = Clock(index->header, index->sync_points);
  MakeLabels(index.get());
  result.index = std::move(index);
  return result;
}

absl::StatusOr<std::unique_ptr<format::TraceReader>> OpenForPass(const TraceSource& source) {
  return OpenForPass(source, format::ReaderOptions::Parallel());
}

absl::StatusOr<std::unique_ptr<format::TraceReader>> OpenForPass(
    const TraceSource& source, const format::ReaderOptions& options) {
  absl::StatusOr<std::unique_ptr<format::ByteSource>> bytes = source.Open();
  if (!bytes.ok()) return bytes.status();
  auto reader = std::make_unique<format::TraceReader>(std::move(*bytes), nullptr, options);
  absl::Status s = reader->ReadHeader();
  if (!s.ok()) return s;
  return reader;
}

}  // namespace itt_dump
}  // namespace ittc
