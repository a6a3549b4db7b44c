// The flusher thread: drains every thread's ring, encodes the records into
// trace chunks, compresses them and appends them to the trace file.
//
// A round, for each thread: drain its ring into event-chunk payloads, then
// write any definitions registered so far, then those payloads. Draining
// first matters: a record's ids were registered before the record was
// committed, so definitions collected after the drain cover every id in it.
// Then thread info, loss counts and (every second) a clock sync point.
//
// Thread safety: Start/Stop are called by the session under its lock. The
// round runs on the flusher thread only. Wake() may be called from any
// thread, including from the hot path (one futex syscall, rare).

#ifndef COLLECTOR_INTERNAL_FLUSHER_H_
#define COLLECTOR_INTERNAL_FLUSHER_H_

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
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
// lines it releases (Flusher::DrainThread).
inline constexpr int kBacklogZstdLevel = -1000;
inline constexpr size_t kBacklogRingFraction = 2;
// Whether a ring of `capacity` bytes holding `backlog` of them has its
// flusher behind, by the measure above.
constexpr bool FlusherBehind(size_t backlog, size_t capacity) {
  return backlog > capacity / kBacklogRingFraction;
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

// Totals over the life of one trace file.
struct FlusherTotals {
  uint64_t events_recorded = 0;
  uint64_t events_dropped = 0;
};

class Flusher {
 public:
  // Writes to `file`, which must be open, or in flight recorder mode keeps
  // the chunks in `flight` (trace_output.h): one of the two is null, and
  // the other must outlive the flusher.
  Flusher(const Settings& settings, OutputFile* file, FlightStore* flight = nullptr);
  Flusher(const Flusher&) = delete;
  Flusher& operator=(const Flusher&) = delete;

  // Writes the file header and the first clock sync point, then starts the
  // thread. Returns false (after logging) if either fails.
  bool Start(const format::FileHeader& header);

  // Runs a final round, writes the end record and closes the file. Waits at
  // most `timeout_ms` for the flusher thread; returns false on timeout (the
  // trace then has no end record and reads as truncated).
  bool Stop(uint32_t timeout_ms);

  // Asks the flusher for an early round.
  static void Wake();

  // For the flight recorder's triggers. Asks the flusher for a round that
  // drains every ring and closes every open chunk, and returns its ticket.
  // WaitForRound(ticket) returns true once such a round, begun after the
  // request, has committed its chunks; false if no flusher runs or at
  // `deadline_ns` (MonotonicRawNs). Both async-signal-safe (atomics,
  // futex, clock_gettime); never call WaitForRound on the flusher thread.
  static uint32_t RequestFullRound();
  static bool WaitForRound(uint32_t ticket, uint64_t deadline_ns);
  // True on the flusher thread. Async-signal-safe.
  static bool OnFlusherThread();

  // Test hook (ittc_test_hold_flusher): with `hold`, returns once the
  // flusher is parked between two rounds, after which it drains nothing
  // until released (hold = false) or stopped; producers then see their
  // rings fill for certain, whatever the machine's load. Returns false if
  // no flusher runs (or it stopped while this waited). Any thread except
  // the flusher; blocks while the flusher finishes its current round.
  static bool HoldForTest(bool hold);

  // In a fork child: the thread is gone; forget it without touching the file.
  void AbandonInChild();

  // True once a write failed: collection has stopped for good.
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  static void* ThreadMain(void* self);
  // Allocates and touches the flusher's working memory (the write batch,
  // an encoder's buffers, zstd's workspace at both levels), before events
  // arrive: on some VMs the first touch of a page costs ~20 us, and paid
  // while a tight loop fills its ring, the first chunks' ~1000 pages made
  // the flusher fall behind and drop events. Runs rounds between its steps.
  void WarmUp();
  // Gives the calling (flusher) thread settings_.flusher_nice; where
  // lowering its nice value that far is not permitted, the lowest value
  // RLIMIT_NICE permits if that is lower than its own.
  void SetPriority();
  void Run();
  // Parks the flusher while a test holds it (HoldForTest), until released
  // or stopped.
  void ParkWhileHeld();
  // An events chunk being built for one thread. While the flusher is busy
  // (rounds back to back) a thread's chunk stays open across rounds, so
  // zstd sees large chunks; it is closed at the size target, after half a
  // flush interval, when its thread exits, or before the flusher sleeps.
  struct OpenChunk {
    ThreadState* thread = nullptr;
    std::unique_ptr<format::EventStreamEncoder> encoder;
    uint64_t events = 0;
    uint64_t opened_ns = 0;
    uint64_t first_ticks = 0;  // of its first and last events
    uint64_t last_ticks = 0;
  };

  // Both return the ring bytes drained. `close_all`: close every open
  // chunk (as the last round does), for a full round (RequestFullRound).
  size_t Round(bool final, bool close_all = false);
  // `bounded`: stop once the bytes committed when the drain began are
  // drained (every round but the last).
  size_t DrainThread(ThreadState* t, bool bounded);
  // Keeps the thread-info fields a kThreadSetName/kThreadIgnore record sets.
  void NoteThreadRecord(ThreadState* t, const uint8_t* record, uint64_t ticks);
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
  void WriteDefinitions();
  void WriteThreadInfo(ThreadState* t);
  void WriteLosses(ThreadState* t, bool force);
  void WriteClockSync();
  void AppendRecordChunk(format::ChunkType type);
  bool WritePending();
  void WriteEnd();
  void ReapThread(ThreadState* t, ThreadState* prev);
  // Tells the waiters of the requests up to `asked` that a full round
  // (begun after them) has committed its chunks.
  static void ServeRounds(int asked);

  const Settings settings_;
  TraceOutput output_;
  format::ChunkWriter chunk_writer_;
  std::vector<OpenChunk> open_chunks_;
  std::vector<std::unique_ptr<format::EventStreamEncoder>> spare_encoders_;
  format::RecordEncoder records_;
  format::Event event_;
  std::string raw_definitions_;
  std::string pending_;  // framed chunks not yet written
  ChunkNotes notes_;     // what the flight store needs to know of pending_
  size_t definitions_cursor_ = 0;
  uint64_t last_sync_ns_ = 0;
  FlusherTotals totals_;
  bool write_failed_ = false;

  pthread_t thread_{};
  bool thread_started_ = false;
  std::atomic<int> stop_requested_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_FLUSHER_H_
