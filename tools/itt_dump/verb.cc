#include "tools/itt_dump/verb.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ittc {
namespace itt_dump {

namespace {

void WarnAs(const VerbContext& ctx, std::string_view name, std::string_view message) {
  if (ctx.err == nullptr) return;
  ctx.err->Write(absl::StrCat("itt-dump: ", std::string(name), ": ", std::string(message), "\n"));
  ctx.err->Flush();
}

// The line of a damaged region: `kind` ("corrupt" or "truncated") at its
// offset, its size and why. The index pass's damage and the chunks the
// verb's pass found malformed read alike.
std::string DamageLine(std::string_view kind, uint64_t offset, uint64_t bytes,
                       std::string_view reason) {
  return absl::StrCat(std::string(kind), " at offset ", offset, " (", bytes,
                      " bytes): ", std::string(reason));
}

}  // namespace

void Warn(const VerbContext& ctx, std::string_view message) {
  WarnAs(ctx, ctx.index->name, message);
}

void WarnFile(const VerbContext& ctx, size_t file, std::string_view message) {
  WarnAs(ctx, ctx.set->files()[file].index->name, message);
}

void WarnDamage(const VerbContext& ctx) {
  constexpr size_t kShown = 3;
  for (size_t f = 0; f < ctx.set->files().size(); ++f) {
    const TraceIndex& x = *ctx.set->files()[f].index;
    size_t shown = 0;
    for (const Problem& p : x.problems) {
      if (shown++ == kShown) break;
      WarnFile(ctx, f,
               DamageLine(p.kind == Problem::Kind::kCorrupt ? "corrupt" : "truncated", p.offset,
                          p.bytes, p.reason));
    }
    const uint64_t more = x.problems.size() + x.problems_dropped;
    if (more > kShown) {
      WarnFile(ctx, f, absl::StrCat(more - kShown, " more damaged regions; run itt-dump verify"));
    }
  }
}

void WarnAlignment(const VerbContext& ctx) {
  if (ctx.set->alignment() != TimeAlignment::kWallClock) return;
  Warn(ctx,
       absl::StrCat("traces of ", ctx.set->groups(),
                    " hosts or boots, lined up by wall clock: their wall clocks moved up to ",
                    ctx.set->wall_uncertainty_ns(),
                    " ns against their monotonic clocks; the hosts' clock offset adds to that"));
}

absl::Status OpenPass(const VerbContext& ctx, TraceSetMerger* merger) {
  for (const auto& [file, status] : merger->open_errors()) {
    if (ctx.set->files().size() == 1) return status;
    WarnFile(ctx, file, std::string(status.message()));
  }
  return absl::OkStatus();
}

void WarnUnbalanced(const VerbContext& ctx, const Unbalanced& u) {
  // A pass cut short by its output's failure (reported on its own) ends
  // with what was open where it stopped, not at the trace's end.
  if (!ctx.out->good()) return;
  if (u.total() != 0) {
    Warn(ctx, absl::StrCat("unbalanced: ", u.end_without_begin, " ends without begin, ",
                           u.open_at_end, " tasks open at the end, ", u.frame_end_without_begin,
                           " frame ends without begin, ", u.frames_open_at_end,
                           " frames open at the end",
                           u.left_open_at_loss == 0
                               ? ""
                               : absl::StrCat(", ", u.left_open_at_loss,
                                              " tasks left open where events were lost")));
  }
  if (u.args_without_task + u.args_past_limit != 0) {
    Warn(ctx,
         absl::StrCat("metadata left out (`text` shows every one): ", u.args_without_task,
                      " with no task open on their thread (outside any task, or by the id "
                      "of another thread's task), ",
                      u.args_past_limit, " past the ", IntervalTracker::kMaxArgs, " a task keeps"));
  }
}

std::vector<const MalformedChunk*> NewlyMalformed(const VerbContext& ctx, const PassSummary& pass) {
  // A chunk the index pass reported already (its first event failed, or
  // it decoded every event) is not reported again; each once, in the
  // order of the files and offsets whichever pass found it.
  std::vector<const MalformedChunk*> found;
  for (const MalformedChunk& m : pass.malformed) {
    const std::vector<Problem>& known = ctx.set->files()[m.file].index->problems;
    if (std::none_of(known.begin(), known.end(), [&m](const Problem& p) {
          return p.offset == m.offset && p.bytes == m.bytes;
        })) {
      found.push_back(&m);
    }
  }
  std::sort(found.begin(), found.end(), [](const MalformedChunk* a, const MalformedChunk* b) {
    return std::tie(a->file, a->offset) < std::tie(b->file, b->offset);
  });
  found.erase(std::unique(found.begin(), found.end(),
                          [](const MalformedChunk* a, const MalformedChunk* b) {
                            return a->file == b->file && a->offset == b->offset;
                          }),
              found.end());
  return found;
}

absl::Status WarnMerge(const VerbContext& ctx, const PassSummary& pass) {
  for (const MalformedChunk* m : NewlyMalformed(ctx, pass)) {
    WarnFile(ctx, m->file, DamageLine("corrupt", m->offset, m->bytes, m->reason));
  }
  if (pass.late_events != 0) {
    Warn(ctx, absl::StrCat(pass.late_events,
                           " events out of time order (per-thread time went "
                           "backwards, or the merge lookahead of ",
                           ctx.merge.max_buffered_bytes >> 20, " MiB was exceeded ",
                           pass.forced_emits, " times)"));
  }
  for (const ShortReading& r : pass.short_readings) {
    WarnFile(
        ctx, r.file,
        absl::StrCat("changed while it was read: the second reading ended at byte ", r.bytes_read,
                     " of the ", r.index_bytes, " read before; the output lacks what was cut"));
  }
  // (Said above: the caller's status needs no text.)
  if (!pass.short_readings.empty()) {
    return MarkPassOpenFailure(absl::DataLossError(""), OpenFailure::kTruncated);
  }
  return absl::OkStatus();
}

uint64_t TraceEndTicks(const TraceIndex& index, uint64_t last_event) {
  if (index.has_end) return std::max(index.end.end_ticks, last_event);
  uint64_t t = last_event;
  for (const format::ClockSync& s : index.sync_points) {
    t = std::max(t, s.ticks);
  }
  return t;
}

}  // namespace itt_dump
}  // namespace ittc
