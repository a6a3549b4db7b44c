// Two passes that format every other batch (two_passes.h): their batches
// reach the output in order whatever the threads' speeds; a pass that
// sees fewer events than the other stops both instead of leaving one
// waiting, and says so; a broken output stops both. Runs under
// ThreadSanitizer in CI (tag "concurrency"), with `text` on two cores.

#include "tools/itt_dump/two_passes.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tools/itt_dump/output.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

// Pass `share` of `events` events, each formatted as its number and a
// newline, each with `bytes` bytes of byte fields; `slow` passes yield
// between events (the other runs ahead).
void RunShare(TwoPasses* passes, int share, uint64_t events, bool slow, uint64_t bytes) {
  PassShare s(passes, share);
  for (uint64_t i = 0; i < events && !passes->stopped(); ++i) {
    if (s.NextEvent(bytes)) s.text().append(absl::StrCat(i, "\n"));
    if (slow && i % 64 == 0) std::this_thread::yield();
  }
  s.Finish();
}

std::string Numbers(uint64_t n) {
  std::string s;
  for (uint64_t i = 0; i < n; ++i) absl::StrAppend(&s, i, "\n");
  return s;
}

TEST(TwoPasses, BatchesReachTheOutputInTheirOrder) {
  const uint64_t events = 11 * TwoPasses::kBatchEvents + 7;
  for (const int slow : {0, 1}) {
    std::string text;
    std::unique_ptr<Output> out = StringOutput(&text);
    TwoPasses passes(out.get());
    std::thread second(RunShare, &passes, 1, events, slow == 1, uint64_t{0});
    RunShare(&passes, 0, events, slow == 0, 0);
    second.join();
    out->Flush();
    EXPECT_FALSE(passes.mismatch());
    EXPECT_FALSE(passes.stopped());
    EXPECT_EQ(text, Numbers(events)) << "slow share " << slow;
  }
}

// No events, one, and counts at and just past batch boundaries: the last
// batch (in part or whole) goes out, and nothing waits for a batch that
// does not exist.
TEST(TwoPasses, CountsAtBatchBoundariesGoOutWhole) {
  const uint64_t n = TwoPasses::kBatchEvents;
  for (const uint64_t events : {uint64_t{0}, uint64_t{1}, n - 1, n, n + 1, 2 * n, 3 * n + 1}) {
    std::string text;
    std::unique_ptr<Output> out = StringOutput(&text);
    TwoPasses passes(out.get());
    std::thread second(RunShare, &passes, 1, events, false, uint64_t{0});
    RunShare(&passes, 0, events, false, 0);
    second.join();
    out->Flush();
    EXPECT_FALSE(passes.mismatch()) << events;
    EXPECT_EQ(text, Numbers(events)) << events;
  }
}

// Events with large byte fields end their batch early (three to a batch
// here): the batches still go out in order.
TEST(TwoPasses, BatchesOfLargeEventsReachTheOutputInTheirOrder) {
  const uint64_t events = 1000;
  std::string text;
  std::unique_ptr<Output> out = StringOutput(&text);
  TwoPasses passes(out.get());
  const uint64_t bytes = TwoPasses::kBatchBytes / 3 + 1;
  std::thread second(RunShare, &passes, 1, events, false, bytes);
  RunShare(&passes, 0, events, false, bytes);
  second.join();
  out->Flush();
  EXPECT_FALSE(passes.mismatch());
  EXPECT_EQ(text, Numbers(events));
}

// The second pass ends after 3 batches (its file changed, say): the first
// waits for batch 3, which will not come.
TEST(TwoPasses, APassThatSeesFewerEventsStopsBothAndSaysSo) {
  std::string text;
  std::unique_ptr<Output> out = StringOutput(&text);
  TwoPasses passes(out.get());
  std::thread second(RunShare, &passes, 1, 3 * TwoPasses::kBatchEvents, false, uint64_t{0});
  RunShare(&passes, 0, 10 * TwoPasses::kBatchEvents, false, 0);
  second.join();
  out->Flush();
  EXPECT_TRUE(passes.mismatch());
  EXPECT_TRUE(passes.stopped());
  EXPECT_EQ(text, Numbers(3 * TwoPasses::kBatchEvents));
}

TEST(TwoPasses, ABrokenOutputStopsBoth) {
  std::signal(SIGPIPE, SIG_IGN);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);  // the reader went away
  std::unique_ptr<Output> out = FdOutput(fds[1], "pipe", /*owned=*/true);
  TwoPasses passes(out.get());
  // Enough text to pass the output's buffer: a write reaches the pipe.
  const uint64_t events = 64 * TwoPasses::kBatchEvents;
  std::thread second(RunShare, &passes, 1, events, false, uint64_t{0});
  RunShare(&passes, 0, events, false, 0);
  second.join();
  EXPECT_TRUE(out->broken());
  EXPECT_TRUE(passes.stopped());
  EXPECT_FALSE(passes.mismatch());
}

// The verb itself, on four threads' frames and tasks: many batches each
// way (the byte-for-byte comparisons with filters and damage are in
// pieces_test).
TEST(TwoPasses, TextOfManyBatchesPrintsWhatOnePassPrints) {
  const std::string trace = FrameTrace(4, TwoPasses::kBatchEvents);
  const std::vector<std::string> args = {"text", "trace.itt"};
  const DumpResult two = RunDump(args, trace);
  const DumpResult one = RunDumpOnOneCore(args, trace);
  EXPECT_EQ(two.status, 0);
  EXPECT_EQ(two.out, one.out);
  EXPECT_EQ(two.err, one.err);
  EXPECT_GT(one.out.size(), 8 * TwoPasses::kBatchEvents);
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
