// Row 5: 20,000 short-lived threads, each emitting a few events: memory stays
// bounded (rings of exited threads are reaped and reused) and every thread's
// events are in the trace.

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"

namespace ittc::testing {
namespace {

struct ThreadsRun {
  ExitInfo exit;
  TraceSummary trace;
};

// No growth of the trace for this long is a hang.
constexpr double kStallSeconds = 60;

ThreadsRun RunThreads(int total) {
  ThreadsRun run;
  std::string dir = MakeTempDir("many_threads_" + std::to_string(total));
  std::string trace_path = dir + "/threads.itt";
  pid_t pid =
      Spawn({Runfile("tests/reliability/many_threads_program"), std::to_string(total), "16"},
            CollectorEnv(trace_path), dir + "/out", dir + "/err");
  EXPECT_GT(pid, 0);
  if (pid <= 0) return run;
  // 20,000 thread starts take from seconds to many minutes (ThreadSanitizer
  // on a busy machine): only a program whose trace stops growing has hung.
  run.exit = WaitWhileProgressing(pid, {trace_path, dir + "/out", dir + "/err"}, kStallSeconds);
  EXPECT_TRUE(ExitedCleanly(run.exit)) << Describe(run.exit);
  EXPECT_EQ(ReadFileOrEmpty(dir + "/out"), "started " + std::to_string(total) + "\n");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
  auto loaded = SummarizeTrace(trace_path);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (loaded.ok()) run.trace = std::move(*loaded);
  return run;
}

TEST(ManyThreads, EveryThreadsEventsAreRecordedAndMemoryStaysBounded) {
  constexpr int kTotal = 20000;
  ThreadsRun few = RunThreads(kTotal / 10);
  ThreadsRun many = RunThreads(kTotal);

  const TraceSummary& trace = many.trace;
  EXPECT_TRUE(trace.has_end);
  EXPECT_EQ(trace.corruptions, 0);
  EXPECT_EQ(trace.truncations, 0);
  EXPECT_EQ(trace.TotalLoss(), 0u);
  int threads_with_three = 0;
  for (const auto& [thread, events] : trace.events_per_thread) {
    if (events == 3) {
      ++threads_with_three;
    } else {
      ADD_FAILURE() << "thread index " << thread << " has " << events << " events";
    }
  }
  EXPECT_EQ(threads_with_three, kTotal);
  EXPECT_EQ(trace.total_events, 3u * kTotal);

  // Ten times the threads may not cost ten times the memory: exited threads'
  // rings are freed or reused.
  ::testing::Test::RecordProperty("max_rss_kb_2000_threads", std::to_string(few.exit.max_rss_kb));
  ::testing::Test::RecordProperty("max_rss_kb_20000_threads", std::to_string(many.exit.max_rss_kb));
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Sanitizer runtimes keep freed memory in quarantine and shadow it: the
  // memory bound is checked in the plain build only.
  return;
#endif
  EXPECT_LT(many.exit.max_rss_kb, 256 * 1024);
  EXPECT_LT(many.exit.max_rss_kb, few.exit.max_rss_kb + 64 * 1024)
      << "2,000 threads: " << few.exit.max_rss_kb
      << " KiB, 20,000 threads: " << many.exit.max_rss_kb << " KiB";
}

}  // namespace
}  // namespace ittc::testing
