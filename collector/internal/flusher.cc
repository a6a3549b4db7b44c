#include "collector/internal/flusher.h"

#include <linux/futex.h>
#include <sched.h>
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
#include <mutex>

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

// In flight recorder mode a batch goes into memory, and the store keeps
// the newest chunks in the order the flushers commit them: one flusher's
// whole batch, committed late, could push every chunk of the others'
// threads out of a small store, though theirs are as new. Batches there
// are at most 1/kFlightBatchFraction of the store (and at least 64 KiB).
constexpr size_t kFlightBatchFraction = 16;
constexpr size_t kMinFlightBatch = 64 * 1024;

size_t WriteBatchBytes(const Settings& settings) {
  if (settings.flight_bytes == 0) return kWriteBatch;
  return std::clamp(settings.flight_bytes / kFlightBatchFraction, kMinFlightBatch, kWriteBatch);
}

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

// How often flusher 0 counts the active threads (ThreadActive) and, if the
// count calls for more flushers, starts them. Short beside a flush
// interval: a tight loop fills a 4 MiB ring in a few milliseconds, and the
// flushers it needs must be there before it does.
constexpr uint64_t kActivityWindowNs = 10 * 1000 * 1000;

// How often flusher 0 reads the process's affinity mask again.
constexpr uint64_t kCoresRefreshNs = 1000 * 1000 * 1000;

// Each flusher sleeps on its own word, bumped by whoever wakes it; one
// cache line each, since producers of different flushers bump them. The
// line also holds what the flight recorder's waiters read of it (full
// rounds, Flusher::RequestFullRound): `live` is 1 while the flusher's
// thread may still serve a full round, `served` the last ticket it served
// (release after the round's commit, acquire by the waiter).
struct alignas(kCacheLine) WakeWord {
  std::atomic<int> seq{0};
  std::atomic<int> live{0};
  std::atomic<int> served{0};
};
WakeWord g_wake[kMaxFlushers];

// Full rounds: tickets asked (RequestFullRound), and a word bumped each
// time a flusher serves some, which waiters sleep on. A request that a
// flusher's look at g_rounds_asked misses is served by its next round, at
// most a flush interval later (the request wakes every flusher).
std::atomic<int> g_rounds_asked{0};
std::atomic<int> g_rounds_served_seq{0};

__thread bool tls_on_flusher __attribute__((tls_model("initial-exec"))) = false;

// The test hold (HoldForTest). g_hold is written by the holding thread
// (kFree <-> kRequested or kThroughStop) and Stop (kRequested -> kFree);
// g_parked counts the flushers
// parked by it, g_running the flushers between their start and the end of
// their loop (a hold has somebody to park). Every change is followed by a
// FUTEX_WAKE of all waiters, and every wait names the value it saw, so no
// wake-up is lost. Relaxed is enough: the hold orders no data, only when
// the flushers drain (the rings' own acquire/release order the records).
enum HoldState : int { kHoldFree = 0, kHoldRequested = 1, kHoldThroughStop = 2 };
std::atomic<int> g_hold{kHoldFree};
std::atomic<int> g_parked{0};
std::atomic<int> g_running{0};

// The test hold of flusher 0's last rounds (HoldLastRoundForTest): asked,
// then flusher 0 waiting in it, until the test frees it. Changes are
// followed by a FUTEX_WAKE of all waiters, and waits name the value seen.
enum LastRoundHold : int { kLastFree = 0, kLastAsked = 1, kLastWaiting = 2 };
std::atomic<int> g_hold_last{kLastFree};

long Futex(std::atomic<int>* addr, int op, int value, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<int*>(addr), op, value, timeout, nullptr, 0);
}

void FutexWakeAll(std::atomic<int>* addr) { Futex(addr, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr); }

void WakeFlusher(int index) {
  g_wake[index].seq.fetch_add(1, std::memory_order_relaxed);
  Futex(&g_wake[index].seq, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

void WakeAllFlushers() {
  for (int i = 0; i < kMaxFlushers; ++i) WakeFlusher(i);
}

void SleepOnWake(int index, int seen, uint32_t timeout_ms) {
  timespec ts;
  ts.tv_sec = timeout_ms / 1000;
  ts.tv_nsec = static_cast<long>(timeout_ms % 1000) * 1000000L;
  Futex(&g_wake[index].seq, FUTEX_WAIT_PRIVATE, seen, &ts);
}

void SetHold(int state) {
  g_hold.store(state, std::memory_order_relaxed);
  FutexWakeAll(&g_hold);
}

// Parks the calling flusher while a test holds the flushers, until
// released or `stop`.
void ParkWhileHeld(const std::atomic<int>& stop) {
  if (g_hold.load(std::memory_order_relaxed) == kHoldFree) return;
  g_parked.fetch_add(1, std::memory_order_relaxed);
  FutexWakeAll(&g_parked);
  for (;;) {
    // The stop request first: it comes after the holder's last change of
    // the hold (kThroughStop), which this acquire then makes visible to
    // the read of the hold after it. Read the other way round, a flusher
    // preempted between the two reads could see a stale kRequested with
    // the stop, and leave a hold meant to outlast it.
    const bool stopping = stop.load(std::memory_order_acquire) != 0;
    const int hold = g_hold.load(std::memory_order_relaxed);
    const bool held = hold == kHoldThroughStop || (hold == kHoldRequested && !stopping);
    if (!held) break;
    Futex(&g_hold, FUTEX_WAIT_PRIVATE, hold, nullptr);
  }
  g_parked.fetch_sub(1, std::memory_order_relaxed);
  FutexWakeAll(&g_parked);
}

// Flusher 0's last rounds, before it looks at the full rounds asked: waits
// while a test holds them there (HoldLastRoundForTest).
void WaitWhileLastRoundHeld() {
  int expected = kLastAsked;
  if (!g_hold_last.compare_exchange_strong(expected, kLastWaiting, std::memory_order_acq_rel)) {
    return;
  }
  FutexWakeAll(&g_hold_last);
  while (g_hold_last.load(std::memory_order_acquire) == kLastWaiting) {
    Futex(&g_hold_last, FUTEX_WAIT_PRIVATE, kLastWaiting, nullptr);
  }
}

// The cores this process may run on (its affinity mask), at least 1.
int AllowedCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n < 1 ? 1 : n;
}

// Appends `records` as one chunk of `type` to `out` through `writer`, and
// clears them; nothing if there are none.
void AppendRecordChunk(format::ChunkWriter* writer, format::RecordEncoder* records, ChunkType type,
                       std::string* out) {
  if (records->record_count() == 0) return;
  absl::Status s = writer->AppendChunk(type, records->payload(), out);
  if (!s.ok()) {
    static int once = 0;
    LogWarningOnce(&once, "cannot encode a %s chunk: %s",
                   format::ChunkTypeName(static_cast<uint16_t>(type)),
                   std::string(s.message()).c_str());
  }
  records->Clear();
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

// ---------------------------------------------------------------------------
// Flusher: the group.

Flusher::Flusher(const Settings& settings, OutputFile* file, FlightStore* flight)
    : settings_(settings), output_(file, flight), defs_writer_(settings.zstd_level) {}

Flusher::~Flusher() = default;

void Flusher::Wake() { WakeFlusher(0); }

int Flusher::FullRoundsAskedForTest() { return g_rounds_asked.load(std::memory_order_seq_cst); }

uint32_t Flusher::RequestFullRound() {
  const int ticket = g_rounds_asked.fetch_add(1, std::memory_order_seq_cst) + 1;
  WakeAllFlushers();
  return static_cast<uint32_t>(ticket);
}

bool Flusher::WaitForRound(uint32_t ticket, uint64_t deadline_ns) {
  for (;;) {
    const int seen = g_rounds_served_seq.load(std::memory_order_acquire);
    bool any = false;
    bool all = true;
    for (const WakeWord& w : g_wake) {
      // `live` first: a flusher stores its last `served` before it stores
      // live = 0 (release), so one seen stopped shows its last. Acquire on
      // both: the round's commits come before.
      const bool live = w.live.load(std::memory_order_acquire) != 0;
      const auto served = static_cast<uint32_t>(w.served.load(std::memory_order_acquire));
      // Tickets wrap: compare them as distances. (One that stopped since
      // may have served it in its last round; one never started has
      // served nothing, 0.)
      if (static_cast<int32_t>(served - ticket) >= 0 && (live || served != 0)) {
        any = true;
        continue;
      }
      // A flusher that stopped without serving it handed its threads to
      // flusher 0 first, whose last round serves them (or, if none does,
      // came after that round: nothing will).
      if (!live) continue;
      any = true;
      all = false;
    }
    if (!any) return false;
    if (all) return true;
    const uint64_t now = MonotonicRawNs();
    if (now >= deadline_ns) return false;
    // At most 10 ms at a time: a flusher may stop without serving it.
    const uint64_t left = std::min<uint64_t>(deadline_ns - now, 10 * 1000 * 1000);
    const timespec ts{0, static_cast<long>(left)};
    Futex(&g_rounds_served_seq, FUTEX_WAIT_PRIVATE, seen, &ts);
  }
}

bool Flusher::OnFlusherThread() { return tls_on_flusher; }

void Flusher::WakeOwnerOf(const ThreadState* t) {
  const int owner = t->flusher_owner.load(std::memory_order_relaxed);
  WakeFlusher(owner < 0 ? 0 : owner);
}

bool Flusher::HoldThroughStopForTest() {
  if (!HoldForTest(true)) return false;
  SetHold(kHoldThroughStop);
  return true;
}

bool Flusher::HoldForTest(bool hold) {
  if (!hold) {
    SetHold(kHoldFree);
    return true;
  }
  if (g_running.load(std::memory_order_relaxed) == 0) return false;
  SetHold(kHoldRequested);
  WakeAllFlushers();  // out of their sleeps, to the tops of their loops
  for (;;) {
    const int parked = g_parked.load(std::memory_order_relaxed);
    const int running = g_running.load(std::memory_order_relaxed);
    if (running == 0) {
      // The flushers left their loops (the trace is stopping): nobody parks.
      int expected = kHoldRequested;
      g_hold.compare_exchange_strong(expected, kHoldFree, std::memory_order_relaxed);
      return false;
    }
    if (parked >= running) return true;
    // A flusher may leave its loop without parking: look again every 10 ms
    // rather than wait for a park that will not come.
    const timespec poll{0, 10 * 1000 * 1000};
    Futex(&g_parked, FUTEX_WAIT_PRIVATE, parked, &poll);
  }
}

void Flusher::HoldLastRoundForTest(bool hold) {
  if (hold) {
    // (Asked again while flusher 0 waits: it goes on waiting.)
    int free = kLastFree;
    g_hold_last.compare_exchange_strong(free, kLastAsked, std::memory_order_acq_rel);
  } else {
    g_hold_last.store(kLastFree, std::memory_order_release);
  }
  FutexWakeAll(&g_hold_last);
}

bool Flusher::WaitLastRoundHeldForTest(uint64_t deadline_ns) {
  for (;;) {
    const int hold = g_hold_last.load(std::memory_order_acquire);
    if (hold == kLastWaiting) return true;
    const uint64_t now = MonotonicRawNs();
    if (now >= deadline_ns) return false;
    const uint64_t left = std::min<uint64_t>(deadline_ns - now, 10 * 1000 * 1000);
    const timespec ts{0, static_cast<long>(left)};
    Futex(&g_hold_last, FUTEX_WAIT_PRIVATE, hold, &ts);
  }
}

int Flusher::RunningForTest() { return g_running.load(std::memory_order_relaxed); }

bool Flusher::MoveForTest(ThreadState* t, int to) {
  if (to < 0 || to >= started_.load(std::memory_order_acquire)) return false;
  // Release, as flusher 0's: the owner that reads it sees workers_[to].
  t->flusher_move_to.store(to, std::memory_order_release);
  WakeOwnerOf(t);
  return true;
}

int Flusher::CpuTimesNs(uint64_t* cpu_ns, int max) {
  const int n = std::min(started_.load(std::memory_order_acquire), max);
  for (int i = 0; i < n; ++i) {
    clockid_t clock;
    timespec ts{};
    cpu_ns[i] = 0;
    // Acquire pairs with StartWorker's release: thread_ is written.
    if (!workers_[i]->thread_ready_.load(std::memory_order_acquire)) continue;
    if (pthread_getcpuclockid(workers_[i]->thread_, &clock) == 0 &&
        clock_gettime(clock, &ts) == 0) {
      cpu_ns[i] =
          static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
    }
  }
  return n;
}

bool Flusher::Start(const format::FileHeader& header) {
  if (!output_.WriteHeader(format::EncodeFileHeader(header))) return false;
  workers_[0] = std::make_unique<FlusherWorker>(this, 0);
  if (!workers_[0]->WriteFirstSyncPoint()) return false;
  // The flushers must not be cancelled or see the host's signals; flusher
  // 0 starts the others with the same mask.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const bool ok = StartWorker(0);
  // ITTC_FLUSHERS: all of them from the start (flusher 0 starts the others
  // as their threads become active).
  for (int i = 1; ok && i < settings_.flushers && StartWorker(i); ++i) {
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

// REQUIRES: workers [0, index) are started; called by Start, or by
// flusher 0 when ITTC_FLUSHERS leaves the number to it (never both).
bool Flusher::StartWorker(int index) {
  if (workers_[index] == nullptr) workers_[index] = std::make_unique<FlusherWorker>(this, index);
  FlusherWorker* w = workers_[index].get();
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  g_running.fetch_add(1, std::memory_order_relaxed);
  g_wake[index].live.store(1, std::memory_order_relaxed);
  // Published before its thread runs: flusher 0's first round reads it.
  // Release: a flusher that reads started_ (acquire) may use the worker.
  started_.store(index + 1, std::memory_order_release);
  const int rc = pthread_create(&w->thread_, &attr, &FlusherWorker::ThreadMain, w);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    // Only flusher 0 hands threads to a new flusher, and it is here.
    started_.store(index, std::memory_order_release);
    g_running.fetch_sub(1, std::memory_order_relaxed);
    g_wake[index].live.store(0, std::memory_order_relaxed);
    if (index == 0) {
      LogWarning("cannot start the flusher thread: %s; collection is off", std::strerror(rc));
    } else {
      static int once = 0;
      LogWarningOnce(&once, "cannot start flusher thread %d: %s; %d flushers go on", index,
                     std::strerror(rc), index);
    }
    return false;
  }
  w->thread_started_ = true;
  w->thread_ready_.store(true, std::memory_order_release);  // thread_ is set
  return true;
}

bool Flusher::Stop(uint32_t timeout_ms) {
  FlusherWorker* coordinator = workers_[0].get();
  if (coordinator == nullptr || !coordinator->thread_started_) return true;
  stop_requested_.store(1, std::memory_order_seq_cst);
  // Parked flushers must run their last rounds, unless a test wants them
  // stuck.
  int held = kHoldRequested;
  if (g_hold.compare_exchange_strong(held, kHoldFree, std::memory_order_relaxed)) {
    FutexWakeAll(&g_hold);
  }
  WakeAllFlushers();
  uint64_t deadline = DeadlineAfterMs(timeout_ms);
  while (done_.load(std::memory_order_acquire) == 0) {
    uint64_t now = MonotonicRawNs();
    if (now >= deadline) return false;
    uint64_t left = deadline - now;
    timespec ts{static_cast<time_t>(left / 1000000000u), static_cast<long>(left % 1000000000u)};
    Futex(&done_, FUTEX_WAIT_PRIVATE, 0, &ts);
  }
  pthread_join(coordinator->thread_, nullptr);
  coordinator->thread_started_ = false;
  return true;
}

void Flusher::StopOthers() {
  // Acquire: Start's workers too (Stop's stop request orders them anyway).
  const int started = started_.load(std::memory_order_acquire);
  for (int i = 1; i < started; ++i) {
    WakeFlusher(i);
    if (workers_[i]->thread_started_) pthread_join(workers_[i]->thread_, nullptr);
    workers_[i]->thread_started_ = false;
  }
  // What flusher 0 gave them after their last looks at their inboxes.
  for (int i = 1; i < started; ++i) {
    std::lock_guard<std::mutex> lock(workers_[i]->inbox_mu_);
    for (ThreadState* t : workers_[i]->inbox_) {
      t->flusher_owner.store(0, std::memory_order_relaxed);
      workers_[0]->threads_.push_back(t);
    }
    workers_[i]->inbox_.clear();
  }
}

void Flusher::AbandonInChild() {
  // The threads do not exist in the child; the objects are leaked on
  // purpose (their state may be mid-update), and the parent's file is not
  // touched.
  for (auto& w : workers_) {
    if (w != nullptr) w->thread_started_ = false;
  }
  for (WakeWord& w : g_wake) w.live.store(0, std::memory_order_relaxed);
  g_running.store(0, std::memory_order_relaxed);
  g_parked.store(0, std::memory_order_relaxed);
  g_hold.store(kHoldFree, std::memory_order_relaxed);
  g_hold_last.store(kLastFree, std::memory_order_relaxed);
  output_.AbandonInChild();
}

void Flusher::OnWriteFailed() {
  if (!failed_.exchange(true, std::memory_order_acq_rel)) OnFlusherFailed();
}

bool Flusher::CommitDefinitions() {
  std::lock_guard<std::mutex> lock(defs_mu_);
  raw_definitions_.clear();
  Registry::Get().CollectDefinitions(&definitions_cursor_, &raw_definitions_);
  if (raw_definitions_.empty()) return true;
  defs_records_.Clear();
  const auto* p = reinterpret_cast<const uint8_t*>(raw_definitions_.data());
  const uint8_t* end = p + raw_definitions_.size();
  while (p < end) {
    uint64_t header;
    std::memcpy(&header, p, sizeof(header));
    size_t size = RawSize(header);
    if (size < kRawHeaderBytes || size > static_cast<size_t>(end - p)) break;
    // Definitions are all at ticks 0 (Registry::AppendDefinitionLocked).
    uint64_t no_task_word = kNoTaskWord;  // definitions hold no task
    if (DecodeRawRecord(p, RawTicks(p, 0), &no_task_word, &defs_event_)) {
      defs_records_.Append(defs_event_);
      // Keep each definitions chunk well under the format's payload limit.
      if (defs_records_.payload().size() >= kEventsChunkTarget) {
        AppendRecordChunk(&defs_writer_, &defs_records_, ChunkType::kDefinitions, &defs_pending_);
      }
    }
    p += size;
  }
  AppendRecordChunk(&defs_writer_, &defs_records_, ChunkType::kDefinitions, &defs_pending_);
  const bool ok = output_.Commit(&defs_pending_, ChunkNotes{});
  defs_pending_.clear();
  return ok;
}

void Flusher::Coordinate(bool final) {
  const uint64_t now = MonotonicRawNs();
  if (now - window_start_ns_ >= kCoresRefreshNs || window_start_ns_ == 0) cores_ = AllowedCores();
  const bool window_end = now - window_start_ns_ >= kActivityWindowNs;
  const uint64_t elapsed = now - window_start_ns_;
  // Acquire pairs with StartWorker's release (Start's, with ITTC_FLUSHERS):
  // workers_[i] is there for every i below it.
  const int started = started_.load(std::memory_order_acquire);
  // Threads and active threads per flusher, counting a thread that is
  // moving at its destination.
  int owned[kMaxFlushers] = {};
  int active_owned[kMaxFlushers] = {};
  uint32_t active = 0;
  ThreadState* prev = nullptr;
  ThreadState* t = g_threads.load(std::memory_order_acquire);
  while (t != nullptr) {
    ThreadState* next = t->next;
    // Acquire pairs with the owner's release: it is done with `t`. A
    // discarded thread (a fork child's copy of another thread) never had
    // an owner in this process.
    if (t->flusher_retired.load(std::memory_order_acquire) != 0 ||
        t->discard.load(std::memory_order_acquire) != 0) {
      UnlinkThread(t, prev);
      FreeThreadState(t);
      t = next;
      continue;
    }
    int owner = t->flusher_owner.load(std::memory_order_relaxed);
    if (owner < 0) {
      // New: the flusher with the fewest threads (flusher 0 itself once
      // the others stopped). Flusher 0 takes it first and hands it over
      // in this round, drained (handover_mu_), unless a move is asked
      // already (MoveForTest), which it makes instead.
      owner = 0;
      for (int i = 1; i < started && !final; ++i) {
        if (owned[i] < owned[owner]) owner = i;
      }
      t->coord_head_seen = t->ring.head();
      t->flusher_owner.store(0, std::memory_order_relaxed);
      if (owner != 0) {
        int none = -1;
        t->flusher_move_to.compare_exchange_strong(none, owner, std::memory_order_relaxed);
      }
      workers_[0]->Adopt(t);
    }
    const int moving = t->flusher_move_to.load(std::memory_order_relaxed);
    if (moving >= 0) owner = moving;
    if (window_end) {
      const uint64_t head = t->ring.head();  // an atomic; the producer moves it
      t->coord_active = ThreadActive(head - t->coord_head_seen, elapsed, t->ring.capacity(),
                                     settings_.flush_interval_ms);
      t->coord_head_seen = head;
    }
    ++owned[owner];
    if (t->coord_active) {
      ++active;
      ++active_owned[owner];
    }
    prev = t;
    t = next;
  }
  if (!window_end || final) return;
  window_start_ns_ = now;
  active_ = active;
  int now_started = started;
  // ITTC_FLUSHERS: Start started them all.
  if (settings_.flushers == 0) {
    const int target = TargetFlushers(static_cast<int>(active), cores_);
    while (now_started < target && StartWorker(now_started)) ++now_started;
  }
  if (now_started < 2 || active < 2) return;
  // Spread the active threads: a flusher with more than its share gives
  // its extra ones to the flushers with the fewest.
  const int share = static_cast<int>((active + now_started - 1) / now_started);
  for (t = g_threads.load(std::memory_order_acquire); t != nullptr; t = t->next) {
    if (!t->coord_active || t->flusher_move_to.load(std::memory_order_relaxed) >= 0) continue;
    const int owner = t->flusher_owner.load(std::memory_order_relaxed);
    if (owner < 0 || active_owned[owner] <= share) continue;
    int to = 0;
    for (int i = 1; i < now_started; ++i) {
      if (active_owned[i] < active_owned[to]) to = i;
    }
    if (active_owned[to] + 1 > share || to == owner) continue;
    // Only where no move is asked for already (a test's, through
    // MoveForTest): a request is never overwritten, so none is lost.
    // Release: the owner that reads it (acquire) sees workers_[to].
    int none = -1;
    if (!t->flusher_move_to.compare_exchange_strong(none, to, std::memory_order_release,
                                                    std::memory_order_relaxed)) {
      continue;
    }
    --active_owned[owner];
    ++active_owned[to];
    WakeFlusher(owner);
  }
}

// ---------------------------------------------------------------------------
// FlusherWorker: one flusher thread.

FlusherWorker::FlusherWorker(Flusher* group, int index)
    : group_(group),
      index_(index),
      write_batch_(WriteBatchBytes(group->settings_)),
      chunk_writer_(group->settings_.zstd_level) {}

FlusherWorker::~FlusherWorker() = default;

void FlusherWorker::Adopt(ThreadState* t) {
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    inbox_.push_back(t);
  }
  WakeFlusher(index_);
}

void FlusherWorker::TakeInbox() {
  std::lock_guard<std::mutex> lock(inbox_mu_);
  threads_.insert(threads_.end(), inbox_.begin(), inbox_.end());
  inbox_.clear();
}

bool FlusherWorker::WriteFirstSyncPoint() {
  WriteClockSync();
  return WritePending();
}

void* FlusherWorker::ThreadMain(void* self) {
  auto* w = static_cast<FlusherWorker*>(self);
  char name[16];
  if (w->index_ == 0) {
    std::snprintf(name, sizeof(name), "ittc-flusher");
  } else {
    std::snprintf(name, sizeof(name), "ittc-flusher-%d", w->index_);
  }
  pthread_setname_np(pthread_self(), name);
  tls_on_flusher = true;
  w->SetPriority();
  w->WarmUp();
  w->Run();
  return nullptr;
}

void FlusherWorker::WarmUp() {
  // Steps of a few ms each (on a VM that pays ~20 us a page), each followed
  // by a round: a program that records fast from its first call has its
  // ring drained meanwhile, as if the flusher were not warming up.
  auto drain = [this] {
    if (!group_->stop_requested() && !group_->failed()) Round(false);
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
  for (int level : {group_->settings_.zstd_level, kBacklogZstdLevel}) {
    chunk_writer_.Warm(encoder->payload(), level).IgnoreError();
    drain();
  }
  encoder->Reset(0, 0);
  spare_encoders_.push_back(std::move(encoder));
}

void FlusherWorker::SetPriority() {
  const Settings& settings = group_->settings_;
  // On Linux a thread id names one thread here, not its process.
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  const int wanted = settings.flusher_nice;
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
  if (settings.flusher_nice_explicit) {
    static int once = 0;
    LogWarningOnce(&once, "cannot give the flusher threads nice %d (%s); they run at nice %d",
                   wanted, std::strerror(error), now);
  }
}

void FlusherWorker::Run() {
  const std::atomic<int>& stop = group_->stop_requested_;
  while (!group_->stop_requested() && !group_->failed()) {
    ParkWhileHeld(stop);
    if (group_->stop_requested()) break;
    int seen = g_wake[index_].seq.load(std::memory_order_relaxed);
    const int asked = g_rounds_asked.load(std::memory_order_seq_cst);
    const bool full = asked != g_wake[index_].served.load(std::memory_order_relaxed);
    size_t drained = Round(false, full);
    // Not served: a thread came in; the next round, at once, drains it.
    const bool served = !full || ServeRoundsIfNoneCame(asked, /*final=*/false);
    if (group_->failed() || group_->stop_requested()) break;
    if (served && drained < kBusyRoundBytes) {
      SleepOnWake(index_, seen, group_->settings_.flush_interval_ms);
    }
  }
  // Nobody may wait for a park that will not come.
  g_running.fetch_sub(1, std::memory_order_relaxed);
  FutexWakeAll(&g_parked);
  if (index_ != 0) {
    // The last rounds serve the full rounds asked before them.
    const int asked = g_rounds_asked.load(std::memory_order_seq_cst);
    // A thread handed over after the last round took the inbox was drained
    // when it was handed, maybe before a full round was asked: another
    // round drains it before this flusher serves.
    if (!group_->failed()) {
      Round(true);
      while (!group_->failed() && !ServeRoundsIfNoneCame(asked, /*final=*/true)) Round(true);
    }
    // Everything this flusher owned goes back to flusher 0, whose last
    // round comes after this one.
    TakeInbox();
    for (ThreadState* t : threads_) {
      t->flusher_move_to.store(-1, std::memory_order_relaxed);
      t->flusher_owner.store(0, std::memory_order_relaxed);
      group_->workers_[0]->Adopt(t);
    }
    threads_.clear();
    if (group_->failed()) ServeRounds(asked);
    g_wake[index_].live.store(0, std::memory_order_release);
    return;
  }
  // Stop woke every flusher: this one's rings drain while the others drain
  // theirs; then, once they have stopped, the threads they handed back
  // (drained already, but for what a late call committed), and the end.
  if (!group_->failed()) Round(true);
  group_->StopOthers();
  WaitWhileLastRoundHeld();
  // Calls waiting for room (block mode) see the stop within a nap and
  // count their drops: the losses written next count them. (A quarter of
  // the exit timeout at most, which Stop waits for all of this.)
  if (!group_->failed()) WaitForBlockedProducers(group_->settings_.exit_timeout_ms / 4);
  // Every thread is this flusher's now, and the last round drains each
  // ring to its end: it serves every full round asked so far, those asked
  // while the others stopped too.
  const int asked = g_rounds_asked.load(std::memory_order_seq_cst);
  if (!group_->failed()) {
    Round(true);
    WriteEnd();
  }
  ServeRounds(asked);
  g_wake[index_].live.store(0, std::memory_order_release);
  group_->output_.Close();
  group_->done_.store(1, std::memory_order_release);
  Futex(&group_->done_, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

bool FlusherWorker::ServeRoundsIfNoneCame(int asked, bool final) {
  std::lock_guard<std::mutex> handovers(group_->handover_mu_);
  if (!final && group_->stop_requested()) return false;
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    if (!inbox_.empty()) return false;
  }
  ServeRounds(asked);
  return true;
}

void FlusherWorker::ServeRounds(int asked) {
  g_wake[index_].served.store(asked, std::memory_order_release);
  g_rounds_served_seq.fetch_add(1, std::memory_order_release);
  FutexWakeAll(&g_rounds_served_seq);
}

size_t FlusherWorker::Round(bool final, bool close_all) {
  if (index_ == 0) group_->Coordinate(final);
  TakeInbox();
  size_t drained = 0;
  size_t kept = 0;
  std::vector<ThreadState*> retired;
  for (size_t i = 0; i < threads_.size(); ++i) {
    ThreadState* t = threads_[i];
    if (group_->failed()) {
      threads_[kept++] = t;
      continue;
    }
    // Acquire pairs with flusher 0's release: workers_[to] is there.
    const int move_to = t->flusher_move_to.load(std::memory_order_acquire);
    if (move_to >= 0 && move_to != index_ && !final) {
      handing_.emplace_back(t, move_to);
      continue;
    }
    if (move_to == index_) {
      // Asked to move where it is (flusher 0 saw an older owner): done. A
      // request made since stays.
      int here = index_;
      t->flusher_move_to.compare_exchange_strong(here, -1, std::memory_order_relaxed);
    }
    // Acquire pairs with the release in the thread's key destructor: every
    // record it committed is visible to the drain below.
    const bool exited = t->exited.load(std::memory_order_acquire) != 0;
    drained += DrainThread(t, /*bounded=*/!final);
    WriteLosses(t, false);
    if (exited) {
      CloseChunkOf(t);
      WriteThreadInfo(t);
      retired.push_back(t);
      continue;
    }
    threads_[kept++] = t;
  }
  threads_.resize(kept);
  if (!handing_.empty()) HandOver();
  // A round that is not busy is followed by a sleep: nothing may wait in an
  // open chunk through it.
  CloseChunks(final || close_all || drained < kBusyRoundBytes);
  if (index_ == 0) {
    // Definitions even without events: a trace that only named things
    // still holds the names.
    if (!group_->failed() && !group_->CommitDefinitions()) group_->OnWriteFailed();
    UpdateProcessMaps(&chunk_writer_, &pending_);
    uint64_t now = MonotonicRawNs();
    if (final || now - last_sync_ns_ >= kClockSyncIntervalNs) WriteClockSync();
  }
  WritePending();
  // Release: flusher 0 may free them once it sees this (acquire).
  for (ThreadState* t : retired) t->flusher_retired.store(1, std::memory_order_release);
  return drained;
}

void FlusherWorker::HandOver() {
  // Drained at the handover (handover_mu_): a full round the new owner
  // served already needs what each thread holds now out.
  std::lock_guard<std::mutex> handovers(group_->handover_mu_);
  for (const auto& [t, to] : handing_) {
    DrainThread(t, /*bounded=*/true);
    CloseChunkOf(t);
  }
  // Every chunk of a thread reaches the file before its new owner's first:
  // one commit for the round's handovers (a program that starts many short
  // threads has each handed over by flusher 0).
  WritePending();
  for (const auto& [t, to] : handing_) {
    // The request is done; one made since stays, for the new owner. Then
    // the new owner's number, after it (release: whoever reads the new
    // owner and then asks for a move finds this request gone).
    int asked = to;
    t->flusher_move_to.compare_exchange_strong(asked, -1, std::memory_order_relaxed);
    t->flusher_owner.store(to, std::memory_order_release);
    t->flusher_moves.fetch_add(1, std::memory_order_release);
    // The inbox's mutex orders this flusher's use of `t` before the next's.
    group_->workers_[to]->Adopt(t);
  }
  handing_.clear();
}

size_t FlusherWorker::DrainThread(ThreadState* t, bool bounded) {
  size_t drained = 0;
  OpenChunk* chunk = nullptr;
  // A naming or an ignore whose record the full ring dropped: the thread's
  // info all the same (one relaxed load per drain when there is none).
  if (__builtin_expect(t->info_lost.load(std::memory_order_relaxed) != 0, 0)) {
    const int lost = t->info_lost.exchange(0, std::memory_order_acquire);
    if ((lost & ThreadState::kNameLost) != 0) {
      t->flusher_name = Registry::Get().StringText(t->name_id.load(std::memory_order_relaxed));
      t->flusher_info_written = false;
    }
    if ((lost & ThreadState::kIgnoreLost) != 0) {
      t->flusher_ignored = true;
      t->flusher_info_written = false;
    }
  }
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

void FlusherWorker::NoteThreadRecord(ThreadState* t, const uint8_t* record, uint64_t ticks) {
  uint64_t unused_task_word = kNoTaskWord;  // a thread record is no task
  if (!DecodeRawRecord(record, ticks, &unused_task_word, &event_)) return;
  if (event_.kind == EventKind::kThreadSetName) {
    // The thread's latest name, which a later naming whose record was
    // dropped may have set already (ThreadState::info_lost): never an
    // older one over it.
    t->flusher_name = Registry::Get().StringText(t->name_id.load(std::memory_order_relaxed));
    t->flusher_info_written = false;
  } else if (event_.kind == EventKind::kThreadIgnore) {
    t->flusher_ignored = true;
    t->flusher_info_written = false;
  }
}

FlusherWorker::OpenChunk* FlusherWorker::ChunkFor(ThreadState* t) {
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

void FlusherWorker::CloseChunks(bool all) {
  const uint64_t max_age_ns = uint64_t{group_->settings_.flush_interval_ms} * 1000000u / 2;
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

void FlusherWorker::CloseChunkOf(ThreadState* t) {
  for (size_t i = 0; i < open_chunks_.size(); ++i) {
    if (open_chunks_[i].thread != t) continue;
    if (open_chunks_[i].events != 0) WriteChunk(&open_chunks_[i]);
    if (spare_encoders_.size() < 4) spare_encoders_.push_back(std::move(open_chunks_[i].encoder));
    open_chunks_.erase(open_chunks_.begin() + static_cast<ptrdiff_t>(i));
    return;
  }
}

void FlusherWorker::WriteChunk(OpenChunk* c) {
  ThreadState* t = c->thread;
  if (!t->flusher_info_written) WriteThreadInfo(t);
  const int level = FlusherBehind(t->ring.BacklogBytes(), t->ring.capacity())
                        ? kBacklogZstdLevel
                        : group_->settings_.zstd_level;
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
  if (pending_.size() >= write_batch_) WritePending();
}

void FlusherWorker::WriteThreadInfo(ThreadState* t) {
  if (t->flusher_name.empty()) {
    // An exited thread's name is the one it had as it exited (acquire:
    // written before `exited`); a name that cannot be read keeps the last.
    std::string comm = t->exited.load(std::memory_order_acquire) != 0 ? std::string(t->exit_comm)
                                                                      : ThreadComm(t->tid);
    if (!comm.empty()) t->flusher_comm = std::move(comm);
  }
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

void FlusherWorker::WriteLosses(ThreadState* t, bool force) {
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

void FlusherWorker::WriteClockSync() {
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

void FlusherWorker::AppendRecordChunk(ChunkType type) {
  collector_internal::AppendRecordChunk(&chunk_writer_, &records_, type, &pending_);
}

bool FlusherWorker::WritePending() {
  if (pending_.empty()) return true;
  if (group_->failed()) {
    pending_.clear();
    notes_.Clear();
    return false;
  }
  // Definitions first: every id in these chunks was registered before its
  // record was committed, hence before the drain read it.
  bool ok = group_->CommitDefinitions();
  const uint64_t write0 = ReadTicks();
  ok = ok && group_->output_.Commit(&pending_, notes_);
  g_flusher_stage_ticks.write.fetch_add(ReadTicks() - write0, std::memory_order_relaxed);
  pending_.clear();
  notes_.Clear();
  if (!ok) group_->OnWriteFailed();
  return ok;
}

void FlusherWorker::WriteEnd() {
  // Every other flusher has stopped and handed its threads here; totals
  // are theirs and ours.
  for (ThreadState* t = g_threads.load(std::memory_order_acquire); t != nullptr; t = t->next) {
    WriteLosses(t, false);
  }
  WriteClockSync();
  WritePending();
  format::EndRecord end;
  const int started = group_->started_.load(std::memory_order_relaxed);
  for (int i = 0; i < started; ++i) {
    end.events_recorded += group_->workers_[i]->totals_.events_recorded;
    end.events_dropped += group_->workers_[i]->totals_.events_dropped;
  }
  // Nothing else commits now: the end chunk's number is this count.
  end.chunk_count = group_->output_.chunks_committed();
  end.end_ticks = ReadTicks();
  records_.Clear();
  records_.Append(format::ToRecord(end));
  AppendRecordChunk(ChunkType::kEnd);
  WritePending();
}

}  // namespace ittc::collector_internal
