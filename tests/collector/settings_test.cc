// Settings: each ITTC_* variable is parsed, bad values fall back to the
// default, and the output path and domain globs expand as documented.

#include "collector/internal/settings.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace ittc::collector_internal {
namespace {

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v :
         {"ITTC_OUTPUT", "ITTC_RING_KB", "ITTC_FLUSH_MS", "ITTC_OVERFLOW", "ITTC_BLOCK_TIMEOUT_MS",
          "ITTC_ZSTD_LEVEL", "ITTC_START_PAUSED", "ITTC_DOMAINS", "INTEL_LIBITTNOTIFY_LOG_DIR"}) {
      unsetenv(v);
    }
  }
};

TEST_F(SettingsTest, DefaultsWithNoVariables) {
  Settings s = ReadSettings();
  EXPECT_EQ(s.output, "%e-%p.itt");
  EXPECT_EQ(s.ring_bytes, size_t{4} << 20);
  EXPECT_EQ(s.flush_interval_ms, 100u);
  EXPECT_EQ(s.overflow, OverflowMode::kDrop);
  EXPECT_EQ(s.zstd_level, 1);
  EXPECT_FALSE(s.start_paused);
  EXPECT_TRUE(s.domain_patterns.empty());
}

TEST_F(SettingsTest, ReadsEveryVariable) {
  setenv("ITTC_OUTPUT", "/tmp/x-%p.itt", 1);
  setenv("ITTC_RING_KB", "256", 1);
  setenv("ITTC_FLUSH_MS", "25", 1);
  setenv("ITTC_OVERFLOW", "block", 1);
  setenv("ITTC_BLOCK_TIMEOUT_MS", "7", 1);
  setenv("ITTC_ZSTD_LEVEL", "3", 1);
  setenv("ITTC_START_PAUSED", "1", 1);
  setenv("ITTC_DOMAINS", "tbb*,,omp.?", 1);
  Settings s = ReadSettings();
  EXPECT_EQ(s.output, "/tmp/x-%p.itt");
  EXPECT_EQ(s.ring_bytes, 256u * 1024);
  EXPECT_EQ(s.flush_interval_ms, 25u);
  EXPECT_EQ(s.overflow, OverflowMode::kBlock);
  EXPECT_EQ(s.block_timeout_ms, 7u);
  EXPECT_EQ(s.zstd_level, 3);
  EXPECT_TRUE(s.start_paused);
  EXPECT_EQ(s.domain_patterns, (std::vector<std::string>{"tbb*", "omp.?"}));
}

TEST_F(SettingsTest, BadValuesFallBackToDefaults) {
  setenv("ITTC_RING_KB", "100", 1);  // not a power of two
  setenv("ITTC_FLUSH_MS", "-5", 1);
  setenv("ITTC_OVERFLOW", "sometimes", 1);
  setenv("ITTC_ZSTD_LEVEL", "99", 1);
  setenv("ITTC_START_PAUSED", "maybe", 1);
  setenv("ITTC_OUTPUT", "", 1);
  Settings s = ReadSettings();
  EXPECT_EQ(s.ring_bytes, size_t{4} << 20);
  EXPECT_EQ(s.flush_interval_ms, 100u);
  EXPECT_EQ(s.overflow, OverflowMode::kDrop);
  EXPECT_EQ(s.zstd_level, 1);
  EXPECT_FALSE(s.start_paused);
  EXPECT_EQ(s.output, "%e-%p.itt");
}

TEST_F(SettingsTest, LogDirSetsTheDefaultDirectory) {
  setenv("INTEL_LIBITTNOTIFY_LOG_DIR", "/var/tmp", 1);
  EXPECT_EQ(ReadSettings().output, "/var/tmp/%e-%p.itt");
}

TEST(ExpandOutputPath, ExpandsPidExeAndPercent) {
  EXPECT_EQ(ExpandOutputPath("%e-%p.itt", 42, "app"), "app-42.itt");
  EXPECT_EQ(ExpandOutputPath("/t/%%p/%p", 7, "x"), "/t/%p/7");
  EXPECT_EQ(ExpandOutputPath("plain%", 1, "x"), "plain%");
}

TEST(GlobMatch, StarsAndQuestionMarks) {
  EXPECT_TRUE(GlobMatch("tbb*", "tbb.scheduler"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_TRUE(GlobMatch("*.render.*", "app.render.pass"));
  EXPECT_FALSE(GlobMatch("a?c", "ac"));
  EXPECT_FALSE(GlobMatch("tbb*", "omp"));
  EXPECT_FALSE(GlobMatch("*x", "abc"));
}

}  // namespace
}  // namespace ittc::collector_internal
