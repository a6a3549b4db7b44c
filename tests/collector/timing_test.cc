// Time conversion end to end: RDTSC-stamped tasks decode to the right
// duration, and user-clock-domain timestamps line up with RDTSC stamps.

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

using K = format::EventKind;

class TimingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = MakeTempDir("timing");
    std::string path = dir + "/timing.itt";
    int status = RunProgram(
        {Runfile("tests/collector/timing_program")},
        {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"), "ITTC_OUTPUT=" + path},
        dir + "/stdout.txt");
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    auto loaded = LoadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    trace_ = new LoadedTrace(std::move(*loaded));
    FILE* f = std::fopen((dir + "/stdout.txt").c_str(), "r");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fscanf(f, "fifty %llu %llu %llu %llu\n", &fifty_[0], &fifty_[1], &fifty_[2],
                          &fifty_[3]),
              4);
    ASSERT_EQ(
        std::fscanf(f, "inner %llu %llu %llu %llu", &inner_[0], &inner_[1], &inner_[2], &inner_[3]),
        4);
    std::fclose(f);
  }

  // Nanoseconds between two tick values, using the first and last clock
  // sync points (CLOCK_MONOTONIC_RAW) rather than the header's nominal
  // frequency: this is what a decoder does to avoid drift.
  static double Ns(uint64_t from, uint64_t to) {
    const auto& a = trace_->syncs.front();
    const auto& b = trace_->syncs.back();
    double ns_per_tick = static_cast<double>(b.monotonic_raw_ns - a.monotonic_raw_ns) /
                         static_cast<double>(b.ticks - a.ticks);
    return static_cast<double>(static_cast<int64_t>(to - from)) * ns_per_tick;
  }

  // CLOCK_MONOTONIC_RAW nanoseconds of a tick value, through the same two
  // sync points.
  static double RawNs(uint64_t ticks) {
    const auto& a = trace_->syncs.front();
    return static_cast<double>(a.monotonic_raw_ns) + Ns(a.ticks, ticks);
  }

  // Expects `ticks` to convert to a time within [from_ns, to_ns] (clock
  // reads the program took around the call), give or take kSlackNs.
  static void ExpectBetween(uint64_t ticks, unsigned long long from_ns, unsigned long long to_ns,
                            const char* what) {
    double ns = RawNs(ticks);
    EXPECT_GE(ns, static_cast<double>(from_ns) - kSlackNs) << what;
    EXPECT_LE(ns, static_cast<double>(to_ns) + kSlackNs) << what;
  }

  static const DecodedEvent* Begin(const char* name) {
    for (const DecodedEvent& e : trace_->events) {
      if ((e.kind == K::kTaskBegin || e.kind == K::kTaskBeginEx) &&
          trace_->strings[e.U("name")] == name) {
        return &e;
      }
    }
    return nullptr;
  }

  // The end that closes the begin at `index` (tasks nest per thread).
  static const DecodedEvent* EndOf(const DecodedEvent* begin) {
    int depth = 0;
    bool seen = false;
    for (const DecodedEvent& e : trace_->events) {
      if (&e == begin) {
        seen = true;
        continue;
      }
      if (!seen) continue;
      if (e.kind == K::kTaskBegin || e.kind == K::kTaskBeginEx) ++depth;
      if (e.kind == K::kTaskEnd || e.kind == K::kTaskEndEx) {
        if (depth == 0) return &e;
        --depth;
      }
    }
    return nullptr;
  }

  // Error of converting ticks to CLOCK_MONOTONIC_RAW through two sync
  // points: each is the tightest of five bracketed reads, so a fraction of
  // a microsecond, plus the user clock's 1 us resolution. Scheduling does
  // not enter it: the program's brackets absorb any time off the CPU.
  static constexpr double kSlackNs = 20000;

  static LoadedTrace* trace_;
  // What the program read from CLOCK_MONOTONIC_RAW (ns), see
  // timing_program.c: "fifty" before/after begin, before/after end;
  // "inner" user begin, after begin, user end, after end.
  static unsigned long long fifty_[4];
  static unsigned long long inner_[4];
};

LoadedTrace* TimingTest::trace_ = nullptr;
unsigned long long TimingTest::fifty_[4] = {};
unsigned long long TimingTest::inner_[4] = {};

TEST_F(TimingTest, SyncPointsSpanTheRun) {
  ASSERT_GE(trace_->syncs.size(), 2u);
  EXPECT_GT(trace_->syncs.back().ticks, trace_->syncs.front().ticks);
  // The header frequency agrees with the sync points to 0.1%.
  const auto& a = trace_->syncs.front();
  const auto& b = trace_->syncs.back();
  double measured_hz = static_cast<double>(b.ticks - a.ticks) * 1e9 /
                       static_cast<double>(b.monotonic_raw_ns - a.monotonic_raw_ns);
  EXPECT_NEAR(measured_hz, static_cast<double>(trace_->header.timebase_hz),
              1e-3 * static_cast<double>(trace_->header.timebase_hz));
}

TEST_F(TimingTest, FiftyMillisecondTaskStampsLieBetweenTheProgramsClockReads) {
  const DecodedEvent* begin = Begin("fifty");
  ASSERT_NE(begin, nullptr);
  const DecodedEvent* end = EndOf(begin);
  ASSERT_NE(end, nullptr);
  ExpectBetween(begin->time, fifty_[0], fifty_[1], "begin");
  ExpectBetween(end->time, fifty_[2], fifty_[3], "end");
  // The program spun at least 50 ms between the calls.
  EXPECT_GE(Ns(begin->time, end->time), 50e6 - kSlackNs);
}

TEST_F(TimingTest, UserClockTaskLinesUpWithTscStamps) {
  const DecodedEvent* outer = Begin("outer");
  const DecodedEvent* inner = Begin("inner");
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  const DecodedEvent* inner_end = EndOf(inner);
  const DecodedEvent* outer_end = EndOf(outer);
  ASSERT_NE(inner_end, nullptr);
  ASSERT_NE(outer_end, nullptr);
  ASSERT_EQ(inner->kind, K::kTaskBeginEx);
  ASSERT_EQ(inner_end->kind, K::kTaskEndEx);
  uint64_t inner_begin_ticks = inner->U("timestamp");
  uint64_t inner_end_ticks = inner_end->U("timestamp");
  // The user timestamps convert back to what the program read, and the
  // collector's own stamp on each call comes after that read and before the
  // call returned.
  ExpectBetween(inner_begin_ticks, inner_[0], inner_[0] + 1000, "user begin timestamp");
  ExpectBetween(inner_end_ticks, inner_[2], inner_[2] + 1000, "user end timestamp");
  ExpectBetween(inner->time, inner_[0], inner_[1], "begin_ex call");
  ExpectBetween(inner_end->time, inner_[2], inner_[3], "end_ex call");
  // And the inner task nests inside the outer one (1 ms spins on each side).
  EXPECT_GT(Ns(outer->time, inner_begin_ticks), 1e6 - kSlackNs);
  EXPECT_GT(Ns(inner_end_ticks, outer_end->time), 1e6 - kSlackNs);
}

}  // namespace
}  // namespace ittc::testing
