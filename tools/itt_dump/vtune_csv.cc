#include "tools/itt_dump/vtune_csv.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tools/itt_dump/model/counters.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/small_cache.h"
#include "tools/itt_dump/model/text_buffer.h"
#include "tools/itt_dump/model/values.h"

namespace ittc {
namespace itt_dump {

using format::Event;

namespace {

// Whether the pass does anything with an event of `kind`: counter changes
// make the counters' columns and rows, the rest goes to a tracker that
// collects no args (neither file has any).
bool PassUses(format::EventKind kind) {
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
  void AppendTs(TextBuffer* out, uint64_t ticks) {
    if (raw_) {
      if (ticks > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        AppendDecimal(out, ticks);
      } else {
        times_.Append(out, static_cast<int64_t>(ticks));
      }
    } else {
      times_.Append(
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
      AppendFrame(iv, out);
      return true;
    }
    if (iv.kind != IntervalKind::kLegacyEvent && iv.name_id != 0) {
      out->append(Field(/*frame=*/false, iv.name_id, interval_name));
    } else {
      AppendCsvField(out, interval_name());
    }
    AppendTimes(iv, out);
    AppendEnd(out, *iv.thread, /*with_tid=*/true);
    return true;
  }
  // Whether the filters keep `iv`.
  bool Keeps(const Interval& iv) {
    return filter_.KeepsInterval(iv, [&] { return IntervalNameView(x_, iv, &name_buf_); });
  }
  // The line of frame `iv`, which the filters keep.
  void AppendFrame(const Interval& iv, TextBuffer* out) {
    out->append(Field(/*frame=*/true, iv.domain, [&] {
      const std::string_view domain = x_.Domain(iv.domain);
      return domain.empty() ? "frame" : domain;
    }));
    AppendTimes(iv, out);
    AppendEnd(out, *iv.thread, /*with_tid=*/false);
  }
  // ",begin,end" of `iv`.
  void AppendTimes(const Interval& iv, TextBuffer* out) {
    out->push_back(',');
    AppendTs(out, iv.begin);
    out->push_back(',');
    AppendTs(out, iv.end);
  }

  // ",pid,tid\n" of thread `t` (without the tid: a frame's row).
  void AppendEnd(TextBuffer* out, const ThreadRec& t, bool with_tid) {
    const uint64_t pid = ctx_.set->FileOf(t).index->header.pid;
    const uint64_t tid = with_tid ? t.tid : 0;
    out->append(ends_.Get(
        {pid, tid, with_tid}, pid * 31 + tid * 2 + (with_tid ? 1 : 0), [&](std::string* text) {
          *text = with_tid ? absl::StrCat(",", pid, ",", tid, "\n") : absl::StrCat(",", pid, ",\n");
        }));
  }

 private:
  // The first column of a row, as a CSV field: of a task's name (by its
  // string id), or of a frame's domain (by the domain's id), which `text`
  // gives on a miss. Every row has one, and most rows' are a few texts.
  template <typename Text>
  std::string_view Field(bool frame, uint64_t id, Text text) {
    return fields_.Get({frame, id}, id * 2 + (frame ? 1 : 0), [&](std::string* field) {
      field->clear();
      AppendCsvField(field, text());
    });
  }

  const VerbContext& ctx_;
  const TraceIndex& x_;
  Filter filter_;
  Clock clock_;
  NearDecimals times_;  // AppendTs's digits
  bool tsc_ = false;
  bool raw_ = false;
  std::string name_buf_;  // an interval's name when it is made up
  // Texts every row repeats, formatted once (Field, AppendEnd).
  SmallCache<std::pair<bool, uint64_t>, std::string> fields_;
  SmallCache<std::tuple<uint64_t, uint64_t, bool>, std::string> ends_;
};

// A column of the counters file: the counters of one domain and name,
// one per process of a set (each row says its process by its pid).
struct CounterColumn {
  std::string name;
  std::string domain;
  bool keep = true;       // passes the name/domain filters
  bool rows = false;      // some sample passed the thread/time filters too
  bool ever_set = false;  // some counter of it was set (made at the header)
};

// The counters file's rows, made as the intervals' pass meets their
// samples: its columns are known only at its end. Each row is kept as its
// text but for the commas around its value - a record of its column, the
// sizes of its three parts (the time; the value; ",pid,tid" and the line
// break) and their bytes - in memory up to `memory` bytes at a time, the
// rest in an unnamed temporary file (TMPDIR's directory, else /tmp), read
// back `memory` bytes at a time. With `background`, the file is written
// by a thread of the spool's ("itt-dump-spill") while the rows go on into
// a second buffer: each holds half of `memory` then, and one write is out
// at a time (the reading thread's write() calls were a quarter of its time
// on the mixed benchmark trace).
//
// Thread safety: one thread calls it. While a write is out (spill_out_,
// guarded by mu_, as spill_status_ and stopping_), the spill thread reads
// spilling_ and fd_, which the caller leaves alone until WaitSpilled.
class CounterRowSpool {
 public:
  CounterRowSpool(size_t memory, bool background)
      : memory_(std::max<size_t>(memory, 1)),
        buffer_(background ? std::max<size_t>(memory_ / 2, 1) : memory_),
        background_(background) {}
  ~CounterRowSpool() {
    if (spiller_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
      }
      cv_.notify_all();
      spiller_.join();  // (after the write out, if any)
    }
    if (fd_ >= 0) close(fd_);
  }
  CounterRowSpool(const CounterRowSpool&) = delete;
  CounterRowSpool& operator=(const CounterRowSpool&) = delete;

  // A row, whose parts its caller appends to the buffer returned in turn
  // (the time, the value, the rest), then says where they end (EndRow).
  TextBuffer* BeginRow() {
    row_start_ = rows_->size();
    rows_->Room(kHeader);
    rows_->Advance(kHeader);
    return rows_.get();
  }
  // Ends the row begun last, of `column`: its time ended at `time_end`,
  // its value at `value_end` (the buffer's sizes then), the rest at the
  // buffer's end.
  void EndRow(uint32_t column, size_t time_end, size_t value_end) {
    const size_t body = row_start_ + kHeader;
    const auto part = [](size_t n) { return static_cast<uint16_t>(n); };
    const uint16_t sizes[3] = {part(time_end - body), part(value_end - time_end),
                               part(rows_->size() - value_end)};
    char* header = rows_->data() + row_start_;
    std::memcpy(header, &column, sizeof column);
    std::memcpy(header + sizeof column, sizes, sizeof sizes);
    if (rows_->size() >= buffer_) Spill();
  }
  // The temporary file's error, once it failed (no row is lost before):
  // waits for the write out, if any.
  const absl::Status& status() {
    WaitSpilled();
    return status_;
  }
  // fn(column, time, value, end) for each row, in order; the error of the
  // temporary file, if it failed.
  template <typename Fn>
  absl::Status ForEachRow(Fn&& fn) {
    WaitSpilled();
    if (!status_.ok()) return status_;
    if (fd_ >= 0) {
      std::string block;
      size_t kept = 0;  // bytes of an incomplete row at block's start
      off_t at = 0;
      for (;;) {
        block.resize(kept + memory_);
        const ssize_t n = pread(fd_, block.data() + kept, memory_, at);
        if (n < 0) {
          if (errno == EINTR) continue;
          return absl::ErrnoToStatus(errno, "reading the counters' temporary file");
        }
        if (n == 0) break;
        at += n;
        const size_t size = kept + static_cast<size_t>(n);
        const size_t used = Rows(block.data(), size, fn);
        kept = size - used;
        std::memmove(block.data(), block.data() + used, kept);
      }
      if (kept != 0) return absl::DataLossError("the counters' temporary file ends inside a row");
    }
    Rows(rows_->data(), rows_->size(), fn);
    return absl::OkStatus();
  }

 private:
  static constexpr size_t kHeader = sizeof(uint32_t) + 3 * sizeof(uint16_t);

  // The whole rows at the start of [p, p + size): fn for each; returns
  // their bytes.
  template <typename Fn>
  static size_t Rows(const char* p, size_t size, Fn&& fn) {
    size_t used = 0;
    while (size - used >= kHeader) {
      uint32_t column;
      uint16_t sizes[3];
      std::memcpy(&column, p + used, sizeof column);
      std::memcpy(sizes, p + used + sizeof column, sizeof sizes);
      const size_t row = kHeader + size_t{sizes[0]} + sizes[1] + sizes[2];
      if (size - used < row) break;
      const char* body = p + used + kHeader;
      fn(column, std::string_view(body, sizes[0]), std::string_view(body + sizes[0], sizes[1]),
         std::string_view(body + sizes[0] + sizes[1], sizes[2]));
      used += row;
    }
    return used;
  }

  // Moves the rows in memory to the temporary file (made on first use):
  // with background_, hands them to the spill thread, once the write
  // before is done.
  void Spill() {
    WaitSpilled();
    if (status_.ok() && fd_ < 0) {
      const char* tmpdir = std::getenv("TMPDIR");
      const std::string dir = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
      std::string path = absl::StrCat(dir, "/itt-dump-counters-XXXXXX");
      fd_ = mkstemp(path.data());
      if (fd_ < 0) {
        status_ = absl::ErrnoToStatus(
            errno, absl::StrCat("a temporary file for the counters' rows in ", dir));
      } else {
        unlink(path.c_str());
      }
    }
    if (!status_.ok()) {
      rows_->clear();  // (the pass goes on for the intervals)
      return;
    }
    std::swap(rows_, spilling_);
    rows_->clear();
    if (!background_) {
      if (absl::Status s = Write(fd_, *spilling_); !s.ok()) status_ = std::move(s);
      return;
    }
    if (!spiller_.joinable()) {
      spiller_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "itt-dump-spill");  // for profilers and the benchmark
        RunSpiller();
      });
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      spill_out_ = true;
    }
    cv_.notify_all();
  }
  // The spill thread: writes spilling_ each time a write is out.
  void RunSpiller() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return spill_out_ || stopping_; });
      if (!spill_out_) return;
      lock.unlock();
      absl::Status s = Write(fd_, *spilling_);
      lock.lock();
      spill_status_ = std::move(s);
      spill_out_ = false;
      lock.unlock();
      cv_.notify_all();
      lock.lock();
    }
  }
  // Waits until no write is out; takes its error.
  void WaitSpilled() {
    if (!spiller_.joinable()) return;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !spill_out_; });
    if (status_.ok() && !spill_status_.ok()) status_ = spill_status_;
    spill_status_ = absl::OkStatus();
  }
  static absl::Status Write(int fd, const TextBuffer& rows) {
    const char* p = rows.data();
    size_t left = rows.size();
    while (left != 0) {
      const ssize_t n = write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        return absl::ErrnoToStatus(n < 0 ? errno : ENOSPC,
                                   "writing the counters' rows to a temporary file");
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  const size_t memory_;
  const size_t buffer_;  // rows_'s bytes before it spills
  const bool background_;
  std::unique_ptr<TextBuffer> rows_ = std::make_unique<TextBuffer>();
  size_t row_start_ = 0;
  int fd_ = -1;
  absl::Status status_;
  std::unique_ptr<TextBuffer> spilling_ = std::make_unique<TextBuffer>();  // being written
  std::thread spiller_;  // with background_, from the first spill
  std::mutex mu_;
  std::condition_variable cv_;
  bool spill_out_ = false;     // spilling_ is being written
  absl::Status spill_status_;  // the last write's
  bool stopping_ = false;
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
  // Frames and counter changes go to the reading thread apart, each frame
  // end's line in the slot it leaves: frames pair by domain across the
  // process's threads, a counter's value is the sum of its changes on
  // every thread, and neither depends on anything else (VtuneWriter::
  // OnApartEvent; a sample's row goes to the counters file). So the
  // pieces pair no frames, not even those of a thread alone in its
  // process: a frame the piece opened would reach the reading thread's
  // tracker among the items, its end apart.
  IntervalTracker::PiecePairing pairing() const override {
    IntervalTracker::PiecePairing p;
    p.frames = false;
    return p;
  }
  bool KeepsApart(format::EventKind kind) const override {
    return IsFrameKind(kind) || MayChangeCounter(kind);
  }
  bool SlotFor(format::EventKind kind) const override {
    return kind == format::EventKind::kFrameEnd || kind == format::EventKind::kFrameSubmit;
  }
  // Lines, which the reading thread writes as they are.
  bool outputs_apart() const override { return true; }
  // Counted, nothing kept: what the pass does nothing with (sync and heap
  // calls, markers, metadata...).
  bool Ignores(format::EventKind kind) const override { return !PassUses(kind); }

 private:
  VtuneLines lines_;
};

// Formats frames' lines (FrameRecord, PieceOutput::RecordRoom) on the
// worker that merges their run of output: the reading thread pairs and
// filters them.
class FrameFormatter final : public OwnRecordFormatter {
 public:
  // Made on the reading thread, copying the writer's lines (their filter
  // and clock keep caches).
  explicit FrameFormatter(const VtuneLines& lines) : lines_(lines) {}
  void Format(std::string_view record, std::string* out) override {
    lines_.AppendFrame(FrameRecord::Read(record.data()).ToInterval(), &line_);
    out->append(line_.view());
    line_.clear();
  }

 private:
  VtuneLines lines_;
  TextBuffer line_;
};

// The pass over the whole trace: it writes the intervals file and makes the
// counters' columns and rows; then the counters file is written from them.
class VtuneWriter : public IntervalListener {
 public:
  // `intervals`: where the pass writes (ctx.out is not used);
  // `spool_memory`: VtuneOptions::spool_memory (spilled on a thread of
  // its own with ctx.parallel).
  VtuneWriter(const VerbContext& ctx, Output* intervals, size_t spool_memory)
      : out_(intervals),
        x_(*ctx.index),
        lines_(ctx, Filter(ctx.filter, x_), x_.clock),
        tracker_(x_, this),
        counters_(x_),
        spool_(spool_memory, ctx.parallel) {
    tracker_.set_collect_args(false);
  }

  // The intervals file's header.
  void Begin() {
    line_.append(absl::StrCat("name,start_tsc.", lines_.ClockName(), ",end_tsc,pid,tid\n"));
  }

  // The pass: intervals, and the counters' columns and rows.
  void OnEvent(const Event& e, const ThreadRec& t) {
    CounterSample sample;
    if (!MayChangeCounter(e.kind) || !counters_.OnEvent(e, t, &sample)) {
      tracker_.OnEvent(e, t);
      return;
    }
    const size_t column = ColumnOf(*sample.counter);
    CounterColumn& col = columns_[column];
    Filter& filter = lines_.filter();
    if (!col.keep || (filter.active() && (!filter.ThreadOk(t) || !filter.TimeOk(sample.ticks)))) {
      return;
    }
    col.rows = true;
    TextBuffer* row = spool_.BeginRow();
    lines_.AppendTs(row, sample.ticks);
    const size_t time_end = row->size();
    AppendNumber(row, sample.counter->value);
    const size_t value_end = row->size();
    lines_.AppendEnd(row, t, /*with_tid=*/true);
    spool_.EndRow(static_cast<uint32_t>(column), time_end, value_end);
  }
  // What FeedEntry gives the whole trace's tracker (pieces.h).
  void AddChildTicks(const ThreadRec& t, uint64_t ticks) { tracker_.AddChildTicks(t, ticks); }
  void OnOpen(const Interval& iv, const ThreadRec& t) { tracker_.OnOpen(iv, t); }
  void OnCut(const ThreadRec& t, uint64_t ticks) { tracker_.CutThread(t, ticks); }
  // What OnEvent does with a frame_begin or frame_end of a null id, for
  // one that FeedEntry gives it so (where its piece pairs no frames).
  void OnKeptFrame(const KeptFrame& frame, const ThreadRec& t) { tracker_.OnFrame(frame, t); }
  // The frame and counter events its pieces kept apart (VtuneSink::
  // KeepsApart) on every core, in their order: the line of a frame one
  // ends goes in its slot, the row of a sample to the counters' spool. Its
  // tracker's frames and the counters depend on nothing else, nor
  // anything else on them.
  InSlots<VtuneWriter> apart_in_order() { return InSlots<VtuneWriter>(this); }
  void OnInterval(const Interval& iv) override {
    // One left open at the end has no end: no row (stats leaves it out
    // too; the pass warns of it).
    if (iv.open_at_end) return;
    if (iv.kind == IntervalKind::kFrame && records_ != nullptr && records_->takes_records()) {
      // Formatted on a worker, here or in the slot of the frame's end.
      if (!lines_.Keeps(iv)) return;
      FrameRecord::Write(iv, records_->RecordRoom(sizeof(FrameRecord)));
      return;
    }
    if (lines_.AppendInterval(iv, &line_)) AfterLine(out_);
  }
  // Where frames' lines go as records while it takes them (the pass on
  // every core), formatted on the workers by FrameFormatters made from
  // its lines.
  void set_records(PieceOutput* records) {
    records_ = records;
    records->set_record_formatter([this] { return std::make_unique<FrameFormatter>(lines_); });
  }
  void Finish(uint64_t end_ticks) {
    tracker_.Finish(end_ticks);
    Flush(out_);
  }
  const Unbalanced& unbalanced() const { return tracker_.unbalanced(); }
  // Hands the lines it holds to the output.
  void FlushLines() { Flush(out_); }
  const TextBuffer& pending() const { return line_; }

  // Writes the counters file to `out`: its header, then the rows the
  // pass made, each with a column per counter. The temporary file's
  // error, if it failed.
  absl::Status WriteCounters(Output* out) {
    line_.clear();
    line_.append(CounterHeader());
    // The file has the columns with rows only (a row is of one).
    std::vector<uint32_t> position(columns_.size(), 0);
    uint32_t n = 0;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].rows) position[i] = n++;
    }
    const absl::Status s = spool_.ForEachRow(
        [&](uint32_t column, std::string_view time, std::string_view value, std::string_view end) {
          line_.append(time);
          for (uint32_t i = 0; i < n; ++i) {
            line_.push_back(',');
            if (i == position[column]) line_.append(value);
          }
          line_.append(end);
          AfterLine(out);
        });
    Flush(out);
    return s;
  }

  // Whether every row went where it is kept (else the error).
  const absl::Status& counters_status() { return spool_.status(); }
  bool has_counters() const {
    for (const CounterColumn& c : columns_) {
      if (c.rows) return true;
    }
    return false;
  }

 private:
  // Column header of the counters file: a column per (domain, name) with
  // rows, in the order of their first samples.
  std::string CounterHeader() {
    std::string h = absl::StrCat("tsc.", lines_.ClockName());
    std::map<std::string_view, int> columns_of_name;
    for (const CounterColumn& c : columns_) {
      if (c.rows) ++columns_of_name[c.name];
    }
    for (const auto& counter : counters_.counters()) {
      if (!counter->ever_set || counter->index >= column_of_counter_.size()) continue;
      const size_t column = column_of_counter_[counter->index];
      if (column != kNone) columns_[column].ever_set = true;
    }
    for (size_t i = 0; i < columns_.size(); ++i) {
      const CounterColumn& c = columns_[i];
      if (!c.rows) continue;
      std::string name = c.name;
      // Counters of one name in different domains get distinct columns.
      if (columns_of_name[c.name] > 1) {
        name = c.domain.empty() ? absl::StrCat(name, "#", i) : absl::StrCat(c.domain, "/", name);
      }
      h.push_back(',');
      AppendCsvField(&h, absl::StrCat(name, c.ever_set ? ".INST" : ".COUNT"));
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
  // The column of `counter` (columns_), its domain and name's: made on
  // the first change of a counter of them.
  size_t ColumnOf(const Counter& counter) {
    if (counter.index < column_of_counter_.size() && column_of_counter_[counter.index] != kNone) {
      return column_of_counter_[counter.index];
    }
    std::string name = counter.name.empty() ? "counter" : counter.name;
    const auto [it, added] =
        column_by_key_.try_emplace(std::make_pair(counter.domain, name), columns_.size());
    if (added) {
      CounterColumn col;
      const Filter& filter = lines_.filter();
      // (By the counter's own name: "counter" only stands in for none.)
      col.keep = !filter.active() || filter.CounterOk(counter);
      col.name = std::move(name);
      col.domain = counter.domain;
      columns_.push_back(std::move(col));
    }
    if (counter.index >= column_of_counter_.size()) {
      column_of_counter_.resize(counter.index + 1, kNone);
    }
    column_of_counter_[counter.index] = it->second;
    return it->second;
  }

  Output* const out_;  // the intervals file
  PieceOutput* records_ = nullptr;
  const TraceIndex& x_;
  VtuneLines lines_;
  IntervalTracker tracker_;
  CounterTracker counters_;
  std::vector<CounterColumn> columns_;  // in order of first change
  static constexpr size_t kNone = ~size_t{0};
  std::vector<size_t> column_of_counter_;  // by Counter::index; kNone: none yet
  std::map<std::pair<std::string, std::string>, size_t> column_by_key_;  // (domain, name)
  CounterRowSpool spool_;                                                // the counters file's rows
  TextBuffer line_;                                                      // lines not yet handed on
};

// The filter of one (host, boot) group's pass over a set of several:
// --from and --to count from the set's start (its earliest trace's), the
// group's clock from the group's, which falls at `offset_ns` on the set's
// axis (TraceFile::offset_ns).
FilterSpec GroupFilter(FilterSpec spec, int64_t offset_ns) {
  const auto shift = [offset_ns](int64_t ns) {
    return ns < std::numeric_limits<int64_t>::min() + offset_ns
               ? std::numeric_limits<int64_t>::min()
               : ns - offset_ns;
  };
  if (spec.from_ns) spec.from_ns = shift(*spec.from_ns);
  // (INT64_MAX: no end.)
  if (spec.to_ns && *spec.to_ns < std::numeric_limits<int64_t>::max()) {
    spec.to_ns = shift(*spec.to_ns);
  }
  return spec;
}

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
    // as VTune correlates them, under its own host name. Groups whose host
    // names read the same in a file name (two boots of one host, two hosts
    // of one name) would write the same files, each over the one before:
    // from the second on, the prefix tells them apart (-boot2, -boot3...).
    std::map<std::string, int> groups_of_host;
    for (int g = 0; g < ctx.set->groups(); ++g) {
      std::vector<TraceSource> sources;
      int64_t offset_ns = 0;
      for (const TraceFile& f : ctx.set->files()) {
        if (f.group != g) continue;
        sources.push_back(f.source);
        offset_ns = f.offset_ns;  // the group's, on each of its files
      }
      const TraceSet host = TraceSet::Open(std::move(sources), IndexOptions(), ctx.index->name);
      if (host.empty()) continue;
      VerbContext sub = ctx;
      sub.set = &host;
      sub.index = &host.index();
      sub.filter = GroupFilter(ctx.filter, offset_ns);
      VtuneOptions o = options;
      if (o.prefix.empty()) o.prefix = DefaultVtunePrefix(ctx.index->name);
      const int same_host = ++groups_of_host[VtuneHostName(host.index().header.host_name)];
      if (same_host > 1) absl::StrAppend(&o.prefix, "-boot", same_host);
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
  // The writer of the pass that wrote the file keeps the counters' columns
  // and rows.
  std::unique_ptr<VtuneWriter> w;
  std::optional<PieceOutput> own;  // the first pass's, for the pieces' lines and w's
  absl::StatusOr<PassSummary> pass = WriteOnce(
      intervals_ctx, "VTune intervals CSV",
      [&](const VerbContext& first) -> std::optional<PassSummary> {
        // The workers pair the simple tasks and write their lines, this
        // thread merges them with the rest.
        own.emplace(first.out);
        w = std::make_unique<VtuneWriter>(ctx, &*own, options.spool_memory);
        own->set_flush([&w] { w->FlushLines(); }, &w->pending());
        w->set_records(&*own);
        InSlots<VtuneWriter> in_slots = w->apart_in_order();
        std::optional<PassSummary> p = WriteInPieces(
            first,
            [&ctx](const Filter& filter, const Clock& clock) {
              return std::make_unique<VtuneSink>(ctx, filter, clock);
            },
            w.get(), [&w] { w->Begin(); }, &*own, &in_slots);
        if (p) {
          w->Finish(TraceEndTicks(*ctx.index, p->last_ticks));
          own->Flush();
        }
        return p;
      },
      [&](const VerbContext& again) -> absl::StatusOr<PassSummary> {
        w = std::make_unique<VtuneWriter>(ctx, again.out, options.spool_memory);
        w->Begin();
        absl::StatusOr<PassSummary> p = ForEachEvent(
            again, [&](const Event& e, const ThreadRec& t) { w->OnEvent(e, t); },
            [&](const ThreadRec& t, uint64_t ticks) { w->OnCut(t, ticks); });
        if (p.ok()) w->Finish(TraceEndTicks(*ctx.index, p->last_ticks));
        return p;
      },
      &passes->intervals_rewritten);
  if (!pass.ok()) return pass.status();
  passes->intervals_on_every_core = pass->on_every_core;
  WarnUnbalanced(ctx, w->unbalanced());
  if (absl::Status cut = WarnMerge(ctx, *pass); !cut.ok()) return cut;
  (*intervals)->Flush();
  if (!(*intervals)->status().ok()) return (*intervals)->status();
  if (!w->has_counters()) return absl::OkStatus();

  const auto counters_error = [](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("VTune counters CSV: ", s.message()));
  };
  // (No counters file where its rows were not all kept.)
  if (!w->counters_status().ok()) return counters_error(w->counters_status());
  absl::StatusOr<std::unique_ptr<Output>> counters =
      files->Create(absl::StrCat(prefix, "-counters-hostname-", host, ".csv"));
  if (!counters.ok()) return counters.status();
  {
    // Written on a thread of the output's where the pass was on every core.
    std::optional<ThreadedOutput> threaded;
    Output* out = counters->get();
    if (ctx.parallel) out = &threaded.emplace(out);
    const absl::Status s = w->WriteCounters(out);
    out->Flush();
    if (!s.ok()) return counters_error(s);
  }
  (*counters)->Flush();
  return (*counters)->status();
}

}  // namespace itt_dump
}  // namespace ittc
