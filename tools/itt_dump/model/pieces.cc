#include "tools/itt_dump/model/pieces.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace ittc {
namespace itt_dump {

using format::Event;
using Type = Piece::Entry::Type;

void Piece::EventAt(const Entry& en, Event* e) const {
  e->kind = en.kind;
  e->time = en.time;
  // Packed by Decode below from a decoded event: they unpack.
  format::UnpackFields(packed.data() + en.index, packed.data() + packed_size, e);
}

void Piece::Clear() {
  events_chunk = false;
  thread_index = 0;
  thread = nullptr;
  paired_events = 0;
  paired_last_ticks = 0;
  first_time = kNoEvents;
  last_time = 0;
  time_back = false;
  entries.clear();
  packed_size = 0;
  opens.clear();
  frames.clear();
  outputs = nullptr;
  if (sink != nullptr) sink->Reset();
}

PieceDecoder::PieceDecoder(const TraceSet& set, size_t file, SinkFactory make_sink)
    : index_(set.index()),
      rewriter_(set.files().size() > 1 ? std::make_unique<SetRewriter>(set, file) : nullptr),
      file_index_(*set.files()[file].index),
      file_(file),
      make_sink_(std::move(make_sink)) {
  const std::unique_ptr<PieceSink> sink = make_sink_();
  for (int k = 0; k < 256; ++k) {
    ignored_.push_back(sink->Ignores(static_cast<format::EventKind>(k)));
  }
}

PieceDecoder::~PieceDecoder() = default;

std::unique_ptr<format::DecodedChunk> PieceDecoder::NewResult() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pool_.empty()) {
      std::unique_ptr<Piece> p = std::move(pool_.back());
      pool_.pop_back();
      return p;
    }
  }
  auto p = std::make_unique<Piece>();
  p->sink = make_sink_();
  p->tracker_ = std::make_unique<IntervalTracker>(index_, p->sink.get());
  p->tracker_->set_collect_args(false);
  p->tracker_->set_piece_pairing(p->sink->pairing());
  return p;
}

void PieceDecoder::Recycle(std::unique_ptr<Piece> piece) const {
  std::lock_guard<std::mutex> lock(mu_);
  pool_.push_back(std::move(piece));
}

void PieceDecoder::Decode(const format::Chunk& chunk, format::DecodedChunk* out) const {
  Piece& p = *static_cast<Piece*>(out);
  p.Clear();
  if (chunk.type != format::ChunkType::kEvents) return;
  format::EventStreamDecoder dec;
  if (!dec.Reset(chunk.payload, chunk.flags).ok()) return;
  p.events_chunk = true;
  p.file = file_;
  p.thread_index = dec.thread_index();
  p.thread = SetThread(p.thread_index);
  if (p.thread == nullptr) return;
  const ThreadRec& thread = *p.thread;
  IntervalTracker& tracker = *p.tracker_;
  // A thread alone in its process is alone with its frames.
  tracker.ResetPiece(/*pair_frames=*/file_index_.threads.size() == 1);

  // The forwarded events' entries, with the running total of child ticks
  // in child_ticks; then the opens go in between and the totals become
  // steps.
  std::vector<Piece::Entry>& entries = p.entries;
  // A file of a set has its events rewritten (trace_set.h): they need an
  // Event. Alone, its simple tasks go to the tracker without one.
  const bool simple_tasks = rewriter_ == nullptr;
  format::EventStreamDecoder::SimpleTask task;
  Event e;
  PieceSink& sink = *p.sink;
  const bool events_to_sink = sink.wants_paired_events();
  size_t outputs = 0;  // the sink's, with entries
  // Simple tasks that only the tracker sees go through its loop for them.
  const bool simple_runs = simple_tasks && !events_to_sink;
  const bool stop_at_interval = sink.outputs_intervals();
  IntervalTracker::SimpleRun run;
  // Frames the piece keeps apart, read without an Event when alone.
  const bool simple_frames = simple_tasks && tracker.frames_kept_apart();
  format::EventStreamDecoder::SimpleFrame frame;
  const auto note_time = [&p](uint64_t time) {
    if (time < p.last_time) p.time_back = true;
    if (p.first_time == kNoEvents) p.first_time = time;
    if (time > p.last_time) p.last_time = time;
  };
  for (;;) {
    IntervalTracker::PieceAction action = IntervalTracker::PieceAction::kPaired;
    bool simple = false;
    if (simple_runs) {
      run.first_time = p.first_time;
      run.last_time = p.last_time;
      run.time_back = p.time_back;
      run.paired = 0;
      run.paired_last = p.paired_last_ticks;
      tracker.PairSimpleTasks(&dec, thread, static_cast<uint32_t>(entries.size()), stop_at_interval,
                              &task, &run, simple_frames ? &p.frames : nullptr);
      p.first_time = run.first_time;
      p.last_time = run.last_time;
      p.time_back = run.time_back;
      p.paired_events += run.paired;
      p.paired_last_ticks = run.paired_last;
      simple = run.left_over;
      action = run.action;
    } else {
      simple = simple_tasks && dec.NextSimpleTask(&task);
    }
    if (!simple && simple_frames && dec.NextSimpleFrame(&frame)) {
      // Kept apart as OnPieceEvent would keep it, without an Event.
      note_time(frame.time);
      p.frames.push_back({frame.time, frame.domain, frame.begin});
      ++p.paired_events;
      p.paired_last_ticks = frame.time;
      continue;
    }
    if (!simple) {
      if (!dec.Next(&e)) break;
      if (rewriter_ != nullptr) rewriter_->Rewrite(&e, rewriter_->SetTicks(e.time));
    }
    const uint64_t time = simple ? task.time : e.time;
    const auto position = static_cast<uint32_t>(entries.size());
    if (!simple || !simple_runs) {
      // (A simple task left over from a run is the tracker's already.)
      note_time(time);
      action = simple ? tracker.OnPieceSimpleTask(task, thread, position)
                      : tracker.OnPieceEvent(e, thread, position);
    }
    // (A simple task is the tracker's, never the sink's.)
    if (action == IntervalTracker::PieceAction::kForward && !simple &&
        static_cast<uint16_t>(e.kind) < ignored_.size() && ignored_[static_cast<size_t>(e.kind)]) {
      // Nobody reads it: counted, not kept.
      ++p.paired_events;
      p.paired_last_ticks = time;
      continue;
    }
    if (action == IntervalTracker::PieceAction::kForward && events_to_sink && !simple &&
        sink.TakesForwarded(e.kind)) {
      action = IntervalTracker::PieceAction::kPaired;
    }
    if (events_to_sink && action == IntervalTracker::PieceAction::kPaired) {
      if (simple) task.ToEvent(&e);
      sink.OnPairedEvent(e, thread);
    }
    // What the sink made of the event and the intervals it closed.
    while (outputs != sink.outputs()) {
      Piece::Entry& en = entries.emplace_back();
      en.time = time;
      en.child_ticks = tracker.piece_child_ticks();
      en.index = sink.output_offset(outputs++);
      en.type = Type::kOutput;
    }
    if (action == IntervalTracker::PieceAction::kApart) {
      p.frames.push_back(
          {e.time, e.Get(format::Field::kDomain), e.kind == format::EventKind::kFrameBegin});
    }
    if (action != IntervalTracker::PieceAction::kForward) {
      // Counted with the paired ones (the merge gives the frames apart).
      ++p.paired_events;
      p.paired_last_ticks = time;  // events come in time order (else time_back)
      continue;
    }
    // Forwarded (an end of a task begun before the piece): as an Event.
    if (simple) task.ToEvent(&e);
    Piece::Entry& en = entries.emplace_back();
    en.time = e.time;
    en.child_ticks = tracker.piece_child_ticks();
    en.index = static_cast<uint32_t>(p.packed_size);
    en.kind = e.kind;
    en.type = Type::kEvent;
    // Grown, never shrunk: its bytes past packed_size are scratch.
    const size_t need = p.packed_size + format::PackedFieldsBound(e);
    if (need > p.packed.size()) p.packed.resize(std::max(need, 2 * p.packed.size()));
    char* const base = p.packed.data();
    p.packed_size = static_cast<size_t>(format::PackFields(e, base + p.packed_size) - base);
  }

  p.outputs = sink.output_records().data();
  p.payload_bytes = chunk.payload.size();
  p.max_depth = tracker.piece_max_depth();
  p.max_open_frames = tracker.peak_keyed_open();

  p.piece_opens_.clear();
  tracker.TakePieceOpens(thread, &p.piece_opens_);
  const uint64_t total_child = tracker.piece_child_ticks();
  if (!p.piece_opens_.empty()) {
    // Merge the opens in at their positions. The time of an open is that
    // of the event after it (it touches only its own thread's stack, so
    // only the order inside the thread matters), or the piece's last.
    std::vector<Piece::Entry>& kept = p.kept_;
    kept.swap(entries);
    entries.clear();
    size_t next_open = 0;
    for (size_t i = 0; i <= kept.size(); ++i) {
      const uint64_t time = i < kept.size() ? kept[i].time : p.last_time;
      while (next_open < p.piece_opens_.size() && p.piece_opens_[next_open].position == i) {
        const IntervalTracker::PieceOpen& o = p.piece_opens_[next_open++];
        Piece::Entry& en = entries.emplace_back();
        en.time = time;
        en.child_ticks = o.child_mark;
        en.index = static_cast<uint32_t>(p.opens.size());
        en.type = Type::kOpen;
        p.opens.push_back(o.interval);
      }
      if (i < kept.size()) entries.push_back(kept[i]);
    }
  }
  if (total_child != (entries.empty() ? 0 : entries.back().child_ticks)) {
    Piece::Entry& en = entries.emplace_back();
    en.time = p.last_time;
    en.child_ticks = total_child;
    en.type = Type::kChildTicks;
  }
  uint64_t mark = 0;  // the running total at the entry before
  for (Piece::Entry& en : entries) {
    const uint64_t running = en.child_ticks;
    en.child_ticks = running - mark;
    mark = running;
  }
}

// A stretch of the frames kept apart: spans of the queues' blocks, paired
// on a worker.
class PieceMerger::Stretch final : public format::PoolTask {
 public:
  struct Span {
    const Piece::Frame* begin;
    const Piece::Frame* end;
    const ThreadRec* thread;
  };
  // Each queue's spans in order, the queues in order (their ties' order).
  std::vector<Span> spans;
  // Where the spans are: each queue's run of spans starts a new one.
  std::vector<size_t> queue_starts;
  std::vector<std::shared_ptr<const std::vector<Piece::Frame>>> blocks;  // holds the spans
  size_t frames = 0;
  std::unique_ptr<IntervalListener> listener;
  std::unique_ptr<KeptFramePairing> pairing;

  void Run() override {
    ForEach([this](const Piece::Frame& f, const ThreadRec& t) { pairing->OnFrame(f, t); });
  }
  void Clear() {
    spans.clear();
    queue_starts.clear();
    blocks.clear();
    frames = 0;
    pairing->Clear();
  }
  // Calls fn(frame, thread) for each frame in the merge's order: by time,
  // then queue.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    // A queue's cursor: its span and the next frame in it.
    struct Cursor {
      size_t span;
      size_t end;  // the queue's spans end
      const Piece::Frame* at;
    };
    std::vector<Cursor> cursors;
    std::vector<std::pair<uint64_t, size_t>> heads;  // (time, cursor), in queue order
    for (size_t q = 0; q < queue_starts.size(); ++q) {
      const size_t first = queue_starts[q];
      const size_t end = q + 1 < queue_starts.size() ? queue_starts[q + 1] : spans.size();
      cursors.push_back({first, end, spans[first].begin});
      heads.emplace_back(spans[first].begin->time, q);
    }
    // Gives cursor heads[h]'s frame; false once its queue has no more,
    // else its next time is in heads[h].
    const auto give = [&](size_t h) {
      Cursor& c = cursors[heads[h].second];
      fn(*c.at, *spans[c.span].thread);
      if (++c.at == spans[c.span].end) {
        if (++c.span == c.end) return false;
        c.at = spans[c.span].begin;
      }
      heads[h].first = c.at->time;
      return true;
    };
    constexpr size_t kScan = 8;
    if (heads.size() <= kScan) {
      // A few queues (a process's threads): the earliest head by a scan.
      while (!heads.empty()) {
        size_t best = 0;
        for (size_t h = 1; h < heads.size(); ++h) {
          if (heads[h].first < heads[best].first) best = h;  // ties: the earlier queue
        }
        if (!give(best)) heads.erase(heads.begin() + static_cast<std::ptrdiff_t>(best));
      }
      return;
    }
    std::make_heap(heads.begin(), heads.end(), std::greater<>());
    while (!heads.empty()) {
      std::pop_heap(heads.begin(), heads.end(), std::greater<>());
      if (give(heads.size() - 1)) {
        std::push_heap(heads.begin(), heads.end(), std::greater<>());
      } else {
        heads.pop_back();
      }
    }
  }
};

PieceMerger::PieceMerger(const TraceSet& set, PieceDecoder::SinkFactory make_sink,
                         const MergeOptions& options, OnPiece on_piece, size_t only_file)
    : set_(set), options_(options), on_piece_(std::move(on_piece)) {
  if (set.alignment() == TimeAlignment::kWallClock) {
    Fail("the files are aligned by wall clock");
    return;
  }
  const int threads = format::OnlineCpus();
  pool_ = std::make_unique<format::ReaderPool>(threads);
  const size_t n = set.files().size();
  pass_files_ = only_file == kEveryFile ? n : 1;
  format::ReaderOptions ro;
  ro.pool = pool_.get();
  // One file: the workers run up to 16 chunks ahead of the reading thread
  // besides their own, so that they keep working while it is off its core
  // (with 2 * threads + 2 they waited for it: 1.70 cores busy of 2 on the
  // 64 M-event trace, 1.80 with this). One chunk ahead per file for
  // several: their decoding overlaps anyway.
  ro.max_in_flight = pass_files_ == 1 ? 2 * threads + kChunksAhead : 2;
  files_.resize(n);
  for (size_t f = 0; f < n; ++f) {
    File& file = files_[f];
    if (only_file != kEveryFile && f != only_file) {
      file.done = true;  // not in the pass
      continue;
    }
    file.decoder = std::make_unique<PieceDecoder>(set, f, make_sink);
    ro.decoder = file.decoder.get();
    absl::StatusOr<std::unique_ptr<format::TraceReader>> reader =
        OpenForPass(set.files()[f].source, ro);
    if (!reader.ok()) {
      Fail("a file could not be opened again");
      return;
    }
    file.reader = std::move(*reader);
    const TraceIndex& x = *set.files()[f].index;
    for (const auto& [thread_index, rec] : x.threads.entries()) {
      queue_of_thread_[uint64_t{f} << 32 | thread_index] = static_cast<int>(queues_.size());
      Queue& q = queues_.emplace_back();
      q.file = f;
      q.local = &rec;
      q.thread = file.decoder->SetThread(thread_index);
    }
  }
  files_done_ = n - pass_files_;
  serial_held_.assign(n, 0);
  serial_budget_ = set.LookaheadPerFile(options.max_buffered_bytes);
  waiting_ = WaitingThreads(queues_.size());
  heads_.SetQueues(queues_.size());
  for (size_t i = 0; i < queues_.size(); ++i) UpdateWaiting(static_cast<int>(i));
}

PieceMerger::~PieceMerger() {
  // The stretches in flight point into the queues' blocks (which they
  // share) and run on the pool.
  for (const std::unique_ptr<Stretch>& s : stretches_) pool_->Wait(s.get());
  for (Queue& q : queues_) {
    for (std::unique_ptr<Piece>& p : q.pieces) {
      const size_t f = p->file;
      files_[f].decoder->Recycle(std::move(p));
    }
  }
}

void PieceMerger::UpdateWaiting(int qi) {
  // A queue with a head (current_'s included) waits for nothing, nor does
  // one whose file is read to the end.
  const Queue& q = queues_[static_cast<size_t>(qi)];
  uint64_t first = kNoEvents;
  if (!q.has_head() && !files_[q.file].done) {
    first = WaitingThreads::NextFirstTime(*q.local, q.chunks_read);
    if (first != kNoEvents) first = set_.SetTicks(q.file, first);
  }
  waiting_.Set(qi, first);
}

size_t PieceMerger::FileToRead() const {
  const int qi = waiting_.first_queue();
  if (qi >= 0) return queues_[static_cast<size_t>(qi)].file;
  for (size_t f = 0; f < files_.size(); ++f) {
    if (!files_[f].done) return f;
  }
  return 0;
}

void PieceMerger::Enqueue(int qi, std::unique_ptr<Piece> piece) {
  Queue& q = queues_[static_cast<size_t>(qi)];
  const bool had_head = q.has_head();
  piece->queued_bytes = sizeof(Piece) + piece->entries.capacity() * sizeof(Piece::Entry) +
                        piece->packed.capacity() + piece->opens.capacity() * sizeof(Interval) +
                        piece->sink->output_records().capacity();
  buffered_ += piece->queued_bytes;
  q.pieces.push_back(std::move(piece));
  if (!had_head) {
    q.SetFront();
    CheckDepth(q);
    if (qi != current_) heads_.Push(q.head_time(), qi);
  }
}

bool PieceMerger::ReadChunk(size_t f) {
  File& file = files_[f];
  format::Chunk chunk;
  while (file.reader->Next(&chunk)) {
    if (options_.progress != nullptr && files_.size() == 1) {
      options_.progress->Update(file.reader->stats().chunks_read);
    }
    std::unique_ptr<format::DecodedChunk> decoded = file.reader->TakeDecoded();
    if (decoded == nullptr) continue;
    std::unique_ptr<Piece> piece(static_cast<Piece*>(decoded.release()));
    if (!piece->events_chunk) {
      file.decoder->Recycle(std::move(piece));
      continue;
    }
    if (piece->thread == nullptr) return Fail("a thread the index pass did not see");
    const int qi = *queue_of_thread_.Find(uint64_t{f} << 32 | piece->thread_index);
    Queue& q = queues_[static_cast<size_t>(qi)];
    if (piece->time_back || (q.any && piece->first_time < q.last_time)) {
      return Fail("a thread's time goes back");
    }
    if (piece->first_time != kNoEvents) {
      q.any = true;
      q.last_time = piece->last_time;
      held_.push_back({piece->last_time, f, piece->payload_bytes});
      std::push_heap(held_.begin(), held_.end(), std::greater<>());
      if ((serial_held_[f] += piece->payload_bytes) > serial_budget_) {
        return Fail("the serial merge could pass its lookahead");
      }
    }
    ++q.chunks_read;
    max_piece_open_frames_ = std::max(max_piece_open_frames_, piece->max_open_frames);
    if (pass_files_ > kManyFiles && probe_events_ < kProbeEvents) {
      probe_events_ += piece->paired_events + piece->entries.size();
      probe_kept_ += piece->entries.size() + piece->frames.size();
      if (probe_events_ >= kProbeEvents && probe_kept_ * kManyFilesKeep > probe_events_) {
        return Fail("the pieces of this many files keep too many events");
      }
    }
    on_piece_(*piece);
    if (!piece->frames.empty()) {
      if (frame_consumer_ == nullptr) return Fail("frames kept apart with nothing to take them");
      frames_held_ += piece->frames.size();
      buffered_ += piece->frames.size() * sizeof(Piece::Frame);
      // Taken over, not copied: the piece grows a new vector on a worker.
      q.frames.push_back(
          {std::make_shared<const std::vector<Piece::Frame>>(std::move(piece->frames)), 0});
      piece->frames = std::vector<Piece::Frame>();
    }
    if (piece->entries.empty()) {
      file.decoder->Recycle(std::move(piece));
    } else {
      Enqueue(qi, std::move(piece));
    }
    UpdateWaiting(qi);
    GiveFrames();
    if (buffered_ > options_.max_buffered_bytes) return Fail("the merge's memory bound");
    return true;
  }
  file.done = true;
  for (size_t i = 0; i < queues_.size(); ++i) {
    if (queues_[i].file == f) UpdateWaiting(static_cast<int>(i));
  }
  if (++files_done_ == files_.size()) {
    reader_done_ = true;
    waiting_.SetDone();
  }
  GiveFrames();
  return false;
}

void PieceMerger::CheckDepth(const Queue& q) {
  if (q.depth + q.pieces.front()->max_depth >= IntervalTracker::kMaxDepth) {
    Fail("tasks nest past the pairing engine's limit");
  }
}

void PieceMerger::Issue(int qi, Item* item) {
  Queue& q = queues_[static_cast<size_t>(qi)];
  const Piece& p = *q.front;
  const Piece::Entry& en = *q.head;
  *item = {&p, q.head, q.thread};
  switch (en.type == Piece::Entry::Type::kEvent ? en.kind : format::EventKind::kInvalid) {
    case format::EventKind::kTaskBegin:
    case format::EventKind::kTaskBeginFn:
    case format::EventKind::kTaskBeginEx:
    case format::EventKind::kTaskBeginFnEx:
      ++q.depth;
      break;
    case format::EventKind::kTaskEnd:
    case format::EventKind::kTaskEndEx:
      if (q.depth != 0) --q.depth;
      break;
    default:
      if (en.type == Piece::Entry::Type::kOpen && p.opens[en.index].kind == IntervalKind::kTask) {
        ++q.depth;
      }
      break;
  }
  PassTime(en.time);
}

void PieceMerger::GiveFrames() {
  if (!stretches_.empty()) JoinStretches(/*all=*/false);
  if (frames_held_ == 0) {
    if (reader_done_) JoinStretches(/*all=*/true);
    return;
  }
  // Every event before `known` is in a piece read already: no queue's
  // next chunk to read starts before it.
  uint64_t known = kNoEvents;
  if (!reader_done_) {
    for (const Queue& q : queues_) {
      if (files_[q.file].done) continue;
      const uint64_t first = WaitingThreads::NextFirstTime(*q.local, q.chunks_read);
      if (first != kNoEvents) known = std::min(known, set_.SetTicks(q.file, first));
    }
  }
  // The frames of each block before `known`.
  const auto ready_end = [known, this](const FrameBlock& b) {
    const std::vector<Piece::Frame>& f = *b.frames;
    if (reader_done_) return f.size();
    return static_cast<size_t>(
        std::lower_bound(f.begin() + static_cast<std::ptrdiff_t>(b.next), f.end(), known,
                         [](const Piece::Frame& x, uint64_t t) { return x.time < t; }) -
        f.begin());
  };
  if (!reader_done_) {
    size_t ready = 0;
    for (const Queue& q : queues_) {
      for (const FrameBlock& b : q.frames) {
        const size_t end = ready_end(b);
        ready += end - b.next;
        if (end < b.frames->size()) break;  // the later blocks are later still
      }
    }
    if (ready < stretch_frames_) return;
  }
  std::unique_ptr<Stretch> stretch;
  if (!spare_stretches_.empty()) {
    stretch = std::move(spare_stretches_.back());
    spare_stretches_.pop_back();
  } else {
    stretch = std::make_unique<Stretch>();
    stretch->listener = frame_consumer_->NewStretchListener();
    stretch->pairing = std::make_unique<KeptFramePairing>(stretch->listener.get());
  }
  for (Queue& q : queues_) {
    bool first = true;
    while (!q.frames.empty()) {
      FrameBlock& b = q.frames.front();
      const size_t end = ready_end(b);
      if (end > b.next) {
        if (first) stretch->queue_starts.push_back(stretch->spans.size());
        first = false;
        const Piece::Frame* base = b.frames->data();
        stretch->spans.push_back({base + b.next, base + end, q.thread});
        stretch->blocks.push_back(b.frames);
        stretch->frames += end - b.next;
        b.next = end;
      }
      if (b.next < b.frames->size()) break;
      q.frames.pop_front();
    }
  }
  frames_held_ -= stretch->frames;
  // The stretches in flight hold their frames: a few at once.
  const size_t max_in_flight = 2 * static_cast<size_t>(format::OnlineCpus()) + 2;
  while (stretches_.size() >= max_in_flight) {
    pool_->Wait(stretches_.front().get());
    JoinStretches(/*all=*/false);
  }
  pool_->Submit(stretch.get());
  stretches_.push_back(std::move(stretch));
  if (reader_done_) JoinStretches(/*all=*/true);
}

void PieceMerger::JoinStretches(bool all) {
  if (stretches_.empty()) return;  // (and there may be no consumer)
  IntervalTracker& tracker = *frame_consumer_->frame_tracker();
  while (!stretches_.empty()) {
    Stretch& s = *stretches_.front();
    if (all) {
      pool_->Wait(&s);
    } else if (!pool_->Done(&s)) {
      return;
    }
    const bool joined = tracker.JoinFrames(*s.pairing);
    if (!joined) {
      // Where a limit may be met: frame by frame, as the serial pass.
      s.ForEach([&tracker](const Piece::Frame& f, const ThreadRec& t) { tracker.OnFrame(f, t); });
    }
    frame_consumer_->TakeStretch(s.listener.get(), joined);
    buffered_ -= s.frames * sizeof(Piece::Frame);
    s.Clear();
    spare_stretches_.push_back(std::move(stretches_.front()));
    stretches_.pop_front();
  }
}

void PieceMerger::PassTime(uint64_t t) {
  while (!held_.empty() && held_.front().last_time < t) {
    serial_held_[held_.front().file] -= held_.front().bytes;
    std::pop_heap(held_.begin(), held_.end(), std::greater<>());
    held_.pop_back();
  }
}

void PieceMerger::Pop(int qi) {
  Queue& q = queues_[static_cast<size_t>(qi)];
  if (++q.head < q.end) {
    // A worker wrote them on another core, and with many queues taking
    // turns the hardware prefetcher loses track: ask for the next head's
    // fields and the entries a few ahead now, long before they are read.
    __builtin_prefetch(q.head->type == Piece::Entry::Type::kOutput
                           ? q.front->outputs + q.head->index
                           : q.front->packed.data() + q.head->index);
    __builtin_prefetch(std::min(q.head + 4, q.end - 1));
    return;
  }
  std::unique_ptr<Piece> done = std::move(q.pieces.front());
  q.pieces.pop_front();
  q.SetFront();
  if (q.has_head()) CheckDepth(q);
  buffered_ -= done->queued_bytes;
  files_[done->file].decoder->Recycle(std::move(done));
}

bool PieceMerger::Next(Item* item) {
  if (!exact()) return false;
  if (current_ >= 0) {
    // The last item's queue moves on; while it stays first it goes on.
    const int qi = current_;
    Pop(qi);
    Queue& q = queues_[static_cast<size_t>(qi)];
    current_ = -1;
    if (q.has_head()) {
      const HeadCandidates::Head head(q.head_time(), qi);
      const size_t i = heads_.empty() ? 0 : heads_.TopIndex();
      if ((heads_.empty() || head < heads_[i]) && (reader_done_ || waiting_.Safe(head.first, qi))) {
        current_ = qi;
        Issue(qi, item);
        return true;
      }
      if (heads_.small() && !heads_.empty() &&
          (reader_done_ || waiting_.Safe(heads_[i].first, heads_[i].second))) {
        // Threads taking turns: the other queue's head goes out, this one
        // takes its place among the candidates.
        current_ = heads_[i].second;
        heads_.Replace(i, head);
        Issue(current_, item);
        return true;
      }
      heads_.Push(head.first, qi);
    } else {
      UpdateWaiting(qi);
    }
  }
  for (;;) {
    if (!heads_.empty()) {
      const size_t i = heads_.TopIndex();
      const HeadCandidates::Head top = heads_[i];
      if (reader_done_ || waiting_.Safe(top.first, top.second)) {
        heads_.Pop(i);
        current_ = top.second;
        Issue(current_, item);
        return true;
      }
    } else if (reader_done_) {
      return false;
    }
    // The serial merge is past every event before the earliest chunk still
    // to read: pieces that keep nothing move it on too.
    PassTime(waiting_.first_time());
    if (!ReadChunk(FileToRead()) && !exact()) return false;
  }
}

}  // namespace itt_dump
}  // namespace ittc
