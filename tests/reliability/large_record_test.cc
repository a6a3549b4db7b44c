// Row 2: a record larger than the ring (huge metadata array, histogram, JIT
// line table), or than a ring record's header can say (512 KiB, whatever
// the ring), is counted as "record too large" and nothing else is lost; a
// string longer than 4096 bytes (kMaxRawBytesField) is cut to exactly 4096
// bytes ending in "...[truncated]", wherever it appears.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

using K = format::EventKind;

constexpr size_t kLimit = 4096;
const std::string kMark = "...[truncated]";

bool IsMarkedPrefix(const std::string& s, char first, char rest) {
  if (s.size() != kLimit || s.compare(s.size() - kMark.size(), kMark.size(), kMark) != 0) {
    return false;
  }
  if (first != 0 && s[0] != first) return false;
  for (size_t i = first != 0 ? 1 : 0; i < s.size() - kMark.size(); ++i) {
    if (s[i] != rest) return false;
  }
  return true;
}

class LargeRecordTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string dir = MakeTempDir(std::string("large_") + GetParam());
    std::string path = dir + "/large.itt";
    std::vector<std::string> extra;
    if (std::string(GetParam()) == "small_ring") extra.push_back("ITTC_RING_KB=64");
    if (std::string(GetParam()) == "large_ring") extra.push_back("ITTC_RING_KB=65536");
    ExitInfo exit = RunFor({Runfile("tests/reliability/large_record_program")},
                           CollectorEnv(path, extra), dir + "/out", dir + "/err", 60);
    ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << ReadFileOrEmpty(dir + "/err");
    EXPECT_EQ(ReadFileOrEmpty(dir + "/out"), "done\n");
    EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
    auto loaded = LoadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    trace_ = std::move(*loaded);
  }

  LoadedTrace trace_;
};

TEST_P(LargeRecordTest, OversizedRecordsAreCountedAsTooLarge) {
  EXPECT_TRUE(trace_.has_end);
  EXPECT_EQ(trace_.corruptions, 0);
  uint64_t too_large = 0;
  for (const auto& [key, count] : trace_.losses) {
    if (key.second == static_cast<int>(format::LossCause::kRecordTooLarge)) {
      too_large += count;
    } else {
      ADD_FAILURE() << "unexpected loss cause " << key.second << " x" << count;
    }
  }
  // Metadata array, histogram, line table: of 8 MiB, then of 560 KiB.
  EXPECT_EQ(too_large, 6u);
  EXPECT_EQ(trace_.end.events_dropped, 6u);
}

TEST_P(LargeRecordTest, CallsAroundOversizedRecordsAreRecordedInOrder) {
  std::vector<K> kinds;
  for (const DecodedEvent& e : trace_.events) kinds.push_back(e.kind);
  const std::vector<K> expected = {
      K::kThreadSetName, K::kTaskBegin, K::kMetadataStrAdd, K::kMetadataStrAdd, K::kTaskEnd,
      K::kTaskBegin,     K::kTaskEnd,   K::kTaskBegin,      K::kTaskEnd,        K::kTaskBegin,
      K::kTaskEnd,       K::kTaskBegin, K::kTaskEnd,        K::kTaskBegin,      K::kTaskEnd,
      K::kTaskBegin,     K::kTaskEnd,   K::kTaskBegin,      K::kJitMethodLoad,  K::kTaskEnd,
  };
  EXPECT_EQ(kinds, expected);
}

TEST_P(LargeRecordTest, LongStringsInRecordsAreCutAndMarked) {
  auto strs = trace_.OfKind(K::kMetadataStrAdd);
  ASSERT_EQ(strs.size(), 2u);
  for (const DecodedEvent* e : strs) {
    EXPECT_TRUE(IsMarkedPrefix(e->Bytes("text"), 0, 'x')) << e->Bytes("text").size();
  }
  auto jit = trace_.OfKind(K::kJitMethodLoad);
  ASSERT_EQ(jit.size(), 1u);
  EXPECT_EQ(jit[0]->U("method_id"), 2u);
  for (const char* field : {"method_name", "class_file", "source_file"}) {
    EXPECT_TRUE(IsMarkedPrefix(jit[0]->Bytes(field), 0, 'x'))
        << field << " " << jit[0]->Bytes(field).size();
  }
}

TEST_P(LargeRecordTest, LongNamesAreCutAndMarked) {
  int marked_strings = 0;
  for (const auto& [id, text] : trace_.strings) {
    EXPECT_LE(text.size(), kLimit);
    if (IsMarkedPrefix(text, 'S', 'x')) ++marked_strings;
  }
  EXPECT_EQ(marked_strings, 1) << "string handle name";
  int marked_domains = 0;
  for (const auto& [id, name] : trace_.domains) {
    EXPECT_LE(name.size(), kLimit);
    if (IsMarkedPrefix(name, 'D', 'x')) ++marked_domains;
  }
  EXPECT_EQ(marked_domains, 1) << "domain name";
  ASSERT_EQ(trace_.thread_names.size(), 1u);
  EXPECT_TRUE(IsMarkedPrefix(trace_.thread_names.begin()->second, 'T', 'x'))
      << trace_.thread_names.begin()->second.size();
}

INSTANTIATE_TEST_SUITE_P(Rings, LargeRecordTest,
                         ::testing::Values("default_ring", "small_ring", "large_ring"));

}  // namespace
}  // namespace ittc::testing
