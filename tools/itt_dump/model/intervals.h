// Pairing of begin/end events into intervals, shared by stats, chrome and
// vtune-csv:
//   tasks              task_begin*/task_end*: a stack per thread
//   overlapped tasks   task_begin_overlapped*/task_end_overlapped*: by
//                      (domain, id) in their process, across threads
//   regions            region_begin/region_end: by (domain, id) in
//                      their process (a null id: in their thread)
//   frames             frame_begin/frame_end: by (domain, id) in
//                      their process; frame_submit is a complete frame
//   legacy events      event_start/event_end: by event id, per thread
// The *_ex kinds use their `timestamp` field (already in trace ticks) as the
// event's time (format::EffectiveTime).
//
// This is the one place where begin and end events are paired: every
// consumer (stats, text, chrome, vtune-csv, the tests' loaders) listens to
// an IntervalTracker.
//
// Metadata (metadata_add*, metadata_str_add*, formatted_metadata_add*)
// becomes args of the task it belongs to: the open task with the event's
// id, or with a null id (or task scope) the innermost open task of the
// thread. Up to kMaxArgs per interval are kept.
//
// Unbalanced input is reported through the listener, never fatal: an end
// without a begin, a begin left open at the end of the trace.
//
// Thread safety: none. Memory: the open intervals only.

#ifndef TOOLS_ITT_DUMP_MODEL_INTERVALS_H_
#define TOOLS_ITT_DUMP_MODEL_INTERVALS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "format/format.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

enum class IntervalKind { kTask, kOverlapped, kRegion, kFrame, kLegacyEvent };

const char* IntervalKindName(IntervalKind kind);  // "task", "frame", ...

struct Arg {
  std::string key;
  std::string value;  // JSON-ready: a number/array, or text when is_text
  bool is_text = false;
  bool is_real = false;  // a float or double (its text may read as an integer)
};

struct Interval {
  IntervalKind kind = IntervalKind::kTask;
  const ThreadRec* thread = nullptr;  // the thread that began it
  uint64_t domain = 0;                // kDefDomain id, 0 if none
  uint64_t name_id = 0;               // kDefString id, 0 if none
  uint64_t fn = 0;                    // task_begin_fn's function address
  uint64_t event_id = 0;              // kDefEvent id (legacy events)
  format::Id id;
  uint64_t begin = 0;  // trace ticks
  uint64_t end = 0;
  uint64_t child_ticks = 0;  // direct children's total (tasks only)
  int depth = 0;             // nesting depth on the thread (tasks only)
  bool open_at_end = false;  // still open when the trace ended
  // Begun by a task_begin_fn* call (its fn may be null): a piece forwards
  // it (IntervalTracker::OnPieceEvent).
  bool by_function = false;
  const std::vector<Arg>* args = nullptr;  // may be null
  // 1, 2, ... in the order intervals begin: the same in OnBegin and
  // OnInterval, so a listener can find what it kept at the begin.
  uint64_t serial = 0;
  // The listener's own word: 0 at OnBegin, where the listener may set it
  // (through the const reference), and what it set at that interval's
  // OnInterval, so it keeps a begin's state without a map by serial.
  mutable uint64_t listener_word = 0;
};

// The name to show for an interval: the string, the function's name for
// task_begin_fn (FunctionName, symbols.h), the legacy event's name
// ("event#N" where the trace does not define it), or "" when it has none.
std::string IntervalName(const TraceIndex& index, const Interval& interval);
// Whether it has a name (a frame, a task begun with a null name handle
// have none), which a --name filter can keep it by. A name defined as ""
// is one.
inline bool IntervalHasName(IntervalKind kind, uint64_t name_id, uint64_t fn) {
  return kind == IntervalKind::kLegacyEvent || name_id != 0 || fn != 0;
}
inline bool IntervalHasName(const Interval& iv) {
  return IntervalHasName(iv.kind, iv.name_id, iv.fn);
}
// The same as a view: of the index's strings (a name string, a legacy
// event's defined name), or of *scratch when the name is made up (valid
// until *scratch changes). Allocates nothing when the interval has a name
// string: the per-interval path of the exports.
std::string_view IntervalNameView(const TraceIndex& index, const Interval& interval,
                                  std::string* scratch);

// `value` as a field of type Field at p + offset, where a record is a
// struct's bytes written in place field by field (ITTC_PUT_FIELD each
// field, then a copy of the whole struct reads it back): one made on the
// stack and copied stalls the copy's wide loads on its narrow stores
// (store forwarding). Field is given, not deduced: the value is converted
// to the field's type, and so written at its width.
template <typename Field>
void PutAt(char* p, size_t offset, std::common_type_t<Field> value) {
  std::memcpy(p + offset, &value, sizeof value);
}
// Writes `value` as field `field` of struct `Struct` at p.
#define ITTC_PUT_FIELD(p, Struct, field, value) \
  ::ittc::itt_dump::PutAt<decltype(Struct::field)>((p), offsetof(Struct, field), (value))

// A paired frame as much as the exports write of it (its thread, domain,
// times, whether it was open at the end), for a worker to format what the
// reading thread paired (PieceMerger::AppendOwnRecord).
struct FrameRecord {
  const ThreadRec* thread = nullptr;
  uint64_t domain = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
  bool open_at_end = false;

  // The record of `frame` at p (sizeof(FrameRecord) bytes, written field
  // by field; the padding left as it is), for Read.
  static void Write(const Interval& frame, char* p) {
    ITTC_PUT_FIELD(p, FrameRecord, thread, frame.thread);
    ITTC_PUT_FIELD(p, FrameRecord, domain, frame.domain);
    ITTC_PUT_FIELD(p, FrameRecord, begin, frame.begin);
    ITTC_PUT_FIELD(p, FrameRecord, end, frame.end);
    ITTC_PUT_FIELD(p, FrameRecord, open_at_end, frame.open_at_end);
  }
  static FrameRecord Read(const char* p) {
    FrameRecord r;
    std::memcpy(static_cast<void*>(&r), p, sizeof r);
    return r;
  }
  Interval ToInterval() const {
    Interval iv;
    iv.kind = IntervalKind::kFrame;
    iv.thread = thread;
    iv.domain = domain;
    iv.begin = begin;
    iv.end = end;
    iv.open_at_end = open_at_end;
    return iv;
  }
};

// A frame_begin or frame_end a piece keeps apart (IntervalTracker::
// PiecePairing::frames_apart), for the merge to pair in time order: one
// with a null id (frames with ids go with the other events). 24 bytes:
// the merge holds and reads millions of them.
struct KeptFrame {
  uint64_t time = 0;
  uint64_t domain = 0;
  bool begin = false;
};

struct Unbalanced {
  uint64_t end_without_begin = 0;
  uint64_t open_at_end = 0;
  uint64_t frame_end_without_begin = 0;
  uint64_t frames_open_at_end = 0;
  // Tasks and legacy events open on a thread when some of its events were
  // lost (IntervalTracker::CutThread), ended there.
  uint64_t left_open_at_loss = 0;
  uint64_t total() const {
    return end_without_begin + open_at_end + frame_end_without_begin + frames_open_at_end +
           left_open_at_loss;
  }
  // Metadata values collected for no interval (with args collected): no
  // task of their thread open with their id (none at all, or the task is
  // another thread's), or past the kMaxArgs an interval keeps.
  uint64_t args_without_task = 0;
  uint64_t args_past_limit = 0;
};

// Task begins and ends of every form (with a function, Ex, overlapped)
// and region begins and ends: what the tracker keeps on a thread's stack
// or by key and names at its end.
bool IsTaskOrRegionKind(format::EventKind kind);
// Frame begins, ends and submits (of any id).
inline bool IsFrameKind(format::EventKind kind) {
  return kind == format::EventKind::kFrameBegin || kind == format::EventKind::kFrameEnd ||
         kind == format::EventKind::kFrameSubmit;
}

class IntervalListener {
 public:
  virtual ~IntervalListener() = default;
  // An interval began (its end and args are not known yet), in the order of
  // the begin events; only with IntervalTracker::set_report_begins(true).
  // A frame_submit arrives complete: its OnInterval has no OnBegin.
  virtual void OnBegin(const Interval& interval) {}
  // A completed interval. Pointers inside are valid during the call.
  virtual void OnInterval(const Interval& interval) = 0;
  // An end without a begin (`kind`, thread, domain, time as in Interval).
  virtual void OnUnmatchedEnd(IntervalKind kind, const ThreadRec& thread, uint64_t domain,
                              uint64_t ticks) {}
};

class IntervalTracker;

// The frames kept apart of one stretch of the trace, paired among
// themselves as the whole trace's tracker pairs them (OnFrame(KeptFrame):
// by domain in their process, innermost first), for that tracker to join
// what the stretch leaves (IntervalTracker::JoinFrames). Pairing
// composes: a stretch's ends close its own begins first and then, in
// order, those earlier stretches left open; its begins still open at its
// end stay open above those. So stretches pair on workers, each on its
// own, and the whole trace's tracker does only the joining, in order. The
// pairs a stretch makes go to its listener (serial 0: a stretch does not
// know how many intervals began before it).
//
// Thread safety: none (one stretch, on one thread, at a time).
class KeptFramePairing {
 public:
  // `listener` must outlive the pairing.
  explicit KeptFramePairing(IntervalListener* listener) : listener_(listener) {}
  // Forgets the stretch, for the next one.
  void Clear();
  // The stretch's next frame, in the merge's order (PieceMerger).
  void OnFrame(const KeptFrame& frame, const ThreadRec& thread);

 private:
  friend class IntervalTracker;
  struct Left {
    uint64_t time;
    const ThreadRec* thread;
  };
  struct KeyState {
    uint64_t domain = 0;
    uint32_t process = 0;
    bool begins = false;      // a begin of the key came (which makes the key)
    std::vector<Left> opens;  // its begins still open, innermost last
    std::vector<Left> ends;   // its ends that closed none of them, in order
    size_t peak_opens = 0;    // the most of its begins open at once
  };
  IntervalListener* listener_;
  std::vector<KeyState> keys_;  // [0, used_) in use; the rest kept for reuse
  size_t used_ = 0;
  size_t last_ = 0;       // the key used last
  size_t open_ = 0;       // the stretch's begins open now, over every key
  size_t peak_open_ = 0;  // and their most at once
  Interval interval_;     // what a pair is delivered as
};

class IntervalTracker {
 public:
  static constexpr size_t kMaxArgs = 64;
  // Tasks nested deeper on a thread are not tracked (counted as open at
  // end): a runaway begin loop cannot exhaust memory.
  static constexpr size_t kMaxDepth = 100000;
  // More open keyed intervals than this (or tasks nested deeper than
  // kMaxDepth) are not tracked (counted as open at end): a runaway begin
  // loop cannot exhaust memory.
  static constexpr size_t kMaxKeyed = 1000000;
  // Keyed maps keep up to this many entries whose last interval closed, so
  // the usual few keys (frames of a domain, null ids) cost no allocation
  // per interval.
  static constexpr size_t kKeepEmptyKeys = 64;

  // `index` and `listener` must outlive the tracker.
  IntervalTracker(const TraceIndex& index, IntervalListener* listener);
  ~IntervalTracker();

  // Feeds one event in time order (per thread at least). Events of other
  // kinds are ignored.
  void OnEvent(const format::Event& e, const ThreadRec& thread);
  // Whether OnEvent does anything with an event of `kind`: the interval
  // kinds, and metadata while args are collected.
  bool Uses(format::EventKind kind) const;
  // Uses, for a tracker that collects args or not.
  static bool UsesKind(format::EventKind kind, bool collect_args);

  // A frame_begin (`begin`) or frame_end of `domain` and `id` at `ticks`
  // on `thread`: what OnEvent does with one.
  void OnFrame(bool begin, uint64_t domain, const format::Id& id, uint64_t ticks,
               const ThreadRec& thread);
  // The same for a frame a piece kept apart (PieceMerger::
  // set_apart_consumer): a key's open ones are kept as their begin, thread
  // and serial only (the hot path of stats on a process with several
  // threads), unless begins are reported.
  void OnFrame(const KeptFrame& frame, const ThreadRec& thread);
  // Joins what `stretch` left (KeptFramePairing), as if OnFrame had seen
  // its frames now: its ends that closed none of its begins close the
  // key's open ones, and its open begins stay open. False, and nothing
  // changes, where OnFrame could meet a limit on the way (more than
  // kKeepEmptyKeys keys, a key's kMaxDepth) or begins are reported: then
  // the caller feeds the stretch's frames to OnFrame, and drops the pairs
  // the stretch made.
  bool JoinFrames(const KeptFramePairing& stretch);

  // Some of `thread`'s events were lost before its next one, at `ticks`
  // (TraceIndex::cut_chunks: a chunk missing, undecodable or cut short):
  // its tasks and legacy events open now are delivered now, left open
  // (open_at_end, end = max(begin, ticks): their ends may have been lost),
  // and counted (Unbalanced::left_open_at_loss); the ends that follow do
  // not reach back to them. Keyed intervals (frames, regions, overlapped
  // tasks) pair by key, across threads: they are not cut.
  void CutThread(const ThreadRec& thread, uint64_t ticks);
  // The same, as FeedEntry (pieces.h) gives it.
  void OnCut(const ThreadRec& thread, uint64_t ticks) { CutThread(thread, ticks); }

  // Ends the trace at `end_ticks`: open intervals are delivered with
  // open_at_end set and end = max(begin, end_ticks), and counted.
  void Finish(uint64_t end_ticks);

  const Unbalanced& unbalanced() const { return unbalanced_; }

  // Adds `ticks` to the child time of the innermost task open on `thread`
  // (if any): the time of tasks a piece paired under a task it did not
  // open (below).
  void AddChildTicks(const ThreadRec& thread, uint64_t ticks);

  // Piece mode, for a parallel pass (pieces.h): a tracker of its own pairs
  // the simple tasks of one piece of one thread's events (an events chunk)
  // that begin and end in it, and its frame_submits, delivering them to
  // its listener (and with pair_frames, when no other thread can touch
  // the thread's frames - the only thread of its process - its frames
  // too), and says which events the pass must still feed, in time order,
  // to the tracker of the whole trace: ends of tasks (frames) begun
  // before the piece, every task_begin_fn* with its end (its row is named
  // on the reading thread: FunctionName is not thread-safe), and every
  // event of another kind. Tasks and frames whose begin it took but which
  // the whole trace's tracker must see open (TakePieceOpens: those still
  // open at the piece's end, and the tasks a task_begin_fn began inside,
  // whose ends are then forwarded) go to it through OnOpen, at their
  // place among the forwarded events;
  // and before each forwarded event (and at the piece's end) it gets,
  // through AddChildTicks, the growth of piece_child_ticks(): the time of
  // paired tasks whose parent it has. Fed that way it delivers every other
  // interval exactly as if it had seen every event. Requires collect_args
  // off (a piece attaches args as PiecePairing::args says). A paired interval's depth
  // and serial are the piece's own.
  // `position` is the caller's count of events forwarded so far.
  // kApart: a frame_begin or frame_end (null id) of a process with several
  // threads that the consumer pairs in the process's time order itself,
  // off the general merge (PiecePairing::frames_apart; OnFrame).
  enum class PieceAction { kPaired, kForward, kApart };
  PieceAction OnPieceEvent(const format::Event& e, const ThreadRec& thread, uint32_t position);
  // The same for a simple task event read without an Event
  // (format::EventStreamDecoder::NextSimpleTask).
  PieceAction OnPieceSimpleTask(const format::EventStreamDecoder::SimpleTask& task,
                                const ThreadRec& thread, uint32_t position);
  // OnPieceSimpleTask for the simple tasks `dec` gives next, one after the
  // other in a loop of its own (the hot path of most pieces), while the
  // tracker pairs them. It stops at the end of the run of simple tasks
  // (and, with `frames`, simple frames), or
  // at one that the caller must finish: one it forwards, or, with
  // `stop_at_interval`, one that delivered an interval (a listener that
  // writes output for it needs its place at once). That one is in *task
  // with its action in run->action (left_over); the times of all, it
  // included, are in run's times. With `frames` (the piece keeps frames
  // apart), the simple frames between them go there in the same loop;
  // without, where the piece pairs its frames (ResetPiece), they are
  // paired in it as OnPieceEvent pairs them, and one the caller must
  // finish is in run->frame instead (left_over_frame), taken. With `ids`,
  // each task's and frame's ids are made another numbering's as it is read
  // (the one left over too).
  class SimpleIds {
   public:
    virtual ~SimpleIds() = default;
    virtual void Map(format::EventStreamDecoder::SimpleTask* task) const = 0;
    virtual void Map(format::EventStreamDecoder::SimpleFrame* frame) const = 0;
  };
  struct SimpleRun {
    // In and out: the piece's times so far (first_time kNoEvents before any) and
    // whether one went back.
    uint64_t first_time = kNoEvents;
    uint64_t last_time = 0;
    bool time_back = false;
    // Out: the events paired and the time of the last of them.
    uint64_t paired = 0;
    uint64_t paired_last = 0;
    bool left_over = false;
    bool left_over_frame = false;  // then the one left over is `frame`
    format::EventStreamDecoder::SimpleFrame frame;
    PieceAction action = PieceAction::kPaired;
  };
  void PairSimpleTasks(format::EventStreamDecoder* dec, const ThreadRec& thread, uint32_t position,
                       bool stop_at_interval, format::EventStreamDecoder::SimpleTask* task,
                       SimpleRun* run, std::vector<KeptFrame>* frames,
                       const SimpleIds* ids = nullptr);
  // The time of paired tasks whose parent is not paired in the piece (a
  // task begun before it, or a forwarded one), since ResetPiece.
  uint64_t piece_child_ticks() const { return piece_child_ticks_; }
  // The deepest nesting of tasks begun in the piece, since ResetPiece.
  size_t piece_max_depth() const { return piece_max_depth_; }
  // The most keyed intervals (frames, regions, overlapped tasks) open at
  // once: of the piece's own in piece mode (frames only, since
  // ResetPiece), of the whole trace's otherwise.
  size_t peak_keyed_open() const { return peak_keyed_open_; }
  // Starts the peak again from the keyed intervals open now.
  void ResetPeakKeyedOpen() { peak_keyed_open_ = keyed_open_; }
  // Whether this many keyed intervals open at once stay within what the
  // tracker pairs (it counts more as open at the end, unpaired): a
  // parallel pass is exact only then.
  static bool OpenKeyedWithinLimits(size_t open);
  // A task for the whole trace's tracker to open just before the event
  // forwarded `position`-th (or at the piece's end), after the child
  // ticks up to `child_mark` (piece_child_ticks() at its begin).
  struct PieceOpen {
    Interval interval;  // with its child time so far (args: null)
    uint32_t position = 0;
    uint64_t child_mark = 0;
    // The args the piece attached to it (PiecePairing::args), for OnOpen.
    std::vector<Arg> args;
  };
  // Appends those tasks and frames of `thread`, in the order they began.
  void TakePieceOpens(const ThreadRec& thread, std::vector<PieceOpen>* out) const;
  // With report_begins: the listener words (set by its OnBegin) of the
  // tasks whose begins the piece forwarded, in order, since ResetPiece.
  const std::vector<uint64_t>& forwarded_begin_words() const { return forwarded_words_; }
  // With PiecePairing::reads_open_task: for each event of such a kind the
  // piece forwarded, in order, the listener word of the innermost task
  // open on its thread if the piece pairs it (not forwarded), else 0 (the
  // whole trace's tracker has that task open), since ResetPiece.
  const std::vector<uint64_t>& open_task_words() const { return open_task_words_; }
  // Forgets the piece, for the next one, whose frames it pairs or not.
  void ResetPiece(bool pair_frames);
  // Whether the piece pairs its frames (ResetPiece's pair_frames, and
  // PiecePairing::frames).
  bool pairs_piece_frames() const { return piece_frames_; }
  // Whether the piece keeps its frames apart (PieceAction::kApart): not
  // paired in it (ResetPiece), and PiecePairing::frames_apart.
  bool frames_kept_apart() const { return !piece_frames_ && pairing_.frames_apart; }
  // What OnPieceEvent does with a frame_begin or frame_end when
  // frames_kept_apart(): kApart, or kForward for one with an id.
  static PieceAction KeptApart(const format::Event& frame);
  // What a piece leaves to the whole trace's tracker beyond the above, for
  // a consumer that reads more than the intervals (set before the first
  // piece).
  struct PiecePairing {
    // Frames (with ResetPiece's pair_frames) and frame_submits: false
    // forwards them.
    bool frames = true;
    // Tasks with an id: false forwards each (its begin and end) with every
    // task open around it, as a task_begin_fn: their begins reach the
    // consumer in order (relations follow ids).
    bool tasks_with_ids = true;
    // Metadata that can be an argument of a task (OnEvent attaches it):
    // true attaches it in the piece where its task is the piece's (the
    // innermost task open on its thread, begun in the piece and not
    // forwarded; its args go along if the task goes to the whole trace's
    // tracker: PieceOpen::args), else forwards it with every task open
    // around it on its thread, so that the whole trace's tracker attaches
    // it (collect_args there).
    bool args = false;
    // Frames of a process with several threads, which pieces do not pair:
    // true keeps those with a null id apart (kApart) for the consumer to
    // feed to the whole trace's tracker in their own time order (OnFrame),
    // and forwards those with an id among the other events: the frames of
    // one key alone decide their pairing, and a key's frames all take one
    // way. false forwards them all.
    bool frames_apart = false;
    // Events of other kinds at which the consumer reads the innermost task
    // open on their thread (IntervalTracker::InnermostTask), which may be
    // one the piece pairs: true for a kind notes, for each such event it
    // forwards, that task's listener word (open_task_words). Null: none.
    bool (*reads_open_task)(format::EventKind kind) = nullptr;
  };
  void set_piece_pairing(const PiecePairing& pairing) { pairing_ = pairing; }
  // Opens `interval` (a task or a frame) on `thread`, as its begin event
  // would have, with a copy of interval.args (a task's, attached in a
  // piece) if any.
  void OnOpen(const Interval& interval, const ThreadRec& thread);
  // During the OnBegin (report_begins) of a task OnOpen opens: the
  // listener word the piece's sink gave it (interval.listener_word there,
  // which the tracker's own Interval starts again at 0); 0 in every other
  // OnBegin.
  uint64_t opened_word() const { return opened_word_; }

  // The innermost task open on `thread` now (between events), or null.
  // Valid until the next OnEvent.
  const Interval* InnermostTask(const ThreadRec& thread) const;

  // Whether metadata events become args of intervals (the default). A
  // consumer that never reads args turns it off and saves the work.
  void set_collect_args(bool on) { collect_args_ = on; }
  // Whether the listener's OnBegin is called (off by default: consumers
  // that need only complete intervals pay nothing for it).
  void set_report_begins(bool on) { report_begins_ = on; }
  // A lower bound than kMaxKeyed on the open keyed intervals tracked, so
  // that a test reaches it. REQUIRES: kKeepEmptyKeys < n <= kMaxKeyed.
  void set_max_keyed(size_t n) { max_keyed_ = n; }

 private:
  struct Open {
    Open() = default;
    explicit Open(const Interval& interval) : iv(interval) {}
    Interval iv;
    std::unique_ptr<std::vector<Arg>> args;
    // Piece mode: the whole trace's tracker pairs it (forwarded), or where
    // it began (PieceOpen).
    bool forwarded = false;
    uint32_t position = 0;
    uint64_t child_mark = 0;
  };
  using Key = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>;
  struct ThreadState {
    // Simple tasks: stack[0, depth) are open. Entries above depth are kept
    // and reused, so a begin/end pair constructs nothing.
    std::vector<Open> stack;
    size_t depth = 0;
    // Tasks begun past kMaxDepth, left out (counted as open at the end):
    // the next ends are theirs, not the tracked tasks'.
    uint64_t past_limit = 0;
    std::vector<Open> events;  // legacy events
  };

  // The open intervals of one key, innermost last. The slots above size()
  // keep their memory for the next begin: a begin/end pair of a key in use
  // constructs and destroys nothing.
  class OpenStack {
   public:
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    Open& back() { return slots_[size_ - 1]; }
    Open* begin() { return slots_.data(); }
    Open* end() { return slots_.data() + size_; }
    const Open* begin() const { return slots_.data(); }
    const Open* end() const { return slots_.data() + size_; }
    // The slot of a new innermost interval, its former args cleared; the
    // caller sets every field of its iv.
    Open& Push() {
      if (size_ == slots_.size()) slots_.emplace_back();
      Open& o = slots_[size_++];
      o.forwarded = false;
      if (o.args) o.args->clear();
      return o;
    }
    void Pop() { --size_; }

   private:
    std::vector<Open> slots_;
    size_t size_ = 0;
  };
  // Open keyed intervals by key, with the entry used last remembered:
  // frames and regions of one domain use one key over and over.
  class KeyedOpens {
   public:
    using Map = std::map<Key, OpenStack>;
    // The entry of `key`, made if new.
    OpenStack& At(const Key& key) {
      if (last_ == map_.end() || last_->first != key) last_ = map_.try_emplace(key).first;
      return last_->second;
    }
    // The entry of `key`, or end().
    Map::iterator Find(const Key& key) {
      if (last_ != map_.end() && last_->first == key) return last_;
      const Map::iterator it = map_.find(key);
      if (it != map_.end()) last_ = it;
      return it;
    }
    Map::iterator end() { return map_.end(); }
    void Erase(Map::iterator it) {
      if (it == last_) last_ = map_.end();
      map_.erase(it);
    }
    size_t size() const { return map_.size(); }
    Map& map() { return map_; }
    const Map& map() const { return map_; }
    void Clear() {
      map_.clear();
      last_ = map_.end();
    }

   private:
    Map map_;
    Map::iterator last_ = map_.end();
  };

  ThreadState& StateOf(const ThreadRec& t) {
    if (t.index < dense_.size() && dense_[t.index] != nullptr) {
      return *dense_[t.index];
    }
    return NewState(t);
  }
  ThreadState& NewState(const ThreadRec& t);
  // Opens `iv` on a keyed stack; null (counted as open at end) past
  // kMaxDepth.
  Open* Begin(std::vector<Open>* stack, const Interval& iv);
  // Frames and overlapped tasks pair in their process, null ids too
  // (which a set leaves null in every process: trace_set.h).
  static Key ProcessKey(uint64_t domain, const format::Id& id, const ThreadRec& t) {
    return Key(domain, id.d1, id.d2, id.d3, t.process);
  }
  // Regions pair in their process; with a null id, in their thread.
  static Key RegionKey(uint64_t domain, const format::Id& id, const ThreadRec& t) {
    return id == format::Id{} ? Key(domain, 0, 0, 0, uint64_t{t.index} + 1)
                              : ProcessKey(domain, id, t);
  }
  // A slot for a new keyed interval of `key`, its iv for the caller to set
  // before KeyedOpened; null (counted) past the limits.
  Open* PushKeyed(KeyedOpens* opens, const Key& key);
  // An end of `kind` that finds nothing open: counted and reported.
  void UnmatchedEnd(IntervalKind kind, const ThreadRec& t, uint64_t domain, uint64_t ticks);
  // The keys of `opens`, with kept_frames_'s for frames_.
  size_t KeyedCount(const KeyedOpens* opens) const;
  // The keyed interval in slot `o` is open: its serial, the listener's
  // OnBegin.
  void KeyedOpened(Open* o);
  // Opens a keyed interval; null (counted) past the limits.
  Open* BeginKeyed(KeyedOpens* opens, const Key& key, const Interval& iv);
  // Opens a frame (iv.thread set); null (counted) past the limits.
  Open* BeginFrame(const Interval& iv);
  // The same for a frame_begin of `domain` and `id` at `ticks` on `thread`.
  Open* BeginFrame(uint64_t domain, const format::Id& id, uint64_t ticks, const ThreadRec& thread);
  void SubmitFrame(const format::Event& e, const ThreadRec& t);
  // The thread's next stack slot for a task, cleared of a former task's
  // args and piece mark; null (counted as open at end) past kMaxDepth.
  Open* TakeSlot(ThreadState& s);
  // The task in slot `o` (every field but these set) is open: its depth,
  // serial and listener word, and the listener's OnBegin.
  void Opened(ThreadState& s, Open* o);
  // Pushes a task_begin* event on the thread's stack; null past kMaxDepth.
  Open* PushTask(ThreadState& s, const format::Event& e, const ThreadRec& t);
  // The same from the task's fields (`by_function`: a task_begin_fn*'s).
  Open* PushTask(ThreadState& s, const ThreadRec& t, uint64_t domain, const format::Id& id,
                 uint64_t name, uint64_t fn, uint64_t begin, bool by_function = false);
  // Piece mode: the task just pushed in slot `o` (below kMaxDepth, so not
  // null) is paired in the piece, or `forwarded` to the whole trace's
  // tracker, from the event forwarded `position`-th.
  PieceAction PieceTaskBegun(ThreadState& s, Open* o, bool forwarded, uint32_t position);
  // PairSimpleTasks, with `ids` (kMapIds) or without.
  template <bool kMapIds>
  void PairSimpleTasksIn(format::EventStreamDecoder* dec, const ThreadRec& thread,
                         uint32_t position, bool stop_at_interval,
                         format::EventStreamDecoder::SimpleTask* task, SimpleRun* run,
                         std::vector<KeptFrame>* frames, const SimpleIds* ids);
  // OnPieceEvent for a frame_begin (`begin`) or frame_end the piece pairs
  // (ResetPiece's pair_frames).
  PieceAction PieceFrame(bool begin, uint64_t domain, const format::Id& id, uint64_t ticks,
                         const ThreadRec& thread, uint32_t position);
  // OnPieceSimpleTask on the thread of `s` (`thread`).
  PieceAction PieceSimpleTask(ThreadState& s, const ThreadRec& thread,
                              const format::EventStreamDecoder::SimpleTask& task,
                              uint32_t position);
  // Piece mode: a task end on the thread of `s` at `end`.
  PieceAction PieceTaskEnd(ThreadState& s, uint64_t end);
  // Piece mode: the tasks open on the thread of `s` and paired in the
  // piece go to the whole trace's tracker instead (promoted_), for an
  // event forwarded now that needs them open there.
  void PromoteOpenTasks(ThreadState& s);
  // Delivers the thread's open tasks (innermost first, each adding its time
  // to its parent's) and legacy events left open at `end_ticks`, counting
  // them in *count.
  void EndOpen(ThreadState* state, uint64_t end_ticks, uint64_t* count);
  // Closes the innermost task at `end` (REQUIRES: s.depth > 0) and returns
  // its duration in ticks.
  uint64_t PopTask(ThreadState& s, uint64_t end);
  void Deliver(Open* open);
  void EndKeyed(KeyedOpens* opens, const Key& key, IntervalKind kind, const ThreadRec& t,
                uint64_t domain, uint64_t ticks);
  // The task a metadata event's arg goes to: none, its thread's innermost
  // open task (whatever the tracker holds), or the open task with its id.
  enum class ArgTo : uint8_t { kNone, kInnermostTask, kTaskById };
  static ArgTo ArgToOf(const format::Event& e);
  // Attaches metadata `e` to the task `to` (ArgToOf(e)) names, if open.
  void AddArg(const format::Event& e, const ThreadRec& t, ArgTo to);
  // `o` as the whole trace's tracker is to open it, its args copied.
  static PieceOpen PieceOpenOf(const Open& o);
  // REQUIRES: `to` is not kNone.
  Open* ArgTarget(const format::Event& e, const ThreadRec& t, ArgTo to);

  const TraceIndex& index_;
  IntervalListener* listener_;
  U64Map<ThreadState> threads_;
  // threads_ by thread index, for the usual small indexes: one load.
  std::vector<ThreadState*> dense_;
  KeyedOpens overlapped_;
  KeyedOpens regions_;
  KeyedOpens frames_;
  // The open frames OnFrame(KeptFrame) began, by key; a key's frames all
  // come that way or all another (IntervalTracker::KeptApart), so a key
  // is here or in frames_, never both. Finish makes them opens of frames_.
  struct KeptOpen {
    uint64_t begin;
    uint64_t serial;
    const ThreadRec* thread;
    uint64_t word;  // the listener's (report_begins)
  };
  std::map<Key, std::vector<KeptOpen>> kept_frames_;
  Key kept_key_;  // the key of kept_last_, the entry used last
  std::vector<KeptOpen>* kept_last_ = nullptr;
  Interval kept_interval_;  // what a kept frame is delivered as
  // Pops the innermost of `opens` (not empty) and delivers it as a frame
  // of `domain` ending at `end`.
  void CloseKeptFrame(std::vector<KeptOpen>* opens, uint64_t domain, uint64_t end);
  Unbalanced unbalanced_;
  bool collect_args_ = true;
  bool report_begins_ = false;
  size_t max_keyed_ = kMaxKeyed;
  uint64_t opened_word_ = 0;  // opened_word()
  uint64_t serial_ = 0;
  uint64_t piece_child_ticks_ = 0;
  size_t piece_max_depth_ = 0;
  size_t keyed_open_ = 0;
  size_t peak_keyed_open_ = 0;
  bool piece_frames_ = false;
  PiecePairing pairing_;
  // Piece mode: paired-side tasks a task_begin_fn began inside, by position.
  std::vector<PieceOpen> promoted_;
  std::vector<uint64_t> forwarded_words_;  // forwarded_begin_words()
  std::vector<uint64_t> open_task_words_;  // open_task_words()
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_INTERVALS_H_
