// Sync waits and heap allocations from the model's trackers, and the
// sync and heap sections.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/values.h"
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

StatsCollector::SyncRow* StatsCollector::SyncRowFor(uint64_t addr, uint32_t process) {
  std::unique_ptr<SyncRow>& r = sync_[addr];
  if (!r) {
    r = std::make_unique<SyncRow>();
    r->addr = addr;
    r->process = process;
  }
  return r.get();
}

bool StatsCollector::SyncKept(const Event& e, const ThreadRec& t) {
  return !filter_.active() ||
         !(filter_.has_domain() || !filter_.ThreadOk(t) || !filter_.TimeOk(e.time));
}

void StatsCollector::OnSync(const Event& e, const ThreadRec& t) {
  SyncChange c;
  // Names follow every create and rename; waits only the events the
  // filters keep.
  if (e.kind == EventKind::kSyncCreate || e.kind == EventKind::kSyncRename) {
    sync_tracker_.OnEvent(e, t, &c);
    SyncRowFor(e.Get(F::kAddr), t.process);
    return;
  }
  // Every wait is paired (an acquisition whose prepare the filters drop
  // still waited that long); the events the filters keep are counted.
  if (!sync_tracker_.OnEvent(e, t, &c)) return;
  if (!filter_.KeepsWait(t, c.object->name_id, e.time)) return;
  AddSync(c, c.object->addr, t, e.time);
}

void StatsCollector::AddSync(const SyncChange& c, uint64_t addr, const ThreadRec& t,
                             uint64_t ticks) {
  SyncRow* row = SyncRowFor(addr, t.process);
  row->used = true;
  switch (c.kind) {
    case SyncChange::Kind::kAcquired:
      ++row->acquisitions;
      if (c.closes_wait) AddWait(row, c.wait_begin, ticks);
      break;
    case SyncChange::Kind::kCancel:
      ++row->cancels;
      break;
    default:
      break;
  }
}

bool StatsCollector::TakesForwarded(EventKind kind) const {
  return keep_apart_ &&
         (kind == EventKind::kSyncPrepare || kind == EventKind::kSyncAcquired ||
          kind == EventKind::kSyncCancel) &&
         !filter_.has_name();
}

void StatsCollector::OnPairedEvent(const Event& e, const ThreadRec& t) {
  // A piece's sync wait event (TakesForwarded): a wait whose prepare is
  // in an earlier piece is closed by MergeSyncWaits.
  SyncChange c;
  bool outer = false;
  if (!piece_waits_.OnEvent(e, t, &c, &outer)) return;
  if (!SyncKept(e, t)) {
    // Paired, not counted: nor is the wait it may close at the join.
    if (outer) piece_waits_.UncountLastOuter();
    return;
  }
  AddSync(c, e.Get(F::kAddr), t, e.time);
}

void StatsCollector::MergeSyncWaits(const StatsCollector& piece) {
  for (const auto& [addr, from] : piece.sync_.entries()) {
    SyncRow* row = SyncRowFor(addr, from->process);
    row->acquisitions += from->acquisitions;
    row->cancels += from->cancels;
    row->total_wait_ns += from->total_wait_ns;
    row->max_wait_ns = std::max(row->max_wait_ns, from->max_wait_ns);
    row->used = row->used || from->used;
  }
  sync_tracker_.JoinWaits(piece.piece_waits_,
                          [this](const SyncWaitStretch::Close& c, uint64_t begin) {
                            // A cancel adds no wait; a close the filters
                            // drop counts none.
                            if (!c.acquired || !c.counted) return;
                            // Its row and acquisition are the piece's: the wait only.
                            AddWait(SyncRowFor(c.addr, c.process), begin, c.time);
                          });
}

void StatsCollector::AddWait(SyncRow* row, uint64_t begin, uint64_t end) {
  const int64_t d = clock_.DurationNs(begin, end);
  const uint64_t wait = d > 0 ? static_cast<uint64_t>(d) : 0;
  row->total_wait_ns += wait;
  row->max_wait_ns = std::max(row->max_wait_ns, wait);
}

StatsCollector::HeapRow* StatsCollector::HeapRowFor(uint64_t function) {
  std::unique_ptr<HeapRow>& r = heap_[function];
  if (!r) {
    r = std::make_unique<HeapRow>();
    r->function = function;
  }
  return r.get();
}

bool StatsCollector::HeapKept(const Event& e, const ThreadRec& t) {
  return !filter_.active() || (filter_.ThreadOk(t) && filter_.TimeOk(e.time) &&
                               filter_.HeapFunctionOk(e.Get(F::kFunction)));
}

void StatsCollector::CountHeap(const HeapChange& c) {
  HeapRow* row = HeapRowFor(c.function);
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
}

void StatsCollector::OnHeap(const Event& e, const ThreadRec& t) {
  // Every call is paired and live bytes follow every call (a block freed
  // outside the filters is freed); the calls the filters keep are counted,
  // and the peak is taken at their allocations.
  const bool kept = HeapKept(e, t);
  HeapChange c;
  if (!heap_tracker_.OnEvent(e, t, &c)) return;
  if (kept) CountHeap(c);
  auto release = [&](const Allocation& block) {
    HeapRow* owner = HeapRowFor(block.function);
    owner->live -= std::min(owner->live, block.size);
  };
  if (c.released) release(c.released_block);
  if (c.replaced) release(c.replaced_block);
  if (c.allocated) {
    HeapRow* row = HeapRowFor(c.function);
    row->live += c.size;
    if (kept) row->peak = std::max(row->peak, row->live);
  }
}

std::vector<SyncSummary> StatsCollector::SyncObjects() const {
  std::vector<const SyncRow*> rows;
  for (const auto& [addr, r] : sync_.entries()) {
    if (r->used) rows.push_back(r.get());
  }
  std::sort(rows.begin(), rows.end(),
            [](const SyncRow* a, const SyncRow* b) { return a->addr < b->addr; });
  std::vector<SyncSummary> out;
  out.reserve(rows.size());
  for (const SyncRow* r : rows) {
    const SyncObject* o = sync_tracker_.objects().Find(r->addr);
    SyncSummary s;
    s.addr = UntagAddress(r->addr, r->process);  // as the process saw it
    s.type = std::string(x_.String(o->type_id));
    s.name = std::string(x_.String(o->name_id));
    s.acquisitions = r->acquisitions;
    s.cancels = r->cancels;
    s.total_wait_ns = r->total_wait_ns;
    s.max_wait_ns = r->max_wait_ns;
    out.push_back(std::move(s));
  }
  return out;
}

void StatsCollector::SyncHeapSections(std::vector<Section>* sections) const {
  std::vector<Section>& out = *sections;
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
    for (const SyncSummary& r : SyncObjects()) {
      s.AddRow({HexText(r.addr), r.type, r.name, Num(r.acquisitions), Num(r.cancels),
                Num(r.total_wait_ns), Num(r.max_wait_ns)});
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
}

}  // namespace itt_dump
}  // namespace ittc
