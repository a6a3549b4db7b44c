#include "format/file_header.h"

#include <string>

#include "format/coding.h"
#include "format/crc32c.h"
#include "gtest/gtest.h"
#include "tests/format/test_util.h"

namespace ittc::format {
namespace {

TEST(FileHeader, RoundTrips) {
  const FileHeader h = testing::SampleHeader();
  const std::string bytes = EncodeFileHeader(h);
  EXPECT_EQ(bytes.compare(0, 8, reinterpret_cast<const char*>(kFileMagic), 8), 0);
  FileHeader got;
  size_t size = 0;
  ASSERT_TRUE(DecodeFileHeader(bytes, &got, &size).ok());
  EXPECT_EQ(size, bytes.size());
  EXPECT_EQ(got.version_major, kFormatMajorVersion);
  EXPECT_EQ(got.version_minor, kFormatMinorVersion);
  EXPECT_EQ(got.pid, h.pid);
  EXPECT_EQ(got.ppid, h.ppid);
  EXPECT_EQ(got.timebase, Timebase::kTsc);
  EXPECT_EQ(got.timebase_hz, h.timebase_hz);
  EXPECT_EQ(got.start_ticks, h.start_ticks);
  EXPECT_EQ(got.start_realtime_ns, h.start_realtime_ns);
  EXPECT_EQ(got.start_monotonic_raw_ns, h.start_monotonic_raw_ns);
  EXPECT_EQ(got.host_name, h.host_name);
  EXPECT_EQ(got.executable_path, h.executable_path);
  EXPECT_EQ(got.command_line, h.command_line);
  EXPECT_EQ(got.writer, h.writer);
  EXPECT_EQ(got.flags, 0u);
  EXPECT_EQ(got.rank, kNoRank);
}

TEST(FileHeader, RankAndBootIdRoundTrip) {
  FileHeader h = testing::SampleHeader();
  h.rank = 3;
  ASSERT_TRUE(ParseBootId("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n", &h.boot_id));
  FileHeader got;
  size_t size = 0;
  ASSERT_TRUE(DecodeFileHeader(EncodeFileHeader(h), &got, &size).ok());
  EXPECT_EQ(got.rank, 3);
  EXPECT_TRUE(got.flags & kHeaderFlagHasRank);
  EXPECT_EQ(got.boot_id, h.boot_id);
  EXPECT_EQ(got.boot_id[0], 0x0f);
  EXPECT_EQ(got.boot_id[15], 0xf0);
  EXPECT_EQ(BootIdString(got.boot_id), "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
  // Rank 0 is a rank, not "none".
  h.rank = 0;
  ASSERT_TRUE(DecodeFileHeader(EncodeFileHeader(h), &got, &size).ok());
  EXPECT_EQ(got.rank, 0);
}

TEST(FileHeader, BadBootIdTextIsRejected) {
  std::array<uint8_t, 16> id{};
  EXPECT_FALSE(ParseBootId("", &id));
  EXPECT_FALSE(ParseBootId("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f", &id));
  EXPECT_FALSE(ParseBootId("0f1e2d3c+4b5a-6978-8796-a5b4c3d2e1f0", &id));
  EXPECT_FALSE(ParseBootId("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fg", &id));
}

// A 1.0 header: the 1.1 encoding without the rank and boot id, minor 0.
std::string VersionOneZero(const FileHeader& h) {
  std::string bytes = EncodeFileHeader(h);
  bytes.erase(bytes.size() - 4 - kFileHeaderV11Size);  // also drops the CRC
  bytes[10] = 0;
  bytes[11] = 0;
  const uint32_t size = static_cast<uint32_t>(bytes.size() + 4);
  for (int i = 0; i < 4; ++i) bytes[12 + i] = static_cast<char>(size >> (8 * i));
  AppendFixed32(&bytes, crc32c::Value(bytes.data(), bytes.size()));
  return bytes;
}

TEST(FileHeader, VersionOneZeroHeaderStillReads) {
  FileHeader h = testing::SampleHeader();
  h.rank = 3;
  h.boot_id[0] = 1;
  const std::string old = VersionOneZero(h);
  FileHeader got;
  size_t size = 0;
  ASSERT_TRUE(DecodeFileHeader(old, &got, &size).ok());
  EXPECT_EQ(size, old.size());
  EXPECT_EQ(got.version_minor, 0);
  EXPECT_EQ(got.writer, h.writer);
  EXPECT_EQ(got.rank, kNoRank);
  EXPECT_EQ(got.boot_id, (std::array<uint8_t, 16>{}));
}

TEST(FileHeader, MinorOneHeaderWithoutItsFieldsIsCorrupt) {
  std::string bytes = VersionOneZero(testing::SampleHeader());
  bytes[10] = 1;  // claims 1.1 but lacks the rank and boot id
  bytes.resize(bytes.size() - 4);
  AppendFixed32(&bytes, crc32c::Value(bytes.data(), bytes.size()));
  FileHeader got;
  size_t size = 0;
  EXPECT_EQ(DecodeFileHeader(bytes, &got, &size).code(), absl::StatusCode::kDataLoss);
}

TEST(FileHeader, LongStringsAreCutAndFlagged) {
  FileHeader h = testing::SampleHeader();
  h.command_line.assign(kMaxHeaderStringBytes + 10, 'a');
  const std::string bytes = EncodeFileHeader(h);
  EXPECT_LE(bytes.size(), kMaxFileHeaderBytes);
  FileHeader got;
  size_t size;
  ASSERT_TRUE(DecodeFileHeader(bytes, &got, &size).ok());
  EXPECT_EQ(got.command_line.size(), kMaxHeaderStringBytes);
  EXPECT_TRUE(got.flags & kHeaderFlagTruncated);
}

TEST(FileHeader, NotATrace) {
  FileHeader got;
  size_t size;
  EXPECT_TRUE(IsNotATrace(DecodeFileHeader("hello world, this is text", &got, &size)));
  EXPECT_TRUE(IsNotATrace(DecodeFileHeader("\x89PNG\r\n\x1a\n", &got, &size)));
  EXPECT_TRUE(IsNotATrace(DecodeFileHeader("x", &got, &size)));
}

TEST(FileHeader, OtherInvalidArgumentErrorsAreNotNotATrace) {
  EXPECT_FALSE(IsNotATrace(absl::InvalidArgumentError("read: Invalid argument")));
  EXPECT_FALSE(IsNotATrace(absl::DataLossError("not an ittcollector trace")));
}

TEST(FileHeader, EveryTruncationIsOutOfRange) {
  const std::string bytes = EncodeFileHeader(testing::SampleHeader());
  for (size_t n = 0; n < bytes.size(); ++n) {
    FileHeader got;
    size_t size;
    absl::Status s = DecodeFileHeader(bytes.substr(0, n), &got, &size);
    EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange) << n << " " << s;
    EXPECT_FALSE(IsNotATrace(s));
  }
}

TEST(FileHeader, EveryFlippedByteIsDetected) {
  const std::string bytes = EncodeFileHeader(testing::SampleHeader());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x01;
    FileHeader got;
    size_t size;
    absl::Status s = DecodeFileHeader(bad, &got, &size);
    EXPECT_FALSE(s.ok()) << i;
    if (i < 8) {
      EXPECT_TRUE(IsNotATrace(s)) << i;
    } else {
      EXPECT_FALSE(IsNotATrace(s)) << i;
    }
  }
}

std::string WithVersion(std::string bytes, uint16_t major, uint16_t minor) {
  PutFixed16(&bytes[8], major);
  PutFixed16(&bytes[10], minor);
  PutFixed32(&bytes[bytes.size() - 4], crc32c::Value(bytes.data(), bytes.size() - 4));
  return bytes;
}

TEST(FileHeader, OtherMajorVersionIsRefused) {
  const std::string bytes = EncodeFileHeader(testing::SampleHeader());
  FileHeader got;
  size_t size;
  EXPECT_EQ(DecodeFileHeader(WithVersion(bytes, 2, 0), &got, &size).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(DecodeFileHeader(WithVersion(bytes, 0, 0), &got, &size).code(),
            absl::StatusCode::kUnimplemented);
}

TEST(FileHeader, LaterMinorVersionWithExtraFieldsIsRead) {
  std::string bytes = EncodeFileHeader(testing::SampleHeader());
  // Insert 12 bytes of a future field before the CRC, grow the size.
  bytes.insert(bytes.size() - 4, "future-field");
  PutFixed32(&bytes[12], static_cast<uint32_t>(bytes.size()));
  bytes = WithVersion(bytes, kFormatMajorVersion, kFormatMinorVersion + 3);
  FileHeader got;
  size_t size;
  ASSERT_TRUE(DecodeFileHeader(bytes + "trailing chunk bytes", &got, &size).ok());
  EXPECT_EQ(size, bytes.size());
  EXPECT_EQ(got.version_minor, kFormatMinorVersion + 3);
  EXPECT_EQ(got.writer, "ittcollector test");
}

}  // namespace
}  // namespace ittc::format
