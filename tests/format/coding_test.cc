#include "format/coding.h"

#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "format/crc32c.h"
#include "gtest/gtest.h"

namespace ittc::format {
namespace {

TEST(Coding, FixedIsLittleEndian) {
  std::string s;
  AppendFixed16(&s, 0x0102);
  AppendFixed32(&s, 0x03040506);
  AppendFixed64(&s, 0x0708090a0b0c0d0eull);
  EXPECT_EQ(s, std::string("\x02\x01\x06\x05\x04\x03\x0e\x0d\x0c\x0b\x0a\x09\x08\x07", 14));
  EXPECT_EQ(DecodeFixed16(s.data()), 0x0102);
  EXPECT_EQ(DecodeFixed32(s.data() + 2), 0x03040506u);
  EXPECT_EQ(DecodeFixed64(s.data() + 6), 0x0708090a0b0c0d0eull);
}

TEST(Coding, VarintRoundTripsBoundaries) {
  std::string s;
  std::vector<uint64_t> values;
  for (int shift = 0; shift < 64; ++shift) {
    const uint64_t p = 1ull << shift;
    values.push_back(p - 1);
    values.push_back(p);
    values.push_back(p + 1);
  }
  values.push_back(std::numeric_limits<uint64_t>::max());
  for (uint64_t v : values) AppendVarint64(&s, v);
  const char* p = s.data();
  const char* limit = p + s.size();
  for (uint64_t v : values) {
    uint64_t got;
    const char* next = GetVarint64(p, limit, &got);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(got, v);
    EXPECT_EQ(next - p, VarintLength(v));
    p = next;
  }
  EXPECT_EQ(p, limit);
}

TEST(Coding, VarintKnownBytes) {
  std::string s;
  AppendVarint64(&s, 300);
  EXPECT_EQ(s, "\xac\x02");
  s.clear();
  AppendVarint64(&s, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(static_cast<unsigned char>(s.back()), 1);
}

TEST(Coding, TruncatedVarintFails) {
  std::string s;
  AppendVarint64(&s, 1ull << 40);
  for (size_t n = 0; n < s.size(); ++n) {
    uint64_t v;
    EXPECT_EQ(GetVarint64(s.data(), s.data() + n, &v), nullptr) << n;
  }
}

TEST(Coding, InlineVarintEqualsTheLoopForEveryTwoBytePrefix) {
  // GetVarint64 reads one- and two-byte varints inline: for every pair of
  // bytes, at every length, it must agree with the general loop.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const char bytes[3] = {static_cast<char>(a), static_cast<char>(b), 0};
      for (size_t n = 0; n <= 3; ++n) {
        uint64_t inline_v = 7;
        uint64_t loop_v = 7;
        const char* p = GetVarint64(bytes, bytes + n, &inline_v);
        const char* q = GetVarint64Slow(bytes, bytes + n, &loop_v);
        ASSERT_EQ(p, q) << a << " " << b << " " << n;
        if (p != nullptr) {
          ASSERT_EQ(inline_v, loop_v) << a << " " << b << " " << n;
        }
      }
    }
  }
}

TEST(Coding, WordVarintEqualsTheLoop) {
  // GetVarint64Slow reads a varint of up to 8 bytes as one word: for
  // varints of every length at every value boundary, followed by random
  // bytes or by the end of the input, it must agree with the loop.
  std::mt19937_64 rng(11);
  for (int shift = 0; shift < 64; ++shift) {
    for (uint64_t v : {(1ull << shift) - 1, 1ull << shift, (1ull << shift) | rng()}) {
      std::string s;
      AppendVarint64(&s, v);
      const size_t len = s.size();
      for (int i = 0; i < 12; ++i) s.push_back(static_cast<char>(rng()));
      for (size_t n = 0; n <= s.size(); ++n) {
        uint64_t word_v = 7;
        uint64_t loop_v = 7;
        const char* p = GetVarint64Slow(s.data(), s.data() + n, &word_v);
        const char* q = GetVarint64Bytewise(s.data(), s.data() + n, &loop_v);
        ASSERT_EQ(p, q) << v << " " << n;
        if (p == nullptr) continue;
        ASSERT_EQ(word_v, loop_v) << v << " " << n;
        ASSERT_EQ(p, s.data() + len);
        ASSERT_EQ(word_v, v);
      }
    }
  }
}

TEST(Coding, OverlongVarintFails) {
  const std::string eleven(11, '\x80');
  uint64_t v;
  EXPECT_EQ(GetVarint64(eleven.data(), eleven.data() + eleven.size(), &v), nullptr);
  // Ten bytes whose last carries more than bit 63.
  std::string overflow(9, '\xff');
  overflow.push_back('\x02');
  EXPECT_EQ(GetVarint64(overflow.data(), overflow.data() + overflow.size(), &v), nullptr);
  overflow.back() = '\x01';
  ASSERT_NE(GetVarint64(overflow.data(), overflow.data() + overflow.size(), &v), nullptr);
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
}

TEST(Coding, TaggedVarintRoundTripsBoundariesAndKnownBytes) {
  const uint64_t values[] = {0,
                             1,
                             63,
                             64,
                             127,
                             128,
                             8191,
                             8192,
                             uint64_t{1} << 57,
                             ~uint64_t{0} >> 1,
                             ~uint64_t{0} - 1,
                             ~uint64_t{0}};
  for (uint64_t v : values) {
    for (unsigned tag : {0u, 1u}) {
      SCOPED_TRACE(v);
      char buf[1 + kMaxVarint64Bytes];
      char* end = PutTaggedVarint64(buf, v, tag);
      ASSERT_LE(end - buf, 1 + kMaxVarint64Bytes);
      EXPECT_EQ(end - buf, v < 64 ? 1 : 1 + VarintLength(v >> 6));
      uint64_t got = 0;
      unsigned got_tag = 2;
      EXPECT_EQ(GetTaggedVarint64(buf, end, &got, &got_tag), end);
      EXPECT_EQ(got, v);
      EXPECT_EQ(got_tag, tag);
      // Every shorter input ends inside it.
      for (const char* limit = buf; limit < end; ++limit) {
        EXPECT_EQ(GetTaggedVarint64(buf, limit, &got, &got_tag), nullptr);
      }
    }
  }
  // FORMAT.md's example: tag 1 and 200 = 3 * 64 + 8.
  char buf[4];
  EXPECT_EQ(std::string(buf, PutTaggedVarint64(buf, 200, 1)), "\x91\x03");
  EXPECT_EQ(std::string(buf, PutTaggedVarint64(buf, 5, 0)), "\x0a");
}

TEST(Coding, TaggedVarintPastSixtyFourBitsFails) {
  // 2^58 after the first byte's 6 bits: bit 64.
  char buf[16];
  buf[0] = static_cast<char>(0x80);
  char* end = PutVarint64(buf + 1, uint64_t{1} << 58);
  uint64_t v;
  unsigned tag;
  EXPECT_EQ(GetTaggedVarint64(buf, end, &v, &tag), nullptr);
  end = PutVarint64(buf + 1, (uint64_t{1} << 58) - 1);
  EXPECT_EQ(GetTaggedVarint64(buf, end, &v, &tag), end);
  EXPECT_EQ(v, ~uint64_t{0} << 6);
}

TEST(Coding, ZigZagMapsSmallMagnitudesToSmallCodes) {
  EXPECT_EQ(ZigZagEncode(0), 0u);
  EXPECT_EQ(ZigZagEncode(-1), 1u);
  EXPECT_EQ(ZigZagEncode(1), 2u);
  EXPECT_EQ(ZigZagEncode(-2), 3u);
  EXPECT_EQ(ZigZagEncode(std::numeric_limits<int64_t>::max()), ~1ull);
  EXPECT_EQ(ZigZagEncode(std::numeric_limits<int64_t>::min()), ~0ull);
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-123456789},
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    EXPECT_EQ(ZigZagDecode(ZigZagEncode(v)), v);
  }
}

TEST(Crc32c, KnownValues) {
  // Test vectors from RFC 3720, section B.4.
  char buf[32];
  memset(buf, 0, sizeof buf);
  EXPECT_EQ(crc32c::Value(buf, sizeof buf), 0x8a9136aau);
  memset(buf, 0xff, sizeof buf);
  EXPECT_EQ(crc32c::Value(buf, sizeof buf), 0x62a8ab43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  EXPECT_EQ(crc32c::Value(buf, sizeof buf), 0x46dd794eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(crc32c::Value(buf, sizeof buf), 0x113fdb5cu);
  EXPECT_EQ(crc32c::Value("123456789", 9), 0xe3069283u);
}

TEST(Crc32c, ExtendEqualsWholeAndPathsAgree) {
  std::mt19937_64 rng(1);
  std::string data(4099, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  const uint32_t whole = crc32c::Value(data.data(), data.size());
  EXPECT_EQ(crc32c::internal::ExtendPortable(0, data.data(), data.size()), whole);
  for (size_t split : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}, data.size()}) {
    const uint32_t a = crc32c::Value(data.data(), split);
    EXPECT_EQ(crc32c::Extend(a, data.data() + split, data.size() - split), whole);
  }
  for (size_t n = 0; n < 40; ++n) {
    EXPECT_EQ(crc32c::internal::ExtendPortable(0, data.data() + 3, n),
              crc32c::Value(data.data() + 3, n));
  }
  // Lengths around the fast path's blocks of three lanes (3 x 256 bytes),
  // from a register that is not the initial one, at an odd address.
  for (size_t n :
       {size_t{767}, size_t{768}, size_t{769}, size_t{1536}, size_t{2311}, size_t{4000}}) {
    EXPECT_EQ(crc32c::Extend(0x1234567u, data.data() + 5, n),
              crc32c::internal::ExtendPortable(0x1234567u, data.data() + 5, n))
        << n;
  }
}

TEST(Crc32c, CombineEqualsTheCrcOfTheConcatenation) {
  std::mt19937_64 rng(2);
  std::string data(10000, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  const uint32_t whole = crc32c::Value(data.data(), data.size());
  for (size_t split : {size_t{0}, size_t{1}, size_t{28}, size_t{4096}, size_t{9999}, data.size()}) {
    const uint32_t a = crc32c::Value(data.data(), split);
    const uint32_t b = crc32c::Value(data.data() + split, data.size() - split);
    EXPECT_EQ(crc32c::Combine(a, b, data.size() - split), whole) << split;
  }
  // A long run of zeros, as a chunk's payload length may be.
  const std::string zeros(3u << 20, '\0');
  const uint32_t head = crc32c::Value(data.data(), 28);
  EXPECT_EQ(crc32c::Combine(head, crc32c::Value(zeros.data(), zeros.size()), zeros.size()),
            crc32c::Extend(head, zeros.data(), zeros.size()));
}

}  // namespace
}  // namespace ittc::format
