// A pass over a set of trace files (trace_set.h) on every core
// (docs/ITT_DUMP.md, "Time order and memory").
//
// Each events chunk (a "piece": one thread's events) is decompressed and
// decoded on worker threads shared by the files' readers (PieceDecoder,
// which rewrites a set's events to its ids and time axis as
// TraceSetMerger does), which also pair
// the simple tasks that begin and end in it (IntervalTracker's piece
// mode) and hand them to the consumer's PieceSink, made per piece. What
// the piece leaves - every other event, the tasks still open at its end,
// the time its paired tasks add to a task begun before it - stays in the
// piece as entries. The reading thread takes each file's pieces in file
// order (the sinks can be added up then: PieceMerger's on_piece) and
// merges their entries in the order TraceSetMerger gives the same events
// (time, then file, then thread: merge.h), so the whole trace's tracker,
// fed those entries (PieceMerger::Item), ends where it would have after
// every event.
//
// A merger takes the files of a set at once, or one file (only_file):
// when no result of a process depends on the order of its events against
// another's (for stats: stats.cc, MeetsOtherProcesses), the files can go
// one after another, each merging only its own threads' kept events.
//
// With more than kManyFiles files at once the pass goes on only while the
// pieces keep few of their events for the reading thread (at most one in
// kManyFilesKeep over the first kProbeEvents): else that merge of dozens
// of streams is bound by memory traffic (each file's kept events come
// from another core, and dozens of streams defeat the hardware
// prefetcher), and the serial merge is faster with less memory
// (measured with 64 files, docs/ITT_DUMP.md). Pieces keep few when
// their threads are alone in their processes (pieces pair their frames
// too) or have no frames.
//
// Exact only when each thread's events keep their time order, every
// thread is in the index, every file opens again and the files share a
// timebase (not TimeAlignment::kWallClock, where two ticks of one file
// may become the same nanosecond): otherwise the serial merge's order of
// the events it would deliver is not the order of their subset. Nor when
// the serial merge could pass its lookahead (it would then deliver some
// events early: PieceMerger keeps an upper bound of what it would hold,
// the payloads of the chunks read whose last event is not yet passed), or
// tasks could nest past IntervalTracker::kMaxDepth (the depth a thread's
// tasks reach before a piece, plus the piece's own). In each case
// PieceMerger stops with exact() false (the caller runs the serial pass
// instead). Traces the collector wrote on one host keep the order.
//
// Memory: the pieces in flight (per file 2 * threads + 16 for one file, 2
// for several; each with its chunk's stored and decompressed bytes; files
// taken one after another add the next one's: FileByFileMergers) and
// the ones queued for the merge (about one flush round per thread;
// bounded by MergeOptions::max_buffered_bytes, past which the pass stops
// as not exact), each holding its kept entries (24 bytes and their packed
// fields each) and a sink.
//
// Thread safety: PieceDecoder is called concurrently by the reader's
// workers (its pool of pieces is locked); PieceMerger: none.

#ifndef TOOLS_ITT_DUMP_MODEL_PIECES_H_
#define TOOLS_ITT_DUMP_MODEL_PIECES_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "format/format.h"
#include "format/trace_reader.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/intervals.h"
#include "tools/itt_dump/model/merge.h"
#include "tools/itt_dump/model/text_buffer.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/model/trace_set.h"

namespace ittc {
namespace itt_dump {

// What a consumer keeps of the tasks a piece paired. One per piece, made
// on a worker; Clear() readies it for the next piece.
//
// A sink may also make outputs to go out in order (a verb's text of an
// interval, or of an event): each output it makes while the piece pairs
// an event (BeginOutput ... EndOutput) gets an entry of its own
// (Type::kOutput) at that event's place, which the consumer writes when
// the merge reaches it (Piece::OutputAt).
class PieceSink : public IntervalListener {
 public:
  virtual void Clear() = 0;
  // What the piece leaves to the whole trace's tracker for this consumer.
  virtual IntervalTracker::PiecePairing pairing() const { return {}; }
  // Whether it gets the events the piece pairs (OnPairedEvent), each after
  // the intervals it closes.
  virtual bool wants_paired_events() const { return false; }
  virtual void OnPairedEvent(const format::Event& e, const ThreadRec& thread) {}
  // Whether an event of `kind` that the piece would forward without
  // touching its tracker (not a task or frame end it has no begin of, not
  // a task_begin_fn...: a kind the whole trace's tracker alone follows) is
  // the consumer's on the worker instead, because nothing of the reading
  // thread's state needs it: the piece takes it as paired
  // (OnPairedEvent). With wants_paired_events(), in order among the
  // paired events (its outputs at its place); without, OnPairedEvent gets
  // only these events, and the sink makes no output of them. Asked once
  // per kind without wants_paired_events(), as Ignores.
  virtual bool TakesForwarded(format::EventKind kind) const { return false; }
  // Whether the consumer does nothing with an event of `kind` that the
  // piece would forward (on the worker or on the reading thread): the
  // piece counts it with the paired ones and keeps nothing of it. Asked
  // once per kind, of a sink made for that (PieceDecoder's constructor).
  virtual bool Ignores(format::EventKind kind) const { return false; }
  // Whether an event of `kind` that the piece would forward goes apart
  // instead (ApartConsumer, PieceMerger::set_apart_consumer): the
  // consumer's results from it depend on nothing but such events. Asked
  // once per kind, as Ignores. (Or where the merger gives them to an
  // ApartInOrder instead: PieceMerger::set_apart_in_order.)
  virtual bool KeepsApart(format::EventKind kind) const { return false; }
  // Whether an event of `kind` kept apart (KeepsApart) leaves a slot at
  // its place among the outputs (outputs_apart): an output of no bytes of
  // the sink's, which the merge fills with the record the ApartInOrder
  // leaves as it takes that event (PieceOutput::RecordRoom then fills it). Asked
  // once per kind, as Ignores.
  virtual bool SlotFor(format::EventKind kind) const { return false; }
  // Whether it gets OnBegin for every task the piece begins (paired,
  // forwarded or opened on the reading thread later: its listener word
  // goes along, Piece::begin_words and Piece::opens).
  virtual bool wants_begins() const { return false; }
  // Whether it may write outputs in OnInterval: then the piece hands it
  // its paired tasks one at a time (each output's entry takes the place of
  // the event that closed the interval), else in runs.
  virtual bool outputs_intervals() const { return true; }
  // Whether it may write outputs in OnBegin (with wants_begins): then the
  // piece pairs every simple task on its own too (each output's entry
  // takes the place of the begin). What it writes for a begin that the
  // piece forwards (a task the whole trace's tracker begins: OnBegin comes
  // again there) is dropped.
  virtual bool outputs_begins() const { return false; }
  // Whether its outputs are bytes of the verb's output that the reading
  // thread would write as they are, with nothing of its state depending on
  // them: then they are not among the piece's entries (Piece::
  // output_entries), and the merger merges them with the reading thread's
  // own bytes on workers (PieceMerger::set_ordered_output), which it must
  // be given.
  virtual bool outputs_apart() const { return false; }

  // With outputs_apart: a place in an output left for bytes that only the
  // reading thread knows at the output's place in the pass's order (a
  // sync object's name, which events on any thread set): the merge puts
  // there OrderedOutput::HoleText(key) as it is there (AddHole).
  struct Hole {
    uint32_t output = 0;  // the output's index among this sink's
    uint32_t at = 0;      // where in its bytes
    // Its key's number among the sink's distinct keys (hole_key), and
    // one past the largest number of the holes up to it.
    uint32_t key_number = 0;
    uint32_t keys = 0;
  };
  const std::vector<Hole>& holes() const { return holes_; }
  // The outputs that are slots (SlotFor), by index among the sink's, in
  // order.
  const std::vector<uint32_t>& slots() const { return slots_; }
  // Makes the next output a slot (no bytes). For PieceDecoder, at the
  // place of an event kept apart that SlotFor names.
  void AddSlot() {
    BeginOutput();
    slots_.push_back(static_cast<uint32_t>(offsets_.size()));
    EndOutput(/*keep=*/true);
  }
  // The distinct keys of the holes, numbered in the order of their first
  // holes: a run's holes of one piece are filled by key, a text per key,
  // where they have fewer keys than holes (a program names a few objects
  // again and again).
  uint64_t hole_key(size_t number) const { return hole_keys_[number]; }
  // The key numbers the holes before hole `end` have are below this.
  size_t HoleKeysBefore(size_t end) const { return end == 0 ? 0 : holes_[end - 1].keys; }

  size_t outputs() const { return offsets_.size(); }
  uint32_t output_offset(size_t i) const { return offsets_[i]; }
  // The outputs: each a record at its offset, a 4-byte length (host order)
  // and that many bytes.
  const TextBuffer& output_records() const { return outputs_; }
  // Clear() and the outputs.
  void Reset() {
    offsets_.clear();
    outputs_.clear();
    holes_.clear();
    hole_keys_.clear();
    hole_key_numbers_.clear();
    slots_.clear();
    Clear();
  }
  // Drops the outputs from the `first`th on (those of an event the piece
  // forwards: outputs_begins).
  void DropOutputsFrom(size_t first) {
    if (first >= offsets_.size()) return;
    outputs_.Truncate(offsets_[first]);
    offsets_.resize(first);
    DropHolesFrom(first);
    while (!slots_.empty() && slots_.back() >= first) slots_.pop_back();
  }

 protected:
  // Where outputs are written, for a formatter that keeps a pointer to it.
  TextBuffer& output_buffer() { return outputs_; }
  // Starts an output: the bytes appended to output_buffer() until
  // EndOutput are its.
  void BeginOutput() {
    output_start_ = outputs_.size();
    outputs_.Room(sizeof(uint32_t));
    outputs_.Advance(sizeof(uint32_t));
  }
  // Leaves a hole (Hole) in the output being made at `at`, an offset in
  // output_buffer() past what the output has so far. REQUIRES:
  // outputs_apart(), between BeginOutput and EndOutput.
  void AddHole(size_t at, uint64_t key) {
    const auto [number, added] = hole_key_numbers_.Insert(key);
    if (added) {
      *number = static_cast<uint32_t>(hole_keys_.size());
      hole_keys_.push_back(key);
    }
    const uint32_t keys = std::max(*number + 1, holes_.empty() ? 0 : holes_.back().keys);
    holes_.push_back({static_cast<uint32_t>(offsets_.size()),
                      static_cast<uint32_t>(at - output_start_ - sizeof(uint32_t)), *number, keys});
  }
  // Ends it; `keep` false drops it (no output).
  void EndOutput(bool keep) {
    if (!keep) {
      outputs_.Truncate(output_start_);
      DropHolesFrom(offsets_.size());
      return;
    }
    const auto size = static_cast<uint32_t>(outputs_.size() - output_start_ - sizeof(uint32_t));
    std::memcpy(outputs_.data() + output_start_, &size, sizeof size);
    offsets_.push_back(static_cast<uint32_t>(output_start_));
  }

 private:
  void DropHolesFrom(size_t output) {
    while (!holes_.empty() && holes_.back().output >= output) holes_.pop_back();
  }

  TextBuffer outputs_;
  size_t output_start_ = 0;
  std::vector<uint32_t> offsets_;
  std::vector<Hole> holes_;  // by output, in order
  std::vector<uint32_t> slots_;
  // By key number, the key (a dropped hole's key keeps its number: a run
  // of holes after it may look its text up for nothing, no more).
  std::vector<uint64_t> hole_keys_;
  U64Map<uint32_t> hole_key_numbers_;  // key -> number
};

// A sink's output record, for a consumer that reads it back (not a
// verb's text): fixed-size values (host order: the record stays in the
// process), texts (a 4-byte size, then the bytes) and args (key, value,
// whether the value is text), read in the order they were written.
struct PieceRecord {
  static void Put(TextBuffer* out, const void* p, size_t n) {
    out->append(static_cast<const char*>(p), n);
  }
  static void PutText(TextBuffer* out, std::string_view text) {
    const auto n = static_cast<uint32_t>(text.size());
    Put(out, &n, sizeof n);
    out->append(text.data(), text.size());
  }
  static void PutArg(TextBuffer* out, const Arg& a) {
    PutText(out, a.key);
    PutText(out, a.value);
    out->push_back(static_cast<char>((a.is_text ? 1 : 0) | (a.is_real ? 2 : 0)));
  }

  class Reader {
   public:
    explicit Reader(std::string_view bytes) : at_(bytes.data()), end_(at_ + bytes.size()) {}
    void Get(void* p, size_t n) {
      std::memcpy(p, at_, n);
      at_ += n;
    }
    std::string_view Text() {
      uint32_t n;
      Get(&n, sizeof n);
      const std::string_view text(at_, n);
      at_ += n;
      return text;
    }
    // The next arg as views of the record.
    void NextArg(std::string_view* key, std::string_view* value, bool* is_text, bool* is_real) {
      *key = Text();
      *value = Text();
      const char flags = *at_++;
      *is_text = (flags & 1) != 0;
      *is_real = (flags & 2) != 0;
    }
    bool done() const { return at_ >= end_; }

   private:
    const char* at_;
    const char* end_;
  };
};

// One events chunk as the workers left it.
class Piece final : public format::DecodedChunk {
 public:
  struct Entry {
    enum class Type : uint8_t {
      kEvent,       // an event for the whole trace's tracker (EventAt)
      kOpen,        // a task still open at the piece's end: opens[index]
      kChildTicks,  // only child_ticks (the piece's tail)
      kOutput,      // the sink's output at offset `index` (OutputAt)
      // A frame_begin or frame_end (kind) of a null id that the piece
      // forwards with all its frames (frames_forwarded): an event too
      // (EventAt), its domain an 8-byte word at `index` in packed, which
      // FeedEntry reads without unpacking fields.
      kKeptFrame,
      // The piece's first entry where its thread's events resume after a
      // loss (TraceIndex::cut_chunks): the whole trace's tracker cuts the
      // thread (CutThread) before anything of the piece.
      kCut
    };
    uint64_t time = 0;         // the merge's key
    uint64_t child_ticks = 0;  // for the thread's innermost task, first
    uint32_t index = 0;        // kEvent, kKeptFrame: where its fields start in packed
    format::EventKind kind = format::EventKind::kInvalid;
    Type type = Type::kEvent;
  };
  // An output that is not among the entries (PieceSink::outputs_apart).
  struct OutputEntry {
    uint64_t time = 0;    // the merge's key, as an entry's
    uint32_t offset = 0;  // the sink's output at this offset (OutputAt)
  };

  // An events chunk whose payload prefix decoded, of a thread the index
  // knows (thread: the set's, set) or not (thread null: the pass cannot be
  // exact).
  bool events_chunk = false;
  size_t file = 0;            // in the set
  uint32_t thread_index = 0;  // the file's
  const ThreadRec* thread = nullptr;
  // The events whose tasks the sink got: not among the entries.
  uint64_t paired_events = 0;
  uint64_t paired_last_ticks = 0;
  // Of all its events, on the set's time axis (as every time here).
  uint64_t first_time = kNoEvents;
  uint64_t last_time = 0;
  bool time_back = false;  // an event earlier than the one before it
  // Whether it forwards every frame_begin and frame_end it does not keep
  // apart (it pairs none: its process's pieces all do the same), so that
  // the whole trace's tracker gets each of its process's frames as an
  // entry, in order (FeedEntry's OnKeptFrame).
  bool frames_forwarded = false;
  // The chunk's decompressed payload: what the serial merge holds while it
  // has events of the chunk to deliver.
  size_t payload_bytes = 0;
  uint64_t chunk_offset = 0;  // in its file
  // Where its events stopped decoding part-way (reason empty: they did
  // not), as the serial merge notes it.
  MalformedChunk malformed;
  // The deepest nesting of tasks begun in the piece.
  size_t max_depth = 0;
  // The most frames it had open at once of those it began.
  size_t max_open_frames = 0;
  // What the merge counts it for while it is queued (its memory).
  size_t queued_bytes = 0;
  std::vector<Entry> entries;
  // With PieceSink::outputs_apart: the outputs in order, and for each
  // entry how many of them come before it in the thread's order.
  std::vector<OutputEntry> output_entries;
  std::vector<uint32_t> outputs_before;
  // The merger's: the thread's outputs in the pieces before this one, and
  // what still holds the piece (its entries to merge, its outputs to merge).
  uint64_t output_base = 0;
  int holds = 0;
  size_t holes_taken = 0;  // the sink's holes in runs already
  size_t slots_taken = 0;  // the sink's slots in runs already
  // The texts of its holes filled before their runs closed (from
  // holes_taken on; FillHolesBeforeChange).
  std::vector<std::string_view> hole_texts;
  // The kept events' fields, format::PackFields's bytes in [0, packed_size):
  // a few bytes an event (an Event takes 264), which is what the reading
  // thread reads of another core's memory.
  std::vector<char> packed;
  size_t packed_size = 0;
  std::vector<Interval> opens;
  // With PieceSink::wants_begins: the listener words the sink gave the
  // tasks whose begins the piece forwarded, in order.
  std::vector<uint64_t> begin_words;
  // With PiecePairing::reads_open_task: IntervalTracker::open_task_words.
  std::vector<uint64_t> open_task_words;
  // The frame_begins and frame_ends the piece kept apart, in order
  // (IntervalTracker::PiecePairing::frames_apart): not among the entries.
  using Frame = KeptFrame;
  std::vector<Frame> frames;  // PieceMerger takes it over
  // The events kept apart (PieceSink::KeepsApart): kEvent entries, their
  // fields packed as `packed` holds the entries', or as plain varints where
  // every field is a number (pieces.cc, ApartNumbers), in
  // [0, apart_packed_size) of apart.packed. PieceMerger takes them over.
  struct Records {
    std::vector<Entry> entries;
    std::vector<char> packed;
  };
  Records apart;
  size_t apart_packed_size = 0;
  std::unique_ptr<PieceSink> sink;
  const char* outputs = nullptr;  // sink->output_records()'s
  size_t outputs_size = 0;

  // The event of entry `en` (one of entries). REQUIRES: en.type == kEvent
  // or kKeptFrame.
  void EventAt(const Entry& en, format::Event* e) const;
  // The frame of entry `en`. REQUIRES: en.type == kKeptFrame.
  KeptFrame KeptFrameAt(const Entry& en) const { return KeptFrameOf(en, packed.data()); }
  // The frame of a kKeptFrame entry whose fields are in `packed` (the
  // piece's, or a block's of events kept apart).
  static KeptFrame KeptFrameOf(const Entry& en, const char* packed) {
    KeptFrame f;
    f.time = en.time;
    std::memcpy(&f.domain, packed + en.index, sizeof f.domain);
    f.begin = en.kind == format::EventKind::kFrameBegin;
    return f;
  }
  // The event of kept frame `f` (a frame_begin or frame_end of a null id).
  static void KeptFrameEvent(const KeptFrame& f, format::Event* e) {
    e->Init(f.begin ? format::EventKind::kFrameBegin : format::EventKind::kFrameEnd, f.time);
    e->Set(format::Field::kDomain, f.domain);
  }
  static bool IsEvent(Entry::Type type) {
    return type == Entry::Type::kEvent || type == Entry::Type::kKeptFrame;
  }
  // The output of entry `en`. REQUIRES: en.type == kOutput.
  std::string_view OutputAt(const Entry& en) const { return OutputAt(en.index); }
  std::string_view OutputAt(uint32_t offset) const {
    const char* record = outputs + offset;
    uint32_t size;
    std::memcpy(&size, record, sizeof size);
    return std::string_view(record + sizeof size, size);
  }

 private:
  friend class PieceDecoder;
  void Clear();
  // The decoder's piece-mode tracker (feeding sink) and scratch.
  std::unique_ptr<IntervalTracker> tracker_;
  std::vector<IntervalTracker::PieceOpen> piece_opens_;
  std::vector<Entry> kept_;
  std::vector<uint32_t> kept_outputs_before_;
};

class PieceDecoder final : public format::ChunkDecoder {
 public:
  using SinkFactory = std::function<std::unique_ptr<PieceSink>()>;
  // For the chunks of file `file` of `set` (which must outlive the
  // decoder); `make_sink` is called on workers.
  PieceDecoder(const TraceSet& set, size_t file, SinkFactory make_sink);
  ~PieceDecoder() override;

  std::unique_ptr<format::DecodedChunk> NewResult() const override;
  void Decode(const format::Chunk& chunk, format::DecodedChunk* out) const override;
  // Takes back a piece the merge is done with, for a later chunk.
  void Recycle(std::unique_ptr<Piece> piece) const;
  // Whether its sinks' outputs go apart (PieceSink::outputs_apart).
  bool outputs_apart() const { return outputs_apart_; }
  // Whether its sinks leave a slot for an event of `kind` kept apart
  // (PieceSink::SlotFor).
  bool SlotFor(format::EventKind kind) const {
    return static_cast<uint16_t>(kind) < slot_.size() && slot_[static_cast<size_t>(kind)] != 0;
  }
  // The set's thread of the file's thread `thread_index`, or null.
  const ThreadRec* SetThread(uint32_t thread_index) const {
    return rewriter_ != nullptr ? rewriter_->SetThread(thread_index)
                                : file_index_.Thread(thread_index);
  }

 private:
  const TraceIndex& index_;                // the set's
  std::unique_ptr<SetRewriter> rewriter_;  // for a set of several files
  const TraceIndex& file_index_;
  size_t file_;
  SinkFactory make_sink_;
  // By event kind (below 256), 1 where the sinks ignore it
  // (PieceSink::Ignores) or keep it apart (KeepsApart): bytes, not
  // vector<bool>'s bits, for the per-event test.
  std::vector<uint8_t> ignored_;
  std::vector<uint8_t> apart_;
  std::vector<uint8_t> taken_;  // TakesForwarded, of a sink without wants_paired_events
  std::vector<uint8_t> slot_;   // SlotFor
  bool outputs_apart_ = false;  // PieceSink::outputs_apart
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Piece>> pool_;  // guarded by mu_
};

// What a consumer makes of one stretch of what the pieces keep apart: the
// frames (PiecePairing::frames_apart), whose pairs it gets as their
// listener, and the events its sinks keep apart (PieceSink::KeepsApart).
// Made on the reading thread, fed on a worker, joined on the reading
// thread (ApartConsumer::JoinStretch).
class ApartStretch : public IntervalListener {
 public:
  // An event kept apart, in the merge's order among them (by time, then
  // thread), after every frame of the stretch.
  virtual void OnRecord(const format::Event& e, const ThreadRec& thread) = 0;
};

// The events of a stretch kept apart, for a consumer that takes them one
// at a time after all (a join that would meet a limit).
class StretchRecords {
 public:
  virtual ~StretchRecords() = default;
  // fn(event, thread) for each, in the merge's order.
  virtual void ForEachRecord(
      const std::function<void(const format::Event&, const ThreadRec&)>& fn) const = 0;
};

// Where what the pieces keep apart goes (PieceMerger::set_apart_consumer):
// a stretch at a time, paired and summed up on a worker (KeptFramePairing,
// ApartStretch), then joined on the reading thread, in the merge's order
// (by time, then queue), each stretch once every event before its last
// has been read, which can be before entries earlier than it are given
// out: for a consumer whose results from them depend on nothing else.
class ApartConsumer {
 public:
  virtual ~ApartConsumer() = default;
  // The whole trace's tracker (IntervalTracker::JoinFrames).
  virtual IntervalTracker* frame_tracker() = 0;
  // A stretch's own (reused for later stretches after JoinStretch).
  virtual std::unique_ptr<ApartStretch> NewStretch() = 0;
  // On the reading thread, in order, after the tracker joined the
  // stretch's frames (`frames_joined`) or took them one at a time (then
  // the pairs the stretch made are to be dropped): adds what `stretch`
  // made of its records (`records` has them, for one at a time), and
  // readies it for the next.
  virtual void JoinStretch(ApartStretch* stretch, bool frames_joined,
                           const StretchRecords& records) = 0;
};

// Where a pass whose sinks' outputs go apart takes the events its sinks
// keep apart (PieceSink::KeepsApart), one at a time on the reading
// thread, in the merge's order among themselves (by time, then queue), but
// not at their places among the items (PieceMerger::set_apart_in_order):
// for a consumer whose state from them depends on nothing else it takes,
// nor the rest of its state on them. What it writes for such an event
// goes in the event's slot (PieceSink::SlotFor), as a record
// (PieceMerger::SlotRecordRoom) that the run's OwnRecordFormatter formats
// where the slot is; it writes nothing else meanwhile (the merger may be
// closing a run: no AppendOwn).
class ApartInOrder {
 public:
  virtual ~ApartInOrder() = default;
  virtual void OnApartEvent(const format::Event& e, const ThreadRec& thread) = 0;
  // The same for a frame_begin or frame_end of a null id, as a KeptFrame
  // (IntervalTracker::OnFrame takes it so, with less work per frame).
  virtual void OnApartFrame(const KeptFrame& frame, const ThreadRec& thread) {
    format::Event e;
    Piece::KeptFrameEvent(frame, &e);
    OnApartEvent(e, thread);
  }
};

// Formats, on the worker that merges a run of output, the records a
// consumer left among its own bytes (PieceMerger::AppendOwnRecord): the
// formatting of what the reading thread alone can work out. One per run
// at a time (made by OrderedOutput::NewRecordFormatter on the reading
// thread, used by one worker at a time).
class OwnRecordFormatter {
 public:
  virtual ~OwnRecordFormatter() = default;
  // Appends the bytes of `record` to *out.
  virtual void Format(std::string_view record, std::string* out) = 0;
};

// Where a pass whose sinks' outputs go apart (PieceSink::outputs_apart)
// writes its output: runs of it, in order, each the pieces' outputs and
// the reading thread's own bytes (PieceMerger::AppendOwn) in the serial
// pass's order.
class OrderedOutput {
 public:
  virtual ~OrderedOutput() = default;
  // Hands on the consumer's bytes so far (PieceMerger::AppendOwn): called
  // before the merger notes a place.
  virtual void Settle() {}
  // The next run, in *bytes, whose CRC32C is `crc` (made on the worker)
  // and of which `own_bytes` are the consumer's (AppendOwn): taken (the
  // callee may leave another buffer there, of any bytes, for a later run
  // to size).
  virtual void WriteRun(std::string* bytes, uint32_t crc, size_t own_bytes) = 0;
  // Whether WriteRun needs the CRC (else it gets 0): the bytes go on as
  // they are (RewrittenOutput keeps their CRC), not made into others.
  virtual bool wants_crc() const { return true; }
  // The bytes of the sinks' holes (PieceSink::AddHole) of `key`, asked as
  // a run closes for the holes in its outputs not filled yet, or before
  // they change for those before the item given last
  // (PieceMerger::FillHolesBeforeChange): as they are at the place of
  // the last item given. The view must stay valid until the merger is
  // done. The merger keeps the texts it got until FillHolesBeforeChange,
  // which the consumer calls before any of them changes.
  virtual std::string_view HoleText(uint64_t key) { return {}; }
  // What formats the consumer's records (PieceMerger::AppendOwnRecord):
  // required once it leaves one.
  virtual std::unique_ptr<OwnRecordFormatter> NewRecordFormatter() { return nullptr; }
};

class PieceMerger {
 public:
  struct Item {
    const Piece* piece = nullptr;
    const Piece::Entry* entry = nullptr;  // one of piece->entries
    const ThreadRec* thread = nullptr;
  };
  using OnPiece = std::function<void(const Piece&)>;
  static constexpr size_t kManyFiles = 16;
  static constexpr uint64_t kManyFilesKeep = 16;
  static constexpr uint64_t kProbeEvents = uint64_t{1} << 20;
  // A pass over one file: chunks its reader's workers may run ahead of the
  // reading thread, besides two per worker.
  static constexpr int kChunksAhead = 16;

  static constexpr size_t kEveryFile = ~size_t{0};

  // Opens every file of `set` (which must outlive the merger) for the
  // pass, or only file `only_file`, on worker threads shared by all
  // (`pool`'s, which must outlive the merger; null: its own, one per online
  // CPU), each piece with a sink from `make_sink`. `on_piece` sees every
  // piece of a known thread as it is read, each file's in file order,
  // before any of its entries. Only one file's events are in the order the
  // serial merge gives them among themselves; a consumer whose results for
  // a process depend only on that process's events can take the files one
  // after another (a merger each, sharing one pool: set_read_ahead).
  PieceMerger(const TraceSet& set, PieceDecoder::SinkFactory make_sink, const MergeOptions& options,
              OnPiece on_piece, size_t only_file = kEveryFile, format::ReaderPool* pool = nullptr);
  ~PieceMerger();
  PieceMerger(const PieceMerger&) = delete;
  PieceMerger& operator=(const PieceMerger&) = delete;

  // A merger, on the same pool, that reads ahead (hands each of its files'
  // first chunks to the workers: TraceReader::ReadAhead) once this one
  // has read its last chunk: the next of files taken one after another,
  // whose first pieces the workers then make while this one's last are
  // merged, instead of waiting for its first Next. Its pieces in flight
  // add to this one's memory. Must outlive this merger's Next calls.
  void set_read_ahead(PieceMerger* next) { read_ahead_ = next; }

  // The next entry in merge order; false at the end, or once the pass
  // cannot be exact or is not taken (then exact() is false and the results
  // are not to be used). The item stays valid until the next call.
  bool Next(Item* item);
  bool exact() const { return inexact_reason_ == nullptr; }
  // The files of the pass whose reading ended before their index pass's
  // did. Once Next returned false.
  std::vector<ShortReading> ShortReadings() const;
  // At most how many frames the pieces had open at once of their own
  // (every thread at once, each its piece's most). The serial pass had at
  // most this many more keyed intervals open at any time than the tracker
  // fed the entries (its peak_keyed_open): the pass is exact only if their
  // sum is within IntervalTracker::OpenKeyedWithinLimits. Approximate when
  // frames go apart (they reach the tracker before entries earlier than
  // them): the sum can fall short of the serial peak by up to half, where
  // the check is against a tenth of the map's limit, and each key's own
  // intervals come in the serial order.
  size_t open_keyed_bound() const { return queues_.size() * max_piece_open_frames_; }
  // Why not, for a note.
  const char* inexact_reason() const { return inexact_reason_; }
  // Where what the pieces keep apart goes (required if the sinks' pairing
  // keeps frames apart or they keep events apart; set before the first
  // Next; must outlive the merger). The last stretch is joined before
  // Next returns false.
  void set_apart_consumer(ApartConsumer* consumer) { apart_consumer_ = consumer; }
  // Where the output goes when the sinks' outputs go apart (required then;
  // set before the first Next; must outlive the merger). The outputs are
  // merged on workers, a run at a time, with the bytes the consumer writes
  // for each item Next gives (AppendOwn, before the next call to Next):
  // those go out after every output before the item and before every
  // output after it. Runs go to `out` in order; by the time Next returns
  // false every run has gone out, or when not exact, a prefix of them.
  // Where the sinks' outputs do not go apart (they would be items, which a
  // caller that gives an ordered output does not take), the pass stops
  // (not exact).
  void set_ordered_output(OrderedOutput* out);
  // The consumer's bytes at the place of the last item given (before the
  // first item: at the start). REQUIRES: takes_own().
  void AppendOwn(const char* p, size_t n);
  // Room for a record of n bytes among those bytes (after those appended
  // so far), which the output's formatter (OrderedOutput::
  // NewRecordFormatter) turns into bytes on the worker that merges the
  // run: the caller writes it there (not zeroed: every field the
  // formatter uses) before it calls the merger again, which the pointer
  // is valid until. Made in place, field by field: a record made on the
  // stack and copied stalled the copy's wide loads on its narrow stores
  // (store forwarding). REQUIRES: takes_own().
  char* AppendOwnRecord(size_t n);
  // Where the events the sinks keep apart go when the consumer takes them
  // in order itself (set before the first Next; must outlive the merger;
  // requires set_ordered_output): each by the time the run that holds
  // its slot, or the slot of a later event, closes (or earlier: past
  // kStretchItems waiting, those before every event not read), every one
  // before Next returns false.
  void set_apart_in_order(ApartInOrder* consumer) { in_order_ = consumer; }
  // Room for the record of the slot of the event the ApartInOrder takes
  // now, n bytes, which the output's formatter formats where the slot is:
  // the caller fills it in place before it returns. A slot whose event
  // left none gets no bytes. REQUIRES: during OnApartEvent of an event
  // with a slot (PieceSink::SlotFor).
  char* SlotRecordRoom(size_t n);
  // Whether the ApartInOrder takes an event with a slot now: then the
  // records its consumer makes go in that slot (PieceOutput::RecordRoom).
  bool in_slot() const { return slot_queue_ != nullptr; }
  // Whether AppendOwn takes bytes: from set_ordered_output until Next
  // returns false.
  bool takes_own() const { return ordered_ != nullptr && !outputs_done_; }
  // Before the consumer changes what its HoleText gives, at the item given
  // last: the holes of the outputs before the item are filled now, as
  // they are (the others when their runs close).
  void FillHolesBeforeChange();
  // A run holds outputs up to the place of the item where it reaches this
  // many steps (items the consumer wrote bytes for), or this many
  // outputs before the earliest event still to read.
  static constexpr size_t kRunSteps = 4096;
  static constexpr uint64_t kRunOutputs = uint64_t{1} << 14;
  // Or where its own bytes (and records: AppendOwnRecord) reach this many.
  static constexpr size_t kRunOwnBytes = size_t{1} << 20;
  // Frames and events a stretch holds at least (but the last), unless
  // MergeOptions::stretch_items says otherwise.
  static constexpr size_t kStretchItems = size_t{1} << 16;

 private:
  struct File {
    std::unique_ptr<PieceDecoder> decoder;
    std::unique_ptr<format::TraceReader> reader;
    bool done = false;
  };
  // A piece's frames kept apart, or its events kept apart, shared by the
  // queue and the stretches that take them.
  struct FrameBlock {
    std::shared_ptr<const std::vector<Piece::Frame>> frames;
    size_t next = 0;
    const std::vector<Piece::Frame>& items() const { return *frames; }
  };
  using Records = Piece::Records;
  struct RecordBlock {
    std::shared_ptr<const Records> records;
    size_t next = 0;
    const std::vector<Piece::Entry>& items() const { return records->entries; }
  };
  class Stretch;
  class OutputRun;
  // A place in the merge's order, for the outputs before it: those of
  // queue `queue` whose number in its thread's outputs is below
  // `position`, and those of other queues before (time, queue); queue -1:
  // those before `time`. `all`: every output.
  struct Bound {
    uint64_t time = 0;
    int queue = -1;
    uint64_t position = 0;
    bool all = false;
  };
  // *to = from, field by field: a place is mostly written so just before,
  // and copied whole its wide loads stall on those narrow stores (store
  // forwarding), which was most of Issue's and AddStep's samples.
  static void CopyBound(const Bound& from, Bound* to) {
    to->time = from.time;
    to->queue = from.queue;
    to->position = from.position;
    to->all = from.all;
  }
  // Whether place a comes before place b (queue -1 before every queue).
  static bool Earlier(const Bound& a, const Bound& b) {
    if (a.all || b.all) return !a.all && b.all;
    if (a.time != b.time) return a.time < b.time;
    if (a.queue != b.queue) return a.queue < b.queue;
    return a.position < b.position;
  }
  static bool Before(const Bound& b, int queue, uint64_t time, uint64_t position) {
    if (b.all) return true;
    if (queue == b.queue) return position < b.position;
    return time < b.time || (time == b.time && queue < b.queue);
  }
  struct Queue {
    const ThreadRec* thread = nullptr;  // the set's
    const ThreadRec* local = nullptr;   // its file's (chunk_first_times)
    size_t file = 0;
    // How deep the whole trace's tracker has the thread's tasks after the
    // items given so far (opens and task begins in, task ends out).
    size_t depth = 0;
    std::deque<std::unique_ptr<Piece>> pieces;  // the front one's entries from head
    // The front piece and its entries [head, end): the merge's hot loop
    // reads them without going through the deque (null: no pieces). Head
    // and front not side by side: Pop writes head, and Issue's reads of
    // both, made one wide load, stalled on that narrow store (store
    // forwarding).
    const Piece::Entry* head = nullptr;
    const Piece::Entry* end = nullptr;
    const Piece* front = nullptr;
    size_t chunks_read = 0;
    uint64_t last_time = 0;  // of the thread's pieces read so far
    // Its last piece stopped decoding part-way (the rest of its events are
    // lost): its next with an event cuts the thread (CutBefore).
    bool cut_next = false;
    // Frames and events kept apart, each piece's in a block of its own,
    // from the front block's `next` on not given to a stretch yet.
    std::deque<FrameBlock> frames;
    std::deque<RecordBlock> records;
    // With set_apart_in_order: its events kept apart, from the front
    // block's `next` on not taken yet; the records of the slots of those
    // taken (the consumer's, empty where it left none): slot_ends[i] is
    // where record i ends in slot_bytes, from slot_head on not in a run
    // yet.
    std::deque<RecordBlock> in_order;
    TextBuffer slot_bytes;
    std::vector<size_t> slot_ends;
    size_t slot_head = 0;
    // Pieces whose outputs (PieceSink::outputs_apart) are not all in a run
    // yet, the front one's from out_next on; the thread's outputs so far.
    std::deque<Piece*> outs;
    size_t out_next = 0;
    size_t last_run_outputs = 0;  // its outputs in the last run closed
    uint64_t outputs_read = 0;
    bool any = false;
    bool has_head() const { return front != nullptr; }
    uint64_t head_time() const { return head->time; }
    // Points front, head and end at the front piece (or null).
    void SetFront() {
      front = pieces.empty() ? nullptr : pieces.front().get();
      head = front != nullptr ? front->entries.data() : nullptr;
      end = front != nullptr ? head + front->entries.size() : nullptr;
    }
  };
  // Reads file f's next piece; false at its end or once not exact.
  bool ReadChunk(size_t f);
  // The file whose next chunk the merge waits for.
  size_t FileToRead() const;
  // The earliest time of an event in a chunk not read yet (kNoEvents: every
  // file is read): every event before it is in a piece read already.
  uint64_t FirstUnread() const;
  void Enqueue(int qi, std::unique_ptr<Piece> piece);
  // Makes the piece's first entry a cut of its thread (Entry::Type::kCut),
  // at its first event's time: its thread's events resume after a loss.
  void CutBefore(Piece* piece) const;
  // What a queued piece counts for in buffered_.
  void CountQueued(Piece* piece);
  // Moves queue qi past its head (inline, for the merge's loop); at a
  // piece's end, PopPiece recycles it.
  void Pop(int qi);
  void PopPiece(Queue* q);
  void UpdateWaiting(int qi);
  // Once the reader is done and the last stretch (if any) is with the
  // workers: read_ahead_ reads ahead (its chunks queue behind that
  // stretch, and the workers take them while this thread waits for it),
  // then every stretch is joined.
  void JoinLastStretches();
  // set_read_ahead's reading ahead, before this merger's first Next.
  void ReadAhead();
  bool Fail(const char* reason) {
    inexact_reason_ = reason;
    return false;
  }

  const TraceSet& set_;
  MergeOptions options_;
  OnPiece on_piece_;
  std::unique_ptr<format::ReaderPool> own_pool_;  // with no pool given
  format::ReaderPool* pool_ = nullptr;            // own_pool_ or the one given
  std::vector<File> files_;                       // after own_pool_: the readers go first
  PieceMerger* read_ahead_ = nullptr;             // set_read_ahead's, until it reads ahead
  // What the serial merge would hold, per file (an upper bound), against
  // its lookahead (TraceSet::LookaheadPerFile), and the pieces counted
  // there by their last time, to let go once the merge is past it.
  std::vector<size_t> serial_held_;
  size_t serial_budget_ = 0;
  struct Held {
    uint64_t last_time;
    size_t file;
    size_t bytes;
    bool operator>(const Held& o) const { return last_time > o.last_time; }
  };
  std::vector<Held> held_;  // a min-heap by last_time
  // Lets go of the pieces whose last event is before `t`. Inline: the
  // merge asks at every item, and mostly there is none.
  void PassTime(uint64_t t) {
    if (!held_.empty() && held_.front().last_time < t) LetGo(t);
  }
  void LetGo(uint64_t t);
  // Not exact if queue q's front piece could nest its thread's tasks past
  // IntervalTracker::kMaxDepth.
  void CheckDepth(const Queue& q);
  // Hands out queue qi's head as *item, and notes what it does to the
  // thread's depth and the merge's time.
  void Issue(int qi, Item* item);
  // Gives the frames and events kept apart that precede every event not
  // read yet to a stretch once there are stretch_items_ of them, or all of
  // them once every file is read; joins the stretches done (all of them at
  // the end).
  void GiveStretch();
  // How many stretches, or runs, may be in flight at once (each holds
  // what it points into).
  static size_t MaxInFlight() { return 2 * static_cast<size_t>(format::OnlineCpus()) + 2; }
  // Whether a stretch or run submitted has run (`wait`: once it has; this
  // thread runs it if no worker has started it, instead of sleeping until
  // one does: on a VM, such sleeps and wake-ups were half of the reading
  // thread's time in `text`).
  bool Ready(format::PoolTask* task, bool wait) {
    if (!wait) return pool_->Done(task);
    pool_->RunOrWait(task);
    return true;
  }
  // Joins the stretches in flight that are done, in order (`all`: waits
  // for each).
  void JoinStretches(bool all);
  // Outputs apart (set_ordered_output): the place of the next item, a
  // step of the run being made (merging up to it the outputs after the
  // last step's place, then its own bytes).
  void AddStep(const Bound& bound);
  // Ends the run being made at its last step's place and hands it to a
  // worker.
  void CloseRun();
  // FillHolesBeforeChange's: the holes of the outputs before `bound`.
  void FillHolesBefore(const Bound& bound);
  // Appends to *texts the texts of p's holes [from, to) as they are now.
  void HoleTexts(const Piece& p, size_t from, size_t to, std::vector<std::string_view>* texts);
  // Sets *text to the text of holes of `key` as it is now.
  void CachedHoleText(uint64_t key, std::string_view* text);
  // The same at `bound`, or at the last step's place if that is later.
  void CloseRunAt(const Bound& bound);
  // Ends a run at the place before which every output is read, if enough
  // are waiting (the merge reads chunks and gives no item).
  void CloseRunWhileReading();
  // Ends runs of about run_outputs_ outputs each, all before `limit`,
  // while that many are waiting. Returns whether as many still wait.
  bool CloseRunsBefore(uint64_t limit);
  // Gives the ApartInOrder the earliest event kept apart that is read, if
  // it is before `before` (a time) or `any`; false if none is.
  bool GiveApartEvent(uint64_t before, bool any = false);
  // Moves the records of queue q's next n slots into run r (after its
  // slot_records so far), giving the ApartInOrder events until it has
  // left them; false where their events are not all read (not exact).
  bool TakeSlots(Queue* q, size_t n, OutputRun* r);
  // Writes the runs done, in order (`all`: waits for each), and lets go
  // of the pieces they finish.
  void WriteRuns(bool all);
  // The last run (when exact) and the end of AppendOwn.
  void EndOutputs();
  OrderedOutput* ordered_ = nullptr;
  bool outputs_done_ = false;
  std::unique_ptr<OutputRun> building_;
  std::deque<std::unique_ptr<OutputRun>> runs_;  // in flight, in order
  std::vector<std::unique_ptr<OutputRun>> spare_runs_;
  // Pieces merged but for their outputs (Piece::holds).
  std::vector<std::unique_ptr<Piece>> parked_;
  uint64_t outputs_waiting_ = 0;  // read, not in a run yet
  uint64_t holes_waiting_ = 0;    // in those outputs
  // CloseRunsBefore's cap (the earliest queue's share-th output waiting),
  // while no output is read or put in a run: the merge asks at every item
  // while the waiting outputs are past it.
  uint64_t run_cap_ = 0;
  bool run_cap_known_ = false;
  // OrderedOutput::HoleText's texts since the last FillHolesBeforeChange,
  // by key (Fibonacci hashing: keys such as addresses have their low bits
  // alike): a call through the consumer per hole was a third of `text`'s
  // reading thread on the mixed benchmark trace.
  struct HoleTextSlot {
    bool valid = false;
    uint64_t key = 0;
    std::string_view text;
  };
  std::array<HoleTextSlot, 16> hole_text_cache_;
  ApartConsumer* apart_consumer_ = nullptr;
  ApartInOrder* in_order_ = nullptr;
  size_t in_order_held_ = 0;  // events in the queues' in_order blocks
  // During OnApartEvent of an event with a slot: its queue (the record
  // goes in its slot_bytes), else null.
  Queue* slot_queue_ = nullptr;
  format::Event apart_event_;  // GiveApartEvent's
  // The queues whose in_order blocks have events, in queue order: each
  // one's next (in its front block), in place for GiveApartEvent's scan.
  struct ApartHead {
    const Piece::Entry* at = nullptr;
    const Piece::Entry* end = nullptr;
    const std::vector<char>* packed = nullptr;  // the block's fields
    Queue* queue = nullptr;
    const PieceDecoder* decoder = nullptr;  // its file's
  };
  std::vector<ApartHead> apart_heads_;
  // Points h at its queue's front block (at its `next`).
  void SetApartHead(ApartHead* h);
  size_t stretch_items_ = kStretchItems;
  uint64_t run_outputs_ = kRunOutputs;
  size_t run_steps_ = kRunSteps;
  size_t items_held_ = 0;                           // in the queues' frames and records
  std::deque<std::unique_ptr<Stretch>> stretches_;  // in flight, in order
  std::vector<std::unique_ptr<Stretch>> spare_stretches_;
  // The vectors of blocks the stretches are done with, handed to the next
  // pieces taken over: a worker then fills one it need not grow (growing
  // them, on fresh pages, was 2-3% of stats' samples on the mixed trace).
  std::vector<std::vector<Piece::Frame>> spare_frames_;
  std::vector<Records> spare_records_;
  // Keeps the vectors of the stretch's blocks that nothing else holds.
  void RecycleBlocks(Stretch* s);
  // Keeps *block's vector(s) in *spares if nothing else holds it and
  // spares are wanted.
  template <typename T>
  void KeepSpare(std::shared_ptr<const T>* block, std::vector<T>* spares);
  size_t files_done_ = 0;
  size_t pass_files_ = 0;  // the files of the pass
  size_t max_piece_open_frames_ = 0;
  // With many files: the events of the pieces read so far, and of them
  // kept as entries, until kProbeEvents.
  uint64_t probe_events_ = 0;
  uint64_t probe_kept_ = 0;
  // By the set's threads: each file's in its index's order, the files in
  // order (TraceSetMerger's order of ties).
  std::vector<Queue> queues_;
  U64Map<int> queue_of_thread_;  // by file << 32 | the file's thread index
  WaitingThreads waiting_;
  // Queues with a head but current_ (the queue of the last item, out of
  // it while its item is in use).
  HeadCandidates heads_;
  int current_ = -1;
  bool reader_done_ = false;
  size_t buffered_ = 0;
  const char* inexact_reason_ = nullptr;
};

// The mergers of a pass that takes the files one after another (each
// PieceMerger's only_file; one merger of kEveryFile takes them at once),
// on one pool of workers: each is made as the one before it starts, to
// read ahead once that one has read its last chunk and handed its last
// stretch to the workers (PieceMerger::set_read_ahead), so that they do
// not wait for the reading thread at each file's start and end (64 files
// of 4 threads: `stats` at 0.87 of one file's rate, 0.97 with it;
// docs/ITT_DUMP.md). Memory: two files' pieces in flight at most.
class FileByFileMergers {
 public:
  // Makes the merger of file `only_file` on `pool`.
  using NewMerger =
      std::function<std::unique_ptr<PieceMerger>(size_t only_file, format::ReaderPool* pool)>;
  FileByFileMergers(std::vector<size_t> files, NewMerger new_merger);
  // The next file's merger, null after the last: valid until the next
  // call.
  PieceMerger* Next();

 private:
  format::ReaderPool pool_;  // before the mergers, which use it
  std::vector<size_t> files_;
  NewMerger new_merger_;
  size_t taken_ = 0;
  std::unique_ptr<PieceMerger> current_;
  std::unique_ptr<PieceMerger> next_;
};

namespace pieces_internal {
// Whether a Target of FeedEntry has OnKeptFrame(frame, thread).
template <typename Target, typename = void>
struct TakesKeptFrames : std::false_type {};
template <typename Target>
struct TakesKeptFrames<Target,
                       std::void_t<decltype(std::declval<Target&>().OnKeptFrame(
                           std::declval<const KeptFrame&>(), std::declval<const ThreadRec&>()))>>
    : std::true_type {};
}  // namespace pieces_internal

// Feeds the item's entry to `target`, which takes what the tracker of the
// whole trace takes (IntervalTracker, or a consumer that owns one):
// AddChildTicks(thread, ticks), OnEvent(event, thread),
// OnOpen(interval, thread) and OnCut(thread, ticks). Returns the event
// (in *scratch), or null.
//
// A target that has OnKeptFrame(frame, thread) gets a frame_begin or
// frame_end with a null id that way instead of OnEvent, where its piece
// forwards all its frames (Piece::frames_forwarded): the target passes it
// to its tracker's OnFrame(KeptFrame), which pairs such frames as OnEvent
// does, with less work per frame (the reading thread's share of exports
// on a process whose threads share frames), as long as every frame of
// their keys goes that way.
template <typename Target>
const format::Event* FeedEntry(const PieceMerger::Item& item, Target* target,
                               format::Event* scratch) {
  const Piece::Entry& entry = *item.entry;
  if (entry.child_ticks != 0) target->AddChildTicks(*item.thread, entry.child_ticks);
  switch (entry.type) {
    case Piece::Entry::Type::kKeptFrame:
      if constexpr (pieces_internal::TakesKeptFrames<Target>::value) {
        const KeptFrame frame = item.piece->KeptFrameAt(entry);
        target->OnKeptFrame(frame, *item.thread);
        Piece::KeptFrameEvent(frame, scratch);
        return scratch;
      }
      [[fallthrough]];  // as an event
    case Piece::Entry::Type::kEvent:
      item.piece->EventAt(entry, scratch);
      target->OnEvent(*scratch, *item.thread);
      return scratch;
    case Piece::Entry::Type::kOpen:
      target->OnOpen(item.piece->opens[entry.index], *item.thread);
      return nullptr;
    case Piece::Entry::Type::kCut:
      target->OnCut(*item.thread, entry.time);
      return nullptr;
    case Piece::Entry::Type::kChildTicks:
    case Piece::Entry::Type::kOutput:  // the consumer's own
      return nullptr;
  }
  return nullptr;
}

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_PIECES_H_
