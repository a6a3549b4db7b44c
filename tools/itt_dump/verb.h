// What every verb gets: the traces (a set of one or more files, and the
// index to read them by), where output and
// diagnostics go, the filters, and the pass's tuning; plus the helpers the
// verbs share to run their pass and report.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_VERB_H_
#define TOOLS_ITT_DUMP_VERB_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tools/itt_dump/filter.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/merge.h"
#include "tools/itt_dump/model/pieces.h"
#include "tools/itt_dump/model/progress.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/model/trace_set.h"
#include "tools/itt_dump/output.h"

namespace ittc {
namespace itt_dump {

struct VerbContext {
  const TraceSet* set = nullptr;
  const TraceIndex* index = nullptr;  // &set->index()
  Output* out = nullptr;              // the verb's main output (stdout or -o FILE)
  Output* err = nullptr;              // diagnostics: one line each, "itt-dump: FILE: "
  FilterSpec filter;
  MergeOptions merge;       // merge.progress is set when a progress line shows
  bool wall_clock = false;  // text: wall clock instead of ns since start
  // A verb that can read one file on every core (pieces.h) does; false
  // makes it take the serial pass (the tests compare the two).
  bool parallel = true;
};

// Writes "itt-dump: <name>: <message>\n" to ctx.err, where <name> is the
// file's, or the set's for several files.
void Warn(const VerbContext& ctx, std::string_view message);
// The same for file `file` of the set.
void WarnFile(const VerbContext& ctx, size_t file, std::string_view message);

// Reports what the index pass found that every verb should mention:
// damaged regions and truncation, one line each per file (at most three;
// the rest are counted in a fourth line).
void WarnDamage(const VerbContext& ctx);

// For traces of several hosts (or boots), one line saying they were lined
// up by wall clock and how uncertain that is (TraceSet::wall_uncertainty_ns).
void WarnAlignment(const VerbContext& ctx);

// What a verb's pass over the merged events saw.
struct PassSummary {
  uint64_t events = 0;         // events delivered
  uint64_t last_ticks = 0;     // the latest event time
  uint64_t late_events = 0;    // EventMerger::late_events()
  uint64_t forced_emits = 0;   // EventMerger::forced_emits()
  bool on_every_core = false;  // the pass ran on every core (pieces.h)
  // Events chunks whose events stopped decoding part-way (WarnMerge says
  // which; the index pass reported those it found, as their offsets say).
  std::vector<MalformedChunk> malformed;
  // Files cut (or replaced) between the index pass and this one: their
  // events past the cut are missing (WarnMerge fails the verb).
  std::vector<ShortReading> short_readings;
};

// The merger of the pass every verb but info and verify makes: reopens the
// traces to merge every thread's events of every file in time order. A
// file that cannot be reopened is reported and left out; fails only if
// none can.
absl::Status OpenPass(const VerbContext& ctx, TraceSetMerger* merger);

// Hands each event of `merger` to consume(const format::Event&, const
// ThreadRec&), after on_cut(const ThreadRec&, uint64_t ticks) where the
// thread's events resume after a loss, at the event's time (Event::
// after_loss: its pairing must not reach back, IntervalTracker::
// CutThread). Stops early once keep_going() is false, asking every 1024
// events.
template <typename Consume, typename OnCut, typename KeepGoing>
PassSummary RunPass(TraceSetMerger* merger, Consume&& consume, OnCut&& on_cut,
                    KeepGoing&& keep_going) {
  PassSummary pass;
  const format::Event* e;
  const ThreadRec* t;
  bool stopped = false;
  while (merger->Next(&e, &t)) {
    if (__builtin_expect(e->after_loss, false)) on_cut(*t, e->time);
    consume(*e, *t);
    if (e->time > pass.last_ticks) pass.last_ticks = e->time;
    if ((++pass.events & 1023) == 0 && !keep_going()) {
      stopped = true;
      break;
    }
  }
  pass.late_events = merger->late_events();
  pass.malformed = merger->malformed();
  pass.forced_emits = merger->forced_emits();
  if (!stopped) pass.short_readings = merger->ShortReadings();
  return pass;
}

// The two at once: stops early once ctx.out is broken or failed (a closed
// pipe).
template <typename Consume, typename OnCut>
absl::StatusOr<PassSummary> ForEachEvent(const VerbContext& ctx, Consume&& consume,
                                         OnCut&& on_cut) {
  TraceSetMerger merger(*ctx.set, ctx.merge);
  if (absl::Status opened = OpenPass(ctx, &merger); !opened.ok()) return opened;
  return RunPass(&merger, std::forward<Consume>(consume), std::forward<OnCut>(on_cut),
                 [&ctx] { return ctx.out->good(); });
}

// A piece's paired events into *pass (a PieceMerger's on_piece).
inline void CountPiece(const Piece& piece, PassSummary* pass) {
  pass->events += piece.paired_events;
  pass->last_ticks = std::max(pass->last_ticks, piece.paired_last_ticks);
  if (!piece.malformed.reason.empty()) pass->malformed.push_back(piece.malformed);
}

// The loop of a pass on every core (pieces.h): each item of `merger` goes
// to `target` through FeedEntry, after on_item(item), the events fed
// counted in *pass and shown to on_event(event, item) (false stops the
// loop: returns false), a sink's output to on_output(item). Stops early
// once ctx.out is broken or failed (nobody reads).
template <typename Target, typename OnOutput, typename OnEvent, typename OnItem>
bool DrainPieces(const VerbContext& ctx, PieceMerger* merger, Target* target, PassSummary* pass,
                 OnOutput&& on_output, OnEvent&& on_event, OnItem&& on_item) {
  format::Event e;
  PieceMerger::Item item;
  uint64_t items = 0;
  while (merger->Next(&item)) {
    on_item(item);
    if (const format::Event* event = FeedEntry(item, target, &e)) {
      ++pass->events;
      pass->last_ticks = std::max(pass->last_ticks, event->time);
      if (!on_event(*event, item)) return false;
    } else if (item.entry->type == Piece::Entry::Type::kOutput) {
      on_output(item);
    }
    if ((++items & 1023) == 0 && !ctx.out->good()) return true;
  }
  for (const ShortReading& r : merger->ShortReadings()) pass->short_readings.push_back(r);
  return true;
}
template <typename Target, typename OnOutput, typename OnEvent>
bool DrainPieces(const VerbContext& ctx, PieceMerger* merger, Target* target, PassSummary* pass,
                 OnOutput&& on_output, OnEvent&& on_event) {
  return DrainPieces(ctx, merger, target, pass, std::forward<OnOutput>(on_output),
                     std::forward<OnEvent>(on_event), [](const PieceMerger::Item&) {});
}

// The reading thread's output in a pass whose sinks' outputs go apart
// (PieceSink::outputs_apart): while a merger takes them (Attach), the
// bytes written here go to its runs at the place of the item it gave last
// (PieceMerger::AppendOwn), else to `out`; the runs go to `out`.
class PieceOutput final : public Output, public OrderedOutput {
 public:
  explicit PieceOutput(Output* out) : out_(out) {}
  // What hands on the bytes its writer buffers (into this output), called
  // when `pending` (the writer's buffer) holds some.
  void set_flush(std::function<void()> flush, const TextBuffer* pending) {
    flush_ = std::move(flush);
    pending_ = pending;
  }
  // The same for a writer whose buffer is not a TextBuffer: `pending`
  // says whether it holds some.
  void set_flush(std::function<void()> flush, std::function<bool()> pending) {
    flush_ = std::move(flush);
    has_pending_ = std::move(pending);
  }
  // What is told the size of the pieces' bytes of each run as it goes out.
  void set_on_run(std::function<void(size_t)> on_run) { on_run_ = std::move(on_run); }
  // Bytes written from now on go to `merger`'s runs while it takes them,
  // each item's once set_flush's function and this output's buffer have
  // handed them on; null: to `out`, and what is buffered is dropped unless
  // `keep`.
  void Attach(PieceMerger* merger, bool keep = true) {
    if (merger == nullptr) {
      if (!keep) DropBuffered();
      merger_ = nullptr;
    }
    Pass();
    merger_ = merger;
  }
  void Settle() override {
    if (flush_ && (pending_ != nullptr ? !pending_->empty() : has_pending_())) flush_();
    Pass();
  }
  // Whether the runs' CRCs are wanted: not where `out` makes other bytes
  // of them (perfetto's PacketBlocks).
  void set_wants_crc(bool wants) { wants_crc_ = wants; }
  bool wants_crc() const override { return wants_crc_; }
  void WriteRun(std::string* bytes, uint32_t crc, size_t own_bytes) override {
    if (on_run_) on_run_(bytes->size() - own_bytes);
    out_->WriteTaken(bytes, crc);
    SetState(out_->broken(), out_->status());
  }
  // What fills the sinks' holes (OrderedOutput::HoleText).
  void set_hole_text(std::function<std::string_view(uint64_t)> fn) { hole_text_ = std::move(fn); }
  std::string_view HoleText(uint64_t key) override {
    return hole_text_ ? hole_text_(key) : std::string_view();
  }
  // Before what hole_text gives changes (PieceMerger::FillHolesBeforeChange).
  void BeforeHoleChange() {
    if (merger_ != nullptr) merger_->FillHolesBeforeChange();
  }
  // What formats its writer's records (RecordRoom) on the workers.
  void set_record_formatter(std::function<std::unique_ptr<OwnRecordFormatter>()> make) {
    make_formatter_ = std::move(make);
  }
  std::unique_ptr<OwnRecordFormatter> NewRecordFormatter() override { return make_formatter_(); }
  // Whether RecordRoom takes a record now (else the writer writes its
  // bytes itself): while a merger takes the bytes, given a formatter.
  bool takes_records() const {
    return merger_ != nullptr && merger_->takes_own() && make_formatter_ != nullptr;
  }
  // Room for a record of n bytes to be formatted on a worker at this
  // place of the output, after the bytes written so far: the caller fills
  // it in place before anything else is written
  // (PieceMerger::AppendOwnRecord). While the writer takes an event kept
  // apart that has a slot (ApartInOrder, PieceSink::SlotFor), the place
  // is that slot's (PieceMerger::SlotRecordRoom). REQUIRES:
  // takes_records().
  char* RecordRoom(size_t n) {
    if (merger_->in_slot()) return merger_->SlotRecordRoom(n);
    Settle();
    return merger_->AppendOwnRecord(n);
  }

 protected:
  void WriteRaw(const char* p, size_t n) override {
    if (merger_ == nullptr) {
      out_->Write(std::string_view(p, n));
    } else if (merger_->takes_own()) {
      merger_->AppendOwn(p, n);
    }
    SetState(out_->broken(), out_->status());
  }

 private:
  Output* out_;
  PieceMerger* merger_ = nullptr;
  std::function<void()> flush_;
  const TextBuffer* pending_ = nullptr;
  std::function<bool()> has_pending_;
  bool wants_crc_ = true;
  std::function<void(size_t)> on_run_;
  std::function<std::string_view(uint64_t)> hole_text_;
  std::function<std::unique_ptr<OwnRecordFormatter>()> make_formatter_;
};

// Gives a writer that writes as it reads (chrome, vtune-csv) the events
// its pieces kept apart (PieceSink::KeepsApart), as the serial pass gives
// them (OnEvent, and OnKeptFrame for a frame of a null id): the records it
// makes for one that has a slot go in that slot (PieceOutput::RecordRoom).
template <typename Writer>
class InSlots final : public ApartInOrder {
 public:
  explicit InSlots(Writer* writer) : writer_(writer) {}
  void OnApartEvent(const format::Event& e, const ThreadRec& t) override { writer_->OnEvent(e, t); }
  void OnApartFrame(const KeptFrame& frame, const ThreadRec& t) override {
    writer_->OnKeptFrame(frame, t);
  }

 private:
  Writer* writer_;
};

// The pass on every core (pieces.h) of a verb that writes as it reads
// (text, chrome, vtune-csv, perfetto): the pieces' sinks come from
// make_sink(filter, clock), given a filter and a clock made here for them
// to copy (both keep caches; a worker must not make its own from the
// index); `target` gets what FeedEntry feeds, after start() once the pass
// can begin. Where the sinks' outputs go apart (PieceSink::outputs_apart:
// text, chrome, vtune-csv), `own` is a PieceOutput, which `target` writes
// to and which puts its bytes among the sinks' outputs in the serial
// pass's order; else (perfetto: `own` is nullptr) `target` gets each
// sink's output too, AppendOutput(output, thread), in that order. Where
// the sinks keep events apart (PieceSink::KeepsApart), `in_order` takes
// them (PieceMerger::set_apart_in_order). Returns nullopt when the pass
// cannot be exact (having written part of the output, maybe), or with
// more than PieceMerger::kManyFiles files.
template <typename MakeSink, typename Target, typename Start, typename Own>
std::optional<PassSummary> WriteInPieces(const VerbContext& ctx, MakeSink&& make_sink,
                                         Target* target, Start&& start, Own own,
                                         ApartInOrder* in_order = nullptr) {
  constexpr bool kApart = std::is_same_v<Own, PieceOutput*>;
  static_assert(kApart || std::is_same_v<Own, std::nullptr_t>);
  if (!ctx.parallel || ctx.set->files().size() > PieceMerger::kManyFiles) return std::nullopt;
  PassSummary pass;
  const Filter filter(ctx.filter, *ctx.index);
  const Clock clock = ctx.index->clock;
  PieceMerger merger(
      *ctx.set, [&]() -> std::unique_ptr<PieceSink> { return make_sink(filter, clock); }, ctx.merge,
      [&pass](const Piece& piece) { CountPiece(piece, &pass); });
  if (!merger.exact()) return std::nullopt;
  if constexpr (kApart) {
    merger.set_ordered_output(own);
    merger.set_apart_in_order(in_order);
    own->Attach(&merger);
  }
  start();
  DrainPieces(
      ctx, &merger, target, &pass,
      [target](const PieceMerger::Item& item) {
        // (Where outputs go apart, no item is one.)
        if constexpr (!kApart) {
          target->AppendOutput(item.piece->OutputAt(*item.entry), *item.thread);
        }
      },
      [](const format::Event&, const PieceMerger::Item&) { return true; });
  if constexpr (kApart) {
    own->Attach(nullptr, /*keep=*/merger.exact());
  }
  if (!merger.exact() && ctx.out->good()) return std::nullopt;
  pass.on_every_core = true;
  return pass;
}

// For a verb that writes as it reads (text, chrome): `on_every_core(c)`
// is its pass on every core (pieces.h), returning nullopt when it cannot
// be exact (having written part of the output, maybe); then `again(c)`
// writes everything again, and what the first wrote is checked (its
// CRC32C) and not written twice (RewrittenOutput). Each gets a copy of
// ctx whose out is theirs. Fails if the two differ (a file changed while
// it was read: the `what` is inconsistent). *rewritten (may be null): the
// bytes the first wrote, when `again` ran.
template <typename OnEveryCore, typename Again>
absl::StatusOr<PassSummary> WriteOnce(const VerbContext& ctx, const char* what,
                                      OnEveryCore&& on_every_core, Again&& again,
                                      uint64_t* rewritten) {
  // With ctx.parallel each pass formats on its thread while a thread of
  // the output's (ThreadedOutput) takes the CRC and writes.
  auto passes_on = [&ctx](RewrittenOutput* out, std::optional<ThreadedOutput>* threaded) {
    if (!ctx.parallel) return static_cast<Output*>(out);
    threaded->emplace(out);
    return static_cast<Output*>(&**threaded);
  };
  WrittenPrefix written;
  {
    RewrittenOutput out(ctx.out, WrittenPrefix(), /*keep_crc=*/true);
    std::optional<ThreadedOutput> threaded;
    VerbContext first = ctx;
    first.out = passes_on(&out, &threaded);
    std::optional<PassSummary> pass = on_every_core(first);
    first.out->Flush();
    if (pass) {
      out.Finish();
      return *pass;
    }
    written = out.written();
  }
  if (rewritten != nullptr) *rewritten = written.bytes;
  RewrittenOutput out(ctx.out, written, /*keep_crc=*/false);
  std::optional<ThreadedOutput> threaded;
  VerbContext second = ctx;
  second.out = passes_on(&out, &threaded);
  absl::StatusOr<PassSummary> pass = again(second);
  second.out->Flush();
  out.Finish();
  if (!pass.ok()) return pass.status();
  if (out.mismatch()) {
    return absl::DataLossError(absl::StrCat(
        "the pass on every core stopped after ", written.bytes, " bytes of ", what,
        ", and the next pass wrote them otherwise (did a file change while it was read?): the ",
        what, " is inconsistent"));
  }
  return pass;
}

// Reports the pairing engine's unbalanced counts, if any, in one line.
void WarnUnbalanced(const VerbContext& ctx, const Unbalanced& u);

// The malformed events chunks the pass found that the index pass did not
// report (a gap reported at a chunk's offset, 0 bytes, is not that
// chunk's report), each once, in the order of the files and offsets.
std::vector<const MalformedChunk*> NewlyMalformed(const VerbContext& ctx, const PassSummary& pass);

// Warns of what the pass found (events out of time order, malformed
// chunks the index pass did not see: NewlyMalformed); fails (an input failure:
// PassOpenFailure) where a file was cut between the passes, having said
// so.
[[nodiscard]] absl::Status WarnMerge(const VerbContext& ctx, const PassSummary& pass);

// The last tick of the trace: the end record's, else the largest of the
// last sync point and `last_event`.
uint64_t TraceEndTicks(const TraceIndex& index, uint64_t last_event);

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_VERB_H_
