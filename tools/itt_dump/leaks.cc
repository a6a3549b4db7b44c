#include "tools/itt_dump/leaks.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/filter.h"
#include "tools/itt_dump/model/heap.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/symbols.h"
#include "tools/itt_dump/model/values.h"

namespace ittc::itt_dump {
namespace {

using format::Event;

// The allocation a block comes from (a reallocation's block: the first
// allocation of the blocks it moved), the task it was made in, and
// whether the filters select it.
struct Where {
  Allocation first;                   // its function, thread and time
  uint64_t name_id = 0;               // kDefString id of the task's name
  uint64_t fn = 0;                    // or task_begin_fn's function,
  const ThreadRec* thread = nullptr;  // called by this thread
  uint64_t begin = 0;                 // at this time
  bool has_task = false;
  bool selected = false;
};

// Listens to the pairing engine only for its open-task stacks.
class NoIntervals : public IntervalListener {
 public:
  void OnInterval(const Interval&) override {}
};

class LeakFinder {
 public:
  explicit LeakFinder(const VerbContext& ctx)
      : ctx_(ctx), x_(*ctx.index), filter_(ctx.filter, x_), tasks_(x_, &no_intervals_) {
    tasks_.set_collect_args(false);
  }

  void OnCut(const ThreadRec& t, uint64_t ticks) { tasks_.CutThread(t, ticks); }
  void OnEvent(const Event& e, const ThreadRec& t) {
    if (!IsHeapChangeKind(e.kind)) {
      tasks_.OnEvent(e, t);
      return;
    }
    HeapChange c;
    if (!heap_.OnEvent(e, t, &c)) return;
    Where moved;  // a reallocated block keeps where it was first allocated
    if (c.released) moved = Release(c.released_block.addr, c.released_block.size);
    if (c.replaced) Release(c.replaced_block.addr, c.replaced_block.size);
    if (!c.allocated) return;
    const Allocation& a = c.allocated_block;
    Where w;
    if (c.kind == HeapChange::Kind::kReallocate && c.released && moved.first.thread != nullptr) {
      w = moved;
    } else {
      w.first = a;
      if (const Interval* task = tasks_.InnermostTask(t)) {
        w.has_task = true;
        w.name_id = task->name_id;
        w.fn = task->fn;
        w.thread = task->thread;
        w.begin = task->begin;
      }
    }
    w.selected = Selected(w.first);
    where_[a.addr] = w;
    if (w.selected) {
      live_ += a.size;
      if (live_ > peak_) {
        peak_ = live_;
        peak_ticks_ = e.time;
      }
    }
  }

  void Report(const LeaksOptions& options, uint64_t events) {
    // Leaks in allocation order (then address): the order they happened.
    std::vector<const Allocation*> leaks;
    for (const auto& [addr, a] : heap_.live()) {
      auto it = where_.find(addr);
      if (it != where_.end() && it->second.selected) leaks.push_back(&a);
    }
    std::sort(leaks.begin(), leaks.end(), [this](const Allocation* a, const Allocation* b) {
      return std::make_pair(WhereOf(*a).first.ticks, a->addr) <
             std::make_pair(WhereOf(*b).first.ticks, b->addr);
    });
    uint64_t bytes = 0;
    for (const Allocation* a : leaks) bytes += a->size;

    std::vector<Section> sections;
    if (options.group) {
      sections.push_back(Groups(leaks));
    } else {
      sections.push_back(Leaks(leaks));
    }
    const int64_t peak_ns = peak_ == 0 ? 0 : x_.clock.SinceStartNs(peak_ticks_);
    Section summary;
    summary.name = "summary";
    summary.columns = {{"leaked_count", "leaked", CellType::kNumber},
                       {"leaked_bytes", "bytes", CellType::kNumber},
                       {"peak_live_bytes", "peak live bytes", CellType::kNumber},
                       {"peak_time_ns", "peak at(us)", CellType::kDuration},
                       {"unknown_frees", "unknown frees", CellType::kNumber},
                       {"untracked_allocations", "untracked", CellType::kNumber}};
    summary.AddRow({absl::StrCat(leaks.size()), absl::StrCat(bytes), absl::StrCat(peak_),
                    absl::StrCat(peak_ns), absl::StrCat(heap_.unknown_frees()),
                    absl::StrCat(heap_.untracked_allocations())});
    sections.push_back(std::move(summary));

    std::string prefix = "\"trace\":";
    AppendJsonString(&prefix, x_.name);
    absl::StrAppend(&prefix, ",\"events\":", events, ",\"leaked_count\":", leaks.size(),
                    ",\"leaked_bytes\":", bytes, ",\"peak_live_bytes\":", peak_,
                    ",\"peak_time_ns\":", peak_ns, ",");
    std::string text;
    RenderReport(
        sections, options.format,
        absl::StrCat("trace ", x_.name, ": ", leaks.size(), " blocks leaked, ", bytes, " bytes"),
        prefix, &text);
    ctx_.out->Write(text);
  }

 private:
  // Forgets the block at `addr`; returns where it had been allocated.
  Where Release(uint64_t addr, uint64_t size) {
    auto it = where_.find(addr);
    if (it == where_.end()) return Where();
    const Where w = it->second;
    if (w.selected) live_ -= std::min(live_, size);
    where_.erase(it);
    return w;
  }

  bool Selected(const Allocation& a) {
    return !filter_.active() || (filter_.ThreadOk(*a.thread) && filter_.TimeOk(a.ticks) &&
                                 filter_.HeapFunctionOk(a.function));
  }

  std::string TaskName(const Where& w) const {
    if (!w.has_task) return "";
    if (w.fn != 0) return FunctionName(x_, w.thread, w.fn, w.begin);
    return std::string(x_.String(w.name_id));
  }
  const Where& WhereOf(const Allocation& a) const { return where_.at(a.addr); }

  Section Leaks(const std::vector<const Allocation*>& leaks) const {
    Section s;
    s.name = "leaks";
    s.columns = {
        {"address", "address", CellType::kText},   {"size", "size", CellType::kNumber},
        {"function", "function", CellType::kText}, {"domain", "domain", CellType::kText},
        {"tid", "tid", CellType::kNumber},         {"time_ns", "time(us)", CellType::kDuration},
        {"task", "task", CellType::kText}};
    for (const Allocation* a : leaks) {
      const Where& w = WhereOf(*a);
      const HeapFunctionDef* def = x_.heap_functions.Find(w.first.function);
      s.AddRow({HexText(UntagAddress(a->addr, a->thread->process)), absl::StrCat(a->size),
                def != nullptr ? def->name : "", def != nullptr ? def->domain_name : "",
                absl::StrCat(w.first.thread->tid),
                absl::StrCat(x_.clock.SinceStartNs(w.first.ticks)), TaskName(w)});
    }
    return s;
  }

  Section Groups(const std::vector<const Allocation*>& leaks) const {
    // (function, task) -> (count, bytes)
    std::map<std::pair<uint64_t, std::string>, std::pair<uint64_t, uint64_t>> groups;
    for (const Allocation* a : leaks) {
      const Where& w = WhereOf(*a);
      auto& g = groups[{w.first.function, TaskName(w)}];
      ++g.first;
      g.second += a->size;
    }
    std::vector<std::pair<std::pair<uint64_t, std::string>, std::pair<uint64_t, uint64_t>>> rows(
        groups.begin(), groups.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.second.second > b.second.second;
    });
    Section s;
    s.name = "leak_groups";
    s.columns = {{"function", "function", CellType::kText},
                 {"domain", "domain", CellType::kText},
                 {"task", "task", CellType::kText},
                 {"count", "count", CellType::kNumber},
                 {"bytes", "bytes", CellType::kNumber}};
    for (const auto& [key, value] : rows) {
      const HeapFunctionDef* def = x_.heap_functions.Find(key.first);
      s.AddRow({def != nullptr ? def->name : "", def != nullptr ? def->domain_name : "", key.second,
                absl::StrCat(value.first), absl::StrCat(value.second)});
    }
    return s;
  }

  const VerbContext& ctx_;
  const TraceIndex& x_;
  Filter filter_;
  NoIntervals no_intervals_;
  IntervalTracker tasks_;
  HeapTracker heap_;
  std::unordered_map<uint64_t, Where> where_;  // by live block address
  uint64_t live_ = 0;
  uint64_t peak_ = 0;
  uint64_t peak_ticks_ = 0;
};

}  // namespace

absl::Status RunLeaks(const VerbContext& ctx, const LeaksOptions& options) {
  LeakFinder finder(ctx);
  absl::StatusOr<PassSummary> pass = ForEachEvent(
      ctx, [&](const Event& e, const ThreadRec& t) { finder.OnEvent(e, t); },
      [&](const ThreadRec& t, uint64_t ticks) { finder.OnCut(t, ticks); });
  if (!pass.ok()) return pass.status();
  finder.Report(options, pass->events);
  ctx.out->Flush();
  return WarnMerge(ctx, *pass);
}

}  // namespace ittc::itt_dump
