#include "tools/itt_dump/stats.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/trace_reader.h"
#include "tools/itt_dump/model/pieces.h"
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
    : StatsCollector(index, index.clock, Filter(filter, index), per_thread) {}

StatsCollector::StatsCollector(const TraceIndex& index, const Clock& clock, const Filter& filter,
                               bool per_thread)
    : x_(index),
      clock_(clock),
      filter_(filter),
      per_thread_(per_thread),
      tracker_(index, this),
      counter_tracker_(index) {
  tracker_.set_collect_args(false);  // no section shows args
}

std::unique_ptr<StatsCollector> StatsCollector::EmptyLike(const StatsCollector& other) {
  std::unique_ptr<StatsCollector> c(
      new StatsCollector(other.x_, other.clock_, other.filter_, other.per_thread_));
  c->processes_ = other.processes_;
  c->keep_apart_ = other.keep_apart_;
  return c;
}

StatsCollector::~StatsCollector() = default;

namespace stats_internal {

Family FamilyOf(EventKind kind) {
  switch (kind) {
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
    case EventKind::kCounterSetValueEx:
      return Family::kCounter;
    case EventKind::kSyncCreate:
    case EventKind::kSyncRename:
    case EventKind::kSyncPrepare:
    case EventKind::kSyncCancel:
    case EventKind::kSyncAcquired:
      return Family::kSync;
    case EventKind::kHeapAllocateEnd:
    case EventKind::kHeapFreeEnd:
    case EventKind::kHeapReallocateEnd:
      return Family::kHeap;
    case EventKind::kJitMethodLoad:
    case EventKind::kJitMethodLoadV2:
    case EventKind::kJitMethodLoadV3:
    case EventKind::kJitInlineLoad:
    case EventKind::kJitMethodUpdate:
    case EventKind::kJitMethodUpdateV2:
    case EventKind::kJitMethodUnload:
      return Family::kJit;
    default:
      return Family::kIntervals;
  }
}

}  // namespace stats_internal

using stats_internal::Family;
using stats_internal::FamilyOf;

bool StatsCollector::Ignores(EventKind kind) const {
  return FamilyOf(kind) == Family::kIntervals && !tracker_.Uses(kind);
}

void StatsCollector::OnEvent(const Event& e, const ThreadRec& t) {
  ++events_;
  last_ticks_ = std::max(last_ticks_, e.time);
  switch (FamilyOf(e.kind)) {
    case Family::kCounter: {
      CounterSample sample;
      if (counter_tracker_.OnEvent(e, t, &sample)) OnCounter(sample, t);
      return;
    }
    case Family::kSync:
      OnSync(e, t);
      return;
    case Family::kHeap:
      OnHeap(e, t);
      return;
    case Family::kJit: {
      if (filter_.active()) {
        // The methods' names follow every load, whatever the other filters
        // keep: an unload is kept by its load's name.
        const bool name_kept = !filter_.has_name() || JitNameKept(e, t);
        if (filter_.has_domain() || !filter_.ThreadOk(t) || !filter_.TimeOk(e.time) || !name_kept) {
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
    case Family::kIntervals:
      tracker_.OnEvent(e, t);
      return;
  }
}

bool StatsCollector::JitNameKept(const Event& e, const ThreadRec& t) {
  // An event that names no method is kept by its method's name; a method
  // no event named fails the filter, as every item without a name.
  const JitMethods::Method* m = jit_methods_.OnEvent(e, t);
  return m != nullptr && !m->name.empty() && filter_.NameOk(m->name);
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

namespace {

std::unique_ptr<StatsCollector> NewCollector(const VerbContext& ctx, const StatsOptions& options) {
  auto stats = std::make_unique<StatsCollector>(*ctx.index, ctx.filter, options.per_thread);
  if (options.per_process) stats->EnablePerProcess(*ctx.set);
  return stats;
}

// What of `e` stats keeps in a way that may depend on the order of the
// events of another process against it, as bits. The pairing engine keys
// every interval by thread or process; what is left:
// - heap calls: a function's row adds up the live bytes of every process;
// - counters by id: the set gives each process's definitions ids of their
//   own, but an id its process does not define keeps its number, which
//   may be another process's counter (odd);
// - sync objects, by their tagged address: one whose top byte the tag does
//   not clear (odd) may be another process's tagged one (trace_set.h,
//   ProcessTag).
// An odd one meets any of its sort in another file; the others meet only
// heap calls there. (v3 counters, by domain and name, count in their own
// process: CounterChange.)
constexpr uint32_t kMeetsHeap = 1;
constexpr uint32_t kMeetsCounter = 4;
constexpr uint32_t kMeetsOddCounter = 8;
constexpr uint32_t kMeetsSync = 16;
constexpr uint32_t kMeetsOddSync = 32;
uint32_t MeetsOtherProcesses(const Event& e, const ThreadRec& t, const TraceIndex& set_index) {
  if (IsHeapChangeKind(e.kind)) return kMeetsHeap;
  CounterChange change;
  if (MayChangeCounter(e.kind) && DecodeCounterChange(e, &change)) {
    if (change.key_kind != 1) return 0;  // v3: its process's
    const CounterDef* def = set_index.counters.Find(change.a);
    return def != nullptr && def->process == t.process ? kMeetsCounter : kMeetsOddCounter;
  }
  switch (e.kind) {
    // The sync kinds OnSync keeps.
    case EventKind::kSyncCreate:
    case EventKind::kSyncRename:
    case EventKind::kSyncPrepare:
    case EventKind::kSyncCancel:
    case EventKind::kSyncAcquired:
      return (e.Get(F::kAddr) ^ ProcessTag(t.process)) >> kProcessTagShift != 0 ? kMeetsOddSync
                                                                                : kMeetsSync;
    default:
      return 0;
  }
}

// Whether two processes with these bits may meet.
bool Meet(uint32_t a, uint32_t b) {
  const auto odd_meets = [](uint32_t x, uint32_t y, uint32_t odd, uint32_t any) {
    return ((x & odd) != 0 && (y & any) != 0) || ((y & odd) != 0 && (x & any) != 0);
  };
  return (a & b & kMeetsHeap) != 0 ||
         odd_meets(a, b, kMeetsOddCounter, kMeetsCounter | kMeetsOddCounter) ||
         odd_meets(a, b, kMeetsOddSync, kMeetsSync | kMeetsOddSync);
}

// Whether a set can be read one file after another (pieces.h): at most
// 256 files, so that no two processes share an identity tag (trace_set.h's
// ProcessTag), and at most one of them with a module map: unreadable
// modules are reported as the first function of each is named, in the
// serial pass's order of tasks over every process.
bool FilesOneAfterAnother(const TraceSet& set) {
  if (set.files().size() < 2 || set.files().size() > 256) return false;
  size_t with_modules = 0;
  for (const TraceFile& f : set.files()) with_modules += f.index->modules.empty() ? 0 : 1;
  return with_modules <= 1;
}

// The pass on every core: the files at once, or (file_by_file) one after
// another, each file's chunks on every core and its kept events merged
// among themselves (fewer queues for the reading thread, and only its own
// threads' frames). nullopt when it cannot be exact (pieces.h), a file that
// cannot be opened again included (the serial pass reports it), or when,
// file by file, events of two files could meet (*crossed set: the files
// at once are still exact).
std::optional<PassSummary> CollectInPieces(const VerbContext& ctx, const StatsOptions& options,
                                           bool file_by_file, StatsCollector* stats,
                                           bool* crossed) {
  // The pieces' collectors are made on the workers from one no thread
  // changes (the index's clock and the filter keep caches).
  const std::unique_ptr<StatsCollector> prototype = NewCollector(ctx, options);
  const TraceSet& set = *ctx.set;
  // One process: what stats makes of sync, heap and counter events meets
  // no other's (MeetsOtherProcesses), and they can go by stretches.
  prototype->set_keep_apart(set.files().size() == 1);
  std::vector<size_t> passes = {PieceMerger::kEveryFile};
  if (file_by_file) {
    passes.clear();
    for (size_t f = 0; f < set.files().size(); ++f) passes.push_back(f);
  }
  PassSummary pass;
  // What the serial pass could have had open at once: each file's part.
  size_t open_keyed = 0;
  // What the earlier files had of events that may meet another's.
  uint32_t met = 0;
  FileByFileMergers mergers(passes, [&](size_t only_file, format::ReaderPool* pool) {
    auto merger = std::make_unique<PieceMerger>(
        set,
        [&prototype]() -> std::unique_ptr<PieceSink> {
          return StatsCollector::EmptyLike(*prototype);
        },
        ctx.merge,
        [&](const Piece& piece) {
          const auto& sink = static_cast<const StatsCollector&>(*piece.sink);
          stats->MergeIntervals(sink);
          stats->MergeSyncWaits(sink);
          stats->AddEvents(piece.paired_events, piece.paired_last_ticks);
          CountPiece(piece, &pass);
        },
        only_file, pool);
    merger->set_apart_consumer(stats);
    return merger;
  });
  while (PieceMerger* const merger = mergers.Next()) {
    stats->ResetPeakKeyedOpen();
    uint32_t meets = 0;
    const bool drained = DrainPieces(
        ctx, merger, stats, &pass, [](const PieceMerger::Item&) {},  // its sinks write nothing
        [&](const Event& event, const PieceMerger::Item& item) {
          if (!file_by_file) return true;
          const uint32_t m = MeetsOtherProcesses(event, *item.thread, set.index());
          if ((m & ~meets) == 0) return true;
          meets |= m;
          return !Meet(meets, met);
        });
    if (!drained) {
      *crossed = true;
      return std::nullopt;
    }
    met |= meets;
    if (!merger->exact()) return std::nullopt;
    open_keyed += stats->tracker().peak_keyed_open() + merger->open_keyed_bound();
    if (!ctx.out->good()) break;
  }
  if (!IntervalTracker::OpenKeyedWithinLimits(open_keyed)) return std::nullopt;
  pass.on_every_core = true;
  return pass;
}

}  // namespace

absl::StatusOr<PassSummary> CollectStats(const VerbContext& ctx, const StatsOptions& options,
                                         std::unique_ptr<StatsCollector>* stats) {
  *stats = NewCollector(ctx, options);
  absl::StatusOr<PassSummary> pass;
  std::optional<PassSummary> in_pieces;
  if (ctx.parallel) {
    bool crossed = false;
    in_pieces =
        CollectInPieces(ctx, options, FilesOneAfterAnother(*ctx.set), stats->get(), &crossed);
    if (crossed) {
      *stats = NewCollector(ctx, options);
      in_pieces = CollectInPieces(ctx, options, /*file_by_file=*/false, stats->get(), &crossed);
    }
  }
  if (in_pieces.has_value()) {
    pass = *in_pieces;
  } else {
    if (ctx.parallel) *stats = NewCollector(ctx, options);
    pass = ForEachEvent(
        ctx, [s = stats->get()](const Event& e, const ThreadRec& t) { s->OnEvent(e, t); },
        [s = stats->get()](const ThreadRec& t, uint64_t ticks) { s->OnCut(t, ticks); });
  }
  if (pass.ok()) (*stats)->Finish(TraceEndTicks(*ctx.index, pass->last_ticks));
  return pass;
}

absl::Status RunStats(const VerbContext& ctx, const StatsOptions& options) {
  std::unique_ptr<StatsCollector> stats;
  absl::StatusOr<PassSummary> pass = CollectStats(ctx, options, &stats);
  if (!pass.ok()) return pass.status();
  std::vector<Problem> found;
  for (const MalformedChunk* m : NewlyMalformed(ctx, *pass)) {
    // Named by its file in a set, as the set's index names the others.
    const TraceIndex& file = *ctx.set->files()[m->file].index;
    found.push_back(
        {Problem::Kind::kCorrupt, m->offset, m->bytes,
         ctx.set->files().size() > 1 ? absl::StrCat(file.name, ": ", m->reason) : m->reason});
  }
  stats->AddPassDamage(std::move(found));
  const std::vector<Section> sections = stats->Sections();
  std::string prefix = "\"trace\":";
  AppendJsonString(&prefix, ctx.index->name);
  absl::StrAppend(&prefix, ",\"events\":", pass->events, ",");
  std::string text;
  RenderReport(sections, options.format,
               absl::StrCat("trace ", ctx.index->name, ": ", pass->events, " events"), prefix,
               &text);
  ctx.out->Write(text);
  ctx.out->Flush();
  return WarnMerge(ctx, *pass);
}

}  // namespace itt_dump
}  // namespace ittc
