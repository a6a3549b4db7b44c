#include "tools/itt_dump/stats.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/stats_rows.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;
using stats_internal::kAllThreads;
using stats_internal::Num;
using stats_internal::Real;

StatsCollector::StatsCollector(const TraceIndex& index, const FilterSpec& filter, bool per_thread)
    : x_(index),
      filter_(filter, index),
      per_thread_(per_thread),
      tracker_(index, this),
      counter_tracker_(index) {}

StatsCollector::~StatsCollector() = default;

void StatsCollector::OnEvent(const Event& e, const ThreadRec& t) {
  ++events_;
  last_ticks_ = std::max(last_ticks_, e.time);
  switch (e.kind) {
    case EventKind::kCounterInc:
    case EventKind::kCounterIncDelta:
    case EventKind::kCounterDec:
    case EventKind::kCounterDecDelta:
    case EventKind::kCounterIncV3:
    case EventKind::kCounterIncDeltaV3:
    case EventKind::kCounterDecV3:
    case EventKind::kCounterDecDeltaV3:
    case EventKind::kCounterSetValue:
    case EventKind::kCounterSetValueV3:
    case EventKind::kCounterSetValueEx: {
      CounterSample sample;
      if (counter_tracker_.OnEvent(e, &sample)) OnCounter(sample, t);
      return;
    }
    case EventKind::kSyncCreate:
    case EventKind::kSyncRename:
    case EventKind::kSyncPrepare:
    case EventKind::kSyncCancel:
    case EventKind::kSyncAcquired:
      OnSync(e, t);
      return;
    case EventKind::kHeapAllocateEnd:
    case EventKind::kHeapFreeEnd:
    case EventKind::kHeapReallocateEnd:
      OnHeap(e, t);
      return;
    case EventKind::kJitMethodLoad:
    case EventKind::kJitMethodLoadV2:
    case EventKind::kJitMethodLoadV3:
    case EventKind::kJitInlineLoad:
    case EventKind::kJitMethodUpdate:
    case EventKind::kJitMethodUpdateV2:
    case EventKind::kJitMethodUnload: {
      if (filter_.active()) {
        if (filter_.has_domain() || !filter_.ThreadOk(t) || !filter_.TimeOk(e.time) ||
            (filter_.has_name() &&
             (!e.Has(F::kMethodName) || !filter_.NameOk(e.GetBytes(F::kMethodName))))) {
          return;
        }
      }
      if (e.kind == EventKind::kJitInlineLoad) {
        ++jit_inline_;
      } else if (e.kind == EventKind::kJitMethodUpdate || e.kind == EventKind::kJitMethodUpdateV2) {
        ++jit_updated_;
      } else if (e.kind == EventKind::kJitMethodUnload) {
        ++jit_unloaded_;
      } else {
        ++jit_loaded_;
        jit_code_bytes_ += e.Get(F::kSize);
      }
      return;
    }
    default:
      tracker_.OnEvent(e, t);
      return;
  }
}

void StatsCollector::Finish(uint64_t last_event_ticks) {
  tracker_.Finish(std::max(last_event_ticks, last_ticks_));
}

std::vector<Section> StatsCollector::Sections() const {
  std::vector<Section> out;
  HealthSections(&out);  // losses first
  TaskSections(&out);
  CounterSections(&out);
  SyncHeapSections(&out);
  JitSections(&out);
  return out;
}

void StatsCollector::JitSections(std::vector<Section>* sections) const {
  std::vector<Section>& out = *sections;
  {
    Section s;
    s.name = "jit";
    s.columns = {{"methods_loaded", "loaded", CellType::kNumber},
                 {"inline_loaded", "inline", CellType::kNumber},
                 {"updated", "updated", CellType::kNumber},
                 {"unloaded", "unloaded", CellType::kNumber},
                 {"code_bytes", "code_bytes", CellType::kNumber}};
    if (jit_loaded_ + jit_inline_ + jit_updated_ + jit_unloaded_ != 0) {
      s.AddRow({Num(jit_loaded_), Num(jit_inline_), Num(jit_updated_), Num(jit_unloaded_),
                Num(jit_code_bytes_)});
    }
    out.push_back(std::move(s));
  }
}

absl::StatusOr<PassSummary> CollectStats(const VerbContext& ctx, StatsCollector* stats) {
  absl::StatusOr<PassSummary> pass =
      ForEachEvent(ctx, [stats](const Event& e, const ThreadRec& t) { stats->OnEvent(e, t); });
  if (pass.ok()) stats->Finish(TraceEndTicks(*ctx.index, pass->last_ticks));
  return pass;
}

absl::Status RunStats(const VerbContext& ctx, const StatsOptions& options) {
  StatsCollector stats(*ctx.index, ctx.filter, options.per_thread);
  if (options.per_process) stats.EnablePerProcess(*ctx.set);
  absl::StatusOr<PassSummary> pass = CollectStats(ctx, &stats);
  if (!pass.ok()) return pass.status();
  const std::vector<Section> sections = stats.Sections();
  std::string prefix = "\"trace\":";
  AppendJsonString(&prefix, ctx.index->name);
  absl::StrAppend(&prefix, ",\"events\":", pass->events, ",");
  std::string text;
  RenderReport(sections, options.format,
               absl::StrCat("trace ", ctx.index->name, ": ", pass->events, " events"), prefix,
               &text);
  ctx.out->Write(text);
  ctx.out->Flush();
  WarnMerge(ctx, *pass);
  return absl::OkStatus();
}

}  // namespace itt_dump
}  // namespace ittc
