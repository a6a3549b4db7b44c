#include "tools/itt_dump/stats.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;
using format::EventKind;
using F = format::Field;

namespace {

constexpr uint64_t kAllThreads = ~uint64_t{0};

std::string Num(uint64_t v) { return absl::StrCat(v); }

std::string Real(long double v) {
  std::string s;
  AppendNumber(&s, v);
  return s;
}

}  // namespace

struct StatsCollector::TaskRow {
  int kind = 0;  // IntervalKind
  uint64_t domain = 0;
  uint64_t name_id = 0;
  uint64_t fn = 0;
  uint64_t event_id = 0;
  uint64_t thread = kAllThreads;  // thread index for per-thread rows
  std::string name;
  uint64_t total_ns = 0;
  uint64_t self_ns = 0;
  PercentileSketch sketch;
};

struct StatsCollector::FrameRow {
  uint64_t domain = 0;
  uint64_t first_begin = ~uint64_t{0};
  uint64_t last_end = 0;
  PercentileSketch sketch;
};

struct StatsCollector::CounterRow {
  int8_t passes = 0;     // cached name/domain filter answer (0: unknown)
  long double last = 0;  // value at the last kept sample
  uint64_t samples = 0;
  long double min = 0;
  long double max = 0;
};

struct StatsCollector::SyncRow {
  uint64_t addr = 0;
  uint64_t acquisitions = 0;
  uint64_t cancels = 0;
  uint64_t total_wait_ns = 0;
  uint64_t max_wait_ns = 0;
  bool used = false;
};

struct StatsCollector::HeapRow {
  uint64_t function = 0;
  uint64_t allocations = 0;
  uint64_t reallocs = 0;
  uint64_t frees = 0;
  uint64_t bytes = 0;
  uint64_t live = 0;
  uint64_t peak = 0;
  bool used = false;
};

StatsCollector::StatsCollector(const TraceIndex& index, const FilterSpec& filter, bool per_thread)
    : x_(index),
      filter_(filter, index),
      per_thread_(per_thread),
      tracker_(index, this),
      counter_tracker_(index) {}

StatsCollector::~StatsCollector() = default;

StatsCollector::TaskRow* StatsCollector::TaskRowFor(IntervalKind kind, uint64_t domain,
                                                    uint64_t name_id, uint64_t fn,
                                                    uint64_t event_id, const ThreadRec* t) {
  const int k = static_cast<int>(kind);
  const uint64_t name = kind == IntervalKind::kLegacyEvent ? event_id : name_id;
  const uint64_t thread = t != nullptr ? t->index : kAllThreads;
  // One multiply per part: the exact key is compared below anyway.
  const uint64_t h = (name * 0x9E3779B97F4A7C15ull) ^ (domain * 0xBF58476D1CE4E5B9ull) ^
                     (fn * 0x94D049BB133111EBull) ^ (thread * 0xD6E8FEB86659FD93ull) ^
                     static_cast<uint64_t>(k);
  auto matches = [&](const TaskRow* r) {
    return r->kind == k && r->domain == domain &&
           (kind == IntervalKind::kLegacyEvent ? r->event_id : r->name_id) == name && r->fn == fn &&
           r->thread == thread;
  };
  RowCacheEntry& cached = row_cache_[(h ^ (h >> 29)) % kRowCacheSize];
  if (cached.row != nullptr && cached.hash == h && matches(cached.row)) {
    return cached.row;
  }
  TaskRow*& slot = task_by_hash_[h];
  if (slot != nullptr && matches(slot)) {
    cached = {slot, h};
    return slot;
  }
  const auto key = std::make_tuple(k, domain, name, fn, thread);
  auto it = task_exact_.find(key);
  if (it != task_exact_.end()) return it->second;
  auto row = std::make_unique<TaskRow>();
  row->kind = k;
  row->domain = domain;
  row->name_id = kind == IntervalKind::kLegacyEvent ? 0 : name_id;
  row->event_id = event_id;
  row->fn = fn;
  row->thread = thread;
  Interval iv;
  iv.kind = kind;
  iv.name_id = name_id;
  iv.fn = fn;
  iv.event_id = event_id;
  row->name = IntervalName(x_, iv);
  TaskRow* r = row.get();
  tasks_.push_back(std::move(row));
  task_exact_[key] = r;
  if (slot == nullptr) slot = r;
  return r;
}

void StatsCollector::AddTask(IntervalKind kind, const ThreadRec& t, uint64_t domain,
                             uint64_t name_id, uint64_t fn, uint64_t event_id, uint64_t begin,
                             uint64_t end, uint64_t child_ticks) {
  if (filter_.active()) {
    if (!filter_.ThreadOk(t) || !filter_.TimeOk(begin)) return;
    if (kind == IntervalKind::kLegacyEvent ? filter_.has_domain() : !filter_.DomainOk(domain)) {
      return;
    }
    if (filter_.has_name()) {
      if (name_id != 0 && kind != IntervalKind::kLegacyEvent) {
        if (!filter_.NameIdOk(name_id)) return;
      } else {
        Interval iv;
        iv.kind = kind;
        iv.fn = fn;
        iv.event_id = event_id;
        if (!filter_.NameOk(IntervalName(x_, iv))) return;
      }
    }
  }
  const int64_t d = x_.clock.DurationNs(begin, end);
  const uint64_t dur = d > 0 ? static_cast<uint64_t>(d) : 0;
  uint64_t self = dur;
  if (child_ticks != 0) {
    const int64_t c = x_.clock.DurationNs(begin, begin + child_ticks);
    self = c <= 0 ? dur : static_cast<uint64_t>(c) >= dur ? 0 : dur - static_cast<uint64_t>(c);
  }
  TaskRow* row = TaskRowFor(kind, domain, name_id, fn, event_id, nullptr);
  row->total_ns += dur;
  row->self_ns += self;
  row->sketch.Add(dur);
  if (per_thread_) {
    TaskRow* r = TaskRowFor(kind, domain, name_id, fn, event_id, &t);
    r->total_ns += dur;
    r->self_ns += self;
    r->sketch.Add(dur);
  }
}

void StatsCollector::OnInterval(const Interval& iv) {
  if (iv.open_at_end) return;  // counted by the tracker as unbalanced
  if (iv.kind != IntervalKind::kFrame) {
    AddTask(iv.kind, *iv.thread, iv.domain, iv.name_id, iv.fn, iv.event_id, iv.begin, iv.end,
            iv.child_ticks);
    return;
  }
  if (filter_.active()) {
    if (!filter_.ThreadOk(*iv.thread) || !filter_.TimeOk(iv.begin) ||
        !filter_.DomainOk(iv.domain) || filter_.has_name()) {
      return;
    }
  }
  const int64_t d = x_.clock.DurationNs(iv.begin, iv.end);
  const uint64_t dur = d > 0 ? static_cast<uint64_t>(d) : 0;
  std::unique_ptr<FrameRow>& f = frames_[iv.domain];
  if (!f) {
    f = std::make_unique<FrameRow>();
    f->domain = iv.domain;
  }
  f->first_begin = std::min(f->first_begin, iv.begin);
  f->last_end = std::max(f->last_end, iv.end);
  f->sketch.Add(dur);
}

void StatsCollector::OnCounter(const CounterSample& sample, const ThreadRec& t) {
  const Counter& counter = *sample.counter;
  if (counter_rows_.size() <= counter.index) counter_rows_.resize(counter.index + 1);
  CounterRow& row = counter_rows_[counter.index];
  // The value follows every change (the tracker's); only the samples the
  // filters keep count.
  if (filter_.active()) {
    if (row.passes == 0) {
      const bool ok = filter_.NameOk(counter.name) &&
                      (!filter_.has_domain() ||
                       (!counter.domain.empty() && filter_.DomainNameOk(counter.domain)));
      row.passes = ok ? 1 : -1;
    }
    if (row.passes < 0 || !filter_.ThreadOk(t)) return;
    if (!filter_.TimeOk(sample.ticks)) return;
  }
  const long double value = counter.value;
  if (row.samples == 0 || value < row.min) row.min = value;
  if (row.samples == 0 || value > row.max) row.max = value;
  row.last = value;
  ++row.samples;
}

StatsCollector::SyncRow* StatsCollector::SyncRowFor(uint64_t addr) {
  std::unique_ptr<SyncRow>& r = sync_[addr];
  if (!r) {
    r = std::make_unique<SyncRow>();
    r->addr = addr;
  }
  return r.get();
}

void StatsCollector::OnSync(const Event& e, const ThreadRec& t) {
  SyncChange c;
  // Names follow every create and rename; waits only the events the
  // filters keep.
  if (e.kind == EventKind::kSyncCreate || e.kind == EventKind::kSyncRename) {
    sync_tracker_.OnEvent(e, t, &c);
    SyncRowFor(e.Get(F::kAddr));
    return;
  }
  if (filter_.active()) {
    if (filter_.has_domain() || !filter_.ThreadOk(t) || !filter_.TimeOk(e.time)) {
      return;
    }
    if (filter_.has_name() &&
        !filter_.NameOk(x_.String(sync_tracker_.Object(e.Get(F::kAddr))->name_id))) {
      return;
    }
  }
  if (!sync_tracker_.OnEvent(e, t, &c)) return;
  SyncRow* row = SyncRowFor(c.object->addr);
  row->used = true;
  switch (c.kind) {
    case SyncChange::Kind::kAcquired:
      ++row->acquisitions;
      if (c.closes_wait) {
        const int64_t d = x_.clock.DurationNs(c.wait_begin, e.time);
        const uint64_t wait = d > 0 ? static_cast<uint64_t>(d) : 0;
        row->total_wait_ns += wait;
        row->max_wait_ns = std::max(row->max_wait_ns, wait);
      }
      break;
    case SyncChange::Kind::kCancel:
      ++row->cancels;
      break;
    default:
      break;
  }
}

StatsCollector::HeapRow* StatsCollector::HeapRowFor(uint64_t function) {
  std::unique_ptr<HeapRow>& r = heap_[function];
  if (!r) {
    r = std::make_unique<HeapRow>();
    r->function = function;
  }
  return r.get();
}

void StatsCollector::OnHeap(const Event& e, const ThreadRec& t) {
  const uint64_t fn = e.Get(F::kFunction);
  if (filter_.active()) {
    const HeapFunctionDef* def = x_.heap_functions.Find(fn);
    const std::string_view name = def != nullptr ? std::string_view(def->name) : std::string_view();
    const std::string_view domain =
        def != nullptr ? std::string_view(def->domain_name) : std::string_view();
    if (!filter_.ThreadOk(t) || !filter_.TimeOk(e.time) || !filter_.NameOk(name) ||
        (filter_.has_domain() && (domain.empty() || !filter_.DomainNameOk(domain)))) {
      return;
    }
  }
  // Only the events the filters keep are paired: peak live bytes are those
  // of the selected calls.
  HeapChange c;
  if (!heap_tracker_.OnEvent(e, t, &c)) return;
  HeapRow* row = HeapRowFor(fn);
  row->used = true;
  switch (c.kind) {
    case HeapChange::Kind::kAllocate:
      ++row->allocations;
      break;
    case HeapChange::Kind::kFree:
      ++row->frees;
      break;
    case HeapChange::Kind::kReallocate:
      ++row->reallocs;
      break;
  }
  row->bytes += c.size;
  auto release = [&](const Allocation& block) {
    HeapRow* owner = HeapRowFor(block.function);
    owner->live -= std::min(owner->live, block.size);
  };
  if (c.released) release(c.released_block);
  if (c.replaced) release(c.replaced_block);
  if (c.allocated) {
    row->live += c.size;
    row->peak = std::max(row->peak, row->live);
  }
}

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
  auto duration_columns = [](std::vector<Column>* c) {
    for (const char* n : {"min", "mean", "p50", "p90", "p99", "max"}) {
      c->push_back({absl::StrCat(n, "_ns"), absl::StrCat(n, "(us)"), CellType::kDuration});
    }
  };
  auto duration_cells = [](const PercentileSketch& s, std::vector<std::string>* row) {
    row->push_back(Num(s.min()));
    row->push_back(Num(s.mean()));
    row->push_back(Num(s.Quantile(0.50)));
    row->push_back(Num(s.Quantile(0.90)));
    row->push_back(Num(s.Quantile(0.99)));
    row->push_back(Num(s.max()));
  };

  // Losses first.
  {
    Section s;
    s.name = "losses";
    s.columns = {{"tid", "tid", CellType::kNumber},
                 {"thread", "thread", CellType::kText},
                 {"thread_index", "index", CellType::kNumber},
                 {"cause", "cause", CellType::kText},
                 {"dropped", "dropped", CellType::kNumber}};
    std::vector<std::pair<uint64_t, uint64_t>> losses;
    for (const auto& [key, n] : x_.losses.entries()) {
      if (n != 0) losses.emplace_back(key, n);
    }
    std::sort(losses.begin(), losses.end());
    for (const auto& [key, n] : losses) {
      const uint32_t ti = static_cast<uint32_t>(key >> 8);
      const ThreadRec* t = x_.Thread(ti);
      s.AddRow({Num(t != nullptr ? t->tid : 0), t != nullptr ? t->name : "", Num(ti),
                format::LossCauseName(key & 0xff), Num(n)});
    }
    out.push_back(std::move(s));
  }
  {
    Section s;
    s.name = "damage";
    s.columns = {{"kind", "kind", CellType::kText},
                 {"offset", "offset", CellType::kNumber},
                 {"bytes", "bytes", CellType::kNumber},
                 {"reason", "reason", CellType::kText}};
    for (const Problem& p : x_.problems) {
      s.AddRow({p.kind == Problem::Kind::kCorrupt ? "corrupt" : "truncated", Num(p.offset),
                Num(p.bytes), p.reason});
    }
    out.push_back(std::move(s));
  }
  {
    Section s;
    s.name = "unbalanced";
    s.columns = {{"what", "what", CellType::kText}, {"count", "count", CellType::kNumber}};
    const Unbalanced& u = tracker_.unbalanced();
    if (u.end_without_begin != 0) {
      s.AddRow({"end_without_begin", Num(u.end_without_begin)});
    }
    if (u.open_at_end != 0) s.AddRow({"open_at_end", Num(u.open_at_end)});
    if (u.frame_end_without_begin != 0) {
      s.AddRow({"frame_end_without_begin", Num(u.frame_end_without_begin)});
    }
    if (u.frames_open_at_end != 0) {
      s.AddRow({"frames_open_at_end", Num(u.frames_open_at_end)});
    }
    out.push_back(std::move(s));
  }

  // Tasks, by total time (largest first), then domain, name, kind.
  for (int pass = 0; pass < (per_thread_ ? 2 : 1); ++pass) {
    const bool by_thread = pass == 1;
    Section s;
    s.name = by_thread ? "thread_tasks" : "tasks";
    if (by_thread) {
      s.columns = {{"tid", "tid", CellType::kNumber}, {"thread", "thread", CellType::kText}};
    }
    for (const Column& c : std::vector<Column>{{"domain", "domain", CellType::kText},
                                               {"name", "name", CellType::kText},
                                               {"kind", "kind", CellType::kText},
                                               {"count", "count", CellType::kNumber},
                                               {"total_ns", "total(us)", CellType::kDuration},
                                               {"self_ns", "self(us)", CellType::kDuration}}) {
      s.columns.push_back(c);
    }
    duration_columns(&s.columns);
    std::vector<const TaskRow*> rows;
    for (const auto& r : tasks_) {
      if ((r->thread != kAllThreads) == by_thread) rows.push_back(r.get());
    }
    auto domain_of = [&](const TaskRow* r) { return x_.Domain(r->domain); };
    auto tid_of = [&](const TaskRow* r) -> uint64_t {
      const ThreadRec* t = x_.Thread(static_cast<uint32_t>(r->thread));
      return t != nullptr ? t->tid : 0;
    };
    std::sort(rows.begin(), rows.end(), [&](const TaskRow* a, const TaskRow* b) {
      if (by_thread && tid_of(a) != tid_of(b)) {
        return tid_of(a) < tid_of(b);
      }
      if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns;
      const auto da = domain_of(a);
      const auto db = domain_of(b);
      if (da != db) return da < db;
      if (a->name != b->name) return a->name < b->name;
      return a->kind < b->kind;
    });
    for (const TaskRow* r : rows) {
      std::vector<std::string> row;
      if (by_thread) {
        const ThreadRec* t = x_.Thread(static_cast<uint32_t>(r->thread));
        row.push_back(Num(t != nullptr ? t->tid : 0));
        row.push_back(t != nullptr ? t->name : "");
      }
      row.push_back(std::string(domain_of(r)));
      row.push_back(r->name);
      row.push_back(IntervalKindName(static_cast<IntervalKind>(r->kind)));
      row.push_back(Num(r->sketch.count()));
      row.push_back(Num(r->total_ns));
      row.push_back(Num(r->self_ns));
      duration_cells(r->sketch, &row);
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
    duration_columns(&s.columns);
    std::vector<const FrameRow*> rows;
    for (const auto& [id, f] : frames_.entries()) rows.push_back(f.get());
    std::sort(rows.begin(), rows.end(), [&](const FrameRow* a, const FrameRow* b) {
      return x_.Domain(a->domain) != x_.Domain(b->domain)
                 ? x_.Domain(a->domain) < x_.Domain(b->domain)
                 : a->domain < b->domain;
    });
    for (const FrameRow* f : rows) {
      const int64_t span = x_.clock.DurationNs(f->first_begin, f->last_end);
      const double rate =
          span > 0 ? static_cast<double>(f->sketch.count()) * 1e9 / static_cast<double>(span) : 0.0;
      std::vector<std::string> row = {std::string(x_.Domain(f->domain)), Num(f->sketch.count()),
                                      absl::StrFormat("%.3f", rate)};
      duration_cells(f->sketch, &row);
      s.AddRow(std::move(row));
    }
    out.push_back(std::move(s));
  }

  {
    Section s;
    s.name = "counters";
    s.columns = {{"domain", "domain", CellType::kText},     {"name", "name", CellType::kText},
                 {"samples", "samples", CellType::kNumber}, {"min", "min", CellType::kNumber},
                 {"max", "max", CellType::kNumber},         {"last", "last", CellType::kNumber}};
    std::vector<const Counter*> rows;
    for (const auto& c : counter_tracker_.counters()) {
      if (c->index < counter_rows_.size() && counter_rows_[c->index].samples != 0) {
        rows.push_back(c.get());
      }
    }
    std::sort(rows.begin(), rows.end(), [](const Counter* a, const Counter* b) {
      return std::tie(a->domain, a->name, a->key_kind, a->a, a->b) <
             std::tie(b->domain, b->name, b->key_kind, b->a, b->b);
    });
    for (const Counter* c : rows) {
      const CounterRow& r = counter_rows_[c->index];
      s.AddRow({c->domain, c->name, Num(r.samples), Real(r.min), Real(r.max), Real(r.last)});
    }
    out.push_back(std::move(s));
  }

  {
    Section s;
    s.name = "sync";
    s.columns = {{"addr", "addr", CellType::kText},
                 {"type", "type", CellType::kText},
                 {"name", "name", CellType::kText},
                 {"acquisitions", "acquired", CellType::kNumber},
                 {"cancels", "cancels", CellType::kNumber},
                 {"total_wait_ns", "total_wait(us)", CellType::kDuration},
                 {"max_wait_ns", "max_wait(us)", CellType::kDuration}};
    std::vector<const SyncRow*> rows;
    for (const auto& [addr, r] : sync_.entries()) {
      if (r->used) rows.push_back(r.get());
    }
    std::sort(rows.begin(), rows.end(),
              [](const SyncRow* a, const SyncRow* b) { return a->addr < b->addr; });
    for (const SyncRow* r : rows) {
      const SyncObject* o = sync_tracker_.objects().Find(r->addr);
      s.AddRow({absl::StrFormat("0x%x", r->addr), std::string(x_.String(o->type_id)),
                std::string(x_.String(o->name_id)), Num(r->acquisitions), Num(r->cancels),
                Num(r->total_wait_ns), Num(r->max_wait_ns)});
    }
    out.push_back(std::move(s));
  }

  {
    Section s;
    s.name = "heap";
    s.columns = {{"function", "function", CellType::kText},
                 {"domain", "domain", CellType::kText},
                 {"allocations", "allocs", CellType::kNumber},
                 {"reallocations", "reallocs", CellType::kNumber},
                 {"frees", "frees", CellType::kNumber},
                 {"bytes", "bytes", CellType::kNumber},
                 {"peak_live_bytes", "peak_live", CellType::kNumber}};
    std::vector<const HeapRow*> rows;
    for (const auto& [fn, r] : heap_.entries()) {
      if (r->used) rows.push_back(r.get());
    }
    std::sort(rows.begin(), rows.end(),
              [](const HeapRow* a, const HeapRow* b) { return a->function < b->function; });
    for (const HeapRow* r : rows) {
      const HeapFunctionDef* def = x_.heap_functions.Find(r->function);
      s.AddRow({def != nullptr ? def->name : absl::StrCat("function#", r->function),
                def != nullptr ? def->domain_name : "", Num(r->allocations), Num(r->reallocs),
                Num(r->frees), Num(r->bytes), Num(r->peak)});
    }
    out.push_back(std::move(s));
  }

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
  return out;
}

absl::Status RunStats(const VerbContext& ctx, const StatsOptions& options) {
  absl::StatusOr<std::unique_ptr<format::TraceReader>> reader = OpenForPass(*ctx.source);
  if (!reader.ok()) return reader.status();
  EventMerger merger(*ctx.index, reader->get(), ctx.merge);
  StatsCollector stats(*ctx.index, ctx.filter, options.per_thread);
  const Event* e;
  const ThreadRec* t;
  uint64_t last = 0;
  while (merger.Next(&e, &t)) {
    stats.OnEvent(*e, *t);
    last = std::max(last, e->time);
  }
  stats.Finish(TraceEndTicks(*ctx.index, last));
  const std::vector<Section> sections = stats.Sections();
  std::string text;
  switch (options.format) {
    case ReportFormat::kTable:
      absl::StrAppend(&text, "trace ", ctx.index->name, ": ", merger.events(), " events\n\n");
      RenderTable(sections, &text);
      break;
    case ReportFormat::kCsv:
      RenderCsv(sections, &text);
      break;
    case ReportFormat::kJson: {
      std::string prefix = "\"trace\":";
      AppendJsonString(&prefix, ctx.index->name);
      absl::StrAppend(&prefix, ",\"events\":", merger.events(), ",");
      RenderJson(sections, prefix, &text);
      break;
    }
  }
  ctx.out->Write(text);
  ctx.out->Flush();
  WarnMerge(ctx, merger);
  return absl::OkStatus();
}

}  // namespace itt_dump
}  // namespace ittc
