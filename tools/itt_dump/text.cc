#include "tools/itt_dump/text.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/intervals.h"
#include "tools/itt_dump/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using format::FieldType;

namespace {

constexpr size_t kMaxNameStack = 100000;

// What the name and domain columns show, and which fields they used.
struct Subject {
  bool has_domain = false;
  std::string domain;
  bool has_name = false;
  std::string name;
  int domain_field = -1;  // schema index shown in the domain column
  int name_field = -1;    // schema index shown in the name column
};

class TextPrinter {
 public:
  explicit TextPrinter(const VerbContext& ctx)
      : ctx_(ctx), x_(*ctx.index), filter_(ctx.filter, x_) {}

  void Print(const Event& e, const ThreadRec& t);

 private:
  void Describe(const Event& e, const format::KindSchema& s, const ThreadRec& t, Subject* sub);
  void AppendTime(std::string* out, uint64_t ticks) const {
    if (ctx_.wall_clock) {
      AppendUtc(out, x_.clock.RealtimeNs(ticks));
    } else {
      absl::StrAppend(out, x_.clock.SinceStartNs(ticks));
    }
  }
  void AppendField(std::string* out, const Event& e, const format::KindSchema& s, int i);

  using Key = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>;
  struct Names {
    // Open tasks of the thread: (name id, fn address), one of them 0.
    std::vector<std::pair<uint64_t, uint64_t>> tasks;
  };

  const VerbContext& ctx_;
  const TraceIndex& x_;
  Filter filter_;
  U64Map<Names> names_;
  std::map<Key, uint64_t> overlapped_;  // (domain, id) -> name id
  std::map<Key, uint64_t> regions_;
  U64Map<uint64_t> sync_names_;  // addr -> objname string id
  std::string line_;
};

bool IsAddressField(std::string_view f) {
  return f == "addr" || f == "start_addr" || f == "end_addr" || f == "new_addr" || f == "address" ||
         f == "fn";
}

bool IsStringField(std::string_view f) {
  return f == "name" || f == "key" || f == "format" || f == "objtype" || f == "objname" ||
         f == "path";
}

void TextPrinter::Describe(const Event& e, const format::KindSchema& s, const ThreadRec& t,
                           Subject* sub) {
  for (int i = 0; i < s.field_count; ++i) {
    const std::string_view f = s.fields[i].name;
    if (f == "domain" && sub->domain_field < 0) {
      sub->domain_field = i;
      sub->has_domain = true;
      const std::string_view d = x_.Domain(e.u(i));
      sub->domain = d.empty() && e.u(i) != 0 ? absl::StrCat("#", e.u(i)) : std::string(d);
      if (e.u(i) == 0) sub->has_domain = false;
    }
  }
  auto set_name = [&](int i, std::string name) {
    sub->name_field = i;
    sub->has_name = true;
    sub->name = std::move(name);
  };
  auto string_name = [&](int i) {
    const std::string_view n = x_.String(e.u(i));
    set_name(i, n.empty() && e.u(i) != 0 ? absl::StrCat("#", e.u(i)) : std::string(n));
    if (e.u(i) == 0) sub->has_name = false;
  };
  const int name_i = format::FindField(s, "name");
  switch (e.kind) {
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginFnEx: {
      const int i = format::FindField(s, "fn");
      set_name(i, absl::StrFormat("fn@0x%x", e.u(i)));
      return;
    }
    case EventKind::kTaskEnd:
    case EventKind::kTaskEndEx: {
      Names& n = names_[t.index];
      if (n.tasks.empty()) return;
      const auto [id, fn] = n.tasks.back();
      if (id != 0) {
        set_name(-1, std::string(x_.String(id)));
      } else if (fn != 0) {
        set_name(-1, absl::StrFormat("fn@0x%x", fn));
      }
      return;
    }
    case EventKind::kTaskEndOverlapped:
    case EventKind::kTaskEndOverlappedEx:
    case EventKind::kRegionEnd: {
      const format::Id& id = e.id(e.kind == EventKind::kTaskEndOverlappedEx ? 4 : 1);
      const auto& map = e.kind == EventKind::kRegionEnd ? regions_ : overlapped_;
      auto it = map.find(Key(e.u(0), id.d1, id.d2, id.d3));
      if (it != map.end()) set_name(-1, std::string(x_.String(it->second)));
      return;
    }
    case EventKind::kCounterInc:
    case EventKind::kCounterIncDelta:
    case EventKind::kCounterDec:
    case EventKind::kCounterDecDelta:
    case EventKind::kCounterSetValue:
    case EventKind::kCounterSetValueV3:
    case EventKind::kCounterSetValueEx:
    case EventKind::kCounterDestroy:
    case EventKind::kCounterBindContextMetadata: {
      const CounterDef* c = x_.counters.Find(e.u(0));
      if (c != nullptr) {
        set_name(0, c->name);
        sub->has_domain = !c->domain_name.empty();
        sub->domain = c->domain_name;
      } else {
        set_name(0, absl::StrCat("counter#", e.u(0)));
      }
      return;
    }
    case EventKind::kHistogramSubmit: {
      const HistogramDef* h = x_.histograms.Find(e.u(0));
      set_name(0, h != nullptr ? h->name : absl::StrCat("histogram#", e.u(0)));
      if (h != nullptr && h->domain != 0) {
        sub->has_domain = true;
        sub->domain = std::string(x_.Domain(h->domain));
      }
      return;
    }
    case EventKind::kEventStart:
    case EventKind::kEventEnd: {
      const std::string* n = x_.event_names.Find(e.u(0));
      set_name(0, n != nullptr ? *n : absl::StrCat("event#", e.u(0)));
      return;
    }
    case EventKind::kSyncCreate:
      string_name(2);
      return;
    case EventKind::kSyncPrepare:
    case EventKind::kSyncCancel:
    case EventKind::kSyncAcquired:
    case EventKind::kSyncReleasing:
    case EventKind::kSyncDestroy: {
      const uint64_t* n = sync_names_.Find(e.u(0));
      if (n != nullptr && *n != 0) set_name(-1, std::string(x_.String(*n)));
      return;
    }
    case EventKind::kModuleLoad:
      string_name(2);
      return;
    default:
      break;
  }
  if (name_i >= 0 && s.fields[name_i].type == FieldType::kUint) {
    string_name(name_i);
    return;
  }
  const int fi = format::FindField(s, "function");
  if (fi >= 0) {
    const HeapFunctionDef* h = x_.heap_functions.Find(e.u(fi));
    set_name(fi, h != nullptr ? h->name : absl::StrCat("function#", e.u(fi)));
    if (h != nullptr && !h->domain_name.empty()) {
      sub->has_domain = true;
      sub->domain = h->domain_name;
    }
    return;
  }
  const int mi = format::FindField(s, "method_name");
  if (mi >= 0) {
    set_name(mi, std::string(e.bytes(mi)));
    return;
  }
  const int ki = format::FindField(s, "key");
  if (ki >= 0) {
    string_name(ki);
    return;
  }
  const int fo = format::FindField(s, "format");
  if (fo >= 0) string_name(fo);
}

void TextPrinter::AppendField(std::string* out, const Event& e, const format::KindSchema& s,
                              int i) {
  const format::FieldSpec& spec = s.fields[i];
  const std::string_view f = spec.name;
  absl::StrAppend(out, " ", std::string(f), "=");
  const format::FieldValue& v = e.fields[i];
  switch (spec.type) {
    case FieldType::kUint:
      if (IsAddressField(f)) {
        absl::StrAppendFormat(out, "0x%x", v.u);
      } else if (IsStringField(f)) {
        AppendQuoted(out, x_.String(v.u));
      } else if (f == "scope") {
        out->append(ScopeName(v.u));
      } else if (f == "relation") {
        out->append(RelationName(v.u));
      } else if (f == "type" || f == "x_type" || f == "y_type") {
        out->append(MetadataTypeName(v.u));
      } else if (f == "value" && (e.kind == EventKind::kCounterSetValue ||
                                  e.kind == EventKind::kCounterSetValueV3 ||
                                  e.kind == EventKind::kCounterSetValueEx)) {
        const int ti = format::FindField(s, "type");
        AppendNumber(out, CounterValue(e.u(ti), v.u));
      } else {
        absl::StrAppend(out, v.u);
      }
      return;
    case FieldType::kSint:
      absl::StrAppend(out, v.as_sint());
      return;
    case FieldType::kDouble:
      AppendNumber(out, v.as_double());
      return;
    case FieldType::kTime:
      if (v.u == ~uint64_t{0}) {
        out->append("none");  // __itt_timestamp_none
      } else {
        AppendTime(out, v.u);
      }
      return;
    case FieldType::kId:
      if (v.id == format::Id{}) {
        out->push_back('-');
      } else if (v.id.d2 == 0 && v.id.d3 == 0) {
        absl::StrAppend(out, v.id.d1);
      } else {
        absl::StrAppend(out, v.id.d1, ":", v.id.d2, ":", v.id.d3);
      }
      return;
    case FieldType::kBytes:
      if (f == "data") {
        const int ti = format::FindField(s, "type");
        const int ci = format::FindField(s, "count");
        AppendMetadataArray(out, e.u(ti), e.u(ci), v.bytes);
      } else if (f == "x" || f == "y") {
        const HistogramDef* h = x_.histograms.Find(e.u(0));
        const uint64_t type = h == nullptr ? 0 : f == "x" ? h->x_type : h->y_type;
        if (v.bytes.empty()) {
          out->append("[]");
        } else {
          AppendMetadataArray(out, type, e.u(1), v.bytes);
        }
      } else if (f == "line_table") {
        const long n = format::LineTableSize(v.bytes);
        if (n < 0) {
          absl::StrAppend(out, "<", v.bytes.size(), " bytes>");
        } else {
          out->push_back('[');
          for (long j = 0; j < n; ++j) {
            const format::LineEntry le = format::LineTableEntry(v.bytes, static_cast<size_t>(j));
            absl::StrAppend(out, j == 0 ? "" : ",", le.offset, ":", le.line);
          }
          out->push_back(']');
        }
      } else if (f == "text" && v.bytes.empty() &&
                 (e.kind == EventKind::kFormattedMetadataAdd ||
                  e.kind == EventKind::kFormattedMetadataAddOverlapped)) {
        // Recorded with raw arguments: show what printf would have made.
        const int fi = format::FindField(s, "format");
        const int ai = format::FindField(s, "args");
        AppendQuoted(out, RenderFormatted(x_.String(e.u(fi)), e.bytes(ai)));
      } else if (f == "args" && !v.bytes.empty()) {
        absl::StrAppend(out, "<", v.bytes.size(), " bytes>");
      } else {
        AppendQuoted(out, v.bytes);
      }
      return;
  }
}

void TextPrinter::Print(const Event& e, const ThreadRec& t) {
  const format::KindSchema* s = format::FindSchema(e.kind);
  if (s == nullptr) return;
  Subject sub;
  Describe(e, *s, t, &sub);

  // Remember names for the ends that follow.
  switch (e.kind) {
    case EventKind::kTaskBegin:
    case EventKind::kTaskBeginFn:
    case EventKind::kTaskBeginEx:
    case EventKind::kTaskBeginFnEx: {
      const bool ex = e.kind == EventKind::kTaskBeginEx || e.kind == EventKind::kTaskBeginFnEx;
      const bool fn = e.kind == EventKind::kTaskBeginFn || e.kind == EventKind::kTaskBeginFnEx;
      const uint64_t v = e.u(ex ? 6 : 3);
      Names& n = names_[t.index];
      if (n.tasks.size() < kMaxNameStack) {
        n.tasks.emplace_back(fn ? 0 : v, fn ? v : 0);
      }
      break;
    }
    case EventKind::kTaskEnd:
    case EventKind::kTaskEndEx: {
      Names& n = names_[t.index];
      if (!n.tasks.empty()) n.tasks.pop_back();
      break;
    }
    case EventKind::kTaskBeginOverlapped:
    case EventKind::kTaskBeginOverlappedEx:
    case EventKind::kRegionBegin: {
      const int base = e.kind == EventKind::kTaskBeginOverlappedEx ? 4 : 1;
      const format::Id& id = e.id(base);
      auto& map = e.kind == EventKind::kRegionBegin ? regions_ : overlapped_;
      if (map.size() < kMaxNameStack) {
        map[Key(e.u(0), id.d1, id.d2, id.d3)] = e.u(base + 2);
      }
      break;
    }
    case EventKind::kSyncCreate:
      if (sync_names_.size() < kMaxNameStack) sync_names_[e.u(0)] = e.u(2);
      break;
    case EventKind::kSyncRename:
      if (sync_names_.size() < kMaxNameStack) sync_names_[e.u(0)] = e.u(1);
      break;
    default:
      break;
  }

  if (filter_.active()) {
    if (!filter_.ThreadOk(t) || !filter_.TimeOk(e.time)) return;
    if (filter_.has_domain() && (!sub.has_domain || !filter_.DomainNameOk(sub.domain))) {
      return;
    }
    if (filter_.has_name() && (!sub.has_name || !filter_.NameOk(sub.name))) {
      return;
    }
  }

  line_.clear();
  AppendTime(&line_, e.time);
  absl::StrAppend(&line_, " ", t.label, " ", s->name, " ");
  if (sub.has_domain) {
    line_.append(sub.domain);
  } else {
    line_.push_back('-');
  }
  line_.push_back(' ');
  if (sub.has_name) {
    AppendQuoted(&line_, sub.name);
  } else {
    line_.push_back('-');
  }
  for (int i = 0; i < s->field_count; ++i) {
    if (i == sub.domain_field || i == sub.name_field) continue;
    AppendField(&line_, e, *s, i);
  }
  line_.push_back('\n');
  ctx_.out->Write(line_);
}

}  // namespace

absl::Status RunText(const VerbContext& ctx) {
  absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(*ctx.source);
  if (!reader.ok()) return reader.status();
  EventMerger merger(*ctx.index, reader->get(), ctx.merge);
  TextPrinter printer(ctx);
  const Event* e;
  const ThreadRec* t;
  uint64_t n = 0;
  while (merger.Next(&e, &t)) {
    printer.Print(*e, *t);
    if ((++n & 1023) == 0 && !ctx.out->good()) break;
  }
  ctx.out->Flush();
  if (ctx.out->good()) WarnMerge(ctx, merger);
  return absl::OkStatus();
}

}  // namespace itt_dump
}  // namespace ittc
