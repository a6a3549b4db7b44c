#include "tools/itt_dump/model/trace_index.h"

#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/cord.h"
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

bool TraceIndex::Defines(format::FieldRole role, uint64_t id) const {
  if (id == 0) return true;
  using R = format::FieldRole;
  switch (role) {
    case R::kStringRef:
      return strings.Find(id) != nullptr;
    case R::kDomainRef:
      return domains.Find(id) != nullptr;
    case R::kCounterRef:
      return counters.Find(id) != nullptr;
    case R::kHistogramRef:
      return histograms.Find(id) != nullptr;
    case R::kHeapFunctionRef:
      return heap_functions.Find(id) != nullptr;
    case R::kEventRef:
      return event_names.Find(id) != nullptr;
    case R::kClockDomainRef:
      return clock_domains.Find(id) != nullptr;
    default:
      return true;  // tracks: defined by no writer yet; other roles: no reference
  }
}

namespace {

// `defined`'s name for `id`, or "#N" made up in `made_up` (under `mu`).
std::string_view NameOrMadeUp(const U64Map<std::string>& defined, uint64_t id,
                              absl::node_hash_map<uint64_t, std::string>* made_up,
                              std::shared_mutex* mu) {
  if (id == 0) return {};
  if (const std::string* s = defined.Find(id)) return *s;
  {
    std::shared_lock<std::shared_mutex> lock(*mu);
    if (auto it = made_up->find(id); it != made_up->end()) return it->second;
  }
  std::unique_lock<std::shared_mutex> lock(*mu);
  auto [it, added] = made_up->try_emplace(id);
  if (added) it->second = absl::StrCat("#", id);
  return it->second;
}

}  // namespace

std::string_view TraceIndex::String(uint64_t id) const {
  return NameOrMadeUp(strings, id, &undefined_names->strings, &undefined_names->mu);
}

std::string_view TraceIndex::Domain(uint64_t id) const {
  return NameOrMadeUp(domains, id, &undefined_names->domains, &undefined_names->mu);
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
      if (format::FromRecord(r, &x->flight)) x->has_flight = true;
      return;
    default:
      return;
  }
}

}  // namespace

std::string MalformedEventsReason(uint32_t thread_index, const absl::Status& s,
                                  uint64_t payload_offset) {
  return absl::StrCat("events chunk of thread ", thread_index, ": ", s.message(),
                      " at payload offset ", payload_offset, " (the rest of the chunk is lost)");
}

namespace {

void MalformedPayload(TraceIndex* x, const format::Chunk& chunk, std::string reason) {
  if (x->malformed_payloads++ == 0) x->first_malformed_payload = reason;
  x->malformed_bytes += chunk.stored_size;
  x->AddProblem(Problem::Kind::kCorrupt, chunk.offset, chunk.stored_size, std::move(reason));
}

using RefPair = std::pair<format::FieldRole, uint64_t>;

// Distinct (role, id) references to definitions. The list is deduped
// whenever it has doubled, so it stays within twice the distinct ones, and
// is dropped past EventChecks::kMaxRefs of them (overflow()): memory stays
// bounded whatever the input, and verify then checks event by event.
class RefList {
 public:
  void Add(format::FieldRole role, uint64_t id) {
    if (overflow_) return;
    refs_.emplace_back(role, id);
    if (refs_.size() >= limit_) Compact();
  }
  void AddAll(const RefList& other) {
    if (other.overflow_) Drop();
    if (overflow_) return;
    refs_.insert(refs_.end(), other.refs_.begin(), other.refs_.end());
    if (refs_.size() >= limit_) Compact();
  }
  // Sorts and dedupes the list (which may then overflow).
  void Compact() {
    std::sort(refs_.begin(), refs_.end());
    refs_.erase(std::unique(refs_.begin(), refs_.end()), refs_.end());
    if (refs_.size() > EventChecks::kMaxRefs) {
      Drop();
      return;
    }
    limit_ = std::max(limit_, 2 * refs_.size());
  }
  bool overflow() const { return overflow_; }
  // Sorted and duplicate-free after Compact(); empty after an overflow.
  const std::vector<RefPair>& refs() const { return refs_; }
  void Clear() {
    refs_.clear();
    limit_ = kFirstLimit;
    overflow_ = false;
  }

 private:
  static constexpr size_t kFirstLimit = 1024;
  void Drop() {
    overflow_ = true;
    std::vector<RefPair>().swap(refs_);
  }
  std::vector<RefPair> refs_;
  size_t limit_ = kFirstLimit;
  bool overflow_ = false;
};

// What the index pass takes from one events chunk. Decoding the events is
// the pass's main cost, so without a visitor it runs on the reader's
// workers (EventsChunkDecoder) and the reading thread only adds this up
// (EventsIndexer::Apply).
struct EventsSummary final : public format::DecodedChunk {
  absl::Status reset;  // the payload's header did not decode
  uint32_t thread_index = 0;
  uint64_t first = kNoEvents;  // time of the first event, and its offset
  uint64_t first_offset = 0;
  uint64_t last = 0;  // time of the last event
  uint64_t lo = kNoEvents;
  uint64_t hi = 0;
  uint64_t count = 0;
  uint64_t unknown = 0;
  absl::Status status;  // where decoding stopped early, and why
  uint64_t stop_offset = 0;
  // With checks: the thread's time going back inside the chunk (payload
  // offset, ticks), the first EventChecks::kMaxKept and how many, and the
  // references to definitions.
  std::vector<std::pair<uint64_t, uint64_t>> backs;
  uint64_t backs_total = 0;
  RefList refs;

  void Clear() {
    reset = absl::OkStatus();
    first = kNoEvents;
    first_offset = last = hi = count = unknown = stop_offset = backs_total = 0;
    lo = kNoEvents;
    status = absl::OkStatus();
    backs.clear();
    refs.Clear();
  }
};

// Adds references to a RefList, skipping a pair still in a small
// direct-mapped cache of the pairs added (a loop's few names always are).
class RefCollector {
 public:
  explicit RefCollector(RefList* refs) : refs_(refs) {}
  void Add(format::FieldRole role, uint64_t id) {
    const uint64_t key = (id + (static_cast<uint64_t>(role) << 40)) * 0x9E3779B97F4A7C15ull;
    Slot& slot = cache_[key >> (64 - kCacheBits)];
    if (slot.id == id && slot.role == role) return;
    slot = Slot{id, role};
    refs_->Add(role, id);
  }

 private:
  static constexpr int kCacheBits = 6;
  struct Slot {
    uint64_t id = 0;  // 0: empty (a zero id is never added)
    format::FieldRole role = format::FieldRole::kPlain;
  };
  RefList* refs_;
  Slot cache_[1 << kCacheBits];
};

// Decodes `chunk` (an events chunk) into *s: every event when `all`,
// else the first only; with `check`, the checks too. Calls on_event for
// each event decoded, unless kWithoutEvents: then task begins with null
// ids and task ends, most of a trace, are read without an Event
// (EventStreamDecoder::NextSimpleTask).
template <bool kWithoutEvents = false, typename OnEvent>
void Summarize(const format::Chunk& chunk, bool all, bool check, EventsSummary* s,
               OnEvent&& on_event) {
  format::EventStreamDecoder dec;
  s->reset = dec.Reset(chunk.payload, chunk.flags);
  if (!s->reset.ok()) return;
  s->thread_index = dec.thread_index();
  Event e;
  s->first_offset = dec.offset();
  if (!dec.Next(&e)) {
    s->status = dec.status();
    s->stop_offset = dec.offset();
    return;
  }
  s->first = s->lo = s->hi = s->last = e.time;
  s->count = 1;
  on_event(e);
  if (!all) return;
  RefCollector refs(&s->refs);
  const auto add_ref = [&](format::FieldRole role, uint64_t id) { refs.Add(role, id); };
  if (check) format::ForEachDefinitionRef(e, add_ref);
  uint64_t offset = dec.offset();
  const auto add_event = [&](uint64_t time) {
    ++s->count;
    s->lo = std::min(s->lo, time);
    s->hi = std::max(s->hi, time);
    if (check && time < s->last && s->backs_total++ < EventChecks::kMaxKept) {
      s->backs.emplace_back(offset, s->last - time);
    }
    s->last = time;
    offset = dec.offset();
  };
  format::EventStreamDecoder::SimpleTask task;
  for (;;) {
    if (kWithoutEvents && dec.NextSimpleTask(&task)) {
      if (check) {
        // Their references as ForEachDefinitionRef gives them, in order.
        if (task.domain != 0) add_ref(format::FieldRole::kDomainRef, task.domain);
        if (task.begin && task.name != 0) add_ref(format::FieldRole::kStringRef, task.name);
      }
      add_event(task.time);
      continue;
    }
    if (!dec.Next(&e)) break;
    on_event(e);
    if (check) format::ForEachDefinitionRef(e, add_ref);
    add_event(e.time);
  }
  if (check) s->refs.Compact();
  s->unknown = dec.unknown_skipped();
  s->status = dec.status();
  s->stop_offset = dec.offset();
}

class EventsChunkDecoder final : public format::ChunkDecoder {
 public:
  explicit EventsChunkDecoder(bool check) : check_(check) {}
  std::unique_ptr<format::DecodedChunk> NewResult() const override {
    return std::make_unique<EventsSummary>();
  }
  void Decode(const format::Chunk& chunk, format::DecodedChunk* out) const override {
    auto* s = static_cast<EventsSummary*>(out);
    s->Clear();
    if (chunk.type == format::ChunkType::kEvents) {
      Summarize</*kWithoutEvents=*/true>(chunk, /*all=*/true, check_, s, [](const Event&) {});
    }
  }

 private:
  bool check_;
};

// The reading thread's part of the index pass over events chunks, in file
// order.
class EventsIndexer {
 public:
  EventsIndexer(TraceIndex* x, const IndexOptions& options)
      : x_(x),
        all_(options.decode_all_events || options.check_events || options.visitor != nullptr),
        check_(options.check_events),
        visitor_(options.visitor),
        decoder_(check_) {
    x_->checks.done = check_;
  }

  // The decoder for the reader's workers; null when events must be decoded
  // here (a visitor sees them in order) or only first events are needed.
  const format::ChunkDecoder* decoder() const {
    return all_ && visitor_ == nullptr ? &decoder_ : nullptr;
  }

  // `losses`: a count that grows whenever chunks are lost before this one
  // (the reader's; LossesSoFar).
  void Add(const format::Chunk& chunk, uint64_t losses) {
    losses_ = losses;
    if (chunk.decoded != nullptr) {
      Apply(chunk, static_cast<const EventsSummary&>(*chunk.decoded));
      return;
    }
    local_.Clear();
    ThreadRec* t = nullptr;
    Summarize(chunk, all_, check_, &local_, [&](const Event& e) {
      if (visitor_ == nullptr) return;
      if (t == nullptr) t = &ThreadOf(x_, local_.thread_index);
      visitor_->OnEvent(e, *t);
    });
    Apply(chunk, local_);
  }

  // After the last chunk: resolves the references against the definitions.
  void Finish() {
    if (!check_) return;
    refs_.Compact();
    x_->checks.too_many_refs = refs_.overflow();
    for (const auto& [role, id] : refs_.refs()) {
      if (!x_->Defines(role, id)) {
        x_->checks.undefined_refs = true;
        return;
      }
    }
  }

 private:
  void Apply(const format::Chunk& chunk, const EventsSummary& s) {
    x_->events_payload_bytes += chunk.payload.size();
    if (!s.reset.ok()) {
      MalformedPayload(x_, chunk, absl::StrCat("events chunk: ", s.reset.message()));
      ++unreadable_;  // whose events these were is unknown
      return;
    }
    ThreadRec& t = ThreadOf(x_, s.thread_index);
    t.chunk_first_times.push_back(s.first);
    // Where the thread's events resume after a loss (TraceIndex::
    // cut_chunks): at its next chunk with an event.
    if (s.first != kNoEvents) {
      ThreadLoss& loss = thread_loss_[s.thread_index];
      const uint64_t lost = losses_ + unreadable_;
      if (loss.chunks != 0 && loss.lost != lost) x_->cut_chunks.push_back(chunk.offset);
      ++loss.chunks;
      loss.lost = lost;
    }
    if (s.first == kNoEvents) {
      if (!s.status.ok()) {
        MalformedPayload(x_, chunk,
                         absl::StrCat("events chunk of thread ", s.thread_index, ": ",
                                      s.status.message(), " at payload offset ", s.stop_offset));
      }
      return;
    }
    x_->min_event_ticks = std::min(x_->min_event_ticks, s.lo);
    if (!all_) return;
    t.events += s.count;
    x_->events += s.count;
    x_->max_event_ticks = std::max(x_->max_event_ticks, s.hi);
    x_->unknown_events += s.unknown;
    if (!s.status.ok()) {
      MalformedPayload(x_, chunk, MalformedEventsReason(s.thread_index, s.status, s.stop_offset));
    }
    if (check_) Check(chunk, s);
  }

  void Check(const format::Chunk& chunk, const EventsSummary& s) {
    uint64_t& last = last_time_[s.thread_index];
    EventChecks& c = x_->checks;
    const auto add = [&](uint64_t payload_offset, uint64_t ticks) {
      if (c.time_backs_total++ < EventChecks::kMaxKept) {
        c.time_backs.push_back(TimeBack{chunk.offset, s.thread_index, payload_offset, ticks});
      }
    };
    if (s.first < last) add(s.first_offset, last - s.first);
    for (const auto& [offset, ticks] : s.backs) add(offset, ticks);
    c.time_backs_total += s.backs_total - s.backs.size();
    last = s.last;
    refs_.AddAll(s.refs);
  }

  // Per thread: its events chunks with an event so far, and the losses
  // count at the last of them.
  struct ThreadLoss {
    uint64_t chunks = 0;
    uint64_t lost = 0;
  };
  U64Map<ThreadLoss> thread_loss_;
  uint64_t losses_ = 0;
  uint64_t unreadable_ = 0;  // events chunks whose thread could not be read

  TraceIndex* x_;
  bool all_;
  bool check_;
  IndexVisitor* visitor_;
  EventsChunkDecoder decoder_;
  EventsSummary local_;
  U64Map<uint64_t> last_time_;  // per thread, with checks
  RefList refs_;                // of every chunk, with checks
};

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
      // Its tid is made up, one per index, above any Linux tid (pid_max is
      // at most 2^22), so that the exports keep such threads apart.
      t.tid = kMadeUpTidBase + t.index;
      t.label = absl::StrCat("#", t.index);
    } else if (t.name.empty()) {
      t.label = absl::StrCat(t.tid);
    } else {
      t.label = absl::StrCat(t.tid, "/", t.name);
    }
  }
}

// A count that grows whenever the reader loses events chunks (some
// thread's events): chunks missing (a gap: a damaged region that held
// chunks leaves one) and events chunks it could not use. Damaged bytes
// between two chunks in sequence, or a record chunk skipped, lose no
// events.
uint64_t LossesSoFar(const format::ReaderStats& s) {
  return s.chunks_missing + s.events_chunks_lost;
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
  EventsIndexer events(index.get(), options);
  format::ReaderOptions reader_options = format::ReaderOptions::Parallel();
  reader_options.decoder = events.decoder();
  format::TraceReader reader(std::move(*bytes), &reporter, reader_options);
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
      events.Add(chunk, LossesSoFar(reader.stats()));
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
  events.Finish();
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

namespace {

// The payload that marks an error of OpenForPass with its OpenFailure.
constexpr char kPassOpenFailureUrl[] = "ittc.itt_dump/pass_open_failure";

}  // namespace

absl::Status MarkPassOpenFailure(absl::Status s, OpenFailure failure) {
  s.SetPayload(kPassOpenFailureUrl,
               absl::Cord(std::string(1, static_cast<char>('0' + static_cast<int>(failure)))));
  return s;
}

absl::StatusOr<std::unique_ptr<format::TraceReader>> OpenForPass(
    const TraceSource& source, const format::ReaderOptions& options) {
  absl::StatusOr<std::unique_ptr<format::ByteSource>> bytes = source.Open();
  if (!bytes.ok()) return MarkPassOpenFailure(bytes.status(), OpenFailure::kIo);
  auto reader = std::make_unique<format::TraceReader>(std::move(*bytes), nullptr, options);
  absl::Status s = reader->ReadHeader();
  if (!s.ok()) {
    // The index pass read a header here: a file that ends before one now
    // was cut short since, or is a pipe, which reads once.
    const OpenFailure failure = reader->stats().bytes_read == 0 && !format::IsNotATrace(s)
                                    ? OpenFailure::kTruncated
                                    : Classify(s, reader->stats().bytes_read);
    return MarkPassOpenFailure(
        absl::Status(s.code(), absl::StrCat(s.message(),
                                            " on the second reading (itt-dump reads FILE twice: "
                                            "a file, not a pipe)")),
        failure);
  }
  return reader;
}

OpenFailure PassOpenFailure(const absl::Status& s) {
  const auto payload = s.GetPayload(kPassOpenFailureUrl);
  if (!payload.has_value() || payload->size() != 1) return OpenFailure::kNone;
  const int failure = std::string(*payload)[0] - '0';
  if (failure <= static_cast<int>(OpenFailure::kNone) ||
      failure > static_cast<int>(OpenFailure::kIo)) {
    return OpenFailure::kNone;
  }
  return static_cast<OpenFailure>(failure);
}

}  // namespace itt_dump
}  // namespace ittc
