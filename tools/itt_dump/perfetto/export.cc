#include "tools/itt_dump/perfetto/export.h"

#include <algorithm>
#include <memory>
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

// An arg's annotation in a piece's record, typed on the worker
// (ArgAnnotation: the reading thread neither copies nor parses it): its
// name, a byte of its type, then its value (a number, or a text).
void PutAnnotation(TextBuffer* out, const Annotation& a) {
  PieceRecord::PutText(out, a.name);
  const auto type = static_cast<char>(a.type);
  out->push_back(type);
  switch (a.type) {
    case Annotation::Type::kInt:
      PieceRecord::Put(out, &a.i, sizeof a.i);
      return;
    case Annotation::Type::kUint:
      PieceRecord::Put(out, &a.u, sizeof a.u);
      return;
    case Annotation::Type::kDouble:
      PieceRecord::Put(out, &a.d, sizeof a.d);
      return;
    default:  // kString (ValueAnnotation's other type)
      PieceRecord::PutText(out, a.s);
      return;
  }
}

// PutAnnotation's annotation, its texts views of the record.
Annotation NextAnnotation(PieceRecord::Reader* in) {
  Annotation a;
  a.name = in->Text();
  char type = 0;
  in->Get(&type, 1);
  a.type = static_cast<Annotation::Type>(type);
  switch (a.type) {
    case Annotation::Type::kInt:
      in->Get(&a.i, sizeof a.i);
      break;
    case Annotation::Type::kUint:
      in->Get(&a.u, sizeof a.u);
      break;
    case Annotation::Type::kDouble:
      in->Get(&a.d, sizeof a.d);
      break;
    default:
      a.s = in->Text();
      break;
  }
  return a;
}

// What a piece's sink (PerfettoSink) leaves in a task's listener word for
// the reading thread, where the task goes on open: the piece wrote its
// begin, kept or left out by the filters.
constexpr uint64_t kPieceBeganKept = 1;
constexpr uint64_t kPieceBeganDropped = 2;

// A piece's task begin or end as its sink's output, for the reading thread
// to write as OnBegin and SliceEnd would (PerfettoExporter::AppendOutput):
// a byte that says which, then for a begin a PieceBegin and the texts
// without a key, for an end its time (ns, Ns) and, when the task has args,
// their count and their annotations (PutAnnotation).
constexpr char kPieceBeginRecord = 'B';
constexpr char kPieceEndRecord = 'E';
struct PieceBegin {
  uint64_t time_ns = 0;
  uint64_t category_key = 0;
  uint64_t name_key = 0;
};

class PerfettoExporter : public IntervalListener, public PerfettoKeyText {
 public:
  PerfettoExporter(const VerbContext& ctx, const PerfettoOptions& options)
      : ctx_(ctx),
        x_(*ctx.index),
        filter_(ctx.filter, x_),
        tracker_(x_, this),
        counters_(x_),
        writer_(ctx.out, options.compression, x_.clock.RealtimeNs(x_.header.start_ticks)) {
    tracker_.set_report_begins(true);
  }

  void Begin();
  void OnEvent(const Event& e, const ThreadRec& t);
  absl::Status End(uint64_t end_ticks);

  void OnBegin(const Interval& iv) override;
  void OnInterval(const Interval& iv) override;

  // What FeedEntry gives the whole trace's tracker (pieces.h), and the
  // output of a piece's sink, of thread t.
  void AddChildTicks(const ThreadRec& t, uint64_t ticks) { tracker_.AddChildTicks(t, ticks); }
  void OnOpen(const Interval& iv, const ThreadRec& t) { tracker_.OnOpen(iv, t); }
  void OnCut(const ThreadRec& t, uint64_t ticks) { tracker_.CutThread(t, ticks); }
  void AppendOutput(std::string_view record, const ThreadRec& t);

  // The text of an interning key (the scheme is at StringKey below).
  std::string_view CategoryText(uint64_t key) override;
  std::string_view NameText(uint64_t key) override;

 private:
  friend class PerfettoSink;
  // Per thread: its track, the kept/dropped state of its open tasks (they
  // nest, so a stack), and its lane group of legacy events.
  struct ThreadOut {
    uint64_t track = 0;
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

  // Nanoseconds since the trace's start (0 for an earlier time).
  static uint64_t Ns(const Clock& clock, uint64_t ticks) {
    const int64_t ns = clock.SinceStartNs(ticks);
    return ns > 0 ? static_cast<uint64_t>(ns) : 0;
  }
  uint64_t Ns(uint64_t ticks) const { return Ns(x_.clock, ticks); }
  // One load for the usual small thread indexes.
  ThreadOut& Out(const ThreadRec& t) {
    if (t.index < dense_.size() && dense_[t.index] != nullptr) return *dense_[t.index];
    return NewOut(t);
  }
  ThreadOut& NewOut(const ThreadRec& t);
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
  // writer asks NameText), else Name(iv).
  std::string_view NameFor(const Interval& iv, uint64_t key) {
    return IsStringKey(key) ? std::string_view() : Name(iv);
  }
  // Inlined: out of line, its string_view arguments went through the stack
  // and cost a store-forwarding stall per slice, its largest single cost.
  // `out`: the thread's, whose sequence the slice goes on.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Slice(PerfettoEvent::Type type, const ThreadOut& out,
                                          uint64_t track, uint64_t time_ns,
                                          std::string_view category, std::string_view name,
                                          const std::vector<Arg>* args, bool open_at_end,
                                          uint64_t category_key = 0, uint64_t name_key = 0);
  // Slice's event with the annotations in annotations_ (Slice makes them
  // of its args; a piece's end and a sync wait bring their own).
  ABSL_ATTRIBUTE_ALWAYS_INLINE void WriteSlice(PerfettoEvent::Type type, const ThreadOut& out,
                                               uint64_t track, uint64_t time_ns,
                                               std::string_view category, std::string_view name,
                                               uint64_t category_key, uint64_t name_key);
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
  // The end of interval `iv` on `track` (0: the thread's own).
  void SliceEnd(const ThreadOut& out, uint64_t track, const Interval& iv);
  void Instant(const ThreadRec& t, uint64_t track, uint64_t ticks, std::string_view category,
               std::string_view name, const Annotation* annotations, size_t count,
               uint64_t category_key = 0, uint64_t name_key = 0);
  void OnCounter(const CounterSample& sample, const ThreadRec& t);
  void OnSync(const Event& e, const ThreadRec& t);
  void OnHeap(const Event& e, const ThreadRec& t);
  // Where a wait's slice ends: the lane its begin took.
  // Ends the wait slices still open (at end_ticks, with open_at_end).
  void EndOpenWaits(uint64_t end_ticks);
  static uint64_t WaitKey(const ThreadRec& t, uint64_t addr) {
    return (addr * 0x9E3779B97F4A7C15ull) ^ t.index;
  }
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
  const TraceIndex& x_;
  Filter filter_;
  IntervalTracker tracker_;
  CounterTracker counters_;
  FlowTracker flows_;
  SyncTracker sync_;
  HeapTracker heap_;
  // Open wait slices: (thread, object) -> their lane in the thread's
  // waits, their thread, and the order they began in (End ends those
  // still open in it).
  struct OpenWait {
    size_t lane = 0;
    const ThreadRec* thread = nullptr;
    uint64_t begin = 0;  // ticks
    uint64_t order = 0;
  };
  absl::flat_hash_map<uint64_t, OpenWait> open_waits_;
  uint64_t waits_begun_ = 0;
  // Per heap function: live bytes and its counter track.
  struct HeapLive {
    uint64_t live = 0;
    uint64_t track = 0;
  };
  U64Map<HeapLive> heap_live_;
  std::vector<FlowTracker::End> flow_ends_;
  PerfettoTraceWriter writer_;
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
  std::vector<Annotation> annotations_;
  // The event of Slice() and Instant(), reused: they set the same fields
  // every time (flows and counter values stay unset), and a fresh
  // PerfettoEvent per event costs a zero fill of the whole struct.
  PerfettoEvent event_;
  // WriteCounter's, for the same reason: it sets the value fields alone.
  PerfettoEvent counter_event_ = [] {
    PerfettoEvent e;
    e.type = PerfettoEvent::Type::kCounter;
    return e;
  }();
  uint64_t dropped_ends_ = 0;
};

// The tasks a piece pairs, written on its worker as the reading thread
// would write them: each begin at its place (whether the task ends in the
// piece or goes on to the whole trace's tracker), each end of a task the
// piece pairs at its place. Frames take lanes and tasks with ids flows,
// which only the reading thread hands out: the piece leaves them.
class PerfettoSink final : public PieceSink {
 public:
  PerfettoSink(const TraceIndex& x, const Filter& filter, const Clock& clock)
      : x_(x), filter_(filter), clock_(clock) {}

  IntervalTracker::PiecePairing pairing() const override {
    IntervalTracker::PiecePairing p;
    p.frames = false;          // on lanes
    p.tasks_with_ids = false;  // relations follow task ids
    p.args = true;             // a task's args: annotations of its end
    return p;
  }
  bool wants_begins() const override { return true; }
  bool outputs_begins() const override { return true; }
  // Counted, nothing kept: what the reading thread writes nothing for and
  // keeps nothing of.
  bool Ignores(format::EventKind kind) const override { return ExportsNothingOf(kind); }
  void OnBegin(const Interval& iv) override {
    // Only tasks begin in a piece. It forwards every task_begin_fn and
    // (pairing()) every task with an id: the whole trace's tracker begins
    // them, and what would be written here is dropped. (Nor is a
    // function's name looked up here before PrepareFunctionNames: symbols.h.)
    if (iv.fn != 0 || iv.id != format::Id{}) return;
    if (!filter_.KeepsInterval(iv, [&] { return IntervalNameView(x_, iv, &name_); })) {
      iv.listener_word = kPieceBeganDropped;
      return;
    }
    iv.listener_word = kPieceBeganKept;
    PieceBegin b;
    b.time_ns = Ns(iv.begin);
    const std::string_view category = PerfettoExporter::Category(x_, iv, &b.category_key);
    b.name_key = PerfettoExporter::NameKey(iv);
    BeginOutput();
    TextBuffer* out = &output_buffer();
    out->push_back(kPieceBeginRecord);
    PieceRecord::Put(out, &b, sizeof b);
    if (b.category_key == 0) PieceRecord::PutText(out, category);
    if (!PerfettoExporter::IsStringKey(b.name_key)) {
      PieceRecord::PutText(out, IntervalNameView(x_, iv, &name_));
    }
    EndOutput(/*keep=*/true);
  }
  void OnInterval(const Interval& iv) override {
    if (iv.listener_word != kPieceBeganKept) return;
    BeginOutput();
    TextBuffer* out = &output_buffer();
    out->push_back(kPieceEndRecord);
    const uint64_t end_ns = Ns(iv.end);
    PieceRecord::Put(out, &end_ns, sizeof end_ns);
    if (iv.args != nullptr && !iv.args->empty()) {
      const auto n = static_cast<uint32_t>(iv.args->size());
      PieceRecord::Put(out, &n, sizeof n);
      for (const Arg& a : *iv.args) PutAnnotation(out, ArgAnnotation(a));
    }
    EndOutput(/*keep=*/true);
  }
  void Clear() override {}

 private:
  uint64_t Ns(uint64_t ticks) const { return PerfettoExporter::Ns(clock_, ticks); }

  const TraceIndex& x_;
  Filter filter_;
  Clock clock_;
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
  return n;
}

void PerfettoExporter::Begin() {
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

inline void PerfettoExporter::SliceEnd(const ThreadOut& out, uint64_t track, const Interval& iv) {
  if ((iv.args == nullptr || iv.args->empty()) && !iv.open_at_end) {
    writer_.WriteSliceEnd(out.track, track, Ns(iv.end));
    return;
  }
  Slice(PerfettoEvent::Type::kSliceEnd, out, track, Ns(iv.end), {}, {}, iv.args, iv.open_at_end);
}

inline void PerfettoExporter::Slice(PerfettoEvent::Type type, const ThreadOut& out, uint64_t track,
                                    uint64_t time_ns, std::string_view category,
                                    std::string_view name, const std::vector<Arg>* args,
                                    bool open_at_end, uint64_t category_key, uint64_t name_key) {
  annotations_.clear();
  if (args != nullptr) {
    for (const Arg& a : *args) annotations_.push_back(ArgAnnotation(a));
  }
  if (open_at_end) annotations_.push_back(Annotation::Bool("open_at_end", true));
  WriteSlice(type, out, track, time_ns, category, name, category_key, name_key);
}

inline void PerfettoExporter::WriteSlice(PerfettoEvent::Type type, const ThreadOut& out,
                                         uint64_t track, uint64_t time_ns,
                                         std::string_view category, std::string_view name,
                                         uint64_t category_key, uint64_t name_key) {
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
  writer_.Write(out.track, e);
}

const char* PerfettoExporter::FixedText(uint64_t n) {
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

std::string_view PerfettoExporter::DomainCategory(const TraceIndex& x, uint64_t domain_id,
                                                  uint64_t slot) {
  const std::string_view domain = x.Domain(domain_id);
  if (!domain.empty()) return domain;
  return slot == kMarkerSlot ? "marker" : IntervalKindName(static_cast<IntervalKind>(slot - 1));
}

std::string_view PerfettoExporter::CategoryText(uint64_t key) {
  return key % 8 == kFixedSlot ? FixedText(key / 8) : DomainCategory(key / 8, key % 8);
}

std::string_view PerfettoExporter::NameText(uint64_t key) {
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
  uint64_t category_key = 0;
  const std::string_view category = Category(iv, &category_key);
  if (iv.kind == IntervalKind::kTask) {
    out.kept.push_back(keep ? 1 : 0);
    if (keep) {
      const uint64_t name_key = NameKey(iv);
      if (!writer_.TryWriteKeyedSliceBegin(out.track, 0, Ns(iv.begin), category_key, name_key)) {
        Slice(PerfettoEvent::Type::kSliceBegin, out, 0, Ns(iv.begin), category,
              NameFor(iv, name_key), nullptr, false, category_key, name_key);
      }
    }
    return;
  }
  if (!keep) return;
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
  Slice(PerfettoEvent::Type::kSliceBegin, out, g->tracks[lane], Ns(iv.begin), category,
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
    if (keep) SliceEnd(out, 0, iv);
    return;
  }
  if (iv.listener_word != 0) {
    const OnLane on = on_lanes_[iv.listener_word - 1];
    free_on_lanes_.push_back(iv.listener_word - 1);
    SliceEnd(Out(t), on.group->tracks[on.lane], iv);
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
  Slice(PerfettoEvent::Type::kSliceBegin, out, g->tracks[lane], Ns(iv.begin), category,
        FixedText(kFixedFrame), nullptr, false, category_key, FixedNameKey(kFixedFrame));
  Slice(PerfettoEvent::Type::kSliceEnd, out, g->tracks[lane], Ns(iv.end), {}, {}, nullptr, false);
  g->lanes.Release(lane, Ns(iv.end));
}

void PerfettoExporter::AppendOutput(std::string_view record, const ThreadRec& t) {
  // The records that follow, which a worker wrote: the next items are
  // mostly the same piece's (as parquet's AppendPieceTask).
  __builtin_prefetch(record.data() + 256);
  const ThreadOut& out = Out(t);
  PieceRecord::Reader in(record);
  char what = 0;
  in.Get(&what, 1);
  if (what == kPieceEndRecord) {
    uint64_t time_ns = 0;
    in.Get(&time_ns, sizeof time_ns);
    if (in.done()) {
      writer_.WriteSliceEnd(out.track, 0, time_ns);
      return;
    }
    uint32_t n = 0;
    in.Get(&n, sizeof n);
    annotations_.clear();
    for (uint32_t i = 0; i < n; ++i) annotations_.push_back(NextAnnotation(&in));
    WriteSlice(PerfettoEvent::Type::kSliceEnd, out, 0, time_ns, {}, {}, 0, 0);
    return;
  }
  PieceBegin b;
  in.Get(&b, sizeof b);
  const std::string_view category = b.category_key == 0 ? in.Text() : std::string_view();
  const std::string_view name = IsStringKey(b.name_key) ? std::string_view() : in.Text();
  if (!writer_.TryWriteKeyedSliceBegin(out.track, 0, b.time_ns, b.category_key, b.name_key)) {
    Slice(PerfettoEvent::Type::kSliceBegin, out, 0, b.time_ns, category, name, nullptr, false,
          b.category_key, b.name_key);
  }
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
  using K = SyncChange::Kind;
  if (c.kind != K::kPrepare && c.kind != K::kAcquired && c.kind != K::kCancel) return;
  const std::string_view object = x_.String(c.object->name_id);
  ThreadOut& out = Out(t);
  const uint64_t key = WaitKey(t, c.object->addr);
  // A wait's slice runs from sync_prepare to the sync_acquired or
  // sync_cancel that closes it; a prepare while one is open ends the old.
  auto it = open_waits_.find(key);
  if (it != open_waits_.end()) {
    annotations_.clear();
    if (c.kind != K::kPrepare) {
      annotations_.push_back(Annotation::Bool("acquired", c.kind == K::kAcquired));
    }
    WriteSlice(PerfettoEvent::Type::kSliceEnd, out, out.waits.tracks[it->second.lane], Ns(e.time),
               {}, {}, 0, 0);
    out.waits.lanes.Release(it->second.lane, Ns(e.time));
    open_waits_.erase(it);
  }
  if (c.kind != K::kPrepare) return;
  if (filter_.active() &&
      (filter_.has_domain() || !filter_.ThreadOk(t) || !filter_.TimeOk(e.time) ||
       (filter_.has_name() && !filter_.NameOk(object)))) {
    return;
  }
  bool created = false;
  const size_t lane = out.waits.lanes.Acquire(Ns(e.time), &created);
  if (created) out.waits.tracks.push_back(writer_.AddTrack(out.waits.parent, out.waits.name));
  open_waits_[key] = {lane, &t, e.time, waits_begun_++};
  std::string_view name = object;
  if (object.empty()) {
    name_ = UnnamedSyncName(c.object->addr, t.process);
    name = name_;
  }
  annotations_.clear();
  annotations_.push_back(Annotation::Pointer("addr", UntagAddress(c.object->addr, t.process)));
  WriteSlice(PerfettoEvent::Type::kSliceBegin, out, out.waits.tracks[lane], Ns(e.time),
             FixedText(kFixedSync), name, FixedCategoryKey(kFixedSync),
             object.empty() ? 0 : StringKey(c.object->name_id));
}

void PerfettoExporter::EndOpenWaits(uint64_t end_ticks) {
  std::vector<const OpenWait*> open;
  open.reserve(open_waits_.size());
  for (const auto& [key, wait] : open_waits_) open.push_back(&wait);
  std::sort(open.begin(), open.end(),
            [](const OpenWait* a, const OpenWait* b) { return a->order < b->order; });
  for (const OpenWait* wait : open) {
    ThreadOut& out = Out(*wait->thread);
    annotations_.clear();
    annotations_.push_back(Annotation::Bool("open_at_end", true));
    WriteSlice(PerfettoEvent::Type::kSliceEnd, out, out.waits.tracks[wait->lane],
               Ns(std::max(end_ticks, wait->begin)), {}, {}, 0, 0);
  }
  open_waits_.clear();
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
  absl::StatusOr<PassSummary> pass = WriteOnce(
      ctx, "Perfetto trace",
      [&](const VerbContext& first) -> std::optional<PassSummary> {
        // The workers pair the simple tasks and describe their packets;
        // this thread writes every packet, in order.
        PerfettoExporter exporter(first, options);
        std::optional<PassSummary> pass = WriteInPieces(
            first,
            [&](const Filter& filter, const Clock& clock) {
              return std::make_unique<PerfettoSink>(*first.index, filter, clock);
            },
            &exporter, [&exporter] { exporter.Begin(); }, /*own=*/nullptr);
        if (pass) written = exporter.End(TraceEndTicks(*ctx.index, pass->last_ticks));
        return pass;
      },
      [&](const VerbContext& again) -> absl::StatusOr<PassSummary> {
        PerfettoExporter exporter(again, options);
        exporter.Begin();
        absl::StatusOr<PassSummary> pass = ForEachEvent(
            again, [&](const Event& e, const ThreadRec& t) { exporter.OnEvent(e, t); },
            [&](const ThreadRec& t, uint64_t ticks) { exporter.OnCut(t, ticks); });
        if (pass.ok()) written = exporter.End(TraceEndTicks(*ctx.index, pass->last_ticks));
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
