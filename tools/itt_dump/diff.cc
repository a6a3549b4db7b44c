#include "tools/itt_dump/diff.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/itt_dump/model/values.h"
#include "tools/itt_dump/stats.h"

namespace ittc {
namespace itt_dump {
namespace {

// One trace's side of a row: the cells of the family's side columns and the
// numbers the comparison uses.
struct Side {
  std::vector<std::string> cells;
  uint64_t count = 0;   // what --min-count looks at
  uint64_t total = 0;   // orders new and gone rows
  uint64_t metric = 0;  // what change_pct compares
};

// One trace's rows of a family, by their key cells (the family's
// key_columns), which may be followed by cells that tell apart rows whose
// shown cells are equal (not shown).
using Rows = std::map<std::vector<std::string>, Side>;

// A section of the report: the columns that name a row, and those each
// side shows (written once; the section has them as "base.KEY" and
// "new.KEY").
struct Family {
  std::string name;
  std::vector<Column> key_columns;
  std::vector<Column> side_columns;
  std::string change_title;  // table title of change_pct
};

enum class RowStatus { kBoth, kNew, kGone };

const char* StatusName(RowStatus s) {
  switch (s) {
    case RowStatus::kBoth:
      return "both";
    case RowStatus::kNew:
      return "new";
    case RowStatus::kGone:
      return "gone";
  }
  return "";
}

struct Joined {
  const std::vector<std::string>* key = nullptr;
  const Side* base = nullptr;  // null for new rows
  const Side* next = nullptr;  // null for gone rows
  RowStatus status = RowStatus::kBoth;
  // Growth of the metric in percent; unset when the base metric is 0 (then
  // `unbounded` says whether it grew from 0).
  std::optional<double> change;
  bool unbounded = false;

  // The growth that --fail-above and the order compare: +infinity when
  // unbounded.
  double Growth() const {
    if (unbounded) return std::numeric_limits<double>::infinity();
    return change.value_or(0.0);
  }
};

// The rows of both traces, joined by key, without those under
// `min_count` on both sides, in report order.
std::vector<Joined> Join(const Rows& base, const Rows& next, uint64_t min_count) {
  std::vector<Joined> out;
  auto rare = [min_count](const Side* s) { return s == nullptr || s->count < min_count; };
  auto add = [&](const std::vector<std::string>& key, const Side* b, const Side* n) {
    if (rare(b) && rare(n)) return;
    Joined j;
    j.key = &key;
    j.base = b;
    j.next = n;
    j.status = b == nullptr ? RowStatus::kNew : n == nullptr ? RowStatus::kGone : RowStatus::kBoth;
    if (j.status == RowStatus::kBoth) {
      if (b->metric != 0) {
        j.change = (static_cast<double>(n->metric) - static_cast<double>(b->metric)) * 100.0 /
                   static_cast<double>(b->metric);
      } else if (n->metric == 0) {
        j.change = 0.0;
      } else {
        j.unbounded = true;
      }
    }
    out.push_back(j);
  };
  for (const auto& [key, b] : base) {
    auto it = next.find(key);
    add(key, &b, it != next.end() ? &it->second : nullptr);
  }
  for (const auto& [key, n] : next) {
    if (base.count(key) == 0) add(key, nullptr, &n);
  }
  // Both first, the largest growth first; then new, then gone; ties by the
  // larger total, then by key.
  std::sort(out.begin(), out.end(), [](const Joined& a, const Joined& b) {
    if (a.status != b.status) return a.status < b.status;
    if (a.status == RowStatus::kBoth && a.Growth() != b.Growth()) return a.Growth() > b.Growth();
    const uint64_t ta = (a.next != nullptr ? a.next : a.base)->total;
    const uint64_t tb = (b.next != nullptr ? b.next : b.base)->total;
    if (ta != tb) return ta > tb;
    return *a.key < *b.key;
  });
  return out;
}

std::string Percent(double v) {
  std::string s = absl::StrFormat("%.1f", v);
  return s == "-0.0" ? "0.0" : s;
}

Section ToSection(const Family& f, const std::vector<Joined>& rows) {
  Section s;
  s.name = f.name;
  s.columns = f.key_columns;
  s.columns.push_back({"status", "status", CellType::kText});
  for (const char* side : {"base", "new"}) {
    for (const Column& c : f.side_columns) {
      std::string title = absl::StrCat(side, "_", c.title);
      s.columns.push_back({absl::StrCat(side, ".", c.key), std::move(title), c.type});
    }
  }
  s.columns.push_back({"change_pct", f.change_title, CellType::kNumber});
  for (const Joined& j : rows) {
    std::vector<std::string> row(j.key->begin(), j.key->begin() + f.key_columns.size());
    row.push_back(StatusName(j.status));
    for (const Side* side : {j.base, j.next}) {
      for (size_t i = 0; i < f.side_columns.size(); ++i) {
        row.push_back(side != nullptr ? side->cells[i] : "");
      }
    }
    row.push_back(j.change.has_value() ? Percent(*j.change) : "");
    s.AddRow(std::move(row));
  }
  return s;
}

const Family& TaskFamily() {
  static const Family* f = new Family{"tasks",
                                      {{"domain", "domain", CellType::kText},
                                       {"name", "name", CellType::kText},
                                       {"kind", "kind", CellType::kText}},
                                      {{"count", "count", CellType::kNumber},
                                       {"total_ns", "total(us)", CellType::kDuration},
                                       {"p50_ns", "p50(us)", CellType::kDuration},
                                       {"p99_ns", "p99(us)", CellType::kDuration}},
                                      "p50_change(%)"};
  return *f;
}

const Family& FrameFamily() {
  static const Family* f = new Family{"frames",
                                      {{"domain", "domain", CellType::kText}},
                                      {{"count", "count", CellType::kNumber},
                                       {"rate_hz", "rate(Hz)", CellType::kNumber},
                                       {"p50_ns", "p50(us)", CellType::kDuration}},
                                      "p50_change(%)"};
  return *f;
}

const Family& SyncFamily() {
  static const Family* f =
      new Family{"sync",
                 {{"type", "type", CellType::kText}, {"name", "name", CellType::kText}},
                 {{"acquisitions", "acquired", CellType::kNumber},
                  {"total_wait_ns", "total_wait(us)", CellType::kDuration},
                  {"mean_wait_ns", "mean_wait(us)", CellType::kDuration},
                  {"max_wait_ns", "max_wait(us)", CellType::kDuration}},
                 "mean_wait_change(%)"};
  return *f;
}

// Tasks by (domain, name, kind), a task_begin_fn row by its function's
// name without addresses (TaskSummary::match_name) where no other row of
// the trace has that name too: else each keeps its full name. Rows those
// cells do not tell apart: a task without a name from one named "" (a
// hidden cell), and beyond that by their order in stats' (the largest
// total first: *ambiguous counts those rows, each matched by that order).
Rows TaskRows(const StatsCollector& stats, uint64_t* ambiguous) {
  const std::vector<TaskSummary> tasks = stats.Tasks();
  std::map<std::vector<std::string>, int> matching;
  for (const TaskSummary& t : tasks) ++matching[{t.domain, t.match_name, t.kind}];
  std::map<std::vector<std::string>, int> seen;
  Rows rows;
  for (const TaskSummary& t : tasks) {
    const bool alone = matching[{t.domain, t.match_name, t.kind}] == 1;
    std::vector<std::string> key = {t.domain, alone ? t.match_name : t.name, t.kind,
                                    t.named ? "named" : "unnamed"};
    const int before = seen[key]++;
    if (before != 0) ++*ambiguous;
    key.push_back(absl::StrCat(before));
    Side& s = rows[std::move(key)];
    s.cells = {absl::StrCat(t.count), absl::StrCat(t.total_ns), absl::StrCat(t.durations.p50_ns),
               absl::StrCat(t.durations.p99_ns)};
    s.count = t.count;
    s.total = t.total_ns;
    s.metric = t.durations.p50_ns;
  }
  return rows;
}

Rows FrameRows(const StatsCollector& stats) {
  Rows rows;
  for (const FrameSummary& f : stats.Frames()) {
    Side& s = rows[{f.domain}];
    s.cells = {absl::StrCat(f.count), absl::StrFormat("%.3f", f.rate_hz),
               absl::StrCat(f.durations.p50_ns)};
    s.count = f.count;
    s.total = f.count;
    s.metric = f.durations.p50_ns;
  }
  return rows;
}

// Objects are summed by (type, name): their addresses differ between runs.
Rows SyncRows(const StatsCollector& stats) {
  struct Sum {
    uint64_t acquisitions = 0;
    uint64_t total_wait_ns = 0;
    uint64_t max_wait_ns = 0;
  };
  std::map<std::vector<std::string>, Sum> sums;
  for (const SyncSummary& o : stats.SyncObjects()) {
    Sum& sum = sums[{o.type, o.name}];
    sum.acquisitions += o.acquisitions;
    sum.total_wait_ns += o.total_wait_ns;
    sum.max_wait_ns = std::max(sum.max_wait_ns, o.max_wait_ns);
  }
  Rows rows;
  for (const auto& [key, sum] : sums) {
    Side& s = rows[key];
    const uint64_t mean = sum.acquisitions == 0 ? 0 : sum.total_wait_ns / sum.acquisitions;
    s.cells = {absl::StrCat(sum.acquisitions), absl::StrCat(sum.total_wait_ns), absl::StrCat(mean),
               absl::StrCat(sum.max_wait_ns)};
    s.count = sum.acquisitions;
    s.total = sum.total_wait_ns;
    s.metric = mean;
  }
  return rows;
}

}  // namespace

absl::Status RunDiff(const VerbContext& base, const VerbContext& next, const DiffOptions& options,
                     bool* regressed) {
  *regressed = false;
  std::unique_ptr<StatsCollector> base_collector;
  absl::StatusOr<PassSummary> base_pass = CollectStats(base, StatsOptions(), &base_collector);
  if (!base_pass.ok()) return base_pass.status();
  std::unique_ptr<StatsCollector> next_collector;
  absl::StatusOr<PassSummary> next_pass = CollectStats(next, StatsOptions(), &next_collector);
  if (!next_pass.ok()) return next_pass.status();
  const StatsCollector& base_stats = *base_collector;
  const StatsCollector& next_stats = *next_collector;

  // Rows and the joins that point into them live until the report is out.
  uint64_t ambiguous = 0;
  const Rows base_tasks = TaskRows(base_stats, &ambiguous);
  const Rows next_tasks = TaskRows(next_stats, &ambiguous);
  const Rows base_frames = FrameRows(base_stats);
  const Rows next_frames = FrameRows(next_stats);
  const Rows base_sync = SyncRows(base_stats);
  const Rows next_sync = SyncRows(next_stats);
  const std::vector<Joined> tasks = Join(base_tasks, next_tasks, options.min_count);
  const std::vector<Section> sections = {
      ToSection(TaskFamily(), tasks),
      ToSection(FrameFamily(), Join(base_frames, next_frames, options.min_count)),
      ToSection(SyncFamily(), Join(base_sync, next_sync, options.min_count))};

  std::string prefix = "\"base_trace\":";
  AppendJsonString(&prefix, base.index->name);
  absl::StrAppend(&prefix, ",\"base_events\":", base_pass->events, ",\"new_trace\":");
  AppendJsonString(&prefix, next.index->name);
  absl::StrAppend(&prefix, ",\"new_events\":", next_pass->events, ",");
  std::string text;
  RenderReport(sections, options.format,
               absl::StrCat("base ", base.index->name, ": ", base_pass->events, " events\nnew  ",
                            next.index->name, ": ", next_pass->events, " events"),
               prefix, &text);
  base.out->Write(text);
  base.out->Flush();
  if (ambiguous != 0 && base.err != nullptr) {
    base.err->Write(absl::StrCat("itt-dump: ", ambiguous,
                                 " task rows have the domain, name and kind of another row of "
                                 "their trace; such rows are matched in order of total time\n"));
    base.err->Flush();
  }
  const absl::Status base_cut = WarnMerge(base, *base_pass);
  const absl::Status next_cut = WarnMerge(next, *next_pass);
  if (!base_cut.ok()) return base_cut;
  if (!next_cut.ok()) return next_cut;

  if (options.fail_above_pct.has_value()) {
    const double limit = *options.fail_above_pct;
    uint64_t over = 0;
    for (const Joined& j : tasks) {
      if (j.status == RowStatus::kBoth && j.Growth() > limit) ++over;
    }
    if (over != 0) {
      *regressed = true;
      // Rows are sorted by growth: the first grew most.
      const Joined& worst = tasks.front();
      if (base.err != nullptr) {
        base.err->Write(absl::StrCat(
            "itt-dump: ", over, over == 1 ? " task's" : " tasks'", " p50 grew by more than ",
            absl::StrFormat("%g", limit), "%; the most: ",
            absl::StrJoin(worst.key->begin(), worst.key->begin() + TaskFamily().key_columns.size(),
                          " "),
            " ",
            worst.change.has_value() ? absl::StrCat("+", Percent(*worst.change), "%") : "from 0",
            "\n"));
        base.err->Flush();
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace itt_dump
}  // namespace ittc
