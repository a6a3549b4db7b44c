#include "collector/internal/thread_state.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <new>

#include "collector/internal/flusher.h"
#include "collector/internal/registry.h"
#include "collector/internal/session.h"
#include "collector/internal/timebase.h"

// LeakSanitizer does not scan mmap-ed memory; thread states (which hold
// heap strings) are registered as roots when it is present.
extern "C" void __lsan_register_root_region(const void* p, size_t size) __attribute__((weak));
extern "C" void __lsan_unregister_root_region(const void* p, size_t size) __attribute__((weak));

namespace ittc::collector_internal {

__thread ThreadState* tls_thread __attribute__((tls_model("initial-exec"), visibility("hidden"))) =
    nullptr;
std::atomic<int> g_recording{kGateSlow};
std::atomic<ThreadState*> g_threads{nullptr};
std::atomic<uint64_t> g_blocked_reserves{0};
std::atomic<int> g_blocked_now{0};

namespace {

std::atomic<uint32_t> g_next_thread_index{1};

pthread_key_t g_thread_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

// Rings of exited threads, kept for new threads: programs that start many
// short threads then reuse a few buffers instead of mapping new ones.
constexpr size_t kMaxSpareBuffers = 16;
std::mutex g_spare_mu;
uint8_t* g_spare_buffers[kMaxSpareBuffers];
size_t g_spare_sizes[kMaxSpareBuffers];
size_t g_spare_count = 0;

void OnThreadExit(void* arg) {
  auto* t = static_cast<ThreadState*>(arg);
  if (tls_thread == t) tls_thread = nullptr;
  // Its name now, while the thread exists: the flusher that writes the
  // exited thread's info can no longer read it from /proc.
  if (prctl(PR_GET_NAME, t->exit_comm) != 0) t->exit_comm[0] = '\0';
  t->exit_comm[sizeof(t->exit_comm) - 1] = '\0';
  // Pairs with the flusher's acquire load: all our commits precede it.
  t->exited.store(1, std::memory_order_release);
}

void MakeKey() { pthread_key_create(&g_thread_key, &OnThreadExit); }

// Thread states and rings come from mmap, not malloc: a thread may attach
// from a signal handler that interrupted malloc (or any allocating call) on
// the same thread, and mmap is async-signal-safe where malloc is not.
void* MapBytes(size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

uint8_t* TakeBuffer(size_t size) {
  // try_lock: never wait in a path a signal handler may take; without the
  // lock we just map a fresh buffer.
  if (g_spare_mu.try_lock()) {
    std::lock_guard<std::mutex> lock(g_spare_mu, std::adopt_lock);
    for (size_t i = 0; i < g_spare_count; ++i) {
      if (g_spare_sizes[i] == size) {
        uint8_t* b = g_spare_buffers[i];
        --g_spare_count;
        g_spare_buffers[i] = g_spare_buffers[g_spare_count];
        g_spare_sizes[i] = g_spare_sizes[g_spare_count];
        return b;
      }
    }
  }
  return static_cast<uint8_t*>(MapBytes(size));
}

void GiveBuffer(uint8_t* buffer, size_t size) {
  {
    std::lock_guard<std::mutex> lock(g_spare_mu);
    if (g_spare_count < kMaxSpareBuffers) {
      g_spare_buffers[g_spare_count] = buffer;
      g_spare_sizes[g_spare_count] = size;
      ++g_spare_count;
      return;
    }
  }
  munmap(buffer, size);
}

// Creates the calling thread's state. Slow path: maps memory.
ThreadState* AttachThread() {
  pthread_once(&g_key_once, &MakeKey);
  size_t ring_bytes = SessionSettings().ring_bytes;
  uint8_t* buffer = TakeBuffer(ring_bytes);
  void* mem = MapBytes(sizeof(ThreadState));
  if (buffer == nullptr || mem == nullptr) {
    if (buffer != nullptr) munmap(buffer, ring_bytes);
    if (mem != nullptr) munmap(mem, sizeof(ThreadState));
    return nullptr;
  }
  if (__lsan_register_root_region != nullptr) __lsan_register_root_region(mem, sizeof(ThreadState));
  uint32_t index = g_next_thread_index.fetch_add(1, std::memory_order_relaxed);
  auto* t =
      new (mem) ThreadState(buffer, ring_bytes, index, static_cast<uint64_t>(syscall(SYS_gettid)));
  ThreadState* head = g_threads.load(std::memory_order_relaxed);
  do {
    t->next = head;
    // Release: the flusher that finds `t` sees it fully constructed.
  } while (!g_threads.compare_exchange_weak(head, t, std::memory_order_release,
                                            std::memory_order_relaxed));
  tls_thread = t;
  pthread_setspecific(g_thread_key, t);
  return t;
}

}  // namespace

ThreadState::ThreadState(uint8_t* buf, size_t capacity, uint32_t idx, uint64_t os_tid)
    : ring(buf, capacity), index(idx), tid(os_tid), buffer(buf) {
  for (auto& d : dropped) d.store(0, std::memory_order_relaxed);
  check_at = FillMark(capacity);
}

namespace {

// Nonzero while this thread starts the session or attaches itself. Both
// allocate and take locks, so a signal handler's ITT call landing then must
// not enter them again (it would deadlock on malloc's or our own lock): it
// is dropped, and counted as reentrant once the thread's state exists.
__thread int tls_attaching __attribute__((tls_model("initial-exec"))) = 0;
__thread uint32_t tls_attach_drops __attribute__((tls_model("initial-exec"))) = 0;

// The tail of both slow paths: attaches the thread if needed and enters the
// call. `start` is true for recording calls, which may start the session.
ThreadState* AttachAndEnter(ThreadState* t, bool start) {
  if (tls_attaching != 0) {
    if (Recording()) ++tls_attach_drops;
    return nullptr;
  }
  tls_attaching = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  // A signal handler may have attached this thread since the caller read
  // tls_thread; from here on none can. Attaching again would orphan that
  // state (never reaped, its events under another thread).
  t = tls_thread;
  bool ok;
  if (start) {
    // Not recording: the session may need starting (first call, or first
    // call in a fork child); otherwise paused, detached or shut down.
    ok = Recording() || (SessionStartIfNeeded() && Recording());
  } else {
    ok = SessionRunning();
  }
  if (ok && t == nullptr) t = AttachThread();
  if (!ok || t == nullptr) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    tls_attaching = 0;
    return nullptr;
  }
  // in_call first: from here a handler's call is counted on `t` directly.
  t->in_call = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (tls_attach_drops != 0) {
    t->dropped[static_cast<int>(kLossReentrant)].fetch_add(tls_attach_drops,
                                                           std::memory_order_relaxed);
    tls_attach_drops = 0;
  }
  tls_attaching = 0;
  return t;
}

}  // namespace

ThreadState* BeginCallSlow() {
  ThreadState* t = tls_thread;
  // An ignored thread records nothing (not counted: by design).
  if (t != nullptr && t->in_call == kIgnored) return nullptr;
  if (t != nullptr && t->in_call != 0) {
    // A signal handler interrupted an ITT call on this thread.
    if (Recording()) CountDrop(t, kLossReentrant);
    return nullptr;
  }
  return AttachAndEnter(t, /*start=*/true);
}

ThreadState* BeginControlCall() {
  ThreadState* t = tls_thread;
  if (t != nullptr && t->in_call != 0 && t->in_call != kIgnored) {
    CountDrop(t, kLossReentrant);
    return nullptr;
  }
  return AttachAndEnter(t, /*start=*/false);
}

uint64_t ReentrantDropsOfThisThread() {
  const ThreadState* t = tls_thread;
  uint64_t n = tls_attach_drops;
  if (t != nullptr)
    n += t->dropped[static_cast<int>(kLossReentrant)].load(std::memory_order_relaxed);
  return n;
}

void WaitForBlockedProducers(uint32_t timeout_ms) {
  // They look at the session every nap of ReserveSlow's loop.
  const uint64_t deadline = DeadlineAfterMs(timeout_ms);
  while (g_blocked_now.load(std::memory_order_acquire) > 0 && MonotonicRawNs() < deadline) {
    timespec nap{0, 20 * 1000};
    nanosleep(&nap, nullptr);
  }
}

void CountDrop(ThreadState* t, format::LossCause cause) {
  t->dropped[static_cast<int>(cause)].fetch_add(1, std::memory_order_relaxed);
}

uint8_t* ReserveSlow(ThreadState* t, size_t size) {
  if (size > t->ring.max_record()) {
    CountDrop(t, format::LossCause::kRecordTooLarge);
    return nullptr;
  }
  const Settings& settings = SessionSettings();
  if (settings.overflow == OverflowMode::kBlock) {
    // Opt-in: wait for the flusher, bounded by the timeout.
    g_blocked_reserves.fetch_add(1, std::memory_order_relaxed);
    g_blocked_now.fetch_add(1, std::memory_order_relaxed);
    uint64_t deadline = DeadlineAfterMs(settings.block_timeout_ms);
    // Wait for an eighth of the ring, not for one record: the flusher hands
    // room back as it drains, and a producer that took each sliver would
    // wake (and wake the flusher) once per sliver. At the deadline any room
    // will do.
    const size_t room = t->ring.capacity() / 8;
    for (;;) {
      Flusher::WakeOwnerOf(t);
      timespec nap{0, 20 * 1000};
      nanosleep(&nap, nullptr);
      // Stopped meanwhile (exit, detach, a failed write): the flusher's
      // last round may have begun. Not when paused: the flusher still
      // drains, and this call was made before the pause.
      if (!SessionRunning()) break;
      const bool last_try = MonotonicRawNs() >= deadline;
      if (last_try || t->ring.capacity() - t->ring.RefreshFill() >= room + size) {
        if (uint8_t* p = t->ring.Reserve(size)) {
          g_blocked_now.fetch_sub(1, std::memory_order_release);
          return p;
        }
      }
      if (last_try) break;
    }
    CountDrop(t, format::LossCause::kBlockTimeout);
    g_blocked_now.fetch_sub(1, std::memory_order_release);  // (the drop counted before)
    return nullptr;
  }
  CountDrop(t, format::LossCause::kBufferFull);
  if (t->wake_pending.exchange(1, std::memory_order_relaxed) == 0) Flusher::WakeOwnerOf(t);
  return nullptr;
}

void CheckFill(ThreadState* t) {
  size_t fill = t->ring.RefreshFill();
  size_t mark = FillMark(t->ring.capacity());
  uint64_t head = t->ring.head();
  if (fill > mark) {
    if (t->wake_pending.exchange(1, std::memory_order_relaxed) == 0) Flusher::WakeOwnerOf(t);
    // Look again after another sixteenth of the ring, not on every record.
    t->check_at = head + t->ring.capacity() / 16;
  } else {
    t->check_at = head + (mark - fill);
  }
}

void UnlinkThread(ThreadState* t, ThreadState* prev) {
  if (prev == nullptr) {
    ThreadState* expected = t;
    // Still the head: swing it. Otherwise producers pushed in front of it;
    // find the predecessor (only we unlink, so the list below is stable).
    if (g_threads.compare_exchange_strong(expected, t->next, std::memory_order_acq_rel)) return;
    prev = g_threads.load(std::memory_order_acquire);
    while (prev->next != t) prev = prev->next;
  }
  prev->next = t->next;
}

void FreeThreadState(ThreadState* t) {
  uint8_t* buffer = t->buffer;
  size_t size = t->ring.capacity();
  t->~ThreadState();
  if (__lsan_unregister_root_region != nullptr)
    __lsan_unregister_root_region(t, sizeof(ThreadState));
  munmap(t, sizeof(ThreadState));
  GiveBuffer(buffer, size);
}

void ResetThreadsInForkChild() {
  // The parent's flusher may have held the spare-buffer lock, mid-update,
  // when fork() copied it; the child's flusher would then block forever on
  // its first reap. Only this thread exists here: start the pool afresh
  // (the buffers are the parent's copies; leaving them costs address space).
  new (&g_spare_mu) std::mutex();
  g_spare_count = 0;
  // The parent's threads that waited for room do not exist here.
  g_blocked_now.store(0, std::memory_order_relaxed);
  ThreadState* self = tls_thread;
  for (ThreadState* t = g_threads.load(std::memory_order_relaxed); t != nullptr; t = t->next) {
    if (t == self) {
      t->ring.ResetUnsafe();
      t->ring_ticks = 0;  // the next record is the ring's first
      t->flusher_ticks = 0;
      t->ring_task_word = kNoTaskWord;
      t->flusher_task_word = kNoTaskWord;
      for (auto& d : t->dropped) d.store(0, std::memory_order_relaxed);
      for (auto& d : t->flusher_dropped_written) d = 0;
      t->flusher_recorded = 0;
      t->flusher_info_written = false;
      // The child's flushers are new: flusher 0 gives the thread an owner.
      t->flusher_owner.store(-1, std::memory_order_relaxed);
      t->flusher_move_to.store(-1, std::memory_order_relaxed);
      t->coord_head_seen = t->ring.head();
      t->coord_active = false;
      t->tid = static_cast<uint64_t>(syscall(SYS_gettid));
      // Its name and ignore flag as the thread set them, not as far as the
      // parent's flusher had read them from the ring cleared above.
      const uint32_t name_id = t->name_id.load(std::memory_order_relaxed);
      t->flusher_name = name_id != 0 ? Registry::Get().StringText(name_id) : "";
      t->info_lost.store(0, std::memory_order_relaxed);
      t->flusher_ignored = t->ignored;
      t->in_call = t->ignored ? kIgnored : 0;
      t->check_at = t->ring.head() + FillMark(t->ring.capacity());
    } else {
      t->discard.store(1, std::memory_order_relaxed);
    }
  }
}

}  // namespace ittc::collector_internal
