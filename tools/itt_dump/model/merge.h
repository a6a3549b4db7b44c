// The k-way merge: the events of every thread of a trace in time order,
// streaming.
//
// Each events chunk holds one thread's events in order, and the collector
// writes the chunks of all threads of one flush round (about every 100 ms)
// together, so chunks of different threads interleave in the file. The
// merger reads chunks in file order into one queue per thread (the
// decompressed payloads, about 8 bytes per event, decoded lazily) and emits
// the smallest head event once it is safe: every thread whose queue is
// empty but which still has chunks later in the file starts its next chunk
// after that event. The index pass (trace_index.h) recorded each chunk's
// first event time, which is what makes that test exact.
//
// Bound: the queued payload bytes never exceed `max_buffered_bytes` (256 MiB
// by default). Past it the smallest head is emitted anyway; an event of a
// lagging thread that then arrives earlier than one already emitted is
// delivered late, out of order, and counted in late_events() (itt-dump
// prints a warning). A trace the collector wrote stays far below the bound:
// a round holds at most one ring (ITTC_RING_KB) per thread.
//
// Thread safety: none.

#ifndef TOOLS_ITT_DUMP_MODEL_MERGE_H_
#define TOOLS_ITT_DUMP_MODEL_MERGE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "format/format.h"
#include "tools/itt_dump/model/flat_map.h"
#include "tools/itt_dump/model/progress.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

// The threads whose queue is empty but which have chunks later in the
// file, by their next chunk's first event time: an event may go out only
// before the first of those, in the merge's order of (time, queue).
class WaitingThreads {
 public:
  explicit WaitingThreads(size_t queues = 0) : keys_(queues, kNoEvents) {}
  void AddQueue() { keys_.push_back(kNoEvents); }
  // Queue `qi` waits for its next chunk, which starts at `first_time`, or
  // (kNoEvents) does not wait.
  void Set(int qi, uint64_t first_time);
  // The reader is done: nothing waits any more.
  void SetDone() {
    done_ = true;
    time_ = kNoEvents;
    queue_ = kNoQueue;
  }
  // Whether an event of queue `qi` at `t` comes before every waiting
  // queue's next chunk.
  bool Safe(uint64_t t, int qi) const { return t < time_ || (t == time_ && qi < queue_); }
  // The earliest waiting chunk's first time (kNoEvents: none), and its
  // queue (-1: none).
  uint64_t first_time() const { return time_; }
  int first_queue() const { return time_ == kNoEvents ? -1 : queue_; }

  // The first event time of the next chunk after the first `chunks_read`
  // of `thread` that has one, or kNoEvents.
  static uint64_t NextFirstTime(const ThreadRec& thread, size_t chunks_read);

 private:
  static constexpr int kNoQueue = 1 << 30;
  std::vector<uint64_t> keys_;  // by queue; kNoEvents: not waiting
  std::set<std::pair<uint64_t, int>> set_;
  uint64_t time_ = kNoEvents;
  int queue_ = kNoQueue;
  bool done_ = false;
};

// The queues of a merge that have a head, as (head time, queue), smallest
// first: for a few queues an unordered array scanned linearly, which is
// cheaper than heap operations when threads take turns event by event,
// else a min-heap.
class HeadCandidates {
 public:
  static constexpr size_t kSmall = 16;
  using Head = std::pair<uint64_t, int>;

  // The merge has `queues` queues (it may get more later).
  void SetQueues(size_t queues) {
    if (small_ && queues > kSmall) {
      small_ = false;
      std::make_heap(heads_.begin(), heads_.end(), std::greater<>());
    }
  }
  bool small() const { return small_; }
  bool empty() const { return heads_.empty(); }
  void Push(uint64_t t, int qi) {
    heads_.emplace_back(t, qi);
    if (!small_) std::push_heap(heads_.begin(), heads_.end(), std::greater<>());
  }
  // Position of the smallest. REQUIRES: !empty().
  size_t TopIndex() const {
    if (!small_) return 0;
    size_t best = 0;
    for (size_t i = 1; i < heads_.size(); ++i) {
      if (heads_[i] < heads_[best]) best = i;
    }
    return best;
  }
  const Head& operator[](size_t i) const { return heads_[i]; }
  // Removes the smallest, at `top` (TopIndex()).
  void Pop(size_t top) {
    if (small_) {
      heads_[top] = heads_.back();
    } else {
      std::pop_heap(heads_.begin(), heads_.end(), std::greater<>());
    }
    heads_.pop_back();
  }
  // small(): puts `head` where the smallest, at `top`, was.
  void Replace(size_t top, const Head& head) { heads_[top] = head; }

 private:
  std::vector<Head> heads_;
  bool small_ = true;
};

struct MergeOptions {
  size_t max_buffered_bytes = size_t{256} << 20;
  Progress* progress = nullptr;
  // A pass on every core (pieces.h): the frames and events a stretch of
  // what the pieces keep apart holds at least; 0: PieceMerger::
  // kStretchItems. Tests make it small, for many joins.
  size_t stretch_items = 0;
  // A pass on every core whose outputs go apart (PieceMerger::
  // set_ordered_output): the outputs a run holds about; 0: PieceMerger::
  // kRunOutputs. Tests make it small, for many runs.
  size_t run_outputs = 0;
};

class EventMerger {
 public:
  // `index` and `reader` must outlive the merger; `reader` is positioned
  // after the header (OpenForPass).
  EventMerger(const TraceIndex& index, format::TraceReader* reader, const MergeOptions& options);
  ~EventMerger();
  EventMerger(const EventMerger&) = delete;
  EventMerger& operator=(const EventMerger&) = delete;

  // The next event in time order and its thread, or false at the end. Both
  // pointers stay valid until the next call.
  bool Next(const format::Event** event, const ThreadRec** thread) {
    if (current_ >= 0) {
      // Inline fast path: one thread's events while no other is waiting.
      Queue* q = queues_[static_cast<size_t>(current_)].get();
      if (q->pos + 1 < q->len) {
        const format::Event* head = &q->batch[++q->pos];
        const uint64_t t = head->time;
        if (heads_.empty() && t < waiting_.first_time() && t >= last_time_) {
          last_time_ = t;
          ++events_;
          *event = head;
          *thread = q->thread;
          return true;
        }
        if (AfterAdvance(event, thread)) return true;
      } else if (FastNext(event, thread)) {
        return true;
      }
    }
    return SlowNext(event, thread);
  }

  // The events the next calls of Next() would return, right after the one
  // it just returned, without a look at any other thread: the rest of the
  // decoded batch while it stays in time order and no waiting thread's
  // next chunk starts before it. Taking them is the same as that many
  // calls of Next() (the counts and the clock move on); they stay valid,
  // and their thread is the last one Next() gave, until the next call of
  // Next(). Sets *first and returns the count (0: none, *first unset).
  // A merge of several files (TraceSetMerger) takes them without coming
  // back here for each event.
  uint32_t TakeRun(const format::Event** first);

  uint64_t events() const { return events_; }
  uint64_t late_events() const { return late_events_; }
  uint64_t forced_emits() const { return forced_emits_; }
  size_t peak_buffered_bytes() const { return peak_buffered_; }
  // The events chunks whose events stopped decoding part-way so far, in
  // the order the merge finished them (file 0: the caller knows which).
  const std::vector<MalformedChunk>& malformed() const { return malformed_; }

 private:
  // Events are decoded a batch at a time, a run of one thread's events:
  // the decoder's branches then follow that thread's pattern of kinds
  // instead of the merged order's, which a branch predictor cannot learn.
  static constexpr uint32_t kBatch = 16;
  struct Queue {
    const ThreadRec* thread = nullptr;
    // An events chunk's payload and its chunk's flags (how it is coded).
    struct Payload {
      std::string bytes;
      uint16_t flags = 0;
      uint64_t offset = 0;  // its chunk's, and the chunk's stored size
      uint64_t stored_size = 0;
    };
    std::deque<Payload> payloads;  // the front one is being decoded
    bool decoding = false;         // dec is positioned in payloads.front()
    format::EventStreamDecoder dec;
    // batch[pos, len) are decoded events of payloads.front() (a batch never
    // spans two payloads: its bytes fields point into it); batch[pos] is
    // the head when has_head.
    std::unique_ptr<format::Event[]> batch;
    uint32_t pos = 0;
    uint32_t len = 0;
    bool has_head = false;
    const format::Event& head() const { return batch[pos]; }
    size_t chunks_read = 0;  // how many of thread->chunk_first_times
    // The next event decoded is the first after a loss (TraceIndex::
    // cut_chunks): FillBatch marks it (Event::after_loss).
    bool after_loss = false;
    // Its next event is the first of a chunk (Event::chunk_start).
    bool chunk_start = false;
  };

  // Continues with the queue that emitted last while it stays the smallest.
  bool FastNext(const format::Event** event, const ThreadRec** thread);
  // FastNext after the current queue's head advanced.
  bool AfterAdvance(const format::Event** event, const ThreadRec** thread);
  bool SlowNext(const format::Event** event, const ThreadRec** thread);
  // Makes the queue's next event its head (decoding a batch when the last
  // is used up); false when it is empty.
  bool Advance(Queue* q);
  // Decodes up to kBatch events of the current payload; false if none.
  bool FillBatch(Queue* q);
  // Reads chunks until one events chunk was queued; false at the end.
  bool ReadChunk();
  // Puts queue `qi` in waiting_ (keyed by its next unread chunk's first
  // time) if it is empty and has chunks to come, takes it out otherwise.
  // O(log threads).
  void UpdateWaiting(int qi);
  bool Emit(int qi, const format::Event** event, const ThreadRec** thread);
  // Puts queue qi's head among the candidates.
  void PushHead(int qi);
  // Takes the smallest candidate out; returns its queue.
  int PopHead();

  const TraceIndex& index_;
  format::TraceReader* reader_;
  MergeOptions options_;
  std::vector<std::unique_ptr<Queue>> queues_;
  U64Map<int> queue_of_thread_;
  std::deque<ThreadRec> extra_threads_;  // threads the index did not know
  // Queues with a head but current_.
  HeadCandidates heads_;
  std::vector<std::string> spare_;  // recycled payload buffers
  format::EventStreamDecoder probe_;
  int current_ = -1;  // queue of the last emitted event, not in heads_
  bool reader_done_ = false;
  // Empty queues whose thread has chunks later in the file.
  WaitingThreads waiting_;
  size_t buffered_ = 0;
  size_t peak_buffered_ = 0;
  uint64_t last_time_ = 0;
  uint64_t events_ = 0;
  uint64_t late_events_ = 0;
  uint64_t forced_emits_ = 0;
  std::vector<MalformedChunk> malformed_;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_MERGE_H_
