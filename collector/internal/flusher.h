// The flusher threads: they drain the threads' rings, encode the records
// into trace chunks, compress them and append them to the trace file.
//
// One flusher drains about 50-100 M events/s; a process whose threads
// record faster gets more of them. Each producer thread's ring is drained
// by one flusher at a time, its *owner*; flusher 0, the coordinator, also
// finds new threads and gives each an owner, reaps exited ones, counts the
// threads that record fast ("active") and starts flushers as the active
// threads and the process's cores call for (TargetFlushers), moving active
// threads to the new ones. A thread changes owner only at a round
// boundary, after its old owner wrote every chunk of it out: its events
// keep their order in the file.
//
// A round of a flusher, for each thread it owns: drain its ring into
// events-chunk payloads, then its loss counts; then commit: definitions
// registered so far (shared by the flushers, under one lock), then its own
// chunks (TraceOutput numbers them). Draining first matters: a record's ids
// were registered before the record was committed, so definitions
// collected after the drain cover every id in it. The coordinator's rounds
// also write the module map's changes and (every second) a clock sync
// point; its last one, after the others have stopped, the end record.
//
// Thread safety: Start/Stop are called by the session under its lock.
// Rounds run on the flusher threads. Wake() and WakeOwnerOf() may be called
// from any thread, including from the hot path (one futex syscall, rare).
// ThreadState's flusher_* fields belong to the thread's owner; ownership
// passes from one flusher to the next through the new owner's inbox, whose
// mutex orders the old owner's writes before the new owner's reads.

#ifndef COLLECTOR_INTERNAL_FLUSHER_H_
#define COLLECTOR_INTERNAL_FLUSHER_H_

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "collector/internal/output_file.h"
#include "collector/internal/settings.h"
#include "collector/internal/thread_state.h"
#include "collector/internal/trace_output.h"
#include "format/format.h"

namespace ittc::collector_internal {

// An events chunk written while its thread's ring holds more than
// 1/kBacklogRingFraction of its capacity is compressed at kBacklogZstdLevel:
// the flusher has fallen behind, and at the configured level compression
// is most of its work. Measured on the events payloads of real traces
// (level 1 -> -1000, ns and bytes per event): a 4-name task loop 3.2 -> 0.55
// ns, 0.22 -> 1.19 B; a 4-thread frame/task/counter trace 5.5 -> 0.69 ns,
// 0.49 -> 2.97 B; task begin_ex with user timestamps 34 -> 2.1 ns, 4.6 ->
// 16.6 B. The trace is a few times larger while the flusher catches up, and
// keeps the events. README states both (documented_defaults_test). A drain
// that starts behind by the same measure also skips evicting the ring
// lines it releases (FlusherWorker::DrainThread).
inline constexpr int kBacklogZstdLevel = -1000;
inline constexpr size_t kBacklogRingFraction = 2;
// Whether a ring of `capacity` bytes holding `backlog` of them has its
// flusher behind, by the measure above.
constexpr bool FlusherBehind(size_t backlog, size_t capacity) {
  return backlog > capacity / kBacklogRingFraction;
}

// How many flushers a process whose `active` threads record fast, on
// `cores` cores (its affinity mask), wants when ITTC_FLUSHERS does not fix
// the number: one per active thread while the cores hold a producer and a
// flusher each, else the cores the producers leave, and always one. One
// flusher drains what one producer of a tight loop records on a core of
// its own (docs/BENCHMARKS.md), so more than one per producer gains
// nothing, and a flusher without a core of its own takes the producers'.
constexpr int TargetFlushers(int active, int cores) {
  int target = active < cores - active ? active : cores - active;
  if (target > kMaxFlushers) target = kMaxFlushers;
  return target < 1 ? 1 : target;
}

// A thread is active when its ring takes at least an eighth of its
// capacity per flush interval: what wakes a flusher before its interval
// (FillMark in thread_state.h). Rates below that, one flusher's periodic
// rounds serve with room to spare.
constexpr bool ThreadActive(uint64_t bytes, uint64_t elapsed_ns, size_t capacity,
                            uint32_t flush_interval_ms) {
  return bytes * 8 * uint64_t{flush_interval_ms} * 1000000u >= uint64_t{capacity} * elapsed_ns;
}

// Ticks (ReadTicks) the flusher threads of this process have spent
// compressing and framing events chunks (ChunkWriter::AppendChunk) and in
// writes to the trace file: what flusher_bench divides a real run's
// flusher CPU by (the test hook ittc_test_flusher_stage_ticks). Wall time
// of the calls, which on a core of its own is their CPU time. Two reads of
// the counter per chunk of ~100 k events.
struct FlusherStageTicks {
  std::atomic<uint64_t> compress{0};
  std::atomic<uint64_t> write{0};
};
extern FlusherStageTicks g_flusher_stage_ticks;

// Totals over the life of one trace file, per flusher.
struct FlusherTotals {
  uint64_t events_recorded = 0;
  uint64_t events_dropped = 0;
};

class Flusher;

// One flusher thread and what it owns. Everything here is used by that
// thread only, but the inbox (inbox_mu_) and the fields Flusher reads after
// joining it (totals_).
class FlusherWorker {
 public:
  FlusherWorker(Flusher* group, int index);
  ~FlusherWorker();
  FlusherWorker(const FlusherWorker&) = delete;
  FlusherWorker& operator=(const FlusherWorker&) = delete;

  int index() const { return index_; }

  // Gives the worker `t` to drain from its next round on (any thread).
  void Adopt(ThreadState* t);

  // The coordinator's, before its thread starts: a clock sync point,
  // committed with the file header (Flusher::Start).
  bool WriteFirstSyncPoint();

 private:
  friend class Flusher;

  // An events chunk being built for one thread. While the flusher is busy
  // (rounds back to back) a thread's chunk stays open across rounds, so
  // zstd sees large chunks; it is closed at the size target, after half a
  // flush interval, when its thread exits or moves to another flusher, or
  // before the flusher sleeps.
  struct OpenChunk {
    ThreadState* thread = nullptr;
    std::unique_ptr<format::EventStreamEncoder> encoder;
    uint64_t events = 0;
    uint64_t opened_ns = 0;
    uint64_t first_ticks = 0;  // of its first and last events
    uint64_t last_ticks = 0;
  };

  static void* ThreadMain(void* self);
  // Allocates and touches the flusher's working memory (the write batch,
  // an encoder's buffers, zstd's workspace at both levels), before events
  // arrive: on some VMs the first touch of a page costs ~20 us, and paid
  // while a tight loop fills its ring, the first chunks' ~1000 pages made
  // the flusher fall behind and drop events. Runs rounds between its steps.
  void WarmUp();
  // Gives the calling (flusher) thread settings.flusher_nice; where
  // lowering its nice value that far is not permitted, the lowest value
  // RLIMIT_NICE permits if that is lower than its own.
  void SetPriority();
  void Run();
  // Returns the ring bytes drained. `final`: the last round, which drains
  // every ring to its end and closes every chunk. `close_all`: close every
  // open chunk too, for a full round (Flusher::RequestFullRound).
  size_t Round(bool final, bool close_all = false);
  // Tells the waiters of the full rounds asked up to `asked` that this
  // flusher has run one begun after them and committed its chunks.
  void ServeRounds(int asked);
  // ServeRounds, after a round that drained every thread this flusher
  // holds: false (nothing served) if a thread came into its inbox since
  // the round took it, whose ring that round did not drain. Outside the
  // last rounds (`final` false), false too once a stop is asked: only the
  // last rounds serve then, since the threads of a flusher that stops pass
  // to flusher 0, whose last round comes after every other one.
  bool ServeRoundsIfNoneCame(int asked, bool final);
  // Moves the threads handed to this worker into threads_.
  void TakeInbox();
  // `bounded`: stop once the bytes committed when the drain began are
  // drained (every round but the last).
  size_t DrainThread(ThreadState* t, bool bounded);
  // Keeps the thread-info fields a kThreadSetName/kThreadIgnore record sets.
  void NoteThreadRecord(ThreadState* t, const uint8_t* record, uint64_t ticks);
  // Drains each thread of handing_, writes out every chunk of them (one
  // commit for all) and passes each to the worker it is moving to.
  void HandOver();
  // The open chunk of `t`, opening one if needed. The pointer is valid
  // until the next CloseChunks/CloseChunkOf.
  OpenChunk* ChunkFor(ThreadState* t);
  // Frames and queues `c`'s events; `c` stays open, empty. The ring bytes
  // `c` was encoded from must be released: what the ring still holds is the
  // backlog that chooses the zstd level.
  void WriteChunk(OpenChunk* c);
  // Writes and releases every open chunk (all = true) or those that are
  // empty, full or old.
  void CloseChunks(bool all);
  void CloseChunkOf(ThreadState* t);
  void WriteThreadInfo(ThreadState* t);
  void WriteLosses(ThreadState* t, bool force);
  void WriteClockSync();
  void AppendRecordChunk(format::ChunkType type);
  // Commits the definitions registered so far, then pending_.
  bool WritePending();
  void WriteEnd();

  Flusher* const group_;
  const int index_;
  const size_t write_batch_;  // framed bytes collected before a commit
  format::ChunkWriter chunk_writer_;
  std::vector<ThreadState*> threads_;  // the threads this worker owns
  // The threads a round hands to other workers, and to which (HandOver).
  std::vector<std::pair<ThreadState*, int>> handing_;
  std::vector<OpenChunk> open_chunks_;
  std::vector<std::unique_ptr<format::EventStreamEncoder>> spare_encoders_;
  format::RecordEncoder records_;
  format::Event event_;
  std::string pending_;  // framed chunks not yet committed
  ChunkNotes notes_;     // what the flight store needs to know of pending_
  uint64_t last_sync_ns_ = 0;
  FlusherTotals totals_;

  std::mutex inbox_mu_;
  std::vector<ThreadState*> inbox_;  // guarded by inbox_mu_

  pthread_t thread_{};
  bool thread_started_ = false;            // the starting thread's and Stop's
  std::atomic<bool> thread_ready_{false};  // thread_ holds the thread
};

// The flushers of one trace: what the session starts and stops.
class Flusher {
 public:
  // Writes to `file`, which must be open, or in flight recorder mode keeps
  // the chunks in `flight` (trace_output.h): one of the two is null, and
  // the other must outlive the flusher.
  Flusher(const Settings& settings, OutputFile* file, FlightStore* flight = nullptr);
  ~Flusher();
  Flusher(const Flusher&) = delete;
  Flusher& operator=(const Flusher&) = delete;

  // Writes the file header and the first clock sync point, then starts the
  // coordinator (flusher 0), and with ITTC_FLUSHERS the others. Returns
  // false (after logging) if either fails.
  bool Start(const format::FileHeader& header);

  // Runs a final round on every flusher, writes the end record and closes
  // the file. Waits at most `timeout_ms`; returns false on timeout (the
  // trace then has no end record and reads as truncated).
  bool Stop(uint32_t timeout_ms);

  // Asks the coordinator for an early round.
  static void Wake();
  // Asks the flusher that drains `t`'s ring for an early round. The hot
  // path calls it (when a ring passes its fill mark); one relaxed load and
  // a futex wake.
  static void WakeOwnerOf(const ThreadState* t);

  // For the flight recorder's triggers. Asks every flusher for a round
  // that drains all its rings and closes every open chunk, and returns the
  // request's ticket. WaitForRound(ticket) returns true once each flusher
  // has run such a round, begun after the request, and committed its
  // chunks (a flusher that stopped without one handed its threads to
  // flusher 0 first, whose last round serves them); false if none has
  // served it and none runs, or at `deadline_ns` (MonotonicRawNs). After a
  // failed write the flushers serve without draining (nothing more is
  // written).
  // Both async-signal-safe (atomics, futex, clock_gettime); never call
  // WaitForRound on a flusher thread.
  static uint32_t RequestFullRound();
  static bool WaitForRound(uint32_t ticket, uint64_t deadline_ns);
  // True on a flusher thread. Async-signal-safe.
  static bool OnFlusherThread();

  // Test hook (ittc_test_hold_flusher): with `hold`, returns once every
  // flusher is parked between two rounds, after which none drains anything
  // until released (hold = false) or stopped; producers then see their
  // rings fill for certain, whatever the machine's load. Returns false if
  // no flusher runs (or they stopped while this waited). Any thread except
  // a flusher; blocks while the flushers finish their current rounds.
  static bool HoldForTest(bool hold);

  // Test hook (ittc_test_hold_flusher): like HoldForTest(true), and the
  // hold survives Stop, which then waits its whole timeout: a stuck
  // flusher, for the exit timeout's tests.
  static bool HoldThroughStopForTest();

  // Test hook (ittc_test_hold_last_round): with `hold`, flusher 0 waits
  // in its last rounds, once the other flushers have stopped and before
  // it looks at the full rounds asked, until released (hold = false).
  // WaitLastRoundHeldForTest returns true once it waits there, false at
  // `deadline_ns`.
  static void HoldLastRoundForTest(bool hold);
  static bool WaitLastRoundHeldForTest(uint64_t deadline_ns);

  // Flusher threads running now (test hook ittc_test_flushers, benches).
  static int RunningForTest();

  // Full rounds asked so far (RequestFullRound; test hook
  // ittc_test_full_rounds_asked).
  static int FullRoundsAskedForTest();

  // Test hook (ittc_test_move_this_thread): asks that `t` move to flusher
  // `to`, as flusher 0 does to spread active threads. False if there is no
  // such flusher. Any thread.
  bool MoveForTest(ThreadState* t, int to);

  // Fills `cpu_ns` with each flusher thread's CPU time so far, at most
  // `max` of them, flusher 0 first; returns how many it filled. Any thread;
  // not while the flushers stop.
  int CpuTimesNs(uint64_t* cpu_ns, int max);

  // In a fork child: the threads are gone; forget them without touching
  // the file.
  void AbandonInChild();

  // True once a write failed: collection has stopped for good.
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  friend class FlusherWorker;

  // Starts worker `index`'s thread. Flusher 0's thread, or Start.
  bool StartWorker(int index);
  // Flusher 0, each round: gives new threads an owner, reaps the threads
  // their owners retired, and every kActivityWindowNs counts the active
  // threads, starts flushers up to TargetFlushers and spreads the active
  // threads over them.
  void Coordinate(bool final);
  // Commits the definitions registered since the last call (any flusher).
  bool CommitDefinitions();
  // A flusher's commit failed: collection stops.
  void OnWriteFailed();
  // Sequentially consistent, as is Stop's store and every look at the
  // full rounds asked: a flusher that sees a request made after another
  // flusher began its last round sees the stop too (ServeRoundsIfNoneCame).
  bool stop_requested() const { return stop_requested_.load(std::memory_order_seq_cst) != 0; }
  // The coordinator's loop ended: stops the other flushers and waits for
  // each to run its last round and hand its threads back.
  void StopOthers();

  const Settings settings_;
  TraceOutput output_;

  // Workers [0, started_) exist; the pointers never change once set. Start
  // adds them with ITTC_FLUSHERS, else flusher 0 (never both). Read by any
  // flusher after an acquire load of started_ (pairs with the release
  // store that publishes each).
  std::unique_ptr<FlusherWorker> workers_[kMaxFlushers];
  std::atomic<int> started_{0};

  // A full round must drain the rings of threads that change flusher
  // during it. A handover drains the thread, then puts it in the new
  // owner's inbox; a flusher serves a full round only if its inbox is
  // empty: it took every thread handed to it before, and drained it in
  // that round. Both under this mutex, so a handover that comes after the
  // new owner served drains after that (after the request): what the
  // thread held at the request is out. New threads are handed over the
  // same way, from flusher 0's own set (Coordinate). Only full rounds and
  // handovers take it; the session's own (a fork child's new session
  // never sees it held).
  std::mutex handover_mu_;

  // The definitions writer, shared: guarded by defs_mu_.
  std::mutex defs_mu_;
  size_t definitions_cursor_ = 0;
  format::ChunkWriter defs_writer_;
  format::RecordEncoder defs_records_;
  format::Event defs_event_;
  std::string raw_definitions_;
  std::string defs_pending_;

  // Flusher 0's.
  int cores_ = 1;
  uint64_t window_start_ns_ = 0;
  uint32_t active_ = 0;  // active threads in the last window

  std::atomic<int> stop_requested_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_FLUSHER_H_
