// 8 threads at full rate for a few seconds on this 2-core machine: every
// event is either recorded or counted as dropped, per thread, and the trace
// verifies. The program first holds the flusher (a test hook) while every
// thread overruns its ring, so overflow is certain on an idle and on a busy
// machine; what the tests check are counts, never times or the scheduler's
// statistics. In drop mode nobody waits for the flusher; in block mode
// everybody does, and nothing is lost.

#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

constexpr int kThreads = 8;
// Held pairs per thread: a task event takes at least 8 bytes of ring
// (collector/internal/raw_record.h: a begin or end that repeats the ring's
// last task), so 8192 pairs, 16384 events, are at least twice what a
// 64 KiB ring holds.
constexpr int kRingKb = 64;
constexpr uint64_t kMostEventsInRing = kRingKb * 1024 / 8;
constexpr long kHeldPairs = 8192;

struct StressRun {
  LoadedTrace trace;
  std::map<std::string, unsigned long long> emitted;  // by thread name
  unsigned long long blocked_reserves = 0;
  // The flusher's own count of its compress and write stages (ticks).
  unsigned long long compress_ticks = 0;
  unsigned long long write_ticks = 0;
};

StressRun Stress(const std::string& name, const std::vector<std::string>& extra_env,
                 const char* release) {
  StressRun run;
  std::string dir = MakeTempDir(name);
  std::string path = dir + "/stress.itt";
  std::vector<std::string> env = {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                                  "ITTC_OUTPUT=" + path, "ITTC_RING_KB=" + std::to_string(kRingKb)};
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  int status = RunProgram({Runfile("tests/collector/stress_program"), "3", std::to_string(kThreads),
                           std::to_string(kHeldPairs), release},
                          env, dir + "/stdout.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  FILE* f = std::fopen((dir + "/stdout.txt").c_str(), "r");
  EXPECT_NE(f, nullptr);
  char word[64];
  unsigned long long count;
  while (f != nullptr && std::fscanf(f, "%63s %llu", word, &count) == 2) {
    if (std::string(word) == "blocked_reserves") {
      run.blocked_reserves = count;
    } else if (std::string(word) == "compress_ticks") {
      run.compress_ticks = count;
    } else if (std::string(word) == "write_ticks") {
      run.write_ticks = count;
    } else {
      run.emitted[word] = count;
    }
  }
  if (f != nullptr) std::fclose(f);
  auto trace = LoadTrace(path, KeepEvents::kNone);
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (trace.ok()) run.trace = std::move(*trace);
  return run;
}

// Per thread: events in the trace + events counted as dropped == emitted.
// Returns the events dropped per thread name.
std::map<std::string, uint64_t> ExpectEveryEventAccounted(const StressRun& run) {
  std::map<std::string, uint64_t> dropped_by_name;
  const LoadedTrace& t = run.trace;
  EXPECT_EQ(run.emitted.size(), static_cast<size_t>(kThreads));
  EXPECT_TRUE(t.has_end);
  EXPECT_EQ(t.corruptions, 0);
  EXPECT_EQ(t.truncations, 0);
  std::map<uint32_t, uint64_t> recorded = t.event_counts;
  std::map<uint32_t, uint64_t> dropped;
  for (const auto& [key, n] : t.losses) dropped[key.first] += n;
  int matched = 0;
  for (const auto& [index, name] : t.thread_names) {
    auto it = run.emitted.find(name);
    if (it == run.emitted.end()) continue;
    ++matched;
    EXPECT_EQ(recorded[index] + dropped[index], it->second) << name;
    EXPECT_GT(recorded[index], 0u) << name;
    dropped_by_name[name] = dropped[index];
  }
  EXPECT_EQ(matched, kThreads);
  uint64_t total_recorded = 0, total_dropped = 0;
  for (const auto& [i, n] : recorded) total_recorded += n;
  for (const auto& [i, n] : dropped) total_dropped += n;
  EXPECT_EQ(t.end.events_recorded, total_recorded);
  EXPECT_EQ(t.end.events_dropped, total_dropped);
  return dropped_by_name;
}

TEST(Stress, EightThreadsDropModeAccountsForEveryEvent) {
  StressRun run = Stress("stress_drop", {}, "done");
  std::map<std::string, uint64_t> dropped = ExpectEveryEventAccounted(run);
  // While held, each thread emitted 1 + 2 * kHeldPairs events into a ring
  // that holds at most kMostEventsInRing.
  for (const auto& [name, n] : dropped) {
    EXPECT_GE(n, 1 + 2 * kHeldPairs - kMostEventsInRing) << name;
  }
  for (const auto& [key, n] : run.trace.losses) {
    EXPECT_EQ(key.second, static_cast<int>(format::LossCause::kBufferFull));
  }
  // Nobody waits for the flusher in drop mode, however full the ring: the
  // collector's own count of waits stays zero.
  EXPECT_EQ(run.blocked_reserves, 0u);
}

TEST(Stress, EightThreadsBlockModeAccountsForEveryEvent) {
  // Released once all eight threads wait for room; a timeout only a hang
  // reaches, so nothing may be dropped.
  StressRun run =
      Stress("stress_block", {"ITTC_OVERFLOW=block", "ITTC_BLOCK_TIMEOUT_MS=60000"}, "blocked");
  ExpectEveryEventAccounted(run);
  EXPECT_EQ(run.trace.TotalLoss(), 0u);
  EXPECT_GE(run.blocked_reserves, static_cast<unsigned long long>(kThreads));
  // Every chunk was compressed and written by the time the trace closed,
  // and the flusher counted the time (flusher_bench's breakdown).
  EXPECT_GT(run.compress_ticks, 0u);
  EXPECT_GT(run.write_ticks, 0u);
}

}  // namespace
}  // namespace ittc::testing
