// SpscRing: records never wrap, a full ring refuses, and a producer and a
// consumer on two threads see every record intact and in order, also when
// the consumer evicts the lines it released (run this under --config=tsan
// too).

#include "collector/internal/spsc_ring.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace ittc::collector_internal {
namespace {

constexpr size_t kCapacity = 4096;

struct Buffer {
  alignas(64) uint8_t bytes[kCapacity];
};

// A test record: header word (kind 1, size in words at bits 16..31, as in
// raw_record.h and the ring's PaddingHeader), then `size/8 - 1` copies of
// seq.
void Put(SpscRing* ring, size_t size, uint64_t seq, uint8_t* p) {
  uint64_t header = 1 | (static_cast<uint64_t>(size / 8) << 16);
  std::memcpy(p, &header, 8);
  for (size_t off = 8; off < size; off += 8) std::memcpy(p + off, &seq, 8);
  ring->Commit();
}

// Consumes everything; returns the sequence numbers seen (checks each
// record's body is intact). `evict`: releases as the flusher does
// (ReleaseAndEvict).
std::vector<uint64_t> Drain(SpscRing* ring, bool evict = false) {
  std::vector<uint64_t> seen;
  for (;;) {
    const uint8_t* data;
    size_t n = ring->Peek(&data);
    if (n == 0) break;
    size_t used = 0;
    while (used < n) {
      uint64_t header;
      std::memcpy(&header, data + used, 8);
      size_t size = ((header >> 16) & 0xffff) * 8;
      EXPECT_GE(size, 8u);
      EXPECT_LE(used + size, n) << "record crosses the end of the readable span";
      if ((header & 0xffff) == kPaddingKind) {
        used += size;
        continue;
      }
      uint64_t seq;
      std::memcpy(&seq, data + used + 8, 8);
      for (size_t off = 16; off < size; off += 8) {
        uint64_t again;
        std::memcpy(&again, data + used + off, 8);
        EXPECT_EQ(again, seq);
      }
      seen.push_back(seq);
      used += size;
    }
    if (evict) {
      ring->ReleaseAndEvict(used);
    } else {
      ring->Release(used);
    }
  }
  return seen;
}

TEST(SpscRing, RecordsNeverWrapAndArriveInOrder) {
  Buffer buf;
  SpscRing ring(buf.bytes, kCapacity);
  std::vector<uint64_t> expected;
  uint64_t seq = 0;
  // Odd sizes make records straddle the end of the buffer many times.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 7; ++i) {
      size_t size = 24 + 8 * ((seq * 5) % 13);
      uint8_t* p = ring.Reserve(size);
      ASSERT_NE(p, nullptr);
      ASSERT_LE(p + size, buf.bytes + kCapacity);
      Put(&ring, size, seq, p);
      expected.push_back(seq++);
    }
    std::vector<uint64_t> seen = Drain(&ring);
    std::vector<uint64_t> want(expected.end() - 7, expected.end());
    EXPECT_EQ(seen, want);
  }
}

TEST(SpscRing, FullRingRefusesUntilTheConsumerReleases) {
  Buffer buf;
  SpscRing ring(buf.bytes, kCapacity);
  size_t written = 0;
  uint64_t seq = 0;
  while (uint8_t* p = ring.Reserve(64)) {
    Put(&ring, 64, seq++, p);
    written += 64;
  }
  EXPECT_EQ(written, kCapacity);
  EXPECT_EQ(ring.Reserve(8), nullptr);
  EXPECT_EQ(Drain(&ring).size(), seq);
  EXPECT_NE(ring.Reserve(64), nullptr);
}

TEST(SpscRing, MaxRecordIsAQuarter) {
  Buffer buf;
  SpscRing ring(buf.bytes, kCapacity);
  EXPECT_EQ(ring.max_record(), kCapacity / 4);
}

// A large ring's quarter is more than a header's size bits hold: the
// largest record is what they hold.
TEST(SpscRing, MaxRecordFitsTheHeadersSizeBits) {
  for (const size_t capacity : {size_t{1} << 21, size_t{1} << 22, size_t{1} << 30}) {
    SpscRing ring(nullptr, capacity);  // (no record is made)
    EXPECT_EQ(ring.max_record(), kMaxRecordBytes) << capacity;
    EXPECT_EQ((PaddingHeader(ring.max_record()) >> 16) * 8, ring.max_record());
  }
  SpscRing ring(nullptr, size_t{1} << 20);
  EXPECT_EQ(ring.max_record(), size_t{1} << 18);
}

TEST(SpscRing, WholeLinesAreTheLinesInsideTheRange) {
  alignas(64) uint8_t bytes[4 * 64];
  uintptr_t first, end;
  const auto at = [&](size_t i) { return reinterpret_cast<uintptr_t>(bytes + i); };
  SpscRing::WholeLines(bytes, bytes + 256, &first, &end);
  EXPECT_EQ(first, at(0));
  EXPECT_EQ(end, at(256));
  // Lines the range only touches (unreleased records may share them) are
  // left alone.
  SpscRing::WholeLines(bytes + 8, bytes + 200, &first, &end);
  EXPECT_EQ(first, at(64));
  EXPECT_EQ(end, at(192));
  SpscRing::WholeLines(bytes + 8, bytes + 56, &first, &end);
  EXPECT_EQ(first, end);
}

// The flusher's drain: contents stay what the producer wrote, whatever the
// eviction does to the caches.
TEST(SpscRing, ReleaseAndEvictKeepsEveryRecordIntact) {
  Buffer buf;
  SpscRing ring(buf.bytes, kCapacity);
  uint64_t seq = 0;
  for (int round = 0; round < 50; ++round) {
    std::vector<uint64_t> want;
    for (int i = 0; i < 7; ++i) {
      size_t size = 24 + 8 * ((seq * 5) % 13);
      uint8_t* p = ring.Reserve(size);
      ASSERT_NE(p, nullptr);
      Put(&ring, size, seq, p);
      want.push_back(seq++);
    }
    EXPECT_EQ(Drain(&ring, /*evict=*/true), want);
  }
}

TEST(SpscRing, ProducerAndConsumerThreadsSeeEveryRecordIntact) {
  Buffer buf;
  SpscRing ring(buf.bytes, kCapacity);
  constexpr uint64_t kRecords = 200000;
  std::thread producer([&] {
    for (uint64_t seq = 0; seq < kRecords;) {
      size_t size = 16 + 8 * (seq % 5);
      uint8_t* p = ring.Reserve(size);
      if (p == nullptr) {
        std::this_thread::yield();
        continue;
      }
      Put(&ring, size, seq, p);
      ++seq;
    }
  });
  uint64_t next = 0;
  while (next < kRecords) {
    for (uint64_t seq : Drain(&ring, /*evict=*/true)) {
      ASSERT_EQ(seq, next);
      ++next;
    }
  }
  producer.join();
  EXPECT_EQ(next, kRecords);
}

}  // namespace
}  // namespace ittc::collector_internal
