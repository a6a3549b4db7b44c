#include "collector/internal/flusher.h"

#include <linux/futex.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "collector/internal/log.h"
#include "collector/internal/process_maps.h"
#include "collector/internal/raw_record.h"
#include "collector/internal/registry.h"
#include "collector/internal/session.h"
#include "collector/internal/timebase.h"

namespace ittc::collector_internal {
namespace {

using format::ChunkType;
using format::EventKind;

// Uncompressed bytes per events chunk: big enough for zstd to find the
// repetition in task streams, small enough that a crash loses little.
constexpr size_t kEventsChunkTarget = 512 * 1024;

// Framed bytes collected before a write(2).
constexpr size_t kWriteBatch = 1024 * 1024;

// A round that drained more than this goes straight into the next one
// instead of sleeping: a producer that fast refills its ring within a sleep.
constexpr size_t kBusyRoundBytes = 64 * 1024;

// A drain hands the slots it has encoded back to the producer once this
// many bytes are encoded (it looks every 256 events), not only at the end
// of what it found: a producer that fills the ring while a large backlog
// drains gets room as soon as there is some.
constexpr size_t kReleaseStepBytes = 64 * 1024;

// How far ahead of the record being encoded the flusher prefetches its
// ring: about 20 task events, several cache lines of latency ahead.
constexpr size_t kPrefetchAhead = 512;

// How often a clock sync point is written.
constexpr uint64_t kClockSyncIntervalNs = 1000 * 1000 * 1000;

// Bumped by Wake(); the flusher sleeps on it.
std::atomic<int> g_wake_seq{0};

// The test hold (HoldForTest). Written by the holding thread (kFree <->
// kRequested), the flusher (kRequested -> kParked; kFree when it ends) and
// Stop (kFree); every change is followed by a FUTEX_WAKE of all waiters,
// and every wait names the value it saw, so no wake-up is lost. Relaxed is
// enough: the hold orders no data, only when the flusher drains (the ring's
// own acquire/release orders the records).
enum HoldState : int { kHoldFree = 0, kHoldRequested = 1, kHoldParked = 2 };
std::atomic<int> g_hold{kHoldFree};
// 1 from Start until the flusher's loop ends: a hold has somebody to park.
std::atomic<int> g_flusher_running{0};

// Full rounds (RequestFullRound): tickets asked, and the last one a round
// served (release after the round's commit, acquire by the waiter). A
// request that a round's look at g_rounds_asked misses is served by the
// next round, at most a flush interval later.
std::atomic<int> g_rounds_asked{0};
std::atomic<int> g_rounds_done{0};

__thread bool tls_on_flusher __attribute__((tls_model("initial-exec"))) = false;

long Futex(std::atomic<int>* addr, int op, int value, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<int*>(addr), op, value, timeout, nullptr, 0);
}

void SleepOnWake(int seen, uint32_t timeout_ms) {
  timespec ts;
  ts.tv_sec = timeout_ms / 1000;
  ts.tv_nsec = static_cast<long>(timeout_ms % 1000) * 1000000L;
  Futex(&g_wake_seq, FUTEX_WAIT_PRIVATE, seen, &ts);
}

std::string ThreadComm(uint64_t tid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%llu/comm",
                static_cast<unsigned long long>(tid));
  FILE* f = std::fopen(path, "re");
  if (f == nullptr) return {};
  char buf[64] = {};
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0')) --n;
  return std::string(buf, n);
}

}  // namespace

FlusherStageTicks g_flusher_stage_ticks;

Flusher::Flusher(const Settings& settings, OutputFile* file, FlightStore* flight)
    : settings_(settings), output_(file, flight), chunk_writer_(settings.zstd_level) {}

void Flusher::Wake() {
  g_wake_seq.fetch_add(1, std::memory_order_relaxed);
  Futex(&g_wake_seq, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

uint32_t Flusher::RequestFullRound() {
  const int ticket = g_rounds_asked.fetch_add(1, std::memory_order_seq_cst) + 1;
  Wake();
  return static_cast<uint32_t>(ticket);
}

bool Flusher::WaitForRound(uint32_t ticket, uint64_t deadline_ns) {
  for (;;) {
    const int done = g_rounds_done.load(std::memory_order_acquire);
    // Tickets wrap: compare them as distances.
    if (static_cast<int32_t>(static_cast<uint32_t>(done) - ticket) >= 0) return true;
    if (g_flusher_running.load(std::memory_order_relaxed) == 0) return false;
    const uint64_t now = MonotonicRawNs();
    if (now >= deadline_ns) return false;
    // At most 10 ms at a time: the flusher may stop without serving it.
    const uint64_t left = std::min<uint64_t>(deadline_ns - now, 10 * 1000 * 1000);
    const timespec ts{0, static_cast<long>(left)};
    Futex(&g_rounds_done, FUTEX_WAIT_PRIVATE, done, &ts);
  }
}

bool Flusher::OnFlusherThread() { return tls_on_flusher; }

namespace {

void SetHold(int state) {
  g_hold.store(state, std::memory_order_relaxed);
  Futex(&g_hold, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
}

}  // namespace

bool Flusher::HoldForTest(bool hold) {
  if (!hold) {
    SetHold(kHoldFree);
    return true;
  }
  if (g_flusher_running.load(std::memory_order_relaxed) == 0) return false;
  int expected = kHoldFree;
  if (g_hold.compare_exchange_strong(expected, kHoldRequested, std::memory_order_relaxed)) {
    Futex(&g_hold, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
  }
  Wake();  // out of its sleep, to the top of its loop
  int state;
  while ((state = g_hold.load(std::memory_order_relaxed)) == kHoldRequested) {
    // The flusher may have left its loop just before the request: look again
    // every 10 ms rather than wait for a park that will not come.
    if (g_flusher_running.load(std::memory_order_relaxed) == 0) {
      g_hold.compare_exchange_strong(state, kHoldFree, std::memory_order_relaxed);
      return false;
    }
    const timespec poll{0, 10 * 1000 * 1000};
    Futex(&g_hold, FUTEX_WAIT_PRIVATE, kHoldRequested, &poll);
  }
  return state == kHoldParked;
}

void Flusher::ParkWhileHeld() {
  int expected = kHoldRequested;
  if (g_hold.compare_exchange_strong(expected, kHoldParked, std::memory_order_relaxed)) {
    Futex(&g_hold, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
  }
  while (g_hold.load(std::memory_order_relaxed) == kHoldParked &&
         stop_requested_.load(std::memory_order_acquire) == 0) {
    Futex(&g_hold, FUTEX_WAIT_PRIVATE, kHoldParked, nullptr);
  }
}

bool Flusher::Start(const format::FileHeader& header) {
  if (!output_.WriteHeader(format::EncodeFileHeader(header))) return false;
  WriteClockSync();
  if (!WritePending()) return false;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  // The flusher must not be cancelled or see the host's signals.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  g_flusher_running.store(1, std::memory_order_relaxed);
  int rc = pthread_create(&thread_, &attr, &Flusher::ThreadMain, this);
  if (rc != 0) g_flusher_running.store(0, std::memory_order_relaxed);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    LogWarning("cannot start the flusher thread: %s; collection is off", std::strerror(rc));
    return false;
  }
  thread_started_ = true;
  return true;
}

void* Flusher::ThreadMain(void* self) {
  pthread_setname_np(pthread_self(), "ittc-flusher");
  tls_on_flusher = true;
  static_cast<Flusher*>(self)->SetPriority();
  static_cast<Flusher*>(self)->WarmUp();
  static_cast<Flusher*>(self)->Run();
  return nullptr;
}

void Flusher::WarmUp() {
  // Steps of a few ms each (on a VM that pays ~20 us a page), each followed
  // by a round: a program that records fast from its first call has its
  // ring drained meanwhile, as if the flusher were not warming up.
  auto drain = [this] {
    if (stop_requested_.load(std::memory_order_acquire) == 0 && !write_failed_) Round(false);
  };
  // The batch's largest size: it is written once it reaches kWriteBatch,
  // so one more framed chunk can follow (zstd's bound on a payload is its
  // size plus less than 1/128 of it).
  const size_t batch =
      kWriteBatch + format::kChunkHeaderSize + kEventsChunkTarget + kEventsChunkTarget / 128 + 4096;
  const size_t keep = pending_.size();
  pending_.resize(std::max(pending_.capacity(), batch), '\0');
  pending_.resize(keep);
  drain();
  // An encoder ready for the largest payload: the target, plus what the
  // events between two looks at its size can add.
  auto encoder = std::make_unique<format::EventStreamEncoder>();
  encoder->Reset(0, 0);
  encoder->Prepare(kEventsChunkTarget + kEventsChunkTarget / 8);
  drain();
  // zstd's workspace for a payload of the target's size, at both levels:
  // a task loop's events, in the shape they have.
  format::Event e;
  for (uint64_t i = 0; encoder->payload_size() < kEventsChunkTarget; ++i) {
    e.Init((i & 1) == 0 ? EventKind::kTaskBegin : EventKind::kTaskEnd, i * 37 + (i % 7));
    e.Set(format::Field::kDomain, 1);
    e.Set(format::Field::kName, 1 + (i >> 1) % 4);
    encoder->Append(e);
  }
  for (int level : {settings_.zstd_level, kBacklogZstdLevel}) {
    chunk_writer_.Warm(encoder->payload(), level).IgnoreError();
    drain();
  }
  encoder->Reset(0, 0);
  spare_encoders_.push_back(std::move(encoder));
}

void Flusher::SetPriority() {
  // On Linux a thread id names one thread here, not its process.
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  const int wanted = settings_.flusher_nice;
  errno = 0;
  const int own = getpriority(PRIO_PROCESS, tid);
  if (errno != 0 || own == wanted) return;
  if (setpriority(PRIO_PROCESS, tid, wanted) == 0) return;
  const int error = errno;
  int now = own;
  // Unprivileged, RLIMIT_NICE's soft limit r allows values down to 20 - r.
  rlimit limit{};
  if (wanted < own && getrlimit(RLIMIT_NICE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur <= 40) {
    const int floor = 20 - static_cast<int>(limit.rlim_cur);
    if (floor > wanted && floor < own && setpriority(PRIO_PROCESS, tid, floor) == 0) now = floor;
  }
  if (settings_.flusher_nice_explicit) {
    LogWarning("cannot give the flusher thread nice %d (%s); it runs at nice %d", wanted,
               std::strerror(error), now);
  }
}

void Flusher::Run() {
  while (stop_requested_.load(std::memory_order_acquire) == 0) {
    ParkWhileHeld();
    if (stop_requested_.load(std::memory_order_acquire) != 0) break;
    int seen = g_wake_seq.load(std::memory_order_relaxed);
    const int asked = g_rounds_asked.load(std::memory_order_seq_cst);
    const bool full = asked != g_rounds_done.load(std::memory_order_relaxed);
    size_t drained = Round(false, full);
    if (full) ServeRounds(asked);
    if (write_failed_) break;
    if (stop_requested_.load(std::memory_order_acquire) != 0) break;
    if (drained < kBusyRoundBytes) SleepOnWake(seen, settings_.flush_interval_ms);
  }
  // Nobody may wait for a park that will not come.
  g_flusher_running.store(0, std::memory_order_relaxed);
  SetHold(kHoldFree);
  if (!write_failed_) {
    const int asked = g_rounds_asked.load(std::memory_order_seq_cst);
    Round(true);
    WriteEnd();
    ServeRounds(asked);
  }
  output_.Close();
  done_.store(1, std::memory_order_release);
  Futex(&done_, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

bool Flusher::Stop(uint32_t timeout_ms) {
  if (!thread_started_) return true;
  stop_requested_.store(1, std::memory_order_release);
  SetHold(kHoldFree);  // a parked flusher must run its last round
  Wake();
  uint64_t deadline = MonotonicRawNs() + uint64_t{timeout_ms} * 1000000u;
  while (done_.load(std::memory_order_acquire) == 0) {
    uint64_t now = MonotonicRawNs();
    if (now >= deadline) return false;
    uint64_t left = deadline - now;
    timespec ts{static_cast<time_t>(left / 1000000000u), static_cast<long>(left % 1000000000u)};
    Futex(&done_, FUTEX_WAIT_PRIVATE, 0, &ts);
  }
  pthread_join(thread_, nullptr);
  thread_started_ = false;
  return true;
}

void Flusher::AbandonInChild() {
  // The thread does not exist in the child; its object is leaked on purpose
  // (its state may be mid-update), and the parent's file is not touched.
  thread_started_ = false;
  g_flusher_running.store(0, std::memory_order_relaxed);
  g_hold.store(kHoldFree, std::memory_order_relaxed);
  output_.AbandonInChild();
}

size_t Flusher::Round(bool final, bool close_all) {
  size_t drained = 0;
  ThreadState* prev = nullptr;
  ThreadState* t = g_threads.load(std::memory_order_acquire);
  while (t != nullptr && !write_failed_) {
    ThreadState* next = t->next;
    if (t->discard.load(std::memory_order_acquire) != 0) {
      ReapThread(t, prev);
      t = next;
      continue;
    }
    // Acquire pairs with the release in the thread's key destructor: every
    // record it committed is visible to the drain below.
    bool exited = t->exited.load(std::memory_order_acquire) != 0;
    drained += DrainThread(t, /*bounded=*/!final);
    WriteLosses(t, false);
    if (exited) {
      CloseChunkOf(t);
      WriteThreadInfo(t);
      ReapThread(t, prev);
    } else {
      prev = t;
    }
    t = next;
  }
  // A round that is not busy is followed by a sleep: nothing may wait in an
  // open chunk through it.
  CloseChunks(final || close_all || drained < kBusyRoundBytes);
  WriteDefinitions();
  UpdateProcessMaps(&chunk_writer_, &pending_);
  uint64_t now = MonotonicRawNs();
  if (final || now - last_sync_ns_ >= kClockSyncIntervalNs) WriteClockSync();
  WritePending();
  return drained;
}

size_t Flusher::DrainThread(ThreadState* t, bool bounded) {
  size_t drained = 0;
  OpenChunk* chunk = nullptr;
  if (!t->flusher_info_written) WriteThreadInfo(t);
  // What was committed when the drain began, and no more: a producer as fast
  // as the drain would otherwise keep the flusher on its ring, and every
  // other thread's ring would fill meanwhile. The last round drains to the
  // end: the gate is closed, and a call already past it may still commit.
  const size_t backlog = t->ring.BacklogBytes();
  const size_t budget = bounded ? backlog : SIZE_MAX;
  // Evicting the released lines (SpscRing::ReleaseAndEvict) spends the
  // flusher's time to spare the producer's; a flusher that has fallen
  // behind keeps its time for the drain.
  const bool evict = !FlusherBehind(backlog, t->ring.capacity());
  // What the ring's reader keeps from record to record (raw_record.h), and
  // the open chunk's encoder and event count, in locals for the drain: the encoder
  // writes through char pointers, which may alias any memory, so members
  // would be reloaded for every record. `events` goes back to the chunk
  // before anything else reads it (WriteChunk, the end of the drain).
  uint64_t prev_ticks = t->flusher_ticks;
  uint64_t task_word = t->flusher_task_word;
  uint64_t events = 0;
  format::EventStreamEncoder* encoder = nullptr;  // the open chunk's
  while (drained < budget) {
    const uint8_t* data;
    size_t available = t->ring.Peek(&data);
    if (available == 0) break;
    size_t consumed = 0;
    size_t released = 0;
    // Hands the window's bytes before `end` back to the producer: the
    // encoder copied every byte it needed from those records.
    auto release_to = [&](size_t end) {
      if (evict) {
        t->ring.ReleaseAndEvict(end - released);
      } else {
        t->ring.Release(end - released);
      }
      released = end;
    };
    while (consumed < available) {
      uint64_t header;
      std::memcpy(&header, data + consumed, sizeof(header));
      const size_t size = RawSize(header);
      // Sizes are multiples of 8, and so is what is left of the window: one
      // compare refuses a size of 0 and one past the window.
      if (__builtin_expect(size - 8 > available - consumed - 8, 0)) {
        // Cannot happen unless memory was overwritten; drop the rest rather
        // than read out of bounds.
        static int once = 0;
        LogWarningOnce(&once,
                       "a thread's ring holds a malformed record; its remaining events "
                       "are dropped");
        consumed = available;
        break;
      }
      const uint16_t kind = RawKind(header);
      if (kind != kPaddingKind) {
        const uint8_t* record = data + consumed;
        const uint64_t ticks = RawTicks(record, prev_ticks);
        prev_ticks = ticks;
        // The producer wrote these lines on another core: ask for the ones
        // a few records ahead now, so their transfer overlaps the encoding.
        __builtin_prefetch(record + kPrefetchAhead);
        if (__builtin_expect(kind >= static_cast<uint16_t>(EventKind::kThreadSetName) &&
                                 kind <= static_cast<uint16_t>(EventKind::kThreadIgnore),
                             0)) {
          NoteThreadRecord(t, record, ticks);
        }
        if (chunk == nullptr) {
          chunk = ChunkFor(t);
          encoder = chunk->encoder.get();
          events = chunk->events;
        }
        if (events == 0) {
          encoder->Reset(t->index, ticks);
          chunk->opened_ns = MonotonicRawNs();
          chunk->first_ticks = ticks;
        }
        if (AppendRawRecord(record, ticks, &task_word, encoder)) {
          // Every 256 events: hand back a step of the ring, and close the
          // chunk once it is full (payload_size() costs a few varint
          // lengths).
          if ((++events & 255) == 0) {
            if (consumed + size - released >= kReleaseStepBytes) release_to(consumed + size);
            if (encoder->payload_size() >= kEventsChunkTarget) {
              // What is left in the ring is then the backlog WriteChunk weighs.
              release_to(consumed + size);
              chunk->events = events;
              chunk->last_ticks = ticks;
              WriteChunk(chunk);
              events = 0;
            }
          }
        } else {
          t->dropped[static_cast<int>(format::LossCause::kInvalidArgument)].fetch_add(
              1, std::memory_order_relaxed);
        }
      }
      consumed += size;
    }
    release_to(consumed);
    drained += consumed;
  }
  if (chunk != nullptr) {
    chunk->events = events;
    chunk->last_ticks = prev_ticks;
  }
  t->flusher_ticks = prev_ticks;
  t->flusher_task_word = task_word;
  t->wake_pending.store(0, std::memory_order_relaxed);
  return drained;
}

void Flusher::NoteThreadRecord(ThreadState* t, const uint8_t* record, uint64_t ticks) {
  uint64_t unused_task_word = kNoTaskWord;  // a thread record is no task
  if (!DecodeRawRecord(record, ticks, &unused_task_word, &event_)) return;
  if (event_.kind == EventKind::kThreadSetName) {
    t->flusher_name =
        Registry::Get().StringText(static_cast<uint32_t>(event_.Get(format::Field::kName)));
    t->flusher_info_written = false;
  } else if (event_.kind == EventKind::kThreadIgnore) {
    t->flusher_ignored = true;
    t->flusher_info_written = false;
  }
}

Flusher::OpenChunk* Flusher::ChunkFor(ThreadState* t) {
  for (OpenChunk& c : open_chunks_) {
    if (c.thread == t) return &c;
  }
  OpenChunk c;
  c.thread = t;
  if (!spare_encoders_.empty()) {
    c.encoder = std::move(spare_encoders_.back());
    spare_encoders_.pop_back();
  } else {
    c.encoder = std::make_unique<format::EventStreamEncoder>();
  }
  open_chunks_.push_back(std::move(c));
  return &open_chunks_.back();
}

void Flusher::CloseChunks(bool all) {
  const uint64_t max_age_ns = uint64_t{settings_.flush_interval_ms} * 1000000u / 2;
  const uint64_t now = MonotonicRawNs();
  size_t kept = 0;
  for (size_t i = 0; i < open_chunks_.size(); ++i) {
    OpenChunk& c = open_chunks_[i];
    bool close = all || c.events == 0 || now - c.opened_ns >= max_age_ns ||
                 c.encoder->payload_size() >= kEventsChunkTarget;
    if (!close) {
      if (kept != i) open_chunks_[kept] = std::move(c);
      ++kept;
      continue;
    }
    if (c.events != 0) WriteChunk(&c);
    // A few encoders are kept for reuse; their buffers have grown already.
    if (spare_encoders_.size() < 4) spare_encoders_.push_back(std::move(c.encoder));
  }
  open_chunks_.resize(kept);
}

void Flusher::CloseChunkOf(ThreadState* t) {
  for (size_t i = 0; i < open_chunks_.size(); ++i) {
    if (open_chunks_[i].thread != t) continue;
    if (open_chunks_[i].events != 0) WriteChunk(&open_chunks_[i]);
    if (spare_encoders_.size() < 4) spare_encoders_.push_back(std::move(open_chunks_[i].encoder));
    open_chunks_.erase(open_chunks_.begin() + static_cast<ptrdiff_t>(i));
    return;
  }
}

void Flusher::WriteChunk(OpenChunk* c) {
  ThreadState* t = c->thread;
  // Definitions first: every id in this payload was registered before its
  // record was committed, hence before the drain read it.
  WriteDefinitions();
  if (!t->flusher_info_written) WriteThreadInfo(t);
  const int level = FlusherBehind(t->ring.BacklogBytes(), t->ring.capacity())
                        ? kBacklogZstdLevel
                        : settings_.zstd_level;
  const uint64_t compress0 = ReadTicks();
  absl::Status s = chunk_writer_.AppendChunk(ChunkType::kEvents, c->encoder->payload(), level,
                                             &pending_, c->encoder->chunk_flags());
  g_flusher_stage_ticks.compress.fetch_add(ReadTicks() - compress0, std::memory_order_relaxed);
  if (s.ok()) {
    t->flusher_recorded += c->events;
    totals_.events_recorded += c->events;
    notes_.events.push_back({t->index, c->events, c->first_ticks, c->last_ticks});
  } else {
    t->dropped[static_cast<int>(format::LossCause::kRecordTooLarge)].fetch_add(
        c->events, std::memory_order_relaxed);
  }
  c->events = 0;
  if (pending_.size() >= kWriteBatch) WritePending();
}

void Flusher::WriteDefinitions() {
  raw_definitions_.clear();
  Registry::Get().CollectDefinitions(&definitions_cursor_, &raw_definitions_);
  if (raw_definitions_.empty()) return;
  records_.Clear();
  const auto* p = reinterpret_cast<const uint8_t*>(raw_definitions_.data());
  const uint8_t* end = p + raw_definitions_.size();
  while (p < end) {
    uint64_t header;
    std::memcpy(&header, p, sizeof(header));
    size_t size = RawSize(header);
    if (size < kRawHeaderBytes || size > static_cast<size_t>(end - p)) break;
    // Definitions are all at ticks 0 (Registry::AppendDefinitionLocked).
    uint64_t no_task_word = kNoTaskWord;  // definitions hold no task
    if (DecodeRawRecord(p, RawTicks(p, 0), &no_task_word, &event_)) {
      records_.Append(event_);
      // Keep each definitions chunk well under the format's payload limit.
      if (records_.payload().size() >= kEventsChunkTarget)
        AppendRecordChunk(ChunkType::kDefinitions);
    }
    p += size;
  }
  AppendRecordChunk(ChunkType::kDefinitions);
}

void Flusher::WriteThreadInfo(ThreadState* t) {
  if (t->flusher_name.empty()) t->flusher_comm = ThreadComm(t->tid);
  format::ThreadInfo info;
  info.thread_index = t->index;
  info.tid = t->tid;
  info.name = t->flusher_name.empty() ? std::string_view(t->flusher_comm)
                                      : std::string_view(t->flusher_name);
  info.ignored = t->flusher_ignored;
  records_.Clear();
  records_.Append(format::ToRecord(info));
  AppendRecordChunk(ChunkType::kThreadInfo);
  t->flusher_info_written = true;
}

void Flusher::WriteLosses(ThreadState* t, bool force) {
  records_.Clear();
  for (int c = 0; c < kLossCauseSlots; ++c) {
    uint64_t n = t->dropped[c].load(std::memory_order_relaxed);
    if (n == t->flusher_dropped_written[c] && !(force && n != 0)) continue;
    totals_.events_dropped += n - t->flusher_dropped_written[c];
    t->flusher_dropped_written[c] = n;
    format::LossRecord loss;
    loss.thread_index = t->index;
    loss.cause = static_cast<format::LossCause>(c);
    loss.count = n;
    records_.Append(format::ToRecord(loss));
    notes_.losses.push_back({t->index, loss.cause, n});
  }
  if (records_.record_count() != 0) AppendRecordChunk(ChunkType::kLoss);
}

void Flusher::WriteClockSync() {
  SyncPoint p = TakeSyncPoint();
  format::ClockSync sync;
  sync.ticks = p.ticks;
  sync.monotonic_raw_ns = p.monotonic_raw_ns;
  sync.realtime_ns = static_cast<int64_t>(p.realtime_ns);
  records_.Clear();
  records_.Append(format::ToRecord(sync));
  AppendRecordChunk(ChunkType::kClockSync);
  last_sync_ns_ = p.monotonic_raw_ns;
}

void Flusher::AppendRecordChunk(ChunkType type) {
  if (records_.record_count() == 0) return;
  absl::Status s = chunk_writer_.AppendChunk(type, records_.payload(), &pending_);
  if (!s.ok()) {
    static int once = 0;
    LogWarningOnce(&once, "cannot encode a %s chunk: %s",
                   format::ChunkTypeName(static_cast<uint16_t>(type)),
                   std::string(s.message()).c_str());
  }
  records_.Clear();
}

bool Flusher::WritePending() {
  if (pending_.empty()) return true;
  if (write_failed_) {
    pending_.clear();
    notes_.Clear();
    return false;
  }
  const uint64_t write0 = ReadTicks();
  bool ok = output_.Commit(&pending_, notes_);
  g_flusher_stage_ticks.write.fetch_add(ReadTicks() - write0, std::memory_order_relaxed);
  pending_.clear();
  notes_.Clear();
  if (!ok) {
    write_failed_ = true;
    failed_.store(true, std::memory_order_release);
    OnFlusherFailed();
  }
  return ok;
}

void Flusher::WriteEnd() {
  for (ThreadState* t = g_threads.load(std::memory_order_acquire); t != nullptr; t = t->next) {
    WriteLosses(t, false);
  }
  WriteClockSync();
  format::EndRecord end;
  end.events_recorded = totals_.events_recorded;
  end.events_dropped = totals_.events_dropped;
  end.chunk_count = output_.chunks_committed();
  end.end_ticks = ReadTicks();
  records_.Clear();
  records_.Append(format::ToRecord(end));
  AppendRecordChunk(ChunkType::kEnd);
  WritePending();
}

void Flusher::ServeRounds(int asked) {
  g_rounds_done.store(asked, std::memory_order_release);
  Futex(&g_rounds_done, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
}

void Flusher::ReapThread(ThreadState* t, ThreadState* prev) {
  UnlinkThread(t, prev);
  FreeThreadState(t);
}

}  // namespace ittc::collector_internal
