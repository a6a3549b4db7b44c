// The flight recorder's memory (ITTC_FLIGHT_MB): the chunks the flusher
// makes, kept instead of written, and the dump that writes them out as one
// complete trace file (FORMAT.md, "Flight dump").
//
// What is kept:
//   - the file header;
//   - permanent chunks, for the whole run, since any later events chunk
//     may refer to them: definitions (names, domains, the module map) and
//     thread info;
//   - rolling chunks, the newest that fit: events and clock sync chunks,
//     in the order they came. To make room the oldest are dropped whole:
//     an events chunk's events are counted lost against its thread (cause
//     overwritten), and the newest clock sync dropped is kept aside (the
//     anchor) so that a dump has a sync point before its first events;
//   - the loss counts, per thread and cause, cumulative. The flusher's loss
//     chunks are not kept; their counts arrive through ChunkNotes.
// The budget bounds the permanent and the rolling chunks together. Besides
// it the store keeps 144 bytes per thread the run has had (the loss
// table, two copies of 9 counts), a clock sync chunk and the dump's
// scratch (about 20 KiB). Memory is mapped as it is first used.
//
// A dump (WriteDump) writes to a descriptor the header, the permanent
// chunks, the anchor, the rolling chunks, then a loss chunk, a clock sync
// chunk and the end chunk with its flight_dump record, numbering the chunks
// from 0. It calls only async-signal-safe functions (writev, futex,
// clock_gettime) and allocates nothing, so a fatal signal's handler may
// call it.
//
// Thread safety:
//   SetHeader and Add: one at a time (the caller's lock: TraceOutput's),
//   from any thread: "the writer". Fields marked (writer) are its own.
//   BeginDump/WriteDump/EndDump: one dump at a time (BeginDump is the
//   lock), from any thread or a signal handler, concurrently with Add. The
//   two meet through busy_ and pin_, a Dekker handshake (seq_cst on both
//   sides): a dump stores pin_, then waits until it reads busy_ clear; an
//   Add stores busy_, then reads pin_. Once a dump has read busy_ clear,
//   every later Add sees its pin and then drops only rolling chunks the
//   dump has written already (those ending at or below dump_limit_,
//   release by the dump, acquire by Add), appends only into room the dump
//   does not read, and counts losses into the other half of the loss table
//   (switching halves copies the counts first), so the dump reads what the
//   store held at that moment. What the dump reads of the fields below it
//   reads after its handshake (acquire, pairing with the release store of
//   busy_ that ended the last Add). An Add that sees a pin whose dump has
//   not taken that snapshot yet clears busy_ and waits (snapped_) before it
//   changes anything: otherwise the dump, having waited for it, would read
//   the loss half it switched to, which later Adds count into.

#ifndef COLLECTOR_INTERNAL_FLIGHT_STORE_H_
#define COLLECTOR_INTERNAL_FLIGHT_STORE_H_

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "format/chunk.h"
#include "format/records.h"
#include "format/schema.h"

namespace ittc::collector_internal {

// What a batch of chunks does not say in its chunk headers, for the
// flight store: the flusher fills it as it frames the chunks, and
// TraceOutput::Commit hands both over.
struct ChunkNotes {
  // One per events chunk of the batch, in the batch's order.
  struct Events {
    uint32_t thread_index = 0;
    uint64_t events = 0;
    uint64_t first_ticks = 0;  // of its first and last events
    uint64_t last_ticks = 0;
  };
  // One per loss record of the batch: the cumulative count of one thread
  // and cause.
  struct Loss {
    uint32_t thread_index = 0;
    format::LossCause cause = format::LossCause::kUnknown;
    uint64_t count = 0;
  };
  std::vector<Events> events;
  std::vector<Loss> losses;

  void Clear() {
    events.clear();
    losses.clear();
  }
};

// Loss causes the store counts: the format's, overwritten the last.
inline constexpr int kFlightLossCauses = static_cast<int>(format::LossCause::kOverwritten) + 1;

// What a dump is for: its flight_dump record but the window's start, which
// the store knows.
struct FlightDumpRequest {
  format::FlightReason reason = format::FlightReason::kUnknown;
  uint32_t signal = 0;
  uint64_t marker_name = 0;    // def_string id
  uint64_t trigger_ticks = 0;  // the window's end
  uint64_t dump = 0;
  uint64_t triggers = 1;
};

// What a dump wrote.
struct FlightDumpResult {
  uint64_t bytes = 0;
  uint64_t chunks = 0;  // the end chunk included
  uint64_t events = 0;
  uint64_t events_lost = 0;  // the loss records' sum, overwritten included
  uint64_t window_begin = 0;
};

class FlightStore {
 public:
  // A store of `budget_bytes` (a multiple of 8, at least 64 KiB). Maps
  // address space for the rolling chunks (budget_bytes, touched as used);
  // nullptr if that fails (logged).
  static FlightStore* Create(size_t budget_bytes);
  ~FlightStore();
  FlightStore(const FlightStore&) = delete;
  FlightStore& operator=(const FlightStore&) = delete;

  // Keeps a copy of the encoded file header (format::EncodeFileHeader),
  // the one every dump starts with. REQUIRES: before the first dump; the
  // writer.
  void SetHeader(std::string_view header);

  // Takes the whole framed chunks of `chunks` (a TraceOutput batch) and
  // their notes; never fails (what cannot be kept is counted). The writer.
  // Cost: a copy of the chunks' bytes and, for each chunk dropped to make
  // room, a few loads and stores; when a dump started since the last Add,
  // a copy of the loss table (144 bytes per thread).
  void Add(std::string_view chunks, const ChunkNotes& notes);

  // Takes the dump lock, waiting until `deadline_ns` (MonotonicRawNs) at
  // most for a dump in progress. Async-signal-safe.
  bool BeginDump(uint64_t deadline_ns);
  void EndDump();

  // Writes the dump of `request` to `fd` (a new, empty file). False if a
  // write failed, or if the writer was inside Add and did not leave it by
  // `deadline_ns` (or never will: the caller interrupted it, a signal
  // handler on the writer's thread). REQUIRES: BeginDump returned true.
  // Async-signal-safe; allocates nothing.
  bool WriteDump(int fd, const FlightDumpRequest& request, uint64_t deadline_ns,
                 FlightDumpResult* result);

  // For tests and reports. Writer-side figures, read racily (relaxed).
  size_t budget() const { return budget_; }
  uint64_t kept_bytes() const;  // permanent and rolling
  uint64_t overwritten_chunks() const {
    return overwritten_chunks_.load(std::memory_order_relaxed);
  }

 private:
  explicit FlightStore(size_t budget_bytes, char* ring);

  // Precedes each rolling chunk in the ring; 8-byte aligned.
  struct Entry {
    uint32_t bytes;  // the framed chunk's, or kPad: skip to the ring's start
    uint32_t thread_index;
    uint64_t events;
    uint64_t first_ticks;
    uint64_t last_ticks;
  };
  static constexpr uint32_t kPad = 0xffffffffu;

  // Permanent chunks, back to back, in blocks that never move.
  struct PermBlock {
    size_t capacity;           // bytes at data
    std::atomic<size_t> used;  // (writer) release; a dump reads it after its handshake
    char data[1];
  };
  static constexpr size_t kPermBlockBytes = 256 * 1024;
  static constexpr size_t kMaxPermBlocks = 8192;

  // Two copies of the loss counts of kThreadsPerLossBlock threads.
  static constexpr size_t kThreadsPerLossBlock = 256;
  static constexpr size_t kMaxLossBlocks = 16384;
  struct LossBlock {
    std::atomic<uint64_t> count[2][kThreadsPerLossBlock][kFlightLossCauses];
  };

  // The clock sync chunk kept from the rolling ones dropped.
  static constexpr size_t kAnchorBytes = 256;

  // What a dump reads, fixed at its handshake.
  struct Snapshot {
    uint64_t tail = 0;
    uint64_t head = 0;
    size_t perm_blocks = 0;
    size_t last_block_used = 0;
    size_t loss_blocks = 0;
    int half = 0;
    uint64_t window_begin = 0;
    size_t anchor_size = 0;
  };

  // The dump's writev batch: chunk headers are copied here to be renumbered.
  // A batch ends at kBatchChunks chunks or kBatchBytes: what is written
  // may be dropped, so the writer gets room as the dump goes.
  static constexpr int kBatchChunks = 64;
  static constexpr size_t kBatchBytes = 1 << 20;
  struct Scratch {
    iovec iov[2 * kBatchChunks + 2];
    int iov_count = 0;
    size_t batch_bytes = 0;
    char headers[kBatchChunks][format::kChunkHeaderSize];
    int header_count = 0;
    char payload[16 * 1024];
  };

  // (writer) Adding.
  void AddPermanent(const char* chunk, size_t size);
  void AddRolling(const char* chunk, size_t size, const Entry& entry);
  // Drops the oldest rolling entry if it ends at or below `limit`.
  bool DropOldest(uint64_t limit);
  // Counts the events chunk of `entry` as lost: dropped, or never kept.
  void CountOverwritten(const Entry& entry);
  void SetLoss(uint32_t thread_index, int cause, uint64_t count, bool add);
  LossBlock* LossBlockFor(uint32_t thread_index);
  // Starts counting into the other half of the loss table after a copy.
  void SwitchLossHalf();
  size_t RingOffset(uint64_t position) const { return static_cast<size_t>(position % budget_); }
  const Entry* EntryAt(uint64_t position) const;
  // The position after the pad at `position`, or `position` when an entry
  // starts there.
  uint64_t SkipPad(uint64_t position) const;

  // (dump) Writing.
  bool Handshake(uint64_t deadline_ns, Snapshot* snap);
  // Queue a chunk (renumbered to `sequence`) for the next writev, and
  // write the batch if it is full; QueueGenerated frames the first
  // payload_size bytes of the scratch's payload and writes at once.
  bool Queue(Scratch* s, int fd, const char* chunk, size_t size, uint64_t sequence);
  bool QueueGenerated(Scratch* s, int fd, format::ChunkType type, size_t payload_size,
                      uint64_t sequence);
  static bool Flush(Scratch* s, int fd, uint64_t* bytes);
  // The writer, having cleared busy_: returns once the dump of `pin` has
  // taken its snapshot, or no longer pins the store.
  void WaitForSnapshot(uint32_t pin);

  const size_t budget_;
  char* const ring_;  // budget_ bytes

  std::atomic<int> busy_{0};
  std::atomic<pid_t> writer_tid_{0};  // the thread in Add while busy_
  std::atomic<uint32_t> pin_{0};      // 0, or the epoch of the dump in progress
  // The pin of the last dump that has taken its snapshot (release by the
  // dump, acquire by Add): an Add that sees a pin waits for it before it
  // changes what the snapshot reads (WaitForSnapshot).
  std::atomic<int> snapped_{0};
  std::atomic<uint64_t> dump_limit_{0};
  std::atomic<int> dumping_{0};  // the dump lock
  uint32_t epoch_ = 0;           // (dump lock) the last dump's pin

  char* header_ = nullptr;  // set once
  size_t header_size_ = 0;
  uint64_t start_ticks_ = 0;

  std::atomic<uint64_t> head_{0};  // (writer) release
  std::atomic<uint64_t> tail_{0};  // (writer) release
  std::atomic<PermBlock*> perm_[kMaxPermBlocks] = {};
  std::atomic<size_t> perm_count_{0};  // (writer) release
  std::atomic<size_t> perm_bytes_{0};  // (writer)
  std::atomic<LossBlock*> loss_[kMaxLossBlocks] = {};
  std::atomic<size_t> loss_count_{0};      // blocks in use, (writer) release
  std::atomic<int> half_{0};               // (writer) the loss half being counted
  uint32_t switched_for_ = 0;              // (writer) the pin half_ was switched for
  std::atomic<uint64_t> window_begin_{0};  // (writer)
  char anchor_[kAnchorBytes];              // (writer) stable while a dump pins
  std::atomic<size_t> anchor_size_{0};
  std::atomic<uint64_t> overwritten_chunks_{0};
  bool pinned_ = false;  // (writer) during an Add: a dump pins the store
  int perm_full_warned_ = 0;
  int budget_warned_ = 0;

  Scratch scratch_;            // (dump lock)
  uint64_t result_bytes_ = 0;  // (dump lock) written so far
};

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_FLIGHT_STORE_H_
