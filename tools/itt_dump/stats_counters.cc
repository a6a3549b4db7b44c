// Counter samples from the model's counter tracker, and the counters
// section.

#include <algorithm>
#include <cmath>
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

void StatsCollector::OnCounter(const CounterSample& sample, const ThreadRec& t) {
  const Counter& counter = *sample.counter;
  if (counter_rows_.size() <= counter.index) counter_rows_.resize(counter.index + 1);
  CounterRow& row = counter_rows_[counter.index];
  // The value follows every change (the tracker's); only the samples the
  // filters keep count.
  if (filter_.active()) {
    if (row.passes == 0) {
      const bool ok = filter_.CounterOk(counter);
      row.passes = ok ? 1 : -1;
    }
    if (row.passes < 0 || !filter_.ThreadOk(t)) return;
    if (!filter_.TimeOk(sample.ticks)) return;
  }
  AddSample(counter.value, &row);
}

void StatsCollector::AddSample(long double value, CounterRow* row) {
  row->Add(1, std::isnan(value) ? 0 : 1, value, value, value);
}

void StatsCollector::CounterSections(std::vector<Section>* sections) const {
  std::vector<Section>& out = *sections;
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
}

}  // namespace itt_dump
}  // namespace ittc
