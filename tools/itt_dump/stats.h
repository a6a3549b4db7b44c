// `itt-dump stats`: summaries of a trace, in sections (report.h renders
// them as a table, CSV or JSON; docs/ITT_DUMP.md lists every column):
//
//   losses        dropped events per thread and cause (first, when any)
//   damage        corrupt/truncated regions (when any)
//   unbalanced    ends without begin, begins left open (when any)
//   tasks         per (domain, name, kind): count, total, self (direct
//                 children subtracted), min, mean, p50, p90, p99, max
//   thread_tasks  the same per thread (with per_thread)
//   process_tasks the same per process (with per_process)
//   frames        per domain: count, rate, duration percentiles
//   counters      samples, min, max, last value
//   sync          per object: acquisitions, total and max wait from
//                 prepare to acquired, cancels
//   heap          per heap function: allocations, frees, bytes, peak live
//   jit           methods loaded, inline loaded, updated, unloaded
//
// Tasks left open at the end are counted in `unbalanced` and not in the
// task statistics. Percentiles come from PercentileSketch (sketch.h): exact
// up to 1024 samples per row, within 0.8% beyond.

#ifndef TOOLS_ITT_DUMP_STATS_H_
#define TOOLS_ITT_DUMP_STATS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/itt_dump/filter.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/heap.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/jit_methods.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/sync.h"
#include "tools/itt_dump/report.h"
#include "tools/itt_dump/sketch.h"
#include "tools/itt_dump/verb.h"

namespace ittc {
namespace itt_dump {

struct StatsOptions {
  ReportFormat format = ReportFormat::kTable;
  bool per_thread = false;
  bool per_process = false;
};

// A row's durations as read from its PercentileSketch: the one place the
// percentiles of task and frame rows are computed (stats and diff print
// these).
struct DurationSummary {
  uint64_t min_ns = 0;
  uint64_t mean_ns = 0;
  uint64_t p50_ns = 0;
  uint64_t p90_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t max_ns = 0;
};

// One row of the tasks (or thread_tasks) section.
struct TaskSummary {
  uint64_t tid = 0;     // thread_tasks rows only
  std::string thread;   // thread_tasks rows only
  uint64_t pid = 0;     // process_tasks rows only
  std::string process;  // process_tasks rows only: TraceFile::label
  std::string domain;
  std::string name;
  // What diff matches the rows of two traces by: a row of __itt_task_begin_fn
  // tasks has its function's StableFunctionName (model/symbols.h), which
  // holds across builds and load addresses; another row its name.
  std::string match_name;
  std::string kind;  // IntervalKindName: task, overlapped_task, region, event
  // False for tasks without a name (IntervalHasName), whose `name` is ""
  // as a task named "" has it.
  bool named = true;
  uint64_t count = 0;
  uint64_t total_ns = 0;
  uint64_t self_ns = 0;
  DurationSummary durations;
};

// One row of the frames section (per domain).
struct FrameSummary {
  std::string domain;
  uint64_t count = 0;
  double rate_hz = 0;  // count / (last frame end - first frame begin)
  DurationSummary durations;
};

// One row of the sync section (per object address).
struct SyncSummary {
  uint64_t addr = 0;
  std::string type;
  std::string name;
  uint64_t acquisitions = 0;
  uint64_t cancels = 0;
  uint64_t total_wait_ns = 0;
  uint64_t max_wait_ns = 0;
};

// The statistics engine; RunStats feeds it from the merge. Exposed for the
// benchmark and tests.
// A PieceSink too: the pass on every core gives each piece a collector of
// its own (EmptyLike) and adds them up (MergeIntervals); and an
// ApartConsumer: what the pieces keep apart (the frames of processes with
// several threads; for one file, sync waits, heap calls and counter
// changes) goes by stretches, each summed up on a worker (Stretch) and
// joined here in order.
class StatsCollector : public PieceSink, public ApartConsumer {
 public:
  // `index` must outlive the collector.
  StatsCollector(const TraceIndex& index, const FilterSpec& filter, bool per_thread);
  ~StatsCollector() override;
  // An empty collector with `other`'s index, filter, clock and options.
  // Reads `other` only: collectors for a parallel pass's threads are made
  // from one that no thread uses meanwhile.
  static std::unique_ptr<StatsCollector> EmptyLike(const StatsCollector& other);

  // Adds the process_tasks section: task statistics per file of `set`
  // (which must outlive the collector).
  void EnablePerProcess(const TraceSet& set) { processes_ = &set; }

  void OnEvent(const format::Event& e, const ThreadRec& t);
  // What a parallel pass (pieces.h) adds to the events: a task or frame
  // a piece left open, and the time of tasks it paired under the thread's
  // innermost open task.
  void OnOpen(const Interval& interval, const ThreadRec& t) { tracker_.OnOpen(interval, t); }
  void OnCut(const ThreadRec& t, uint64_t ticks) { tracker_.CutThread(t, ticks); }
  const IntervalTracker& tracker() const { return tracker_; }
  // ApartConsumer: the frames pieces keep apart pair on workers by
  // stretches and join this one's tracker; the sync, heap and counter
  // events they keep apart are summed up by stretches (their events are
  // counted with the pieces').
  IntervalTracker* frame_tracker() override { return &tracker_; }
  std::unique_ptr<ApartStretch> NewStretch() override;
  void JoinStretch(ApartStretch* stretch, bool frames_joined,
                   const StretchRecords& records) override;
  // Whether its pieces may keep sync waits, heap calls and counter
  // changes apart (KeepsApart): only where nothing of them meets another
  // process (one file). Copied by EmptyLike.
  void set_keep_apart(bool on) { keep_apart_ = on; }
  void ResetPeakKeyedOpen() { tracker_.ResetPeakKeyedOpen(); }
  void AddChildTicks(const ThreadRec& t, uint64_t ticks) { tracker_.AddChildTicks(t, ticks); }
  // Adds what `piece` collected from the tasks and frames a piece paired
  // (with the same index, filter and options), as if this collector had
  // seen them.
  void MergeIntervals(const StatsCollector& piece);
  // Forgets every task and frame row and count, for the next piece.
  void ClearIntervals();
  // Adds the sync waits of `piece` (TakesForwarded: a collector of the
  // same index, filter and options), its thread's pieces in their order.
  void MergeSyncWaits(const StatsCollector& piece);
  // Counts events this collector did not see (a piece's paired ones: the
  // events whose intervals MergeIntervals adds).
  void AddEvents(uint64_t events, uint64_t last_ticks) {
    events_ += events;
    last_ticks_ = std::max(last_ticks_, last_ticks);
  }
  // Closes open intervals at the end of the trace.
  void Finish(uint64_t last_event_ticks);
  // Damage the pass itself found (malformed chunks the index pass did not
  // see: NewlyMalformed), listed after the index's.
  void AddPassDamage(std::vector<Problem> problems) { pass_damage_ = std::move(problems); }
  std::vector<Section> Sections() const;

  // The rows of the tasks section (`per_thread_rows`: of thread_tasks,
  // empty unless constructed with per_thread), frames and sync sections,
  // in their sections' order. REQUIRES: Finish() was called.
  enum class TaskRows { kAll, kPerThread, kPerProcess };
  std::vector<TaskSummary> Tasks(TaskRows which = TaskRows::kAll) const;
  std::vector<FrameSummary> Frames() const;
  std::vector<SyncSummary> SyncObjects() const;

  uint64_t events() const { return events_; }

  void OnInterval(const Interval& iv) override;
  // PieceSink: ClearIntervals, and the piece's sync waits.
  void Clear() override;
  // The null-id frames of a process with several threads go apart (those
  // with an id stay among the other events): no section needs their place
  // among the other events.
  IntervalTracker::PiecePairing pairing() const override {
    IntervalTracker::PiecePairing p;
    p.frames_apart = true;
    return p;
  }
  bool outputs_intervals() const override { return false; }
  // PieceSink: what neither the collector nor its tracker reads (markers,
  // metadata, heap begins, sync_releasing...).
  bool Ignores(format::EventKind kind) const override;
  // PieceSink: sync waits, heap calls and counter changes, where
  // set_keep_apart and the filters let them (a name or domain filter
  // reads what the stretches do not know).
  bool KeepsApart(format::EventKind kind) const override;
  // PieceSink: sync_prepare, sync_acquired and sync_cancel, where
  // set_keep_apart and the filters let them: a wait pairs within its
  // thread (OnPairedEvent, then MergeSyncWaits), whatever the others do.
  bool TakesForwarded(format::EventKind kind) const override;
  void OnPairedEvent(const format::Event& e, const ThreadRec& t) override;

 private:
  class Stretch;

  StatsCollector(const TraceIndex& index, const Clock& clock, const Filter& filter,
                 bool per_thread);

  struct TaskRow;
  struct FrameRow;
  struct CounterRow;
  struct SyncRow;
  struct HeapRow;

  // A completed task-like interval (not a frame) into its rows.
  void AddTask(const Interval& iv);
  // The row of the key; per thread `t` when not null, else of `owner`
  // (TaskRow::thread). `by` ran the task from `begin`: its process
  // qualifies a task_begin_fn address, and names it.
  TaskRow* TaskRowFor(IntervalKind kind, uint64_t domain, uint64_t name_id, uint64_t fn,
                      uint64_t event_id, const ThreadRec* t, uint64_t owner, const ThreadRec& by,
                      uint64_t begin);
  FrameRow* FrameRowFor(uint64_t domain);
  SyncRow* SyncRowFor(uint64_t addr, uint32_t process);
  HeapRow* HeapRowFor(uint64_t function);
  void OnCounter(const CounterSample& sample, const ThreadRec& t);
  // Each appends its family of sections (one file each).
  void HealthSections(std::vector<Section>* out) const;
  void TaskSections(std::vector<Section>* out) const;
  void CounterSections(std::vector<Section>* out) const;
  void SyncHeapSections(std::vector<Section>* out) const;
  void JitSections(std::vector<Section>* out) const;
  void OnSync(const format::Event& e, const ThreadRec& t);
  void OnHeap(const format::Event& e, const ThreadRec& t);
  // Whether the filters keep a sync wait event (not by name: OnSync asks
  // the object's name), a heap call.
  bool SyncKept(const format::Event& e, const ThreadRec& t);
  // Whether a JIT event's method matches the name filter (REQUIRES: one).
  bool JitNameKept(const format::Event& e, const ThreadRec& t);
  bool HeapKept(const format::Event& e, const ThreadRec& t);
  // What a kept sync event `c` at `addr` adds to its row.
  void AddSync(const SyncChange& c, uint64_t addr, const ThreadRec& t, uint64_t ticks);
  // A wait from `begin` to `end` (ticks) into `row`'s total and max.
  void AddWait(SyncRow* row, uint64_t begin, uint64_t end);
  // What a kept heap call `c` adds to its function's row but for the live
  // bytes (counts and bytes).
  void CountHeap(const HeapChange& c);
  // A counter sample the filters keep (value `value`) into `row`.
  static void AddSample(long double value, CounterRow* row);

  const TraceIndex& x_;
  std::vector<Problem> pass_damage_;
  // The index's clock, copied: its conversions update a cache, and a
  // parallel pass's collectors run on several threads.
  Clock clock_;
  Filter filter_;
  bool per_thread_;
  const TraceSet* processes_ = nullptr;
  IntervalTracker tracker_;
  uint64_t events_ = 0;
  CounterTracker counter_tracker_;

  // Rows by a 64-bit hash of their key; the row keeps the key and a
  // mismatch (a hash collision) falls back to the exact map.
  U64Map<TaskRow*> task_by_hash_;
  // Direct-mapped cache in front of task_by_hash_, by the same hash.
  using TaskKey = std::tuple<int, uint64_t, uint64_t, uint64_t, uint64_t>;
  struct RowCacheEntry {
    TaskRow* row = nullptr;
    uint64_t hash = 0;
    TaskKey key;
  };
  static constexpr size_t kRowCacheSize = 256;
  RowCacheEntry row_cache_[kRowCacheSize];
  // The all-threads rows of named tasks (kTask, no function) by domain and
  // name: AddTask's hot path when rows are neither per thread nor per
  // process. Direct-mapped; a miss takes TaskRowFor and fills the entry.
  struct NamedRowEntry {
    uint64_t domain = 0;
    uint64_t name_id = 0;
    TaskRow* row = nullptr;
  };
  static constexpr size_t kNamedRows = 64;
  NamedRowEntry named_rows_[kNamedRows];
  std::map<TaskKey, TaskRow*> task_exact_;  // aliases of fn rows included
  // Rows of task_begin_fn tasks by (kind, domain, function name, owner).
  std::map<std::tuple<int, uint64_t, std::string, uint64_t>, TaskRow*> fn_rows_by_name_;
  std::vector<std::unique_ptr<TaskRow>> tasks_;
  U64Map<std::unique_ptr<FrameRow>> frames_;  // by domain id
  std::vector<CounterRow> counter_rows_;      // by Counter::index
  U64Map<std::unique_ptr<SyncRow>> sync_;     // by address
  SyncTracker sync_tracker_;
  SyncWaitStretch piece_waits_;            // a piece's (TakesForwarded)
  U64Map<std::unique_ptr<HeapRow>> heap_;  // by function id
  HeapTracker heap_tracker_;               // fed the heap events the filters keep
  uint64_t jit_loaded_ = 0;
  uint64_t jit_inline_ = 0;
  uint64_t jit_updated_ = 0;
  uint64_t jit_unloaded_ = 0;
  uint64_t jit_code_bytes_ = 0;
  // With a name filter: the methods whose names the events that name none
  // are kept by.
  JitMethods jit_methods_;
  uint64_t last_ticks_ = 0;
  bool keep_apart_ = false;
};

// Makes *stats for ctx's traces and filter, feeds it every event of one
// pass and finishes it at the end of the trace: what stats and each side
// of diff do. One file is read on every core (pieces.h) when ctx.parallel
// and the pass can be exact; otherwise, or when it turns out not to be,
// by ForEachEvent. The results are the same either way.
absl::StatusOr<PassSummary> CollectStats(const VerbContext& ctx, const StatsOptions& options,
                                         std::unique_ptr<StatsCollector>* stats);

absl::Status RunStats(const VerbContext& ctx, const StatsOptions& options);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_STATS_H_
