// Settings: each ITTC_* variable is parsed, bad values fall back to the
// default, and the output path and domain globs expand as documented.

#include "collector/internal/settings.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ittc::collector_internal {
namespace {

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v :
         {"ITTC_OUTPUT", "ITTC_RING_KB", "ITTC_FLUSH_MS", "ITTC_OVERFLOW", "ITTC_BLOCK_TIMEOUT_MS",
          "ITTC_EXIT_TIMEOUT_MS", "ITTC_ZSTD_LEVEL", "ITTC_START_PAUSED", "ITTC_DOMAINS",
          "ITTC_PERF_MAP", "ITTC_FLUSHER_NICE", "ITTC_FLUSHERS", "INTEL_LIBITTNOTIFY_LOG_DIR",
          "ITTC_FLIGHT_MB", "ITTC_FLIGHT_SIGNAL", "ITTC_FLIGHT_MARKER", "ITTC_FLIGHT_FATAL"}) {
      unsetenv(v);
    }
    for (const char* v : kRankVariables) unsetenv(v);
  }
};

TEST_F(SettingsTest, DefaultsWithNoVariables) {
  Settings s = ReadSettings();
  EXPECT_EQ(s.output, "%e-%p.itt");
  EXPECT_EQ(s.ring_bytes, size_t{4} << 20);
  EXPECT_EQ(s.flush_interval_ms, 100u);
  EXPECT_EQ(s.overflow, OverflowMode::kDrop);
  EXPECT_EQ(s.zstd_level, 1);
  EXPECT_EQ(s.flusher_nice, -10);
  EXPECT_FALSE(s.flusher_nice_explicit);
  EXPECT_FALSE(s.start_paused);
  EXPECT_TRUE(s.domain_patterns.empty());
  EXPECT_FALSE(s.perf_map);
  EXPECT_EQ(s.rank, kNoRank);
  EXPECT_EQ(s.flight_bytes, 0u);
  EXPECT_EQ(s.flight_signal, SIGUSR2);
  EXPECT_EQ(s.flight_marker, "");
  EXPECT_TRUE(s.flight_fatal);
}

TEST_F(SettingsTest, ReadsTheFlightRecorderVariables) {
  setenv("ITTC_FLIGHT_MB", "64", 1);
  setenv("ITTC_FLIGHT_SIGNAL", "SIGUSR1", 1);
  setenv("ITTC_FLIGHT_MARKER", "checkpoint*", 1);
  setenv("ITTC_FLIGHT_FATAL", "0", 1);
  Settings s = ReadSettings();
  EXPECT_EQ(s.flight_bytes, size_t{64} << 20);
  EXPECT_EQ(s.flight_signal, SIGUSR1);
  EXPECT_EQ(s.flight_marker, "checkpoint*");
  EXPECT_FALSE(s.flight_fatal);
}

TEST_F(SettingsTest, FlightSignalNamesAndNumbers) {
  int sig = -1;
  EXPECT_TRUE(ParseFlightSignal("USR2", &sig));
  EXPECT_EQ(sig, SIGUSR2);
  EXPECT_TRUE(ParseFlightSignal("HUP", &sig));
  EXPECT_EQ(sig, SIGHUP);
  // Every name the README allows, with or without SIG.
  EXPECT_TRUE(ParseFlightSignal("VTALRM", &sig));
  EXPECT_EQ(sig, SIGVTALRM);
  EXPECT_TRUE(ParseFlightSignal("SIGCHLD", &sig));
  EXPECT_EQ(sig, SIGCHLD);
  EXPECT_TRUE(ParseFlightSignal("PIPE", &sig));
  EXPECT_EQ(sig, SIGPIPE);
  EXPECT_TRUE(ParseFlightSignal("SIGCONT", &sig));
  EXPECT_EQ(sig, SIGCONT);
  EXPECT_TRUE(ParseFlightSignal("40", &sig));
  EXPECT_EQ(sig, 40);
  EXPECT_TRUE(ParseFlightSignal("none", &sig));
  EXPECT_EQ(sig, 0);
  for (const char* bad : {"SEGV", "SIGKILL", "9", "STOP", "11", "ABRT", "", "USR3", "-1", "999"}) {
    EXPECT_FALSE(ParseFlightSignal(bad, &sig)) << bad;
  }
}

TEST_F(SettingsTest, BadFlightValuesFallBackToDefaults) {
  setenv("ITTC_FLIGHT_MB", "lots", 1);
  setenv("ITTC_FLIGHT_SIGNAL", "SIGSEGV", 1);
  setenv("ITTC_FLIGHT_FATAL", "perhaps", 1);
  Settings s = ReadSettings();
  EXPECT_EQ(s.flight_bytes, 0u);
  EXPECT_EQ(s.flight_signal, SIGUSR2);
  EXPECT_TRUE(s.flight_fatal);
  setenv("ITTC_FLIGHT_MB", "65537", 1);
  EXPECT_EQ(ReadSettings().flight_bytes, 0u);
}

TEST_F(SettingsTest, ReadsEveryVariable) {
  setenv("ITTC_OUTPUT", "/tmp/x-%p.itt", 1);
  setenv("ITTC_RING_KB", "256", 1);
  setenv("ITTC_FLUSH_MS", "25", 1);
  setenv("ITTC_OVERFLOW", "block", 1);
  setenv("ITTC_BLOCK_TIMEOUT_MS", "7", 1);
  setenv("ITTC_EXIT_TIMEOUT_MS", "120000", 1);
  setenv("ITTC_ZSTD_LEVEL", "3", 1);
  setenv("ITTC_START_PAUSED", "1", 1);
  setenv("ITTC_DOMAINS", "tbb*,,omp.?", 1);
  setenv("ITTC_PERF_MAP", "1", 1);
  setenv("ITTC_FLUSHER_NICE", "-3", 1);
  Settings s = ReadSettings();
  EXPECT_EQ(s.flusher_nice, -3);
  EXPECT_TRUE(s.flusher_nice_explicit);
  EXPECT_TRUE(s.perf_map);
  EXPECT_EQ(s.output, "/tmp/x-%p.itt");
  EXPECT_EQ(s.ring_bytes, 256u * 1024);
  EXPECT_EQ(s.flush_interval_ms, 25u);
  EXPECT_EQ(s.overflow, OverflowMode::kBlock);
  EXPECT_EQ(s.block_timeout_ms, 7u);
  EXPECT_EQ(s.exit_timeout_ms, 120000u);
  EXPECT_EQ(s.zstd_level, 3);
  EXPECT_TRUE(s.start_paused);
  EXPECT_EQ(s.domain_patterns, (std::vector<std::string>{"tbb*", "omp.?"}));
}

TEST_F(SettingsTest, BadValuesFallBackToDefaults) {
  setenv("ITTC_RING_KB", "100", 1);  // not a power of two
  setenv("ITTC_FLUSH_MS", "-5", 1);
  setenv("ITTC_OVERFLOW", "sometimes", 1);
  setenv("ITTC_ZSTD_LEVEL", "99", 1);
  setenv("ITTC_EXIT_TIMEOUT_MS", "0", 1);
  setenv("ITTC_START_PAUSED", "maybe", 1);
  setenv("ITTC_OUTPUT", "", 1);
  Settings s = ReadSettings();
  EXPECT_EQ(s.ring_bytes, size_t{4} << 20);
  EXPECT_EQ(s.flush_interval_ms, 100u);
  EXPECT_EQ(s.overflow, OverflowMode::kDrop);
  EXPECT_EQ(s.zstd_level, 1);
  EXPECT_EQ(s.exit_timeout_ms, 5000u);
  EXPECT_FALSE(s.start_paused);
  EXPECT_EQ(s.output, "%e-%p.itt");
}

TEST_F(SettingsTest, FlusherNiceTakesTheLinuxRange) {
  for (const char* good : {"-20", "0", "19"}) {
    setenv("ITTC_FLUSHER_NICE", good, 1);
    EXPECT_EQ(ReadSettings().flusher_nice, std::atoi(good)) << good;
  }
  for (const char* bad : {"-21", "20", "", "high", "5x"}) {
    setenv("ITTC_FLUSHER_NICE", bad, 1);
    Settings s = ReadSettings();
    EXPECT_EQ(s.flusher_nice, -10) << bad;
    EXPECT_FALSE(s.flusher_nice_explicit) << bad;
  }
}

TEST_F(SettingsTest, FlushersIsAutoOrACountUpToTheLimit) {
  EXPECT_EQ(ReadSettings().flushers, 0);  // auto
  for (const char* good : {"1", "3", "64"}) {
    setenv("ITTC_FLUSHERS", good, 1);
    EXPECT_EQ(ReadSettings().flushers, std::atoi(good)) << good;
  }
  setenv("ITTC_FLUSHERS", "auto", 1);
  EXPECT_EQ(ReadSettings().flushers, 0);
  static_assert(kMaxFlushers == 64);
  for (const char* bad : {"0", "65", "-1", "", "many", "2x"}) {
    setenv("ITTC_FLUSHERS", bad, 1);
    EXPECT_EQ(ReadSettings().flushers, 0) << bad;
  }
}

TEST_F(SettingsTest, LogDirSetsTheDefaultDirectory) {
  setenv("INTEL_LIBITTNOTIFY_LOG_DIR", "/var/tmp", 1);
  EXPECT_EQ(ReadSettings().output, "/var/tmp/%e-%p.itt");
}

ProcessNames Names(int pid, const std::string& exe, int64_t rank = kNoRank,
                   const std::string& host = "node1") {
  ProcessNames n;
  n.pid = pid;
  n.exe_name = exe;
  n.rank = rank;
  n.host = host;
  return n;
}

TEST(ExpandOutputPath, ExpandsPidExeAndPercent) {
  EXPECT_EQ(ExpandOutputPath("%e-%p.itt", Names(42, "app")), "app-42.itt");
  EXPECT_EQ(ExpandOutputPath("/t/%%p/%p", Names(7, "x")), "/t/%p/7");
  EXPECT_EQ(ExpandOutputPath("plain%", Names(1, "x")), "plain%");
  EXPECT_EQ(ExpandOutputPath("%q", Names(1, "x")), "%q");
}

TEST(ExpandOutputPath, ExpandsRankAndHost) {
  EXPECT_EQ(ExpandOutputPath("%h/r%r.itt", Names(5, "app", 12, "node7")), "node7/r12.itt");
  EXPECT_EQ(ExpandOutputPath("t-%r.itt", Names(5, "app")), "t-norank.itt");
}

TEST(ExpandOutputPath, DirectoryGetsOneSortableFilePerProcess) {
  EXPECT_TRUE(IsDirectoryPattern("out/"));
  EXPECT_FALSE(IsDirectoryPattern("out"));
  EXPECT_EQ(ExpandOutputPath("out/", Names(4321, "app", 3)), "out/r000003-p0004321-app.itt");
  EXPECT_EQ(ExpandOutputPath("%h/", Names(99, "app")), "node1/p0000099-app.itt");
  // A listing sorts by rank, then pid, whatever the executable's name; the
  // files without a rank come first.
  std::vector<std::string> names = {
      DirectoryFileName(Names(20, "b", 10)),    DirectoryFileName(Names(300, "a", 2)),
      DirectoryFileName(Names(10, "z", 2)),     DirectoryFileName(Names(5, "zz")),
      DirectoryFileName(Names(999999, "a", 9)),
  };
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{names[3], names[2], names[1], names[4], names[0]}));
}

TEST_F(SettingsTest, RankComesFromTheFirstLauncherVariableSet) {
  setenv("SLURM_PROCID", "0", 1);
  EXPECT_EQ(ReadSettings().rank, 0);
  setenv("PMI_RANK", "5", 1);
  EXPECT_EQ(ReadSettings().rank, 5);
  setenv("PMIX_RANK", "6", 1);
  EXPECT_EQ(ReadSettings().rank, 6);
  setenv("OMPI_COMM_WORLD_RANK", "7", 1);
  EXPECT_EQ(ReadSettings().rank, 7);
}

TEST_F(SettingsTest, MalformedRankIsNoRank) {
  setenv("OMPI_COMM_WORLD_RANK", "three", 1);
  setenv("SLURM_PROCID", "2", 1);
  EXPECT_EQ(ReadLauncherRank(), kNoRank);
  setenv("OMPI_COMM_WORLD_RANK", "-1", 1);
  EXPECT_EQ(ReadLauncherRank(), kNoRank);
}

}  // namespace
}  // namespace ittc::collector_internal
