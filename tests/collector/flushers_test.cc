// Several flushers writing one trace (collector/internal/flusher.h): with
// ITTC_FLUSHERS fixed, every thread's values reach the file once each and
// in the order the thread set them, while the threads' rings move from
// flusher to flusher under way (a test hook asks for the moves flusher 0
// makes to spread fast threads); the trace is complete and clean, in block
// mode with rings small enough to wrap many times, at exit and at detach.
// And the choice of the number of flushers, as a function.

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "collector/internal/flusher.h"
#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

using collector_internal::TargetFlushers;
using collector_internal::ThreadActive;

constexpr int kThreads = 4;
constexpr int kFlushers = 3;
// 64 KiB rings: each thread's values wrap its ring dozens of times.
constexpr long kEvents = 60000;
constexpr int kMoves = 6;

struct FlushersRun {
  int status = -1;
  LoadedTrace trace;
  int flushers = 0;
  std::map<std::string, int> moves;  // by thread name
};

FlushersRun RunFlushers(const std::string& name, const char* ending, int flushers) {
  FlushersRun run;
  std::string dir = MakeTempDir(name);
  std::string path = dir + "/flushers.itt";
  run.status = RunProgram(
      {Runfile("tests/collector/flushers_program"), std::to_string(kThreads),
       std::to_string(kEvents), std::to_string(kMoves), ending},
      {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"), "ITTC_OUTPUT=" + path,
       "ITTC_FLUSHERS=" + std::to_string(flushers), "ITTC_RING_KB=64", "ITTC_OVERFLOW=block",
       "ITTC_BLOCK_TIMEOUT_MS=60000", "ITTC_EXIT_TIMEOUT_MS=600000"},
      dir + "/stdout.txt");
  FILE* f = std::fopen((dir + "/stdout.txt").c_str(), "r");
  char word[64], thread[64];
  int n;
  while (f != nullptr && std::fscanf(f, "%63s", word) == 1) {
    if (std::string(word) == "flushers" && std::fscanf(f, "%d", &n) == 1) run.flushers = n;
    if (std::string(word) == "moves" && std::fscanf(f, "%63s %d", thread, &n) == 2) {
      run.moves[thread] = n;
    }
  }
  if (f != nullptr) std::fclose(f);
  auto trace = LoadTrace(path);
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (trace.ok()) run.trace = std::move(*trace);
  return run;
}

// Each worker's counter values, in file order: 0, 1, 2, ... kEvents - 1.
void ExpectEveryValueOnceInOrder(const FlushersRun& run) {
  const LoadedTrace& t = run.trace;
  EXPECT_TRUE(t.has_end);
  EXPECT_EQ(t.corruptions, 0);
  EXPECT_EQ(t.truncations, 0);
  EXPECT_EQ(t.TotalLoss(), 0u);
  std::map<uint32_t, std::vector<uint64_t>> values;
  for (const DecodedEvent* e : t.OfKind(format::EventKind::kCounterSetValue)) {
    values[e->thread].push_back(e->U("value"));
  }
  int workers = 0;
  for (const auto& [index, name] : t.thread_names) {
    if (name.rfind("worker-", 0) != 0) continue;
    ++workers;
    const std::vector<uint64_t>& v = values[index];
    ASSERT_EQ(v.size(), static_cast<size_t>(kEvents)) << name;
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i) << name << " at " << i;
  }
  EXPECT_EQ(workers, kThreads);
}

TEST(Flushers, EveryThreadsValuesInOrderWhileRingsMoveBetweenFlushers) {
  FlushersRun run = RunFlushers("moves", "return", kFlushers);
  ASSERT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status;
  EXPECT_EQ(run.flushers, kFlushers);
  ExpectEveryValueOnceInOrder(run);
  ASSERT_EQ(run.moves.size(), static_cast<size_t>(kThreads));
  for (const auto& [thread, moves] : run.moves) EXPECT_EQ(moves, kMoves) << thread;
}

TEST(Flushers, DetachEndsTheTraceWithEveryFlushersChunks) {
  FlushersRun run = RunFlushers("detach", "detach", kFlushers);
  ASSERT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status;
  ExpectEveryValueOnceInOrder(run);
}

TEST(Flushers, OneFlusherWritesTheSameValues) {
  FlushersRun run = RunFlushers("one", "return", 1);
  ASSERT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status;
  EXPECT_EQ(run.flushers, 1);
  ExpectEveryValueOnceInOrder(run);
}

// flushers_program MODE ARG with kFlushers flushers: its exit status and
// what it printed.
struct ProgramRun {
  int status = -1;
  std::string printed;
};
// An empty `arg` is left out; `env` goes with the program's environment.
ProgramRun RunFullRoundsProgram(const std::string& mode, const std::string& arg,
                                std::vector<std::string> env = {}) {
  const std::string dir = MakeTempDir(mode);
  std::vector<std::string> argv = {Runfile("tests/collector/flushers_program"), mode};
  if (!arg.empty()) argv.push_back(arg);
  env.push_back("INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"));
  env.push_back("ITTC_OUTPUT=" + dir + "/" + mode + ".itt");
  env.push_back("ITTC_FLUSHERS=" + std::to_string(kFlushers));
  ProgramRun run;
  run.status = RunProgram(argv, env, dir + "/stdout.txt");
  std::ifstream out(dir + "/stdout.txt");
  run.printed.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
  return run;
}

// A full round (what a flight dump asks before it is written) drains
// every record made before it was asked, even those of a thread that no
// flusher has yet (flusher 0 gives it one during the round), and those of
// a thread whose ring is moving between flushers.
TEST(Flushers, AFullRoundDrainsNewThreadsAndThreadsOnTheMove) {
  const ProgramRun run = RunFullRoundsProgram("fullrounds", "200");
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status << "\n"
                                                                     << run.printed;
}

// A full round asked while the session stops is served by the flushers'
// last rounds, and drains what the thread held at the request: the rings
// that were moving between flushers, and those a stopping flusher hands
// back to flusher 0, too.
TEST(Flushers, AFullRoundAskedWhileTheSessionStopsDrainsEveryRing) {
  const ProgramRun run = RunFullRoundsProgram("stoprounds", "4");
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status << "\n"
                                                                     << run.printed;
  EXPECT_NE(run.printed.find("served "), std::string::npos) << run.printed;
}

// A full round asked while flusher 0 runs its last rounds, after the
// other flushers stopped, is served by its last round (which drains every
// ring to its end), not answered "not served".
TEST(Flushers, AFullRoundAskedAfterTheOtherFlushersStoppedIsServedByTheLast) {
  // (The exit waits for flusher 0 while the test holds it.)
  const ProgramRun run = RunFullRoundsProgram("lastround", "", {"ITTC_EXIT_TIMEOUT_MS=600000"});
  EXPECT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) << run.status << "\n"
                                                                     << run.printed;
  EXPECT_NE(run.printed.find("served 1"), std::string::npos) << run.printed;
}

TEST(TargetFlushers, OnePerActiveThreadWhileTheCoresHoldBoth) {
  EXPECT_EQ(TargetFlushers(0, 2), 1);
  EXPECT_EQ(TargetFlushers(1, 2), 1);
  EXPECT_EQ(TargetFlushers(2, 2), 1);  // two producers take both cores
  EXPECT_EQ(TargetFlushers(1, 16), 1);
  EXPECT_EQ(TargetFlushers(2, 16), 2);
  EXPECT_EQ(TargetFlushers(8, 16), 8);
  EXPECT_EQ(TargetFlushers(12, 16), 4);  // the cores the producers leave
  EXPECT_EQ(TargetFlushers(16, 16), 1);
  EXPECT_EQ(TargetFlushers(100, 256), collector_internal::kMaxFlushers);
}

TEST(ThreadActive, AnEighthOfTheRingPerFlushIntervalOrMore) {
  constexpr size_t kRing = 4u << 20;
  constexpr uint64_t kMs = 1000 * 1000;
  // 100 ms interval: 512 KiB per 100 ms, a tenth of it per 10 ms.
  EXPECT_TRUE(ThreadActive(kRing / 8, 100 * kMs, kRing, 100));
  EXPECT_FALSE(ThreadActive(kRing / 8 - 1, 100 * kMs, kRing, 100));
  const uint64_t tenth = (kRing / 8 + 9) / 10;
  EXPECT_TRUE(ThreadActive(tenth, 10 * kMs, kRing, 100));
  EXPECT_FALSE(ThreadActive(tenth - 8, 10 * kMs, kRing, 100));
  EXPECT_FALSE(ThreadActive(0, 10 * kMs, kRing, 100));
}

}  // namespace
}  // namespace ittc::testing
