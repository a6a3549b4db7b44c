#include "tools/itt_dump/verify.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace ittc {
namespace itt_dump {

using format::Event;

namespace {

constexpr uint64_t kMaxWarnings = 20;

class Checker {
 public:
  Checker(const VerbContext& ctx, const TraceFile& file)
      : ctx_(ctx), file_(file), x_(*file.index) {}

  void Run();
  uint64_t warnings() const { return warnings_; }

 private:
  void CheckEvent(const format::Chunk& c, uint32_t thread, size_t offset, const Event& e);
  void Warning(std::string text) {
    if (warnings_++ < kMaxWarnings) {
      ctx_.out->Write(absl::StrCat("warning: ", text, "\n"));
    }
  }

  const VerbContext& ctx_;
  const TraceFile& file_;
  const TraceIndex& x_;
  uint64_t warnings_ = 0;
  U64Map<uint64_t> last_time_;
};

void Checker::CheckEvent(const format::Chunk& c, uint32_t thread, size_t offset, const Event& e) {
  const format::KindSchema* s = format::FindSchema(e.kind);
  if (s == nullptr) return;
  for (int i = 0; i < s->field_count; ++i) {
    if (s->fields[i].type != format::FieldType::kUint) continue;
    const uint64_t v = e.fields[i].u;
    if (v == 0) continue;
    const char* what = nullptr;
    switch (s->fields[i].role) {
      case format::FieldRole::kDomainRef:
        if (x_.domains.Find(v) == nullptr) what = "domain";
        break;
      case format::FieldRole::kStringRef:
        if (x_.strings.Find(v) == nullptr) what = "string";
        break;
      case format::FieldRole::kCounterRef:
        if (x_.counters.Find(v) == nullptr) what = "counter";
        break;
      case format::FieldRole::kHistogramRef:
        if (x_.histograms.Find(v) == nullptr) what = "histogram";
        break;
      case format::FieldRole::kHeapFunctionRef:
        if (x_.heap_functions.Find(v) == nullptr) what = "heap function";
        break;
      case format::FieldRole::kEventRef:
        if (x_.event_names.Find(v) == nullptr) what = "event";
        break;
      case format::FieldRole::kClockDomainRef:
        if (x_.clock_domains.Find(v) == nullptr) what = "clock domain";
        break;
      default:
        break;  // tracks are not defined by any writer yet
    }
    if (what != nullptr) {
      Warning(absl::StrCat("offset ", c.offset, ": ", s->name, " at payload offset ", offset,
                           " of thread ", thread, " refers to undefined ", what, " ", v));
    }
  }
}

void Checker::Run() {
  absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(file_.source);
  if (!reader.ok()) return;
  format::Chunk c;
  format::EventStreamDecoder dec;
  Event e;
  while ((*reader)->Next(&c)) {
    if (ctx_.merge.progress != nullptr) {
      ctx_.merge.progress->Update((*reader)->stats().chunks_read);
    }
    if (c.type != format::ChunkType::kEvents) continue;
    if (!dec.Reset(c.payload).ok()) continue;
    uint64_t& last = last_time_[dec.thread_index()];
    size_t offset = dec.offset();
    while (dec.Next(&e)) {
      CheckEvent(c, dec.thread_index(), offset, e);
      if (e.time < last) {
        Warning(absl::StrCat("offset ", c.offset, ": thread ", dec.thread_index(),
                             " time goes back by ", last - e.time, " ticks at payload offset ",
                             offset));
      }
      last = e.time;
      offset = dec.offset();
    }
  }
}

const char* StatusWord(int status) {
  switch (status) {
    case kVerifyClean:
      return "ok";
    case kVerifyTruncated:
      return "truncated";
    case kVerifyCorrupt:
      return "corrupt";
    case kVerifyNotATrace:
      return "not a trace";
    default:
      return "unreadable";
  }
}

}  // namespace

VerifyStatus StatusForFailure(OpenFailure failure) {
  switch (failure) {
    case OpenFailure::kNone:
      return kVerifyClean;
    case OpenFailure::kNotATrace:
      return kVerifyNotATrace;
    case OpenFailure::kTruncated:
      return kVerifyTruncated;
    case OpenFailure::kCorrupt:
      return kVerifyCorrupt;
    case OpenFailure::kUnsupported:
    case OpenFailure::kIo:
      return kVerifyUnreadable;
  }
  return kVerifyUnreadable;
}

namespace {

int VerifyFile(const VerbContext& ctx, const TraceFile& file) {
  const TraceIndex& x = *file.index;
  std::string o;
  for (const Problem& p : x.problems) {
    absl::StrAppend(&o, "offset ", p.offset, ": ",
                    p.kind == Problem::Kind::kCorrupt ? "corrupt" : "truncated", ", ", p.bytes,
                    " bytes: ", p.reason, "\n");
  }
  if (x.problems_dropped != 0) {
    absl::StrAppend(&o, x.problems_dropped, " more problems not shown\n");
  }
  ctx.out->Write(o);
  Checker checker(ctx, file);
  checker.Run();
  if (checker.warnings() > kMaxWarnings) {
    ctx.out->Write(absl::StrCat(checker.warnings() - kMaxWarnings, " more warnings not shown\n"));
  }
  int status = kVerifyClean;
  std::string why;
  if (x.corrupt()) {
    status = kVerifyCorrupt;
  } else if (x.truncated()) {
    status = kVerifyTruncated;
  } else if (!x.has_end) {
    status = kVerifyTruncated;
    why = ", no end record: the writer did not close the trace";
  }
  if (x.has_end && status != kVerifyCorrupt && x.end.events_recorded != x.events) {
    why = absl::StrCat(", end record counts ", x.end.events_recorded, " events");
  }
  ctx.out->Write(absl::StrCat(x.name, ": ", StatusWord(status), " (", x.reader_stats.chunks_read,
                              " chunks, ", x.events, " events, ",
                              x.problems.size() + x.problems_dropped, " problems, ",
                              checker.warnings(), " warnings", why, ")\n"));
  ctx.out->Flush();
  return status;
}

}  // namespace

int RunVerify(const VerbContext& ctx) {
  int worst = kVerifyClean;
  for (const TraceFile& f : ctx.set->files()) worst = std::max(worst, VerifyFile(ctx, f));
  for (const TraceSet::Failure& f : ctx.set->failures()) {
    const int status = StatusForFailure(f.failure);
    ctx.out->Write(absl::StrCat(f.name, ": ", StatusWord(status), ": ", f.status.message(), "\n"));
    ctx.out->Flush();
    worst = std::max(worst, status);
  }
  return worst;
}

}  // namespace itt_dump
}  // namespace ittc
