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
    ASSERT_EQ(std::fscanf(f, "%llu %llu", &fifty_measured_ns_, &inner_measured_us_), 2);
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

  static LoadedTrace* trace_;
  // What the program measured with CLOCK_MONOTONIC_RAW: from just before
  // the "fifty" begin to just after its end, and the inner task's span.
  static unsigned long long fifty_measured_ns_;
  static unsigned long long inner_measured_us_;
};

LoadedTrace* TimingTest::trace_ = nullptr;
unsigned long long TimingTest::fifty_measured_ns_ = 0;
unsigned long long TimingTest::inner_measured_us_ = 0;

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

TEST_F(TimingTest, FiftyMillisecondTaskDecodesWithinOnePercent) {
  const DecodedEvent* begin = Begin("fifty");
  ASSERT_NE(begin, nullptr);
  const DecodedEvent* end = EndOf(begin);
  ASSERT_NE(end, nullptr);
  double ns = Ns(begin->time, end->time);
  double measured = static_cast<double>(fifty_measured_ns_);
  ASSERT_GE(measured, 50e6);
  // Within 1% of the real duration (the program spins at least 50 ms; a
  // busy machine may stretch it), and never longer than what enclosed it.
  EXPECT_NEAR(ns, measured, 0.01 * measured);
  EXPECT_LE(ns, measured);
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
  // The user timestamps were read just before each call, so after
  // conversion they sit within a few microseconds (clock resolution 1 us)
  // of the RDTSC stamp the collector put on the call itself.
  EXPECT_LT(std::abs(Ns(inner->time, inner_begin_ticks)), 20000.0);
  EXPECT_LT(std::abs(Ns(inner_end->time, inner_end_ticks)), 20000.0);
  // And the inner task nests inside the outer one with the right length.
  EXPECT_GT(Ns(outer->time, inner_begin_ticks), 900000.0);
  EXPECT_GT(Ns(inner_end_ticks, outer_end->time), 900000.0);
  double inner_ns = Ns(inner_begin_ticks, inner_end_ticks);
  double measured = static_cast<double>(inner_measured_us_) * 1000.0;
  ASSERT_GE(measured, 10e6);
  EXPECT_NEAR(inner_ns, measured, 0.01 * measured);
}

}  // namespace
}  // namespace ittc::testing
