#include "tools/itt_dump/model/merge.h"

#include <algorithm>
#include <functional>

namespace ittc {
namespace itt_dump {

void WaitingThreads::Set(int qi, uint64_t first_time) {
  uint64_t& key = keys_[static_cast<size_t>(qi)];
  if (done_ || key == first_time) return;
  if (key != kNoEvents) set_.erase({key, qi});
  key = first_time;
  if (key != kNoEvents) set_.emplace(key, qi);
  if (set_.empty()) {
    time_ = kNoEvents;
    queue_ = kNoQueue;
  } else {
    time_ = set_.begin()->first;
    queue_ = set_.begin()->second;
  }
}

uint64_t WaitingThreads::NextFirstTime(const ThreadRec& thread, size_t chunks_read) {
  const std::vector<uint64_t>& firsts = thread.chunk_first_times;
  for (size_t j = chunks_read; j < firsts.size(); ++j) {
    if (firsts[j] != kNoEvents) return firsts[j];
  }
  return kNoEvents;
}

EventMerger::EventMerger(const TraceIndex& index, format::TraceReader* reader,
                         const MergeOptions& options)
    : index_(index), reader_(reader), options_(options) {
  for (const auto& [thread_index, rec] : index.threads.entries()) {
    queue_of_thread_[thread_index] = static_cast<int>(queues_.size());
    queues_.push_back(std::make_unique<Queue>());
    queues_.back()->thread = &rec;
  }
  heads_.SetQueues(queues_.size());
  waiting_ = WaitingThreads(queues_.size());
  for (size_t i = 0; i < queues_.size(); ++i) {
    UpdateWaiting(static_cast<int>(i));
  }
}

EventMerger::~EventMerger() = default;

bool EventMerger::FillBatch(Queue* q) {
  if (q->batch == nullptr) q->batch = std::make_unique<format::Event[]>(kBatch);
  uint32_t n = 0;
  while (n < kBatch && q->dec.Next(&q->batch[n])) ++n;
  q->pos = 0;
  q->len = n;
  if (n == 0) return false;
  // (Only batch[0] is ever marked: set, or cleared, on every batch.)
  q->batch[0].after_loss = q->after_loss;
  q->after_loss = false;
  q->batch[0].chunk_start = q->chunk_start;
  q->chunk_start = false;
  return true;
}

bool EventMerger::Advance(Queue* q) {
  if (q->pos + 1 < q->len) {
    ++q->pos;
    q->has_head = true;
    return true;
  }
  for (;;) {
    if (q->decoding && FillBatch(q)) {
      q->has_head = true;
      return true;
    }
    if (q->decoding) {
      // The payload is done, and so is the batch that pointed into it. One
      // whose events stopped decoding part-way is noted (the index pass
      // decoded only its first event, and reported it if that one failed).
      if (!q->dec.status().ok()) {
        const Queue::Payload& done = q->payloads.front();
        malformed_.push_back(
            {0, done.offset, done.stored_size,
             MalformedEventsReason(q->dec.thread_index(), q->dec.status(), q->dec.offset())});
        q->after_loss = true;  // the rest of its events are lost
      }
      buffered_ -= q->payloads.front().bytes.size();
      spare_.push_back(std::move(q->payloads.front().bytes));
      q->payloads.pop_front();
      q->decoding = false;
    }
    if (q->payloads.empty()) {
      q->has_head = false;
      return false;
    }
    const Queue::Payload& front = q->payloads.front();
    q->decoding = q->dec.Reset(front.bytes, front.flags).ok();
    q->chunk_start = q->decoding;
    // (Kept past a chunk without events, for the thread's next event.)
    if (q->decoding && index_.CutsAt(front.offset)) q->after_loss = true;
    if (!q->decoding) {
      buffered_ -= front.bytes.size();
      q->payloads.pop_front();
    }
  }
}

void EventMerger::UpdateWaiting(int qi) {
  const Queue* q = queues_[static_cast<size_t>(qi)].get();
  const bool empty = !q->has_head && qi != current_;
  waiting_.Set(qi, empty ? WaitingThreads::NextFirstTime(*q->thread, q->chunks_read) : kNoEvents);
}

bool EventMerger::ReadChunk() {
  format::Chunk chunk;
  while (reader_->Next(&chunk)) {
    if (options_.progress != nullptr) {
      options_.progress->Update(reader_->stats().chunks_read);
    }
    if (chunk.type != format::ChunkType::kEvents) continue;
    if (!probe_.Reset(chunk.payload, chunk.flags).ok()) continue;
    const uint32_t thread_index = probe_.thread_index();
    int* qi = queue_of_thread_.Find(thread_index);
    if (qi == nullptr) {
      // The file changed between passes; keep going with what it says now.
      extra_threads_.emplace_back();
      extra_threads_.back().index = thread_index;
      extra_threads_.back().label = std::to_string(thread_index);
      queue_of_thread_[thread_index] = static_cast<int>(queues_.size());
      queues_.push_back(std::make_unique<Queue>());
      queues_.back()->thread = &extra_threads_.back();
      waiting_.AddQueue();
      qi = queue_of_thread_.Find(thread_index);
      heads_.SetQueues(queues_.size());
    }
    Queue* q = queues_[static_cast<size_t>(*qi)].get();
    std::string buf;
    if (!spare_.empty()) {
      buf = std::move(spare_.back());
      spare_.pop_back();
    }
    buf.assign(chunk.payload.data(), chunk.payload.size());
    buffered_ += buf.size();
    peak_buffered_ = std::max(peak_buffered_, buffered_);
    q->payloads.push_back(
        Queue::Payload{std::move(buf), chunk.flags, chunk.offset, chunk.stored_size});
    ++q->chunks_read;
    if (!q->has_head && *qi != current_) {
      if (Advance(q)) PushHead(*qi);
    }
    UpdateWaiting(*qi);
    return true;
  }
  return false;
}

void EventMerger::PushHead(int qi) {
  heads_.Push(queues_[static_cast<size_t>(qi)]->head().time, qi);
}

int EventMerger::PopHead() {
  const size_t top = heads_.TopIndex();
  const int qi = heads_[top].second;
  heads_.Pop(top);
  return qi;
}

bool EventMerger::Emit(int qi, const format::Event** event, const ThreadRec** thread) {
  Queue* q = queues_[static_cast<size_t>(qi)].get();
  current_ = qi;
  const format::Event& head = q->head();
  *event = &head;
  *thread = q->thread;
  if (head.time < last_time_) {
    ++late_events_;
  } else {
    last_time_ = head.time;
  }
  ++events_;
  return true;
}

uint32_t EventMerger::TakeRun(const format::Event** first) {
  if (current_ < 0 || !heads_.empty()) return 0;
  Queue* q = queues_[static_cast<size_t>(current_)].get();
  uint32_t end = q->pos + 1;
  uint64_t last = last_time_;
  while (end < q->len) {
    const uint64_t t = q->batch[end].time;
    if (t < last || !waiting_.Safe(t, current_)) break;
    last = t;
    ++end;
  }
  const uint32_t n = end - (q->pos + 1);
  if (n == 0) return 0;
  *first = &q->batch[q->pos + 1];
  q->pos = end - 1;
  last_time_ = last;
  events_ += n;
  return n;
}

bool EventMerger::FastNext(const format::Event** event, const ThreadRec** thread) {
  Queue* q = queues_[static_cast<size_t>(current_)].get();
  if (!Advance(q)) {
    // The thread's queue ran dry: it may now block the others.
    const int qi = current_;
    current_ = -1;
    UpdateWaiting(qi);
    return false;
  }
  return AfterAdvance(event, thread);
}

bool EventMerger::AfterAdvance(const format::Event** event, const ThreadRec** thread) {
  Queue* q = queues_[static_cast<size_t>(current_)].get();
  q->has_head = true;
  const uint64_t t = q->head().time;
  if (heads_.empty()) {
    if (waiting_.Safe(t, current_)) return Emit(current_, event, thread);
  } else {
    const size_t i = heads_.TopIndex();
    const HeadCandidates::Head top = heads_[i];
    if (t < top.first || (t == top.first && current_ < top.second)) {
      if (waiting_.Safe(t, current_)) return Emit(current_, event, thread);
    } else if (heads_.small() && waiting_.Safe(top.first, top.second)) {
      // Threads taking turns: swap the current queue for the smallest
      // candidate in place, without going through the slow path.
      heads_.Replace(i, {t, current_});
      return Emit(top.second, event, thread);
    }
  }
  PushHead(current_);
  current_ = -1;
  return false;
}

bool EventMerger::SlowNext(const format::Event** event, const ThreadRec** thread) {
  if (current_ >= 0) {
    // Only when FastNext was not tried; keep the invariant anyway.
    Queue* q = queues_[static_cast<size_t>(current_)].get();
    if (q->has_head) PushHead(current_);
    current_ = -1;
  }
  for (;;) {
    if (!heads_.empty()) {
      const HeadCandidates::Head top = heads_[heads_.TopIndex()];
      if (reader_done_ || waiting_.Safe(top.first, top.second)) {
        return Emit(PopHead(), event, thread);
      }
      if (buffered_ > options_.max_buffered_bytes) {
        ++forced_emits_;
        return Emit(PopHead(), event, thread);
      }
    } else if (reader_done_) {
      return false;
    }
    if (!ReadChunk()) {
      reader_done_ = true;
      waiting_.SetDone();
    }
  }
}

}  // namespace itt_dump
}  // namespace ittc
