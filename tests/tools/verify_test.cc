// verify's warnings (a thread's time going back, references to undefined
// ids): the index pass finds them on the reader's workers, a chunk at a
// time; the pass that checks event by event must say the same, line for
// line, and is what places undefined references.

#include "tools/itt_dump/verify.h"

#include <string>
#include <vector>

#include "format/chunk_writer.h"
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

// The index pass reads task begins and ends without an Event
// (EventStreamDecoder::NextSimpleTask): an end's domain is a reference
// too, and so is a begin's domain when only it is undefined.
// What that reading assumes of the schema: a task begin refers to its
// domain, then its name, and a task end to its domain, nothing else (a
// field added to them with a reference role must be added there too).
TEST(VerifyWarnings, SimpleTasksReferToTheirDomainAndName) {
  std::vector<std::pair<format::FieldRole, uint64_t>> refs;
  const auto add = [&](format::FieldRole role, uint64_t id) { refs.emplace_back(role, id); };
  format::ForEachDefinitionRef(
      Ev(EventKind::kTaskBegin, 5,
         {{F::kDomain, U(3)}, {F::kId, I(7)}, {F::kParent, I(8)}, {F::kName, U(4)}}),
      add);
  EXPECT_EQ(refs, (std::vector<std::pair<format::FieldRole, uint64_t>>{
                      {format::FieldRole::kDomainRef, 3}, {format::FieldRole::kStringRef, 4}}));
  refs.clear();
  format::ForEachDefinitionRef(Ev(EventKind::kTaskEnd, 6, {{F::kDomain, U(3)}}), add);
  EXPECT_EQ(
      refs,
      (std::vector<std::pair<format::FieldRole, uint64_t>>{{format::FieldRole::kDomainRef, 3}}));
}

TEST(VerifyWarnings, UndefinedDomainOfATaskEndOrBeginIsFound) {
  for (const bool in_end : {true, false}) {
    TraceBuilder b;
    b.String(1, "work").Domain(1, "app").Thread(0, 10, "a");
    std::vector<Event> events;
    for (uint64_t i = 0; i < 40; ++i) {
      const uint64_t domain = i == 17 ? 7 : 1;  // 7 is not defined
      events.push_back(Ev(EventKind::kTaskBegin, 1000 + 10 * i,
                          {{F::kDomain, U(in_end ? 1 : domain)}, {F::kName, U(1)}}));
      events.push_back(
          Ev(EventKind::kTaskEnd, 1005 + 10 * i, {{F::kDomain, U(in_end ? domain : 1)}}));
    }
    b.Events(0, events);
    const TraceSet set = OpenChecked(b.bytes());
    EXPECT_TRUE(set.files()[0].index->checks.undefined_refs) << in_end;
    const TraceSet defined = OpenChecked(TraceWithTimeBacks(2, 0, false));
    EXPECT_FALSE(defined.files()[0].index->checks.undefined_refs);
  }
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
  // In file order, each chunk's first event (its time going back) before
  // its 21st (the reference).
  const size_t back0 = w.text.find(": thread 0 time goes back");
  const size_t ref0 = w.text.find(" of thread 0 refers to undefined");
  const size_t back1 = w.text.find(": thread 1 time goes back");
  const size_t ref1 = w.text.find(" of thread 1 refers to undefined");
  ASSERT_NE(back1, std::string::npos) << w.text;
  EXPECT_LT(back0, ref0) << w.text;
  EXPECT_LT(ref0, back1) << w.text;
  EXPECT_LT(back1, ref1) << w.text;
}

TEST(VerifyWarnings, MoreTimeBacksThanKeptAreCounted) {
  TraceBuilder b;
  b.String(1, "work").Domain(1, "app").Thread(0, 10, "a").SyncAt(1000);
  std::vector<Event> events;
  const int kBacks = 2500;  // in one chunk, more than EventChecks::kMaxKept
  for (int i = 0; i < kBacks; ++i) {
    events.push_back(Ev(EventKind::kTaskEnd, 10000 + 2 * i + 5, {{F::kDomain, U(1)}}));
    events.push_back(Ev(EventKind::kTaskEnd, 10000 + 2 * i, {{F::kDomain, U(1)}}));
  }
  b.Events(0, events).End(20000);
  const TraceSet set = OpenChecked(b.bytes());
  const TraceFile& file = set.files()[0];
  EXPECT_EQ(file.index->checks.time_backs.size(), EventChecks::kMaxKept);
  EXPECT_EQ(file.index->checks.time_backs_total, uint64_t{kBacks});
  const EventWarnings from_index = CheckEvents(file, /*own_pass=*/false, nullptr);
  const EventWarnings own = CheckEvents(file, /*own_pass=*/true, nullptr);
  EXPECT_EQ(from_index.count, uint64_t{kBacks});
  EXPECT_EQ(from_index.count, own.count);
  EXPECT_EQ(from_index.text, own.text);
}

// More distinct references than the index keeps: it does not look them
// up, and verify's own pass still finds the one that is undefined.
TEST(VerifyWarnings, TooManyDistinctReferencesFallBackToTheOwnPass) {
  TraceBuilder b;
  const uint64_t n = EventChecks::kMaxRefs + 10;
  b.Domain(1, "app");
  for (uint64_t id = 1; id <= n; ++id) {
    if (id != 777) b.String(id, "name");
  }
  b.Thread(0, 10, "a").SyncAt(1000);
  std::vector<Event> events;
  for (uint64_t id = 1; id <= n; ++id) {
    events.push_back(
        Ev(EventKind::kTaskBegin, 1000 + 2 * id, {{F::kDomain, U(1)}, {F::kName, U(id)}}));
    events.push_back(Ev(EventKind::kTaskEnd, 1001 + 2 * id, {{F::kDomain, U(1)}}));
  }
  b.Events(0, events).End(1000 + 2 * n + 10);
  const TraceSet set = OpenChecked(b.bytes());
  const TraceFile& file = set.files()[0];
  EXPECT_TRUE(file.index->checks.too_many_refs);
  EXPECT_FALSE(file.index->checks.undefined_refs);  // not looked up
  const EventWarnings w = CheckEvents(file, /*own_pass=*/false, nullptr);
  EXPECT_EQ(w.count, 1u) << w.text;
  EXPECT_NE(w.text.find("refers to undefined string 777\n"), std::string::npos) << w.text;
}

// The index pass decodes events on the reader's workers unless a visitor
// must see them in order (then on the reading thread): both give the same
// index, checks included, on a trace with damage.
class NoVisitor : public IndexVisitor {};

IndexResult Index(const std::string& bytes, IndexVisitor* visitor) {
  IndexOptions options;
  options.decode_all_events = true;
  options.check_events = true;
  options.visitor = visitor;
  return BuildIndex(TraceSource::Memory(bytes, "trace.itt"), options);
}

TEST(VerifyWarnings, IndexOnWorkersEqualsIndexOnTheReadingThread) {
  std::string bytes = TraceWithTimeBacks(/*chunks=*/8, /*backs_per_chunk=*/2, true);
  // A flipped byte in the middle (a chunk fails its checksum), and a last
  // events chunk cut short inside an event, framed with a good checksum.
  bytes[bytes.size() / 2] ^= 0x5a;
  format::EventStreamEncoder enc;
  enc.Reset(1, 500000);
  for (int i = 0; i < 10; ++i) {
    enc.Append(Ev(EventKind::kTaskBegin, 500000 + i, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
  }
  std::string payload(enc.payload());
  payload.pop_back();
  bytes += format::FrameChunkForTest(1, enc.chunk_flags(), 1000, payload,
                                     static_cast<uint32_t>(payload.size()));

  NoVisitor visitor;
  const IndexResult a = Index(bytes, nullptr);
  const IndexResult b = Index(bytes, &visitor);
  ASSERT_NE(a.index, nullptr);
  ASSERT_NE(b.index, nullptr);
  const TraceIndex& x = *a.index;
  const TraceIndex& y = *b.index;
  EXPECT_GT(x.reader_stats.corrupt_regions, 0u);
  EXPECT_EQ(x.malformed_payloads, 1u);
  EXPECT_EQ(x.events, y.events);
  EXPECT_EQ(x.unknown_events, y.unknown_events);
  EXPECT_EQ(x.min_event_ticks, y.min_event_ticks);
  EXPECT_EQ(x.max_event_ticks, y.max_event_ticks);
  EXPECT_EQ(x.events_payload_bytes, y.events_payload_bytes);
  ASSERT_EQ(x.problems.size(), y.problems.size());
  for (size_t i = 0; i < x.problems.size(); ++i) {
    EXPECT_EQ(x.problems[i].offset, y.problems[i].offset);
    EXPECT_EQ(x.problems[i].bytes, y.problems[i].bytes);
    EXPECT_EQ(x.problems[i].reason, y.problems[i].reason);
  }
  ASSERT_EQ(x.threads.size(), y.threads.size());
  for (const auto& [index, t] : x.threads.entries()) {
    const ThreadRec* u = y.threads.Find(index);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(t.events, u->events);
    EXPECT_EQ(t.chunk_first_times, u->chunk_first_times);
  }
  EXPECT_TRUE(x.checks.undefined_refs);
  EXPECT_EQ(x.checks.undefined_refs, y.checks.undefined_refs);
  EXPECT_GT(x.checks.time_backs_total, 0u);
  EXPECT_EQ(x.checks.time_backs_total, y.checks.time_backs_total);
  ASSERT_EQ(x.checks.time_backs.size(), y.checks.time_backs.size());
  for (size_t i = 0; i < x.checks.time_backs.size(); ++i) {
    EXPECT_EQ(x.checks.time_backs[i].chunk_offset, y.checks.time_backs[i].chunk_offset);
    EXPECT_EQ(x.checks.time_backs[i].thread_index, y.checks.time_backs[i].thread_index);
    EXPECT_EQ(x.checks.time_backs[i].payload_offset, y.checks.time_backs[i].payload_offset);
    EXPECT_EQ(x.checks.time_backs[i].ticks, y.checks.time_backs[i].ticks);
  }
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
