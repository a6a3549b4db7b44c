#include "tools/itt_dump/chrome.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/flows.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/metadata.h"
#include "tools/itt_dump/model/small_cache.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;

namespace {

std::string IdText(const format::Id& id) {
  if (id.d2 == 0 && id.d3 == 0) return absl::StrFormat("0x%x", id.d1);
  return absl::StrFormat("0x%x:0x%x:0x%x", id.d1, id.d2, id.d3);
}

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

class ChromeWriter : public IntervalListener {
 public:
  explicit ChromeWriter(const VerbContext& ctx)
      : ctx_(ctx),
        x_(*ctx.index),
        filter_(ctx.filter, x_),
        tracker_(x_, this),
        pid_(ctx.set->files()[0].display_pid),
        counters_(x_) {}

  void Begin();
  void OnEvent(const Event& e, const ThreadRec& t);
  void End(uint64_t end_ticks, uint64_t events);
  // Hands the objects built so far to the output.
  void Flush() {
    ctx_.out->Write(line_.view());
    line_.clear();
  }
  void OnInterval(const Interval& iv) override;

 private:
  // Starts an object with its phase: (,)\n{"ph":"X
  void StartObject(char ph) {
    object_start_ = line_.size();
    if (first_) {
      line_.append("\n{\"ph\":\"");
      first_ = false;
    } else {
      line_.append(",\n{\"ph\":\"");
    }
    line_.push_back(ph);
  }
  // Starts an event object: {"ph":"X","pid":..,"tid":..,"ts":..
  void Open(char ph, uint64_t tid, uint64_t ticks) {
    // By hand, not StrAppend: once per event.
    StartObject(ph);
    line_.append(IdsText(tid));
    AppendMicros(&line_, x_.clock.SinceStartNs(ticks));
  }
  void Field(const char* key, std::string_view text) {
    line_.append(",\"");
    line_.append(std::string_view(key));
    line_.append("\":");
    AppendJsonString(&line_, text);
  }
  void Close() {
    line_.append("}");
    written_ += line_.size() - object_start_;
    if (line_.size() >= TextBuffer::kWriteBatch) Flush();
    if (written_ > kLargeJsonBytes && !warned_large_) {
      warned_large_ = true;
      Warn(ctx_,
           "the Chrome JSON passed 500 MB; viewers do not load JSON traces this large: "
           "'itt-dump perfetto' writes Perfetto's compact native format");
    }
  }
  void Metadata(const char* what, uint64_t tid, std::string_view name) {
    StartObject('M');
    line_.append(absl::StrCat("\",\"pid\":", pid_, ",\"tid\":", tid, ",\"ts\":0,\"name\":\"", what,
                              "\",\"args\":{\"name\":"));
    AppendJsonString(&line_, name);
    line_.append("}");
    Close();
  }
  void Args(const std::vector<Arg>* args, bool open_at_end) {
    if ((args == nullptr || args->empty()) && !open_at_end) return;
    line_.append(",\"args\":{");
    bool first = true;
    if (args != nullptr) {
      for (const Arg& a : *args) {
        if (!first) line_.push_back(',');
        first = false;
        AppendJsonString(&line_, a.key);
        line_.push_back(':');
        if (a.is_text || !IsJsonNumberOrArray(a.value)) {
          AppendJsonString(&line_, a.value);
        } else {
          line_.append(a.value);
        }
      }
    }
    if (open_at_end) {
      if (!first) line_.push_back(',');
      line_.append("\"open_at_end\":true");
    }
    line_.push_back('}');
  }
  bool Keep(const ThreadRec& t, uint64_t domain, std::string_view name, uint64_t ticks) {
    if (!filter_.active()) return true;
    return filter_.ThreadOk(t) && filter_.DomainOk(domain) && filter_.NameOk(name) &&
           filter_.TimeOk(ticks);
  }
  // Events of several processes: each under its own pid.
  void UseProcess(const ThreadRec& t) { pid_ = ctx_.set->files()[t.process].display_pid; }
  uint64_t FrameTid(uint32_t process, uint64_t domain);
  void OnRelation(const Event& e, const ThreadRec& t);
  // Writes the "f" events of flow_ends_ and clears it.
  void WriteFlowEnds();

  const VerbContext& ctx_;
  const TraceIndex& x_;
  Filter filter_;
  IntervalTracker tracker_;
  uint64_t pid_;
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
  bool first_ = true;
  TextBuffer line_;              // objects built and not yet written (TextBuffer::kWriteBatch)
  size_t object_start_ = 0;      // where in line_ the object being built starts
  std::string name_buf_;         // an interval's name when it is made up
  U64Map<uint64_t> frame_tids_;  // domain -> pseudo tid
  CounterTracker counters_;
  FlowTracker flows_;
  std::vector<FlowTracker::End> flow_ends_;
  // Past this much JSON, one warning points to the perfetto verb.
  static constexpr uint64_t kLargeJsonBytes = uint64_t{500} << 20;
  uint64_t written_ = 0;
  bool warned_large_ = false;
};

void ChromeWriter::Begin() {
  ctx_.out->Write("{\"traceEvents\":[");
  for (const TraceFile& f : ctx_.set->files()) {
    pid_ = f.display_pid;
    Metadata("process_name", 0, f.label);
  }
  for (const auto& [index, t] : x_.threads.entries()) {
    UseProcess(t);
    Metadata("thread_name", t.tid, t.name.empty() ? absl::StrCat("thread ", t.tid) : t.name);
  }
}

uint64_t ChromeWriter::FrameTid(uint32_t process, uint64_t domain) {
  uint64_t& tid = frame_tids_[uint64_t{process} << 40 ^ domain];
  if (tid == 0) {
    tid = kFrameTrackTid + frame_tids_.size() - 1;
    Metadata("thread_name", tid, absl::StrCat("frames ", std::string(x_.Domain(domain))));
  }
  return tid;
}

void ChromeWriter::OnInterval(const Interval& iv) {
  const ThreadRec& t = *iv.thread;
  UseProcess(t);
  // The name, looked up only where it is used (the cached texts below
  // mostly do without it).
  std::optional<std::string_view> looked_up_name;
  const auto interval_name = [&] {
    if (!looked_up_name) looked_up_name = IntervalNameView(x_, iv, &name_buf_);
    return *looked_up_name;
  };
  if (filter_.active()) {
    const std::string_view name = interval_name();
    if (!filter_.ThreadOk(t) || !filter_.TimeOk(iv.begin)) return;
    if (iv.kind != IntervalKind::kLegacyEvent && !filter_.DomainOk(iv.domain)) {
      return;
    }
    if (iv.kind == IntervalKind::kLegacyEvent && filter_.has_domain()) return;
    if (!filter_.NameOk(name)) return;
  }
  // The domain's name, also looked up only where it is used.
  std::optional<std::string_view> looked_up_domain;
  const auto domain_name = [&] {
    if (!looked_up_domain) looked_up_domain = x_.Domain(iv.domain);
    return *looked_up_domain;
  };
  switch (iv.kind) {
    case IntervalKind::kOverlapped: {
      const std::string_view name = interval_name();
      const std::string_view domain = domain_name();
      const std::string id = IdText(iv.id);
      Open('b', t.tid, iv.begin);
      Field("name", name);
      Field("cat", domain.empty() ? "overlapped" : domain);
      Field("id", id);
      Args(iv.args, iv.open_at_end);
      Close();
      Open('e', t.tid, iv.end);
      Field("name", name);
      Field("cat", domain.empty() ? "overlapped" : domain);
      Field("id", id);
      Close();
      return;
    }
    case IntervalKind::kFrame: {
      const uint64_t tid = FrameTid(t.process, iv.domain);
      Open('X', tid, iv.begin);
      line_.append(",\"dur\":");
      AppendMicros(&line_, x_.clock.DurationNs(iv.begin, iv.end));
      line_.append(NameAndCat(iv.kind, 0, iv.domain, [&] {
        const std::string_view domain = domain_name();
        name_buf_.assign("frame ");
        name_buf_.append(domain);
        return std::pair<std::string_view, std::string_view>(name_buf_,
                                                             domain.empty() ? "frame" : domain);
      }));
      Args(nullptr, iv.open_at_end);
      Close();
      return;
    }
    default: {
      Open('X', t.tid, iv.begin);
      line_.append(",\"dur\":");
      AppendMicros(&line_, x_.clock.DurationNs(iv.begin, iv.end));
      const auto name_and_cat = [&] {
        const std::string_view domain = domain_name();
        return std::pair<std::string_view, std::string_view>(
            interval_name(), domain.empty() ? IntervalKindName(iv.kind) : domain);
      };
      if (iv.kind != IntervalKind::kLegacyEvent && iv.name_id != 0) {
        line_.append(NameAndCat(iv.kind, iv.name_id, iv.domain, name_and_cat));
      } else {
        const auto [n, cat] = name_and_cat();
        Field("name", n);
        Field("cat", cat);
      }
      Args(iv.args, iv.open_at_end);
      Close();
      return;
    }
  }
}

void ChromeWriter::WriteFlowEnds() {
  for (const FlowTracker::End& end : flow_ends_) {
    UseProcess(*end.thread);
    Open('f', end.thread->tid, end.ticks);
    line_.append(absl::StrCat(",\"bp\":\"e\",\"id\":", end.flow));
    Field("name", "relation");
    Field("cat", "relation");
    Close();
  }
  flow_ends_.clear();
}

void ChromeWriter::OnRelation(const Event& e, const ThreadRec& t) {
  const uint64_t ticks = format::EffectiveTime(e);
  const char* relation = RelationName(e.Get(F::kRelation));
  if (!Keep(t, e.Get(F::kDomain), relation, ticks)) return;
  const uint64_t flow = flows_.OnRelation(e.GetId(F::kTail), &flow_ends_);
  Open('s', t.tid, ticks);
  line_.append(absl::StrCat(",\"id\":", flow));
  Field("name", "relation");
  Field("cat", "relation");
  line_.append(",\"args\":{\"relation\":");
  AppendJsonString(&line_, relation);
  if (e.Has(F::kHead)) {
    line_.append(",\"head\":");
    AppendJsonString(&line_, IdText(e.GetId(F::kHead)));
  }
  const format::Id& tail = e.GetId(F::kTail);
  line_.append(",\"tail\":");
  AppendJsonString(&line_, IdText(tail));
  line_.append("}");
  Close();
  WriteFlowEnds();
}

void ChromeWriter::OnEvent(const Event& e, const ThreadRec& t) {
  UseProcess(t);
  CounterSample sample;
  if (MayChangeCounter(e.kind) && counters_.OnEvent(e, &sample)) {
    const Counter& s = *sample.counter;
    const uint64_t ticks = sample.ticks;
    if (filter_.active() &&
        (!filter_.ThreadOk(t) || !filter_.TimeOk(ticks) || !filter_.NameOk(s.name) ||
         (filter_.has_domain() && (s.domain.empty() || !filter_.DomainNameOk(s.domain))))) {
      return;
    }
    Open('C', t.tid, ticks);
    Field("name", s.name);
    if (!s.domain.empty()) Field("cat", s.domain);
    line_.append(",\"args\":{\"value\":");
    std::string v;
    AppendNumber(&v, s.value);
    if (v == "nan" || v == "inf" || v == "-inf") v = "0";
    line_.append(v);
    line_.append("}");
    Close();
    return;
  }
  switch (e.kind) {
    case EventKind::kMarker:
    case EventKind::kMarkerEx: {
      const uint64_t ticks = format::EffectiveTime(e);
      const std::string_view name = x_.String(e.Get(F::kName));
      if (!Keep(t, e.Get(F::kDomain), name, ticks)) return;
      Open('i', t.tid, ticks);
      Field("name", name);
      const std::string_view domain = x_.Domain(e.Get(F::kDomain));
      Field("cat", domain.empty() ? "marker" : domain);
      line_.append(absl::StrCat(",\"s\":\"", ScopeLetter(e.Get(F::kScope)), "\""));
      Close();
      return;
    }
    case EventKind::kRelationAdd:
    case EventKind::kRelationAddToCurrent:
    case EventKind::kRelationAddEx:
    case EventKind::kRelationAddToCurrentEx:
      OnRelation(e, t);
      return;
    case EventKind::kMetadataAddWithScope:
    case EventKind::kMetadataStrAddWithScope: {
      if (e.Get(F::kScope) == static_cast<uint64_t>(format::Scope::kTask)) break;
      const MetadataValue m = DecodeMetadata(x_, e);
      const std::string_view key = m.key;
      if (!Keep(t, e.Get(F::kDomain), key, e.time)) return;
      Open('i', t.tid, e.time);
      Field("name", key.empty() ? "metadata" : key);
      Field("cat", "metadata");
      line_.append(absl::StrCat(",\"s\":\"", ScopeLetter(e.Get(F::kScope)), "\""));
      line_.append(",\"args\":{");
      AppendJsonString(&line_, key.empty() ? "value" : key);
      line_.push_back(':');
      if (m.is_text || !IsJsonNumberOrArray(m.value)) {
        AppendJsonString(&line_, m.value);
      } else {
        line_.append(m.value);
      }
      line_.append("}");
      Close();
      return;
    }
    case EventKind::kTaskBegin:
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginOverlapped:
    case EventKind::kTaskBeginEx:
    case EventKind::kTaskBeginFnEx:
    case EventKind::kTaskBeginOverlappedEx:
      flows_.OnTaskBegin(e.GetId(F::kId), t, format::EffectiveTime(e), &flow_ends_);
      WriteFlowEnds();
      break;
    default:
      break;
  }
  tracker_.OnEvent(e, t);
}

void ChromeWriter::End(uint64_t end_ticks, uint64_t events) {
  tracker_.Finish(end_ticks);
  const Unbalanced& u = tracker_.unbalanced();
  Flush();
  line_.append("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"trace\":");
  AppendJsonString(&line_, x_.name);
  line_.append(",\"host\":");
  AppendJsonString(&line_, x_.header.host_name);
  line_.append(absl::StrCat(",\"pid\":", pid_, ",\"events\":", events, ",\"end_without_begin\":",
                            u.end_without_begin, ",\"open_at_end\":", u.open_at_end,
                            ",\"frame_end_without_begin\":", u.frame_end_without_begin,
                            ",\"frames_open_at_end\":", u.frames_open_at_end,
                            ",\"unresolved_relations\":", flows_.unresolved(), "}}\n"));
  ctx_.out->Write(line_.view());
  if (u.total() != 0) {
    Warn(ctx_, absl::StrCat("unbalanced: ", u.end_without_begin, " ends without begin, ",
                            u.open_at_end, " tasks open at the end, ", u.frame_end_without_begin,
                            " frame ends without begin, ", u.frames_open_at_end,
                            " frames open at the end"));
  }
}

}  // namespace

absl::Status RunChrome(const VerbContext& ctx) {
  ChromeWriter w(ctx);
  w.Begin();
  absl::StatusOr<PassSummary> pass =
      ForEachEvent(ctx, [&](const Event& e, const ThreadRec& t) { w.OnEvent(e, t); });
  if (!pass.ok()) {
    w.Flush();
    return pass.status();
  }
  w.End(TraceEndTicks(*ctx.index, pass->last_ticks), pass->events);
  ctx.out->Flush();
  WarnMerge(ctx, *pass);
  return absl::OkStatus();
}

}  // namespace itt_dump
}  // namespace ittc
