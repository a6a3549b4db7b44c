#include "tools/itt_dump/model/intervals.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/metadata.h"
#include "tools/itt_dump/model/symbols.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;

namespace {

bool IsNull(const format::Id& id) { return id == format::Id{}; }

// *n as the frame a frame_begin of `domain` and `id` at `begin` on `t`
// opens, its serial aside: a copy of a blank frame (a new Interval would
// be zeroed first, with a slow string instruction, on the reading thread's
// hot path).
void SetOpenFrame(Interval* n, uint64_t domain, const format::Id& id, uint64_t begin,
                  const ThreadRec& t) {
  static const Interval kBlankFrame = [] {
    Interval iv;
    iv.kind = IntervalKind::kFrame;
    return iv;
  }();
  *n = kBlankFrame;
  n->thread = &t;
  n->domain = domain;
  n->id = id;
  n->begin = begin;
}

// __itt_timestamp_none, stored as passed (FORMAT.md, "Frame submit").
using format::kTimestampNone;

// Where a task_begin* kind keeps its fields, from the schema by name.
struct BeginLayout {
  int domain, id, name, fn;
};

BeginLayout LayoutOf(EventKind kind) {
  return {format::FieldIndexOf(kind, F::kDomain), format::FieldIndexOf(kind, F::kId),
          format::FieldIndexOf(kind, F::kName), format::FieldIndexOf(kind, F::kFn)};
}

// REQUIRES: `kind` is one of kTaskBegin, kTaskBeginFn, kTaskBeginEx,
// kTaskBeginFnEx (each has a domain and an id, and a name or an fn).
const BeginLayout& TaskBeginLayout(EventKind kind) {
  static const BeginLayout kLayouts[] = {
      LayoutOf(EventKind::kTaskBegin), LayoutOf(EventKind::kTaskBeginFn),
      LayoutOf(EventKind::kTaskBeginEx), LayoutOf(EventKind::kTaskBeginFnEx)};
  switch (kind) {
    case EventKind::kTaskBegin:
      return kLayouts[0];
    case EventKind::kTaskBeginFn:
      return kLayouts[1];
    case EventKind::kTaskBeginEx:
      return kLayouts[2];
    default:
      return kLayouts[3];
  }
}

}  // namespace

const char* IntervalKindName(IntervalKind kind) {
  switch (kind) {
    case IntervalKind::kTask:
      return "task";
    case IntervalKind::kOverlapped:
      return "overlapped_task";
    case IntervalKind::kRegion:
      return "region";
    case IntervalKind::kFrame:
      return "frame";
    case IntervalKind::kLegacyEvent:
      return "event";
  }
  return "?";
}

std::string_view IntervalNameView(const TraceIndex& index, const Interval& iv,
                                  std::string* scratch) {
  if (iv.kind == IntervalKind::kLegacyEvent) {
    if (const std::string* s = index.event_names.Find(iv.event_id)) return *s;
  } else if (iv.name_id != 0) {
    return index.String(iv.name_id);
  }
  *scratch = IntervalName(index, iv);
  return *scratch;
}

std::string IntervalName(const TraceIndex& index, const Interval& iv) {
  if (iv.kind == IntervalKind::kLegacyEvent) {
    const std::string* s = index.event_names.Find(iv.event_id);
    return s != nullptr ? *s : absl::StrCat("event#", iv.event_id);
  }
  if (iv.name_id != 0) return std::string(index.String(iv.name_id));
  if (iv.fn != 0) return FunctionName(index, iv.thread, iv.fn, iv.begin);
  return std::string();
}

IntervalTracker::IntervalTracker(const TraceIndex& index, IntervalListener* listener)
    : index_(index), listener_(listener) {}

IntervalTracker::~IntervalTracker() = default;

IntervalTracker::ThreadState& IntervalTracker::NewState(const ThreadRec& t) {
  constexpr uint32_t kMaxDense = 1 << 16;
  ThreadState* s = &threads_[t.index];
  if (t.index < kMaxDense) {
    if (dense_.size() <= t.index) dense_.resize(t.index + 1, nullptr);
    dense_[t.index] = s;
  }
  return *s;
}

IntervalTracker::Open* IntervalTracker::Begin(std::vector<Open>* stack, const Interval& iv) {
  if (stack->size() >= kMaxDepth) {
    ++unbalanced_.open_at_end;
    return nullptr;
  }
  Open& o = stack->emplace_back(iv);  // one copy, no zeroing first
  o.iv.serial = ++serial_;
  if (report_begins_) listener_->OnBegin(o.iv);
  return &o;
}

void IntervalTracker::SubmitFrame(const Event& e, const ThreadRec& t) {
  Open open;
  open.iv.kind = IntervalKind::kFrame;
  open.iv.thread = &t;
  open.iv.domain = e.Get(F::kDomain);
  open.iv.id = e.GetId(F::kId);
  open.iv.begin = e.Get(F::kBegin);
  // __itt_timestamp_none as the end means "the time of the call".
  const uint64_t end = e.Get(F::kEnd) == kTimestampNone ? e.time : e.Get(F::kEnd);
  if (open.iv.begin == kTimestampNone) open.iv.begin = e.time;
  open.iv.end = std::max(end, open.iv.begin);
  open.iv.serial = ++serial_;
  Deliver(&open);
}

size_t IntervalTracker::KeyedCount(const KeyedOpens* opens) const {
  // Frames' keys are in frames_ or kept_frames_: counted together, as one
  // map (the serial pass's) would hold them.
  return opens->size() + (opens == &frames_ ? kept_frames_.size() : 0);
}

IntervalTracker::Open* IntervalTracker::PushKeyed(KeyedOpens* opens, const Key& key) {
  if (KeyedCount(opens) >= max_keyed_) {
    ++(opens == &frames_ ? unbalanced_.frames_open_at_end : unbalanced_.open_at_end);
    return nullptr;
  }
  OpenStack& stack = opens->At(key);
  if (stack.size() >= kMaxDepth) {
    ++(opens == &frames_ ? unbalanced_.frames_open_at_end : unbalanced_.open_at_end);
    return nullptr;
  }
  peak_keyed_open_ = std::max(peak_keyed_open_, ++keyed_open_);
  return &stack.Push();
}

void IntervalTracker::KeyedOpened(Open* o) {
  o->iv.serial = ++serial_;
  if (report_begins_) listener_->OnBegin(o->iv);
}

IntervalTracker::Open* IntervalTracker::BeginKeyed(KeyedOpens* opens, const Key& key,
                                                   const Interval& iv) {
  Open* o = PushKeyed(opens, key);
  if (o == nullptr) return nullptr;
  o->iv = iv;
  KeyedOpened(o);
  return o;
}

IntervalTracker::Open* IntervalTracker::BeginFrame(const Interval& iv) {
  return BeginKeyed(&frames_, ProcessKey(iv.domain, iv.id, *iv.thread), iv);
}

IntervalTracker::Open* IntervalTracker::BeginFrame(uint64_t domain, const format::Id& id,
                                                   uint64_t ticks, const ThreadRec& t) {
  Open* o = PushKeyed(&frames_, ProcessKey(domain, id, t));
  if (o == nullptr) return nullptr;
  SetOpenFrame(&o->iv, domain, id, ticks, t);
  KeyedOpened(o);
  return o;
}

bool IntervalTracker::OpenKeyedWithinLimits(size_t open) {
  // Keys of a map: at most one per open interval, plus the empty ones
  // kept; intervals of one key: at most all of them.
  return open + kKeepEmptyKeys < std::min(kMaxKeyed, kMaxDepth);
}

[[gnu::always_inline]] inline void IntervalTracker::Deliver(Open* open) {
  open->iv.args = open->args.get();
  listener_->OnInterval(open->iv);
}

void IntervalTracker::UnmatchedEnd(IntervalKind kind, const ThreadRec& t, uint64_t domain,
                                   uint64_t ticks) {
  ++(kind == IntervalKind::kFrame ? unbalanced_.frame_end_without_begin
                                  : unbalanced_.end_without_begin);
  listener_->OnUnmatchedEnd(kind, t, domain, ticks);
}

void IntervalTracker::EndKeyed(KeyedOpens* opens, const Key& key, IntervalKind kind,
                               const ThreadRec& t, uint64_t domain, uint64_t ticks) {
  auto it = opens->Find(key);
  if (it == opens->end() || it->second.empty()) {
    UnmatchedEnd(kind, t, domain, ticks);
    return;
  }
  // Delivered in place (listeners do not call back into the tracker), then
  // dropped: no move of the entry out first.
  Open& open = it->second.back();
  open.iv.end = std::max(ticks, open.iv.begin);
  Deliver(&open);
  it->second.Pop();
  --keyed_open_;
  if (it->second.empty() && KeyedCount(opens) > kKeepEmptyKeys) opens->Erase(it);
}

[[gnu::always_inline]] inline IntervalTracker::Open* IntervalTracker::TakeSlot(ThreadState& s) {
  if (s.depth >= kMaxDepth) {
    ++unbalanced_.open_at_end;
    ++s.past_limit;
    return nullptr;
  }
  // The hot path of stats: reuse the slot; the caller sets every field.
  if (s.depth == s.stack.size()) s.stack.emplace_back();
  Open& o = s.stack[s.depth];
  o.forwarded = false;
  if (o.args) o.args->clear();
  return &o;
}

[[gnu::always_inline]] inline void IntervalTracker::Opened(ThreadState& s, Open* o) {
  o->iv.depth = static_cast<int>(s.depth);
  o->iv.serial = ++serial_;
  o->iv.listener_word = 0;
  ++s.depth;
  if (report_begins_) listener_->OnBegin(o->iv);
}

IntervalTracker::Open* IntervalTracker::PushTask(ThreadState& s, const Event& e,
                                                 const ThreadRec& t) {
  // Positions from the schema, looked up once per kind (the hot path).
  const BeginLayout& l = TaskBeginLayout(e.kind);
  return PushTask(s, t, e.fields[l.domain].u, e.fields[l.id].id,
                  l.name >= 0 ? e.fields[l.name].u : 0, l.fn >= 0 ? e.fields[l.fn].u : 0,
                  format::EffectiveTime(e), /*by_function=*/l.fn >= 0);
}

[[gnu::always_inline]] inline IntervalTracker::Open* IntervalTracker::PushTask(
    ThreadState& s, const ThreadRec& t, uint64_t domain, const format::Id& id, uint64_t name,
    uint64_t fn, uint64_t begin, bool by_function) {
  Open* o = TakeSlot(s);
  if (o == nullptr) return nullptr;
  Interval& n = o->iv;
  n.kind = IntervalKind::kTask;
  n.thread = &t;
  n.domain = domain;
  n.id = id;
  n.name_id = name;
  n.fn = fn;
  n.by_function = by_function;
  n.begin = begin;
  n.child_ticks = 0;
  n.open_at_end = false;
  Opened(s, o);
  return o;
}

[[gnu::always_inline]] inline uint64_t IntervalTracker::PopTask(ThreadState& s, uint64_t end) {
  // Delivered in place; listeners do not call back into the tracker.
  Open& top = s.stack[--s.depth];
  top.iv.end = std::max(end, top.iv.begin);
  Deliver(&top);
  return top.iv.end - top.iv.begin;
}

void IntervalTracker::AddChildTicks(const ThreadRec& thread, uint64_t ticks) {
  ThreadState& s = StateOf(thread);
  if (s.depth != 0) s.stack[s.depth - 1].iv.child_ticks += ticks;
}

[[gnu::always_inline]] inline IntervalTracker::PieceAction IntervalTracker::PieceSimpleTask(
    ThreadState& s, const ThreadRec& t, const format::EventStreamDecoder::SimpleTask& task,
    uint32_t position) {
  if (task.begin) {
    // Past kMaxDepth the whole trace's tracker decides (as OnPieceEvent).
    if (s.depth >= kMaxDepth) return PieceAction::kForward;
    return PieceTaskBegun(s, PushTask(s, t, task.domain, format::Id{}, task.name, 0, task.time),
                          /*forwarded=*/false, position);
  }
  return PieceTaskEnd(s, task.time);
}

IntervalTracker::PieceAction IntervalTracker::OnPieceSimpleTask(
    const format::EventStreamDecoder::SimpleTask& task, const ThreadRec& t, uint32_t position) {
  return PieceSimpleTask(StateOf(t), t, task, position);
}

void IntervalTracker::PairSimpleTasks(format::EventStreamDecoder* dec, const ThreadRec& t,
                                      uint32_t position, bool stop_at_interval,
                                      format::EventStreamDecoder::SimpleTask* task, SimpleRun* run,
                                      std::vector<KeptFrame>* frames, const SimpleIds* ids) {
  // A loop of its own for each: a test of `ids` at every task in one loop
  // cost stats on one file (whose pieces never map) 1.4% more instructions
  // and about 5% more CPU.
  if (ids == nullptr) {
    PairSimpleTasksIn</*kMapIds=*/false>(dec, t, position, stop_at_interval, task, run, frames,
                                         nullptr);
  } else {
    PairSimpleTasksIn</*kMapIds=*/true>(dec, t, position, stop_at_interval, task, run, frames, ids);
  }
}

template <bool kMapIds>
void IntervalTracker::PairSimpleTasksIn(format::EventStreamDecoder* dec, const ThreadRec& t,
                                        uint32_t position, bool stop_at_interval,
                                        format::EventStreamDecoder::SimpleTask* task,
                                        SimpleRun* run, std::vector<KeptFrame>* frames,
                                        const SimpleIds* ids) {
  // The thread's state and the run's times stay in locals.
  ThreadState& s = StateOf(t);
  uint64_t first = run->first_time;
  uint64_t last = run->last_time;
  bool back = run->time_back;
  uint64_t paired = 0;
  uint64_t paired_last = run->paired_last;
  run->left_over = false;
  run->left_over_frame = false;
  const auto note_time = [&](uint64_t time) {
    if (time < last) back = true;
    if (first == kNoEvents) first = time;
    if (time > last) last = time;
  };
  // The task and frame in locals, in registers (see NextSimpleTask).
  format::EventStreamDecoder::SimpleTask next;
  format::EventStreamDecoder::SimpleFrame frame;
  // Frames the piece pairs (a thread alone in its process) go to
  // PieceFrame here too, instead of one at a time through the caller.
  const bool pair_frames = frames == nullptr && piece_frames_;
  for (;;) {
    if (!dec->NextSimpleTask(&next)) {
      if (pair_frames) {
        if (!dec->NextSimpleFrame(&frame)) break;
        if constexpr (kMapIds) ids->Map(&frame);
        note_time(frame.time);
        const PieceAction action =
            PieceFrame(frame.begin, frame.domain, format::Id{}, frame.time, t, position);
        if (action == PieceAction::kForward || (stop_at_interval && !frame.begin)) {
          run->frame = frame;
          run->left_over = true;
          run->left_over_frame = true;
          run->action = action;
          break;
        }
        ++paired;
        paired_last = frame.time;
        continue;
      }
      if (frames == nullptr || !dec->NextSimpleFrame(&frame)) break;
      if constexpr (kMapIds) ids->Map(&frame);
      const uint64_t time = frame.time;
      note_time(time);
      // Field by field: a KeptFrame made first and copied would be read
      // back from memory in wider loads than it was written with.
      KeptFrame& kept = frames->emplace_back();
      kept.time = time;
      kept.domain = frame.domain;
      kept.begin = frame.begin;
      ++paired;
      paired_last = time;
      continue;
    }
    if constexpr (kMapIds) ids->Map(&next);
    const uint64_t time = next.time;
    note_time(time);
    const PieceAction action = PieceSimpleTask(s, t, next, position);
    if (action == PieceAction::kForward || (stop_at_interval && !next.begin)) {
      *task = next;
      run->left_over = true;
      run->left_over_frame = false;
      run->action = action;
      break;
    }
    ++paired;
    paired_last = time;
  }
  run->first_time = first;
  run->last_time = last;
  run->time_back = back;
  run->paired += paired;
  run->paired_last = paired_last;
}

[[gnu::always_inline]] inline IntervalTracker::PieceAction IntervalTracker::PieceTaskBegun(
    ThreadState& s, Open* o, bool forwarded, uint32_t position) {
  piece_max_depth_ = std::max(piece_max_depth_, s.depth);
  o->forwarded = forwarded;
  if (forwarded && report_begins_) forwarded_words_.push_back(o->iv.listener_word);
  o->position = position;
  o->child_mark = piece_child_ticks_;
  return forwarded ? PieceAction::kForward : PieceAction::kPaired;
}

void IntervalTracker::PromoteOpenTasks(ThreadState& s) {
  for (size_t i = 0; i < s.depth; ++i) {
    Open& outer = s.stack[i];
    if (outer.forwarded) continue;
    outer.forwarded = true;
    promoted_.push_back(PieceOpenOf(outer));
  }
}

[[gnu::always_inline]] inline IntervalTracker::PieceAction IntervalTracker::PieceTaskEnd(
    ThreadState& s, uint64_t end) {
  if (s.depth == 0) return PieceAction::kForward;  // begun before the piece
  if (s.stack[s.depth - 1].forwarded) {
    --s.depth;
    return PieceAction::kForward;
  }
  const uint64_t duration = PopTask(s, end);
  if (s.depth != 0 && !s.stack[s.depth - 1].forwarded) {
    s.stack[s.depth - 1].iv.child_ticks += duration;
  } else {
    piece_child_ticks_ += duration;
  }
  return PieceAction::kPaired;
}

IntervalTracker::PieceAction IntervalTracker::KeptApart(const Event& frame) {
  return IsNull(frame.GetId(F::kId)) ? PieceAction::kApart : PieceAction::kForward;
}

IntervalTracker::PieceAction IntervalTracker::PieceFrame(bool begin, uint64_t domain,
                                                         const format::Id& id, uint64_t ticks,
                                                         const ThreadRec& t, uint32_t position) {
  if (begin) {
    Open* o = BeginFrame(domain, id, ticks, t);
    // Not tracked here: past the limits the piece bound below fails.
    if (o == nullptr) {
      peak_keyed_open_ = kMaxDepth;
      return PieceAction::kForward;
    }
    o->position = position;
    o->child_mark = piece_child_ticks_;
    return PieceAction::kPaired;
  }
  const Key key = ProcessKey(domain, id, t);
  auto it = frames_.Find(key);
  // Begun before the piece, or never: the whole trace's tracker knows.
  if (it == frames_.end() || it->second.empty()) return PieceAction::kForward;
  EndKeyed(&frames_, key, IntervalKind::kFrame, t, domain, ticks);
  return PieceAction::kPaired;
}

IntervalTracker::PieceAction IntervalTracker::OnPieceEvent(const Event& e, const ThreadRec& t,
                                                           uint32_t position) {
  switch (e.kind) {
    case EventKind::kTaskBegin:
    case EventKind::kTaskBeginEx:
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginFnEx: {
      ThreadState& s = StateOf(t);
      // Past kMaxDepth the whole trace's tracker decides (it counts the
      // begin as open at end; the pass is not exact then, pieces.h).
      if (s.depth >= kMaxDepth) return PieceAction::kForward;
      const bool forward = e.kind == EventKind::kTaskBeginFn ||
                           e.kind == EventKind::kTaskBeginFnEx ||
                           (!pairing_.tasks_with_ids && !IsNull(e.GetId(F::kId)));
      // Its time goes to its parent in the whole trace's tracker, so every
      // task it is inside must be open there.
      if (forward) PromoteOpenTasks(s);
      // A forwarded task stays on the stack only to close what it encloses.
      return PieceTaskBegun(s, PushTask(s, e, t), forward, position);
    }
    case EventKind::kTaskEnd:
    case EventKind::kTaskEndEx:
      return PieceTaskEnd(StateOf(t), format::EffectiveTime(e));
    case EventKind::kFrameSubmit:
      if (!pairing_.frames) return PieceAction::kForward;
      SubmitFrame(e, t);  // complete in itself
      return PieceAction::kPaired;
    case EventKind::kFrameBegin:
    case EventKind::kFrameEnd:
      if (frames_kept_apart()) return KeptApart(e);
      if (!piece_frames_) return PieceAction::kForward;
      return PieceFrame(e.kind == EventKind::kFrameBegin, e.Get(F::kDomain), e.GetId(F::kId),
                        e.time, t, position);
    default: {
      if (pairing_.reads_open_task != nullptr && pairing_.reads_open_task(e.kind)) {
        const ThreadState& s = StateOf(t);
        const bool paired = s.depth != 0 && !s.stack[s.depth - 1].forwarded;
        open_task_words_.push_back(paired ? s.stack[s.depth - 1].iv.listener_word : 0);
        return PieceAction::kForward;
      }
      // Metadata, which OnEvent may attach to a task around it.
      if (!pairing_.args || !IsMetadataKind(e.kind)) return PieceAction::kForward;
      ThreadState& s = StateOf(t);
      const ArgTo to = ArgToOf(e);
      // The piece's task takes the arg, while it has room; else the whole
      // trace's tracker, which counts what it drops.
      if (to == ArgTo::kInnermostTask && s.depth != 0 && !s.stack[s.depth - 1].forwarded &&
          (!s.stack[s.depth - 1].args || s.stack[s.depth - 1].args->size() < kMaxArgs)) {
        AddArg(e, t, to);
        return PieceAction::kPaired;
      }
      PromoteOpenTasks(s);
      return PieceAction::kForward;
    }
  }
}

void IntervalTracker::TakePieceOpens(const ThreadRec& thread, std::vector<PieceOpen>* out) const {
  const size_t first = out->size();
  for (const PieceOpen& o : promoted_) {
    if (o.interval.thread == &thread) out->push_back(o);
  }
  const ThreadState* s = threads_.Find(thread.index);
  if (s != nullptr) {
    for (size_t i = 0; i < s->depth; ++i) {
      const Open& o = s->stack[i];
      if (!o.forwarded) out->push_back(PieceOpenOf(o));
    }
  }
  bool frames = false;
  for (const auto& [key, opens] : frames_.map()) {
    for (const Open& o : opens) {
      if (o.iv.thread != &thread) continue;
      out->push_back(PieceOpenOf(o));
      frames = true;
    }
  }
  // In the order they began (tasks and frames were apart).
  if (frames) {
    std::sort(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
              [](const PieceOpen& a, const PieceOpen& b) {
                return a.interval.serial < b.interval.serial;
              });
  }
}

void IntervalTracker::ResetPiece(bool pair_frames) {
  for (auto& [index, s] : threads_.entries()) {
    s.depth = 0;
    s.past_limit = 0;
  }
  piece_child_ticks_ = 0;
  piece_max_depth_ = 0;
  promoted_.clear();
  forwarded_words_.clear();
  open_task_words_.clear();
  piece_frames_ = pair_frames && pairing_.frames;
  frames_.Clear();
  keyed_open_ = 0;
  peak_keyed_open_ = 0;
}

void IntervalTracker::OnOpen(const Interval& interval, const ThreadRec& t) {
  if (interval.kind == IntervalKind::kFrame) {
    Interval iv = interval;
    iv.thread = &t;
    iv.args = nullptr;
    BeginFrame(iv);
    return;
  }
  ThreadState& s = StateOf(t);
  Open* o = TakeSlot(s);
  if (o == nullptr) return;
  o->iv = interval;
  o->iv.thread = &t;
  o->iv.args = nullptr;
  if (interval.args != nullptr && !interval.args->empty()) {
    // What the piece attached before it went on here.
    if (!o->args) o->args = std::make_unique<std::vector<Arg>>();
    *o->args = *interval.args;
  }
  opened_word_ = interval.listener_word;
  Opened(s, o);
  opened_word_ = 0;
}

[[gnu::always_inline]] inline void IntervalTracker::CloseKeptFrame(std::vector<KeptOpen>* opens,
                                                                   uint64_t domain, uint64_t end) {
  const KeptOpen open = opens->back();
  opens->pop_back();
  --keyed_open_;
  Interval& iv = kept_interval_;
  iv.kind = IntervalKind::kFrame;
  iv.thread = open.thread;
  iv.domain = domain;
  iv.begin = open.begin;
  iv.end = std::max(end, open.begin);
  iv.serial = open.serial;
  iv.listener_word = open.word;
  listener_->OnInterval(iv);
}

void IntervalTracker::OnFrame(const KeptFrame& frame, const ThreadRec& t) {
  // What BeginFrame and EndKeyed do, on a stack of begin times: the same
  // pairs, counts, limits and begins reported.
  const Key key = ProcessKey(frame.domain, format::Id{}, t);
  if (frame.begin && KeyedCount(&frames_) >= max_keyed_) {
    ++unbalanced_.frames_open_at_end;
    return;
  }
  if (kept_last_ == nullptr || key != kept_key_) {
    auto it = kept_frames_.find(key);
    // An end without a begin makes no key.
    if (it == kept_frames_.end() && frame.begin) it = kept_frames_.try_emplace(key).first;
    kept_last_ = it == kept_frames_.end() ? nullptr : &it->second;
    kept_key_ = key;
  }
  if (!frame.begin && (kept_last_ == nullptr || kept_last_->empty())) {
    UnmatchedEnd(IntervalKind::kFrame, t, frame.domain, frame.time);
    return;
  }
  std::vector<KeptOpen>& opens = *kept_last_;
  if (frame.begin) {
    if (opens.size() >= kMaxDepth) {
      ++unbalanced_.frames_open_at_end;
      return;
    }
    peak_keyed_open_ = std::max(peak_keyed_open_, ++keyed_open_);
    opens.push_back({frame.time, ++serial_, &t, 0});
    if (report_begins_) {
      // (kept_last_ stays valid: OnBegin changes no key.)
      Interval& iv = kept_interval_;
      SetOpenFrame(&iv, frame.domain, format::Id{}, frame.time, t);
      iv.serial = serial_;
      listener_->OnBegin(iv);
      opens.back().word = iv.listener_word;
    }
    return;
  }
  CloseKeptFrame(&opens, frame.domain, frame.time);
  // Empty keys go as EndKeyed lets them go.
  if (opens.empty() && KeyedCount(&frames_) > kKeepEmptyKeys) {
    kept_frames_.erase(kept_key_);
    kept_last_ = nullptr;
  }
}

void KeptFramePairing::Clear() {
  for (size_t i = 0; i < used_; ++i) {
    KeyState& k = keys_[i];
    k.begins = false;
    k.opens.clear();
    k.ends.clear();
    k.peak_opens = 0;
  }
  used_ = 0;
  last_ = 0;
  open_ = 0;
  peak_open_ = 0;
}

void KeptFramePairing::OnFrame(const KeptFrame& frame, const ThreadRec& t) {
  // A handful of keys (a process's domains): the one used last, else a scan.
  if (last_ >= used_ || keys_[last_].domain != frame.domain || keys_[last_].process != t.process) {
    last_ = 0;
    while (last_ < used_ &&
           (keys_[last_].domain != frame.domain || keys_[last_].process != t.process)) {
      ++last_;
    }
    if (last_ == used_) {
      if (used_ == keys_.size()) keys_.emplace_back();
      keys_[used_].domain = frame.domain;
      keys_[used_].process = t.process;
      ++used_;
    }
  }
  KeyState& k = keys_[last_];
  if (frame.begin) {
    k.begins = true;
    k.opens.push_back({frame.time, &t});
    k.peak_opens = std::max(k.peak_opens, k.opens.size());
    peak_open_ = std::max(peak_open_, ++open_);
    return;
  }
  if (k.opens.empty()) {
    k.ends.push_back({frame.time, &t});
    return;
  }
  const Left open = k.opens.back();
  k.opens.pop_back();
  --open_;
  Interval& iv = interval_;
  iv.kind = IntervalKind::kFrame;
  iv.thread = open.thread;
  iv.domain = frame.domain;
  iv.begin = open.time;
  iv.end = std::max(frame.time, open.time);
  iv.serial = 0;
  iv.listener_word = 0;
  listener_->OnInterval(iv);
}

bool IntervalTracker::JoinFrames(const KeptFramePairing& stretch) {
  if (report_begins_) return false;
  size_t keys = KeyedCount(&frames_);
  for (size_t i = 0; i < stretch.used_; ++i) {
    const KeptFramePairing::KeyState& k = stretch.keys_[i];
    const auto it = kept_frames_.find(Key(k.domain, 0, 0, 0, k.process));
    const size_t have = it == kept_frames_.end() ? 0 : it->second.size();
    if (it == kept_frames_.end() && k.begins) ++keys;
    if (have + k.peak_opens >= kMaxDepth) return false;
  }
  // With no more keys than are kept empty, OnFrame neither lets a key go
  // nor meets max_keyed_.
  if (keys > kKeepEmptyKeys) return false;
  peak_keyed_open_ = std::max(peak_keyed_open_, keyed_open_ + stretch.peak_open_);
  kept_last_ = nullptr;
  for (size_t i = 0; i < stretch.used_; ++i) {
    const KeptFramePairing::KeyState& k = stretch.keys_[i];
    const Key key(k.domain, 0, 0, 0, k.process);  // ProcessKey's, of a null id
    auto it = kept_frames_.find(key);
    if (it == kept_frames_.end() && k.begins) it = kept_frames_.try_emplace(key).first;
    for (const KeptFramePairing::Left& end : k.ends) {
      if (it == kept_frames_.end() || it->second.empty()) {
        UnmatchedEnd(IntervalKind::kFrame, *end.thread, k.domain, end.time);
        continue;
      }
      CloseKeptFrame(&it->second, k.domain, end.time);
    }
    for (const KeptFramePairing::Left& open : k.opens) {
      it->second.push_back({open.time, ++serial_, open.thread, 0});
      ++keyed_open_;
    }
  }
  return true;
}

void IntervalTracker::OnFrame(bool begin, uint64_t domain, const format::Id& id, uint64_t ticks,
                              const ThreadRec& t) {
  if (begin) {
    BeginFrame(domain, id, ticks, t);
    return;
  }
  EndKeyed(&frames_, ProcessKey(domain, id, t), IntervalKind::kFrame, t, domain, ticks);
}

bool IsTaskOrRegionKind(EventKind kind) {
  switch (kind) {
    case EventKind::kTaskBegin:
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginEx:
    case EventKind::kTaskBeginFnEx:
    case EventKind::kTaskEnd:
    case EventKind::kTaskEndEx:
    case EventKind::kTaskBeginOverlapped:
    case EventKind::kTaskBeginOverlappedEx:
    case EventKind::kTaskEndOverlapped:
    case EventKind::kTaskEndOverlappedEx:
    case EventKind::kRegionBegin:
    case EventKind::kRegionEnd:
      return true;
    default:
      return false;
  }
}

bool IntervalTracker::Uses(EventKind kind) const { return UsesKind(kind, collect_args_); }

bool IntervalTracker::UsesKind(EventKind kind, bool collect_args) {
  // The kinds OnEvent's switch takes; its default takes metadata.
  if (IsTaskOrRegionKind(kind)) return true;
  switch (kind) {
    case EventKind::kFrameBegin:
    case EventKind::kFrameEnd:
    case EventKind::kFrameSubmit:
    case EventKind::kEventStart:
    case EventKind::kEventEnd:
      return true;
    default:
      return collect_args && IsMetadataKind(kind);
  }
}

void IntervalTracker::OnEvent(const Event& e, const ThreadRec& t) {
  switch (e.kind) {
    case EventKind::kTaskBegin:
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginEx:
    case EventKind::kTaskBeginFnEx:
      PushTask(StateOf(t), e, t);
      return;
    case EventKind::kTaskEnd:
    case EventKind::kTaskEndEx: {
      ThreadState& s = StateOf(t);
      const uint64_t end = format::EffectiveTime(e);
      if (s.past_limit != 0) {
        --s.past_limit;  // the end of a task left out
        return;
      }
      if (s.depth == 0) {
        UnmatchedEnd(IntervalKind::kTask, t, e.Get(F::kDomain), end);
        return;
      }
      const uint64_t duration = PopTask(s, end);
      if (s.depth != 0) s.stack[s.depth - 1].iv.child_ticks += duration;
      return;
    }
    case EventKind::kTaskBeginOverlapped:
    case EventKind::kTaskBeginOverlappedEx: {
      Interval iv;
      iv.thread = &t;
      iv.kind = IntervalKind::kOverlapped;
      iv.domain = e.Get(F::kDomain);
      iv.id = e.GetId(F::kId);
      iv.name_id = e.Get(F::kName);
      iv.begin = format::EffectiveTime(e);
      BeginKeyed(&overlapped_, ProcessKey(iv.domain, iv.id, t), iv);
      return;
    }
    case EventKind::kTaskEndOverlapped:
    case EventKind::kTaskEndOverlappedEx: {
      const format::Id& id = e.GetId(F::kId);
      const uint64_t domain = e.Get(F::kDomain);
      EndKeyed(&overlapped_, ProcessKey(domain, id, t), IntervalKind::kOverlapped, t, domain,
               format::EffectiveTime(e));
      return;
    }
    case EventKind::kRegionBegin: {
      Interval iv;
      iv.thread = &t;
      iv.kind = IntervalKind::kRegion;
      iv.domain = e.Get(F::kDomain);
      iv.id = e.GetId(F::kId);
      iv.name_id = e.Get(F::kName);
      iv.begin = e.time;
      BeginKeyed(&regions_, RegionKey(iv.domain, iv.id, t), iv);
      return;
    }
    case EventKind::kRegionEnd: {
      const uint64_t domain = e.Get(F::kDomain);
      EndKeyed(&regions_, RegionKey(domain, e.GetId(F::kId), t), IntervalKind::kRegion, t, domain,
               e.time);
      return;
    }
    case EventKind::kFrameBegin:
    case EventKind::kFrameEnd:
      OnFrame(e.kind == EventKind::kFrameBegin, e.Get(F::kDomain), e.GetId(F::kId), e.time, t);
      return;
    case EventKind::kFrameSubmit:
      SubmitFrame(e, t);
      return;
    case EventKind::kEventStart: {
      Interval iv;
      iv.thread = &t;
      iv.kind = IntervalKind::kLegacyEvent;
      iv.event_id = e.Get(F::kEvent);
      iv.begin = e.time;
      Begin(&StateOf(t).events, iv);
      return;
    }
    case EventKind::kEventEnd: {
      std::vector<Open>& events = StateOf(t).events;
      for (size_t i = events.size(); i-- > 0;) {
        if (events[i].iv.event_id != e.Get(F::kEvent)) continue;
        Open open = std::move(events[i]);
        events.erase(events.begin() + static_cast<std::ptrdiff_t>(i));
        open.iv.end = std::max(e.time, open.iv.begin);
        Deliver(&open);
        return;
      }
      UnmatchedEnd(IntervalKind::kLegacyEvent, t, 0, e.time);
      return;
    }
    default:
      if (collect_args_ && IsMetadataKind(e.kind)) AddArg(e, t, ArgToOf(e));
      return;
  }
}

IntervalTracker::Open* IntervalTracker::ArgTarget(const Event& e, const ThreadRec& t, ArgTo to) {
  ThreadState& s = StateOf(t);
  if (to == ArgTo::kInnermostTask) return s.depth == 0 ? nullptr : &s.stack[s.depth - 1];
  const format::Id& id = e.GetId(F::kId);
  auto it = overlapped_.Find(ProcessKey(e.Get(F::kDomain), id, t));
  if (it != overlapped_.end() && !it->second.empty()) {
    return &it->second.back();
  }
  for (size_t i = s.depth; i-- > 0;) {
    if (s.stack[i].iv.id == id) return &s.stack[i];
  }
  return nullptr;
}

IntervalTracker::PieceOpen IntervalTracker::PieceOpenOf(const Open& o) {
  PieceOpen p{o.iv, o.position, o.child_mark, {}};
  p.interval.args = nullptr;
  if (o.args) p.args = *o.args;
  return p;
}

IntervalTracker::ArgTo IntervalTracker::ArgToOf(const Event& e) {
  switch (e.kind) {
    case EventKind::kMetadataAdd:
    case EventKind::kMetadataStrAdd:
    case EventKind::kFormattedMetadataAddOverlapped:
      return IsNull(e.GetId(F::kId)) ? ArgTo::kInnermostTask : ArgTo::kTaskById;
    case EventKind::kMetadataAddWithScope:
    case EventKind::kMetadataStrAddWithScope:
      return e.Get(F::kScope) == static_cast<uint64_t>(format::Scope::kTask) ? ArgTo::kInnermostTask
                                                                             : ArgTo::kNone;
    case EventKind::kFormattedMetadataAdd:
      return ArgTo::kInnermostTask;
    default:
      return ArgTo::kNone;
  }
}

void IntervalTracker::AddArg(const Event& e, const ThreadRec& t, ArgTo to) {
  if (to == ArgTo::kNone) return;
  // A metadata_add of no items adds nothing (the API's word; collectors
  // from 2026-12-01 record none).
  if (e.Has(F::kCount) && e.Get(F::kCount) == 0) return;
  Open* target = ArgTarget(e, t, to);
  if (target == nullptr) {
    ++unbalanced_.args_without_task;
    return;
  }
  if (!target->args) target->args = std::make_unique<std::vector<Arg>>();
  if (target->args->size() >= kMaxArgs) {
    ++unbalanced_.args_past_limit;
    return;
  }
  Arg arg;
  const MetadataValue m = DecodeMetadata(index_, e);
  arg.key = std::string(m.key);
  arg.value = m.value;
  arg.is_text = m.is_text;
  arg.is_real = m.is_real;
  if (arg.key.empty()) arg.key = "metadata";
  target->args->push_back(std::move(arg));
}

const Interval* IntervalTracker::InnermostTask(const ThreadRec& thread) const {
  const ThreadState* s = threads_.Find(thread.index);
  if (s == nullptr || s->depth == 0) return nullptr;
  return &s->stack[s->depth - 1].iv;
}

void IntervalTracker::EndOpen(ThreadState* state, uint64_t end_ticks, uint64_t* count) {
  ThreadState& s = *state;
  for (size_t i = s.depth; i-- > 0;) {
    Open& open = s.stack[i];
    open.iv.end = std::max(end_ticks, open.iv.begin);
    open.iv.open_at_end = true;
    if (i > 0) s.stack[i - 1].iv.child_ticks += open.iv.end - open.iv.begin;
    ++*count;
    Deliver(&open);
  }
  s.depth = 0;
  s.past_limit = 0;
  for (Open& open : s.events) {
    open.iv.end = std::max(end_ticks, open.iv.begin);
    open.iv.open_at_end = true;
    ++*count;
    Deliver(&open);
  }
  s.events.clear();
}

void IntervalTracker::CutThread(const ThreadRec& thread, uint64_t ticks) {
  // (The tasks past kMaxDepth stay counted as open at the end.)
  EndOpen(&StateOf(thread), ticks, &unbalanced_.left_open_at_loss);
}

void IntervalTracker::Finish(uint64_t end_ticks) {
  // Thread by thread in the index's order, not in the order the tracker
  // met them: a parallel pass's tracker meets them otherwise (pieces.h).
  std::vector<std::pair<uint64_t, ThreadState*>> threads;
  threads.reserve(threads_.size());
  for (auto& [index, s] : threads_.entries()) threads.emplace_back(index, &s);
  std::sort(threads.begin(), threads.end());
  for (auto& [index, state] : threads) {
    EndOpen(state, end_ticks, &unbalanced_.open_at_end);
    state->stack.clear();
  }
  // The kept frames left open join frames_'s, as BeginFrame would have
  // made them (counted in keyed_open_ already). Each key leaves
  // kept_frames_ before it joins: KeyedCount counts both maps, and a key in
  // both would count twice against max_keyed_.
  kept_last_ = nullptr;
  while (!kept_frames_.empty()) {
    const auto node = kept_frames_.extract(kept_frames_.begin());
    const Key& key = node.key();
    for (const KeptOpen& k : node.mapped()) {
      --keyed_open_;
      Open* o = PushKeyed(&frames_, key);
      if (o == nullptr) continue;
      SetOpenFrame(&o->iv, std::get<0>(key), format::Id{}, k.begin, *k.thread);
      o->iv.serial = k.serial;
      o->iv.listener_word = k.word;
    }
  }
  for (KeyedOpens* keyed : {&overlapped_, &regions_, &frames_}) {
    for (auto& [key, opens] : keyed->map()) {
      for (Open& open : opens) {
        open.iv.end = std::max(end_ticks, open.iv.begin);
        open.iv.open_at_end = true;
        if (keyed == &frames_) {
          ++unbalanced_.frames_open_at_end;
        } else {
          ++unbalanced_.open_at_end;
        }
        Deliver(&open);
      }
    }
    keyed->Clear();
  }
  keyed_open_ = 0;
}

}  // namespace itt_dump
}  // namespace ittc
