// verify's warnings (a thread's time going back, references to undefined
// ids): the index pass finds them on the reader's workers, a chunk at a
// time; the pass that checks event by event must say the same, line for
// line, and is what places undefined references.

#include "tools/itt_dump/verify.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/trace_builder.h"
#include "tools/itt_dump/model/trace_set.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

using format::Event;
using format::EventKind;

TraceSet OpenChecked(const std::string& bytes) {
  IndexOptions options;
  options.decode_all_events = true;
  options.check_events = true;
  std::vector<TraceSource> sources;
  sources.push_back(TraceSource::Memory(bytes, "trace.itt"));
  return TraceSet::Open(std::move(sources), options);
}

// Two threads, each with chunks whose times go back inside a chunk and
// from one chunk to the next: `backs_per_chunk` inside each chunk (a task
// begins 4 ticks before the last one ended), one at each later chunk's
// start; with `undefined_name` the last chunks each name string 99 once.
std::string TraceWithTimeBacks(int chunks, int backs_per_chunk, bool undefined_name) {
  TraceBuilder b;
  b.String(1, "work").Domain(1, "app").Thread(0, 10, "a").Thread(1, 11, "b").SyncAt(1000);
  for (int c = 0; c < chunks; ++c) {
    for (uint32_t thread = 0; thread < 2; ++thread) {
      std::vector<Event> events;
      // Each chunk (50 pairs, about 350 ticks) starts before the previous
      // one of its thread ended.
      uint64_t t = 100000 + 100 * c - 10 * thread;
      for (int i = 0; i < 50; ++i) {
        const bool back = i % 10 == 9 && i / 10 < backs_per_chunk;
        t = back ? t - 3 : t + 7;
        const uint64_t name = undefined_name && c == chunks - 1 && i == 20 ? 99 : 1;
        events.push_back(Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(name)}}));
        events.push_back(Ev(EventKind::kTaskEnd, t + 1, {{F::kDomain, U(1)}}));
      }
      b.Events(thread, events);
    }
  }
  b.End(200000);
  return b.bytes();
}

TEST(VerifyWarnings, IndexPassAndOwnPassSayTheSame) {
  const std::string bytes = TraceWithTimeBacks(/*chunks=*/6, /*backs_per_chunk=*/3, false);
  const TraceSet set = OpenChecked(bytes);
  ASSERT_EQ(set.files().size(), 1u);
  const TraceFile& file = set.files()[0];
  ASSERT_TRUE(file.index->checks.done);
  EXPECT_FALSE(file.index->checks.undefined_refs);
  const EventWarnings from_index = CheckEvents(file, /*own_pass=*/false, nullptr);
  const EventWarnings own = CheckEvents(file, /*own_pass=*/true, nullptr);
  // 2 threads x (6 chunks x 3 inside + 5 chunk starts).
  EXPECT_EQ(own.count, 2u * (6 * 3 + 5));
  EXPECT_EQ(from_index.count, own.count);
  EXPECT_EQ(from_index.text, own.text);
  EXPECT_NE(own.text.find(" time goes back by 4 ticks at payload offset "), std::string::npos)
      << own.text;
}

TEST(VerifyWarnings, PrintsTwentyThenCounts) {
  const std::string bytes = TraceWithTimeBacks(6, 3, false);
  DumpResult r = RunDump({"verify", "trace.itt"}, bytes);
  EXPECT_EQ(r.status, 0) << r.out;
  size_t lines = 0;
  for (size_t p = r.out.find("warning: "); p != std::string::npos;
       p = r.out.find("warning: ", p + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 20u) << r.out;
  EXPECT_NE(r.out.find("26 more warnings not shown\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trace.itt: ok ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 46 warnings)"), std::string::npos) << r.out;
}

TEST(VerifyWarnings, UndefinedReferenceIsPlacedAtItsEvent) {
  const std::string bytes = TraceWithTimeBacks(/*chunks=*/2, /*backs_per_chunk=*/0, true);
  const TraceSet set = OpenChecked(bytes);
  const TraceFile& file = set.files()[0];
  EXPECT_TRUE(file.index->checks.undefined_refs);
  const EventWarnings w = CheckEvents(file, /*own_pass=*/false, nullptr);
  // The two threads' second chunks start back, and each refers to string
  // 99 once.
  EXPECT_EQ(w.count, 4u) << w.text;
  EXPECT_NE(w.text.find("task_begin at payload offset "), std::string::npos) << w.text;
  EXPECT_NE(w.text.find(" of thread 0 refers to undefined string 99\n"), std::string::npos)
      << w.text;
  EXPECT_NE(w.text.find(" of thread 1 refers to undefined string 99\n"), std::string::npos)
      << w.text;
  EXPECT_EQ(w.text, CheckEvents(file, /*own_pass=*/true, nullptr).text);
}

TEST(VerifyWarnings, CleanTraceHasNone) {
  TraceBuilder b;
  b.String(1, "work").Domain(1, "app").Thread(0, 10, "a").SyncAt(1000);
  std::vector<Event> events;
  for (int i = 0; i < 100; ++i) {
    events.push_back(
        Ev(EventKind::kTaskBegin, 1000 + 2 * i, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
    events.push_back(Ev(EventKind::kTaskEnd, 1001 + 2 * i, {{F::kDomain, U(1)}}));
  }
  b.Events(0, events).End(5000);
  const TraceSet set = OpenChecked(b.bytes());
  const EventWarnings w = CheckEvents(set.files()[0], false, nullptr);
  EXPECT_EQ(w.count, 0u);
  EXPECT_EQ(w.text, "");
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
