#include "tools/itt_dump/chrome.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/event_route.h"
#include "tools/itt_dump/model/flows.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/lanes.h"
#include "tools/itt_dump/model/metadata.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/small_cache.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;

namespace {

// True if `v` (from AppendNumber/AppendMetadataArray) is valid JSON as it
// is: non-finite values ("nan", "inf") are not, and go out as strings.
bool IsJsonNumberOrArray(const std::string& v) {
  return !v.empty() && v.find_first_of("ni") == std::string::npos;
}

const char* ScopeLetter(uint64_t scope) {
  switch (scope) {
    case 1:
      return "g";
    case 2:
      return "p";
    default:
      return "t";
  }
}

// JSON objects built in a buffer: what the writer of the whole trace and
// the pieces' sinks (pieces.h, on workers) share. Each has its own copy of
// the clock and its own filter (both keep caches).
class ChromeObjects {
 public:
  // `first`: the objects start the array (no comma before the first).
  // `filter` and `clock` are copied (a worker's from ones no thread
  // changes: both keep caches). The objects go to `line` (which must
  // outlive this), or to a buffer of its own.
  ChromeObjects(const VerbContext& ctx, bool first, const Filter& filter, const Clock& clock,
                TextBuffer* line = nullptr)
      : ctx_(ctx),
        x_(*ctx.index),
        clock_(clock),
        filter_(filter),
        pid_(ctx.set->files()[0].display_pid),
        first_(first),
        line_(line != nullptr ? line : &own_line_) {}

  TextBuffer& line() { return *line_; }
  const TextBuffer& line() const { return *line_; }
  uint64_t pid() const { return pid_; }
  // The trace's pid, as otherData gives it: with several files, the
  // first's (not the process of whatever the pass met last, which the
  // pass on every core need not meet last).
  uint64_t trace_pid() const { return ctx_.set->files()[0].display_pid; }
  // Events of several processes: each under its own pid.
  void UseProcess(const ThreadRec& t) { pid_ = ctx_.set->files()[t.process].display_pid; }
  void UsePid(uint64_t pid) { pid_ = pid; }

  // Whether the filter keeps interval `iv` (a frame's track is made only
  // then).
  bool Kept(const Interval& iv);
  // Appends the object(s) of `iv` on track `tid` (a frame's, or its
  // thread's).
  void AppendInterval(const Interval& iv, uint64_t tid);
  // Appends the object of a sample of `counter` (whose name and domain
  // are used) of `value` at `ticks` on thread `tid`.
  void AppendCounter(const Counter& counter, long double value, uint64_t tid, uint64_t ticks);
  // The name of `counter`'s track: the viewers key a counter's track by
  // its name (and pid), so a name the trace defines in two domains or more
  // takes its domain ("domain/name"), and a domain's name it defines with
  // two value types or more takes its type ("name (double)").
  std::string_view CounterTrackName(const Counter& counter);
  // Appends the name of frame track `tid`, one of domain `domain`'s of
  // thread t's process (ChromeWriter::FrameTid made it).
  void AppendFrameTrackName(const ThreadRec& t, uint64_t tid, uint64_t domain) {
    UseProcess(t);
    Metadata("thread_name", tid, absl::StrCat("frames ", std::string(x_.Domain(domain))));
  }

 protected:
  // Starts an object with its phase: (,)\n{"ph":"X
  void StartObject(char ph) {
    if (first_) {
      line_->append("\n{\"ph\":\"");
      first_ = false;
    } else {
      line_->append(",\n{\"ph\":\"");
    }
    line_->push_back(ph);
  }
  // Starts an event object: {"ph":"X","pid":..,"tid":..,"ts":..
  void Open(char ph, uint64_t tid, uint64_t ticks) {
    // By hand, not StrAppend: once per event.
    StartObject(ph);
    line_->append(IdsText(tid));
    times_.AppendMicros(line_, clock_.SinceStartNs(ticks));
  }
  void Field(const char* key, std::string_view text) {
    line_->append(",\"");
    line_->append(std::string_view(key));
    line_->append("\":");
    AppendJsonString(line_, text);
  }
  void CloseObject() { line_->append("}"); }
  void Metadata(const char* what, uint64_t tid, std::string_view name) {
    StartObject('M');
    line_->append(absl::StrCat("\",\"pid\":", pid_, ",\"tid\":", tid, ",\"ts\":0,\"name\":\"", what,
                               "\",\"args\":{\"name\":"));
    AppendJsonString(line_, name);
    line_->append("}");
    CloseObject();
  }
  void ArgValue(const Arg& a) {
    if (a.is_text || !IsJsonNumberOrArray(a.value)) {
      AppendJsonString(line_, a.value);
    } else {
      line_->append(a.value);
    }
  }
  static constexpr size_t kArgsScannedPairwise = 16;
  // A key given more than once (several metadata calls of one key on one
  // task) is written once, with its values in an array in their order:
  // JSON readers keep one value of a repeated key.
  void Args(const std::vector<Arg>* args, bool open_at_end) {
    if ((args == nullptr || args->empty()) && !open_at_end) return;
    line_->append(",\"args\":{");
    bool first = true;
    if (args != nullptr) {
      const size_t n = args->size();
      // Past a few args, each key's first index and count from a map (a
      // task with many metadata calls stays linear).
      absl::flat_hash_map<std::string_view, std::pair<size_t, size_t>> keys;
      if (n > kArgsScannedPairwise) {
        for (size_t i = 0; i < n; ++i) {
          auto [it, added] = keys.try_emplace((*args)[i].key, i, 0);
          ++it->second.second;
        }
      }
      for (size_t i = 0; i < n; ++i) {
        const Arg& a = (*args)[i];
        bool earlier = false;
        size_t again = 0;
        if (n > kArgsScannedPairwise) {
          const auto& [first, count] = keys.at(a.key);
          earlier = first < i;
          again = count - 1;
        } else {
          for (size_t j = 0; j < n && !earlier; ++j) {
            if (j != i && (*args)[j].key == a.key) {
              earlier = j < i;
              ++again;
            }
          }
        }
        if (earlier) continue;
        if (!first) line_->push_back(',');
        first = false;
        AppendJsonString(line_, a.key);
        line_->push_back(':');
        if (again == 0) {
          ArgValue(a);
          continue;
        }
        line_->push_back('[');
        for (size_t j = i; j < n; ++j) {
          if ((*args)[j].key != a.key) continue;
          if (j != i) line_->push_back(',');
          ArgValue((*args)[j]);
        }
        line_->push_back(']');
      }
    }
    if (open_at_end) {
      if (!first) line_->push_back(',');
      line_->append("\"open_at_end\":true");
    }
    line_->push_back('}');
  }

  const VerbContext& ctx_;
  const TraceIndex& x_;
  Clock clock_;
  NearDecimals times_;  // the events' "ts"
  Filter filter_;
  std::string name_buf_;  // an interval's name when it is made up

 private:
  // `","pid":P,"tid":T,"ts":` for the current process and `tid`: two
  // numbers formatted per thread, not per event.
  SmallCache<std::pair<uint64_t, uint64_t>, std::string> ids_text_;
  std::string_view IdsText(uint64_t tid) {
    return ids_text_.Get({pid_, tid}, tid + pid_ * 31, [&](std::string* text) {
      *text = absl::StrCat("\",\"pid\":", pid_, ",\"tid\":", tid, ",\"ts\":");
    });
  }
  // `,"name":..,"cat":..` of an interval whose name and category follow
  // from its kind, name string id and domain id alone; `make` gives the two
  // texts on a miss.
  SmallCache<std::tuple<IntervalKind, uint64_t, uint64_t>, std::string> name_cat_;
  template <typename Make>
  std::string_view NameAndCat(IntervalKind kind, uint64_t name_id, uint64_t domain_id, Make make) {
    return name_cat_.Get({kind, name_id, domain_id},
                         name_id * 31 + domain_id * 7 + static_cast<uint64_t>(kind),
                         [&](std::string* text) {
                           const auto [name, cat] = make();
                           text->assign(",\"name\":");
                           AppendJsonString(text, name);
                           text->append(",\"cat\":");
                           AppendJsonString(text, cat);
                         });
  }

  uint64_t pid_;
  bool first_;
  // The counter names CounterTrackName tells apart, made on first use:
  // names of several domains, and (domain, name) pairs of several types.
  struct CounterClashes {
    absl::flat_hash_set<std::string> names_of_several_domains;
    absl::flat_hash_set<std::pair<std::string, std::string>> names_of_several_types;
  };
  std::unique_ptr<CounterClashes> counter_clashes_;
  std::string counter_track_name_;
  TextBuffer own_line_;
  TextBuffer* line_;  // objects built and not yet handed on: own_line_ or the caller's
};

std::string_view ChromeObjects::CounterTrackName(const Counter& counter) {
  if (counter_clashes_ == nullptr) {
    counter_clashes_ = std::make_unique<CounterClashes>();
    absl::flat_hash_map<std::string_view, std::string_view> domain_of;
    absl::flat_hash_map<std::pair<std::string_view, std::string_view>, uint64_t> type_of;
    for (const auto& [id, def] : x_.counters.entries()) {
      const auto [it, added] = domain_of.try_emplace(def.name, def.domain_name);
      if (!added && it->second != def.domain_name) {
        counter_clashes_->names_of_several_domains.insert(def.name);
      }
      const auto [at, new_pair] = type_of.try_emplace({def.domain_name, def.name}, def.type);
      if (!new_pair && at->second != def.type) {
        counter_clashes_->names_of_several_types.emplace(def.domain_name, def.name);
      }
    }
  }
  // Mostly neither: then no sample hashes its name.
  const CounterClashes& c = *counter_clashes_;
  const bool domain = !counter.domain.empty() && !c.names_of_several_domains.empty() &&
                      c.names_of_several_domains.contains(counter.name);
  const bool type = !c.names_of_several_types.empty() &&
                    c.names_of_several_types.contains(std::make_pair(counter.domain, counter.name));
  if (!domain && !type) return counter.name;
  counter_track_name_.clear();
  if (domain) absl::StrAppend(&counter_track_name_, counter.domain, "/");
  counter_track_name_.append(counter.name);
  if (type) absl::StrAppend(&counter_track_name_, " (", MetadataTypeName(counter.type), ")");
  return counter_track_name_;
}

void ChromeObjects::AppendCounter(const Counter& counter, long double value, uint64_t tid,
                                  uint64_t ticks) {
  Open('C', tid, ticks);
  Field("name", CounterTrackName(counter));
  if (!counter.domain.empty()) Field("cat", counter.domain);
  line_->append(",\"args\":{\"value\":");
  // (JSON has no NaN or infinity: AppendNumber's "nan", "inf", "-inf".)
  if (std::isfinite(value)) {
    AppendNumber(line_, value);
  } else {
    line_->push_back('0');
  }
  line_->append("}");
  CloseObject();
}

bool ChromeObjects::Kept(const Interval& iv) {
  return filter_.KeepsInterval(iv, [&] { return IntervalNameView(x_, iv, &name_buf_); });
}

void ChromeObjects::AppendInterval(const Interval& iv, uint64_t tid) {
  UseProcess(*iv.thread);
  // The name and the domain's name, looked up only where they are used
  // (the cached texts below mostly do without them).
  std::optional<std::string_view> looked_up_name;
  const auto interval_name = [&] {
    if (!looked_up_name) looked_up_name = IntervalNameView(x_, iv, &name_buf_);
    return *looked_up_name;
  };
  std::optional<std::string_view> looked_up_domain;
  const auto domain_name = [&] {
    if (!looked_up_domain) looked_up_domain = x_.Domain(iv.domain);
    return *looked_up_domain;
  };
  switch (iv.kind) {
    case IntervalKind::kOverlapped:
    case IntervalKind::kRegion:
    case IntervalKind::kLegacyEvent: {
      // Async pairs: none nests with the thread's tasks (a region is
      // paired by its id, a legacy event by its event on its thread, and
      // either may end while a task it holds runs on), which a viewer's
      // slices of one thread must. A region without an id pairs in its
      // thread, a legacy event in its thread and event: so do their async
      // ids (one event's intervals on a thread pair as a stack, so they
      // nest).
      const std::string_view name = interval_name();
      const std::string_view domain = domain_name();
      const std::string_view cat = !domain.empty() ? domain
                                   : iv.kind == IntervalKind::kOverlapped
                                       ? "overlapped"
                                       : IntervalKindName(iv.kind);
      const std::string id = iv.kind == IntervalKind::kLegacyEvent
                                 ? absl::StrCat("thread ", tid, " event ", iv.event_id)
                             : iv.kind == IntervalKind::kRegion && iv.id == format::Id{}
                                 ? absl::StrCat("thread ", tid)
                                 : IdText(iv.id);
      Open('b', tid, iv.begin);
      Field("name", name);
      Field("cat", cat);
      Field("id", id);
      Args(iv.args, iv.open_at_end);
      CloseObject();
      Open('e', tid, iv.end);
      Field("name", name);
      Field("cat", cat);
      Field("id", id);
      CloseObject();
      return;
    }
    case IntervalKind::kFrame: {
      Open('X', tid, iv.begin);
      line_->append(",\"dur\":");
      AppendMicros(line_, clock_.DurationNs(iv.begin, iv.end));
      line_->append(NameAndCat(iv.kind, 0, iv.domain, [&] {
        const std::string_view domain = domain_name();
        name_buf_.assign("frame ");
        name_buf_.append(domain);
        return std::pair<std::string_view, std::string_view>(name_buf_,
                                                             domain.empty() ? "frame" : domain);
      }));
      Args(nullptr, iv.open_at_end);
      CloseObject();
      return;
    }
    default: {  // a task
      Open('X', tid, iv.begin);
      line_->append(",\"dur\":");
      AppendMicros(line_, clock_.DurationNs(iv.begin, iv.end));
      const auto name_and_cat = [&] {
        const std::string_view domain = domain_name();
        return std::pair<std::string_view, std::string_view>(
            interval_name(), domain.empty() ? IntervalKindName(iv.kind) : domain);
      };
      if (iv.name_id != 0) {
        line_->append(NameAndCat(iv.kind, iv.name_id, iv.domain, name_and_cat));
      } else {
        const auto [n, cat] = name_and_cat();
        Field("name", n);
        Field("cat", cat);
      }
      Args(iv.args, iv.open_at_end);
      CloseObject();
      return;
    }
  }
}

// The objects of one piece's paired tasks (pieces.h), each an output of
// its own, which the writer copies when the merge reaches it.
class ChromeSink final : public PieceSink {
 public:
  ChromeSink(const VerbContext& ctx, const Filter& filter, const Clock& clock)
      : objects_(ctx, /*first=*/false, filter, clock, &output_buffer()) {}

  IntervalTracker::PiecePairing pairing() const override {
    IntervalTracker::PiecePairing p;
    p.frames = false;          // their tracks are named as they appear
    p.tasks_with_ids = false;  // relations follow task ids
    p.args = true;             // a task's args: attached where the task is paired
    return p;
  }
  void OnInterval(const Interval& iv) override {
    if (!objects_.Kept(iv)) return;
    BeginOutput();
    objects_.AppendInterval(iv, iv.thread->tid);
    EndOutput(/*keep=*/true);
  }
  void Clear() override {}
  // Objects, which the reading thread writes as they are.
  bool outputs_apart() const override { return true; }
  // Counted, nothing kept: what the writer hands only to its tracker (sync
  // calls, heap calls, JIT methods: Chrome's JSON has no object for them)
  // where the tracker, which collects args, does nothing with it.
  // Frames and counter changes go to the reading thread apart, the object
  // of a frame end (and the name of a frame track it makes) or of a
  // sample in the slot each leaves: frames pair by domain across the
  // process's threads, and their tracks are laid out in their order; a
  // counter's value is the sum of its changes on every thread. Neither
  // depends on anything else (ChromeWriter::OnApartEvent).
  bool KeepsApart(format::EventKind kind) const override {
    return IsFrameKind(kind) || MayChangeCounter(kind);
  }
  bool SlotFor(format::EventKind kind) const override {
    return kind == format::EventKind::kFrameEnd || kind == format::EventKind::kFrameSubmit ||
           MayChangeCounter(kind);
  }
  bool Ignores(format::EventKind kind) const override {
    format::Event e;
    e.kind = kind;
    switch (RouteOf(e)) {
      case EventRoute::kInterval:
      case EventRoute::kSync:
      case EventRoute::kHeap:
      case EventRoute::kJit:
        return !IntervalTracker::UsesKind(kind, /*collect_args=*/true);
      default:
        return false;
    }
  }

 private:
  ChromeObjects objects_;  // into the outputs
};

// An object as the reading thread leaves it to a worker
// (PieceOutput::RecordRoom): the pairing, the frames' tracks, the
// counters' values and the filters are the reading thread's to work out,
// the formatting is not. A record is a kind byte, then its struct's bytes
// (written in place: ITTC_PUT_FIELD, FrameRecord::Write).
enum class ChromeRecordKind : uint8_t { kFrame, kCounter };
// Room for a record of `kind` whose struct has `size` bytes (REQUIRES:
// records->takes_records()), at this place of the output or in the slot
// of the event kept apart taken now (PieceOutput::RecordRoom): where the
// struct goes, after its kind byte.
char* ChromeRecordRoom(PieceOutput* records, ChromeRecordKind kind, size_t size) {
  char* p = records->RecordRoom(1 + size);
  p[0] = static_cast<char>(kind);
  return p + 1;
}
struct ChromeFrameRecord {
  uint64_t tid = 0;        // the frame track's
  bool new_track = false;  // the frame made it: its name goes first
  FrameRecord frame;
};
struct ChromeCounterRecord {
  const Counter* counter = nullptr;  // the tracker's, which stays
  uint64_t pid = 0;
  uint64_t tid = 0;  // the sample's thread's
  uint64_t ticks = 0;
  long double value = 0;
};

// Formats the records (a ChromeRecordKind, then a ChromeFrameRecord or a
// ChromeCounterRecord) on the worker that merges their run of output.
class ChromeRecordFormatter final : public OwnRecordFormatter {
 public:
  // Made on the reading thread from the writer's filter and clock.
  ChromeRecordFormatter(const VerbContext& ctx, const Filter& filter, const Clock& clock)
      : objects_(ctx, /*first=*/false, filter, clock) {}
  void Format(std::string_view record, std::string* out) override {
    if (static_cast<ChromeRecordKind>(record[0]) == ChromeRecordKind::kCounter) {
      ChromeCounterRecord r;
      std::memcpy(static_cast<void*>(&r), record.data() + 1, sizeof r);
      objects_.UsePid(r.pid);
      objects_.AppendCounter(*r.counter, r.value, r.tid, r.ticks);
    } else {
      ChromeFrameRecord r;
      std::memcpy(static_cast<void*>(&r), record.data() + 1, sizeof r);
      if (r.new_track) objects_.AppendFrameTrackName(*r.frame.thread, r.tid, r.frame.domain);
      objects_.AppendInterval(r.frame.ToInterval(), r.tid);
    }
    out->append(objects_.line().view());
    objects_.line().clear();
  }

 private:
  ChromeObjects objects_;
};

// The whole trace's objects, written as the pass reaches them.
class ChromeWriter : public ChromeObjects, public IntervalListener {
 public:
  // `warned_large`: an earlier pass over the same output warned of its
  // size.
  ChromeWriter(const VerbContext& ctx, bool warned_large)
      : ChromeObjects(ctx, /*first=*/true, Filter(ctx.filter, *ctx.index), ctx.index->clock),
        tracker_(x_, this),
        counters_(x_),
        warned_large_(warned_large) {}

  void Begin();
  void OnEvent(const Event& e, const ThreadRec& t);
  void End(uint64_t end_ticks, uint64_t events);
  // Hands the objects built so far to the output.
  void Flush() {
    Emit(line().view());
    line().clear();
  }
  void OnInterval(const Interval& iv) override;
  // What FeedEntry gives the whole trace's tracker (pieces.h).
  void AddChildTicks(const ThreadRec& t, uint64_t ticks) { tracker_.AddChildTicks(t, ticks); }
  void OnOpen(const Interval& iv, const ThreadRec& t) { tracker_.OnOpen(iv, t); }
  void OnCut(const ThreadRec& t, uint64_t ticks) { tracker_.CutThread(t, ticks); }
  // What OnEvent does with a frame_begin or frame_end of a null id, for
  // one that FeedEntry gives it so (its pieces pair no frames).
  void OnKeptFrame(const KeptFrame& frame, const ThreadRec& t) {
    UseProcess(t);
    tracker_.OnFrame(frame, t);
  }
  // The frame and counter events its pieces kept apart (ChromeSink::
  // KeepsApart) on every core, in their order: the object of a frame one
  // ends (and the name of the frame track that makes) or of the sample it
  // makes goes in its slot. Its tracker's frames, the frame tracks and the
  // counters depend on nothing else, nor anything else on them.
  InSlots<ChromeWriter> apart_in_order() { return InSlots<ChromeWriter>(this); }

  bool warned_large() const { return warned_large_; }
  // Where frames' and counter samples' objects go as records while it
  // takes them (the pass on every core), formatted on the workers by
  // ChromeRecordFormatters made from its filter and clock.
  void set_records(PieceOutput* records) {
    records_ = records;
    records->set_record_formatter(
        [this] { return std::make_unique<ChromeRecordFormatter>(ctx_, filter_, clock_); });
  }
  // Bytes of the pieces' objects, written for it elsewhere (PieceOutput).
  void CountWritten(size_t n) { Count(n); }

 private:
  // Flushes a full batch.
  void AfterObject() {
    if (line().size() >= TextBuffer::kWriteBatch) Flush();
  }
  void Close() {
    CloseObject();
    AfterObject();
  }
  void Emit(std::string_view s);
  // Counts bytes written, and warns once past kLargeJsonBytes.
  void Count(size_t n);
  // The frame track (a pseudo-thread) that kept frame `iv` of a thread of
  // `process` goes on: its domain's first lane whose frames all ended by
  // its begin, made when every lane is taken (*made set: the caller names
  // it, AppendFrameTrackName).
  uint64_t FrameTid(uint32_t process, const Interval& iv, bool* made);
  void OnRelation(const Event& e, const ThreadRec& t);
  // DispatchByRoute's handlers (model/event_route.h), with OnRelation.
  friend void itt_dump::DispatchByRoute<ChromeWriter>(const Event& e, const ThreadRec& t,
                                                      CounterTracker* counters, ChromeWriter* x);
  void OnIntervalEvent(const Event& e, const ThreadRec& t);
  void OnTaskBegin(const Event& e, const ThreadRec& t);
  void OnMarker(const Event& e, const ThreadRec& t);
  void OnScopedMetadata(const Event& e, const ThreadRec& t);
  void OnJit(const Event& e, const ThreadRec& t);
  void OnCounter(const CounterSample& sample, const ThreadRec& t);
  void OnSync(const Event& e, const ThreadRec& t);
  void OnHeap(const Event& e, const ThreadRec& t);
  // Writes the "f" events of flow_ends_ and clears it.
  void WriteFlowEnds();

  IntervalTracker tracker_;
  // A domain's frames of a process (by process << 40 ^ domain): frames
  // overlap without nesting (threads of a process share their domain's
  // frames), and a track's complete events must nest.
  struct FrameLanes {
    Lanes lanes;
    std::vector<uint64_t> tids;  // by lane
  };
  U64Map<FrameLanes> frame_lanes_;
  uint64_t frame_tracks_ = 0;  // pseudo tids made
  CounterTracker counters_;
  FlowTracker flows_;
  std::vector<FlowTracker::End> flow_ends_;
  // Past this much JSON, one warning points to the perfetto verb.
  static constexpr uint64_t kLargeJsonBytes = uint64_t{500} << 20;
  uint64_t written_ = 0;  // bytes handed to the output
  bool warned_large_;
  PieceOutput* records_ = nullptr;
};

void ChromeWriter::Emit(std::string_view s) {
  ctx_.out->Write(s);
  Count(s.size());
}

void ChromeWriter::Count(size_t n) {
  written_ += n;
  if (written_ > kLargeJsonBytes && !warned_large_) {
    warned_large_ = true;
    Warn(ctx_,
         "the Chrome JSON passed 500 MB; viewers do not load JSON traces this large: "
         "'itt-dump perfetto' writes Perfetto's compact native format");
  }
}

void ChromeWriter::Begin() {
  Emit("{\"traceEvents\":[");
  for (const TraceFile& f : ctx_.set->files()) {
    UsePid(f.display_pid);
    Metadata("process_name", 0, f.label);
    AfterObject();
  }
  for (const auto& [index, t] : x_.threads.entries()) {
    UseProcess(t);
    Metadata("thread_name", t.tid, t.name.empty() ? absl::StrCat("thread ", t.tid) : t.name);
    AfterObject();
  }
}

uint64_t ChromeWriter::FrameTid(uint32_t process, const Interval& iv, bool* made) {
  FrameLanes& group = frame_lanes_[uint64_t{process} << 40 ^ iv.domain];
  *made = false;
  const size_t lane = group.lanes.Acquire(iv.begin, made);
  group.lanes.Release(lane, iv.end);
  if (*made) group.tids.push_back(kFrameTrackTid + frame_tracks_++);
  return group.tids[lane];
}

void ChromeWriter::OnInterval(const Interval& iv) {
  const ThreadRec& t = *iv.thread;
  UseProcess(t);
  if (!Kept(iv)) return;
  if (iv.kind != IntervalKind::kFrame) {
    AppendInterval(iv, t.tid);
    AfterObject();
    return;
  }
  bool new_track = false;
  const uint64_t tid = FrameTid(t.process, iv, &new_track);
  if (records_ != nullptr && records_->takes_records()) {
    // Formatted on a worker, here or in the slot of the frame's end.
    char* p = ChromeRecordRoom(records_, ChromeRecordKind::kFrame, sizeof(ChromeFrameRecord));
    ITTC_PUT_FIELD(p, ChromeFrameRecord, tid, tid);
    ITTC_PUT_FIELD(p, ChromeFrameRecord, new_track, new_track);
    FrameRecord::Write(iv, p + offsetof(ChromeFrameRecord, frame));
    return;
  }
  if (new_track) AppendFrameTrackName(t, tid, iv.domain);
  AppendInterval(iv, tid);
  AfterObject();
}

void ChromeWriter::WriteFlowEnds() {
  for (const FlowTracker::End& end : flow_ends_) {
    UseProcess(*end.thread);
    Open('f', end.thread->tid, end.ticks);
    line().append(absl::StrCat(",\"bp\":\"e\",\"id\":", end.flow));
    Field("name", "relation");
    Field("cat", "relation");
    Close();
  }
  flow_ends_.clear();
}

void ChromeWriter::OnRelation(const Event& e, const ThreadRec& t) {
  const uint64_t ticks = format::EffectiveTime(e);
  const char* relation = RelationName(e.Get(F::kRelation));
  if (!filter_.KeepsRelation(t, e.Get(F::kDomain), ticks)) return;
  const size_t ends = flow_ends_.size();
  const uint64_t flow = flows_.OnRelation(e.GetId(F::kTail), &flow_ends_);
  // A flow runs forward in time (the viewers read its "s" before its "f"):
  // from the relation to the tail's begin, or from the begin of a tail that
  // began before the relation to the relation.
  FlowTracker::End start{flow, &t, ticks};
  if (flow_ends_.size() > ends && flow_ends_.back().ticks < ticks)
    std::swap(start, flow_ends_.back());
  UseProcess(*start.thread);
  TextBuffer& line = this->line();
  Open('s', start.thread->tid, start.ticks);
  line.append(absl::StrCat(",\"id\":", flow));
  Field("name", "relation");
  Field("cat", "relation");
  line.append(",\"args\":{\"relation\":");
  AppendJsonString(&line, relation);
  // (The ids as the process wrote them, as text shows them.)
  if (e.Has(F::kHead)) {
    line.append(",\"head\":");
    AppendJsonString(&line, IdText(UntagId(e.GetId(F::kHead), t.process)));
  }
  line.append(",\"tail\":");
  AppendJsonString(&line, IdText(UntagId(e.GetId(F::kTail), t.process)));
  line.append("}");
  Close();
  WriteFlowEnds();
}

void ChromeWriter::OnEvent(const Event& e, const ThreadRec& t) {
  UseProcess(t);
  DispatchByRoute(e, t, &counters_, this);
}

void ChromeWriter::OnCounter(const CounterSample& sample, const ThreadRec& t) {
  const Counter& s = *sample.counter;
  const uint64_t ticks = sample.ticks;
  if (!filter_.KeepsSample(t, sample)) return;
  if (records_ != nullptr && records_->takes_records()) {
    // Formatted on a worker, here or in the slot of its event (the
    // counter's name and domain stay).
    char* p = ChromeRecordRoom(records_, ChromeRecordKind::kCounter, sizeof(ChromeCounterRecord));
    ITTC_PUT_FIELD(p, ChromeCounterRecord, counter, &s);
    ITTC_PUT_FIELD(p, ChromeCounterRecord, pid, pid());
    ITTC_PUT_FIELD(p, ChromeCounterRecord, tid, t.tid);
    ITTC_PUT_FIELD(p, ChromeCounterRecord, ticks, ticks);
    ITTC_PUT_FIELD(p, ChromeCounterRecord, value, s.value);
    return;
  }
  AppendCounter(s, s.value, t.tid, ticks);
  AfterObject();
}

void ChromeWriter::OnMarker(const Event& e, const ThreadRec& t) {
  TextBuffer& line = this->line();
  const uint64_t ticks = format::EffectiveTime(e);
  const std::string_view name = x_.String(e.Get(F::kName));
  if (!filter_.KeepsItem(t, e.Get(F::kDomain), name, ticks, /*named=*/e.Get(F::kName) != 0)) {
    return;
  }
  Open('i', t.tid, ticks);
  Field("name", name);
  const std::string_view domain = x_.Domain(e.Get(F::kDomain));
  Field("cat", domain.empty() ? "marker" : domain);
  line.append(absl::StrCat(",\"s\":\"", ScopeLetter(e.Get(F::kScope)), "\""));
  Close();
}

void ChromeWriter::OnScopedMetadata(const Event& e, const ThreadRec& t) {
  TextBuffer& line = this->line();
  const MetadataValue m = DecodeMetadata(x_, e);
  const std::string_view key = m.key;
  if (!filter_.KeepsItem(t, e.Get(F::kDomain), key, e.time)) return;
  Open('i', t.tid, e.time);
  Field("name", key.empty() ? "metadata" : key);
  Field("cat", "metadata");
  line.append(absl::StrCat(",\"s\":\"", ScopeLetter(e.Get(F::kScope)), "\""));
  line.append(",\"args\":{");
  AppendJsonString(&line, key.empty() ? "value" : key);
  line.push_back(':');
  if (m.is_text || !IsJsonNumberOrArray(m.value)) {
    AppendJsonString(&line, m.value);
  } else {
    line.append(m.value);
  }
  line.append("}");
  Close();
}

void ChromeWriter::OnTaskBegin(const Event& e, const ThreadRec& t) {
  flows_.OnTaskBegin(e.GetId(F::kId), t, format::EffectiveTime(e), &flow_ends_);
  WriteFlowEnds();
  tracker_.OnEvent(e, t);
}

// Chrome's JSON has no object for a JIT method, a sync call or a heap call:
// the interval tracker sees them as it sees any event.
void ChromeWriter::OnIntervalEvent(const Event& e, const ThreadRec& t) { tracker_.OnEvent(e, t); }
void ChromeWriter::OnJit(const Event& e, const ThreadRec& t) { tracker_.OnEvent(e, t); }
void ChromeWriter::OnSync(const Event& e, const ThreadRec& t) { tracker_.OnEvent(e, t); }
void ChromeWriter::OnHeap(const Event& e, const ThreadRec& t) { tracker_.OnEvent(e, t); }

void ChromeWriter::End(uint64_t end_ticks, uint64_t events) {
  tracker_.Finish(end_ticks);
  const Unbalanced& u = tracker_.unbalanced();
  Flush();
  TextBuffer& line = this->line();
  line.append("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"trace\":");
  AppendJsonString(&line, x_.name);
  line.append(",\"host\":");
  AppendJsonString(&line, x_.header.host_name);
  line.append(absl::StrCat(
      ",\"pid\":", trace_pid(), ",\"events\":", events,
      ",\"end_without_begin\":", u.end_without_begin, ",\"open_at_end\":", u.open_at_end,
      ",\"frame_end_without_begin\":", u.frame_end_without_begin,
      ",\"frames_open_at_end\":", u.frames_open_at_end,
      u.left_open_at_loss == 0 ? "" : absl::StrCat(",\"left_open_at_loss\":", u.left_open_at_loss),
      ",\"unresolved_relations\":", flows_.unresolved(), "}}\n"));
  Flush();
  WarnUnbalanced(ctx_, u);
}

}  // namespace

absl::StatusOr<PassSummary> WriteChrome(const VerbContext& ctx, uint64_t* rewritten) {
  bool warned_large = false;
  return WriteOnce(
      ctx, "JSON",
      [&](const VerbContext& first) -> std::optional<PassSummary> {
        // The workers pair the simple tasks and write their objects, this
        // thread merges them with the rest.
        // (The pieces' objects and this thread's merge on workers:
        // PieceOutput.)
        PieceOutput own(first.out);
        VerbContext own_ctx = first;
        own_ctx.out = &own;
        ChromeWriter w(own_ctx, /*warned_large=*/false);
        own.set_flush([&w] { w.Flush(); }, &w.line());
        own.set_on_run([&w](size_t n) { w.CountWritten(n); });
        w.set_records(&own);
        InSlots<ChromeWriter> in_slots = w.apart_in_order();
        std::optional<PassSummary> pass = WriteInPieces(
            first,
            [&](const Filter& filter, const Clock& clock) {
              return std::make_unique<ChromeSink>(first, filter, clock);
            },
            &w, [&w] { w.Begin(); }, &own, &in_slots);
        if (pass) {
          w.End(TraceEndTicks(*ctx.index, pass->last_ticks), pass->events);
          own.Flush();
        }
        warned_large = w.warned_large();
        return pass;
      },
      [&](const VerbContext& again) -> absl::StatusOr<PassSummary> {
        ChromeWriter w(again, warned_large);
        w.Begin();
        absl::StatusOr<PassSummary> pass = ForEachEvent(
            again, [&](const Event& e, const ThreadRec& t) { w.OnEvent(e, t); },
            [&](const ThreadRec& t, uint64_t ticks) { w.OnCut(t, ticks); });
        if (pass.ok()) w.End(TraceEndTicks(*ctx.index, pass->last_ticks), pass->events);
        w.Flush();
        return pass;
      },
      rewritten);
}

absl::Status RunChrome(const VerbContext& ctx) {
  absl::StatusOr<PassSummary> pass = WriteChrome(ctx);
  ctx.out->Flush();
  if (!pass.ok()) return pass.status();
  return WarnMerge(ctx, *pass);
}

}  // namespace itt_dump
}  // namespace ittc
