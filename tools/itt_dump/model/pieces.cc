#include "tools/itt_dump/model/pieces.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <type_traits>

#include "format/crc32c.h"
#include "tools/itt_dump/model/search.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using Type = Piece::Entry::Type;

void Piece::EventAt(const Entry& en, Event* e) const {
  if (en.type == Type::kKeptFrame) {
    KeptFrameEvent(KeptFrameAt(en), e);
    return;
  }
  e->kind = en.kind;
  e->time = en.time;
  // Packed by Decode below from a decoded event: they unpack.
  format::UnpackFields(packed.data() + en.index, packed.data() + packed_size, e);
}

void Piece::Clear() {
  events_chunk = false;
  thread_index = 0;
  thread = nullptr;
  malformed.reason.clear();
  paired_events = 0;
  paired_last_ticks = 0;
  first_time = kNoEvents;
  last_time = 0;
  time_back = false;
  frames_forwarded = false;
  entries.clear();
  output_entries.clear();
  outputs_before.clear();
  packed_size = 0;
  opens.clear();
  begin_words.clear();
  open_task_words.clear();
  frames.clear();
  apart.entries.clear();
  apart_packed_size = 0;
  outputs = nullptr;
  outputs_size = 0;
  if (sink != nullptr) sink->Reset();
}

PieceDecoder::PieceDecoder(const TraceSet& set, size_t file, SinkFactory make_sink)
    : index_(set.index()),
      rewriter_(set.files().size() > 1 ? std::make_unique<SetRewriter>(set, file) : nullptr),
      file_index_(*set.files()[file].index),
      file_(file),
      make_sink_(std::move(make_sink)) {
  const std::unique_ptr<PieceSink> sink = make_sink_();
  for (int k = 0; k < 256; ++k) {
    const auto kind = static_cast<format::EventKind>(k);
    ignored_.push_back(sink->Ignores(kind));
    apart_.push_back(sink->KeepsApart(kind));
    taken_.push_back(!sink->wants_paired_events() && sink->TakesForwarded(kind));
    slot_.push_back(sink->KeepsApart(kind) && sink->SlotFor(kind));
  }
  outputs_apart_ = sink->outputs_apart();
}

PieceDecoder::~PieceDecoder() = default;

std::unique_ptr<format::DecodedChunk> PieceDecoder::NewResult() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pool_.empty()) {
      std::unique_ptr<Piece> p = std::move(pool_.back());
      pool_.pop_back();
      return p;
    }
  }
  auto p = std::make_unique<Piece>();
  p->sink = make_sink_();
  p->tracker_ = std::make_unique<IntervalTracker>(index_, p->sink.get());
  p->tracker_->set_collect_args(false);
  p->tracker_->set_piece_pairing(p->sink->pairing());
  p->tracker_->set_report_begins(p->sink->wants_begins());
  return p;
}

void PieceDecoder::Recycle(std::unique_ptr<Piece> piece) const {
  std::lock_guard<std::mutex> lock(mu_);
  pool_.push_back(std::move(piece));
}

namespace {

// The kEvent entry of `e`, its fields packed at `at`.
Piece::Entry EventEntry(const Event& e, size_t at) {
  Piece::Entry en;
  en.time = e.time;
  en.index = static_cast<uint32_t>(at);
  en.kind = e.kind;
  en.type = Type::kEvent;
  return en;
}

// `e` as the kEvent entry *en, its fields packed at *size in *packed (grown,
// never shrunk: its bytes past *size are scratch).
void Pack(const Event& e, Piece::Entry* en, std::vector<char>* packed, size_t* size) {
  *en = EventEntry(e, *size);
  const size_t need = *size + format::PackedFieldsBound(e);
  if (need > packed->size()) packed->resize(std::max(need, 2 * packed->size()));
  char* const base = packed->data();
  *size = static_cast<size_t>(format::PackFields(e, base + *size) - base);
}

// A frame_begin or frame_end of a null id: what a KeptFrame holds.
bool IsKeptFrameEvent(const Event& e) {
  return (e.kind == format::EventKind::kFrameBegin || e.kind == format::EventKind::kFrameEnd) &&
         e.GetId(format::Field::kId) == format::Id{};
}

// A forwarded frame_begin or frame_end of a null id as a kKeptFrame entry:
// its domain a plain word at *size in *packed (Piece::KeptFrameOf).
void PackKeptFrame(const Event& e, Piece::Entry* en, std::vector<char>* packed, size_t* size) {
  *en = EventEntry(e, *size);
  en->type = Type::kKeptFrame;
  const uint64_t domain = e.Get(format::Field::kDomain);
  if (*size + sizeof domain > packed->size()) {
    packed->resize(std::max(*size + sizeof domain, 2 * packed->size()));
  }
  std::memcpy(packed->data() + *size, &domain, sizeof domain);
  *size += sizeof domain;
}

// How many fields an event of `kind` kept apart has, where every one is a
// number (FieldValue::u): PackApart writes them as plain varints, one after
// another, without the schema's dispatch. kNotNumbers where its fields are
// packed as Pack packs them: kinds with an id or bytes field, and unknown
// kinds. (The sync, heap and counter kinds are numbers: Pack and
// UnpackFields took 224 instructions of each such event, the varints
// about half; raw words saved no more time and took 40% more memory.)
// By kind (the table is looked up once per piece or stretch).
constexpr uint8_t kNotNumbers = 0xff;
const uint8_t* ApartNumbers() {
  static const std::vector<uint8_t> numbers = [] {
    std::vector<uint8_t> n(size_t{1} << 16, kNotNumbers);
    for (size_t k = 0; k < n.size(); ++k) {
      const format::KindSchema* s = format::FindSchema(static_cast<format::EventKind>(k));
      if (s == nullptr) continue;
      bool all = true;
      for (int i = 0; i < s->field_count; ++i) {
        all = all && format::internal::StorageOf(s->fields[i].type) == format::internal::kStoredInU;
      }
      if (all) n[k] = s->field_count;
    }
    return n;
  }();
  return numbers.data();
}

// Pack for an event kept apart (`numbers`: ApartNumbers()).
void PackApart(const uint8_t* apart_numbers, const Event& e, Piece::Entry* en,
               std::vector<char>* packed, size_t* size) {
  const uint8_t numbers = apart_numbers[static_cast<uint16_t>(e.kind)];
  if (numbers == kNotNumbers) return Pack(e, en, packed, size);
  *en = EventEntry(e, *size);
  const size_t need = *size + size_t{numbers} * format::kMaxVarint64Bytes;
  if (need > packed->size()) packed->resize(std::max(need, 2 * packed->size()));
  char* const base = packed->data();
  char* at = base + *size;
  for (size_t i = 0; i < numbers; ++i) at = format::PutVarint64(at, e.fields[i].u);
  *size = static_cast<size_t>(at - base);
}

// The fields of an apart record at `p` (PackApart's) into *e, whose kind is
// set.
void UnpackApart(const uint8_t* apart_numbers, const char* p, const char* limit, Event* e) {
  const uint8_t numbers = apart_numbers[static_cast<uint16_t>(e->kind)];
  if (numbers == kNotNumbers) {
    format::UnpackFields(p, limit, e);
    return;
  }
  e->field_count = numbers;
  for (size_t i = 0; i < numbers; ++i) p = format::GetVarint64(p, limit, &e->fields[i].u);
}

// The event kept apart at entry `en` of a block whose fields are `packed`
// (PackApart's, or PackKeptFrame's for a frame of a null id), in *e.
void ApartEventAt(const uint8_t* apart_numbers, const Piece::Entry& en,
                  const std::vector<char>& packed, Event* e) {
  if (en.type == Type::kKeptFrame) {
    Piece::KeptFrameEvent(Piece::KeptFrameOf(en, packed.data()), e);
    return;
  }
  e->kind = en.kind;
  e->time = en.time;
  UnpackApart(apart_numbers, packed.data() + en.index, packed.data() + packed.size(), e);
}

// A file's simple tasks and frames with the set's ids, as the tracker's
// loop reads them (SetRewriter::MapSimpleIds).
class RewriterIds final : public IntervalTracker::SimpleIds {
 public:
  explicit RewriterIds(const SetRewriter* rewriter) : rewriter_(rewriter) {}
  void Map(format::EventStreamDecoder::SimpleTask* task) const override {
    rewriter_->MapSimpleIds(task);
  }
  void Map(format::EventStreamDecoder::SimpleFrame* frame) const override {
    rewriter_->MapSimpleIds(frame);
  }

 private:
  const SetRewriter* rewriter_;
};

// A frame kept apart, made in place field by field: one made on the stack
// and copied stalled the copy's wide load on its narrow stores (store
// forwarding).
void AddFrame(std::vector<Piece::Frame>* frames, uint64_t time, uint64_t domain, bool begin) {
  Piece::Frame& f = frames->emplace_back();
  f.time = time;
  f.domain = domain;
  f.begin = begin;
}

}  // namespace

void PieceDecoder::Decode(const format::Chunk& chunk, format::DecodedChunk* out) const {
  Piece& p = *static_cast<Piece*>(out);
  p.Clear();
  if (chunk.type != format::ChunkType::kEvents) return;
  format::EventStreamDecoder dec;
  if (!dec.Reset(chunk.payload, chunk.flags).ok()) return;
  p.events_chunk = true;
  p.file = file_;
  p.thread_index = dec.thread_index();
  p.thread = SetThread(p.thread_index);
  if (p.thread == nullptr) return;
  const ThreadRec& thread = *p.thread;
  IntervalTracker& tracker = *p.tracker_;
  // A thread alone in its process is alone with its frames.
  tracker.ResetPiece(/*pair_frames=*/file_index_.threads.size() == 1);
  p.frames_forwarded = !tracker.pairs_piece_frames();

  // The forwarded events' entries, with the running total of child ticks
  // in child_ticks; then the opens go in between and the totals become
  // steps.
  std::vector<Piece::Entry>& entries = p.entries;
  // A file of a set has its events rewritten (trace_set.h): they need an
  // Event, but where the rewrite changes no more of its simple tasks and
  // frames than their ids. Else its simple tasks go to the tracker without
  // one, their ids made the set's here where they are not (`map_ids`).
  const bool simple_tasks = rewriter_ == nullptr || rewriter_->ReadsSimpleEvents();
  const bool map_ids = rewriter_ != nullptr && rewriter_->MapsSimpleIds();
  format::EventStreamDecoder::SimpleTask task;
  Event e;
  PieceSink& sink = *p.sink;
  const bool events_to_sink = sink.wants_paired_events();
  size_t outputs = 0;  // the sink's, with entries
  // Simple tasks that only the tracker sees go through its loop for them,
  // which makes their ids the set's where they are not.
  const bool simple_runs = simple_tasks && !events_to_sink && !sink.outputs_begins();
  const RewriterIds set_ids(rewriter_.get());
  const bool stop_at_interval = sink.outputs_intervals();
  IntervalTracker::SimpleRun run;
  // Frames the piece keeps apart, read without an Event when alone.
  const bool simple_frames = simple_tasks && tracker.frames_kept_apart();
  format::EventStreamDecoder::SimpleFrame frame;
  const uint8_t* const apart_numbers = ApartNumbers();
  // With outputs apart: the sink's outputs made since the last call, at
  // the place of the event at `time`.
  const auto take_outputs = [&p, &sink, &outputs](uint64_t time) {
    while (outputs != sink.outputs()) {
      // Field by field in place: an entry made on the stack and copied
      // stalled the copy's wide load on its two narrow stores (store
      // forwarding), a tenth of Decode's samples.
      Piece::OutputEntry& o = p.output_entries.emplace_back();
      o.time = time;
      o.offset = sink.output_offset(outputs++);
    }
  };
  const auto note_time = [&p](uint64_t time) {
    if (time < p.last_time) p.time_back = true;
    if (p.first_time == kNoEvents) p.first_time = time;
    if (time > p.last_time) p.last_time = time;
  };
  for (;;) {
    IntervalTracker::PieceAction action = IntervalTracker::PieceAction::kPaired;
    bool simple = false;
    bool taken = false;  // a frame the run left over, the tracker's already
    // (A run's loop only for what it may read: it starts and ends with
    // the piece's times, which cost more than the peek between two other
    // events.)
    if (simple_runs && dec.NextMayBeSimple()) {
      run.first_time = p.first_time;
      run.last_time = p.last_time;
      run.time_back = p.time_back;
      run.paired = 0;
      run.paired_last = p.paired_last_ticks;
      tracker.PairSimpleTasks(&dec, thread, static_cast<uint32_t>(entries.size()), stop_at_interval,
                              &task, &run, simple_frames ? &p.frames : nullptr,
                              map_ids ? &set_ids : nullptr);
      p.first_time = run.first_time;
      p.last_time = run.last_time;
      p.time_back = run.time_back;
      p.paired_events += run.paired;
      p.paired_last_ticks = run.paired_last;
      taken = run.left_over_frame;
      simple = run.left_over && !taken;
      if (taken) run.frame.ToEvent(&e);
      action = run.action;
    } else if (!simple_runs) {
      simple = simple_tasks && dec.NextSimpleTask(&task);
      if (simple && map_ids) rewriter_->MapSimpleIds(&task);
    }
    if (!simple && !taken && simple_frames && dec.NextSimpleFrame(&frame)) {
      // Kept apart as OnPieceEvent would keep it, without an Event.
      if (map_ids) rewriter_->MapSimpleIds(&frame);
      note_time(frame.time);
      AddFrame(&p.frames, frame.time, frame.domain, frame.begin);
      ++p.paired_events;
      p.paired_last_ticks = frame.time;
      continue;
    }
    if (!simple && !taken) {
      if (simple_tasks && dec.NextSimpleFrame(&frame)) {
        // The event Next and the rewrite would give (a frame the piece
        // pairs: a thread alone in its process).
        if (map_ids) rewriter_->MapSimpleIds(&frame);
        frame.ToEvent(&e);
      } else {
        if (!dec.Next(&e)) break;
        if (rewriter_ != nullptr) rewriter_->Rewrite(&e, rewriter_->SetTicks(e.time));
      }
    }
    const uint64_t time = simple ? task.time : e.time;
    const auto position = static_cast<uint32_t>(entries.size());
    if ((!simple || !simple_runs) && !taken) {
      // (A simple task left over from a run is the tracker's already.)
      note_time(time);
      action = simple ? tracker.OnPieceSimpleTask(task, thread, position)
                      : tracker.OnPieceEvent(e, thread, position);
    }
    // (A simple task is the tracker's, never the sink's.)
    if (action == IntervalTracker::PieceAction::kForward && !simple &&
        static_cast<uint16_t>(e.kind) < ignored_.size()) {
      const auto k = static_cast<size_t>(e.kind);
      if (ignored_[k] || apart_[k] || taken_[k]) {
        // Nobody reads it: counted, not kept; or kept apart, or the sink's
        // here (taken_), counted with the paired ones too.
        if (apart_[k]) {
          if (IsKeptFrameEvent(e)) {
            // Its domain alone (ApartInOrder::OnApartFrame).
            PackKeptFrame(e, &p.apart.entries.emplace_back(), &p.apart.packed,
                          &p.apart_packed_size);
          } else {
            PackApart(apart_numbers, e, &p.apart.entries.emplace_back(), &p.apart.packed,
                      &p.apart_packed_size);
          }
          if (slot_[k] && outputs_apart_) {
            // Its slot (after what the sink made before it, if anything).
            sink.AddSlot();
            take_outputs(time);
          }
        } else if (taken_[k]) {
          sink.OnPairedEvent(e, thread);
        }
        ++p.paired_events;
        p.paired_last_ticks = time;
        continue;
      }
    }
    if (action == IntervalTracker::PieceAction::kForward && events_to_sink && !simple &&
        sink.TakesForwarded(e.kind)) {
      action = IntervalTracker::PieceAction::kPaired;
    }
    if (action == IntervalTracker::PieceAction::kForward && outputs != sink.outputs()) {
      sink.DropOutputsFrom(outputs);  // a forwarded task begin's (outputs_begins)
    }
    if (events_to_sink && action == IntervalTracker::PieceAction::kPaired) {
      if (simple) task.ToEvent(&e);
      sink.OnPairedEvent(e, thread);
    }
    // What the sink made of the event and the intervals it closed.
    if (outputs_apart_) take_outputs(time);
    while (outputs != sink.outputs()) {
      Piece::Entry& en = entries.emplace_back();
      en.time = time;
      en.child_ticks = tracker.piece_child_ticks();
      en.index = sink.output_offset(outputs++);
      en.type = Type::kOutput;
    }
    if (action == IntervalTracker::PieceAction::kApart) {
      AddFrame(&p.frames, e.time, e.Get(format::Field::kDomain),
               e.kind == format::EventKind::kFrameBegin);
    }
    if (action != IntervalTracker::PieceAction::kForward) {
      // Counted with the paired ones (the merge gives the frames apart).
      ++p.paired_events;
      p.paired_last_ticks = time;  // events come in time order (else time_back)
      continue;
    }
    // Forwarded (an end of a task begun before the piece): as an Event.
    if (simple) task.ToEvent(&e);
    if (outputs_apart_) p.outputs_before.push_back(static_cast<uint32_t>(p.output_entries.size()));
    Piece::Entry& en = entries.emplace_back();
    if (p.frames_forwarded && IsKeptFrameEvent(e)) {
      PackKeptFrame(e, &en, &p.packed, &p.packed_size);
    } else {
      Pack(e, &en, &p.packed, &p.packed_size);
    }
    en.child_ticks = tracker.piece_child_ticks();
  }

  if (!dec.status().ok()) {
    p.malformed = {file_, chunk.offset, chunk.stored_size,
                   MalformedEventsReason(dec.thread_index(), dec.status(), dec.offset())};
  }
  p.outputs = sink.output_records().data();
  p.outputs_size = sink.output_records().size();
  p.payload_bytes = chunk.payload.size();
  p.chunk_offset = chunk.offset;
  p.max_depth = tracker.piece_max_depth();
  p.max_open_frames = tracker.peak_keyed_open();

  p.piece_opens_.clear();
  tracker.TakePieceOpens(thread, &p.piece_opens_);
  p.begin_words = tracker.forwarded_begin_words();
  p.open_task_words = tracker.open_task_words();
  const uint64_t total_child = tracker.piece_child_ticks();
  if (!p.piece_opens_.empty()) {
    // Merge the opens in at their positions. The time of an open is that
    // of the event after it (it touches only its own thread's stack, so
    // only the order inside the thread matters), or the piece's last.
    // With outputs apart, an open comes after the outputs before the
    // event after it (the reading thread writes nothing for it).
    std::vector<Piece::Entry>& kept = p.kept_;
    kept.swap(entries);
    entries.clear();
    std::vector<uint32_t>& kept_before = p.kept_outputs_before_;
    kept_before.swap(p.outputs_before);
    p.outputs_before.clear();
    const auto outputs_total = static_cast<uint32_t>(p.output_entries.size());
    size_t next_open = 0;
    for (size_t i = 0; i <= kept.size(); ++i) {
      const uint64_t time = i < kept.size() ? kept[i].time : p.last_time;
      const uint32_t before = i < kept_before.size() ? kept_before[i] : outputs_total;
      while (next_open < p.piece_opens_.size() && p.piece_opens_[next_open].position == i) {
        const IntervalTracker::PieceOpen& o = p.piece_opens_[next_open++];
        if (outputs_apart_) p.outputs_before.push_back(before);
        Piece::Entry& en = entries.emplace_back();
        en.time = time;
        en.child_ticks = o.child_mark;
        en.index = static_cast<uint32_t>(p.opens.size());
        en.type = Type::kOpen;
        p.opens.push_back(o.interval);
        // (piece_opens_ stays as it is while the piece is merged.)
        if (!o.args.empty()) p.opens.back().args = &o.args;
      }
      if (i < kept.size()) {
        entries.push_back(kept[i]);
        if (outputs_apart_) p.outputs_before.push_back(before);
      }
    }
  }
  if (total_child != (entries.empty() ? 0 : entries.back().child_ticks)) {
    if (outputs_apart_) p.outputs_before.push_back(static_cast<uint32_t>(p.output_entries.size()));
    Piece::Entry& en = entries.emplace_back();
    en.time = p.last_time;
    en.child_ticks = total_child;
    en.type = Type::kChildTicks;
  }
  uint64_t mark = 0;  // the running total at the entry before
  for (Piece::Entry& en : entries) {
    const uint64_t running = en.child_ticks;
    en.child_ticks = running - mark;
    mark = running;
  }
}

namespace {

// Calls fn(item, thread) for the items of spans in the merge's order: by
// time, then queue. `spans` holds each queue's spans in order, the queues
// in order, queue q's from starts[q] (each span: begin, end, thread).
template <typename Span, typename Fn>
void MergeSpans(const std::vector<Span>& spans, const std::vector<size_t>& starts, Fn&& fn) {
  using Item = std::remove_cv_t<std::remove_pointer_t<decltype(Span::begin)>>;
  // A queue's head: its next item, and what follows it, in place (the scan
  // below reads only these, and giving an item no more than its own).
  struct Head {
    uint64_t time;      // of *at
    const Item* at;     // the next item
    const Item* end;    // of its span
    const Span* span;   // the span of `at`
    const Span* after;  // the queue's last span's end
  };
  std::vector<Head> heads;
  heads.reserve(starts.size());
  for (size_t q = 0; q < starts.size(); ++q) {
    const Span* first = spans.data() + starts[q];
    const Span* after = spans.data() + (q + 1 < starts.size() ? starts[q + 1] : spans.size());
    heads.push_back({first->begin->time, first->begin, first->end, first, after});
  }
  // Gives h's item; false once its queue has no more, else h is at its
  // next.
  const auto give = [&fn](Head& h) {
    fn(*h.at, *h.span->thread, *h.span);
    if (++h.at == h.end) {
      if (++h.span == h.after) return false;
      h.at = h.span->begin;
      h.end = h.span->end;
    }
    h.time = h.at->time;
    return true;
  };
  constexpr size_t kScan = 8;
  if (heads.size() <= kScan) {
    // A few queues (a process's threads): the earliest head by a scan,
    // ties to the earlier queue (erasing keeps their order).
    while (!heads.empty()) {
      size_t best = 0;
      uint64_t best_time = heads[0].time;
      for (size_t h = 1; h < heads.size(); ++h) {
        const bool earlier = heads[h].time < best_time;
        best = earlier ? h : best;
        best_time = earlier ? heads[h].time : best_time;
      }
      if (!give(heads[best])) heads.erase(heads.begin() + static_cast<std::ptrdiff_t>(best));
    }
    return;
  }
  // (time, queue): ties to the earlier queue.
  std::vector<std::pair<uint64_t, size_t>> order;
  order.reserve(heads.size());
  for (size_t q = 0; q < heads.size(); ++q) order.emplace_back(heads[q].time, q);
  std::make_heap(order.begin(), order.end(), std::greater<>());
  while (!order.empty()) {
    std::pop_heap(order.begin(), order.end(), std::greater<>());
    Head& h = heads[order.back().second];
    if (give(h)) {
      order.back().first = h.time;
      std::push_heap(order.begin(), order.end(), std::greater<>());
    } else {
      order.pop_back();
    }
  }
}

}  // namespace

// A stretch of what the pieces kept apart: spans of the queues' blocks,
// paired and summed up on a worker.
class PieceMerger::Stretch final : public format::PoolTask, public StretchRecords {
 public:
  struct FrameSpan {
    const Piece::Frame* begin;
    const Piece::Frame* end;
    const ThreadRec* thread;
  };
  struct RecordSpan {
    const Piece::Entry* begin;
    const Piece::Entry* end;
    const ThreadRec* thread;
    const Records* records;
  };
  // Each queue's spans in order, the queues in order (their ties' order),
  // queue q's from *_starts[q] (queues with none left out).
  std::vector<FrameSpan> frames;
  std::vector<size_t> frame_starts;
  std::vector<RecordSpan> records;
  std::vector<size_t> record_starts;
  // What the spans point into.
  std::vector<std::shared_ptr<const std::vector<Piece::Frame>>> frame_blocks;
  std::vector<std::shared_ptr<const Records>> record_blocks;
  size_t items = 0;
  size_t bytes = 0;  // counted in the merge's buffered bytes
  std::unique_ptr<ApartStretch> consumer;
  std::unique_ptr<KeptFramePairing> pairing;

  void Run() override {
    MergeSpans(frames, frame_starts,
               [this](const Piece::Frame& f, const ThreadRec& t, const FrameSpan&) {
                 pairing->OnFrame(f, t);
               });
    ApartStretch* c = consumer.get();
    EachRecord([c](const Event& e, const ThreadRec& t) { c->OnRecord(e, t); });
  }
  void ForEachFrame(const std::function<void(const Piece::Frame&, const ThreadRec&)>& fn) const {
    MergeSpans(frames, frame_starts,
               [&fn](const Piece::Frame& f, const ThreadRec& t, const FrameSpan&) { fn(f, t); });
  }
  void ForEachRecord(const std::function<void(const Event&, const ThreadRec&)>& fn) const override {
    EachRecord(fn);
  }
  // ForEachRecord's work, with the call to `fn` inline (Run's).
  template <typename Fn>
  void EachRecord(const Fn& fn) const {
    Event e;
    const uint8_t* const numbers = ApartNumbers();
    MergeSpans(
        records, record_starts,
        [&fn, &e, numbers](const Piece::Entry& en, const ThreadRec& t, const RecordSpan& span) {
          ApartEventAt(numbers, en, span.records->packed, &e);
          fn(e, t);
        });
  }
  void Clear() {
    frames.clear();
    frame_starts.clear();
    records.clear();
    record_starts.clear();
    frame_blocks.clear();
    record_blocks.clear();
    items = 0;
    bytes = 0;
    pairing->Clear();
  }
};

// A run of the output, with outputs apart (PieceMerger::set_ordered_output):
// the outputs of spans of the queues' pieces and the reading thread's own
// bytes, merged on a worker. Step by step: the outputs before the step's
// place, then the own bytes up to its own_end.
class PieceMerger::OutputRun final : public format::PoolTask {
 public:
  // Run fetches a span's outputs this many ahead of the one it copies:
  // a worker wrote them, often long before, and the copy waited for
  // each (text on the frames trace: 4.5% less CPU in all, ab.sh 3 rounds;
  // 4 and 16 ahead did as well).
  static constexpr size_t kOutputsAhead = 8;
  struct Span {
    const Piece::OutputEntry* begin;
    const Piece::OutputEntry* end;
    const ThreadRec* thread;
    const Piece* piece;
    int queue;
    // Its outputs' holes: the piece sink's from hole_first on, filled with
    // hole_texts from text_first on: a text per hole, but with by_key
    // those after the first `early` (filled before a change), which take
    // the texts after theirs by key number (PieceSink::hole_key).
    size_t hole_first = 0;
    size_t hole_count = 0;
    size_t text_first = 0;
    size_t early = 0;
    bool by_key = false;
    // Its outputs' slots: the piece sink's from slot_first on, their
    // records the run's slot_records from slot_record_first on.
    size_t slot_first = 0;
    size_t slot_count = 0;
    size_t slot_record_first = 0;
    std::string_view HoleText(const std::vector<std::string_view>& texts,
                              const PieceSink::Hole& hole, size_t h) const {
      return by_key && h >= early ? texts[text_first + early + hole.key_number]
                                  : texts[text_first + h];
    }
  };
  struct Step {
    Bound bound;
    size_t own_end = 0;
    size_t records_end = 0;  // in own_records
  };
  // A record among the own bytes (AppendOwnRecord): at own_at in them,
  // its bytes [begin, begin + size) of records.
  struct OwnRecord {
    size_t own_at;
    size_t begin;
    size_t size;
  };
  // Each queue's spans in order, the queues in order (their ties' order),
  // queue q's from starts[q] (queues with none left out).
  std::vector<Span> spans;
  std::vector<size_t> starts;
  std::vector<Step> steps;
  std::string own;
  std::vector<OwnRecord> own_records;
  // (Not a std::string: resizing one zero-fills the room each record
  // takes, 2% of chrome's reading thread on the frames trace.)
  TextBuffer records;
  std::unique_ptr<OwnRecordFormatter> formatter;  // kept with the run for its next use
  std::vector<std::string_view> hole_texts;
  // The slots' records: [begin, end) of records each.
  std::vector<std::pair<size_t, size_t>> slot_records;
  std::string out;
  uint32_t crc = 0;  // out's, where the ordered output wants it
  bool wants_crc = true;
  // The pieces whose last outputs are in the run.
  std::vector<Piece*> finished;
  uint64_t outputs = 0;
  std::vector<size_t> filled;        // Run's: by span, its holes filled so far
  std::vector<size_t> slots_filled;  // and its slots

  void Run() override {
    // Its size, to make room once: a span's outputs are one stretch of
    // their piece's records, each with its 4-byte length.
    size_t size = own.size();
    bool holes = false;
    for (const Span& s : spans) {
      const Piece& p = *s.piece;
      const size_t end = s.end != p.output_entries.data() + p.output_entries.size()
                             ? s.end->offset
                             : p.outputs_size;
      size += end - s.begin->offset - sizeof(uint32_t) * static_cast<size_t>(s.end - s.begin);
      holes |= s.hole_count != 0 || s.slot_count != 0;
    }
    // Without holes and records to fill in, the run's size is that: its
    // bytes go in place (perfetto's packets, of a dozen bytes each, went
    // through two calls each in append: 6% of the export's CPU).
    if (!holes && own_records.empty()) {
      out.resize(size);
      Assemble<true>();
    } else {
      out.clear();
      out.reserve(size + 2 * records.size());
      Assemble<false>();
    }
    crc = wants_crc ? format::crc32c::Value(out.data(), out.size()) : 0;
  }
  // Copies n bytes, a few loads and stores for up to 64 of them: the
  // first and the last 8, 16 or 32 bytes, overlapping, in 8-byte words
  // (an array of chars would cost the stack protector's check per call).
  static void CopyShort(char* to, const char* from, size_t n) {
    if (n > 64 || n < 8) {
      std::memcpy(to, from, n);
      return;
    }
    const size_t words = n <= 16 ? 1 : n <= 32 ? 2 : 4;  // per end
    uint64_t head[4];
    uint64_t tail[4];
    for (size_t w = 0; w < words; ++w) {
      std::memcpy(&head[w], from + 8 * w, 8);
      std::memcpy(&tail[w], from + n - 8 * (words - w), 8);
    }
    for (size_t w = 0; w < words; ++w) {
      std::memcpy(to + 8 * w, &head[w], 8);
      std::memcpy(to + n - 8 * (words - w), &tail[w], 8);
    }
  }
  // Merges the run's bytes into `out`: with kInPlace into its bytes as
  // sized (no holes, no records), else appended.
  template <bool kInPlace>
  void Assemble() {
    char* at = out.data();
    const auto put = [this, &at](const char* p, size_t n) {
      if constexpr (kInPlace) {
        CopyShort(at, p, n);
        at += n;
      } else {
        out.append(p, n);
      }
    };
    size_t step = 0;
    size_t own_at = 0;
    size_t record = 0;
    // Step `step` has all its outputs: its own bytes go out, with its
    // records formatted at their places.
    const auto own_out = [this, &step, &own_at, &record, &put] {
      if constexpr (!kInPlace) {
        for (const size_t records_end = steps[step].records_end; record < records_end; ++record) {
          const OwnRecord& r = own_records[record];
          out.append(own, own_at, r.own_at - own_at);
          own_at = r.own_at;
          formatter->Format(std::string_view(records.data() + r.begin, r.size), &out);
        }
      }
      const size_t end = steps[step].own_end;
      put(own.data() + own_at, end - own_at);
      own_at = end;
      ++step;
    };
    filled.assign(spans.size(), 0);
    slots_filled.assign(spans.size(), 0);
    if (!spans.empty()) {
      MergeSpans(spans, starts,
                 [this, &step, &own_out, &put](const Piece::OutputEntry& o, const ThreadRec&,
                                               const Span& span) {
                   const Piece& p = *span.piece;
                   const auto index = static_cast<uint64_t>(&o - p.output_entries.data());
                   const uint64_t position = p.output_base + index;
                   // (The spans end before the last step's place.)
                   while (step + 1 < steps.size() &&
                          !Before(steps[step].bound, span.queue, o.time, position)) {
                     own_out();
                   }
                   // (Two cache lines: a line of text is shorter than 64 bytes.)
                   if (&o + kOutputsAhead < span.end) {
                     const char* ahead = p.outputs + (&o)[kOutputsAhead].offset;
                     __builtin_prefetch(ahead);
                     __builtin_prefetch(ahead + 64);
                   }
                   const std::string_view bytes = p.OutputAt(o.offset);
                   size_t from = 0;
                   if constexpr (!kInPlace) {
                     const auto span_index = static_cast<size_t>(&span - spans.data());
                     size_t& k = slots_filled[span_index];
                     if (k < span.slot_count && p.sink->slots()[span.slot_first + k] == index) {
                       // A slot: its record formatted (its output has no bytes).
                       const auto [begin, end] = slot_records[span.slot_record_first + k];
                       if (end > begin) {
                         formatter->Format(std::string_view(records.data() + begin, end - begin),
                                           &out);
                       }
                       ++k;
                     }
                     size_t& h = filled[span_index];
                     const std::vector<PieceSink::Hole>& holes = p.sink->holes();
                     while (h < span.hole_count && holes[span.hole_first + h].output == index) {
                       const PieceSink::Hole& hole = holes[span.hole_first + h];
                       out.append(bytes.data() + from, hole.at - from);
                       const std::string_view text = span.HoleText(hole_texts, hole, h);
                       out.append(text.data(), text.size());
                       from = hole.at;
                       ++h;
                     }
                   }
                   put(bytes.data() + from, bytes.size() - from);
                 });
    }
    while (step < steps.size()) own_out();
  }
  void Clear() {
    spans.clear();
    starts.clear();
    steps.clear();
    own.clear();
    own_records.clear();
    records.clear();
    hole_texts.clear();
    slot_records.clear();
    // (`out` keeps its bytes: Run sizes it, and a resize to a size it had
    // fills nothing.)
    finished.clear();
    outputs = 0;
  }
};

PieceMerger::PieceMerger(const TraceSet& set, PieceDecoder::SinkFactory make_sink,
                         const MergeOptions& options, OnPiece on_piece, size_t only_file,
                         format::ReaderPool* pool)
    : set_(set), options_(options), on_piece_(std::move(on_piece)) {
  if (options.stretch_items != 0) stretch_items_ = options.stretch_items;
  if (options.run_outputs != 0) {
    run_outputs_ = options.run_outputs;
    run_steps_ = std::max<size_t>(1, options.run_outputs / 4);
  }
  if (set.alignment() == TimeAlignment::kWallClock) {
    Fail("the files are aligned by wall clock");
    return;
  }
  const int threads = format::OnlineCpus();
  if (pool == nullptr) {
    own_pool_ = std::make_unique<format::ReaderPool>(threads);
    pool = own_pool_.get();
  }
  pool_ = pool;
  const size_t n = set.files().size();
  pass_files_ = only_file == kEveryFile ? n : 1;
  format::ReaderOptions ro;
  ro.pool = pool_;
  // One file: the workers run up to 16 chunks ahead of the reading thread
  // besides their own, so that they keep working while it is off its core
  // (with 2 * threads + 2 they waited for it: 1.70 cores busy of 2 on the
  // 64 M-event trace, 1.80 with this). One chunk ahead per file for
  // several: their decoding overlaps anyway.
  ro.max_in_flight = pass_files_ == 1 ? 2 * threads + kChunksAhead : 2;
  files_.resize(n);
  // A queue per thread of the files taken, made at once (a Queue cannot
  // move: its deques' moves may throw).
  size_t queue_count = 0;
  for (size_t f = 0; f < n; ++f) {
    if (only_file == kEveryFile || f == only_file) {
      queue_count += set.files()[f].index->threads.size();
    }
  }
  queues_ = std::vector<Queue>(queue_count);
  size_t next_queue = 0;
  for (size_t f = 0; f < n; ++f) {
    File& file = files_[f];
    if (only_file != kEveryFile && f != only_file) {
      file.done = true;  // not in the pass
      continue;
    }
    file.decoder = std::make_unique<PieceDecoder>(set, f, make_sink);
    ro.decoder = file.decoder.get();
    absl::StatusOr<std::unique_ptr<format::TraceReader>> reader =
        OpenForPass(set.files()[f].source, ro);
    if (!reader.ok()) {
      Fail("a file could not be opened again");
      return;
    }
    file.reader = std::move(*reader);
    const TraceIndex& x = *set.files()[f].index;
    for (const auto& [thread_index, rec] : x.threads.entries()) {
      queue_of_thread_[uint64_t{f} << 32 | thread_index] = static_cast<int>(next_queue);
      Queue& q = queues_[next_queue++];
      q.file = f;
      q.local = &rec;
      q.thread = file.decoder->SetThread(thread_index);
    }
  }
  files_done_ = n - pass_files_;
  serial_held_.assign(n, 0);
  serial_budget_ = set.LookaheadPerFile(options.max_buffered_bytes);
  waiting_ = WaitingThreads(queues_.size());
  heads_.SetQueues(queues_.size());
  for (size_t i = 0; i < queues_.size(); ++i) UpdateWaiting(static_cast<int>(i));
}

void PieceMerger::ReadAhead() {
  for (File& file : files_) {
    if (file.reader != nullptr) file.reader->ReadAhead();
  }
}

void PieceMerger::JoinLastStretches() {
  if (read_ahead_ != nullptr) {
    read_ahead_->ReadAhead();
    read_ahead_ = nullptr;
  }
  JoinStretches(/*all=*/true);
}

PieceMerger::~PieceMerger() {
  // The stretches in flight point into the queues' blocks (which they
  // share) and run on the pool.
  for (const std::unique_ptr<Stretch>& s : stretches_) pool_->Wait(s.get());
  for (const std::unique_ptr<OutputRun>& r : runs_) pool_->Wait(r.get());
  for (std::unique_ptr<Piece>& p : parked_) {
    const size_t f = p->file;
    files_[f].decoder->Recycle(std::move(p));
  }
  for (Queue& q : queues_) {
    for (std::unique_ptr<Piece>& p : q.pieces) {
      const size_t f = p->file;
      files_[f].decoder->Recycle(std::move(p));
    }
  }
}

void PieceMerger::UpdateWaiting(int qi) {
  // A queue with a head (current_'s included) waits for nothing, nor does
  // one whose file is read to the end.
  const Queue& q = queues_[static_cast<size_t>(qi)];
  uint64_t first = kNoEvents;
  if (!q.has_head() && !files_[q.file].done) {
    first = WaitingThreads::NextFirstTime(*q.local, q.chunks_read);
    if (first != kNoEvents) first = set_.SetTicks(q.file, first);
  }
  waiting_.Set(qi, first);
}

uint64_t PieceMerger::FirstUnread() const {
  uint64_t first = kNoEvents;
  for (const Queue& q : queues_) {
    if (files_[q.file].done) continue;
    const uint64_t t = WaitingThreads::NextFirstTime(*q.local, q.chunks_read);
    if (t != kNoEvents) first = std::min(first, set_.SetTicks(q.file, t));
  }
  return first;
}

size_t PieceMerger::FileToRead() const {
  const int qi = waiting_.first_queue();
  if (qi >= 0) return queues_[static_cast<size_t>(qi)].file;
  for (size_t f = 0; f < files_.size(); ++f) {
    if (!files_[f].done) return f;
  }
  return 0;
}

void PieceMerger::CutBefore(Piece* piece) const {
  // Where the serial merge cuts (the chunk's first event: Event::
  // after_loss), before anything of the piece.
  Piece::Entry cut;
  cut.time = piece->first_time;
  cut.type = Piece::Entry::Type::kCut;
  piece->entries.insert(piece->entries.begin(), cut);
  if (files_[piece->file].decoder->outputs_apart()) {
    piece->outputs_before.insert(piece->outputs_before.begin(), 0);
  }
}

void PieceMerger::CountQueued(Piece* piece) {
  piece->queued_bytes =
      sizeof(Piece) + piece->entries.capacity() * sizeof(Piece::Entry) + piece->packed.capacity() +
      piece->opens.capacity() * sizeof(Interval) + piece->sink->output_records().capacity() +
      (piece->begin_words.capacity() + piece->open_task_words.capacity()) * sizeof(uint64_t) +
      piece->output_entries.capacity() * sizeof(Piece::OutputEntry) +
      piece->outputs_before.capacity() * sizeof(uint32_t);
  buffered_ += piece->queued_bytes;
}

void PieceMerger::Enqueue(int qi, std::unique_ptr<Piece> piece) {
  Queue& q = queues_[static_cast<size_t>(qi)];
  const bool had_head = q.has_head();
  q.pieces.push_back(std::move(piece));
  if (!had_head) {
    q.SetFront();
    CheckDepth(q);
    if (qi != current_) heads_.Push(q.head_time(), qi);
  }
}

namespace {

// Readies a spent block's vectors for a worker to fill. A Records' packed
// bytes keep their size: the room PackApart writes into.
void ClearForReuse(std::vector<Piece::Frame>* frames) { frames->clear(); }
void ClearForReuse(Piece::Records* records) { records->entries.clear(); }

// Takes over what a piece kept (not copied), and leaves it the vectors of a
// spent block from `spares` (or new ones) to fill next.
template <typename T>
std::shared_ptr<const T> TakeOver(T* kept, std::vector<T>* spares) {
  auto taken = std::make_shared<const T>(std::move(*kept));
  *kept = T();
  if (!spares->empty()) {
    *kept = std::move(spares->back());
    spares->pop_back();
    ClearForReuse(kept);
  }
  return taken;
}

}  // namespace

std::vector<ShortReading> PieceMerger::ShortReadings() const {
  std::vector<ShortReading> short_readings;
  for (size_t f = 0; f < files_.size(); ++f) {
    NoteShortReading(set_, f, files_[f].reader.get(), &short_readings);
  }
  return short_readings;
}

bool PieceMerger::ReadChunk(size_t f) {
  File& file = files_[f];
  format::Chunk chunk;
  while (file.reader->Next(&chunk)) {
    if (options_.progress != nullptr && files_.size() == 1) {
      options_.progress->Update(file.reader->stats().chunks_read);
    }
    std::unique_ptr<format::DecodedChunk> decoded = file.reader->TakeDecoded();
    if (decoded == nullptr) continue;
    std::unique_ptr<Piece> piece(static_cast<Piece*>(decoded.release()));
    if (!piece->events_chunk) {
      file.decoder->Recycle(std::move(piece));
      continue;
    }
    if (piece->thread == nullptr) return Fail("a thread the index pass did not see");
    const int qi = *queue_of_thread_.Find(uint64_t{f} << 32 | piece->thread_index);
    Queue& q = queues_[static_cast<size_t>(qi)];
    if (piece->time_back || (q.any && piece->first_time < q.last_time)) {
      return Fail("a thread's time goes back");
    }
    if (piece->first_time != kNoEvents) {
      if (q.cut_next || set_.files()[f].index->CutsAt(piece->chunk_offset)) {
        CutBefore(piece.get());
      }
      q.cut_next = false;
    }
    if (!piece->malformed.reason.empty()) q.cut_next = true;  // the rest of its events lost
    // What the serial merge holds of it, and until when: a chunk with
    // events until its last is passed; one with no event it can decode
    // (its first is malformed) until its thread's earlier events are
    // (it drops the payload when its queue reaches it), or not at all.
    const bool holds = piece->first_time != kNoEvents || q.any;
    if (piece->first_time != kNoEvents) {
      q.any = true;
      q.last_time = piece->last_time;
    }
    if (holds) {
      held_.push_back({q.last_time, f, piece->payload_bytes});
      std::push_heap(held_.begin(), held_.end(), std::greater<>());
      if ((serial_held_[f] += piece->payload_bytes) > serial_budget_) {
        return Fail("the serial merge could pass its lookahead");
      }
    }
    ++q.chunks_read;
    max_piece_open_frames_ = std::max(max_piece_open_frames_, piece->max_open_frames);
    if (pass_files_ > kManyFiles && probe_events_ < kProbeEvents) {
      probe_events_ += piece->paired_events + piece->entries.size();
      probe_kept_ += piece->entries.size() + piece->frames.size();
      if (probe_events_ >= kProbeEvents && probe_kept_ * kManyFilesKeep > probe_events_) {
        return Fail("the pieces of this many files keep too many events");
      }
    }
    on_piece_(*piece);
    if ((!piece->frames.empty() && apart_consumer_ == nullptr) ||
        (!piece->apart.entries.empty() && apart_consumer_ == nullptr && in_order_ == nullptr)) {
      return Fail("items kept apart with nothing to take them");
    }
    if (!piece->apart.entries.empty() && in_order_ != nullptr) {
      // For the consumer to take in order, not in stretches.
      in_order_held_ += piece->apart.entries.size();
      buffered_ += piece->apart.entries.size() * sizeof(Piece::Entry) + piece->apart_packed_size;
      piece->apart.packed.resize(piece->apart_packed_size);
      q.in_order.push_back({TakeOver(&piece->apart, &spare_records_), 0});
      if (q.in_order.size() == 1) {
        // A head again, among the others in queue order.
        ApartHead h;
        h.queue = &q;
        h.decoder = file.decoder.get();
        SetApartHead(&h);
        const auto at = std::find_if(apart_heads_.begin(), apart_heads_.end(),
                                     [&q](const ApartHead& o) { return o.queue > &q; });
        apart_heads_.insert(at, h);
      }
    }
    if (!piece->frames.empty()) {
      items_held_ += piece->frames.size();
      buffered_ += piece->frames.size() * sizeof(Piece::Frame);
      q.frames.push_back({TakeOver(&piece->frames, &spare_frames_), 0});
    }
    if (!piece->apart.entries.empty()) {
      items_held_ += piece->apart.entries.size();
      buffered_ += piece->apart.entries.size() * sizeof(Piece::Entry) + piece->apart_packed_size;
      piece->apart.packed.resize(piece->apart_packed_size);
      q.records.push_back({TakeOver(&piece->apart, &spare_records_), 0});
    }
    piece->holds = 0;
    piece->output_base = q.outputs_read;
    piece->holes_taken = 0;
    piece->hole_texts.clear();
    piece->slots_taken = 0;
    if (!piece->output_entries.empty()) {
      if (ordered_ == nullptr) return Fail("outputs apart with nothing to write them");
      piece->holds = 1;
      holes_waiting_ += piece->sink->holes().size();
      q.outputs_read += piece->output_entries.size();
      outputs_waiting_ += piece->output_entries.size();
      q.outs.push_back(piece.get());
      run_cap_known_ = false;  // the queue may reach a share now
    }
    if (!piece->entries.empty()) {
      ++piece->holds;
      CountQueued(piece.get());
      Enqueue(qi, std::move(piece));
    } else if (piece->holds != 0) {
      CountQueued(piece.get());
      parked_.push_back(std::move(piece));
    } else {
      file.decoder->Recycle(std::move(piece));
    }
    UpdateWaiting(qi);
    if (in_order_held_ > stretch_items_) {
      // They wait no longer than stretches would (memory).
      const uint64_t known = FirstUnread();
      while (GiveApartEvent(known)) {
      }
    }
    GiveStretch();
    if (buffered_ > options_.max_buffered_bytes) return Fail("the merge's memory bound");
    return true;
  }
  file.done = true;
  for (size_t i = 0; i < queues_.size(); ++i) {
    if (queues_[i].file == f) UpdateWaiting(static_cast<int>(i));
  }
  if (++files_done_ == files_.size()) {
    reader_done_ = true;
    waiting_.SetDone();
  }
  GiveStretch();
  return false;
}

void PieceMerger::CheckDepth(const Queue& q) {
  if (q.depth + q.pieces.front()->max_depth >= IntervalTracker::kMaxDepth) {
    Fail("tasks nest past the pairing engine's limit");
  }
}

void PieceMerger::Issue(int qi, Item* item) {
  Queue& q = queues_[static_cast<size_t>(qi)];
  const Piece& p = *q.front;
  const Piece::Entry& en = *q.head;
  *item = {&p, q.head, q.thread};
  switch (en.type == Piece::Entry::Type::kEvent ? en.kind : format::EventKind::kInvalid) {
    case format::EventKind::kTaskBegin:
    case format::EventKind::kTaskBeginFn:
    case format::EventKind::kTaskBeginEx:
    case format::EventKind::kTaskBeginFnEx:
      ++q.depth;
      break;
    case format::EventKind::kTaskEnd:
    case format::EventKind::kTaskEndEx:
      if (q.depth != 0) --q.depth;
      break;
    default:
      if (en.type == Piece::Entry::Type::kOpen && p.opens[en.index].kind == IntervalKind::kTask) {
        ++q.depth;
      } else if (en.type == Piece::Entry::Type::kCut) {
        q.depth = 0;  // the tracker leaves the thread's tasks behind
      }
      break;
  }
  PassTime(en.time);
  if (ordered_ != nullptr) {
    // (The outputs before it, read while it waited, may be many.)
    if (outputs_waiting_ >= run_outputs_ && (!run_cap_known_ || en.time > run_cap_)) {
      CloseRunsBefore(en.time);
    }
    const auto at = static_cast<size_t>(q.head - p.entries.data());
    const uint64_t before = at < p.outputs_before.size() ? p.outputs_before[at] : 0;
    // Field by field, and copied so (CopyBound).
    Bound place;
    place.time = en.time;
    place.queue = qi;
    place.position = p.output_base + before;
    AddStep(place);
    if (building_->steps.size() >= run_steps_ ||
        building_->own.size() + building_->records.size() >= kRunOwnBytes) {
      CloseRun();
    }
  }
}

void PieceMerger::set_ordered_output(OrderedOutput* out) {
  for (const File& file : files_) {
    if (file.decoder != nullptr && !file.decoder->outputs_apart()) {
      Fail("an ordered output for outputs that are not apart");
      return;
    }
  }
  ordered_ = out;
  building_ = std::make_unique<OutputRun>();
  building_->wants_crc = ordered_->wants_crc();
  // Before the first item: no outputs, then the own bytes.
  building_->steps.push_back({Bound{0, -1, 0, false}, 0, 0});
}

void PieceMerger::AppendOwn(const char* p, size_t n) { building_->own.append(p, n); }

char* PieceMerger::AppendOwnRecord(size_t n) {
  OutputRun& r = *building_;
  if (r.formatter == nullptr) r.formatter = ordered_->NewRecordFormatter();
  const size_t at = r.records.size();
  r.own_records.push_back({r.own.size(), at, n});
  char* room = r.records.Room(n);
  r.records.Advance(n);
  return room;
}

void PieceMerger::AddStep(const Bound& bound) {
  ordered_->Settle();
  std::vector<OutputRun::Step>& steps = building_->steps;
  const size_t own_end = building_->own.size();
  const size_t records_end = building_->own_records.size();
  if (steps.size() > 1) {
    const OutputRun::Step& last = steps[steps.size() - 2];
    if (own_end == last.own_end && records_end == last.records_end) {
      // The last step has no own bytes: its outputs and the next's go at once.
      CopyBound(bound, &steps.back().bound);
      return;
    }
  }
  steps.back().own_end = own_end;
  steps.back().records_end = records_end;
  OutputRun::Step& step = steps.emplace_back();
  CopyBound(bound, &step.bound);
  step.own_end = own_end;
  step.records_end = records_end;
}

void PieceMerger::CloseRun() {
  std::unique_ptr<OutputRun> run = std::move(building_);
  OutputRun& r = *run;
  bool broken = false;  // a slot's record missing: the pass stops
  r.steps.back().own_end = r.own.size();
  r.steps.back().records_end = r.own_records.size();
  const Bound bound = r.steps.back().bound;
  // Where the searches below start, asked for at once: each a line another
  // core wrote, which one after another would each wait for.
  for (const Queue& q : queues_) {
    if (q.outs.empty()) continue;
    const Piece& p = *q.outs.front();
    const size_t at = q.out_next + q.last_run_outputs;
    if (at < p.output_entries.size()) __builtin_prefetch(&p.output_entries[at]);
    const std::vector<PieceSink::Hole>& holes = p.sink->holes();
    if (p.holes_taken < holes.size()) __builtin_prefetch(&holes[p.holes_taken]);
  }
  for (size_t i = 0; i < queues_.size(); ++i) {
    Queue& q = queues_[i];
    const int qi = static_cast<int>(i);
    bool first = true;
    // Where its searches start: as many outputs as its last run took.
    size_t guess_left = q.last_run_outputs;
    const uint64_t outputs_before = r.outputs;
    while (!q.outs.empty()) {
      Piece* p = q.outs.front();
      const std::vector<Piece::OutputEntry>& entries = p->output_entries;
      const size_t begin = q.out_next;
      size_t end = entries.size();
      if (bound.all) {
      } else if (qi == bound.queue) {
        end = static_cast<size_t>(std::clamp<uint64_t>(
            bound.position - std::min(bound.position, p->output_base), begin, end));
      } else {
        const auto from = entries.begin() + static_cast<std::ptrdiff_t>(begin);
        const auto guess =
            from + static_cast<std::ptrdiff_t>(std::min(guess_left, entries.size() - begin));
        // Ties go before the place when their queue comes first.
        const uint64_t t = bound.time;
        end = static_cast<size_t>(
            (qi < bound.queue
                 ? PartitionPointNear(from, entries.end(), guess,
                                      [t](const Piece::OutputEntry& o) { return o.time <= t; })
                 : PartitionPointNear(from, entries.end(), guess,
                                      [t](const Piece::OutputEntry& o) { return o.time < t; })) -
            entries.begin());
      }
      guess_left -= std::min(guess_left, end - begin);
      if (end > begin) {
        if (first) r.starts.push_back(r.spans.size());
        first = false;
        OutputRun::Span& span = r.spans.emplace_back(
            OutputRun::Span{entries.data() + begin, entries.data() + end, q.thread, p, qi});
        r.outputs += end - begin;
        // The holes of its outputs: those filled before a change, the rest now.
        const std::vector<PieceSink::Hole>& holes = p->sink->holes();
        const auto from = holes.begin() + static_cast<std::ptrdiff_t>(p->holes_taken);
        // Guessed at the run's share of the piece's outputs left (any
        // guess gives the same point).
        const auto holes_left = static_cast<size_t>(holes.end() - from);
        const auto guess_holes =
            static_cast<std::ptrdiff_t>(holes_left * (end - begin) / (entries.size() - begin));
        const auto n = static_cast<size_t>(
            PartitionPointNear(from, holes.end(), from + guess_holes,
                               [end](const PieceSink::Hole& h) { return h.output < end; }) -
            from);
        span.hole_first = p->holes_taken;
        span.hole_count = n;
        span.text_first = r.hole_texts.size();
        const size_t filled = std::min(n, p->hole_texts.size());
        const auto taken = p->hole_texts.begin() + static_cast<std::ptrdiff_t>(filled);
        r.hole_texts.insert(r.hole_texts.end(), p->hole_texts.begin(), taken);
        p->hole_texts.erase(p->hole_texts.begin(), taken);
        span.early = filled;
        // The rest by key where they have fewer keys than holes.
        const size_t rest = p->holes_taken + filled;
        const size_t end_hole = p->holes_taken + n;
        const size_t keys = p->sink->HoleKeysBefore(end_hole);
        span.by_key = keys < end_hole - rest;
        if (span.by_key) {
          for (size_t k = 0; k < keys; ++k) {
            CachedHoleText(p->sink->hole_key(k), &r.hole_texts.emplace_back());
          }
        } else {
          HoleTexts(*p, rest, end_hole, &r.hole_texts);
        }
        p->holes_taken += n;
        holes_waiting_ -= n;
        // Its slots, with their records.
        const std::vector<uint32_t>& slots = p->sink->slots();
        if (p->slots_taken < slots.size()) {
          const auto slots_from = slots.begin() + static_cast<std::ptrdiff_t>(p->slots_taken);
          const auto k = static_cast<size_t>(
              std::lower_bound(slots_from, slots.end(), static_cast<uint32_t>(end)) - slots_from);
          span.slot_first = p->slots_taken;
          span.slot_count = k;
          span.slot_record_first = r.slot_records.size();
          if (k != 0 && !TakeSlots(&q, k, &r)) broken = true;
          p->slots_taken += k;
        }
      }
      if (end < entries.size()) {
        q.out_next = end;
        break;
      }
      r.finished.push_back(p);
      q.outs.pop_front();
      q.out_next = 0;
    }
    q.last_run_outputs = r.outputs - outputs_before;
  }
  outputs_waiting_ -= r.outputs;
  run_cap_known_ = false;  // the queues' first outputs moved on
  // The serial merge is past every event before the place.
  if (!bound.all) PassTime(bound.time);
  if (!spare_runs_.empty()) {
    building_ = std::move(spare_runs_.back());
    spare_runs_.pop_back();
  } else {
    building_ = std::make_unique<OutputRun>();
  }
  building_->wants_crc = ordered_->wants_crc();
  // The next run starts at the place, with the own bytes of its item.
  building_->steps.push_back({bound, 0, 0});
  if (broken) {
    // Not written: the runs before it are the output's start.
    Fail("an event kept apart that was not read by its slot's run");
    run->Clear();
    spare_runs_.push_back(std::move(run));
    return;
  }
  while (runs_.size() >= MaxInFlight()) {
    Ready(runs_.front().get(), /*wait=*/true);
    WriteRuns(/*all=*/false);
  }
  pool_->Submit(run.get());
  runs_.push_back(std::move(run));
  WriteRuns(/*all=*/false);
}

bool PieceMerger::GiveApartEvent(uint64_t before, bool any) {
  // The earliest of the heads (ties to the earlier queue: they are in
  // queue order), by a scan: the queues of a pass at once are few
  // (kManyFiles files).
  const size_t n = apart_heads_.size();
  if (n == 0) return false;
  size_t best = 0;
  uint64_t best_time = apart_heads_[0].at->time;
  for (size_t i = 1; i < n; ++i) {
    const uint64_t t = apart_heads_[i].at->time;
    const bool earlier = t < best_time;
    best = earlier ? i : best;
    best_time = earlier ? t : best_time;
  }
  if (!any && best_time >= before) return false;
  ApartHead& h = apart_heads_[best];
  Queue& q = *h.queue;
  const Piece::Entry& en = *h.at;
  const bool slot = h.decoder->SlotFor(en.kind);
  slot_queue_ = slot ? &q : nullptr;
  if (en.type == Piece::Entry::Type::kKeptFrame) {
    in_order_->OnApartFrame(Piece::KeptFrameOf(en, h.packed->data()), *q.thread);
  } else {
    ApartEventAt(ApartNumbers(), en, *h.packed, &apart_event_);
    in_order_->OnApartEvent(apart_event_, *q.thread);
  }
  slot_queue_ = nullptr;
  // Its slot's record: what the consumer left (maybe nothing).
  if (slot) q.slot_ends.push_back(q.slot_bytes.size());
  --in_order_held_;
  if (++h.at != h.end) {
    // Written on another core: the fields of the next ones (a line on)
    // and the entries after them asked for now, ahead of their turn.
    __builtin_prefetch(h.packed->data() + h.at->index + 64);
    __builtin_prefetch(std::min(h.at + 8, h.end - 1));
    return true;
  }
  // Its block is done.
  std::shared_ptr<const Records> done = std::move(q.in_order.front().records);
  q.in_order.pop_front();
  buffered_ -= done->entries.size() * sizeof(Piece::Entry) + done->packed.size();
  KeepSpare(&done, &spare_records_);
  if (q.in_order.empty()) {
    apart_heads_.erase(apart_heads_.begin() + static_cast<std::ptrdiff_t>(best));
  } else {
    SetApartHead(&h);
  }
  return true;
}

void PieceMerger::SetApartHead(ApartHead* h) {
  const RecordBlock& b = h->queue->in_order.front();
  h->at = b.items().data() + b.next;
  h->end = b.items().data() + b.items().size();
  h->packed = &b.records->packed;
}

char* PieceMerger::SlotRecordRoom(size_t n) {
  char* room = slot_queue_->slot_bytes.Room(n);
  slot_queue_->slot_bytes.Advance(n);
  return room;
}

bool PieceMerger::TakeSlots(Queue* q, size_t n, OutputRun* r) {
  while (q->slot_ends.size() - q->slot_head < n) {
    if (!GiveApartEvent(0, /*any=*/true)) return false;
  }
  if (r->formatter == nullptr) r->formatter = ordered_->NewRecordFormatter();
  const size_t from = q->slot_head == 0 ? 0 : q->slot_ends[q->slot_head - 1];
  const size_t to = q->slot_ends[q->slot_head + n - 1];
  const size_t base = r->records.size();  // where slot_bytes[from] goes
  r->records.append(q->slot_bytes.data() + from, to - from);
  size_t begin = from;
  for (size_t i = q->slot_head; i < q->slot_head + n; ++i) {
    r->slot_records.emplace_back(base + (begin - from), base + (q->slot_ends[i] - from));
    begin = q->slot_ends[i];
  }
  q->slot_head += n;
  if (q->slot_head == q->slot_ends.size()) {
    q->slot_bytes.clear();
    q->slot_ends.clear();
    q->slot_head = 0;
  } else if (q->slot_head >= run_steps_ && 2 * q->slot_head >= q->slot_ends.size()) {
    // Most taken (those given early wait: runs take the others whole), a
    // run's worth at least: the rest moves to the front.
    const size_t used = q->slot_ends[q->slot_head - 1];
    std::memmove(q->slot_bytes.data(), q->slot_bytes.data() + used, q->slot_bytes.size() - used);
    q->slot_bytes.Truncate(q->slot_bytes.size() - used);
    q->slot_ends.erase(q->slot_ends.begin(),
                       q->slot_ends.begin() + static_cast<std::ptrdiff_t>(q->slot_head));
    for (size_t& end : q->slot_ends) end -= used;
    q->slot_head = 0;
  }
  return true;
}

void PieceMerger::FillHolesBeforeChange() {
  if (takes_own() && holes_waiting_ != 0) FillHolesBefore(building_->steps.back().bound);
  for (HoleTextSlot& slot : hole_text_cache_) slot.valid = false;  // they change now
}

void PieceMerger::FillHolesBefore(const Bound& bound) {
  for (size_t i = 0; i < queues_.size(); ++i) {
    const int qi = static_cast<int>(i);
    for (Piece* p : queues_[i].outs) {
      const std::vector<PieceSink::Hole>& holes = p->sink->holes();
      const auto from =
          holes.begin() + static_cast<std::ptrdiff_t>(p->holes_taken + p->hole_texts.size());
      const auto to = std::partition_point(from, holes.end(), [&](const PieceSink::Hole& h) {
        return Before(bound, qi, p->output_entries[h.output].time, p->output_base + h.output);
      });
      HoleTexts(*p, static_cast<size_t>(from - holes.begin()),
                static_cast<size_t>(to - holes.begin()), &p->hole_texts);
      if (to != holes.end()) break;  // the queue's later outputs come after
    }
  }
}

void PieceMerger::HoleTexts(const Piece& p, size_t from, size_t to,
                            std::vector<std::string_view>* texts) {
  const std::vector<PieceSink::Hole>& holes = p.sink->holes();
  for (size_t h = from; h < to; ++h) {
    CachedHoleText(p.sink->hole_key(holes[h].key_number), &texts->emplace_back());
  }
}

void PieceMerger::CachedHoleText(uint64_t key, std::string_view* text) {
  // The consumer's texts change only after FillHolesBeforeChange, and a
  // program uses a few objects again and again.
  HoleTextSlot& cached = hole_text_cache_[(key * 0x9E3779B97F4A7C15ull) >> 60];
  if (!cached.valid || cached.key != key) {
    cached.key = key;
    cached.text = ordered_->HoleText(key);
    cached.valid = true;
  }
  // Stored field by field: a view returned whole went through the stack,
  // and the wide load back stalled on the two narrow stores (store
  // forwarding), half of CloseRun's samples.
  *text = cached.text;
}

void PieceMerger::CloseRunWhileReading() {
  if (outputs_waiting_ < run_outputs_) return;
  // Every output before the earliest event not read yet, nor given as an
  // item (a queue's head), goes in runs of about kRunOutputs.
  uint64_t known = FirstUnread();
  for (const Queue& q : queues_) {
    if (q.has_head()) known = std::min(known, q.head_time());
  }
  if (!CloseRunsBefore(known)) return;
  CloseRunAt({known, -1, 0, known == kNoEvents});
}

bool PieceMerger::CloseRunsBefore(uint64_t limit) {
  const size_t share = std::max<size_t>(1, run_outputs_ / queues_.size());
  while (outputs_waiting_ >= run_outputs_) {
    // A run ends at the time of the earliest queue's share-th output.
    if (!run_cap_known_) {
      uint64_t cap = kNoEvents;
      for (const Queue& q : queues_) {
        size_t k = q.out_next + share;
        for (const Piece* p : q.outs) {
          if (k < p->output_entries.size()) {
            cap = std::min(cap, p->output_entries[k].time);
            break;
          }
          k -= p->output_entries.size();
        }
      }
      run_cap_ = cap;
      run_cap_known_ = true;
    }
    const uint64_t cap = run_cap_;
    if (cap >= limit) return true;
    // (Every output of that time, of every queue.)
    CloseRunAt({cap, static_cast<int>(queues_.size()), 0, false});
  }
  return false;
}

void PieceMerger::CloseRunAt(const Bound& bound) {
  // (The outputs before the last item given go before its own bytes.)
  if (Earlier(building_->steps.back().bound, bound)) AddStep(bound);
  CloseRun();
}

void PieceMerger::WriteRuns(bool all) {
  bool freed = false;
  while (!runs_.empty()) {
    OutputRun& r = *runs_.front();
    if (!Ready(&r, all)) break;
    // (When the pass stops, the runs so far are the output's start.)
    ordered_->WriteRun(&r.out, r.crc, r.own.size());
    for (Piece* p : r.finished) freed |= --p->holds == 0;
    r.Clear();
    spare_runs_.push_back(std::move(runs_.front()));
    runs_.pop_front();
  }
  if (!freed) return;
  // Parked pieces are few: a run's worth of each queue's.
  size_t kept = 0;
  for (size_t i = 0; i < parked_.size(); ++i) {
    std::unique_ptr<Piece> p = std::move(parked_[i]);
    if (p->holds != 0) {
      parked_[kept++] = std::move(p);
      continue;
    }
    buffered_ -= p->queued_bytes;
    const size_t f = p->file;
    files_[f].decoder->Recycle(std::move(p));
  }
  parked_.resize(kept);
}

void PieceMerger::EndOutputs() {
  if (ordered_ == nullptr || outputs_done_) return;
  if (exact()) {
    // The consumer takes every event kept apart before the pass ends.
    while (GiveApartEvent(0, /*any=*/true)) {
    }
    AddStep({0, -1, 0, true});
    CloseRun();
  }
  WriteRuns(/*all=*/true);
  outputs_done_ = true;
}

namespace {

// The items of a block before `known` (all of them when `all`): its end.
template <typename Item>
size_t ReadyEnd(const std::vector<Item>& items, size_t next, uint64_t known, bool all) {
  if (all) return items.size();
  return static_cast<size_t>(
      std::lower_bound(items.begin() + static_cast<std::ptrdiff_t>(next), items.end(), known,
                       [](const Item& x, uint64_t t) { return x.time < t; }) -
      items.begin());
}

// Moves the items of queue `blocks` before `known` into spans (each made
// by make_span(block, begin, end)), noting where the queue's start in
// *starts; returns how many.
template <typename Blocks, typename MakeSpan, typename Spans>
size_t TakeReady(Blocks* blocks, uint64_t known, bool all, Spans* spans,
                 std::vector<size_t>* starts, MakeSpan&& make_span) {
  size_t taken = 0;
  bool first = true;
  while (!blocks->empty()) {
    auto& b = blocks->front();
    const auto& items = b.items();
    const size_t end = ReadyEnd(items, b.next, known, all);
    if (end > b.next) {
      if (first) starts->push_back(spans->size());
      first = false;
      make_span(b, b.next, end);
      taken += end - b.next;
      b.next = end;
    }
    if (b.next < items.size()) break;
    blocks->pop_front();
  }
  return taken;
}

}  // namespace

void PieceMerger::GiveStretch() {
  if (!stretches_.empty()) JoinStretches(/*all=*/false);
  if (items_held_ == 0) {
    if (reader_done_) JoinLastStretches();
    return;
  }
  // Every event before `known` is in a piece read already.
  const uint64_t known = FirstUnread();
  const bool all = reader_done_;
  if (!all) {
    size_t ready = 0;
    const auto count = [&ready, known](const auto& blocks) {
      for (const auto& b : blocks) {
        const size_t end = ReadyEnd(b.items(), b.next, known, false);
        ready += end - b.next;
        if (end < b.items().size()) break;  // the later blocks are later still
      }
    };
    for (const Queue& q : queues_) {
      count(q.frames);
      count(q.records);
    }
    if (ready < stretch_items_) return;
  }
  std::unique_ptr<Stretch> stretch;
  if (!spare_stretches_.empty()) {
    stretch = std::move(spare_stretches_.back());
    spare_stretches_.pop_back();
  } else {
    stretch = std::make_unique<Stretch>();
    stretch->consumer = apart_consumer_->NewStretch();
    stretch->pairing = std::make_unique<KeptFramePairing>(stretch->consumer.get());
  }
  Stretch& s = *stretch;
  for (Queue& q : queues_) {
    const size_t frames = TakeReady(&q.frames, known, all, &s.frames, &s.frame_starts,
                                    [&s, &q](const FrameBlock& b, size_t begin, size_t end) {
                                      const Piece::Frame* base = b.frames->data();
                                      s.frames.push_back({base + begin, base + end, q.thread});
                                      s.frame_blocks.push_back(b.frames);
                                    });
    const size_t records = TakeReady(
        &q.records, known, all, &s.records, &s.record_starts,
        [&s, &q](const RecordBlock& b, size_t begin, size_t end) {
          const Records& r = *b.records;
          const Piece::Entry* base = r.entries.data();
          s.records.push_back({base + begin, base + end, q.thread, &r});
          s.record_blocks.push_back(b.records);
          // Their fields: the block's are packed in the entries' order.
          const size_t packed_end = end < r.entries.size() ? r.entries[end].index : r.packed.size();
          s.bytes += packed_end - r.entries[begin].index;
        });
    s.items += frames + records;
    s.bytes += frames * sizeof(Piece::Frame) + records * sizeof(Piece::Entry);
  }
  items_held_ -= s.items;
  // The stretches in flight hold their items: a few at once.
  while (stretches_.size() >= MaxInFlight()) {
    Ready(stretches_.front().get(), /*wait=*/true);
    JoinStretches(/*all=*/false);
  }
  pool_->Submit(stretch.get());
  stretches_.push_back(std::move(stretch));
  if (reader_done_) JoinLastStretches();
}

void PieceMerger::JoinStretches(bool all) {
  if (stretches_.empty()) return;  // (and there may be no consumer)
  IntervalTracker& tracker = *apart_consumer_->frame_tracker();
  while (!stretches_.empty()) {
    Stretch& s = *stretches_.front();
    if (!Ready(&s, all)) return;
    const bool joined = tracker.JoinFrames(*s.pairing);
    if (!joined) {
      // Where a limit may be met: frame by frame, as the serial pass.
      s.ForEachFrame(
          [&tracker](const Piece::Frame& f, const ThreadRec& t) { tracker.OnFrame(f, t); });
    }
    apart_consumer_->JoinStretch(s.consumer.get(), joined, s);
    buffered_ -= s.bytes;
    RecycleBlocks(&s);
    s.Clear();
    spare_stretches_.push_back(std::move(stretches_.front()));
    stretches_.pop_front();
  }
}

template <typename T>
void PieceMerger::KeepSpare(std::shared_ptr<const T>* block, std::vector<T>* spares) {
  // As many as the pieces in flight may take (with 4, half the pieces of
  // the mixed benchmark trace found none; peak memory was the same with
  // 20); the rest are freed. Only from its last holder: nobody reads it
  // any more.
  const size_t keep = 2 * static_cast<size_t>(format::OnlineCpus()) + kChunksAhead;
  if (block->use_count() != 1 || spares->size() >= keep) return;
  spares->push_back(std::move(*std::const_pointer_cast<T>(*block)));
}

void PieceMerger::RecycleBlocks(Stretch* s) {
  for (std::shared_ptr<const std::vector<Piece::Frame>>& b : s->frame_blocks) {
    KeepSpare(&b, &spare_frames_);
  }
  for (std::shared_ptr<const Records>& b : s->record_blocks) KeepSpare(&b, &spare_records_);
}

void PieceMerger::LetGo(uint64_t t) {
  while (!held_.empty() && held_.front().last_time < t) {
    serial_held_[held_.front().file] -= held_.front().bytes;
    std::pop_heap(held_.begin(), held_.end(), std::greater<>());
    held_.pop_back();
  }
}

inline void PieceMerger::Pop(int qi) {
  Queue& q = queues_[static_cast<size_t>(qi)];
  if (++q.head < q.end) {
    // A worker wrote them on another core, and with many queues taking
    // turns the hardware prefetcher loses track: ask for the next head's
    // fields and the entries a few ahead now, long before they are read.
    __builtin_prefetch(q.head->type == Piece::Entry::Type::kOutput
                           ? q.front->outputs + q.head->index
                           : q.front->packed.data() + q.head->index);
    __builtin_prefetch(std::min(q.head + 4, q.end - 1));
    return;
  }
  PopPiece(&q);
}

void PieceMerger::PopPiece(Queue* queue) {
  Queue& q = *queue;
  std::unique_ptr<Piece> done = std::move(q.pieces.front());
  q.pieces.pop_front();
  q.SetFront();
  if (q.has_head()) CheckDepth(q);
  if (--done->holds > 0) {
    parked_.push_back(std::move(done));  // its outputs are not all written
    return;
  }
  buffered_ -= done->queued_bytes;
  files_[done->file].decoder->Recycle(std::move(done));
}

FileByFileMergers::FileByFileMergers(std::vector<size_t> files, NewMerger new_merger)
    : pool_(format::OnlineCpus()), files_(std::move(files)), new_merger_(std::move(new_merger)) {}

PieceMerger* FileByFileMergers::Next() {
  if (taken_ == files_.size()) {
    current_.reset();
    return nullptr;
  }
  current_ = next_ != nullptr ? std::move(next_) : new_merger_(files_[taken_], &pool_);
  if (++taken_ < files_.size()) {
    next_ = new_merger_(files_[taken_], &pool_);
    current_->set_read_ahead(next_.get());
  }
  return current_.get();
}

bool PieceMerger::Next(Item* item) {
  if (!exact()) {
    EndOutputs();
    return false;
  }
  if (current_ >= 0) {
    // The last item's queue moves on; while it stays first it goes on.
    const int qi = current_;
    Pop(qi);
    Queue& q = queues_[static_cast<size_t>(qi)];
    current_ = -1;
    if (q.has_head()) {
      const HeadCandidates::Head head(q.head_time(), qi);
      const size_t i = heads_.empty() ? 0 : heads_.TopIndex();
      if ((heads_.empty() || head < heads_[i]) && (reader_done_ || waiting_.Safe(head.first, qi))) {
        current_ = qi;
        Issue(qi, item);
        return true;
      }
      if (heads_.small() && !heads_.empty() &&
          (reader_done_ || waiting_.Safe(heads_[i].first, heads_[i].second))) {
        // Threads taking turns: the other queue's head goes out, this one
        // takes its place among the candidates.
        current_ = heads_[i].second;
        heads_.Replace(i, head);
        Issue(current_, item);
        return true;
      }
      heads_.Push(head.first, qi);
    } else {
      UpdateWaiting(qi);
    }
  }
  for (;;) {
    if (!heads_.empty()) {
      const size_t i = heads_.TopIndex();
      const HeadCandidates::Head top = heads_[i];
      if (reader_done_ || waiting_.Safe(top.first, top.second)) {
        heads_.Pop(i);
        current_ = top.second;
        Issue(current_, item);
        return true;
      }
    } else if (reader_done_) {
      EndOutputs();
      return false;
    }
    // The serial merge is past every event before the earliest chunk still
    // to read: pieces that keep nothing move it on too.
    PassTime(waiting_.first_time());
    if (ordered_ != nullptr) CloseRunWhileReading();
    if (!ReadChunk(FileToRead()) && !exact()) {
      EndOutputs();
      return false;
    }
  }
}

}  // namespace itt_dump
}  // namespace ittc
