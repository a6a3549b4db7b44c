#include "collector/internal/flight_store.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "collector/internal/log.h"
#include "collector/internal/timebase.h"
#include "format/chunk_writer.h"
#include "format/coding.h"
#include "format/file_header.h"

namespace ittc::collector_internal {
namespace {

using format::ChunkType;

constexpr size_t RoundUp8(size_t n) { return (n + 7) & ~size_t{7}; }

void* MapZeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

pid_t CurrentTid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

void FutexWake(std::atomic<int>* addr) {
  syscall(SYS_futex, reinterpret_cast<int*>(addr), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr,
          0);
}

// Waits while *addr == value, until `deadline_ns` at most. False once the
// deadline has passed.
bool FutexWaitUntil(std::atomic<int>* addr, int value, uint64_t deadline_ns) {
  const uint64_t now = MonotonicRawNs();
  if (now >= deadline_ns) return false;
  const uint64_t left = deadline_ns - now;
  timespec ts{static_cast<time_t>(left / 1000000000u), static_cast<long>(left % 1000000000u)};
  syscall(SYS_futex, reinterpret_cast<int*>(addr), FUTEX_WAIT_PRIVATE, value, &ts, nullptr, 0);
  return true;
}

uint16_t ChunkTypeOf(const char* chunk) { return format::DecodeFixed16(chunk + 4); }
size_t ChunkSizeOf(const char* chunk) {
  return format::kChunkHeaderSize + format::DecodeFixed32(chunk + 8);
}

}  // namespace

FlightStore* FlightStore::Create(size_t budget_bytes) {
  void* ring = MapZeroed(budget_bytes);
  if (ring == nullptr) {
    LogWarning("cannot map %zu MiB for the flight recorder (ITTC_FLIGHT_MB): %s; collection is off",
               budget_bytes >> 20, std::strerror(errno));
    return nullptr;
  }
  auto* store = new (std::nothrow) FlightStore(budget_bytes, static_cast<char*>(ring));
  if (store == nullptr) munmap(ring, budget_bytes);
  return store;
}

FlightStore::FlightStore(size_t budget_bytes, char* ring) : budget_(budget_bytes), ring_(ring) {}

FlightStore::~FlightStore() {
  munmap(ring_, budget_);
  for (auto& p : perm_) {
    PermBlock* b = p.load(std::memory_order_relaxed);
    if (b != nullptr) munmap(b, offsetof(PermBlock, data) + b->capacity);
  }
  for (auto& p : loss_) {
    LossBlock* b = p.load(std::memory_order_relaxed);
    if (b != nullptr) munmap(b, sizeof(LossBlock));
  }
  delete[] header_;
}

void FlightStore::SetHeader(std::string_view header) {
  delete[] header_;
  header_ = new char[header.size()];
  std::memcpy(header_, header.data(), header.size());
  header_size_ = header.size();
  format::FileHeader h;
  size_t size = 0;
  if (format::DecodeFileHeader(header, &h, &size).ok()) start_ticks_ = h.start_ticks;
}

uint64_t FlightStore::kept_bytes() const {
  return perm_bytes_.load(std::memory_order_relaxed) + head_.load(std::memory_order_relaxed) -
         tail_.load(std::memory_order_relaxed);
}

// ---- The writer ------------------------------------------------------------

void FlightStore::Add(std::string_view chunks, const ChunkNotes& notes) {
  writer_tid_.store(CurrentTid(), std::memory_order_relaxed);
  uint32_t pin = 0;
  for (;;) {
    busy_.store(1, std::memory_order_seq_cst);
    pin = pin_.load(std::memory_order_seq_cst);
    if (pin == 0 || pin == switched_for_ ||
        snapped_.load(std::memory_order_acquire) == static_cast<int>(pin)) {
      break;
    }
    // A dump is taking its snapshot: nothing it reads may change until it
    // has (the loss half above all: switched under it, the dump would read
    // the half this Add and the next count into, and count as overwritten
    // chunks it writes). Step aside, then look again.
    busy_.store(0, std::memory_order_seq_cst);
    FutexWake(&busy_);
    WaitForSnapshot(pin);
  }
  if (pin != 0 && pin != switched_for_) {
    SwitchLossHalf();
    switched_for_ = pin;
  }
  pinned_ = pin != 0;
  size_t next_events = 0;
  for (size_t at = 0; at + format::kChunkHeaderSize <= chunks.size();) {
    const char* chunk = chunks.data() + at;
    const size_t size = ChunkSizeOf(chunk);
    if (size > chunks.size() - at) break;  // not a whole chunk: not ours to guess
    switch (static_cast<ChunkType>(ChunkTypeOf(chunk))) {
      case ChunkType::kDefinitions:
      case ChunkType::kThreadInfo:
        AddPermanent(chunk, size);
        break;
      case ChunkType::kEvents: {
        Entry e{static_cast<uint32_t>(size), 0, 0, 0, 0};
        if (next_events < notes.events.size()) {
          const ChunkNotes::Events& n = notes.events[next_events++];
          e = Entry{static_cast<uint32_t>(size), n.thread_index, n.events, n.first_ticks,
                    n.last_ticks};
        }
        AddRolling(chunk, size, e);
        break;
      }
      case ChunkType::kClockSync:
        AddRolling(chunk, size, Entry{static_cast<uint32_t>(size), 0, 0, 0, 0});
        break;
      default:
        // Loss chunks: their counts come in the notes. End chunks: each
        // dump writes its own.
        break;
    }
    at += size;
  }
  for (const ChunkNotes::Loss& l : notes.losses) {
    SetLoss(l.thread_index, static_cast<int>(l.cause), l.count, /*add=*/false);
  }
  // seq_cst: the other half of the handshake (a dump stores pin_, then
  // reads busy_): whichever comes second sees the other.
  busy_.store(0, std::memory_order_seq_cst);
  if (pin_.load(std::memory_order_seq_cst) != 0) FutexWake(&busy_);
}

void FlightStore::AddPermanent(const char* chunk, size_t size) {
  const size_t count = perm_count_.load(std::memory_order_relaxed);
  PermBlock* b = count == 0 ? nullptr : perm_[count - 1].load(std::memory_order_relaxed);
  size_t used = b == nullptr ? 0 : b->used.load(std::memory_order_relaxed);
  if (b == nullptr || b->capacity - used < size) {
    const size_t capacity = std::max(kPermBlockBytes, size);
    b = count < kMaxPermBlocks
            ? static_cast<PermBlock*>(MapZeroed(offsetof(PermBlock, data) + capacity))
            : nullptr;
    if (b == nullptr) {
      LogWarningOnce(&perm_full_warned_,
                     "the flight recorder cannot keep more definitions (%zu MiB kept); later "
                     "names show as bare ids in its dumps",
                     perm_bytes_.load(std::memory_order_relaxed) >> 20);
      return;
    }
    b->capacity = capacity;
    used = 0;
    // Release: a dump that reads the count reads the block's fields.
    perm_[count].store(b, std::memory_order_release);
    perm_count_.store(count + 1, std::memory_order_release);
  }
  std::memcpy(b->data + used, chunk, size);
  b->used.store(used + size, std::memory_order_release);
  const size_t perm = perm_bytes_.load(std::memory_order_relaxed) + size;
  perm_bytes_.store(perm, std::memory_order_relaxed);
  // Permanent chunks take their room from the rolling ones.
  const uint64_t limit = pinned_ ? dump_limit_.load(std::memory_order_acquire) : UINT64_MAX;
  while (perm + head_.load(std::memory_order_relaxed) - tail_.load(std::memory_order_relaxed) >
             budget_ &&
         DropOldest(limit)) {
  }
  if (perm > budget_) {
    LogWarningOnce(&budget_warned_,
                   "the run's definitions and thread names take more than ITTC_FLIGHT_MB (%zu "
                   "MiB): the flight recorder keeps no events",
                   budget_ >> 20);
  }
}

void FlightStore::AddRolling(const char* chunk, size_t size, const Entry& entry) {
  const size_t bytes = sizeof(Entry) + RoundUp8(size);
  uint64_t head = head_.load(std::memory_order_relaxed);
  const size_t offset = RingOffset(head);
  // An entry never wraps: it starts the next lap instead.
  const size_t pad = budget_ - offset < bytes ? budget_ - offset : 0;
  const size_t perm = perm_bytes_.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t used = head + pad + bytes - tail_.load(std::memory_order_relaxed);
    if (perm + used <= budget_) break;
    const uint64_t limit = pinned_ ? dump_limit_.load(std::memory_order_acquire) : UINT64_MAX;
    if (!DropOldest(limit)) {
      // No room: larger than the budget, or what would make room is not
      // written yet by the dump in progress.
      if (static_cast<ChunkType>(ChunkTypeOf(chunk)) == ChunkType::kEvents) {
        CountOverwritten(entry);
      }
      return;
    }
  }
  if (pad >= sizeof(Entry)) {
    Entry marker{kPad, 0, 0, 0, 0};
    std::memcpy(ring_ + offset, &marker, sizeof marker);
  }
  head += pad;
  char* at = ring_ + RingOffset(head);
  std::memcpy(at, &entry, sizeof entry);
  std::memcpy(at + sizeof entry, chunk, size);
  head_.store(head + bytes, std::memory_order_release);
}

const FlightStore::Entry* FlightStore::EntryAt(uint64_t position) const {
  return reinterpret_cast<const Entry*>(ring_ + RingOffset(position));
}

uint64_t FlightStore::SkipPad(uint64_t position) const {
  const size_t offset = RingOffset(position);
  if (budget_ - offset < sizeof(Entry) || EntryAt(position)->bytes == kPad) {
    return position + (budget_ - offset);
  }
  return position;
}

bool FlightStore::DropOldest(uint64_t limit) {
  const uint64_t head = head_.load(std::memory_order_relaxed);
  uint64_t tail = tail_.load(std::memory_order_relaxed);
  if (tail == head) return false;
  tail = SkipPad(tail);  // a pad is written only before an entry
  const Entry* e = EntryAt(tail);
  const uint64_t end = tail + sizeof(Entry) + RoundUp8(e->bytes);
  if (end > limit) return false;
  const char* chunk = reinterpret_cast<const char*>(e + 1);
  switch (static_cast<ChunkType>(ChunkTypeOf(chunk))) {
    case ChunkType::kEvents:
      CountOverwritten(*e);
      break;
    case ChunkType::kClockSync:
      // A dump never reads the anchor while a drop may change it: drops
      // under its pin start after it wrote the anchor.
      if (e->bytes <= kAnchorBytes) {
        std::memcpy(anchor_, chunk, e->bytes);
        anchor_size_.store(e->bytes, std::memory_order_relaxed);
      }
      break;
    default:
      break;
  }
  tail_.store(end, std::memory_order_release);
  return true;
}

void FlightStore::CountOverwritten(const Entry& entry) {
  overwritten_chunks_.fetch_add(1, std::memory_order_relaxed);
  SetLoss(entry.thread_index, static_cast<int>(format::LossCause::kOverwritten), entry.events,
          /*add=*/true);
  if (entry.last_ticks > window_begin_.load(std::memory_order_relaxed)) {
    window_begin_.store(entry.last_ticks, std::memory_order_relaxed);
  }
}

FlightStore::LossBlock* FlightStore::LossBlockFor(uint32_t thread_index) {
  const size_t i = thread_index / kThreadsPerLossBlock;
  if (i >= kMaxLossBlocks) return nullptr;
  LossBlock* b = loss_[i].load(std::memory_order_relaxed);
  if (b != nullptr) return b;
  b = static_cast<LossBlock*>(MapZeroed(sizeof(LossBlock)));
  if (b == nullptr) return nullptr;
  loss_[i].store(b, std::memory_order_release);
  if (i + 1 > loss_count_.load(std::memory_order_relaxed)) {
    loss_count_.store(i + 1, std::memory_order_release);
  }
  return b;
}

void FlightStore::WaitForSnapshot(uint32_t pin) {
  for (;;) {
    const int seen = snapped_.load(std::memory_order_acquire);
    if (seen == static_cast<int>(pin) || pin_.load(std::memory_order_seq_cst) != pin) return;
    // 10 ms at most at a time: a dump that gives up clears its pin
    // without waking anyone.
    FutexWaitUntil(&snapped_, seen, DeadlineAfterMs(10));
  }
}

void FlightStore::SetLoss(uint32_t thread_index, int cause, uint64_t count, bool add) {
  if (cause < 0 || cause >= kFlightLossCauses || count == 0) return;
  LossBlock* b = LossBlockFor(thread_index);
  if (b == nullptr) return;
  std::atomic<uint64_t>& slot =
      b->count[half_.load(std::memory_order_relaxed)][thread_index % kThreadsPerLossBlock][cause];
  const uint64_t was = slot.load(std::memory_order_relaxed);
  // Relaxed: a dump reads this half only after its handshake, and after
  // the handshake no Add writes it (SwitchLossHalf).
  slot.store(add ? was + count : std::max(was, count), std::memory_order_relaxed);
}

void FlightStore::SwitchLossHalf() {
  const int from = half_.load(std::memory_order_relaxed);
  const int to = 1 - from;
  const size_t blocks = loss_count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < blocks; ++i) {
    LossBlock* b = loss_[i].load(std::memory_order_relaxed);
    if (b == nullptr) continue;
    for (size_t t = 0; t < kThreadsPerLossBlock; ++t) {
      for (int c = 0; c < kFlightLossCauses; ++c) {
        b->count[to][t][c].store(b->count[from][t][c].load(std::memory_order_relaxed),
                                 std::memory_order_relaxed);
      }
    }
  }
  half_.store(to, std::memory_order_relaxed);
}

// ---- The dump --------------------------------------------------------------

bool FlightStore::BeginDump(uint64_t deadline_ns) {
  for (;;) {
    int expected = 0;
    if (dumping_.compare_exchange_strong(expected, 1, std::memory_order_acquire)) return true;
    if (!FutexWaitUntil(&dumping_, 1, deadline_ns)) return false;
  }
}

void FlightStore::EndDump() {
  dumping_.store(0, std::memory_order_release);
  FutexWake(&dumping_);
}

bool FlightStore::Handshake(uint64_t deadline_ns, Snapshot* snap) {
  if (++epoch_ == 0) epoch_ = 1;
  // No drop until the dump has written what it drops: every entry ends
  // above position 0.
  dump_limit_.store(0, std::memory_order_relaxed);
  pin_.store(epoch_, std::memory_order_seq_cst);
  while (busy_.load(std::memory_order_seq_cst) != 0) {
    // The writer's own thread, interrupted inside Add by a signal whose
    // handler dumps: the store is half-updated and will stay so.
    if (writer_tid_.load(std::memory_order_relaxed) == CurrentTid() ||
        !FutexWaitUntil(&busy_, 1, deadline_ns)) {
      pin_.store(0, std::memory_order_seq_cst);
      return false;
    }
  }
  // Acquire: pairs with the release stores of the last Add (busy_, and
  // each field's own).
  snap->tail = tail_.load(std::memory_order_acquire);
  snap->head = head_.load(std::memory_order_acquire);
  snap->perm_blocks = perm_count_.load(std::memory_order_acquire);
  snap->last_block_used = snap->perm_blocks == 0 ? 0
                                                 : perm_[snap->perm_blocks - 1]
                                                       .load(std::memory_order_acquire)
                                                       ->used.load(std::memory_order_acquire);
  snap->loss_blocks = loss_count_.load(std::memory_order_acquire);
  snap->half = half_.load(std::memory_order_relaxed);
  const uint64_t begin = window_begin_.load(std::memory_order_relaxed);
  snap->window_begin = begin != 0 ? begin : start_ticks_;
  snap->anchor_size = anchor_size_.load(std::memory_order_relaxed);
  // Release: an Add that waits for this (acquire) changes the store only
  // after the reads above.
  snapped_.store(static_cast<int>(epoch_), std::memory_order_release);
  FutexWake(&snapped_);
  return true;
}

bool FlightStore::Flush(Scratch* s, int fd, uint64_t* bytes) {
  iovec* iov = s->iov;
  int n = s->iov_count;
  s->iov_count = 0;
  s->header_count = 0;
  s->batch_bytes = 0;
  while (n > 0) {
    const ssize_t w = writev(fd, iov, std::min(n, IOV_MAX));
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    *bytes += static_cast<uint64_t>(w);
    size_t left = static_cast<size_t>(w);
    while (n > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --n;
    }
    if (n > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return true;
}

bool FlightStore::Queue(Scratch* s, int fd, const char* chunk, size_t size, uint64_t sequence) {
  char* header = s->headers[s->header_count++];
  std::memcpy(header, chunk, format::kChunkHeaderSize);
  format::SetChunkSequence(header, sequence);
  s->iov[s->iov_count++] = iovec{header, format::kChunkHeaderSize};
  s->iov[s->iov_count++] =
      iovec{const_cast<char*>(chunk) + format::kChunkHeaderSize, size - format::kChunkHeaderSize};
  s->batch_bytes += size;
  if (s->header_count < kBatchChunks && s->batch_bytes < kBatchBytes) return true;
  return Flush(s, fd, &result_bytes_);
}

bool FlightStore::QueueGenerated(Scratch* s, int fd, ChunkType type, size_t payload_size,
                                 uint64_t sequence) {
  char* header = s->headers[s->header_count++];
  format::FrameStoredChunkHeader(type, sequence, std::string_view(s->payload, payload_size),
                                 header);
  s->iov[s->iov_count++] = iovec{header, format::kChunkHeaderSize};
  s->iov[s->iov_count++] = iovec{s->payload, payload_size};
  // The payload buffer is the next chunk's too.
  return Flush(s, fd, &result_bytes_);
}

bool FlightStore::WriteDump(int fd, const FlightDumpRequest& request, uint64_t deadline_ns,
                            FlightDumpResult* result) {
  Snapshot snap;
  if (!Handshake(deadline_ns, &snap)) return false;
  Scratch* s = &scratch_;
  s->iov_count = 0;
  s->header_count = 0;
  result_bytes_ = 0;
  uint64_t sequence = 0;
  uint64_t events = 0;
  bool ok = true;

  s->iov[s->iov_count++] = iovec{header_, header_size_};
  for (size_t i = 0; ok && i < snap.perm_blocks; ++i) {
    const PermBlock* b = perm_[i].load(std::memory_order_acquire);
    const size_t used =
        i + 1 == snap.perm_blocks ? snap.last_block_used : b->used.load(std::memory_order_acquire);
    for (size_t at = 0; ok && at < used; at += ChunkSizeOf(b->data + at)) {
      ok = Queue(s, fd, b->data + at, ChunkSizeOf(b->data + at), sequence++);
    }
  }
  if (ok && snap.anchor_size != 0) ok = Queue(s, fd, anchor_, snap.anchor_size, sequence++);
  // Written before any drop may replace the anchor.
  ok = ok && Flush(s, fd, &result_bytes_);
  uint64_t at = snap.tail;
  while (ok && at < snap.head) {
    at = SkipPad(at);
    const Entry* e = EntryAt(at);
    const char* chunk = reinterpret_cast<const char*>(e + 1);
    if (static_cast<ChunkType>(ChunkTypeOf(chunk)) == ChunkType::kEvents) events += e->events;
    ok = Queue(s, fd, chunk, e->bytes, sequence++);
    at += sizeof(Entry) + RoundUp8(e->bytes);
    // What is written may be dropped: the writer needs the room.
    if (s->iov_count == 0) dump_limit_.store(at, std::memory_order_release);
  }
  ok = ok && Flush(s, fd, &result_bytes_);

  // The loss counts as of the handshake, overwritten included.
  uint64_t lost = 0;
  char* p = s->payload;
  char* const full = s->payload + sizeof s->payload - 64;
  for (size_t i = 0; ok && i < snap.loss_blocks; ++i) {
    const LossBlock* b = loss_[i].load(std::memory_order_acquire);
    if (b == nullptr) continue;
    for (size_t t = 0; ok && t < kThreadsPerLossBlock; ++t) {
      for (int c = 0; ok && c < kFlightLossCauses; ++c) {
        const uint64_t n = b->count[snap.half][t][c].load(std::memory_order_relaxed);
        if (n == 0) continue;
        lost += n;
        format::LossRecord loss;
        loss.thread_index = static_cast<uint32_t>(i * kThreadsPerLossBlock + t);
        loss.cause = static_cast<format::LossCause>(c);
        loss.count = n;
        p = format::EncodeRecordTo(format::ToRecord(loss), p);
        if (p >= full) {
          ok = QueueGenerated(s, fd, ChunkType::kLoss, static_cast<size_t>(p - s->payload),
                              sequence++);
          p = s->payload;
        }
      }
    }
  }
  if (ok && p != s->payload) {
    ok = QueueGenerated(s, fd, ChunkType::kLoss, static_cast<size_t>(p - s->payload), sequence++);
  }

  const SyncPoint now = TakeSyncPoint();
  format::ClockSync sync;
  sync.ticks = now.ticks;
  sync.monotonic_raw_ns = now.monotonic_raw_ns;
  sync.realtime_ns = static_cast<int64_t>(now.realtime_ns);
  p = format::EncodeRecordTo(format::ToRecord(sync), s->payload);
  ok = ok && QueueGenerated(s, fd, ChunkType::kClockSync, static_cast<size_t>(p - s->payload),
                            sequence++);

  format::FlightDump flight;
  flight.reason = request.reason;
  flight.signal = request.signal;
  flight.name = request.marker_name;
  flight.window_begin = snap.window_begin;
  flight.window_end = request.trigger_ticks;
  flight.dump = request.dump;
  flight.triggers = request.triggers;
  format::EndRecord end;
  end.events_recorded = events;
  end.events_dropped = lost;
  end.chunk_count = sequence;
  end.end_ticks = now.ticks;
  p = format::EncodeRecordTo(format::ToRecord(flight), s->payload);
  p = format::EncodeRecordTo(format::ToRecord(end), p);
  ok = ok && QueueGenerated(s, fd, ChunkType::kEnd, static_cast<size_t>(p - s->payload), sequence);

  pin_.store(0, std::memory_order_seq_cst);
  result->bytes = result_bytes_;
  result->chunks = sequence + 1;
  result->events = events;
  result->events_lost = lost;
  result->window_begin = snap.window_begin;
  return ok;
}

}  // namespace ittc::collector_internal
