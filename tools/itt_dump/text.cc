#include "tools/itt_dump/text.h"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/jit_methods.h"
#include "tools/itt_dump/model/metadata.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/small_cache.h"
#include "tools/itt_dump/model/symbols.h"
#include "tools/itt_dump/model/sync.h"
#include "tools/itt_dump/model/values.h"
#include "tools/itt_dump/two_passes.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using format::FieldRole;
using format::FieldType;
using F = format::Field;

namespace {

// What the name and domain columns show, and which fields they used.
// The views point into the index, the event's payload, or the printer's
// scratch buffers, and are valid while the event is printed.
// (Its members ordered so that it has no holes: at 88 bytes, AppendLine
// zeroed it with `rep stos`, 5% of text's CPU on the frames trace.)
struct Subject {
  std::string_view domain;
  std::string_view name;
  const std::string* quoted_name = nullptr;  // name as AppendQuoted writes it, if known
  // The domain's kDefDomain id when the event gives one (0: none, or a
  // counter's or heap function's domain, known by its name only), which
  // a domain filter tests as the other verbs do (Filter::DomainOk).
  uint64_t domain_id = 0;
  // A piece's sync object, named at the merge (LineHole): its address.
  uint64_t sync_addr = 0;
  int domain_field = -1;  // schema index shown in the domain column
  int name_field = -1;    // schema index shown in the name column
  bool has_domain = false;
  bool has_name = false;
  bool sync_hole = false;
};

// Where a piece's line leaves its name column to the merge (the sync
// object's name as the pass has it there: TextPrinter::SyncNameText).
struct LineHole {
  bool made = false;
  size_t at = 0;  // in the line's buffer
  uint64_t key = 0;
};

// Prints one line per event. End events are named after the interval
// they close, which the model's pairing engine (intervals.h) reports.
//
// With a share (two_passes.h), it is one of two printers that read the
// same events at once, and formats only the lines of its share's batches.
class TextPrinter : public IntervalListener {
 public:
  // `share` (may be null) must outlive the printer.
  TextPrinter(const VerbContext& ctx, PassShare* share)
      : TextPrinter(ctx, share, Filter(ctx.filter, *ctx.index), ctx.index->clock) {}
  // With copies of `filter` and `clock` (a worker's from ones no thread
  // changes: both keep caches).
  TextPrinter(const VerbContext& ctx, PassShare* share, const Filter& filter, const Clock& clock)
      : ctx_(ctx),
        x_(*ctx.index),
        clock_(clock),
        share_(share),
        filter_(filter),
        tracker_(x_, this) {
    tracker_.set_collect_args(false);
  }

  void Print(const Event& e, const ThreadRec& t);
  // Appends e's line to *out, as the printer's state is (the interval e
  // closed, the sync objects' names), unless the filter drops it
  // (false). With sync_name_holes, a sync object's line leaves its name
  // to *hole (which must be given then).
  bool AppendLine(const Event& e, const format::KindSchema& s, const ThreadRec& t, TextBuffer* out,
                  LineHole* hole = nullptr);
  // A piece's printer: the lines of sync_prepare, _acquired, _cancel,
  // _releasing and _destroy leave their object's name to the merge
  // (AppendLine's hole), which its sync_create and sync_rename, on any
  // thread, set. Not with a filter by name, which needs the name.
  void set_sync_name_holes() { sync_name_holes_ = true; }
  bool sync_name_holes() const { return sync_name_holes_; }
  static bool NamesSyncObject(EventKind kind) {
    return kind == EventKind::kSyncCreate || kind == EventKind::kSyncRename;
  }
  // The reading thread's printer: the name column of a sync object's line
  // at `addr` as it is now (the quoted name or "-"), valid as long as the
  // printer; and what it calls before a sync_create or sync_rename changes
  // one (the merge fills the holes before it: PieceMerger::
  // FillHolesBeforeChange).
  std::string_view SyncNameText(uint64_t addr);
  void set_before_sync_name(std::function<void()> fn) { before_sync_name_ = std::move(fn); }
  // What FeedEntry gives the whole trace's tracker (pieces.h).
  void OnEvent(const Event& e, const ThreadRec& t) { Print(e, t); }
  void AddChildTicks(const ThreadRec& t, uint64_t ticks) { tracker_.AddChildTicks(t, ticks); }
  void OnOpen(const Interval& iv, const ThreadRec& t) { tracker_.OnOpen(iv, t); }
  void OnCut(const ThreadRec& t, uint64_t ticks) { tracker_.CutThread(t, ticks); }
  // The next event closes no interval yet.
  void ForgetClosed() { closed_ = false; }
  // The lines printed and not yet handed on.
  const TextBuffer& pending() const { return line_; }
  // Hands the lines printed so far to the output (with a share: to its
  // turn, PassShare::Finish).
  void Flush() {
    if (share_ != nullptr) {
      share_->Finish();
      return;
    }
    ctx_.out->Write(line_.view());
    line_.clear();
  }
  void OnInterval(const Interval& iv) override {
    closed_ = true;
    closed_name_id_ = iv.name_id;
    closed_fn_ = iv.fn;
    closed_thread_ = iv.thread;
    closed_begin_ = iv.begin;
  }

 private:
  void Describe(const Event& e, const format::KindSchema& s, const ThreadRec& t, Subject* sub);
  void AppendTime(TextBuffer* out, uint64_t ticks) {
    if (ctx_.wall_clock) {
      AppendUtc(out, clock_.RealtimeNs(ticks));
    } else {
      times_.Append(out, clock_.SinceStartNs(ticks));
    }
  }
  void AppendField(TextBuffer* out, const Event& e, const format::KindSchema& s, int i);

  const VerbContext& ctx_;
  const TraceIndex& x_;
  // The index's clock, copied: its conversion cache is this printer's
  // (another may print on another thread).
  const Clock clock_;
  NearDecimals times_;  // AppendTime's digits
  PassShare* const share_;
  // Describe's cache of x_.Domain().
  SmallCache<uint64_t, std::string_view, 16> domains_;
  // x_.String(id) and the same as the name column shows it (AppendQuoted).
  struct CachedText {
    std::string_view text;
    std::string quoted;
  };
  SmallCache<uint64_t, CachedText> strings_;
  const CachedText& CachedString(uint64_t id) {
    return strings_.Get(id, id, [&](CachedText* c) {
      c->text = x_.String(id);
      c->quoted.clear();
      AppendQuoted(&c->quoted, c->text);
    });
  }
  // " thread kind domain " after the time, cached by the thread, kind and
  // domain text (which the index keeps, the "#N" of an undefined domain
  // too). The cache compares the key's parts as they are in registers:
  // a key object built on the stack and compared as a whole was read back
  // before its stores could be forwarded, a stall on every line.
  struct ColumnsEntry {
    const ThreadRec* thread = nullptr;  // null: empty
    EventKind kind = EventKind::kInvalid;
    const char* domain = nullptr;
    size_t domain_size = 0;
    std::string text;
  };
  std::array<ColumnsEntry, 64> columns_;
  std::string_view Columns(const ThreadRec& t, const format::KindSchema& s, const Subject& sub) {
    const auto make = [&](std::string* out) {
      out->clear();
      out->push_back(' ');
      AppendEscaped(out, t.label);  // one line per event, whatever the names
      out->push_back(' ');
      out->append(KindName(s));
      out->push_back(' ');
      if (sub.has_domain && sub.domain.empty()) {
        out->append("\"\"");  // a domain named "": still one column
      } else if (sub.has_domain) {
        AppendEscaped(out, sub.domain);
      } else {
        out->push_back('-');
      }
      out->push_back(' ');
    };
    const char* domain = sub.has_domain ? sub.domain.data() : nullptr;
    const size_t domain_size = sub.has_domain ? sub.domain.size() : 0;
    const size_t hash = reinterpret_cast<uintptr_t>(&t) / sizeof(ThreadRec) * 31 +
                        static_cast<uintptr_t>(s.kind) * 7 + reinterpret_cast<uintptr_t>(domain);
    ColumnsEntry& c = columns_[hash % columns_.size()];
    if (__builtin_expect(c.thread != &t || c.kind != s.kind || c.domain != domain ||
                             c.domain_size != domain_size,
                         0)) {
      c.thread = &t;
      c.kind = s.kind;
      c.domain = domain;
      c.domain_size = domain_size;
      make(&c.text);
    }
    return c.text;
  }
  // The kind's name, measured once (a strlen per line showed in profiles).
  std::string_view KindName(const format::KindSchema& s) {
    const auto k = static_cast<size_t>(s.kind);
    if (k >= kind_names_.size()) return s.name;
    if (kind_names_[k].empty()) kind_names_[k] = s.name;
    return kind_names_[k];
  }
  std::vector<std::string_view> kind_names_ =
      std::vector<std::string_view>(format::internal::kFieldIndexKinds);
  // Short texts by Field, copied with one fixed-size copy (no call into
  // memcpy): " name=" of each field, and " name=-" for a null __itt_id.
  struct ShortText {
    static constexpr size_t kRoom = 32;
    char bytes[kRoom] = {};
    size_t size = 0;
  };
  void AppendShort(TextBuffer* out, const ShortText& t) {
    std::memcpy(out->Room(ShortText::kRoom), t.bytes, ShortText::kRoom);
    out->Advance(t.size);
  }
  static std::array<ShortText, format::kFieldCount> FieldTexts(const char* suffix) {
    std::array<ShortText, format::kFieldCount> texts;
    for (int f = 0; f < format::kFieldCount; ++f) {
      const std::string text =
          absl::StrCat(" ", format::FieldName(static_cast<format::Field>(f)), "=", suffix);
      ShortText& t = texts[static_cast<size_t>(f)];
      t.size = std::min(text.size(), ShortText::kRoom);  // field names are shorter
      std::memcpy(t.bytes, text.data(), t.size);
    }
    return texts;
  }
  const std::array<ShortText, format::kFieldCount> field_prefix_ = FieldTexts("");
  const std::array<ShortText, format::kFieldCount> null_id_text_ = FieldTexts("-");
  Filter filter_;
  IntervalTracker tracker_;
  // The interval the current event closed, if any (set by OnInterval).
  bool closed_ = false;
  uint64_t closed_name_id_ = 0;
  uint64_t closed_fn_ = 0;
  const ThreadRec* closed_thread_ = nullptr;
  uint64_t closed_begin_ = 0;
  SyncTracker sync_;  // names of sync objects
  // JIT methods' names, and the method of the JIT event printed now
  // (Print's; null in a piece's printer, which prints none).
  JitMethods jit_;
  const JitMethods::Method* jit_method_ = nullptr;
  bool sync_name_holes_ = false;
  std::function<void()> before_sync_name_;
  // SyncNameText's, by string id: quoted names that stay in place.
  absl::node_hash_map<uint64_t, std::string> sync_names_;
  std::string name_buf_;  // Subject::name when it is made up
  TextBuffer line_;       // the lines printed and not yet written (TextBuffer::kWriteBatch)
  Event untagged_;        // Print's copy of an event of a process other than the first
};

void TextPrinter::Describe(const Event& e, const format::KindSchema& s, const ThreadRec& t,
                           Subject* sub) {
  const int domain_i = s.IndexOf(F::kDomain);
  if (domain_i >= 0) {
    const uint64_t domain = e.fields[domain_i].u;
    sub->domain_field = domain_i;
    sub->has_domain = domain != 0;
    sub->domain_id = domain;
    sub->domain =
        domains_.Get(domain, domain, [&](std::string_view* text) { *text = x_.Domain(domain); });
  }
  auto set_name = [&](int i, std::string_view name) {
    sub->name_field = i;
    sub->has_name = true;
    sub->name = name;
    sub->quoted_name = nullptr;
  };
  auto set_cached_name = [&](int i, const CachedText& c) {
    set_name(i, c.text);
    sub->quoted_name = &c.quoted;
  };
  auto own_name = [&](int i, std::string name) {
    name_buf_ = std::move(name);
    set_name(i, name_buf_);
  };
  // The name string `id` (a field's, i; -1: an end's, its begin's name).
  auto id_name = [&](int i, uint64_t id) {
    set_cached_name(i, CachedString(id));
    if (id == 0) sub->has_name = false;
  };
  auto string_name = [&](F f) {
    const int i = s.IndexOf(f);
    id_name(i, e.fields[i].u);
  };
  switch (e.kind) {
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginFnEx:
      // At its begin (an _ex call's timestamp), as its interval and end.
      own_name(s.IndexOf(F::kFn), FunctionName(x_, &t, e.Get(F::kFn), format::EffectiveTime(e)));
      return;
    case EventKind::kTaskEnd:
    case EventKind::kTaskEndEx:
      if (!closed_) return;
      if (closed_name_id_ != 0) {
        id_name(-1, closed_name_id_);
      } else if (closed_fn_ != 0) {
        own_name(-1, FunctionName(x_, closed_thread_, closed_fn_, closed_begin_));
      }
      return;
    case EventKind::kTaskEndOverlapped:
    case EventKind::kTaskEndOverlappedEx:
    case EventKind::kRegionEnd:
      // (One begun without a name has none at its end either.)
      if (closed_ && closed_name_id_ != 0) id_name(-1, closed_name_id_);
      return;
    case EventKind::kCounterInc:
    case EventKind::kCounterIncDelta:
    case EventKind::kCounterDec:
    case EventKind::kCounterDecDelta:
    case EventKind::kCounterSetValue:
    case EventKind::kCounterSetValueV3:
    case EventKind::kCounterSetValueEx:
    case EventKind::kCounterDestroy:
    case EventKind::kCounterBindContextMetadata: {
      const uint64_t id = e.Get(F::kCounter);
      const CounterDef* c = x_.counters.Find(id);
      if (c != nullptr) {
        set_name(s.IndexOf(F::kCounter), c->name);
        sub->has_domain = !c->domain_name.empty();
        sub->domain = c->domain_name;
      } else {
        own_name(s.IndexOf(F::kCounter), absl::StrCat("counter#", id));
      }
      return;
    }
    case EventKind::kHistogramSubmit: {
      const uint64_t id = e.Get(F::kHistogram);
      const HistogramDef* h = x_.histograms.Find(id);
      own_name(s.IndexOf(F::kHistogram), h != nullptr ? h->name : absl::StrCat("histogram#", id));
      if (h != nullptr && h->domain != 0) {
        sub->has_domain = true;
        sub->domain = x_.Domain(h->domain);
        sub->domain_id = h->domain;
      }
      return;
    }
    case EventKind::kEventStart:
    case EventKind::kEventEnd: {
      const uint64_t id = e.Get(F::kEvent);
      const std::string* n = x_.event_names.Find(id);
      own_name(s.IndexOf(F::kEvent), n != nullptr ? *n : absl::StrCat("event#", id));
      return;
    }
    case EventKind::kSyncCreate:
      string_name(F::kObjname);
      return;
    case EventKind::kSyncPrepare:
    case EventKind::kSyncCancel:
    case EventKind::kSyncAcquired:
    case EventKind::kSyncReleasing:
    case EventKind::kSyncDestroy: {
      if (sync_name_holes_) {
        sub->sync_hole = true;
        sub->sync_addr = e.Get(F::kAddr);
        return;
      }
      const SyncObject* o = sync_.objects().Find(e.Get(F::kAddr));
      if (o != nullptr && o->name_id != 0) set_cached_name(-1, CachedString(o->name_id));
      return;
    }
    case EventKind::kModuleLoad:
      string_name(F::kPath);
      return;
    default:
      break;
  }
  const int name_i = s.IndexOf(F::kName);
  if (name_i >= 0 && s.fields[name_i].type == FieldType::kUint) {
    string_name(F::kName);
    return;
  }
  const int fi = s.IndexOf(F::kFunction);
  if (fi >= 0) {
    const uint64_t id = e.fields[fi].u;
    const HeapFunctionDef* h = x_.heap_functions.Find(id);
    own_name(fi, h != nullptr ? h->name : absl::StrCat("function#", id));
    if (h != nullptr && !h->domain_name.empty()) {
      sub->has_domain = true;
      sub->domain = h->domain_name;
    }
    return;
  }
  const int mi = s.IndexOf(F::kMethodName);
  if (IsJitKind(e.kind) && jit_method_ != nullptr && !jit_method_->name.empty()) {
    // Named by its method, as stats' --name keeps it: an unload, an update
    // without a name, a later load of the id named otherwise (whose own
    // method_name then shows as a field).
    const bool own = mi >= 0 && e.fields[mi].bytes == jit_method_->name;
    set_name(own ? mi : -1, jit_method_->name);
    return;
  }
  if (mi >= 0) {
    set_name(mi, e.fields[mi].bytes);
    if (e.fields[mi].bytes.empty()) sub->has_name = false;  // a method without a name: -
    return;
  }
  if (e.Has(F::kKey)) {
    string_name(F::kKey);
    return;
  }
  if (e.Has(F::kFormat)) string_name(F::kFormat);
}

void TextPrinter::AppendField(TextBuffer* out, const Event& e, const format::KindSchema& s, int i) {
  const format::FieldSpec& spec = s.fields[i];
  AppendShort(out, field_prefix_[static_cast<size_t>(spec.field)]);
  const format::FieldValue& v = e.fields[i];
  switch (spec.type) {
    case FieldType::kUint:
      if (spec.role == FieldRole::kAddress) {
        AppendHex(out, v.u);
      } else if (spec.role == FieldRole::kStringRef) {
        AppendQuoted(out, x_.String(v.u));
      } else if (spec.role == FieldRole::kScope) {
        out->append(std::string_view(ScopeName(v.u)));
      } else if (spec.role == FieldRole::kCollectionScope && CollectionScopeName(v.u) != nullptr) {
        out->append(std::string_view(CollectionScopeName(v.u)));  // else its number
      } else if (spec.role == FieldRole::kRelation) {
        out->append(std::string_view(RelationName(v.u)));
      } else if (spec.role == FieldRole::kMetadataType) {
        out->append(std::string_view(MetadataTypeName(v.u)));
      } else if (spec.field == F::kValue && e.Has(F::kType)) {
        // counter_set_value*: the value's bits, read as its type.
        AppendNumber(out, CounterValue(e.Get(F::kType), v.u));
      } else {
        AppendDecimal(out, v.u);
      }
      return;
    case FieldType::kSint:
      AppendDecimal(out, v.as_sint());
      return;
    case FieldType::kDouble:
      AppendNumber(out, v.as_double());
      return;
    case FieldType::kTime:
      if (v.u == format::kTimestampNone) {
        out->append("none");
      } else {
        AppendTime(out, v.u);
      }
      return;
    case FieldType::kId:
      if (v.id == format::Id{}) {
        out->push_back('-');
      } else if (v.id.d2 == 0 && v.id.d3 == 0) {
        AppendDecimal(out, v.id.d1);
      } else {
        out->append(absl::StrCat(v.id.d1, ":", v.id.d2, ":", v.id.d3));
      }
      return;
    case FieldType::kBytes:
      if (spec.field == F::kData) {
        AppendMetadataArray(out, e.Get(F::kType), e.Get(F::kCount), v.bytes);
      } else if (spec.field == F::kX || spec.field == F::kY) {
        const HistogramDef* h = x_.histograms.Find(e.Get(F::kHistogram));
        const uint64_t type = h == nullptr ? 0 : spec.field == F::kX ? h->x_type : h->y_type;
        if (v.bytes.empty()) {
          out->append("[]");
        } else {
          AppendMetadataArray(out, type, e.Get(F::kLength), v.bytes);
        }
      } else if (spec.field == F::kLineTable) {
        const long n = format::LineTableSize(v.bytes);
        if (n < 0) {
          out->append(absl::StrCat("<", v.bytes.size(), " bytes>"));
        } else {
          out->push_back('[');
          for (long j = 0; j < n; ++j) {
            const format::LineEntry le = format::LineTableEntry(v.bytes, static_cast<size_t>(j));
            out->append(absl::StrCat(j == 0 ? "" : ",", le.offset, ":", le.line));
          }
          out->push_back(']');
        }
      } else if (spec.field == F::kText && e.Has(F::kFormat) && RecordedWithArgs(e)) {
        // Recorded with raw arguments: show what printf would have made.
        AppendQuoted(out, RenderFormatted(x_.String(e.Get(F::kFormat)), e.GetBytes(F::kArgs)));
      } else if (spec.field == F::kArgs && !v.bytes.empty()) {
        out->append(absl::StrCat("<", v.bytes.size(), " bytes>"));
      } else {
        AppendQuoted(out, v.bytes);
      }
      return;
  }
}

void TextPrinter::Print(const Event& e, const ThreadRec& t) {
  const format::KindSchema* s = format::FindSchema(e.kind);
  bool formats = true;
  if (share_ != nullptr) {
    // A batch also ends at so many bytes of byte fields (both printers
    // count the same), which bounds its text.
    formats = share_->NextEvent(s != nullptr ? format::BytesFieldsSize(e, *s) : 0);
  }
  if (s == nullptr) return;
  closed_ = false;
  tracker_.OnEvent(e, t);
  SyncChange sync;
  if (IsSyncKind(e.kind)) {
    if (before_sync_name_ && NamesSyncObject(e.kind)) before_sync_name_();
    sync_.OnEvent(e, t, &sync);
  }
  if (IsJitKind(e.kind)) jit_method_ = jit_.OnEvent(e, t);
  if (!formats) return;  // the other printer's line
  TextBuffer& line = share_ != nullptr ? share_->text() : line_;
  AppendLine(e, *s, t, &line);
  if (share_ == nullptr && line.size() >= TextBuffer::kWriteBatch) Flush();
}

std::string_view TextPrinter::SyncNameText(uint64_t addr) {
  const SyncObject* o = sync_.objects().Find(addr);
  if (o == nullptr || o->name_id == 0) return "-";
  auto [it, added] = sync_names_.try_emplace(o->name_id);
  if (added) AppendQuoted(&it->second, x_.String(o->name_id));
  return it->second;
}

bool TextPrinter::AppendLine(const Event& e, const format::KindSchema& s, const ThreadRec& t,
                             TextBuffer* out, LineHole* hole) {
  Subject sub;
  Describe(e, s, t, &sub);

  if (filter_.active()) {
    // (An *_ex call's line by its timestamp, as the other verbs keep it.)
    if (!filter_.ThreadOk(t) || !filter_.TimeOk(format::EffectiveTime(e))) return false;
    // (By id where the event gives one, as the other verbs test it.)
    if (!(sub.domain_id != 0 ? filter_.DomainOk(sub.domain_id)
                             : filter_.ItemDomainOk(sub.has_domain ? sub.domain : ""))) {
      return false;
    }
    if (filter_.has_name() && (!sub.has_name || !filter_.NameOk(sub.name))) {
      return false;
    }
  }

  TextBuffer& line = *out;
  AppendTime(&line, e.time);
  line.append(Columns(t, s, sub));
  if (sub.sync_hole) {
    *hole = {true, line.size(), sub.sync_addr};
  } else if (sub.has_name) {
    if (sub.quoted_name != nullptr) {
      line.append(*sub.quoted_name);
    } else {
      AppendQuoted(&line, sub.name);
    }
  } else {
    line.push_back('-');
  }
  const Event* shown = &e;
  if (t.process != 0) {
    // Several traces: addresses and ids as the process wrote them.
    untagged_ = e;
    UntagIdentities(t.process, &untagged_);
    shown = &untagged_;
  }
  for (int i = 0; i < s.field_count; ++i) {
    if (i == sub.domain_field || i == sub.name_field) continue;
    const format::FieldSpec& spec = s.fields[i];
    if (spec.type == FieldType::kId && shown->fields[i].id == format::Id{}) {
      AppendShort(&line, null_id_text_[static_cast<size_t>(spec.field)]);  // most ids
      continue;
    }
    AppendField(&line, *shown, s, i);
  }
  line.push_back('\n');
  return true;
}

// The lines of one piece's paired events (pieces.h), each an output of
// its own, which the reading thread's printer copies in turn.
class TextSink final : public PieceSink {
 public:
  TextSink(const VerbContext& ctx, const Filter& filter, const Clock& clock)
      : printer_(ctx, nullptr, filter, clock) {
    if (!filter.has_name()) printer_.set_sync_name_holes();
  }

  // Frames' lines need no frame intervals: their events stay here too.
  IntervalTracker::PiecePairing pairing() const override {
    IntervalTracker::PiecePairing p;
    p.frames = false;
    return p;
  }
  bool wants_paired_events() const override { return true; }
  // Every line but those of tasks, regions and overlapped tasks (the
  // reading thread's tracker names their ends) and of JIT events (named by
  // their method, which the reading thread follows) needs nothing but the
  // event and the index; a sync call's but for its object's name, a hole
  // the merge fills (set_sync_name_holes), and the namings stay with the
  // reading thread, which keeps the names.
  bool TakesForwarded(format::EventKind kind) const override {
    if (IsJitKind(kind)) return false;
    if (IsSyncKind(kind)) return printer_.sync_name_holes() && !TextPrinter::NamesSyncObject(kind);
    return !IsTaskOrRegionKind(kind);
  }
  void OnInterval(const Interval& iv) override { printer_.OnInterval(iv); }
  void OnPairedEvent(const Event& e, const ThreadRec& t) override {
    if (const format::KindSchema* s = format::FindSchema(e.kind)) {
      BeginOutput();
      LineHole hole;
      const bool kept = printer_.AppendLine(e, *s, t, &output_buffer(), &hole);
      if (kept && hole.made) AddHole(hole.at, hole.key);
      EndOutput(kept);
    }
    printer_.ForgetClosed();
  }
  // Lines, which the reading thread writes as they are.
  bool outputs_apart() const override { return true; }
  void Clear() override {}

 private:
  TextPrinter printer_;  // its formatting and caches; the piece pairs
};

// The pass on every core (pieces.h): the workers pair what each chunk can
// and print those events' lines and the lines that need nothing else,
// this thread prints the others' between them in the serial order.
std::optional<PassSummary> PrintInPieces(const VerbContext& ctx) {
  // (The pieces leave every task_begin_fn and its end to this thread:
  // only it names functions.)
  // (The pieces' lines and this thread's merge on workers: PieceOutput.)
  PieceOutput own(ctx.out);
  VerbContext own_ctx = ctx;
  own_ctx.out = &own;
  TextPrinter printer(own_ctx, nullptr);
  own.set_flush([&printer] { printer.Flush(); }, &printer.pending());
  // The pieces' sync lines name their objects as this printer has them.
  own.set_hole_text([&printer](uint64_t addr) { return printer.SyncNameText(addr); });
  printer.set_before_sync_name([&own] { own.BeforeHoleChange(); });
  std::optional<PassSummary> pass = WriteInPieces(
      ctx,
      [&ctx](const Filter& filter, const Clock& clock) {
        return std::make_unique<TextSink>(ctx, filter, clock);
      },
      &printer, [] {}, &own);
  if (pass) {
    printer.Flush();
    own.Flush();
  }
  return pass;
}

// The pass on one core: one printer over `merger`.
PassSummary PrintOnOneCore(const VerbContext& ctx, TraceSetMerger* merger) {
  TextPrinter printer(ctx, nullptr);
  const PassSummary pass = RunPass(
      merger, [&](const Event& e, const ThreadRec& t) { printer.Print(e, t); },
      [&](const ThreadRec& t, uint64_t ticks) { printer.OnCut(t, ticks); },
      [&ctx] { return ctx.out->good(); });
  printer.Flush();
  return pass;
}

// Whether two passes would read the same events as one: files on one
// time axis (placing files by wall clock converts times through clocks the
// set shares, which keep a cache), each file as long as the index pass
// read it (a trace still being written would grow between the passes).
bool SameEventsTwice(const TraceSet& set) {
  if (set.alignment() == TimeAlignment::kWallClock) return false;
  for (const TraceFile& f : set.files()) {
    if (f.source.Size() != f.index->file_bytes) return false;
  }
  return true;
}

// Which files a merger could not open.
std::vector<size_t> Unopened(const TraceSetMerger& merger) {
  std::vector<size_t> files;
  for (const auto& [file, status] : merger.open_errors()) files.push_back(file);
  return files;
}

// The pass, made twice at once (two_passes.h) when there are two cores:
// each printer on its own thread, formatting every other batch.
absl::StatusOr<PassSummary> PrintPass(const VerbContext& ctx) {
  TraceSetMerger merger(*ctx.set, ctx.merge);
  if (absl::Status opened = OpenPass(ctx, &merger); !opened.ok()) return opened;
  if (!ctx.parallel || format::OnlineCpus() < 2 || !SameEventsTwice(*ctx.set)) {
    return PrintOnOneCore(ctx, &merger);
  }
  MergeOptions quiet = ctx.merge;  // the second pass shows no progress
  quiet.progress = nullptr;
  TraceSetMerger second_merger(*ctx.set, quiet);
  // Its files must open as the first's did (not past a limit of open
  // files, say); nothing has been read yet.
  if (Unopened(second_merger) != Unopened(merger)) return PrintOnOneCore(ctx, &merger);
  // The two printers name task_begin_fn functions through the index's
  // one symbolizer (made here, before they run; it locks).
  PrepareFunctionNames(*ctx.index);
  TwoPasses passes(ctx.out);
  PassShare first_share(&passes, 0);
  PassShare second_share(&passes, 1);
  TextPrinter first(ctx, &first_share);
  TextPrinter second(ctx, &second_share);
  const auto keep_going = [&passes] { return !passes.stopped(); };
  PassSummary second_pass;
  std::thread second_thread;
  try {
    second_thread = std::thread([&] {
      pthread_setname_np(pthread_self(), "itt-dump-text2");  // for profilers and the benchmark
      second_pass = RunPass(
          &second_merger, [&](const Event& e, const ThreadRec& t) { second.Print(e, t); },
          [&](const ThreadRec& t, uint64_t ticks) { second.OnCut(t, ticks); }, keep_going);
      second.Flush();
    });
  } catch (const std::system_error&) {
    return PrintOnOneCore(ctx, &merger);  // no thread to be had
  }
  PassSummary pass = RunPass(
      &merger, [&](const Event& e, const ThreadRec& t) { first.Print(e, t); },
      [&](const ThreadRec& t, uint64_t ticks) { first.OnCut(t, ticks); }, keep_going);
  first.Flush();
  second_thread.join();
  if (passes.mismatch() || (!passes.stopped() && second_pass.events != pass.events)) {
    return absl::DataLossError(absl::StrCat(
        "the two readings of the trace disagree (",
        passes.mismatch() ? "one ended early"
                          : absl::StrCat(pass.events, " and ", second_pass.events, " events"),
        "; did a file change while it was read?): the text is inconsistent"));
  }
  return pass;
}

}  // namespace

absl::StatusOr<PassSummary> PrintText(const VerbContext& ctx, uint64_t* rewritten) {
  return WriteOnce(ctx, "text", &PrintInPieces, &PrintPass, rewritten);
}

absl::Status RunText(const VerbContext& ctx) {
  absl::StatusOr<PassSummary> pass = PrintText(ctx);
  if (!pass.ok()) return pass.status();
  ctx.out->Flush();
  if (!ctx.out->good()) return absl::OkStatus();
  return WarnMerge(ctx, *pass);
}

}  // namespace itt_dump
}  // namespace ittc
