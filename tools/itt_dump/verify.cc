#include "tools/itt_dump/verify.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace ittc {
namespace itt_dump {

using format::Event;

namespace {

constexpr uint64_t kMaxWarnings = 20;

const char* RefNoun(format::FieldRole role) {
  using R = format::FieldRole;
  switch (role) {
    case R::kStringRef:
      return "string";
    case R::kDomainRef:
      return "domain";
    case R::kCounterRef:
      return "counter";
    case R::kHistogramRef:
      return "histogram";
    case R::kHeapFunctionRef:
      return "heap function";
    case R::kEventRef:
      return "event";
    case R::kClockDomainRef:
      return "clock domain";
    default:
      return "id";
  }
}

class Warnings {
 public:
  void Add(const std::string& text) {
    if (out_.count++ < kMaxWarnings) absl::StrAppend(&out_.text, "warning: ", text, "\n");
  }
  void AddTimeBack(const TimeBack& b) {
    if (out_.count >= kMaxWarnings) {
      ++out_.count;
      return;
    }
    Add(absl::StrCat("offset ", b.chunk_offset, ": thread ", b.thread_index, " time goes back by ",
                     b.ticks, " ticks at payload offset ", b.payload_offset));
  }
  EventWarnings& result() { return out_; }

 private:
  EventWarnings out_;
};

// The checks event by event, in a pass of their own: what says which event
// refers to an undefined id.
EventWarnings CheckEachEvent(const TraceFile& file, Progress* progress) {
  Warnings w;
  absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(file.source);
  if (!reader.ok()) return w.result();
  const TraceIndex& x = *file.index;
  U64Map<uint64_t> last_time;
  format::Chunk c;
  format::EventStreamDecoder dec;
  Event e;
  while ((*reader)->Next(&c)) {
    if (progress != nullptr) progress->Update((*reader)->stats().chunks_read);
    if (c.type != format::ChunkType::kEvents) continue;
    if (!dec.Reset(c.payload, c.flags).ok()) continue;
    const uint32_t thread = dec.thread_index();
    uint64_t& last = last_time[thread];
    size_t offset = dec.offset();
    while (dec.Next(&e)) {
      format::ForEachDefinitionRef(e, [&](format::FieldRole role, uint64_t id) {
        if (x.Defines(role, id)) return;
        w.Add(absl::StrCat("offset ", c.offset, ": ", format::FindSchema(e.kind)->name,
                           " at payload offset ", offset, " of thread ", thread,
                           " refers to undefined ", RefNoun(role), " ", id));
      });
      if (e.time < last) w.AddTimeBack(TimeBack{c.offset, thread, offset, last - e.time});
      last = e.time;
      offset = dec.offset();
    }
  }
  return w.result();
}

}  // namespace

EventWarnings CheckEvents(const TraceFile& file, bool own_pass, Progress* progress) {
  const EventChecks& checks = file.index->checks;
  if (own_pass || !checks.done || checks.undefined_refs || checks.too_many_refs) {
    return CheckEachEvent(file, progress);
  }
  Warnings w;
  for (const TimeBack& b : checks.time_backs) w.AddTimeBack(b);
  w.result().count = checks.time_backs_total;
  return w.result();
}

namespace {

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
  const EventWarnings warnings = CheckEvents(file, /*own_pass=*/false, ctx.merge.progress);
  absl::StrAppend(&o, warnings.text);
  if (warnings.count > kMaxWarnings) {
    absl::StrAppend(&o, warnings.count - kMaxWarnings, " more warnings not shown\n");
  }
  ctx.out->Write(o);
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
                              x.problems.size() + x.problems_dropped, " problems, ", warnings.count,
                              " warnings", why, ")\n"));
  ctx.out->Flush();
  return status;
}

}  // namespace

int RunVerify(const VerbContext& ctx) {
  int worst = kVerifyClean;
  for (const TraceFile& f : ctx.set->files()) worst = std::max(worst, VerifyFile(ctx, f));
  for (const TraceSet::Failure& f : ctx.set->failures()) {
    const int status = StatusForFailure(f.failure);
    ctx.out->Write(absl::StrCat(f.name, ": ", StatusWord(status), ": ", f.Reason(), "\n"));
    ctx.out->Flush();
    worst = std::max(worst, status);
  }
  return worst;
}

}  // namespace itt_dump
}  // namespace ittc
