// Per-thread recording state and the hot path that appends one record.
//
// Each thread that records owns a ThreadState with an SpscRing; the flusher
// thread is the ring's only consumer. A thread finds its state through one
// initial-exec TLS pointer (no __tls_get_addr call, even though the
// collector is dlopen-ed: glibc keeps a static TLS surplus for this).
//
// Thread safety:
//   ring           producer = owning thread, consumer = flusher (spsc_ring.h).
//   in_call        owning thread only; a signal handler on the same thread
//                  sees it set and drops its record instead of interleaving.
//                  atomic_signal_fence orders it against the ring writes.
//                  kIgnored between the calls of a thread that called
//                  __itt_thread_ignore: its recording calls then take the
//                  slow path, which records nothing.
//   ignored        owning thread only: it called __itt_thread_ignore.
//   name_id        written by the owning thread: the string id of the
//                  name its last __itt_thread_set_name gave (0: none), set
//                  before that call's record (whose release publishes it):
//                  for a fork child, whose flusher cannot read it from the
//                  parent's ring, and for the flusher, which names the
//                  thread by it (relaxed loads) when it meets a naming.
//   info_lost      bits (kNameLost, kIgnoreLost) set by the owning thread
//                  (release fetch_or) when a naming's or __itt_thread_ignore's
//                  record was dropped (a full ring); the flusher takes them
//                  (acquire exchange) when it drains the ring and names the
//                  thread by name_id, or marks it ignored, so the thread info
//                  reaches the trace all the same.
//   dropped[]      incremented by the owning thread (fetch_add, relaxed: a
//                  count, read by the flusher with no ordering needed);
//                  read by the flusher.
//   check_at       owning thread only.
//   ring_ticks     owning thread only: the ticks of its last record in the
//                  ring (raw_record.h measures each record's from it).
//   ring_task_word owning thread only: the ring's task word (raw_record.h).
//   code_ranges    owning thread only, inside its ITT calls (code_ranges.h).
//   wake_pending   set by the owner when it wakes the flusher, cleared by
//                  the flusher after a drain; relaxed (a hint, no data).
//   exited         set by the owner's key destructor (release), read by
//                  the flusher (acquire: all commits happen-before it).
//   exit_comm      the kernel's name of the thread as it exited: written by
//                  the key destructor before `exited`, read by the flusher
//                  after it (the thread's /proc entry is gone by then).
//   discard        set in a fork child for threads that no longer exist.
//   next           written before publication (release CAS on the list
//                  head) and afterwards only by flusher 0 (the only one
//                  that walks and unlinks the list).
//   flusher_owner  the flusher that drains the ring (flusher.h): set by
//                  flusher 0 when it first sees the thread, then by each
//                  owner that hands it over; read relaxed by the owning
//                  thread to wake its flusher (a hint: a wake that reaches
//                  the old owner only costs it a round) and by flusher 0.
//   flusher_move_to  -1, or the flusher flusher 0 wants the thread moved
//                  to: written by flusher 0 (or the thread itself, through
//                  the test hook ittc_test_move_this_thread) with release,
//                  so that the owner's acquire load sees that flusher; read
//                  and reset by the owner. The move itself is ordered by
//                  the new owner's inbox mutex.
//   flusher_moves  how many times the ring changed owner: incremented
//                  (release) by the owner that hands it over, after the
//                  new owner's number; read by the test hooks.
//   flusher_retired  set (release) by the owner once it is done with an
//                  exited or discarded thread; flusher 0 then reaps it
//                  (acquire: the owner's last accesses happen-before).
//   flusher_*      otherwise the owner's only (ownership passes through
//                  the new owner's inbox mutex).
//   coord_*        flusher 0's only.

#ifndef COLLECTOR_INTERNAL_THREAD_STATE_H_
#define COLLECTOR_INTERNAL_THREAD_STATE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "collector/internal/code_ranges.h"
#include "collector/internal/raw_record.h"
#include "collector/internal/spsc_ring.h"
#include "collector/internal/timebase.h"
#include "format/schema.h"

namespace ittc::collector_internal {

inline constexpr int kLossCauseSlots = 8;

struct ThreadState {
  ThreadState(uint8_t* buffer, size_t capacity, uint32_t index, uint64_t tid);

  SpscRing ring;
  int in_call = 0;  // 0, 1 (in a call) or kIgnored
  bool ignored = false;
  std::atomic<uint32_t> name_id{0};
  static constexpr int kNameLost = 1;
  static constexpr int kIgnoreLost = 2;
  std::atomic<int> info_lost{0};
  uint64_t check_at = 0;
  uint64_t ring_ticks = 0;
  uint64_t ring_task_word = kNoTaskWord;
  uint32_t index;
  uint64_t tid;
  std::atomic<uint64_t> dropped[kLossCauseSlots];
  std::atomic<int> wake_pending{0};
  std::atomic<int> exited{0};
  char exit_comm[16] = {};  // TASK_COMM_LEN; see above
  std::atomic<int> discard{0};
  ThreadState* next = nullptr;
  uint8_t* buffer;

  std::atomic<int> flusher_owner{-1};
  std::atomic<int> flusher_move_to{-1};
  std::atomic<int> flusher_retired{0};
  std::atomic<uint32_t> flusher_moves{0};
  // Flusher 0's view of the thread's rate: the ring's head when the
  // activity window began, and whether it was active in the last one.
  uint64_t coord_head_seen = 0;
  bool coord_active = false;

  // The owner's bookkeeping.
  uint64_t flusher_ticks = 0;                // the last record's ticks read from the ring
  uint64_t flusher_task_word = kNoTaskWord;  // the ring's task word, as read
  uint64_t flusher_recorded = 0;
  uint64_t flusher_dropped_written[kLossCauseSlots] = {};
  bool flusher_info_written = false;
  bool flusher_ignored = false;
  std::string flusher_name;  // set by __itt_thread_set_name
  std::string flusher_comm;  // the kernel's name, when there is no ITT name

  // Last, on a line of its own: moves none of the fields above, shares no
  // line with the flusher's.
  alignas(64) CodeRangeCache code_ranges;
};

// A call made from a signal handler while the same thread was inside an ITT
// call: recording it would interleave two records in one ring.
inline constexpr auto kLossReentrant = format::LossCause::kReentrant;

// Every ThreadState not yet reaped, newest first. Threads push themselves
// with a release CAS; only flusher 0 walks it and unlinks (no ABA: nodes
// are freed only after being unlinked by the single remover).
extern std::atomic<ThreadState*> g_threads;

// Flusher 0: unlinks `t`, whose predecessor in the list is `prev` (or nullptr
// if `t` was the head when the flusher read it).
void UnlinkThread(ThreadState* t, ThreadState* prev);

// Flusher 0: frees `t` and its ring (or keeps them for reuse).
void FreeThreadState(ThreadState* t);

// Fork child: drops every other thread's state and this thread's unflushed
// records (they belong to the parent's trace).
void ResetThreadsInForkChild();

// The calling thread's state, or nullptr before its first record.
extern __thread ThreadState* tls_thread
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

// The recording gate every call checks first (relaxed loads: a call racing
// with pause may still land, as with any profiler; pause's own record
// orders the rest):
//   kGateOpen    recording: the session runs, not paused, not off;
//   kGateSlow    not started yet, or a fork child that has not restarted:
//                the slow path starts the session;
//   kGateClosed  paused, detached, shut down or failed: the call returns at
//                once, inline, so even calls without a domain cost almost
//                nothing while paused.
inline constexpr int kGateOpen = 1;
inline constexpr int kGateSlow = 0;
inline constexpr int kGateClosed = -1;
extern std::atomic<int> g_recording;

inline bool Recording() { return g_recording.load(std::memory_order_relaxed) > 0; }

// Slow path of BeginCall: starts the session on the first call, attaches a
// new thread, or counts a re-entrant call. Returns the state with in_call
// set, or nullptr if this call must not record.
ThreadState* BeginCallSlow();

// Like BeginCall, for the calls that record even while paused (thread
// naming, which the spec keeps working in every state, and pause/resume
// themselves): requires only that the session runs. Slow path.
ThreadState* BeginControlCall();

// Counts one dropped event of `cause` for the calling thread.
void CountDrop(ThreadState* t, format::LossCause cause);

// Counts one call rejected for its arguments (NULL handle, bad size...).
inline void CountInvalidCall(ThreadState* t) { CountDrop(t, format::LossCause::kInvalidArgument); }

// The calling thread's calls dropped as re-entrant so far, those made while
// it attached itself included. Read by the test hook
// ittc_test_reentrant_drops.
uint64_t ReentrantDropsOfThisThread();

// Out-of-line part of Emit when the ring is full or the record is too large.
uint8_t* ReserveSlow(ThreadState* t, size_t size);

// Times a producer, in block mode, found its ring full and waited for room
// (successfully or not), over the process. Read by the test hook
// ittc_test_blocked_reserves; a count, so relaxed.
extern std::atomic<uint64_t> g_blocked_reserves;
// Producers waiting for room now (block mode), each until it has room or
// has counted its drop (release): the flusher's last round waits for them
// (WaitForBlockedProducers) before it writes the losses.
extern std::atomic<int> g_blocked_now;
// Waits until no producer waits for room, or `timeout_ms` passed (one held
// elsewhere, in a signal handler say: its drop stays uncounted).
void WaitForBlockedProducers(uint32_t timeout_ms);

// Fill at which a producer wakes the flusher early: an eighth of the ring,
// so that seven eighths remain to absorb the flusher's scheduling latency
// on a busy machine (one futex wake per eighth of a ring is cheap).
inline constexpr size_t FillMark(size_t capacity) { return capacity / 8; }

// Fill-mark check: refreshes the ring's view of the tail and wakes the
// flusher if the ring is past FillMark.
void CheckFill(ThreadState* t);

// ThreadState::in_call of an ignored thread between calls.
inline constexpr int kIgnored = 2;

inline ThreadState* BeginCall() {
  ThreadState* t = tls_thread;
  int gate = g_recording.load(std::memory_order_relaxed);
  if (__builtin_expect(gate != kGateOpen || t == nullptr || t->in_call != 0, 0)) {
    if (gate == kGateClosed) return nullptr;
    return BeginCallSlow();
  }
  t->in_call = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return t;
}

inline void EndCall(ThreadState* t) {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t->in_call = 0;
}

// EndCall of a control call, which an ignored thread makes too.
inline void EndControlCall(ThreadState* t) {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t->in_call = t->ignored ? kIgnored : 0;
}

// RAII form of BeginCall/EndCall. `ok()` is false when the call must not
// record (paused, detached, re-entrant...).
class CallScope {
 public:
  enum Kind { kRecord, kControl };
  explicit CallScope(Kind kind = kRecord)
      : t_(kind == kRecord ? BeginCall() : BeginControlCall()), kind_(kind) {}
  ~CallScope() {
    if (t_ == nullptr) return;
    if (kind_ == kRecord) {
      EndCall(t_);
    } else {
      EndControlCall(t_);
    }
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  bool ok() const { return t_ != nullptr; }
  ThreadState* thread() const { return t_; }

 private:
  ThreadState* const t_;
  const Kind kind_;
};

// Appends one record of `size` bytes (RawRecordSize of the same ticks,
// prev and args); false if it was dropped. Emit's body.
template <typename... Args>
__attribute__((always_inline)) inline bool EmitRecord(ThreadState* t, size_t size,
                                                      format::EventKind kind, uint64_t ticks,
                                                      uint64_t prev, const Args&... args) {
  uint8_t* p;
  if (__builtin_expect(size > t->ring.max_record(), 0) ||
      __builtin_expect((p = t->ring.Reserve(size)) == nullptr, 0)) {
    p = ReserveSlow(t, size);
    if (p == nullptr) return false;
  }
  WriteRawRecord(p, size, kind, ticks, prev, args...);
  t->ring.Commit();
  t->ring_ticks = ticks;
  if (__builtin_expect(t->ring.head() > t->check_at, 0)) CheckFill(t);
  return true;
}

// Emit for a record whose time does not fit the header (the ring's first,
// or one after a long gap): out of line, so that the hot path's size is a
// constant.
template <typename... Args>
__attribute__((noinline)) bool EmitWide(ThreadState* t, format::EventKind kind, uint64_t ticks,
                                        const Args&... args) {
  const uint64_t prev = t->ring_ticks;
  return EmitRecord(t, RawRecordSize(ticks, prev, args...), kind, ticks, prev, args...);
}

// Appends one record; false if it was dropped (counted). REQUIRES: t == the
// calling thread's state, in a call. The arguments follow the kind's schema
// order (raw_record.h).
// Always inline: it is the hot path, and a call costs more than its body
// (GCC's heuristics leave it out of line in some callers).
template <typename... Args>
__attribute__((always_inline)) inline bool Emit(ThreadState* t, format::EventKind kind,
                                                uint64_t ticks, const Args&... args) {
  const uint64_t prev = t->ring_ticks;  // a local: the record's stores may alias it
  if (__builtin_expect(!TicksFitHeader(ticks, prev), 0)) return EmitWide(t, kind, ticks, args...);
  return EmitRecord(t, RawRecordSize(ticks, prev, args...), kind, ticks, prev, args...);
}

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_THREAD_STATE_H_
