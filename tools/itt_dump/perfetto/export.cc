#include "tools/itt_dump/perfetto/export.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/itt_dump/filter.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/event_route.h"
#include "tools/itt_dump/model/flows.h"
#include "tools/itt_dump/model/heap.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/lanes.h"
#include "tools/itt_dump/model/metadata.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/sync.h"
#include "tools/itt_dump/model/values.h"

namespace ittc::itt_dump {
namespace {

using format::Event;
using format::EventKind;
using F = format::Field;

// A group of lane tracks of one name under one parent track.
struct LaneGroup {
  uint64_t parent = 0;
  std::string name;
  Lanes lanes;
  std::vector<uint64_t> tracks;  // by lane
};

// A metadata value as a typed annotation: integers as signed or (past
// INT64_MAX) unsigned integers, reals as doubles, text and arrays as
// strings.
Annotation ValueAnnotation(std::string_view key, std::string_view value, bool is_text,
                           bool is_real) {
  if (!is_text && !value.empty() && value.front() != '[') {
    const absl::string_view v(value.data(), value.size());  // absl's own here
    if (is_real) {
      double d = 0;
      if (absl::SimpleAtod(v, &d)) return Annotation::Double(key, d);
    } else {
      int64_t i = 0;
      if (absl::SimpleAtoi(v, &i)) return Annotation::Int(key, i);
      uint64_t u = 0;
      if (absl::SimpleAtoi(v, &u)) return Annotation::Uint(key, u);
    }
  }
  return Annotation::String(key, value);
}

Annotation ArgAnnotation(const Arg& a) {
  return ValueAnnotation(a.key, a.value, a.is_text, a.is_real);
}

// What a piece's sink (PerfettoSink) leaves in a task's listener word for
// the reading thread, where the task goes on open: the piece wrote its
// begin, kept or left out by the filters.
constexpr uint64_t kPieceBeganKept = 1;
constexpr uint64_t kPieceBeganDropped = 2;

// How slices go on a writer's sequences: the interning keys and their
// texts, and a slice's begin and end events. The exporter writes through
// its own (every thread's sequence, PerfettoExporter derives from it), and
// a piece's sink and the serial pass's pieces through another's
// (PieceSequenceWriter): a task's begin and end are written in one place.
class SliceWriter : public PerfettoKeyText {
 public:
  SliceWriter(const TraceIndex& x, const Clock& clock, PerfettoTraceWriter* writer)
      : x_(x), clock_(clock), slice_writer_(writer) {}

  // Nanoseconds since the trace's start (0 for an earlier time).
  static uint64_t Ns(const Clock& clock, uint64_t ticks) {
    const int64_t ns = clock.SinceStartNs(ticks);
    return ns > 0 ? static_cast<uint64_t>(ns) : 0;
  }
  uint64_t Ns(uint64_t ticks) const { return Ns(clock_, ticks); }

  // Interning keys (PerfettoEvent::name_key and category_key): equal keys
  // must mean equal strings. A name's key is a string id, a legacy event
  // id, or one of the fixed names below, each kind in its own residue mod 4;
  // a category's key is a domain id with the slot of what stands in when the
  // domain has no name (the interval kind, "marker"), or a fixed category.
  // Ids too large to shift get 0: interned by text. Events give the text of
  // string-id and domain keys only when they need it themselves (filters):
  // the writer asks CategoryText/NameText once per key and sequence.
  static constexpr uint64_t kKeyIdLimit = uint64_t{1} << 60;
  enum Fixed : uint64_t { kFixedFrame = 1, kFixedRelation, kFixedSync };
  static const char* FixedText(uint64_t n);
  static uint64_t StringKey(uint64_t string_id) {
    return string_id != 0 && string_id < kKeyIdLimit ? string_id * 4 + 1 : 0;
  }
  static bool IsStringKey(uint64_t key) { return key % 4 == 1; }
  static uint64_t EventNameKey(uint64_t event_id) {
    return event_id < kKeyIdLimit ? event_id * 4 + 2 : 0;
  }
  static uint64_t FixedNameKey(Fixed n) { return n * 4 + 3; }
  // Slots 1..5: IntervalKind + 1; 6: markers; 7: fixed categories.
  static constexpr uint64_t kMarkerSlot = 6;
  static constexpr uint64_t kFixedSlot = 7;
  static uint64_t DomainCategoryKey(uint64_t domain_id, uint64_t slot) {
    return domain_id < kKeyIdLimit ? domain_id * 8 + slot : 0;
  }
  static uint64_t FixedCategoryKey(Fixed n) { return n * 8 + kFixedSlot; }
  // The category of an item of a domain: the domain's name, else what the
  // slot stands for.
  static std::string_view DomainCategory(const TraceIndex& x, uint64_t domain_id, uint64_t slot);
  std::string_view DomainCategory(uint64_t domain_id, uint64_t slot) const {
    return DomainCategory(x_, domain_id, slot);
  }
  // The category of an interval's slice (its domain, else its kind) as a
  // key, and as text only when the key cannot be had.
  static std::string_view Category(const TraceIndex& x, const Interval& iv, uint64_t* key) {
    const uint64_t slot = static_cast<uint64_t>(iv.kind) + 1;
    *key = DomainCategoryKey(iv.domain, slot);
    return *key != 0 ? std::string_view() : DomainCategory(x, iv.domain, slot);
  }
  std::string_view Category(const Interval& iv, uint64_t* key) const {
    return Category(x_, iv, key);
  }
  // The key of Name(iv), 0 when it has none (task_begin_fn's names depend
  // on the process's modules at the time).
  static uint64_t NameKey(const Interval& iv) {
    if (iv.kind == IntervalKind::kLegacyEvent) return EventNameKey(iv.event_id);
    return StringKey(iv.name_id);
  }
  // The text to give with name key `key`: none for a string id's (the
  // writer asks NameText), else the interval's name (a view valid until
  // the next call).
  std::string_view NameFor(const Interval& iv, uint64_t key) {
    return IsStringKey(key) ? std::string_view() : IntervalNameView(x_, iv, &name_for_);
  }
  // Inlined: out of line, its string_view arguments went through the stack
  // and cost a store-forwarding stall per slice, its largest single cost.
  // `thread`: the thread track whose sequence the slice goes on.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Slice(PerfettoEvent::Type type, uint64_t thread, uint64_t track,
                                          uint64_t time_ns, std::string_view category,
                                          std::string_view name, const std::vector<Arg>* args,
                                          bool open_at_end, uint64_t category_key = 0,
                                          uint64_t name_key = 0);
  // Slice's event with the annotations in annotations_ (Slice makes them
  // of its args; a piece's end and a sync wait bring their own).
  ABSL_ATTRIBUTE_ALWAYS_INLINE void WriteSlice(PerfettoEvent::Type type, uint64_t thread,
                                               uint64_t track, uint64_t time_ns,
                                               std::string_view category, std::string_view name,
                                               uint64_t category_key, uint64_t name_key);
  // The end of interval `iv` on `track` (0: the thread's own).
  void SliceEnd(uint64_t thread, uint64_t track, const Interval& iv);
  // The begin of task `iv` on its thread's track.
  void TaskBegin(uint64_t thread, const Interval& iv);

  // The text of an interning key (the scheme is at StringKey above).
  std::string_view CategoryText(uint64_t key) override;
  std::string_view NameText(uint64_t key) override;

 protected:
  const TraceIndex& x_;
  const Clock clock_;
  std::vector<Annotation> annotations_;
  // The event of Slice() and Instant(), reused: they set the same fields
  // every time (flows and counter values stay unset), and a fresh
  // PerfettoEvent per event costs a zero fill of the whole struct.
  PerfettoEvent event_;

 private:
  PerfettoTraceWriter* slice_writer_;
  std::string name_for_;  // NameFor's storage
};

// A thread's track and the sequence of its pieces (PieceSequenceWriter),
// by ThreadRec::index: made before the pass, read by the pieces' sinks.
struct PieceTrack {
  uint64_t track = 0;
  uint32_t sequence = 0;
};

// The packets of a piece, an events chunk of one thread: its tasks (those
// it begins and those it pairs), on a sequence of the thread's own that
// each piece starts again (PerfettoTraceWriter::StartPieceSequence), so
// that they depend on nothing written before them and a worker can write
// them. Made by a piece's sink, and by the serial pass for the same
// packets at the same places.
class PieceSequenceWriter {
 public:
  PieceSequenceWriter(const TraceIndex& x, const Clock& clock, int64_t realtime_at_zero_ns)
      : writer_(nullptr, PerfettoCompression::kNone, realtime_at_zero_ns),
        slices_(x, clock, &writer_) {}
  // Starts the piece's sequence (at its first packet).
  void Start(const PieceTrack& t) { writer_.StartPieceSequence(t.track, t.sequence); }
  SliceWriter& slices() { return slices_; }
  // The packets written since Clear().
  std::string_view packets() const { return writer_.packets(); }
  void Clear() { writer_.ClearPackets(); }

 private:
  PerfettoTraceWriter writer_;
  SliceWriter slices_;
};

class PerfettoExporter : public SliceWriter, public IntervalListener {
 public:
  // Writes plain packets to `packets` (whole packets at a time, as
  // PacketBlocks needs), beginning with every process's and thread's
  // track.
  PerfettoExporter(const VerbContext& ctx, Output* packets)
      : SliceWriter(*ctx.index, ctx.index->clock, &writer_),
        ctx_(ctx),
        filter_(ctx.filter, x_),
        tracker_(x_, this),
        counters_(x_),
        writer_(packets, PerfettoCompression::kNone, RealtimeAtZero(x_)),
        serial_piece_(x_, clock_, RealtimeAtZero(x_)) {
    tracker_.set_report_begins(true);
    AddTracks();
  }

  static int64_t RealtimeAtZero(const TraceIndex& x) {
    return x.clock.RealtimeNs(x.header.start_ticks);
  }
  // Each thread's track and pieces' sequence, for the pieces' sinks.
  const U64Map<PieceTrack>& piece_tracks() const { return piece_tracks_; }
  PerfettoTraceWriter& writer() { return writer_; }

  void OnEvent(const Event& e, const ThreadRec& t);
  // The serial pass's OnEvent: it writes what a piece would have written
  // (the tasks the piece of `e`, its events chunk, begins and pairs) as
  // the piece would, on the thread's pieces' sequence.
  void OnSerialEvent(const Event& e, const ThreadRec& t);
  absl::Status End(uint64_t end_ticks);

  void OnBegin(const Interval& iv) override;
  void OnInterval(const Interval& iv) override;

  // What FeedEntry gives the whole trace's tracker (pieces.h) of thread t.
  void AddChildTicks(const ThreadRec& t, uint64_t ticks) { tracker_.AddChildTicks(t, ticks); }
  void OnOpen(const Interval& iv, const ThreadRec& t) { tracker_.OnOpen(iv, t); }
  void OnCut(const ThreadRec& t, uint64_t ticks) { tracker_.CutThread(t, ticks); }
  // What OnEvent does with a frame_begin or frame_end of a null id, for
  // one that FeedEntry gives it so (its pieces pair no frames): the
  // tracker pairs it with less work (an event unpacked, and a key of the
  // general keyed map, were a tenth of the reading thread on the frames
  // trace).
  void OnKeptFrame(const KeptFrame& frame, const ThreadRec& t) { tracker_.OnFrame(frame, t); }

 private:
  // Per thread: its track and its pieces' sequence, the kept/dropped state
  // of its open tasks (they nest, so a stack), and its lane group of
  // legacy events.
  struct ThreadOut {
    uint64_t track = 0;
    PieceTrack piece;
    // Serial pass: its piece's sequence is started (OnSerialEvent).
    bool piece_started = false;
    std::vector<char> kept;
    LaneGroup events;
    LaneGroup waits;
    // The lane group the thread used last (Group()): a thread's frames or
    // regions are mostly of one domain.
    LaneGroup* last_group = nullptr;
    IntervalKind last_kind = IntervalKind::kTask;
    uint64_t last_domain = 0;
  };
  // An open interval on a lane.
  struct OnLane {
    LaneGroup* group = nullptr;
    size_t lane = 0;
  };

  // One load for the usual small thread indexes.
  ThreadOut& Out(const ThreadRec& t) {
    if (t.index < dense_.size() && dense_[t.index] != nullptr) return *dense_[t.index];
    return NewOut(t);
  }
  ThreadOut& NewOut(const ThreadRec& t);
  // Every process's and thread's track, and the pieces' sequences.
  void AddTracks();
  // Serial pass: the writer of the piece of thread `out` now, its sequence
  // started at its first packet; and the packets it wrote, written.
  SliceWriter& SerialPiece(ThreadOut& out) {
    if (!out.piece_started) {
      serial_piece_.Start(out.piece);
      out.piece_started = true;
    }
    return serial_piece_.slices();
  }
  void WriteSerialPiece() {
    writer_.WritePackets(serial_piece_.packets());
    serial_piece_.Clear();
  }
  // Serial pass: the piece-mode tracker that says, as a piece's would,
  // which of its thread's events the piece pairs.
  IntervalTracker& Classifier(const ThreadRec& t);
  // The name of an interval, as a view valid until the next call.
  std::string_view Name(const Interval& iv);
  // The filters' answer for an interval (its name looked up only when a
  // filter is on).
  bool Keep(const Interval& iv);
  LaneGroup* Group(const ThreadRec& t, IntervalKind kind, uint64_t domain);
  uint64_t ProcessTrack(const ThreadRec& t) const { return process_tracks_[t.process]; }
  // Keys of per-process items whose ids the processes of a set share.
  static uint64_t InProcess(const ThreadRec& t, uint64_t id) {
    return uint64_t{t.process} << 40 ^ id;
  }
  // A counter sample on `out`'s sequence, through counter_event_.
  void WriteCounter(const ThreadOut& out, uint64_t track, uint64_t time_ns, int64_t int_value,
                    bool is_double = false, double double_value = 0) {
    PerfettoEvent& e = counter_event_;
    e.time_ns = time_ns;
    e.track = track;
    e.int_value = int_value;
    e.is_double = is_double;
    e.double_value = double_value;
    writer_.Write(out.track, e);
  }
  void Instant(const ThreadRec& t, uint64_t track, uint64_t ticks, std::string_view category,
               std::string_view name, const Annotation* annotations, size_t count,
               uint64_t category_key = 0, uint64_t name_key = 0);
  void OnCounter(const CounterSample& sample, const ThreadRec& t);
  void OnSync(const Event& e, const ThreadRec& t);
  void OnHeap(const Event& e, const ThreadRec& t);
  // A wait's slice on a lane of the thread's waits, whole: from `begin`
  // to `end`, which `how` says ("acquired", "open_at_end").
  void WaitSlice(const ThreadRec& t, const SyncObject& object, uint64_t begin, uint64_t end,
                 const Annotation& how);
  // Writes the waits still open (ending at end_ticks, with open_at_end).
  void EndOpenWaits(uint64_t end_ticks);
  void OnRelation(const Event& e, const ThreadRec& t);
  // DispatchByRoute's handlers (model/event_route.h), with those around.
  friend void itt_dump::DispatchByRoute<PerfettoExporter>(const Event& e, const ThreadRec& t,
                                                          CounterTracker* counters,
                                                          PerfettoExporter* x);
  void OnIntervalEvent(const Event& e, const ThreadRec& t);
  void OnTaskBegin(const Event& e, const ThreadRec& t);
  void OnMarker(const Event& e, const ThreadRec& t);
  void OnScopedMetadata(const Event& e, const ThreadRec& t);
  void OnJit(const Event& e, const ThreadRec& t);
  // Writes the flow ends flows_ found (usually none: an inline test).
  void WriteFlowEnds() {
    if (!flow_ends_.empty()) WriteFlowEndsSlow();
  }
  void WriteFlowEndsSlow();
  // An instant `relation` at flow end `end`: where its flow ends, or with
  // `starts`, where it starts (a tail task that began before its relation).
  void WriteFlowEnd(const FlowTracker::End& end, bool starts);
  uint64_t GlobalTrack();
  // The track an __itt_scope names: global scope a top-level track, track
  // group (process) scope the process track, any other the thread's (0).
  uint64_t ScopeTrack(uint64_t scope, const ThreadRec& t);
  // The filters' answer for an item of a domain with a name at a time.

  const VerbContext& ctx_;
  Filter filter_;
  IntervalTracker tracker_;
  CounterTracker counters_;
  FlowTracker flows_;
  SyncTracker sync_;
  HeapTracker heap_;
  // Per heap function: live bytes and its counter track.
  struct HeapLive {
    uint64_t live = 0;
    uint64_t track = 0;
  };
  U64Map<HeapLive> heap_live_;
  std::vector<FlowTracker::End> flow_ends_;
  PerfettoTraceWriter writer_;
  // The serial pass's: the pieces' packets, and per thread index what
  // its piece pairs (Classifier); whether that took the event being
  // written (of a task's, OnBegin and OnInterval see only its begin, which
  // the piece begins, and its end, which the piece pairs).
  PieceSequenceWriter serial_piece_;
  struct Unheard final : IntervalListener {
    void OnInterval(const Interval&) override {}
  } unheard_;
  U64Map<std::unique_ptr<IntervalTracker>> classifiers_;
  bool piece_took_ = false;
  U64Map<PieceTrack> piece_tracks_;
  bool piece_tracks_ready_ = false;
  std::vector<uint64_t> process_tracks_;  // by ThreadRec::process
  uint64_t global_track_ = 0;
  // By thread index; ThreadOut never moves (lane groups point into it).
  U64Map<std::unique_ptr<ThreadOut>> threads_;
  std::vector<ThreadOut*> dense_;
  static constexpr uint32_t kMaxDense = 1 << 16;
  absl::flat_hash_map<std::pair<int, uint64_t>, std::unique_ptr<LaneGroup>> groups_;
  // Intervals open on lanes: Interval::listener_word is 1 + their slot.
  std::vector<OnLane> on_lanes_;
  std::vector<uint64_t> free_on_lanes_;  // slots to reuse
  U64Map<uint64_t> counter_tracks_;      // by Counter::index
  std::string name_;                     // Name()'s storage
  // WriteCounter's PerfettoEvent, reused: it sets the value fields alone
  // (a fresh one per sample costs a zero fill of the whole struct).
  PerfettoEvent counter_event_ = [] {
    PerfettoEvent e;
    e.type = PerfettoEvent::Type::kCounter;
    return e;
  }();
  uint64_t dropped_ends_ = 0;
};

// The tasks a piece pairs, written on its worker: each begin at its place
// (whether the task ends in the piece or goes on to the whole trace's
// tracker), each end of a task the piece pairs at its place, as packets of
// the piece's sequence (PieceSequenceWriter), which go among the reading
// thread's packets in the serial pass's order (PieceSink::outputs_apart).
// Frames take lanes and tasks with ids flows, which only the reading
// thread hands out: the piece leaves them.
class PerfettoSink final : public PieceSink {
 public:
  PerfettoSink(const TraceIndex& x, const Filter& filter, const Clock& clock,
               const U64Map<PieceTrack>& tracks)
      : x_(x),
        filter_(filter),
        tracks_(tracks),
        piece_(x, clock, PerfettoExporter::RealtimeAtZero(x)) {}

  // What the pieces leave to the whole trace's tracker; the serial pass's
  // pieces the same (PerfettoExporter::Classifier).
  static IntervalTracker::PiecePairing Pairing() {
    IntervalTracker::PiecePairing p;
    p.frames = false;          // on lanes
    p.tasks_with_ids = false;  // relations follow task ids
    p.args = true;             // a task's args: annotations of its end
    return p;
  }
  IntervalTracker::PiecePairing pairing() const override { return Pairing(); }
  bool wants_begins() const override { return true; }
  bool outputs_begins() const override { return true; }
  bool outputs_apart() const override { return true; }
  // Counted, nothing kept: what the reading thread writes nothing for and
  // keeps nothing of.
  bool Ignores(format::EventKind kind) const override { return ExportsNothingOf(kind); }
  void OnBegin(const Interval& iv) override {
    // Only tasks begin in a piece. It forwards every task_begin_fn and
    // (pairing()) every task with an id: the whole trace's tracker begins
    // them. (Nor is a function's name looked up here before
    // PrepareFunctionNames: symbols.h.)
    // (By the call, as the tracker forwards it: a null function too.)
    if (iv.by_function || iv.id != format::Id{}) return;
    if (!filter_.KeepsInterval(iv, [&] { return IntervalNameView(x_, iv, &name_); })) {
      iv.listener_word = kPieceBeganDropped;
      return;
    }
    iv.listener_word = kPieceBeganKept;
    const PieceTrack* t = Start(*iv.thread);
    if (t == nullptr) return;
    piece_.slices().TaskBegin(t->track, iv);
    Emit();
  }
  void OnInterval(const Interval& iv) override {
    if (iv.listener_word != kPieceBeganKept) return;
    const PieceTrack* t = Start(*iv.thread);
    if (t == nullptr) return;
    piece_.slices().SliceEnd(t->track, 0, iv);
    Emit();
  }
  void Clear() override { emitted_ = kNone; }

 private:
  static constexpr size_t kNone = ~size_t{0};
  // The thread's track and sequence (null for a thread the index lacks,
  // where the pass cannot be exact), the sequence started at the piece's
  // first output, and again if outputs of the piece were dropped since
  // (PieceSink::DropOutputsFrom: they may have held its start, or names it
  // interned).
  const PieceTrack* Start(const ThreadRec& thread) {
    const PieceTrack* t = tracks_.Find(thread.index);
    if (t != nullptr && emitted_ != outputs()) {
      piece_.Clear();
      piece_.Start(*t);
    }
    return t;
  }
  // The packets written since, as one output.
  void Emit() {
    BeginOutput();
    output_buffer().append(piece_.packets());
    EndOutput(/*keep=*/true);
    piece_.Clear();
    emitted_ = outputs();
  }

  const TraceIndex& x_;
  Filter filter_;
  const U64Map<PieceTrack>& tracks_;
  PieceSequenceWriter piece_;
  size_t emitted_ = kNone;  // outputs() after the piece's last output
  std::string name_;
};

PerfettoExporter::ThreadOut& PerfettoExporter::NewOut(const ThreadRec& t) {
  std::unique_ptr<ThreadOut>& slot = threads_[t.index];
  if (slot != nullptr) return *slot;
  slot = std::make_unique<ThreadOut>();
  ThreadOut& n = *slot;
  if (t.index < kMaxDense) {
    if (dense_.size() <= t.index) dense_.resize(t.index + 1, nullptr);
    dense_[t.index] = &n;
  }
  const int32_t pid = static_cast<int32_t>(ctx_.set->FileOf(t).display_pid);
  n.track = writer_.AddThread(ProcessTrack(t), pid, static_cast<int64_t>(t.tid),
                              t.name.empty() ? absl::StrCat("thread ", t.tid) : t.name);
  n.events.parent = n.track;
  n.events.name = "events";
  n.waits.parent = n.track;
  n.waits.name = "waits";
  // (AddTracks numbers the index's threads' pieces' sequences at once.)
  n.piece.track = n.track;
  if (!piece_tracks_ready_) return n;
  n.piece.sequence = writer_.ReserveSequenceIds(1);
  return n;
}

void PerfettoExporter::AddTracks() {
  for (const TraceFile& f : ctx_.set->files()) {
    const format::FileHeader& h = f.index->header;
    std::vector<std::string> labels;
    if (!h.host_name.empty()) labels.push_back(absl::StrCat("host=", h.host_name));
    if (h.rank != format::kNoRank) labels.push_back(absl::StrCat("rank=", h.rank));
    // A launcher's process (MPI, Slurm) is named by its rank first, as
    // "rank 3 (host-a) app", so ranks sort and read as such.
    process_tracks_.push_back(
        writer_.AddProcess(static_cast<int32_t>(f.display_pid), f.label, labels));
  }
  for (const auto& [index, t] : x_.threads.entries()) Out(t);
  // The pieces' sequences after the threads' own: ids of one or two bytes.
  uint32_t sequence = writer_.ReserveSequenceIds(static_cast<uint32_t>(x_.threads.size()));
  for (const auto& [index, t] : x_.threads.entries()) {
    ThreadOut& out = Out(t);
    out.piece.sequence = sequence++;
    piece_tracks_[t.index] = out.piece;
  }
  piece_tracks_ready_ = true;
}

IntervalTracker& PerfettoExporter::Classifier(const ThreadRec& t) {
  std::unique_ptr<IntervalTracker>& c = classifiers_[t.index];
  if (c == nullptr) {
    // As PieceDecoder makes a piece's.
    c = std::make_unique<IntervalTracker>(x_, &unheard_);
    c->set_collect_args(false);
    c->set_piece_pairing(PerfettoSink::Pairing());
    c->ResetPiece(/*pair_frames=*/false);
  }
  return *c;
}

void PerfettoExporter::OnSerialEvent(const Event& e, const ThreadRec& t) {
  IntervalTracker& pieces = Classifier(t);
  if (e.chunk_start) {
    // (Frames are the whole trace's: Pairing().)
    pieces.ResetPiece(/*pair_frames=*/false);
    Out(t).piece_started = false;
  }
  piece_took_ = pieces.OnPieceEvent(e, t, 0) == IntervalTracker::PieceAction::kPaired;
  OnEvent(e, t);
  piece_took_ = false;
}

std::string_view PerfettoExporter::Name(const Interval& iv) {
  return IntervalNameView(x_, iv, &name_);
}

bool PerfettoExporter::Keep(const Interval& iv) {
  return filter_.KeepsInterval(iv, [&] { return Name(iv); });
}

LaneGroup* PerfettoExporter::Group(const ThreadRec& t, IntervalKind kind, uint64_t domain) {
  ThreadOut& out = Out(t);
  if (out.last_group != nullptr && out.last_kind == kind && out.last_domain == domain) {
    return out.last_group;
  }
  std::unique_ptr<LaneGroup>& g = groups_[{static_cast<int>(kind), InProcess(t, domain)}];
  if (g == nullptr) {
    g = std::make_unique<LaneGroup>();
    g->parent = ProcessTrack(t);
    const std::string_view d = x_.Domain(domain);
    const char* what = kind == IntervalKind::kFrame ? "frames" : IntervalKindName(kind);
    g->name = d.empty() ? std::string(what) : absl::StrCat(what, " ", std::string(d));
  }
  out.last_group = g.get();
  out.last_kind = kind;
  out.last_domain = domain;
  return g.get();
}

inline void SliceWriter::Slice(PerfettoEvent::Type type, uint64_t thread, uint64_t track,
                               uint64_t time_ns, std::string_view category, std::string_view name,
                               const std::vector<Arg>* args, bool open_at_end,
                               uint64_t category_key, uint64_t name_key) {
  annotations_.clear();
  if (args != nullptr) {
    for (const Arg& a : *args) annotations_.push_back(ArgAnnotation(a));
  }
  if (open_at_end) annotations_.push_back(Annotation::Bool("open_at_end", true));
  WriteSlice(type, thread, track, time_ns, category, name, category_key, name_key);
}

inline void SliceWriter::WriteSlice(PerfettoEvent::Type type, uint64_t thread, uint64_t track,
                                    uint64_t time_ns, std::string_view category,
                                    std::string_view name, uint64_t category_key,
                                    uint64_t name_key) {
  PerfettoEvent& e = event_;
  e.type = type;
  e.time_ns = time_ns;
  e.track = track;
  e.category = category;
  e.name = name;
  e.category_key = category_key;
  e.name_key = name_key;
  e.key_text = this;
  e.annotations = annotations_.data();
  e.annotation_count = annotations_.size();
  slice_writer_->Write(thread, e);
}

void SliceWriter::SliceEnd(uint64_t thread, uint64_t track, const Interval& iv) {
  if ((iv.args == nullptr || iv.args->empty()) && !iv.open_at_end) {
    slice_writer_->WriteSliceEnd(thread, track, Ns(iv.end));
    return;
  }
  Slice(PerfettoEvent::Type::kSliceEnd, thread, track, Ns(iv.end), {}, {}, iv.args, iv.open_at_end);
}

void SliceWriter::TaskBegin(uint64_t thread, const Interval& iv) {
  uint64_t category_key = 0;
  const std::string_view category = Category(iv, &category_key);
  const uint64_t name_key = NameKey(iv);
  const uint64_t time_ns = Ns(iv.begin);
  if (slice_writer_->TryWriteKeyedSliceBegin(thread, 0, time_ns, category_key, name_key)) return;
  Slice(PerfettoEvent::Type::kSliceBegin, thread, 0, time_ns, category, NameFor(iv, name_key),
        nullptr, false, category_key, name_key);
}

const char* SliceWriter::FixedText(uint64_t n) {
  switch (n) {
    case kFixedFrame:
      return "frame";
    case kFixedRelation:
      return "relation";
    case kFixedSync:
      return "sync";
  }
  return "";
}

std::string_view SliceWriter::DomainCategory(const TraceIndex& x, uint64_t domain_id,
                                             uint64_t slot) {
  const std::string_view domain = x.Domain(domain_id);
  if (!domain.empty()) return domain;
  return slot == kMarkerSlot ? "marker" : IntervalKindName(static_cast<IntervalKind>(slot - 1));
}

std::string_view SliceWriter::CategoryText(uint64_t key) {
  return key % 8 == kFixedSlot ? FixedText(key / 8) : DomainCategory(key / 8, key % 8);
}

std::string_view SliceWriter::NameText(uint64_t key) {
  // Legacy event names come with their events (NameFor).
  if (IsStringKey(key)) return x_.String(key / 4);
  return key % 4 == 3 ? FixedText(key / 4) : "";
}

void PerfettoExporter::OnBegin(const Interval& iv) {
  const ThreadRec& t = *iv.thread;
  ThreadOut& out = Out(t);
  // A task a piece began and the tracker opens: its sink's word says the
  // begin is written, and whether the filters kept it.
  if (const uint64_t opened = tracker_.opened_word(); opened != 0) {
    out.kept.push_back(opened == kPieceBeganKept ? 1 : 0);
    return;
  }
  const bool keep = Keep(iv);
  if (iv.kind == IntervalKind::kTask) {
    out.kept.push_back(keep ? 1 : 0);
    if (!keep) return;
    // The serial pass writes a begin its piece would have on the piece's
    // sequence, as the piece's sink (PerfettoSink::OnBegin).
    if (piece_took_) {
      SerialPiece(out).TaskBegin(out.track, iv);
      WriteSerialPiece();
      return;
    }
    TaskBegin(out.track, iv);
    return;
  }
  if (!keep) return;
  uint64_t category_key = 0;
  const std::string_view category = Category(iv, &category_key);
  LaneGroup* g =
      iv.kind == IntervalKind::kLegacyEvent ? &out.events : Group(*iv.thread, iv.kind, iv.domain);
  bool created = false;
  const size_t lane = g->lanes.Acquire(Ns(iv.begin), &created);
  if (created) g->tracks.push_back(writer_.AddTrack(g->parent, g->name));
  uint64_t slot;
  if (!free_on_lanes_.empty()) {
    slot = free_on_lanes_.back();
    free_on_lanes_.pop_back();
    on_lanes_[slot] = {g, lane};
  } else {
    slot = on_lanes_.size();
    on_lanes_.push_back({g, lane});
  }
  iv.listener_word = slot + 1;
  const bool frame = iv.kind == IntervalKind::kFrame;
  const uint64_t name_key = frame ? FixedNameKey(kFixedFrame) : NameKey(iv);
  if (writer_.TryWriteKeyedSliceBegin(out.track, g->tracks[lane], Ns(iv.begin), category_key,
                                      name_key)) {
    return;
  }
  Slice(PerfettoEvent::Type::kSliceBegin, out.track, g->tracks[lane], Ns(iv.begin), category,
        frame ? std::string_view(FixedText(kFixedFrame)) : NameFor(iv, name_key), nullptr, false,
        category_key, name_key);
}

void PerfettoExporter::OnInterval(const Interval& iv) {
  const ThreadRec& t = *iv.thread;
  if (iv.kind == IntervalKind::kTask) {
    ThreadOut& out = Out(t);
    std::vector<char>& kept = out.kept;
    if (kept.empty()) {  // cannot happen: every task end had its begin
      ++dropped_ends_;
      return;
    }
    const bool keep = kept.back() != 0;
    kept.pop_back();
    if (!keep) return;
    // An end its piece would have written (paired there: the serial pass).
    if (piece_took_) {
      SerialPiece(out).SliceEnd(out.track, 0, iv);
      WriteSerialPiece();
      return;
    }
    SliceEnd(out.track, 0, iv);
    return;
  }
  if (iv.listener_word != 0) {
    const OnLane on = on_lanes_[iv.listener_word - 1];
    free_on_lanes_.push_back(iv.listener_word - 1);
    SliceEnd(Out(t).track, on.group->tracks[on.lane], iv);
    on.group->lanes.Release(on.lane, Ns(iv.end));
    return;
  }
  if (iv.kind != IntervalKind::kFrame || iv.serial == 0) return;
  // A frame_submit: complete on arrival, begin and end at once.
  if (!Keep(iv)) return;
  LaneGroup* g = Group(*iv.thread, iv.kind, iv.domain);
  bool created = false;
  const size_t lane = g->lanes.Acquire(Ns(iv.begin), &created);
  if (created) g->tracks.push_back(writer_.AddTrack(g->parent, g->name));
  uint64_t category_key = 0;
  const std::string_view category = Category(iv, &category_key);
  const ThreadOut& out = Out(t);
  Slice(PerfettoEvent::Type::kSliceBegin, out.track, g->tracks[lane], Ns(iv.begin), category,
        FixedText(kFixedFrame), nullptr, false, category_key, FixedNameKey(kFixedFrame));
  Slice(PerfettoEvent::Type::kSliceEnd, out.track, g->tracks[lane], Ns(iv.end), {}, {}, nullptr,
        false);
  g->lanes.Release(lane, Ns(iv.end));
}

void PerfettoExporter::Instant(const ThreadRec& t, uint64_t track, uint64_t ticks,
                               std::string_view category, std::string_view name,
                               const Annotation* annotations, size_t count, uint64_t category_key,
                               uint64_t name_key) {
  PerfettoEvent& e = event_;
  e.type = PerfettoEvent::Type::kInstant;
  e.time_ns = Ns(ticks);
  e.track = track;
  e.category = category;
  e.name = name;
  e.category_key = category_key;
  e.name_key = name_key;
  e.key_text = this;
  e.annotations = annotations;
  e.annotation_count = count;
  writer_.Write(Out(t).track, e);
}

uint64_t PerfettoExporter::GlobalTrack() {
  if (global_track_ == 0) global_track_ = writer_.AddTrack(0, "global markers");
  return global_track_;
}

uint64_t PerfettoExporter::ScopeTrack(uint64_t scope, const ThreadRec& t) {
  if (scope == static_cast<uint64_t>(format::Scope::kGlobal)) return GlobalTrack();
  if (scope == static_cast<uint64_t>(format::Scope::kTrackGroup)) return ProcessTrack(t);
  return 0;
}

void PerfettoExporter::OnCounter(const CounterSample& sample, const ThreadRec& t) {
  const Counter& c = *sample.counter;
  if (!filter_.KeepsSample(t, sample)) return;
  uint64_t& track = counter_tracks_[c.index];
  if (track == 0) {
    const std::string name = c.domain.empty() ? c.name : absl::StrCat(c.domain, " ", c.name);
    track = writer_.AddCounterTrack(ProcessTrack(t), name, CounterUnit::kCount);
  }
  const long double v = c.value;
  // An integer within the 64-bit ranges as one.
  if (int64_t i = 0; v >= -9.2e18L && v <= 9.2e18L && ExactInt64(v, &i)) {
    WriteCounter(Out(t), track, Ns(sample.ticks), i);
  } else {
    WriteCounter(Out(t), track, Ns(sample.ticks), 0, /*is_double=*/true, static_cast<double>(v));
  }
}

void PerfettoExporter::OnSync(const Event& e, const ThreadRec& t) {
  SyncChange c;
  if (!sync_.OnEvent(e, t, &c)) return;
  // A wait's slice goes out whole when it closes: the model's wait (from
  // the latest sync_prepare, as stats and parquet count it), named and
  // kept by the filters as its object is then.
  using K = SyncChange::Kind;
  if (!c.closes_wait || (c.kind != K::kAcquired && c.kind != K::kCancel)) return;
  WaitSlice(t, *c.object, c.wait_begin, e.time,
            Annotation::Bool("acquired", c.kind == K::kAcquired));
}

void PerfettoExporter::WaitSlice(const ThreadRec& t, const SyncObject& object, uint64_t begin,
                                 uint64_t end, const Annotation& how) {
  if (!filter_.KeepsWait(t, object.name_id, begin)) return;
  ThreadOut& out = Out(t);
  bool created = false;
  const size_t lane = out.waits.lanes.Acquire(Ns(begin), &created);
  if (created) out.waits.tracks.push_back(writer_.AddTrack(out.waits.parent, out.waits.name));
  const uint64_t track = out.waits.tracks[lane];
  std::string_view name = x_.String(object.name_id);
  if (name.empty()) {
    name_ = UnnamedSyncName(object.addr, t.process);
    name = name_;
  }
  annotations_.clear();
  annotations_.push_back(Annotation::Pointer("addr", UntagAddress(object.addr, t.process)));
  // (Its begin is earlier than what the thread's sequence wrote since: a
  // packet timed on REALTIME, the writer's step back.)
  WriteSlice(PerfettoEvent::Type::kSliceBegin, out.track, track, Ns(begin), FixedText(kFixedSync),
             name, FixedCategoryKey(kFixedSync),
             name.data() == name_.data() ? 0 : StringKey(object.name_id));
  annotations_.clear();
  annotations_.push_back(how);
  WriteSlice(PerfettoEvent::Type::kSliceEnd, out.track, track, Ns(end), {}, {}, 0, 0);
  out.waits.lanes.Release(lane, Ns(end));
}

void PerfettoExporter::EndOpenWaits(uint64_t end_ticks) {
  for (const SyncTracker::OpenWait& w : sync_.OpenWaits()) {
    const ThreadRec* t = x_.threads.Find(w.thread);
    if (t == nullptr) continue;
    WaitSlice(*t, *sync_.Object(w.addr), w.begin, std::max(end_ticks, w.begin),
              Annotation::Bool("open_at_end", true));
  }
}

void PerfettoExporter::OnHeap(const Event& e, const ThreadRec& t) {
  const uint64_t fn = e.Get(F::kFunction);
  HeapChange c;
  if (!heap_.OnEvent(e, t, &c)) return;
  // Live bytes per heap function, one counter sample per function changed.
  // Every call changes them, and the filters keep samples: of the call's
  // thread and time, and of a function of the name and domain.
  const bool thread_and_time_kept =
      !filter_.active() || (filter_.ThreadOk(t) && filter_.TimeOk(e.time));
  auto sample = [&](uint64_t function) {
    if (!thread_and_time_kept) return;
    const HeapFunctionDef* def = x_.heap_functions.Find(function);
    if (filter_.active() &&
        !filter_.NameInDomainOk(def != nullptr ? std::string_view(def->name) : "heap",
                                def != nullptr ? std::string_view(def->domain_name) : "")) {
      return;
    }
    HeapLive& h = heap_live_[InProcess(t, function)];
    if (h.track == 0) {
      h.track = writer_.AddCounterTrack(
          ProcessTrack(t), (def != nullptr ? def->name : std::string("heap")) + " live bytes",
          CounterUnit::kSizeBytes);
    }
    WriteCounter(Out(t), h.track, Ns(e.time), static_cast<int64_t>(h.live));
  };
  auto release = [&](const Allocation& block) {
    HeapLive& h = heap_live_[InProcess(t, block.function)];
    h.live -= std::min(h.live, block.size);
    if (block.function != fn) sample(block.function);
  };
  if (c.released) release(c.released_block);
  if (c.replaced) release(c.replaced_block);
  if (c.allocated) heap_live_[InProcess(t, fn)].live += c.size;
  sample(fn);
}

void PerfettoExporter::WriteFlowEndsSlow() {
  for (const FlowTracker::End& end : flow_ends_) WriteFlowEnd(end, /*starts=*/false);
  flow_ends_.clear();
}

void PerfettoExporter::WriteFlowEnd(const FlowTracker::End& end, bool starts) {
  PerfettoEvent e;
  e.type = PerfettoEvent::Type::kInstant;
  e.time_ns = Ns(end.ticks);
  e.category = FixedText(kFixedRelation);
  e.name = FixedText(kFixedRelation);
  e.category_key = FixedCategoryKey(kFixedRelation);
  e.name_key = FixedNameKey(kFixedRelation);
  if (starts) {
    e.flow_ids = &end.flow;
    e.flow_count = 1;
  } else {
    e.terminating_flow_ids = &end.flow;
    e.terminating_flow_count = 1;
  }
  writer_.Write(Out(*end.thread).track, e);
}

void PerfettoExporter::OnRelation(const Event& e, const ThreadRec& t) {
  const uint64_t ticks = format::EffectiveTime(e);
  const char* relation = RelationName(e.Get(F::kRelation));
  if (!filter_.KeepsRelation(t, e.Get(F::kDomain), ticks)) return;
  const size_t ends = flow_ends_.size();
  const uint64_t flow = flows_.OnRelation(e.GetId(F::kTail), &flow_ends_);
  // A flow runs forward in time: the trace processor reads events in time
  // order, and an end it meets before its flow's start is dropped
  // (flow_end_without_start). A tail task that began before the relation
  // starts the flow at its begin, and the flow ends at the relation.
  const bool backward = flow_ends_.size() > ends && flow_ends_.back().ticks < ticks;
  if (backward) {
    WriteFlowEnd(flow_ends_.back(), /*starts=*/true);
    flow_ends_.pop_back();
  }
  const Annotation a[] = {Annotation::String("relation", relation)};
  PerfettoEvent p;
  p.type = PerfettoEvent::Type::kInstant;
  p.time_ns = Ns(ticks);
  p.category = FixedText(kFixedRelation);
  p.name = FixedText(kFixedRelation);
  p.category_key = FixedCategoryKey(kFixedRelation);
  p.name_key = FixedNameKey(kFixedRelation);
  p.annotations = a;
  p.annotation_count = 1;
  if (backward) {
    p.terminating_flow_ids = &flow;
    p.terminating_flow_count = 1;
  } else {
    p.flow_ids = &flow;
    p.flow_count = 1;
  }
  writer_.Write(Out(t).track, p);
  WriteFlowEnds();
}

void PerfettoExporter::OnEvent(const Event& e, const ThreadRec& t) {
  DispatchByRoute(e, t, &counters_, this);
}

void PerfettoExporter::OnTaskBegin(const Event& e, const ThreadRec& t) {
  tracker_.OnEvent(e, t);
  flows_.OnTaskBegin(e.GetId(F::kId), t, format::EffectiveTime(e), &flow_ends_);
  WriteFlowEnds();
}

void PerfettoExporter::OnMarker(const Event& e, const ThreadRec& t) {
  const uint64_t ticks = format::EffectiveTime(e);
  const uint64_t domain_id = e.Get(F::kDomain);
  const uint64_t name_key = StringKey(e.Get(F::kName));
  const uint64_t category_key = DomainCategoryKey(domain_id, kMarkerSlot);
  // Text only where the filters or a missing key need it.
  const std::string_view name =
      filter_.active() || name_key == 0 ? x_.String(e.Get(F::kName)) : std::string_view();
  if (!filter_.KeepsItem(t, domain_id, name, ticks, /*named=*/e.Get(F::kName) != 0)) return;
  Instant(t, ScopeTrack(e.Get(F::kScope), t), ticks,
          category_key != 0 ? std::string_view() : DomainCategory(domain_id, kMarkerSlot),
          name_key != 0 ? std::string_view() : name, nullptr, 0, category_key, name_key);
}

void PerfettoExporter::OnScopedMetadata(const Event& e, const ThreadRec& t) {
  const MetadataValue m = DecodeMetadata(x_, e);
  const std::string_view key = m.key.empty() ? std::string_view("metadata") : m.key;
  if (!filter_.KeepsItem(t, e.Get(F::kDomain), key, e.time)) return;
  const Annotation a[] = {ValueAnnotation(key, m.value, m.is_text, m.is_real)};
  Instant(t, ScopeTrack(e.Get(F::kScope), t), e.time, "metadata", key, a, 1);
}

void PerfettoExporter::OnJit(const Event& e, const ThreadRec& t) {
  const std::string_view name = e.GetBytes(F::kMethodName);
  // A method without a name fails a --name filter (Filters), as in stats.
  if (!filter_.KeepsItem(t, 0, name, e.time, /*named=*/!name.empty())) return;
  const Annotation a[] = {Annotation::Pointer("address", e.Get(F::kAddress)),
                          Annotation::Uint("size", e.Get(F::kSize)),
                          Annotation::Uint("method_id", e.Get(F::kMethodId))};
  Instant(t, 0, e.time, "jit", name.empty() ? std::string_view("jit method") : name, a, 3);
}

void PerfettoExporter::OnIntervalEvent(const Event& e, const ThreadRec& t) {
  tracker_.OnEvent(e, t);
}

absl::Status PerfettoExporter::End(uint64_t end_ticks) {
  EndOpenWaits(end_ticks);
  tracker_.Finish(end_ticks);
  const Unbalanced& u = tracker_.unbalanced();
  WarnUnbalanced(ctx_, u);
  if (flows_.unresolved() != 0) {
    Warn(ctx_, absl::StrCat(flows_.unresolved(), " relations whose tail task never began"));
  }
  return writer_.Finish();
}

}  // namespace

absl::StatusOr<PassSummary> WritePerfetto(const VerbContext& ctx, const PerfettoOptions& options,
                                          uint64_t* rewritten, absl::Status* writer_status) {
  // The writer's own status (its compressor's, the output's) at the end.
  absl::Status written;
  const auto end = [&](PerfettoExporter* exporter, PerfettoPackets* packets, Output* own,
                       const PassSummary& pass) {
    written = exporter->End(TraceEndTicks(*ctx.index, pass.last_ticks));
    if (own != nullptr) own->Flush();
    const absl::Status blocks = packets->Finish();
    if (written.ok()) written = blocks;
  };
  absl::StatusOr<PassSummary> pass = WriteOnce(
      ctx, "Perfetto trace",
      [&](const VerbContext& first) -> std::optional<PassSummary> {
        // The workers write the packets of the tasks their pieces begin
        // and pair, this thread the others; workers merge the two in the
        // serial pass's order (PieceOutput), then the blocks go out.
        PerfettoPackets packets(first.out, options.compression);
        PieceOutput own(packets.output());
        // (PacketBlocks makes blocks of the runs: their CRCs go unused.)
        own.set_wants_crc(options.compression == PerfettoCompression::kNone);
        PerfettoExporter exporter(first, &own);
        own.set_flush([&exporter] { exporter.writer().FlushPackets(); },
                      [&exporter] { return exporter.writer().has_packets(); });
        std::optional<PassSummary> pass = WriteInPieces(
            first,
            [&](const Filter& filter, const Clock& clock) {
              return std::make_unique<PerfettoSink>(*first.index, filter, clock,
                                                    exporter.piece_tracks());
            },
            &exporter, [] {}, &own);
        if (pass) end(&exporter, &packets, &own, *pass);
        return pass;
      },
      [&](const VerbContext& again) -> absl::StatusOr<PassSummary> {
        PerfettoPackets packets(again.out, options.compression);
        PerfettoExporter exporter(again, packets.output());
        absl::StatusOr<PassSummary> pass = ForEachEvent(
            again, [&](const Event& e, const ThreadRec& t) { exporter.OnSerialEvent(e, t); },
            [&](const ThreadRec& t, uint64_t ticks) { exporter.OnCut(t, ticks); });
        if (pass.ok()) end(&exporter, &packets, nullptr, *pass);
        return pass;
      },
      rewritten);
  if (writer_status != nullptr) {
    *writer_status = written;
  } else if (pass.ok() && !written.ok()) {
    return written;
  }
  return pass;
}

absl::Status RunPerfetto(const VerbContext& ctx, const PerfettoOptions& options) {
  absl::Status written;
  absl::StatusOr<PassSummary> pass = WritePerfetto(ctx, options, nullptr, &written);
  if (!pass.ok()) return pass.status();
  if (absl::Status cut = WarnMerge(ctx, *pass); !cut.ok()) return cut;
  return written;
}

}  // namespace ittc::itt_dump
