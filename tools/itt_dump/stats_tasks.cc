// Tasks (and the other task-like intervals) and frames: their rows, fed
// by the pairing engine, and the tasks, thread_tasks and frames sections.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/model/symbols.h"
#include "tools/itt_dump/stats.h"
#include "tools/itt_dump/stats_rows.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;
using stats_internal::kAllThreads;
using stats_internal::Num;
using stats_internal::Real;

namespace {

void DurationColumns(std::vector<Column>* c) {
  for (const char* n : {"min", "mean", "p50", "p90", "p99", "max"}) {
    c->push_back({absl::StrCat(n, "_ns"), absl::StrCat(n, "(us)"), CellType::kDuration});
  }
}

DurationSummary Durations(const PercentileSketch& s) {
  DurationSummary d;
  d.min_ns = s.min();
  d.mean_ns = s.mean();
  d.p50_ns = s.Quantile(0.50);
  d.p90_ns = s.Quantile(0.90);
  d.p99_ns = s.Quantile(0.99);
  d.max_ns = s.max();
  return d;
}

void DurationCells(const DurationSummary& d, std::vector<std::string>* row) {
  for (uint64_t v : {d.min_ns, d.mean_ns, d.p50_ns, d.p90_ns, d.p99_ns, d.max_ns}) {
    row->push_back(Num(v));
  }
}

}  // namespace

StatsCollector::TaskRow* StatsCollector::TaskRowFor(IntervalKind kind, uint64_t domain,
                                                    uint64_t name_id, uint64_t fn_address,
                                                    uint64_t event_id, const ThreadRec* t,
                                                    uint64_t owner, const ThreadRec& by,
                                                    uint64_t begin) {
  const int k = static_cast<int>(kind);
  const uint64_t name = kind == IntervalKind::kLegacyEvent ? event_id : name_id;
  const uint64_t thread = t != nullptr ? t->index : owner;
  // A code address means something per process.
  const uint64_t fn = fn_address == 0 ? 0 : fn_address ^ ProcessTag(by.process);
  // One multiply per part: the exact key is compared below anyway.
  const uint64_t h = (name * 0x9E3779B97F4A7C15ull) ^ (domain * 0xBF58476D1CE4E5B9ull) ^
                     (fn * 0x94D049BB133111EBull) ^ (thread * 0xD6E8FEB86659FD93ull) ^
                     static_cast<uint64_t>(k);
  auto matches = [&](const TaskRow* r) {
    return r->kind == k && r->domain == domain &&
           (kind == IntervalKind::kLegacyEvent ? r->event_id : r->name_id) == name && r->fn == fn &&
           r->thread == thread;
  };
  const auto key = std::make_tuple(k, domain, name, fn, thread);
  RowCacheEntry& cached = row_cache_[(h ^ (h >> 29)) % kRowCacheSize];
  if (cached.row != nullptr && cached.hash == h && cached.key == key) return cached.row;
  TaskRow*& slot = task_by_hash_[h];
  if (slot != nullptr && matches(slot)) {
    cached = {slot, h, key};
    return slot;
  }
  auto it = task_exact_.find(key);
  if (it != task_exact_.end()) {
    cached = {it->second, h, key};
    return it->second;
  }
  Interval iv;
  iv.kind = kind;
  iv.thread = &by;
  iv.name_id = name_id;
  iv.fn = fn_address;
  iv.event_id = event_id;
  iv.begin = begin;
  std::string row_name = IntervalName(x_, iv);
  if (fn != 0) {
    // The same function at another address (another process, or another
    // load of its module) is the same row: rows are by name.
    const auto by_name = std::make_tuple(k, domain, row_name, thread);
    auto named = fn_rows_by_name_.find(by_name);
    if (named != fn_rows_by_name_.end()) {
      task_exact_[key] = named->second;
      cached = {named->second, h, key};
      return named->second;
    }
  }
  auto row = std::make_unique<TaskRow>();
  row->kind = k;
  row->domain = domain;
  row->name_id = kind == IntervalKind::kLegacyEvent ? 0 : name_id;
  row->event_id = event_id;
  row->fn = fn;
  row->thread = thread;
  row->name = std::move(row_name);
  if (fn != 0 && iv.name_id == 0 && kind != IntervalKind::kLegacyEvent) {
    row->match_name = StableFunctionName(x_, &by, fn_address, begin);
  }
  TaskRow* r = row.get();
  if (fn != 0) fn_rows_by_name_[std::make_tuple(k, domain, r->name, thread)] = r;
  tasks_.push_back(std::move(row));
  task_exact_[key] = r;
  if (slot == nullptr) slot = r;
  return r;
}

[[gnu::always_inline]] inline void StatsCollector::AddTask(const Interval& iv) {
  const IntervalKind kind = iv.kind;
  const ThreadRec& t = *iv.thread;
  if (filter_.active()) {
    if (!filter_.ThreadOk(t) || !filter_.TimeOk(iv.begin)) return;
    if (kind == IntervalKind::kLegacyEvent ? filter_.has_domain() : !filter_.DomainOk(iv.domain)) {
      return;
    }
    if (filter_.has_name()) {
      if (!IntervalHasName(iv)) return;
      if (iv.name_id != 0 && kind != IntervalKind::kLegacyEvent) {
        if (!filter_.NameIdOk(iv.name_id)) return;
      } else if (!filter_.NameOk(IntervalName(x_, iv))) {
        return;
      }
    }
  }
  const int64_t d = clock_.DurationNs(iv.begin, iv.end);
  const uint64_t dur = d > 0 ? static_cast<uint64_t>(d) : 0;
  uint64_t self = dur;
  if (iv.child_ticks != 0) {
    const int64_t c = clock_.DurationNs(iv.begin, iv.begin + iv.child_ticks);
    self = c <= 0 ? dur : static_cast<uint64_t>(c) >= dur ? 0 : dur - static_cast<uint64_t>(c);
  }
  if (kind == IntervalKind::kTask && iv.fn == 0 && !per_thread_ && processes_ == nullptr) {
    // The hot path: one row, found by domain and name.
    NamedRowEntry& e =
        named_rows_[((iv.name_id * 0x9E3779B97F4A7C15ull) ^ iv.domain) >> 58 & (kNamedRows - 1)];
    if (e.row == nullptr || e.name_id != iv.name_id || e.domain != iv.domain) {
      e = {iv.domain, iv.name_id,
           TaskRowFor(kind, iv.domain, iv.name_id, 0, iv.event_id, nullptr, kAllThreads, t,
                      iv.begin)};
    }
    e.row->self_ns += self;
    e.row->sketch.Add(dur);
    return;
  }
  auto add = [&](const ThreadRec* row_thread, uint64_t owner) {
    TaskRow* r =
        TaskRowFor(kind, iv.domain, iv.name_id, iv.fn, iv.event_id, row_thread, owner, t, iv.begin);
    r->self_ns += self;
    r->sketch.Add(dur);
  };
  add(nullptr, kAllThreads);
  if (per_thread_) add(&t, kAllThreads);
  if (processes_ != nullptr) add(nullptr, stats_internal::kProcessRow | t.process);
}

void StatsCollector::MergeIntervals(const StatsCollector& piece) {
  // Any thread will do for `by`: it names only task_begin_fn rows, which
  // pieces never pair.
  static const ThreadRec kAnyThread;
  for (const std::unique_ptr<TaskRow>& r : piece.tasks_) {
    const bool process_row = r->thread != kAllThreads && (r->thread & stats_internal::kProcessRow);
    const ThreadRec* t = r->thread == kAllThreads || process_row
                             ? nullptr
                             : x_.Thread(static_cast<uint32_t>(r->thread));
    const uint64_t owner = t == nullptr ? r->thread : kAllThreads;
    const IntervalKind kind = static_cast<IntervalKind>(r->kind);
    TaskRow* row = TaskRowFor(kind, r->domain, r->name_id, r->fn, r->event_id, t, owner,
                              t != nullptr ? *t : kAnyThread, 0);
    row->self_ns += r->self_ns;
    row->sketch.Merge(r->sketch);
  }
  for (const auto& [domain, f] : piece.frames_.entries()) {
    FrameRow* row = FrameRowFor(domain);
    row->first_begin = std::min(row->first_begin, f->first_begin);
    row->last_end = std::max(row->last_end, f->last_end);
    row->sketch.Merge(f->sketch);
  }
}

StatsCollector::FrameRow* StatsCollector::FrameRowFor(uint64_t domain) {
  std::unique_ptr<FrameRow>& f = frames_[domain];
  if (!f) {
    f = std::make_unique<FrameRow>();
    f->domain = domain;
  }
  return f.get();
}

void StatsCollector::ClearIntervals() {
  task_by_hash_ = U64Map<TaskRow*>();
  for (RowCacheEntry& e : row_cache_) e = RowCacheEntry();
  for (NamedRowEntry& e : named_rows_) e = NamedRowEntry();
  task_exact_.clear();
  fn_rows_by_name_.clear();
  tasks_.clear();
  frames_ = U64Map<std::unique_ptr<FrameRow>>();
  events_ = 0;
  last_ticks_ = 0;
}

void StatsCollector::Clear() {
  ClearIntervals();
  sync_.clear();
  piece_waits_.Clear();
}

void StatsCollector::OnInterval(const Interval& iv) {
  if (iv.open_at_end) return;  // counted by the tracker as unbalanced
  if (iv.kind != IntervalKind::kFrame) {
    AddTask(iv);
    return;
  }
  if (filter_.active()) {
    if (!filter_.ThreadOk(*iv.thread) || !filter_.TimeOk(iv.begin) ||
        !filter_.DomainOk(iv.domain) || filter_.has_name()) {
      return;
    }
  }
  const int64_t d = clock_.DurationNs(iv.begin, iv.end);
  const uint64_t dur = d > 0 ? static_cast<uint64_t>(d) : 0;
  FrameRow* f = FrameRowFor(iv.domain);
  f->first_begin = std::min(f->first_begin, iv.begin);
  f->last_end = std::max(f->last_end, iv.end);
  f->sketch.Add(dur);
}

std::vector<TaskSummary> StatsCollector::Tasks(TaskRows which) const {
  const bool per_thread_rows = which == TaskRows::kPerThread;
  const bool per_process_rows = which == TaskRows::kPerProcess;
  std::vector<const TaskRow*> rows;
  for (const auto& r : tasks_) {
    const bool process_row = r->thread != kAllThreads && (r->thread & stats_internal::kProcessRow);
    const bool thread_row = r->thread != kAllThreads && !process_row;
    if (per_thread_rows ? thread_row : per_process_rows ? process_row : r->thread == kAllThreads) {
      rows.push_back(r.get());
    }
  }
  auto process_of = [&](const TaskRow* r) -> size_t {
    return static_cast<size_t>(r->thread & ~stats_internal::kProcessRow);
  };
  auto domain_of = [&](const TaskRow* r) { return x_.Domain(r->domain); };
  auto tid_of = [&](const TaskRow* r) -> uint64_t {
    const ThreadRec* t = x_.Thread(static_cast<uint32_t>(r->thread));
    return t != nullptr ? t->tid : 0;
  };
  // By total time (largest first), then domain, name, kind; per-thread rows
  // by tid first.
  std::sort(rows.begin(), rows.end(), [&](const TaskRow* a, const TaskRow* b) {
    if (per_thread_rows && tid_of(a) != tid_of(b)) {
      return tid_of(a) < tid_of(b);
    }
    if (per_process_rows && process_of(a) != process_of(b)) return process_of(a) < process_of(b);
    if (a->sketch.sum() != b->sketch.sum()) return a->sketch.sum() > b->sketch.sum();
    const auto da = domain_of(a);
    const auto db = domain_of(b);
    if (da != db) return da < db;
    if (a->name != b->name) return a->name < b->name;
    // The rest only makes the order total: rows come out the same
    // whichever was made first (a parallel pass makes them in another
    // order).
    return std::tie(a->kind, a->domain, a->name_id, a->event_id, a->fn, a->thread) <
           std::tie(b->kind, b->domain, b->name_id, b->event_id, b->fn, b->thread);
  });
  std::vector<TaskSummary> out;
  out.reserve(rows.size());
  for (const TaskRow* r : rows) {
    TaskSummary t;
    if (per_thread_rows) {
      const ThreadRec* thread = x_.Thread(static_cast<uint32_t>(r->thread));
      t.tid = thread != nullptr ? thread->tid : 0;
      t.thread = thread != nullptr ? thread->name : "";
    }
    if (per_process_rows) {
      const TraceFile& f = processes_->files()[process_of(r)];
      t.pid = f.index->header.pid;
      t.process = f.label;
    }
    t.domain = std::string(domain_of(r));
    t.name = r->name;
    t.match_name = r->match_name.empty() ? r->name : r->match_name;
    t.kind = IntervalKindName(static_cast<IntervalKind>(r->kind));
    t.named = IntervalHasName(static_cast<IntervalKind>(r->kind), r->name_id, r->fn);
    t.count = r->sketch.count();
    t.total_ns = r->sketch.sum();
    t.self_ns = r->SelfNs();
    t.durations = Durations(r->sketch);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<FrameSummary> StatsCollector::Frames() const {
  std::vector<const FrameRow*> rows;
  for (const auto& [id, f] : frames_.entries()) rows.push_back(f.get());
  std::sort(rows.begin(), rows.end(), [&](const FrameRow* a, const FrameRow* b) {
    return x_.Domain(a->domain) != x_.Domain(b->domain)
               ? x_.Domain(a->domain) < x_.Domain(b->domain)
               : a->domain < b->domain;
  });
  std::vector<FrameSummary> out;
  out.reserve(rows.size());
  for (const FrameRow* f : rows) {
    FrameSummary s;
    s.domain = std::string(x_.Domain(f->domain));
    s.count = f->sketch.count();
    const int64_t span = clock_.DurationNs(f->first_begin, f->last_end);
    s.rate_hz = span > 0 ? static_cast<double>(s.count) * 1e9 / static_cast<double>(span) : 0.0;
    s.durations = Durations(f->sketch);
    out.push_back(std::move(s));
  }
  return out;
}

void StatsCollector::TaskSections(std::vector<Section>* sections) const {
  std::vector<Section>& out = *sections;
  // Passes: all tasks, per thread, per process.
  for (int pass = 0; pass < 3; ++pass) {
    const bool by_thread = pass == 1;
    const bool by_process = pass == 2;
    if ((by_thread && !per_thread_) || (by_process && processes_ == nullptr)) continue;
    Section s;
    s.name = by_thread ? "thread_tasks" : by_process ? "process_tasks" : "tasks";
    if (by_thread) {
      s.columns = {{"tid", "tid", CellType::kNumber}, {"thread", "thread", CellType::kText}};
    }
    if (by_process) {
      s.columns = {{"pid", "pid", CellType::kNumber}, {"process", "process", CellType::kText}};
    }
    for (const Column& c : std::vector<Column>{{"domain", "domain", CellType::kText},
                                               {"name", "name", CellType::kText},
                                               {"kind", "kind", CellType::kText},
                                               {"count", "count", CellType::kNumber},
                                               {"total_ns", "total(us)", CellType::kDuration},
                                               {"self_ns", "self(us)", CellType::kDuration}}) {
      s.columns.push_back(c);
    }
    DurationColumns(&s.columns);
    for (const TaskSummary& t : Tasks(by_thread    ? TaskRows::kPerThread
                                      : by_process ? TaskRows::kPerProcess
                                                   : TaskRows::kAll)) {
      std::vector<std::string> row;
      if (by_thread) {
        row.push_back(Num(t.tid));
        row.push_back(t.thread);
      }
      if (by_process) {
        row.push_back(Num(t.pid));
        row.push_back(t.process);
      }
      for (const std::string* text : {&t.domain, &t.name, &t.kind}) row.push_back(*text);
      for (uint64_t v : {t.count, t.total_ns, t.self_ns}) row.push_back(Num(v));
      DurationCells(t.durations, &row);
      s.AddRow(std::move(row));
    }
    out.push_back(std::move(s));
  }

  {
    Section s;
    s.name = "frames";
    s.columns = {{"domain", "domain", CellType::kText},
                 {"count", "count", CellType::kNumber},
                 {"rate_hz", "rate(Hz)", CellType::kNumber}};
    DurationColumns(&s.columns);
    for (const FrameSummary& f : Frames()) {
      std::vector<std::string> row = {f.domain, Num(f.count), absl::StrFormat("%.3f", f.rate_hz)};
      DurationCells(f.durations, &row);
      s.AddRow(std::move(row));
    }
    out.push_back(std::move(s));
  }
}

}  // namespace itt_dump
}  // namespace ittc
