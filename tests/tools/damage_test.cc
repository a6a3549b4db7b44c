// Damaged, truncated, empty and foreign files: verify's documented exit
// statuses (0 clean, 1 truncated, 2 corrupt, 3 not a trace, 4 unreadable),
// one clear stderr line naming the file for the other verbs, and no crash
// on any of them with any verb.

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/crc32c.h"
#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

using format::EventKind;

const std::vector<std::vector<std::string>>& AllVerbs() {
  static const std::vector<std::vector<std::string>> kVerbs = {
      {"info", "trace.itt"},
      {"text", "trace.itt"},
      {"text", "--wall", "--name=*o*", "--from=100", "trace.itt"},
      {"stats", "trace.itt"},
      {"stats", "--format=json", "--per-thread", "trace.itt"},
      {"stats", "--format=csv", "--domain=app", "trace.itt"},
      {"chrome", "trace.itt", "-o", "out.json"},
      {"vtune-csv", "trace.itt", "-o", "dir"},
      {"verify", "trace.itt"},
  };
  return kVerbs;
}

int Verify(const std::string& trace, std::string* out = nullptr) {
  DumpResult r = RunDump({"verify", "trace.itt"}, trace);
  if (out != nullptr) *out = r.out;
  return r.status;
}

// A trace with the end chunk but one events chunk's payload byte flipped.
std::string FlipInChunk(const std::string& trace, size_t chunk_start) {
  std::string t = trace;
  t[chunk_start + 40] ^= 0x55;
  return t;
}

TEST(Verify, CleanTraceIsZero) { EXPECT_EQ(Verify(SampleTrace()), 0); }

TEST(Verify, TruncatedTailIsOne) {
  const std::string t = SampleTrace();
  std::string out;
  EXPECT_EQ(Verify(t.substr(0, t.size() - 5), &out), 1);
  EXPECT_NE(out.find(": truncated, "), std::string::npos) << out;
  EXPECT_NE(out.find("trace.itt: truncated ("), std::string::npos) << out;
}

TEST(Verify, ZeroFilledTailIsOne) { EXPECT_EQ(Verify(SampleTrace() + std::string(4096, '\0')), 1); }

TEST(Verify, MissingEndRecordIsOne) {
  TraceBuilder b;
  b.Thread(0, 1, "t").SyncAt(1000);
  std::string out;
  EXPECT_EQ(Verify(b.bytes(), &out), 1);
  EXPECT_NE(out.find("no end record"), std::string::npos) << out;
}

TEST(Verify, FlippedByteIsTwoWithOffset) {
  TraceBuilder b;
  b.String(1, "x").Domain(1, "d").Thread(0, 1, "t");
  const size_t chunk = b.size();
  std::vector<format::Event> events;
  for (int i = 0; i < 200; ++i) {
    events.push_back(
        Ev(EventKind::kTaskBegin, 1000 + 2 * i, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
    events.push_back(Ev(EventKind::kTaskEnd, 1001 + 2 * i, {{F::kDomain, U(1)}}));
  }
  b.Events(0, events).End(2000);
  std::string out;
  EXPECT_EQ(Verify(FlipInChunk(b.bytes(), chunk), &out), 2);
  EXPECT_NE(out.find("offset " + std::to_string(chunk) + ": corrupt"), std::string::npos) << out;
  EXPECT_NE(out.find("trace.itt: corrupt ("), std::string::npos) << out;
}

TEST(Verify, MalformedPayloadWithGoodChecksumIsTwo) {
  TraceBuilder b;
  b.Thread(0, 1, "t");
  // A valid payload cut short by one byte, framed with a good checksum.
  format::EventStreamEncoder enc;
  enc.Reset(0, 1000);
  enc.Append(
      Ev(EventKind::kTaskBegin, 1000, {{F::kDomain, U(1)}, {F::kId, I(300)}, {F::kName, U(1)}}));
  std::string payload(enc.payload());
  payload.pop_back();
  b.Raw(format::FrameChunkForTest(1, enc.chunk_flags(), 1, payload,
                                  static_cast<uint32_t>(payload.size())));
  std::string out;
  EXPECT_EQ(Verify(b.bytes(), &out), 2);
  EXPECT_NE(out.find("events chunk of thread 0"), std::string::npos) << out;
}

TEST(Verify, MissingChunkIsTwo) {
  TraceBuilder b;
  b.Thread(0, 1, "t");
  b.Raw(format::FrameChunkForTest(3, 0, 5, "", 0));  // sequence 1..4 missing
  std::string out;
  EXPECT_EQ(Verify(b.bytes(), &out), 2);
  EXPECT_NE(out.find("missing"), std::string::npos) << out;
}

TEST(Verify, EmptyFileIsNotATrace) {
  std::string out;
  EXPECT_EQ(Verify("", &out), 3);
  EXPECT_EQ(out, "trace.itt: not a trace: empty file, not a trace\n");
}

TEST(Verify, ForeignFileIsNotATrace) {
  EXPECT_EQ(Verify("#!/bin/sh\necho hello\n"), 3);
  EXPECT_EQ(Verify(std::string(100, '\0')), 3);
}

TEST(Verify, TruncatedHeaderIsOne) {
  const std::string t = SampleTrace();
  EXPECT_EQ(Verify(t.substr(0, 3)), 1);
  EXPECT_EQ(Verify(t.substr(0, 30)), 1);
}

TEST(Verify, CorruptHeaderIsTwo) {
  std::string t = SampleTrace();
  t[70] ^= 1;  // inside the header's strings: the header CRC fails
  EXPECT_EQ(Verify(t), 2);
}

TEST(Verify, UnsupportedMajorVersionIsFour) {
  std::string t = SampleTrace();
  size_t size = static_cast<unsigned char>(t[12]) | static_cast<unsigned char>(t[13]) << 8;
  t[8] = 9;  // major version 9, CRC recomputed
  const uint32_t crc = format::crc32c::Value(t.data(), size - 4);
  for (int i = 0; i < 4; ++i) t[size - 4 + i] = static_cast<char>(crc >> (8 * i));
  std::string out;
  EXPECT_EQ(Verify(t, &out), 4);
  EXPECT_NE(out.find("version"), std::string::npos) << out;
}

TEST(Verify, MissingFileIsFour) {
  DumpResult r = RunDump({"verify", "missing.itt"}, "");
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.err.find("itt-dump: missing.itt: "), std::string::npos) << r.err;
}

// A file that cannot be opened among others is named once in its line.
TEST(OtherVerbs, AMissingFileAmongOthersIsNamedOnce) {
  for (const char* verb : {"stats", "verify", "info"}) {
    DumpResult r = RunDump({verb, "missing.itt", "trace.itt"}, {{"trace.itt", SampleTrace()}});
    EXPECT_EQ(r.status, 4) << verb;
    const std::string all = r.out + r.err;
    EXPECT_NE(all.find("missing.itt: No such file or directory"), std::string::npos) << verb << "\n"
                                                                                     << all;
    EXPECT_EQ(all.find("missing.itt: missing.itt"), std::string::npos) << verb << "\n" << all;
  }
}

TEST(OtherVerbs, UnreadableFilesGiveOneErrorLineAndVerifysStatus) {
  struct Case {
    std::string bytes;
    int status;
  };
  const std::string t = SampleTrace();
  const std::vector<Case> cases = {{"", 3}, {"GIF89a not a trace", 3}, {t.substr(0, 20), 1}};
  for (const Case& c : cases) {
    for (const auto& args : AllVerbs()) {
      DumpResult r = RunDump(args, c.bytes);
      EXPECT_EQ(r.status, c.status) << args[0];
      // Exactly one line, naming the file.
      EXPECT_EQ(r.err.rfind("itt-dump: trace.itt: ", 0), 0u) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
}

// A directory without traces among the arguments is reported and left out,
// as a file that cannot be read is: every other trace is read as without
// it, and the exit status is 4.
TEST(OtherVerbs, ADirectoryWithoutTracesDoesNotStopTheOthers) {
  const std::string empty = TestTempPath("no_traces_here");
  std::filesystem::remove_all(empty);
  std::filesystem::create_directories(empty);
  const std::map<std::string, std::string> traces = {{"trace.itt", SampleTrace()}};
  for (const auto& args : AllVerbs()) {
    const DumpResult alone = RunDump(args, traces);
    ASSERT_EQ(alone.status, 0) << args[0] << ": " << alone.err;
    std::vector<std::string> with = args;
    with.insert(std::find(with.begin(), with.end(), "trace.itt"), empty);
    const DumpResult r = RunDump(with, traces);
    EXPECT_EQ(r.status, 4) << args[0];
    EXPECT_EQ(r.err, "itt-dump: " + empty + ": no .itt files in the directory\n" + alone.err)
        << args[0];
    EXPECT_EQ(r.out, alone.out) << args[0];
    EXPECT_EQ(r.files, alone.files) << args[0];
  }
  // With no other argument, nothing is read.
  const DumpResult only = RunDump({"stats", empty}, traces);
  EXPECT_EQ(only.status, 4);
  EXPECT_EQ(only.out, "");
}

// An events chunk whose first events decode and a later one does not (a
// good checksum): the verbs' index pass decodes only the first event, their
// own pass loses the rest of the chunk and says where, once, on every core
// and on one alike; also when a gap in the sequence is reported at the
// same offset (the chunk after it). stats lists it in its damage section,
// and info counts its bytes as corrupt.
TEST(OtherVerbs, AnEventMalformedPartWayThroughAChunkIsReported) {
  for (const bool after_gap : {false, true}) {
    SCOPED_TRACE(after_gap ? "after a gap" : "no gap");
    TraceBuilder b;
    b.Thread(0, 1, "t");  // (chunk 0: the events chunk is 1, or 3 after a gap)
    format::EventStreamEncoder enc;
    enc.Reset(0, 1000);
    enc.Append(Ev(EventKind::kTaskBegin, 1000, {{F::kDomain, U(1)}, {F::kName, U(1)}}));
    enc.Append(Ev(EventKind::kTaskEnd, 1100, {{F::kDomain, U(1)}}));
    enc.Append(
        Ev(EventKind::kTaskBegin, 1200, {{F::kDomain, U(1)}, {F::kId, I(300)}, {F::kName, U(1)}}));
    std::string payload(enc.payload());
    payload.pop_back();
    const size_t chunk_offset = b.bytes().size();
    b.Raw(format::FrameChunkForTest(1, enc.chunk_flags(), after_gap ? 3 : 1, payload,
                                    static_cast<uint32_t>(payload.size())));
    const size_t chunk_bytes = b.bytes().size() - chunk_offset;
    const std::string where = absl::StrCat("itt-dump: trace.itt: corrupt at offset ", chunk_offset,
                                           " (", chunk_bytes, " bytes): ");
    const std::vector<std::vector<std::string>> verbs = {
        {"text", "trace.itt"},
        {"stats", "trace.itt"},
        {"leaks", "trace.itt"},
        {"chrome", "trace.itt", "-o", "out.json"},
        {"vtune-csv", "trace.itt", "-o", "dir"},
        {"perfetto", "trace.itt", "-o", "out.pftrace"},
        {"parquet", "trace.itt", "-o", "pq"},
        {"diff", "trace.itt", "trace.itt"}};
    for (const std::vector<std::string>& args : verbs) {
      for (const bool one_core : {false, true}) {
        SCOPED_TRACE(args[0] + (one_core ? " on one core" : ""));
        const DumpResult r =
            one_core ? RunDumpOnOneCore(args, b.bytes()) : RunDump(args, b.bytes());
        EXPECT_EQ(r.status, 0) << r.err;
        const size_t at = r.err.find(where);
        ASSERT_NE(at, std::string::npos) << r.err;
        EXPECT_NE(r.err.find("events chunk of thread 0: ", at), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("(the rest of the chunk is lost)", at), std::string::npos) << r.err;
        // Once (diff: once per side).
        EXPECT_EQ(r.err.find(where, at + 1) == std::string::npos, args[0] != "diff") << r.err;
      }
    }
    const DumpResult stats = RunDump({"stats", "--format=json", "trace.itt"}, b.bytes());
    EXPECT_NE(stats.out.find(absl::StrCat("{\"kind\":\"corrupt\",\"offset\":", chunk_offset,
                                          ",\"bytes\":", chunk_bytes,
                                          ",\"reason\":\"events chunk of thread 0: ")),
              std::string::npos)
        << stats.out;
    const DumpResult info = RunDump({"info", "trace.itt"}, b.bytes());
    EXPECT_NE(info.out.find(
                  absl::StrCat(after_gap ? 2 : 1, " problems, ", chunk_bytes, " corrupt bytes")),
              std::string::npos)
        << info.out;
  }
}

// Events lost with a chunk (here one removed: a gap in the sequence) are
// not spliced over: every thread whose events resume after the gap is cut
// where they resume (whose chunk was lost is unknown). The tasks open on
// it then end there, left open, and an end after it closes none of them
// (an end without a begin), where pairing across the gap would have given
// `a` a duration of 600 ns that it never had. The same on every core, on
// one, and in stretches; a thread's chunk whose events stop decoding
// part-way cuts that thread alone, at its next chunk.
TEST(OtherVerbs, PairingDoesNotReachAcrossLostEvents) {
  const auto task = [](uint64_t t, uint64_t name) {
    return Ev(EventKind::kTaskBegin, t, {{F::kDomain, U(1)}, {F::kName, U(name)}});
  };
  const auto end = [](uint64_t t) { return Ev(EventKind::kTaskEnd, t, {{F::kDomain, U(1)}}); };
  TraceBuilder b;
  b.String(1, "outer").String(2, "a").String(3, "b").String(4, "w").String(5, "x");
  b.Domain(1, "d").Thread(0, 101, "main").Thread(1, 102, "other");
  b.Events(0, {task(1100, 1), task(1200, 2)});
  b.Events(1, {task(1250, 4)});
  const size_t lost_from = b.bytes().size();
  b.Events(0, {end(1300), end(1400), task(1500, 5)});
  const size_t lost_to = b.bytes().size();
  b.Events(0, {task(1600, 3), end(1700), end(1800)});
  b.Events(1, {end(1650)});
  b.End(2000);
  std::string trace = b.bytes();
  trace.erase(lost_from, lost_to - lost_from);

  const DumpResult stats = RunDump({"stats", "--format=csv", "trace.itt"}, trace);
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("\ntasks,d,b,task,1,100,100,"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("\nunbalanced,end_without_begin,2\n"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("\nunbalanced,left_open_at_loss,3\n"), std::string::npos) << stats.out;
  // (Intervals left open count as unbalanced, not in the rows.)
  EXPECT_EQ(stats.out.find(",a,task,"), std::string::npos) << stats.out;
  EXPECT_EQ(stats.out.find("open_at_end"), std::string::npos) << stats.out;
  EXPECT_EQ(RunDumpOnOneCore({"stats", "--format=csv", "trace.itt"}, trace).out, stats.out);
  EXPECT_EQ(RunDumpInStretches({"stats", "--format=csv", "trace.itt"}, trace, 1).out, stats.out);
  const std::vector<std::vector<std::string>> verbs = {
      {"text", "trace.itt"},
      {"chrome", "trace.itt", "-o", "out.json"},
      {"perfetto", "trace.itt", "-o", "out.pftrace"},
      {"parquet", "trace.itt", "-o", "pq"},
      {"vtune-csv", "trace.itt", "-o", "dir"},
      {"leaks", "trace.itt"}};
  for (const std::vector<std::string>& args : verbs) {
    SCOPED_TRACE(args[0]);
    const DumpResult all = RunDump(args, trace);
    const DumpResult one = RunDumpOnOneCore(args, trace);
    EXPECT_EQ(all.status, 0) << all.err;
    EXPECT_EQ(all.out, one.out);
    EXPECT_EQ(all.files, one.files);
  }
  // The end at 1800 names no task: the tasks it would have closed were
  // left open at the gap.
  const DumpResult text = RunDump({"text", "trace.itt"}, trace);
  EXPECT_NE(text.out.find("\n800 101/main task_end d -\n"), std::string::npos) << text.out;

  // Thread 0's chunk stops decoding part-way, after `a` began: thread 0 is
  // cut at its next chunk, thread 1 is not (its `w` ends at 1650).
  TraceBuilder m;
  m.String(1, "outer").String(2, "a").String(3, "b").String(4, "w");
  m.Domain(1, "d").Thread(0, 101, "main").Thread(1, 102, "other");
  m.Events(1, {task(1050, 4)});
  format::EventStreamEncoder enc;
  enc.Reset(0, 1100);
  enc.Append(task(1100, 1));
  enc.Append(task(1200, 2));
  enc.Append(
      Ev(EventKind::kTaskBegin, 1300, {{F::kDomain, U(1)}, {F::kId, I(300)}, {F::kName, U(1)}}));
  std::string payload(enc.payload());
  payload.pop_back();  // the third event cut short
  m.EventsPayload(payload, enc.chunk_flags());
  m.Events(0, {task(1600, 3), end(1700), end(1800)});
  m.Events(1, {end(1650)});
  m.End(2000);
  const DumpResult mstats = RunDump({"stats", "--format=csv", "trace.itt"}, m.bytes());
  EXPECT_NE(mstats.out.find("\ntasks,d,w,task,1,600,600,"), std::string::npos) << mstats.out;
  EXPECT_NE(mstats.out.find("\nunbalanced,end_without_begin,1\n"), std::string::npos) << mstats.out;
  EXPECT_NE(mstats.out.find("\nunbalanced,left_open_at_loss,2\n"), std::string::npos) << mstats.out;
  EXPECT_EQ(RunDumpOnOneCore({"stats", "--format=csv", "trace.itt"}, m.bytes()).out, mstats.out);

  // Damaged bytes between two chunks in sequence lose no events chunk:
  // nothing is cut, `outer` pairs across them.
  TraceBuilder c;
  c.String(1, "outer").Domain(1, "d").Thread(0, 101, "main");
  c.Events(0, {task(1100, 1)});
  const size_t between = c.bytes().size();
  c.Events(0, {end(1500)});
  c.End(2000);
  std::string garbled = c.bytes();
  garbled.insert(between, std::string(64, 'x'));
  const DumpResult cstats = RunDump({"stats", "--format=csv", "trace.itt"}, garbled);
  EXPECT_NE(cstats.out.find("\ntasks,d,outer,task,1,400,400,"), std::string::npos) << cstats.out;
  EXPECT_EQ(cstats.out.find("unbalanced,"), std::string::npos) << cstats.out;
  EXPECT_NE(cstats.out.find("damage,corrupt,"), std::string::npos) << cstats.out;
}

TEST(OtherVerbs, DamagedTraceIsReportedNotFatal) {
  const std::string t = SampleTrace();
  const std::string cut = t.substr(0, t.size() - 5);
  for (const auto& args : AllVerbs()) {
    if (args[0] == "verify" || args[0] == "info") continue;
    DumpResult r = RunDump(args, cut);
    EXPECT_EQ(r.status, 0) << args[0];
    EXPECT_NE(r.err.find("itt-dump: trace.itt: truncated at offset "), std::string::npos)
        << args[0] << ": " << r.err;
  }
  DumpResult info = RunDump({"info", "trace.itt"}, cut);
  EXPECT_EQ(info.status, 0);
  EXPECT_NE(info.out.find("end       missing"), std::string::npos);
  EXPECT_NE(info.out.find("  truncated at offset "), std::string::npos);
}

TEST(OtherVerbs, EveryPrefixOfATraceIsHandled) {
  // Every verb on every prefix of the sample: no crash, a documented status.
  const std::string t = SampleTrace();
  for (size_t n = 0; n <= t.size(); n += 7) {
    for (const auto& args : AllVerbs()) {
      DumpResult r = RunDump(args, t.substr(0, n));
      EXPECT_TRUE(r.status >= 0 && r.status <= 4) << args[0] << " " << n;
    }
  }
}

TEST(OtherVerbs, EveryFlippedByteIsHandled) {
  const std::string t = SampleTrace();
  for (size_t i = 0; i < t.size(); i += 3) {
    std::string d = t;
    d[i] ^= 0xA5;
    for (const auto& args : AllVerbs()) {
      DumpResult r = RunDump(args, d);
      EXPECT_TRUE(r.status >= 0 && r.status <= 4) << args[0] << " " << i;
      if (args[0] == "verify" && i >= 64 + 40) {
        // Past the header, a flipped byte is always noticed.
        EXPECT_NE(r.status, 0) << "byte " << i;
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
