// Tests of `itt-dump perfetto`: the output decodes against the schema
// (protoc with tests/tools/perfetto/perfetto_subset.proto), its slices,
// counter samples and flows match what `stats` counts for the same trace,
// names are interned once per sequence, and the compressed forms hold the
// same packets.

#include <stdlib.h>
#include <zstd.h>

#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/perfetto/perfetto_test_util.h"
#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"

namespace ittc::testing {
namespace {

using format::EventKind;
using itt_dump::testing::DumpResult;
using itt_dump::testing::Ev;
using itt_dump::testing::F;
using itt_dump::testing::I;
using itt_dump::testing::RunDump;
using itt_dump::testing::SampleTrace;
using itt_dump::testing::SyntheticTrace;
using itt_dump::testing::TraceBuilder;
using itt_dump::testing::U;

// protoc's text rendering of a plain (uncompressed) Perfetto trace.
std::string Decode(const std::string& trace) {
  bool ok = false;
  std::string text = DecodeWithProtoc(trace, &ok);
  EXPECT_TRUE(ok) << text;
  return text;
}

int Count(const std::string& text, const std::string& needle) { return CountOf(text, needle); }

// The sum of a numeric key over the rows of stats' JSON section `section`.
uint64_t SumJson(const std::string& json, const std::string& section, const std::string& key) {
  const size_t start = json.find("\"" + section + "\":[");
  if (start == std::string::npos) return 0;
  const size_t end = json.find(']', start);
  uint64_t sum = 0;
  const std::string needle = "\"" + key + "\":";
  for (size_t at = json.find(needle, start); at != std::string::npos && at < end;
       at = json.find(needle, at + 1)) {
    sum += std::stoull(json.substr(at + needle.size()));
  }
  return sum;
}

// The `count` of one row of stats' "unbalanced" section.
uint64_t Unbalanced(const std::string& json, const std::string& what) {
  const std::string needle = "{\"what\":\"" + what + "\",\"count\":";
  const size_t at = json.find(needle);
  return at == std::string::npos ? 0 : std::stoull(json.substr(at + needle.size()));
}

std::string Export(const std::string& trace, const std::string& compress = "none") {
  DumpResult r =
      RunDump({"perfetto", "--compress=" + compress, "trace.itt", "-o", "out.pftrace"}, trace);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.files["out.pftrace"];
}

// Slices: every task-like interval stats counts, those left open, frames,
// and one wait slice per sync wait. Counters: every sample, plus one heap
// live-bytes sample per heap call. `traces` are the files of one run,
// read as one (every file passed).
void ExpectCountsMatchStats(const std::map<std::string, std::string>& traces) {
  std::vector<std::string> files;
  for (const auto& [name, bytes] : traces) files.push_back(name);
  std::vector<std::string> args = {"perfetto", "--compress=none", "-o", "out.pftrace"};
  args.insert(args.end(), files.begin(), files.end());
  DumpResult r = itt_dump::testing::RunDump(args, traces);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = Decode(r.files["out.pftrace"]);
  args = {"stats", "--format=json"};
  args.insert(args.end(), files.begin(), files.end());
  DumpResult stats = itt_dump::testing::RunDump(args, traces);
  ASSERT_EQ(stats.status, 0) << stats.err;
  const std::string& j = stats.out;
  const uint64_t slices = SumJson(j, "tasks", "count") + Unbalanced(j, "open_at_end") +
                          SumJson(j, "frames", "count") + Unbalanced(j, "frames_open_at_end") +
                          SumJson(j, "sync", "acquisitions") + SumJson(j, "sync", "cancels");
  EXPECT_EQ(static_cast<uint64_t>(Count(text, "type: TYPE_SLICE_BEGIN")), slices) << j;
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), Count(text, "type: TYPE_SLICE_END"));
  const uint64_t samples = SumJson(j, "counters", "samples") + SumJson(j, "heap", "allocations") +
                           SumJson(j, "heap", "reallocations") + SumJson(j, "heap", "frees");
  EXPECT_EQ(static_cast<uint64_t>(Count(text, "type: TYPE_COUNTER")), samples) << j;
}

void ExpectCountsMatchStats(const std::string& trace) {
  ExpectCountsMatchStats({{"trace.itt", trace}});
}

// A JIT method loaded without a name fails any --name filter ("*" too),
// as an item without a name does in every verb; one with a name passes.
TEST(PerfettoExport, AJitMethodWithoutANameFailsANameFilter) {
  TraceBuilder b;
  b.Thread(0, 7, "main");
  b.Events(0, {Ev(EventKind::kJitMethodLoad, 1100,
                  {{F::kMethodId, U(1)},
                   {F::kMethodName, itt_dump::testing::B("kernel")},
                   {F::kAddress, U(0x1000)},
                   {F::kSize, U(16)}}),
               Ev(EventKind::kJitMethodLoadV2, 1200,
                  {{F::kMethodId, U(2)}, {F::kAddress, U(0x2000)}, {F::kSize, U(16)}})});
  b.End(2000);
  for (const char* filter : {"--name=*", "--name="}) {
    DumpResult r =
        RunDump({"perfetto", "--compress=none", filter, "trace.itt", "-o", "o.pftrace"}, b.bytes());
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string text = Decode(r.files["o.pftrace"]);
    EXPECT_EQ(Count(text, "name: \"jit method\""), 0) << filter << "\n" << text;
    EXPECT_EQ(Count(text, "name: \"kernel\""), filter == std::string("--name=*") ? 1 : 0)
        << filter << "\n"
        << text;
  }
}

TEST(PerfettoExport, SampleTraceCountsMatchStats) { ExpectCountsMatchStats(SampleTrace()); }

TEST(PerfettoExport, SeveralProcessesEachGetTheirTracksAndCountsMatchStats) {
  const std::map<std::string, std::string> run = {
      {"a.itt", SampleTrace()}, {"b.itt", SampleTrace()}, {"c.itt", SyntheticTrace(2, 300, 64)}};
  ExpectCountsMatchStats(run);
  DumpResult r = itt_dump::testing::RunDump(
      {"perfetto", "--compress=none", "-o", "out.pftrace", "a.itt", "b.itt", "c.itt"}, run);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = Decode(r.files["out.pftrace"]);
  // One process track per file (the same pid three times: two made up),
  // and every file's threads under their own pid.
  EXPECT_EQ(Count(text, "process_name: "), 3) << text;
  EXPECT_EQ(Count(text, "pid: 4242\n"), Count(text, "pid: 4198546\n")) << text;
  EXPECT_GT(Count(text, "pid: 4198547\n"), 0) << text;
}

TEST(PerfettoExport, MultiThreadTraceCountsMatchStats) {
  ExpectCountsMatchStats(SyntheticTrace(4, 20000, 4096));
}

TEST(PerfettoExport, TracksNameTheProcessAndEveryThread) {
  const std::string text = Decode(Export(SampleTrace()));
  EXPECT_NE(text.find("process_name: \"demo\""), std::string::npos) << text;
  EXPECT_NE(text.find("pid: 4242"), std::string::npos);
  EXPECT_NE(text.find("thread_name: \"main\""), std::string::npos);
  EXPECT_NE(text.find("thread_name: \"worker\""), std::string::npos);
  // One sequence per thread, each started with cleared incremental state.
  EXPECT_EQ(Count(text, "first_packet_on_sequence: true"), Count(text, "thread_name: "));
}

// Every (sequence, interned table, name) appears once.
TEST(PerfettoExport, NamesAreInternedOncePerSequence) {
  const std::string text = Decode(Export(SyntheticTrace(3, 5000, 1024)));
  std::istringstream lines(text);
  std::string line;
  std::string sequence;
  std::string table;
  // By sequence, since its state was last cleared (each piece's sequence
  // starts again: export.cc, PieceSequenceWriter).
  std::map<std::string, std::set<std::string>> seen;
  int entries = 0;
  int clears = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("  trusted_packet_sequence_id: ", 0) == 0) sequence = line.substr(30);
    if (line == "  sequence_flags: 1") {
      seen[sequence].clear();
      ++clears;
    }
    if (line.rfind("    event_names {", 0) == 0 || line.rfind("    event_categories {", 0) == 0 ||
        line.rfind("    debug_annotation_names {", 0) == 0) {
      table = line;
    }
    if (line.rfind("      name: ", 0) == 0) {
      ++entries;
      EXPECT_TRUE(seen[sequence].insert(table + line).second) << sequence << table << line;
    }
  }
  EXPECT_GT(entries, 0);
  // The threads' sequences, and their pieces' started more than once.
  EXPECT_GT(clears, 2 * 3);
}

// Per flow id, the times (ns on the trace's axis) of the events where it
// starts (flow_ids) and ends (terminating_flow_ids) in protoc's text of a
// plain trace: each sequence's incremental clock (id 64) is set by its
// ClockSnapshots and advanced by its packets' timestamps; a packet timed
// on REALTIME (timestamp_clock_id 1) is at that time less REALTIME's at
// the sequence's clock's 0 (its first snapshot's), and moves no clock.
struct FlowEnds {
  std::vector<uint64_t> starts;
  std::vector<uint64_t> ends;
};
std::map<uint64_t, FlowEnds> FlowTimes(const std::string& text) {
  std::map<uint64_t, FlowEnds> flows;
  std::map<uint64_t, uint64_t> now;  // by sequence
  std::istringstream lines(text);
  std::string line;
  uint64_t sequence = 0;
  uint64_t delta = 0;
  bool anchored = false;
  uint64_t anchor = 0;
  bool in_clock_64 = false;
  bool in_realtime = false;
  // A snapshot's REALTIME (the packet's sequence id comes after it).
  bool has_realtime = false;
  uint64_t realtime = 0;
  bool on_realtime = false;                          // the packet's timestamp_clock_id is 1
  std::map<uint64_t, uint64_t> realtime0;            // by sequence: REALTIME at its clock's 0
  std::vector<std::pair<uint64_t, bool>> flow_refs;  // (id, starts)
  const auto value = [&line](const std::string& key) -> std::optional<uint64_t> {
    const size_t at = line.find(key);
    if (at == std::string::npos || line.find_first_not_of(' ') != at) return std::nullopt;
    return std::stoull(line.substr(at + key.size()));
  };
  while (std::getline(lines, line)) {
    if (line == "packet {") {
      sequence = delta = anchor = 0;
      anchored = in_clock_64 = in_realtime = has_realtime = on_realtime = false;
      flow_refs.clear();
    } else if (line == "}") {
      uint64_t& t = now[sequence];
      if (has_realtime) realtime0[sequence] = realtime - anchor;
      uint64_t at = 0;
      if (on_realtime) {
        at = delta - realtime0[sequence];
      } else {
        at = t = anchored ? anchor : t + delta;
      }
      for (const auto& [id, starts] : flow_refs) {
        (starts ? flows[id].starts : flows[id].ends).push_back(at);
      }
    } else if (auto v = value("timestamp_clock_id: ");
               v && line.rfind("  timestamp_clock_id", 0) == 0) {
      on_realtime = *v == 1;
    } else if (auto v = value("trusted_packet_sequence_id: ")) {
      sequence = *v;
    } else if (line.rfind("  timestamp: ", 0) == 0) {
      delta = *value("timestamp: ");
    } else if (auto v = value("clock_id: ")) {
      in_clock_64 = *v == 64;
      in_realtime = *v == 1;
    } else if (in_clock_64 && line.rfind("      timestamp: ", 0) == 0) {
      anchored = true;
      anchor = *value("timestamp: ");
      in_clock_64 = false;
    } else if (in_realtime && line.rfind("      timestamp: ", 0) == 0) {
      has_realtime = true;
      realtime = *value("timestamp: ");
      in_realtime = false;
    } else if (auto v = value("terminating_flow_ids: ")) {
      flow_refs.emplace_back(*v, false);
    } else if (auto v = value("flow_ids: ")) {
      flow_refs.emplace_back(*v, true);
    }
  }
  return flows;
}

// A relation whose tail task begins later, and one whose tail began
// earlier: both become flows with both ends, each running forward in
// time (the trace processor drops an end it reads before its start).
TEST(PerfettoExport, RelationsBecomeFlowsWithBothEnds) {
  TraceBuilder b;
  b.String(1, "head").String(2, "tail").String(3, "early").Domain(1, "d");
  b.Thread(0, 11, "a").Thread(1, 12, "b");
  b.Events(0,
           {Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(3)}, {F::kId, I(7)}}),
            Ev(EventKind::kTaskEnd, 1150, {{F::kDomain, U(1)}}),
            Ev(EventKind::kTaskBegin, 1200, {{F::kDomain, U(1)}, {F::kName, U(1)}, {F::kId, I(5)}}),
            Ev(EventKind::kRelationAdd, 1300,
               {{F::kDomain, U(1)}, {F::kHead, I(5)}, {F::kRelation, U(1)}, {F::kTail, I(6)}}),
            Ev(EventKind::kRelationAdd, 1310,
               {{F::kDomain, U(1)}, {F::kHead, I(5)}, {F::kRelation, U(1)}, {F::kTail, I(7)}}),
            Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
  b.Events(1,
           {Ev(EventKind::kTaskBegin, 1500, {{F::kDomain, U(1)}, {F::kName, U(2)}, {F::kId, I(6)}}),
            Ev(EventKind::kTaskEnd, 1600, {{F::kDomain, U(1)}})});
  b.End(2000);
  const std::string text = Decode(Export(b.bytes()));
  EXPECT_EQ(Count(text, " flow_ids: 1\n"), 1) << text;
  EXPECT_EQ(Count(text, "terminating_flow_ids: 1\n"), 1);
  EXPECT_EQ(Count(text, " flow_ids: 2\n"), 1);
  EXPECT_EQ(Count(text, "terminating_flow_ids: 2\n"), 1);
  // The second flow starts in the past (the "early" task's begin): that
  // packet is timed on REALTIME, and no clock is anchored again (one
  // snapshot per thread's sequence).
  EXPECT_EQ(Count(text, "clock_snapshot {"), 2);
  EXPECT_EQ(Count(text, "timestamp_clock_id: 1\n"), 1) << text;
  // Times since the trace's start (1000 ticks, 1 ns each): flow 1 from the
  // relation at 1300 to the tail's begin at 1500, flow 2 from the early
  // task's begin at 1100 to its relation at 1310.
  const std::map<uint64_t, FlowEnds> flows = FlowTimes(text);
  ASSERT_EQ(flows.size(), 2u) << text;
  EXPECT_EQ(flows.at(1).starts, std::vector<uint64_t>{300});
  EXPECT_EQ(flows.at(1).ends, std::vector<uint64_t>{500});
  EXPECT_EQ(flows.at(2).starts, std::vector<uint64_t>{100}) << text;
  EXPECT_EQ(flows.at(2).ends, std::vector<uint64_t>{310});
}

// Metadata values keep their types: reals as doubles (2.0 too), integers
// past INT64_MAX as unsigned, and a scoped metadata's value as typed as a
// task's.
TEST(PerfettoExport, MetadataValuesAreAnnotationsOfTheirTypes) {
  const std::string text = Decode(Export(itt_dump::testing::MetadataTypesTrace()));
  EXPECT_EQ(Count(text, "double_value: 2\n"), 1) << text;
  EXPECT_EQ(Count(text, "double_value: 2.5\n"), 1);
  EXPECT_EQ(Count(text, "double_value: 4\n"), 1);
  EXPECT_EQ(Count(text, "uint_value: 18446744073709551615\n"), 1);
  EXPECT_EQ(Count(text, "uint_value: 9223372036854775808\n"), 1);
  EXPECT_EQ(Count(text, "int_value: -3\n"), 1);
  EXPECT_EQ(Count(text, "double_value: 8\n"), 1);  // the global-scope metadata
  EXPECT_EQ(Count(text, "string_value: "), 0);
}

TEST(PerfettoExport, ALaunchersProcessIsNamedByItsRank) {
  format::FileHeader h = itt_dump::testing::TestHeader();
  h.flags |= format::kHeaderFlagHasRank;
  h.rank = 3;
  TraceBuilder b(h);
  b.Thread(0, 11, "main");
  b.End(2000);
  const std::string text = Decode(Export(b.bytes()));
  EXPECT_NE(text.find("process_name: \"rank 3 (testhost) demo\""), std::string::npos) << text;
  EXPECT_NE(text.find("process_labels: \"rank=3\""), std::string::npos) << text;
}

// A sync wait is a slice on the thread's "waits" track, from sync_prepare
// to what closes it: its begin names the object's address, its end whether
// the wait acquired it (false for a sync_cancel).
TEST(PerfettoExport, SyncWaitsSayWhatTheyWaitedForAndHowTheyEnded) {
  TraceBuilder b(itt_dump::testing::TestHeader());
  b.String(1, "queue_lock").String(2, "std::mutex");
  b.Thread(0, 11, "main");
  b.Events(0, {
                  Ev(EventKind::kSyncCreate, 1000,
                     {{F::kAddr, U(0x1000)},
                      {F::kObjtype, U(2)},
                      {F::kObjname, U(1)},
                      {F::kAttribute, U(0)}}),
                  Ev(EventKind::kSyncPrepare, 1100, {{F::kAddr, U(0x1000)}}),
                  Ev(EventKind::kSyncAcquired, 1200, {{F::kAddr, U(0x1000)}}),
                  Ev(EventKind::kSyncReleasing, 1300, {{F::kAddr, U(0x1000)}}),
                  Ev(EventKind::kSyncPrepare, 1400, {{F::kAddr, U(0x1000)}}),
                  Ev(EventKind::kSyncCancel, 1500, {{F::kAddr, U(0x1000)}}),
              });
  b.End(2000);
  const std::string text = Decode(Export(b.bytes()));
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), 2) << text;
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_END"), 2) << text;
  EXPECT_EQ(Count(text, "name: \"queue_lock\""), 1) << text;  // interned once
  EXPECT_EQ(Count(text, "pointer_value: 4096"), 2) << text;
  EXPECT_EQ(Count(text, "bool_value: true"), 1) << text;
  EXPECT_EQ(Count(text, "bool_value: false"), 1) << text;
}

// A wait is the model's, as stats and parquet count it (review helper 50):
// from the latest of repeated prepares, and named (and kept by --name) as
// its object is when the wait ends.
TEST(PerfettoExport, AWaitRunsFromItsLatestPrepareAndTakesItsNameAtItsEnd) {
  TraceBuilder b(itt_dump::testing::TestHeader());
  b.String(1, "late").String(2, "std::mutex");
  b.Thread(0, 11, "main").Thread(1, 12, "other");
  b.Events(0, {Ev(EventKind::kSyncPrepare, 1100, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kSyncPrepare, 1150, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kSyncAcquired, 1200, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kSyncPrepare, 1400, {{F::kAddr, U(0x2000)}})});
  b.Events(1, {Ev(EventKind::kSyncCreate, 1450,
                  {{F::kAddr, U(0x2000)},
                   {F::kObjtype, U(2)},
                   {F::kObjname, U(1)},
                   {F::kAttribute, U(0)}})});
  b.Events(0, {Ev(EventKind::kSyncAcquired, 1500, {{F::kAddr, U(0x2000)}})});
  b.End(2000);
  const std::string text = Decode(Export(b.bytes()));
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), 2) << text;
  EXPECT_EQ(Count(text, "bool_value: true"), 2) << text;  // both acquired
  EXPECT_EQ(Count(text, "name: \"late\""), 1) << text;
  // The first wait's 50 ns: its end's delta from its begin's time.
  const size_t first_end = text.find("type: TYPE_SLICE_END");
  ASSERT_NE(first_end, std::string::npos);
  EXPECT_NE(text.rfind("timestamp: 50\n", first_end), std::string::npos) << text;
  DumpResult r = RunDump(
      {"perfetto", "--compress=none", "--name=late", "trace.itt", "-o", "out.pftrace"}, b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string late = Decode(r.files["out.pftrace"]);
  EXPECT_EQ(Count(late, "type: TYPE_SLICE_BEGIN"), 1) << late;
  EXPECT_EQ(Count(late, "name: \"late\""), 1) << late;
}

// A wait no sync_acquired or sync_cancel closed ends at the end of the
// trace, as an interval still open does, and says so (open_at_end).
TEST(PerfettoExport, AWaitOpenAtTheEndEndsThere) {
  TraceBuilder b(itt_dump::testing::TestHeader());
  b.Thread(0, 11, "main");
  b.Events(0, {Ev(EventKind::kSyncPrepare, 1100, {{F::kAddr, U(0x1000)}}),
               Ev(EventKind::kSyncPrepare, 1200, {{F::kAddr, U(0x2000)}}),
               Ev(EventKind::kSyncAcquired, 1300, {{F::kAddr, U(0x2000)}})});
  b.End(2000);
  const std::string text = Decode(Export(b.bytes()));
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), 2) << text;
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_END"), 2) << text;
  EXPECT_EQ(Count(text, "name: \"open_at_end\""), 1) << text;
  // The trace's end, 1000 ns after its start: the last delta of the
  // thread's incremental clock runs from the acquire (300) to it.
  const size_t open_end = text.rfind("type: TYPE_SLICE_END");
  ASSERT_NE(open_end, std::string::npos);
  EXPECT_NE(text.rfind("timestamp: 700", open_end), std::string::npos) << text;
}

// Two frames a thread submits, the second beginning before the first
// ends: each on a lane track of its own (one track's slices must nest, and
// these overlap), though the first was written and its lane released before
// the second came.
TEST(PerfettoExport, OverlappingSubmittedFramesGoOnTwoLanes) {
  TraceBuilder b(itt_dump::testing::TestHeader());
  b.Domain(1, "gpu");
  b.Thread(0, 11, "main");
  b.Events(0, {Ev(EventKind::kFrameSubmit, 3000,
                  {{F::kDomain, U(1)},
                   {F::kBegin, itt_dump::testing::T(1000)},
                   {F::kEnd, itt_dump::testing::T(3000)}}),
               Ev(EventKind::kFrameSubmit, 4000,
                  {{F::kDomain, U(1)},
                   {F::kBegin, itt_dump::testing::T(2000)},
                   {F::kEnd, itt_dump::testing::T(4000)}}),
               Ev(EventKind::kFrameSubmit, 5000,
                  {{F::kDomain, U(1)},
                   {F::kBegin, itt_dump::testing::T(4000)},
                   {F::kEnd, itt_dump::testing::T(5000)}})});
  b.End(6000);
  const std::string text = Decode(Export(b.bytes()));
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), 3) << text;
  // Two lanes: the third frame, after both, takes the first again.
  EXPECT_EQ(Count(text, "name: \"frames gpu\""), 2) << text;
}

// A heap function's live bytes follow every call, the filters keeping
// samples only: with --name=my_malloc, the frees by my_free of my_malloc's
// blocks bring its track down (4 samples: 1000, 2000, 1000, 0), and
// --thread keeps the samples of the other thread's frees out.
TEST(PerfettoExport, HeapLiveBytesFollowEveryCallUnderFilters) {
  TraceBuilder b(itt_dump::testing::TestHeader());
  b.Domain(1, "mem").HeapFunction(1, "my_malloc", "mem").HeapFunction(2, "my_free", "mem");
  b.Thread(0, 11, "main").Thread(1, 12, "other");
  b.Events(0, {Ev(EventKind::kHeapAllocateEnd, 1100,
                  {{F::kFunction, U(1)}, {F::kAddr, U(0x1000)}, {F::kSize, U(1000)}}),
               Ev(EventKind::kHeapAllocateEnd, 1200,
                  {{F::kFunction, U(1)}, {F::kAddr, U(0x2000)}, {F::kSize, U(1000)}}),
               Ev(EventKind::kHeapFreeEnd, 3000, {{F::kFunction, U(2)}, {F::kAddr, U(0x1000)}})});
  b.Events(1, {Ev(EventKind::kHeapFreeEnd, 3100, {{F::kFunction, U(2)}, {F::kAddr, U(0x2000)}})});
  b.End(4000);
  DumpResult r =
      RunDump({"perfetto", "--compress=none", "--name=my_malloc", "trace.itt", "-o", "out.pftrace"},
              b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  std::string text = Decode(r.files["out.pftrace"]);
  EXPECT_EQ(Count(text, "type: TYPE_COUNTER"), 4) << text;
  EXPECT_EQ(Count(text, "name: \"my_free live bytes\""), 0) << text;
  EXPECT_EQ(Count(text, "counter_value: 0"), 1) << text;
  r = RunDump({"perfetto", "--compress=none", "--thread=main", "trace.itt", "-o", "out.pftrace"},
              b.bytes());
  ASSERT_EQ(r.status, 0) << r.err;
  text = Decode(r.files["out.pftrace"]);
  // main's: my_malloc 1000, 2000, 1000 and my_free 0; not other's free.
  EXPECT_EQ(Count(text, "type: TYPE_COUNTER"), 4) << text;
}

// A counter's integer values go out as integers, within the 64-bit range
// the export gives them (up to 9.2e18 in size), those past 2^53 (which a
// double does not hold) included; fractions and larger values as doubles.
TEST(PerfettoExport, CounterValuesAreIntegersWhereTheyAreOne) {
  TraceBuilder b(itt_dump::testing::TestHeader());
  b.Counter(1, "ticks", "app", 1, format::MetadataType::kU64)
      .Counter(2, "delta", "app", 1, format::MetadataType::kS64)
      .Counter(3, "ratio", "app", 1, format::MetadataType::kDouble);
  b.Thread(0, 11, "main");
  std::vector<format::Event> events;
  uint64_t t = 1000;
  const auto set = [&](uint64_t counter, format::MetadataType type,
                       itt_dump::testing::TypedValue value) {
    events.push_back(Ev(EventKind::kCounterSetValue, t += 100,
                        {{F::kCounter, U(counter)},
                         {F::kType, U(static_cast<uint64_t>(type))},
                         {F::kValue, value}}));
  };
  set(1, format::MetadataType::kU64, U(42));
  set(1, format::MetadataType::kU64, U((uint64_t{1} << 60) + 1));         // no double holds it
  set(1, format::MetadataType::kU64, U(uint64_t{9210000000000000000u}));  // past 9.2e18
  set(2, format::MetadataType::kS64, U(static_cast<uint64_t>(int64_t{-7})));
  set(3, format::MetadataType::kDouble, itt_dump::testing::D(2.5));
  set(3, format::MetadataType::kDouble, itt_dump::testing::D(-4.0));
  b.Events(0, events);
  b.End(3000);
  const std::string text = Decode(Export(b.bytes()));
  EXPECT_EQ(Count(text, " counter_value: 42\n"), 1) << text;
  EXPECT_EQ(Count(text, " counter_value: 1152921504606846977\n"), 1) << text;
  EXPECT_EQ(Count(text, "double_counter_value: 9.21e+18\n"), 1) << text;
  EXPECT_EQ(Count(text, " counter_value: -7\n"), 1) << text;
  EXPECT_EQ(Count(text, "double_counter_value: 2.5\n"), 1) << text;
  EXPECT_EQ(Count(text, "double_counter_value:"), 2) << text;
  EXPECT_EQ(Count(text, " counter_value: -4\n"), 1) << text;
}

TEST(PerfettoExport, MetadataBecomesAnnotationsOfItsTask) {
  const std::string text = Decode(Export(SampleTrace()));
  EXPECT_NE(text.find("debug_annotations {"), std::string::npos) << text;
}

// A zstd frame of the plain packets: the compressed output holds exactly
// the packets the uncompressed one has.
std::string Expand(const std::string& trace) {
  std::string plain;
  // TracePacket.zstd_compressed_packets
  for (std::string_view block : CompressedBlocks(trace, 133)) {
    const unsigned long long size = ZSTD_getFrameContentSize(block.data(), block.size());
    EXPECT_NE(size, ZSTD_CONTENTSIZE_ERROR);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) break;
    std::string out(size, '\0');
    EXPECT_EQ(ZSTD_decompress(&out[0], out.size(), block.data(), block.size()), size);
    plain += out;
  }
  return plain;
}

TEST(PerfettoExport, ZstdBlocksHoldThePlainPackets) {
  const std::string trace = SyntheticTrace(2, 100000, 4096);
  const std::string zstd = Export(trace, "zstd");
  const std::string plain = Export(trace, "none");
  EXPECT_LT(zstd.size() * 5, plain.size());
  EXPECT_EQ(Expand(zstd), plain);
}

TEST(PerfettoExport, NeedsAnOutput) {
  DumpResult r = RunDump({"perfetto", "trace.itt"}, SampleTrace());
  EXPECT_EQ(r.status, 64);
  EXPECT_NE(r.err.find("needs -o"), std::string::npos) << r.err;
}

TEST(PerfettoExport, ADamagedTraceStillExportsWhatIsIntact) {
  std::string trace = SyntheticTrace(2, 50000, 4096);
  trace[trace.size() / 2] ^= 0x55;
  DumpResult r = RunDump({"perfetto", "--compress=none", "trace.itt", "-o", "out.pftrace"}, trace);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("corrupt"), std::string::npos) << r.err;
  const std::string text = Decode(r.files["out.pftrace"]);
  EXPECT_GT(Count(text, "type: TYPE_SLICE_BEGIN"), 1000);
}

// chrome points to this verb once its JSON passes 500 MB (about 45 bytes
// per event: 12 M events), and says nothing for smaller output.
TEST(PerfettoExport, ChromePointsHereOncePastHalfAGigabyte) {
  const std::string big = SyntheticTrace(4, 3000000, 65536);
  DumpResult r = RunDump({"chrome", "trace.itt"}, big, /*output_limit=*/1 << 20);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Count(r.err, "passed 500 MB"), 1) << r.err;
  EXPECT_NE(r.err.find("itt-dump perfetto"), std::string::npos) << r.err;
  DumpResult small = RunDump({"chrome", "trace.itt"}, SampleTrace());
  EXPECT_EQ(small.err.find("passed 500 MB"), std::string::npos) << small.err;
}

}  // namespace
}  // namespace ittc::testing
