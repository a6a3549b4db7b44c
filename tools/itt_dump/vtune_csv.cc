#include "tools/itt_dump/vtune_csv.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/text_buffer.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;

namespace {

// Whether the first pass does anything with an event of `kind`: counter
// changes make the counters' columns, the rest goes to a tracker that
// collects no args (neither file has any).
bool FirstPassUses(format::EventKind kind) {
  return MayChangeCounter(kind) || IntervalTracker::UsesKind(kind, /*collect_args=*/false);
}

// The lines of the intervals file, and the times of both files: what the
// writer of the whole trace and the pieces' sinks (pieces.h, on workers)
// share. Each has its own copies of the filter and the clock (both keep
// caches).
class VtuneLines {
 public:
  VtuneLines(const VerbContext& ctx, const Filter& filter, const Clock& clock)
      : ctx_(ctx), x_(*ctx.index), filter_(filter), clock_(clock) {
    tsc_ = x_.header.timebase == format::Timebase::kTsc;
    raw_ = tsc_ || x_.header.timebase == format::Timebase::kMonotonicRawNs;
  }

  const char* ClockName() const { return tsc_ ? "RDTSC" : "CLOCK_MONOTONIC_RAW"; }
  Filter& filter() { return filter_; }

  // A time as the files give it: the trace's own ticks, or nanoseconds of
  // CLOCK_MONOTONIC_RAW.
  void AppendTs(TextBuffer* out, uint64_t ticks) const {
    if (raw_) {
      AppendDecimal(out, ticks);
    } else {
      AppendDecimal(
          out, static_cast<int64_t>(x_.header.start_monotonic_raw_ns) + clock_.SinceStartNs(ticks));
    }
  }

  // Appends the line of `iv`; false, appending nothing, if the filters
  // drop it.
  bool AppendInterval(const Interval& iv, TextBuffer* out) {
    std::optional<std::string_view> name;
    const auto interval_name = [&] {
      if (!name) name = IntervalNameView(x_, iv, &name_buf_);
      return *name;
    };
    if (!filter_.KeepsInterval(iv, interval_name)) return false;
    if (iv.kind == IntervalKind::kFrame) {
      const std::string_view domain = x_.Domain(iv.domain);
      AppendCsvField(out, domain.empty() ? "frame" : domain);
    } else {
      AppendCsvField(out, interval_name());
    }
    out->push_back(',');
    AppendTs(out, iv.begin);
    out->push_back(',');
    AppendTs(out, iv.end);
    AppendEnd(out, *iv.thread, iv.kind != IntervalKind::kFrame);
    return true;
  }

  // ",pid,tid\n" of thread `t` (without the tid: a frame's row).
  void AppendEnd(TextBuffer* out, const ThreadRec& t, bool with_tid) {
    out->push_back(',');
    AppendDecimal(out, uint64_t{ctx_.set->FileOf(t).index->header.pid});
    out->push_back(',');
    if (with_tid) AppendDecimal(out, t.tid);
    out->push_back('\n');
  }

 private:
  const VerbContext& ctx_;
  const TraceIndex& x_;
  Filter filter_;
  Clock clock_;
  bool tsc_ = false;
  bool raw_ = false;
  std::string name_buf_;  // an interval's name when it is made up
};

// A column of the counters file: one counter of the model's.
struct CounterColumn {
  int column = 0;
  std::string name;
  bool keep = true;  // passes the name/domain filters
};

// The lines of one piece's paired intervals (pieces.h), each an output of
// its own, which the writer copies when the merge reaches it.
class VtuneSink final : public PieceSink {
 public:
  VtuneSink(const VerbContext& ctx, const Filter& filter, const Clock& clock)
      : lines_(ctx, filter, clock) {}

  void OnInterval(const Interval& iv) override {
    BeginOutput();
    EndOutput(lines_.AppendInterval(iv, &output_buffer()));
  }
  void Clear() override {}
  // Counted, nothing kept: what the first pass does nothing with (sync and
  // heap calls, markers, metadata...).
  bool Ignores(format::EventKind kind) const override { return !FirstPassUses(kind); }

 private:
  VtuneLines lines_;
};

// The two passes over the whole trace: the first writes the intervals file
// and finds the counters' columns, the second writes the counters file.
class VtuneWriter : public IntervalListener {
 public:
  // `intervals`: where the first pass writes (ctx.out is not used).
  VtuneWriter(const VerbContext& ctx, Output* intervals)
      : out_(intervals),
        x_(*ctx.index),
        lines_(ctx, Filter(ctx.filter, x_), x_.clock),
        tracker_(x_, this),
        counters_(x_) {
    tracker_.set_collect_args(false);
  }

  // The intervals file's header.
  void Begin() {
    line_.append(absl::StrCat("name,start_tsc.", lines_.ClockName(), ",end_tsc,pid,tid\n"));
  }

  // Pass 1: intervals, and the counter columns.
  void OnEvent(const Event& e, const ThreadRec& t) {
    CounterSample sample;
    if (!MayChangeCounter(e.kind) || !counters_.OnEvent(e, &sample)) {
      tracker_.OnEvent(e, t);
      return;
    }
    Column(*sample.counter);
  }
  // What FeedEntry gives the whole trace's tracker (pieces.h).
  void AddChildTicks(const ThreadRec& t, uint64_t ticks) { tracker_.AddChildTicks(t, ticks); }
  void OnOpen(const Interval& iv, const ThreadRec& t) { tracker_.OnOpen(iv, t); }
  // A line a piece's sink made.
  void AppendOutput(std::string_view line, const ThreadRec&) {
    line_.append(line);
    AfterLine(out_);
  }
  void OnInterval(const Interval& iv) override {
    if (lines_.AppendInterval(iv, &line_)) AfterLine(out_);
  }
  void Finish(uint64_t end_ticks) {
    tracker_.Finish(end_ticks);
    Flush(out_);
  }

  // Starts pass 2, writing to `out` (the counters file): its header, and
  // the counters' values from 0 again.
  void BeginCounters(Output* out) {
    counters_out_ = out;
    line_.clear();
    line_.append(CounterHeader());
  }
  // Pass 2: counter samples.
  void Pass2(const Event& e, const ThreadRec& t) {
    CounterSample sample;
    if (!MayChangeCounter(e.kind) || !counters_.OnEvent(e, &sample)) return;
    const CounterColumn& col = Column(*sample.counter);
    const uint64_t ticks = sample.ticks;
    Filter& filter = lines_.filter();
    if (!col.keep || (filter.active() && (!filter.ThreadOk(t) || !filter.TimeOk(ticks)))) {
      return;
    }
    lines_.AppendTs(&line_, ticks);
    const int n = static_cast<int>(columns_.size());
    for (int i = 0; i < n; ++i) {
      line_.push_back(',');
      if (i == col.column) AppendNumber(&line_, sample.counter->value);
    }
    lines_.AppendEnd(&line_, t, /*with_tid=*/true);
    AfterLine(counters_out_);
  }
  void FinishCounters() { Flush(counters_out_); }

  bool has_counters() const {
    for (const CounterColumn& c : columns_) {
      if (c.keep) return true;
    }
    return false;
  }

 private:
  // Column header of the counters file; resets values for pass 2.
  std::string CounterHeader() {
    std::string h = absl::StrCat("tsc.", lines_.ClockName());
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
  void Flush(Output* out) {
    out->Write(line_.view());
    line_.clear();
  }
  // Hands a full batch of lines to `out`.
  void AfterLine(Output* out) {
    if (line_.size() >= TextBuffer::kWriteBatch) Flush(out);
  }
  // The column of `counter`, made on its first change (in pass 1).
  const CounterColumn& Column(const Counter& counter) {
    if (counter.index < columns_.size()) return columns_[counter.index];
    CounterColumn col;
    col.name = counter.name.empty() ? "counter" : counter.name;
    const Filter& filter = lines_.filter();
    col.keep =
        !filter.active() || (filter.NameOk(col.name) &&
                             (!filter.has_domain() ||
                              (!counter.domain.empty() && filter.DomainNameOk(counter.domain))));
    col.column = static_cast<int>(columns_.size());
    columns_.push_back(std::move(col));
    return columns_.back();
  }

  Output* const out_;               // the intervals file
  Output* counters_out_ = nullptr;  // the counters file
  const TraceIndex& x_;
  VtuneLines lines_;
  IntervalTracker tracker_;
  CounterTracker counters_;
  std::vector<CounterColumn> columns_;  // by Counter::index
  TextBuffer line_;                     // lines not yet handed on
};

// Pass 2's sink: the pieces pair what they can and keep nothing but counter
// changes and what the merge follows (tasks begun or ended outside them).
class CounterChangesSink final : public PieceSink {
 public:
  void Clear() override {}
  void OnInterval(const Interval&) override {}
  bool Ignores(format::EventKind kind) const override {
    return !MayChangeCounter(kind) && !IsTaskOrRegionKind(kind);
  }
};

// Pass 2's target (FeedEntry): counter changes to the writer, the rest
// dropped.
struct CounterRows {
  VtuneWriter* w;
  void OnEvent(const Event& e, const ThreadRec& t) { w->Pass2(e, t); }
  void AddChildTicks(const ThreadRec&, uint64_t) {}
  void OnOpen(const Interval&, const ThreadRec&) {}
  void AppendOutput(std::string_view, const ThreadRec&) {}
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

absl::Status RunVtuneCsv(const VerbContext& ctx, const VtuneOptions& options, OutputFactory* files,
                         VtunePasses* passes) {
  VtunePasses unused;
  if (passes == nullptr) passes = &unused;
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
      absl::Status s = RunVtuneCsv(sub, o, files, passes);
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
  VerbContext intervals_ctx = ctx;
  intervals_ctx.out = intervals->get();
  // The writer of the pass that wrote the file keeps the counters' columns.
  std::unique_ptr<VtuneWriter> w;
  absl::StatusOr<PassSummary> pass = WriteOnce(
      intervals_ctx, "VTune intervals CSV",
      [&](const VerbContext& first) -> std::optional<PassSummary> {
        // The workers pair the simple tasks and write their lines, this
        // thread merges them with the rest.
        w = std::make_unique<VtuneWriter>(ctx, first.out);
        std::optional<PassSummary> p = WriteInPieces(
            first,
            [&ctx](const Filter& filter, const Clock& clock) {
              return std::make_unique<VtuneSink>(ctx, filter, clock);
            },
            w.get(), [&w] { w->Begin(); });
        if (p) w->Finish(TraceEndTicks(*ctx.index, p->last_ticks));
        return p;
      },
      [&](const VerbContext& again) -> absl::StatusOr<PassSummary> {
        w = std::make_unique<VtuneWriter>(ctx, again.out);
        w->Begin();
        absl::StatusOr<PassSummary> p =
            ForEachEvent(again, [&](const Event& e, const ThreadRec& t) { w->OnEvent(e, t); });
        if (p.ok()) w->Finish(TraceEndTicks(*ctx.index, p->last_ticks));
        return p;
      },
      &passes->intervals_rewritten);
  if (!pass.ok()) return pass.status();
  passes->intervals_on_every_core = pass->on_every_core;
  WarnMerge(ctx, *pass);
  (*intervals)->Flush();
  if (!(*intervals)->status().ok()) return (*intervals)->status();
  if (!w->has_counters()) return absl::OkStatus();

  if (ctx.merge.progress != nullptr) {
    ctx.merge.progress->SetPass(3, 3, ctx.index->reader_stats.chunks_read);
  }
  absl::StatusOr<std::unique_ptr<Output>> counters =
      files->Create(absl::StrCat(prefix, "-counters-hostname-", host, ".csv"));
  if (!counters.ok()) return counters.status();
  VerbContext counters_ctx = ctx;
  counters_ctx.out = counters->get();
  CounterRows rows{w.get()};
  absl::StatusOr<PassSummary> second = WriteOnce(
      counters_ctx, "VTune counters CSV",
      [&](const VerbContext& first) -> std::optional<PassSummary> {
        std::optional<PassSummary> p = WriteInPieces(
            first,
            [](const Filter&, const Clock&) { return std::make_unique<CounterChangesSink>(); },
            &rows, [&] { w->BeginCounters(first.out); });
        if (p) w->FinishCounters();
        return p;
      },
      [&](const VerbContext& again) -> absl::StatusOr<PassSummary> {
        w->BeginCounters(again.out);
        absl::StatusOr<PassSummary> p =
            ForEachEvent(again, [&](const Event& e, const ThreadRec& t) { rows.OnEvent(e, t); });
        if (p.ok()) w->FinishCounters();
        return p;
      },
      &passes->counters_rewritten);
  if (!second.ok()) return second.status();
  passes->counters_on_every_core = second->on_every_core;
  (*counters)->Flush();
  return (*counters)->status();
}

}  // namespace itt_dump
}  // namespace ittc
