#include "tools/itt_dump/vtune_csv.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;

namespace {

// A column of the counters file: one counter of the model's.
struct CounterColumn {
  int column = 0;
  std::string name;
  bool keep = true;  // passes the name/domain filters
};

class VtuneWriter : public IntervalListener {
 public:
  VtuneWriter(const VerbContext& ctx, Output* intervals)
      : ctx_(ctx), x_(*ctx.index), filter_(ctx.filter, x_), out_(intervals) {
    tsc_ = x_.header.timebase == format::Timebase::kTsc;
    raw_ = tsc_ || x_.header.timebase == format::Timebase::kMonotonicRawNs;
  }

  const char* ClockName() const { return tsc_ ? "RDTSC" : "CLOCK_MONOTONIC_RAW"; }
  void AppendTs(std::string* s, uint64_t ticks) const {
    if (raw_) {
      absl::StrAppend(s, ticks);
    } else {
      const int64_t ns =
          static_cast<int64_t>(x_.header.start_monotonic_raw_ns) + x_.clock.SinceStartNs(ticks);
      absl::StrAppend(s, ns);
    }
  }

  void OnInterval(const Interval& iv) override {
    const std::string name = IntervalName(x_, iv);
    if (filter_.active()) {
      if (!filter_.ThreadOk(*iv.thread) || !filter_.TimeOk(iv.begin)) return;
      if (iv.kind == IntervalKind::kLegacyEvent ? filter_.has_domain()
                                                : !filter_.DomainOk(iv.domain)) {
        return;
      }
      if (!filter_.NameOk(name)) return;
    }
    line_.clear();
    if (iv.kind == IntervalKind::kFrame) {
      const std::string_view domain = x_.Domain(iv.domain);
      AppendCsvField(&line_, domain.empty() ? "frame" : domain);
    } else {
      AppendCsvField(&line_, name);
    }
    line_.push_back(',');
    AppendTs(&line_, iv.begin);
    line_.push_back(',');
    AppendTs(&line_, iv.end);
    absl::StrAppend(&line_, ",", ctx_.set->FileOf(*iv.thread).index->header.pid, ",");
    if (iv.kind != IntervalKind::kFrame) absl::StrAppend(&line_, iv.thread->tid);
    line_.push_back('\n');
    out_->Write(line_);
  }

  // Pass 1: intervals, and the counter columns.
  void Pass1(const Event& e, const ThreadRec& t) {
    CounterSample sample;
    if (!MayChangeCounter(e.kind) || !counters_.OnEvent(e, &sample)) {
      tracker_.OnEvent(e, t);
      return;
    }
    Column(*sample.counter);
  }

  // Pass 2: counter samples.
  void Pass2(const Event& e, const ThreadRec& t, Output* out) {
    CounterSample sample;
    if (!MayChangeCounter(e.kind) || !counters_.OnEvent(e, &sample)) return;
    const CounterColumn& col = Column(*sample.counter);
    const uint64_t ticks = sample.ticks;
    if (!col.keep || (filter_.active() && (!filter_.ThreadOk(t) || !filter_.TimeOk(ticks)))) {
      return;
    }
    line_.clear();
    AppendTs(&line_, ticks);
    const int n = static_cast<int>(columns_.size());
    for (int i = 0; i < n; ++i) {
      line_.push_back(',');
      if (i == col.column) {
        std::string v;
        AppendNumber(&v, sample.counter->value);
        line_.append(v);
      }
    }
    absl::StrAppend(&line_, ",", ctx_.set->FileOf(t).index->header.pid, ",", t.tid, "\n");
    out->Write(line_);
  }

  // Column header of the counters file; resets values for pass 2.
  std::string CounterHeader() {
    std::string h = absl::StrCat("tsc.", ClockName());
    std::vector<std::string> used;
    counters_.ResetValues();
    for (const auto& counter : counters_.counters()) {
      const CounterColumn& c = columns_[counter->index];
      std::string name = c.name;
      // Two counters of one name (different domains) get distinct columns.
      if (std::count(used.begin(), used.end(), name) != 0) {
        name = counter->domain.empty() ? absl::StrCat(name, "#", c.column)
                                       : absl::StrCat(counter->domain, "/", name);
      }
      used.push_back(name);
      h.push_back(',');
      AppendCsvField(&h, absl::StrCat(name, counter->ever_set ? ".INST" : ".COUNT"));
    }
    h.append(",pid,tid\n");
    return h;
  }

  bool has_counters() const {
    for (const CounterColumn& c : columns_) {
      if (c.keep) return true;
    }
    return false;
  }
  void Finish(uint64_t end_ticks) { tracker_.Finish(end_ticks); }

 private:
  // The column of `counter`, made on its first change (in pass 1).
  const CounterColumn& Column(const Counter& counter) {
    if (counter.index < columns_.size()) return columns_[counter.index];
    CounterColumn col;
    col.name = counter.name.empty() ? "counter" : counter.name;
    col.keep =
        !filter_.active() || (filter_.NameOk(col.name) &&
                              (!filter_.has_domain() ||
                               (!counter.domain.empty() && filter_.DomainNameOk(counter.domain))));
    col.column = static_cast<int>(columns_.size());
    columns_.push_back(std::move(col));
    return columns_.back();
  }

  const VerbContext& ctx_;
  const TraceIndex& x_;
  Filter filter_;
  IntervalTracker tracker_{*ctx_.index, this};
  Output* out_;
  bool tsc_ = false;
  bool raw_ = false;
  std::string line_;
  CounterTracker counters_{*ctx_.index};
  std::vector<CounterColumn> columns_;  // by Counter::index
};

}  // namespace

std::string DefaultVtunePrefix(const std::string& trace_path) {
  std::string base = trace_path.substr(trace_path.rfind('/') + 1);
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".itt") == 0) {
    base.resize(base.size() - 4);
  }
  for (char& c : base) {
    if (c == ' ') c = '_';
  }
  return base.empty() ? "trace" : base;
}

std::string VtuneHostName(const std::string& host) {
  std::string out;
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out.push_back(ok ? c : '_');
  }
  return out.empty() ? "unknown" : out;
}

absl::Status RunVtuneCsv(const VerbContext& ctx, const VtuneOptions& options,
                         OutputFactory* files) {
  if (ctx.set->alignment() == TimeAlignment::kWallClock) {
    // Several hosts (or boots): each host's files with its own timebase,
    // as VTune correlates them, under its own host name.
    for (int g = 0; g < ctx.set->groups(); ++g) {
      std::vector<TraceSource> sources;
      for (const TraceFile& f : ctx.set->files()) {
        if (f.group == g) sources.push_back(f.source);
      }
      const TraceSet host = TraceSet::Open(std::move(sources), IndexOptions(), ctx.index->name);
      if (host.empty()) continue;
      VerbContext sub = ctx;
      sub.set = &host;
      sub.index = &host.index();
      VtuneOptions o = options;
      if (o.prefix.empty()) o.prefix = DefaultVtunePrefix(ctx.index->name);
      absl::Status s = RunVtuneCsv(sub, o, files);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  const std::string prefix =
      options.prefix.empty() ? DefaultVtunePrefix(ctx.index->name) : options.prefix;
  const std::string host = VtuneHostName(ctx.index->header.host_name);
  absl::StatusOr<std::unique_ptr<Output>> intervals =
      files->Create(absl::StrCat(prefix, "-intervals-hostname-", host, ".csv"));
  if (!intervals.ok()) return intervals.status();
  VtuneWriter w(ctx, intervals->get());
  (*intervals)->Write(absl::StrCat("name,start_tsc.", w.ClockName(), ",end_tsc,pid,tid\n"));
  absl::StatusOr<PassSummary> pass =
      ForEachEvent(ctx, [&](const Event& e, const ThreadRec& t) { w.Pass1(e, t); });
  if (!pass.ok()) return pass.status();
  w.Finish(TraceEndTicks(*ctx.index, pass->last_ticks));
  WarnMerge(ctx, *pass);
  (*intervals)->Flush();
  if (!(*intervals)->status().ok()) return (*intervals)->status();
  if (!w.has_counters()) return absl::OkStatus();

  if (ctx.merge.progress != nullptr) {
    ctx.merge.progress->SetPass(3, 3, ctx.index->reader_stats.chunks_read);
  }
  absl::StatusOr<std::unique_ptr<Output>> counters =
      files->Create(absl::StrCat(prefix, "-counters-hostname-", host, ".csv"));
  if (!counters.ok()) return counters.status();
  (*counters)->Write(w.CounterHeader());
  Output* counters_out = counters->get();
  absl::StatusOr<PassSummary> second =
      ForEachEvent(ctx, [&](const Event& e, const ThreadRec& t) { w.Pass2(e, t, counters_out); });
  if (!second.ok()) return second.status();
  (*counters)->Flush();
  return (*counters)->status();
}

}  // namespace itt_dump
}  // namespace ittc
