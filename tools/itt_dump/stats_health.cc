// The sections about the trace itself: losses, damage, unbalanced
// begin/end pairs.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

void StatsCollector::HealthSections(std::vector<Section>* sections) const {
  std::vector<Section>& out = *sections;
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
    for (const std::vector<Problem>* problems : {&x_.problems, &pass_damage_}) {
      for (const Problem& p : *problems) {
        s.AddRow({p.kind == Problem::Kind::kCorrupt ? "corrupt" : "truncated", Num(p.offset),
                  Num(p.bytes), p.reason});
      }
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
    if (u.left_open_at_loss != 0) s.AddRow({"left_open_at_loss", Num(u.left_open_at_loss)});
    out.push_back(std::move(s));
  }
}

}  // namespace itt_dump
}  // namespace ittc
