// Defaults stated in prose match the code's: the README's table of
// environment variables and every mention of the default ring size in the
// docs are checked against Settings' initialisers (collector/internal/settings.h).

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "collector/internal/flight_recorder.h"
#include "collector/internal/flusher.h"
#include "collector/internal/settings.h"
#include "gtest/gtest.h"

namespace ittc::collector_internal {
namespace {

std::string ReadRunfile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The README's environment table: variable -> text of its default column
// (without backquotes). Rows other helpers add are read too; only the
// variables the test knows are compared.
std::map<std::string, std::string> ReadmeDefaults() {
  std::map<std::string, std::string> defaults;
  std::istringstream in(ReadRunfile("README.md"));
  std::regex row(R"(^\| `(ITTC_[A-Z_]+)` \| ([^|]*[^| ]) *\|)");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    std::string value = m[2];
    if (value.size() >= 2 && value.front() == '`' && value.back() == '`') {
      value = value.substr(1, value.size() - 2);
    }
    defaults[m[1]] = value;
  }
  return defaults;
}

// The code's defaults, written as the README writes them.
std::map<std::string, std::string> CodeDefaults() {
  const Settings s;
  std::string output = s.output;
  output = std::regex_replace(output, std::regex("%e"), "<exe>");
  output = std::regex_replace(output, std::regex("%p"), "<pid>");
  return {
      {"ITTC_OUTPUT", output},
      {"ITTC_RING_KB", std::to_string(s.ring_bytes >> 10)},
      {"ITTC_FLUSH_MS", std::to_string(s.flush_interval_ms)},
      {"ITTC_OVERFLOW", s.overflow == OverflowMode::kDrop ? "drop" : "block"},
      {"ITTC_BLOCK_TIMEOUT_MS", std::to_string(s.block_timeout_ms)},
      {"ITTC_EXIT_TIMEOUT_MS", std::to_string(s.exit_timeout_ms)},
      {"ITTC_ZSTD_LEVEL", std::to_string(s.zstd_level)},
      {"ITTC_FLUSHER_NICE", std::to_string(s.flusher_nice)},
      {"ITTC_FLUSHERS", s.flushers == 0 ? "auto" : std::to_string(s.flushers)},
      {"ITTC_START_PAUSED", s.start_paused ? "1" : "0"},
      {"ITTC_DOMAINS", s.domain_patterns.empty() ? "all" : "?"},
      {"ITTC_FLIGHT_MB", std::to_string(s.flight_bytes >> 20)},
      {"ITTC_FLIGHT_SIGNAL", s.flight_signal == SIGUSR2 ? "USR2" : "?"},
      {"ITTC_FLIGHT_MARKER", s.flight_marker.empty() ? "none" : "?"},
      {"ITTC_FLIGHT_FATAL", s.flight_fatal ? "1" : "0"},
  };
}

TEST(DocumentedDefaults, ReadmeEnvironmentTableMatchesSettings) {
  std::map<std::string, std::string> readme = ReadmeDefaults();
  ASSERT_FALSE(readme.empty()) << "no environment table found in README.md";
  for (const auto& [name, value] : CodeDefaults()) {
    auto it = readme.find(name);
    ASSERT_NE(it, readme.end()) << name << " is missing from README.md's table";
    EXPECT_EQ(it->second, value) << name;
  }
}

TEST(DocumentedDefaults, ReadmeStatesTheRangeOfFlushers) {
  const std::string readme = ReadRunfile("README.md");
  EXPECT_NE(readme.find("rings into the one trace file (1.." + std::to_string(kMaxFlushers) + ")"),
            std::string::npos);
}

TEST(DocumentedDefaults, DocsStateTheDefaultRingSize) {
  const std::string mib = std::to_string(Settings().ring_bytes >> 20);
  // The ways the docs say it: "4 MiB by default", "default 4 MiB ring",
  // "default ring (4 MiB)".
  std::regex mention(R"((\d+) MiB by default|default (\d+) MiB ring|default ring \((\d+) MiB\))");
  int mentions = 0;
  for (const char* doc :
       {"README.md", "docs/BENCHMARKS.md", "docs/ITT_DUMP.md", "docs/RELIABILITY.md"}) {
    std::string text = ReadRunfile(doc);
    ASSERT_FALSE(text.empty()) << doc;
    for (std::sregex_iterator it(text.begin(), text.end(), mention), end; it != end; ++it) {
      const std::smatch& m = *it;
      std::string stated = m[1].matched ? m[1] : m[2].matched ? m[2] : m[3];
      EXPECT_EQ(stated, mib) << doc << ": \"" << m[0] << "\"";
      ++mentions;
    }
  }
  EXPECT_GT(mentions, 0);
}

TEST(DocumentedDefaults, DocsStateTheFlusherNice) {
  const std::string nice = std::to_string(Settings().flusher_nice);
  // "`ITTC_FLUSHER_NICE` (-10 by default)"
  std::regex mention(R"(`ITTC_FLUSHER_NICE` \((-?\d+) by default\))");
  const std::string text = ReadRunfile("docs/RELIABILITY.md");
  ASSERT_FALSE(text.empty());
  int mentions = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), mention), end; it != end; ++it) {
    EXPECT_EQ((*it)[1], nice) << "\"" << (*it)[0] << "\"";
    ++mentions;
  }
  EXPECT_EQ(mentions, 1);
}

// The flight recorder's waits, as README.md and docs/RELIABILITY.md state
// them: a trigger waits 1 s at most for the flusher's round, a crash 5 s
// at most for a dump in progress.
TEST(DocumentedDefaults, DocsStateTheFlightRecorderWaits) {
  const std::string round = std::to_string(kFlightRoundWaitMs / 1000) + " s";
  const std::string fatal = std::to_string(kFlightFatalWaitMs / 1000) + " s";
  ASSERT_EQ(kFlightRoundWaitMs % 1000, 0u);
  ASSERT_EQ(kFlightFatalWaitMs % 1000, 0u);
  EXPECT_NE(
      ReadRunfile("README.md").find("that takes in what the rings hold (" + round + " at most)"),
      std::string::npos);
  const std::string reliability = ReadRunfile("docs/RELIABILITY.md");
  EXPECT_NE(reliability.find("flusher's round, " + round + " at most"), std::string::npos);
  EXPECT_NE(reliability.find("a dump in progress, " + fatal + " at most"), std::string::npos);
}

TEST(DocumentedDefaults, ReadmeStatesWhenChunksAreCompressedFaster) {
  const std::string readme = ReadRunfile("README.md");
  ASSERT_FALSE(readme.empty());
  EXPECT_NE(readme.find("zstd's fast level " + std::to_string(kBacklogZstdLevel)),
            std::string::npos);
  ASSERT_EQ(kBacklogRingFraction, 2u) << "README says \"more than half full\"";
  EXPECT_NE(readme.find("ring is more than half full, the flusher has fallen behind"),
            std::string::npos);
}

}  // namespace
}  // namespace ittc::collector_internal
