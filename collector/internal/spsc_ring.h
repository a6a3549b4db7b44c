// A single-producer/single-consumer ring of variable-length records.
//
// Each record starts with an 8-byte header (see raw_record.h) whose `size`
// field says how many bytes the record takes, a multiple of 8. A record
// never wraps: when it does not fit before the end of the buffer, the
// producer fills the rest with a padding record and starts at offset 0.
//
// Thread safety:
//   head_  written only by the producer (the owning thread), release; read
//          by the consumer with acquire, pairing with that release so the
//          record bytes are visible before their end offset is.
//   tail_  written only by the consumer (the flusher), release; read by the
//          producer with acquire, pairing with that release so the
//          consumer's reads of a slot finish before the producer reuses it.
//   Offsets count bytes since creation and never wrap (2^64 bytes).
//   Producer-only fields (reserve_end_, cached_tail_) sit on the head_ line;
//   the consumer's line holds only tail_.

#ifndef COLLECTOR_INTERNAL_SPSC_RING_H_
#define COLLECTOR_INTERNAL_SPSC_RING_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ittc::collector_internal {

inline constexpr size_t kCacheLine = 64;

// Header kind of the filler at the end of the buffer; the consumer skips it.
inline constexpr uint16_t kPaddingKind = 0;
// The longest record (and filler) a header's size bits hold: 16 bits of
// 8-byte units.
inline constexpr size_t kMaxRecordBytes = size_t{0xffff} * 8;

// The word that fills the end of the buffer when a record does not fit
// there: a record header (raw_record.h) of kind kPaddingKind whose size is
// `pad` bytes (a multiple of 8, less than the record that did not fit).
constexpr uint64_t PaddingHeader(size_t pad) {
  return kPaddingKind | (static_cast<uint64_t>(pad / 8) << 16);
}

class SpscRing {
 public:
  // REQUIRES: capacity is a power of two, at least 4096. `buffer` is owned by
  // the caller, `capacity` bytes, 8-byte aligned, and outlives the ring.
  SpscRing(uint8_t* buffer, size_t capacity)
      : buffer_(buffer), mask_(capacity - 1), capacity_(capacity) {}

  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  size_t capacity() const { return capacity_; }

  // Largest record the ring accepts: a quarter of it, so one record can never
  // starve the rest of the thread's events, and at most what a header's
  // size bits hold (kMaxRecordBytes: a ring of 2 MiB or more reaches it;
  // a larger size would run into the header's other bits).
  size_t max_record() const {
    return capacity_ / 4 < kMaxRecordBytes ? capacity_ / 4 : kMaxRecordBytes;
  }

  // Producer: returns space for `size` bytes (a multiple of 8, at most
  // max_record()), or nullptr if the ring is full. The space is not visible
  // to the consumer until Commit(). No lock, no syscall, no allocation.
  uint8_t* Reserve(size_t size) {
    uint64_t head = head_.load(std::memory_order_relaxed);  // only we write it
    size_t offset = static_cast<size_t>(head) & mask_;
    size_t pad = 0;
    if (__builtin_expect(offset + size > capacity_, 0)) pad = capacity_ - offset;
    uint64_t end = head + pad + size;
    if (__builtin_expect(end - cached_tail_ > capacity_, 0)) {
      // Pairs with the consumer's release store in Release().
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (end - cached_tail_ > capacity_) return nullptr;
    }
    if (pad != 0) {
      uint64_t filler = PaddingHeader(pad);
      std::memcpy(buffer_ + offset, &filler, sizeof(filler));
      offset = 0;
    }
    reserve_end_ = end;
    return buffer_ + offset;
  }

  // Producer: publishes the record returned by the last Reserve().
  void Commit() {
    // Pairs with the consumer's acquire load in Peek().
    head_.store(reserve_end_, std::memory_order_release);
  }

  // Producer: the offset just past the last committed record.
  uint64_t head() const { return head_.load(std::memory_order_relaxed); }

  // Producer: bytes in use, refreshing the producer's view of the tail.
  size_t RefreshFill() {
    // Pairs with the consumer's release store in Release().
    cached_tail_ = tail_.load(std::memory_order_acquire);
    return static_cast<size_t>(head_.load(std::memory_order_relaxed) - cached_tail_);
  }

  // Consumer: the committed bytes from the tail up to the end of the buffer
  // or the head, whichever comes first. Records in it are whole.
  // Returns the number of bytes; *data points at the first record.
  size_t Peek(const uint8_t** data) const {
    uint64_t tail = tail_.load(std::memory_order_relaxed);  // only we write it
    uint64_t head = head_.load(std::memory_order_acquire);  // pairs with Commit()
    size_t offset = static_cast<size_t>(tail) & mask_;
    size_t available = static_cast<size_t>(head - tail);
    if (offset + available > capacity_) available = capacity_ - offset;
    *data = buffer_ + offset;
    return available;
  }

  // Consumer: bytes committed and not yet released, the backlog.
  size_t BacklogBytes() const {
    // Pairs with Commit(); only we write tail_.
    return static_cast<size_t>(head_.load(std::memory_order_acquire) -
                               tail_.load(std::memory_order_relaxed));
  }

  // Consumer: frees `bytes` (whole records) from the tail.
  void Release(size_t bytes) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    // Pairs with the producer's acquire load in Reserve().
    tail_.store(tail + bytes, std::memory_order_release);
  }

  // Consumer: Release(bytes), after evicting from every cache the lines
  // that lie wholly in those bytes, where the CPU can do that without
  // waiting (CLFLUSHOPT); else only Release.
  //
  // Why: the producer writes those lines again on its next lap. A line the
  // consumer's core still holds must first be taken back from it, and on
  // the 2-core VMs this project measures on, that cost the producer 20-40
  // ns per line: a sustained loop of 56-byte metadata records ran at
  // 39 ns per call instead of 15, with the consumer draining beside it.
  // Evicted, the line comes from memory, fetched ahead as the producer
  // writes sequentially. Costs the consumer about 2 ns per line (a line
  // holds 4 to 8 records of a task loop). A hint only: contents do not
  // change.
  void ReleaseAndEvict(size_t bytes) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    const size_t offset = static_cast<size_t>(tail) & mask_;
    if (offset + bytes <= capacity_) EvictLines(buffer_ + offset, buffer_ + offset + bytes);
    Release(bytes);
  }

  // The lines wholly in [from, to): their first and end addresses.
  static void WholeLines(const uint8_t* from, const uint8_t* to, uintptr_t* first, uintptr_t* end) {
    *first = (reinterpret_cast<uintptr_t>(from) + kCacheLine - 1) & ~uintptr_t{kCacheLine - 1};
    *end = reinterpret_cast<uintptr_t>(to) & ~uintptr_t{kCacheLine - 1};
    if (*end < *first) *end = *first;
  }

  // Drops everything committed so far. REQUIRES: no producer or consumer
  // runs concurrently (used in a fork child, which has a single thread).
  void ResetUnsafe() {
    uint64_t head = head_.load(std::memory_order_relaxed);
    tail_.store(head, std::memory_order_relaxed);
    cached_tail_ = head;
  }

 private:
  static void EvictLines(const uint8_t* from, const uint8_t* to) {
#if defined(__x86_64__)
    // Read once per process; __builtin_cpu_supports reads what libgcc's
    // constructor found.
    static const bool can_evict = __builtin_cpu_supports("clflushopt") != 0;
    if (can_evict) EvictWithClflushopt(from, to);
#else
    (void)from;
    (void)to;
#endif
  }
#if defined(__x86_64__)
  __attribute__((target("clflushopt"))) static void EvictWithClflushopt(const uint8_t* from,
                                                                        const uint8_t* to) {
    uintptr_t p, end;
    WholeLines(from, to, &p, &end);
    for (; p < end; p += kCacheLine) _mm_clflushopt(reinterpret_cast<void*>(p));
  }
#endif

  uint8_t* const buffer_;
  const size_t mask_;
  const size_t capacity_;

  alignas(kCacheLine) std::atomic<uint64_t> head_{0};
  uint64_t reserve_end_ = 0;
  uint64_t cached_tail_ = 0;

  alignas(kCacheLine) std::atomic<uint64_t> tail_{0};
  char tail_pad_[kCacheLine - sizeof(std::atomic<uint64_t>)];
};

static_assert(sizeof(std::atomic<uint64_t>) == 8, "ring offsets must be lock-free words");
static_assert(std::atomic<uint64_t>::is_always_lock_free, "ring offsets must be lock-free");

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_SPSC_RING_H_
