// 8 threads at full rate for a few seconds on this 2-core machine: every
// event is either recorded or counted as dropped, per thread, and the trace
// verifies. In drop mode nobody waits for the flusher.

#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

struct ThreadResult {
  unsigned long long emitted = 0;
  long voluntary_switches = 0;  // times the thread blocked while emitting
};

struct StressRun {
  LoadedTrace trace;
  std::map<std::string, ThreadResult> results;  // by thread name
};

StressRun Stress(const std::string& name, const std::vector<std::string>& extra_env) {
  StressRun run;
  std::string dir = MakeTempDir(name);
  std::string path = dir + "/stress.itt";
  std::vector<std::string> env = {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                                  "ITTC_OUTPUT=" + path};
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  int status =
      RunProgram({Runfile("tests/collector/stress_program"), "3", "8"}, env, dir + "/stdout.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  FILE* f = std::fopen((dir + "/stdout.txt").c_str(), "r");
  EXPECT_NE(f, nullptr);
  char thread_name[64];
  ThreadResult r;
  while (f != nullptr &&
         std::fscanf(f, "%63s %llu %ld", thread_name, &r.emitted, &r.voluntary_switches) == 3) {
    run.results[thread_name] = r;
  }
  if (f != nullptr) std::fclose(f);
  auto trace = LoadTrace(path, KeepEvents::kNone);
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (trace.ok()) run.trace = std::move(*trace);
  return run;
}

// Per thread: events in the trace + events counted as dropped == emitted.
void ExpectEveryEventAccounted(const StressRun& run) {
  const LoadedTrace& t = run.trace;
  ASSERT_EQ(run.results.size(), 8u);
  EXPECT_TRUE(t.has_end);
  EXPECT_EQ(t.corruptions, 0);
  EXPECT_EQ(t.truncations, 0);
  std::map<uint32_t, uint64_t> recorded = t.event_counts;
  std::map<uint32_t, uint64_t> dropped;
  for (const auto& [key, n] : t.losses) dropped[key.first] += n;
  int matched = 0;
  for (const auto& [index, name] : t.thread_names) {
    auto it = run.results.find(name);
    if (it == run.results.end()) continue;
    ++matched;
    EXPECT_EQ(recorded[index] + dropped[index], it->second.emitted) << name;
    EXPECT_GT(recorded[index], 0u) << name;
  }
  EXPECT_EQ(matched, 8);
  uint64_t total_recorded = 0, total_dropped = 0;
  for (const auto& [i, n] : recorded) total_recorded += n;
  for (const auto& [i, n] : dropped) total_dropped += n;
  EXPECT_EQ(t.end.events_recorded, total_recorded);
  EXPECT_EQ(t.end.events_dropped, total_dropped);
}

TEST(Stress, EightThreadsDropModeAccountsForEveryEvent) {
  // A small ring makes drops certain, which is what this test is about.
  StressRun run = Stress("stress_drop", {"ITTC_RING_KB=64"});
  ExpectEveryEventAccounted(run);
  EXPECT_GT(run.trace.TotalLoss(), 0u) << "expected the small rings to overflow";
  for (const auto& [key, n] : run.trace.losses) {
    EXPECT_EQ(key.second, static_cast<int>(format::LossCause::kBufferFull));
  }
  // Nobody blocks in drop mode: a producer only ever loses the CPU to the
  // scheduler (involuntary switches, which a busy machine makes many of),
  // never waits for the flusher. Voluntary switches count blocking; a few
  // are allowed for the first call's locks.
  for (const auto& [name, r] : run.results) EXPECT_LE(r.voluntary_switches, 20) << name;
}

TEST(Stress, EightThreadsBlockModeAccountsForEveryEvent) {
  StressRun run = Stress("stress_block", {"ITTC_RING_KB=64", "ITTC_OVERFLOW=block"});
  ExpectEveryEventAccounted(run);
  // The control for the drop-mode check: waiting for room is blocking, and
  // shows up as voluntary switches.
  long switches = 0;
  for (const auto& [name, r] : run.results) switches += r.voluntary_switches;
  EXPECT_GT(switches, 8 * 20);
  for (const auto& [key, n] : run.trace.losses) {
    EXPECT_EQ(key.second, static_cast<int>(format::LossCause::kBlockTimeout));
  }
}

}  // namespace
}  // namespace ittc::testing
