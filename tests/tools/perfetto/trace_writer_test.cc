// Tests of the Perfetto trace writer: its output decodes against the
// schema (protoc --decode with tests/tools/perfetto/perfetto_subset.proto,
// Debian's protobuf-compiler), names are interned once per sequence (a
// caller's key text asked once per sequence), the incremental clock adds up
// to the caller's times, lengths are minimal for long messages too, and the
// compressed form holds exactly the uncompressed packets, over many blocks.

#include "tools/itt_dump/perfetto/trace_writer.h"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/perfetto/perfetto_test_util.h"
#include "tools/itt_dump/output.h"

namespace ittc::itt_dump {
namespace {

using ::ittc::testing::CountOf;
using ::ittc::testing::DecodeWithProtoc;

std::string Decode(const std::string& trace, bool* ok) { return DecodeWithProtoc(trace, ok); }
int Count(const std::string& text, const std::string& needle) { return CountOf(text, needle); }

// Writes a small trace: a process, two threads, nested slices, a counter,
// an instant with annotations, a flow between the threads.
std::string WriteSample(PerfettoCompression compression, PerfettoWriterStats* stats = nullptr) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  PerfettoTraceWriter w(out.get(), compression, 1700000000000000000);
  const uint64_t proc = w.AddProcess(42, "rank 3 (host-a) app", {"rank=3"});
  const uint64_t t1 = w.AddThread(proc, 42, 42, "main");
  const uint64_t t2 = w.AddThread(proc, 42, 43, "worker");
  const uint64_t counter = w.AddCounterTrack(proc, "queue depth", CounterUnit::kCount);

  PerfettoEvent e;
  e.category = "domain.a";
  for (int i = 0; i < 3; ++i) {
    const uint64_t base = 1000 + 100 * static_cast<uint64_t>(i);
    e = PerfettoEvent();
    e.type = PerfettoEvent::Type::kSliceBegin;
    e.time_ns = base;
    e.category = "domain.a";
    e.name = "outer";
    w.Write(t1, e);
    e.name = "inner";
    e.time_ns = base + 10;
    w.Write(t1, e);
    PerfettoEvent end;
    end.type = PerfettoEvent::Type::kSliceEnd;
    end.time_ns = base + 20;
    w.Write(t1, end);
    end.time_ns = base + 30;
    const Annotation args[] = {Annotation::Uint("bytes", 4096), Annotation::String("kind", "x")};
    end.annotations = args;
    end.annotation_count = 2;
    w.Write(t1, end);
  }
  PerfettoEvent c;
  c.type = PerfettoEvent::Type::kCounter;
  c.track = counter;
  c.time_ns = 1500;
  c.int_value = -7;
  w.Write(t2, c);
  c.time_ns = 1600;
  c.is_double = true;
  c.double_value = 2.5;
  w.Write(t2, c);

  const uint64_t flow = 99;
  PerfettoEvent from;
  from.type = PerfettoEvent::Type::kInstant;
  from.time_ns = 1700;
  from.name = "send";
  from.flow_ids = &flow;
  from.flow_count = 1;
  w.Write(t1, from);
  PerfettoEvent to;
  to.type = PerfettoEvent::Type::kInstant;
  to.time_ns = 1800;
  to.name = "send";
  to.terminating_flow_ids = &flow;
  to.terminating_flow_count = 1;
  w.Write(t2, to);
  EXPECT_TRUE(w.Finish().ok());
  if (stats != nullptr) *stats = w.stats();
  return bytes;
}

TEST(PerfettoTraceWriter, OutputDecodesAgainstTheSchema) {
  bool ok = false;
  const std::string text = Decode(WriteSample(PerfettoCompression::kNone), &ok);
  ASSERT_TRUE(ok) << text;
  // protoc prints fields the subset does not name as bare numbers.
  EXPECT_EQ(Count(text, "\n  1: "), 0) << text;
  EXPECT_NE(text.find("process_name: \"rank 3 (host-a) app\""), std::string::npos) << text;
  EXPECT_NE(text.find("thread_name: \"worker\""), std::string::npos);
  EXPECT_NE(text.find("unit: UNIT_COUNT"), std::string::npos);
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), 6);
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_END"), 6);
  EXPECT_EQ(Count(text, "type: TYPE_COUNTER"), 2);
  EXPECT_EQ(Count(text, "type: TYPE_INSTANT"), 2);
  EXPECT_NE(text.find("counter_value: -7"), std::string::npos);
  EXPECT_NE(text.find("double_counter_value: 2.5"), std::string::npos);
  EXPECT_EQ(Count(text, " flow_ids: 99"), 1);
  EXPECT_EQ(Count(text, "terminating_flow_ids: 99"), 1);
  EXPECT_EQ(Count(text, "uint_value: 4096"), 3);
}

TEST(PerfettoTraceWriter, NamesAreInternedOncePerSequence) {
  bool ok = false;
  const std::string text = Decode(WriteSample(PerfettoCompression::kNone), &ok);
  ASSERT_TRUE(ok) << text;
  // "outer" and "inner" are used three times on thread 1's sequence only;
  // "send" once on each thread's sequence: one entry per sequence.
  EXPECT_EQ(Count(text, "name: \"outer\""), 1);
  EXPECT_EQ(Count(text, "name: \"inner\""), 1);
  EXPECT_EQ(Count(text, "name: \"send\""), 2);
  EXPECT_EQ(Count(text, "name: \"domain.a\""), 1);
  EXPECT_EQ(Count(text, "name: \"bytes\""), 1);
  EXPECT_EQ(Count(text, "name_iid: "), Count(text, "type: TYPE_SLICE_BEGIN") +
                                           Count(text, "type: TYPE_INSTANT") +
                                           /* annotations */ 6);
}

TEST(PerfettoTraceWriter, SequencesClearStateAndDeclareTheirClock) {
  bool ok = false;
  const std::string text = Decode(WriteSample(PerfettoCompression::kNone), &ok);
  ASSERT_TRUE(ok) << text;
  EXPECT_EQ(Count(text, "first_packet_on_sequence: true"), 2);
  EXPECT_EQ(Count(text, "sequence_flags: 1\n"), 2);
  // Only the clears: the event packets leave SEQ_NEEDS_INCREMENTAL_STATE
  // off (two bytes each, of use only to a reader of a lossy buffer).
  EXPECT_EQ(Count(text, "sequence_flags:"), 2);
  EXPECT_EQ(Count(text, "is_incremental: true"), 2);
  EXPECT_EQ(Count(text, "timestamp_clock_id: 64"), 2);
  EXPECT_EQ(Count(text, "primary_trace_clock: 1"), 2);
  EXPECT_EQ(Count(text, "timestamp: 1700000000000000000"), 2);
}

// Sums the incremental timestamps per sequence, from the text rendering.
TEST(PerfettoTraceWriter, IncrementalTimestampsAddUpToTheCallersTimes) {
  bool ok = false;
  const std::string text = Decode(WriteSample(PerfettoCompression::kNone), &ok);
  ASSERT_TRUE(ok) << text;
  std::map<int, uint64_t> clock;              // sequence -> absolute time
  std::map<int, std::vector<uint64_t>> seen;  // sequence -> absolute times
  std::istringstream lines(text);
  std::string line;
  uint64_t pending = 0;
  bool has_pending = false;
  while (std::getline(lines, line)) {
    if (line.rfind("  timestamp: ", 0) == 0) {
      pending = std::stoull(line.substr(13));
      has_pending = true;
    } else if (line.rfind("  trusted_packet_sequence_id: ", 0) == 0 && has_pending) {
      const int seq = std::stoi(line.substr(30));
      clock[seq] += pending;
      seen[seq].push_back(clock[seq]);
      has_pending = false;
    }
  }
  ASSERT_EQ(seen.size(), 2u);
  const std::vector<uint64_t> t1 = {1000, 1010, 1020, 1030, 1100, 1110, 1120,
                                    1130, 1200, 1210, 1220, 1230, 1700};
  const std::vector<uint64_t> t2 = {1500, 1600, 1800};
  EXPECT_EQ(seen.begin()->second, t1);
  EXPECT_EQ(seen.rbegin()->second, t2);
}

// An event before its sequence's last one is timed on REALTIME, absolute,
// and the sequence's clock stays where it was: no second ClockSnapshot,
// whose REALTIME would step back (Perfetto refuses that, and drops the
// sequence's later packets).
TEST(PerfettoTraceWriter, AStepBackInTimeIsTimedOnTheTraceClock) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  PerfettoTraceWriter w(out.get(), PerfettoCompression::kNone, 5000);
  const uint64_t t = w.AddThread(w.AddProcess(1, "p", {}), 1, 1, "t");
  for (uint64_t time : {100, 50, 60, 130}) {
    PerfettoEvent e;
    e.type = PerfettoEvent::Type::kInstant;
    e.name = "i";
    e.time_ns = time;
    w.Write(t, e);
  }
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(w.stats().realtime_packets, 2u);
  bool ok = false;
  const std::string text = Decode(bytes, &ok);
  ASSERT_TRUE(ok) << text;
  // One snapshot, the sequence's first: REALTIME 5000 where its clock is 0.
  EXPECT_EQ(Count(text, "clock_snapshot"), 1) << text;
  EXPECT_NE(text.find("clock_id: 1\n      timestamp: 5000\n"), std::string::npos) << text;
  // 100 as a delta; 50 and 60 on REALTIME; 130 a delta from 100 again.
  EXPECT_EQ(Count(text, "\n  timestamp: 100\n"), 1) << text;
  EXPECT_EQ(Count(text, "\n  timestamp: 5050\n"), 1) << text;
  EXPECT_EQ(Count(text, "\n  timestamp: 5060\n"), 1) << text;
  EXPECT_EQ(Count(text, "\n  timestamp: 30\n"), 1) << text;
  EXPECT_EQ(Count(text, "timestamp_clock_id: 1\n"), 2) << text;
}

// Many new names in one packet: the interning table rehashes while the
// packet is built, and every name must still be written as it was given,
// each of the 65.
TEST(PerfettoTraceWriter, ManyNewNamesInOnePacketSurviveRehashing) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  PerfettoTraceWriter w(out.get(), PerfettoCompression::kNone, 0);
  const uint64_t t = w.AddThread(w.AddProcess(1, "p", {}), 1, 1, "t");
  std::vector<std::string> names;
  // 65: a task's 64 args (the pairing engine's most) and the exporter's
  // open_at_end all kept (at most 64 were, losing open_at_end).
  for (int i = 0; i < 65; ++i) names.push_back("annotation_name_number_" + std::to_string(i));
  std::vector<Annotation> annotations;
  for (const std::string& n : names) annotations.push_back(Annotation::Int(n, 1));
  PerfettoEvent e;
  e.type = PerfettoEvent::Type::kInstant;
  e.name = "i";
  e.annotations = annotations.data();
  e.annotation_count = annotations.size();
  w.Write(t, e);
  ASSERT_TRUE(w.Finish().ok());
  bool ok = false;
  const std::string text = Decode(bytes, &ok);
  ASSERT_TRUE(ok) << text;
  for (const std::string& n : names) EXPECT_EQ(Count(text, "\"" + n + "\""), 1) << n;
}

// Counts what the writer asks of a caller's key text.
class CountingKeyText : public PerfettoKeyText {
 public:
  std::string_view CategoryText(uint64_t key) override {
    ++category_asks;
    return key == 7 ? "domain.k" : "";
  }
  std::string_view NameText(uint64_t key) override {
    ++name_asks;
    return key == 5 ? "keyed task" : "";
  }
  int category_asks = 0;
  int name_asks = 0;
};

TEST(PerfettoTraceWriter, KeysWithoutTextAreAskedOncePerSequence) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  PerfettoTraceWriter w(out.get(), PerfettoCompression::kNone, 0);
  const uint64_t proc = w.AddProcess(1, "p", {});
  const uint64_t threads[] = {w.AddThread(proc, 1, 1, "a"), w.AddThread(proc, 1, 2, "b")};
  CountingKeyText key_text;
  uint64_t time = 0;
  for (int i = 0; i < 3; ++i) {
    for (const uint64_t t : threads) {
      PerfettoEvent e;
      e.type = PerfettoEvent::Type::kSliceBegin;
      e.time_ns = ++time;
      e.category_key = 7;
      e.name_key = 5;
      e.key_text = &key_text;
      w.Write(t, e);
      // A key whose text is empty: no name, asked again each time.
      e.name_key = 9;
      e.time_ns = ++time;
      w.Write(t, e);
    }
  }
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(key_text.category_asks, 2);
  EXPECT_EQ(key_text.name_asks, 2 + 6);
  bool ok = false;
  const std::string text = Decode(bytes, &ok);
  ASSERT_TRUE(ok) << text;
  EXPECT_EQ(Count(text, "name: \"keyed task\""), 2);
  EXPECT_EQ(Count(text, "name: \"domain.k\""), 2);
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), 12);
  EXPECT_EQ(Count(text, "name_iid: "), 6);
  EXPECT_EQ(Count(text, "category_iids: "), 12);
}

// Messages of 128 bytes and more need two- and three-byte lengths: the
// writer moves their bytes when they end; protoc must read them and find
// the same minimal sizes.
TEST(PerfettoTraceWriter, LongMessagesGetMinimalMultiByteLengths) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  PerfettoTraceWriter w(out.get(), PerfettoCompression::kNone, 0);
  const uint64_t t = w.AddThread(w.AddProcess(1, "p", {}), 1, 1, "t");
  const std::string long_name(300, 'n');
  const std::string long_value(20000, 'v');
  const Annotation args[] = {Annotation::String("long", long_value),
                             Annotation::String("short", "s")};
  PerfettoEvent e;
  e.type = PerfettoEvent::Type::kInstant;
  e.time_ns = 10;
  e.name = long_name;
  e.annotations = args;
  e.annotation_count = 2;
  w.Write(t, e);
  e.time_ns = 20;
  w.Write(t, e);
  ASSERT_TRUE(w.Finish().ok());
  bool ok = false;
  const std::string text = Decode(bytes, &ok);
  ASSERT_TRUE(ok) << text;
  EXPECT_EQ(Count(text, "name: \"" + long_name + "\""), 1);
  EXPECT_EQ(Count(text, "string_value: \"" + long_value + "\""), 2);
  EXPECT_EQ(Count(text, "string_value: \"s\""), 2);
  const std::string reencoded = ::ittc::testing::EncodeWithProtoc(text, &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(reencoded.size(), bytes.size());
}

// Inflates every compressed_packets block of `trace`.
std::string Inflate(const std::string& trace) {
  std::string plain;
  for (std::string_view block : ::ittc::testing::CompressedBlocks(trace, 50)) {
    z_stream z{};
    EXPECT_EQ(inflateInit(&z), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
    z.avail_in = static_cast<uInt>(block.size());
    char buf[1 << 16];
    int rc;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = inflate(&z, Z_NO_FLUSH);
      plain.append(buf, sizeof buf - z.avail_out);
    } while (rc == Z_OK);
    EXPECT_EQ(rc, Z_STREAM_END);
    inflateEnd(&z);
  }
  return plain;
}

TEST(PerfettoTraceWriter, CompressedBlocksHoldThePlainPackets) {
  PerfettoWriterStats stats;
  const std::string compressed = WriteSample(PerfettoCompression::kDeflate, &stats);
  const std::string plain = WriteSample(PerfettoCompression::kNone);
  EXPECT_EQ(Inflate(compressed), plain);
  EXPECT_EQ(stats.uncompressed_bytes, plain.size());
  EXPECT_EQ(stats.output_bytes, compressed.size());
  bool ok = false;
  const std::string text = Decode(compressed, &ok);
  ASSERT_TRUE(ok) << text;
  EXPECT_NE(text.find("compressed_packets: "), std::string::npos);
}

// Enough events for several blocks: the blocks, handed to the compressor
// thread buffer by buffer, inflate to exactly the plain packets, in order.
std::string WriteManyEvents(PerfettoCompression compression) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  PerfettoTraceWriter w(out.get(), compression, 0);
  const uint64_t t = w.AddThread(w.AddProcess(1, "p", {}), 1, 1, "t");
  PerfettoEvent e;
  for (uint64_t i = 0; i < 400000; ++i) {
    e.type = i % 2 == 0 ? PerfettoEvent::Type::kSliceBegin : PerfettoEvent::Type::kSliceEnd;
    e.time_ns = i * 37;
    e.name = i % 2 == 0 ? std::string_view("slice") : std::string_view();
    w.Write(t, e);
  }
  EXPECT_TRUE(w.Finish().ok());
  return bytes;
}

TEST(PerfettoTraceWriter, ManyBlocksHoldThePlainPacketsInOrder) {
  const std::string compressed = WriteManyEvents(PerfettoCompression::kDeflate);
  const std::string plain = WriteManyEvents(PerfettoCompression::kNone);
  ASSERT_GT(plain.size(), size_t{4} << 20);  // four blocks or more
  EXPECT_GE(::ittc::testing::CompressedBlocks(compressed, 50).size(), 4u);
  EXPECT_TRUE(Inflate(compressed) == plain);
}

TEST(PerfettoTraceWriter, EncodingIsAsSmallAsProtocs) {
  // protoc re-encodes the decoded text minimally (field order may differ,
  // sizes may not): equal sizes mean every length prefix is minimal.
  const std::string plain = WriteSample(PerfettoCompression::kNone);
  bool ok = false;
  const std::string text = Decode(plain, &ok);
  ASSERT_TRUE(ok) << text;
  const std::string reencoded = ::ittc::testing::EncodeWithProtoc(text, &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(reencoded.size(), plain.size());
}

// An event of heads alone with every field at its widest (10-byte varints
// for the time delta, the track and the counter value): its packet is
// written in the short form (one-byte lengths), and decodes and re-encodes
// to the same size as protoc's.
TEST(PerfettoTraceWriter, WidestShortPacketDecodesWithMinimalLengths) {
  std::string bytes;
  std::unique_ptr<Output> out = StringOutput(&bytes);
  PerfettoTraceWriter w(out.get(), PerfettoCompression::kNone, 0);
  const uint64_t proc = w.AddProcess(1, "p", {});
  const uint64_t t = w.AddThread(proc, 1, 1, "t");
  PerfettoEvent e;
  e.type = PerfettoEvent::Type::kCounter;
  e.category = "c";
  e.name = "n";
  e.category_key = 1;
  e.name_key = 1;
  e.time_ns = 1;
  w.Write(t, e);  // interns "c" and "n": a full packet
  e.category = {};
  e.name = {};
  e.time_ns = uint64_t{1} << 63;
  e.track = ~uint64_t{0};
  e.int_value = INT64_MIN;
  w.Write(t, e);  // keys known: heads alone
  ASSERT_TRUE(w.Finish().ok());
  bool ok = false;
  const std::string text = Decode(bytes, &ok);
  ASSERT_TRUE(ok) << text;
  EXPECT_EQ(Count(text, "counter_value: -9223372036854775808"), 1) << text;
  EXPECT_EQ(Count(text, "track_uuid: 18446744073709551615"), 1) << text;
  EXPECT_EQ(Count(text, "timestamp: 9223372036854775807"), 1) << text;
  const std::string reencoded = ::ittc::testing::EncodeWithProtoc(text, &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(reencoded.size(), bytes.size());
}

// WriteSliceEnd is Write() of a slice end without a PerfettoEvent: the same
// bytes on the sequence's own track, on another track, at the widest time
// and track, and after a step back in time (which anchors the clock).
TEST(PerfettoTraceWriter, WriteSliceEndWritesWhatWriteWould) {
  auto write = [](bool direct) {
    std::string bytes;
    std::unique_ptr<Output> out = StringOutput(&bytes);
    PerfettoTraceWriter w(out.get(), PerfettoCompression::kNone, 0);
    const uint64_t proc = w.AddProcess(1, "p", {});
    const uint64_t t = w.AddThread(proc, 1, 1, "t");
    const uint64_t other = w.AddTrack(proc, "lane");
    const std::pair<uint64_t, uint64_t> ends[] = {
        {t, 100}, {0, 150}, {other, 200}, {other, 50}, {~uint64_t{0}, uint64_t{1} << 63}};
    for (const auto& [track, time] : ends) {
      if (direct) {
        w.WriteSliceEnd(t, track, time);
      } else {
        PerfettoEvent e;
        e.type = PerfettoEvent::Type::kSliceEnd;
        e.track = track;
        e.time_ns = time;
        w.Write(t, e);
      }
    }
    EXPECT_TRUE(w.Finish().ok());
    return bytes;
  };
  const std::string direct = write(true);
  EXPECT_EQ(direct, write(false));
  bool ok = false;
  const std::string text = Decode(direct, &ok);
  ASSERT_TRUE(ok) << text;
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_END"), 5) << text;
}

// TryWriteKeyedSliceBegin writes what Write() would for a begin whose keys
// are interned on the sequence, and declines (writing nothing) a new key,
// a missing key and a step back in time, which Write() then handles.
TEST(PerfettoTraceWriter, KeyedSliceBeginWritesWhatWriteWould) {
  struct Begin {
    uint64_t track, time, category_key, name_key;
  };
  const Begin begins[] = {
      {0, 100, 1, 1}, {0, 110, 1, 1}, {0, 120, 1, 2}, {0, 130, 0, 2},
      {7, 140, 1, 2}, {0, 90, 1, 1},  {0, 150, 1, 1}, {~uint64_t{0}, uint64_t{1} << 62, 1, 2}};
  int declined = 0;
  auto write = [&](bool try_keyed) {
    std::string bytes;
    std::unique_ptr<Output> out = StringOutput(&bytes);
    PerfettoTraceWriter w(out.get(), PerfettoCompression::kNone, 0);
    const uint64_t proc = w.AddProcess(1, "p", {});
    const uint64_t t = w.AddThread(proc, 1, 1, "t");
    for (const Begin& b : begins) {
      if (try_keyed && w.TryWriteKeyedSliceBegin(t, b.track, b.time, b.category_key, b.name_key)) {
        continue;
      }
      declined += try_keyed ? 1 : 0;
      PerfettoEvent e;
      e.type = PerfettoEvent::Type::kSliceBegin;
      e.track = b.track;
      e.time_ns = b.time;
      e.category_key = b.category_key;
      e.name_key = b.name_key;
      e.category = b.category_key == 0 ? "plain" : b.category_key == 1 ? "cat" : "?";
      e.name = b.name_key == 1 ? "one" : "two";
      w.Write(t, e);
    }
    EXPECT_TRUE(w.Finish().ok());
    return bytes;
  };
  const std::string keyed = write(true);
  EXPECT_EQ(keyed, write(false));
  // New keys (the first two begins), no category key, and the step back.
  EXPECT_EQ(declined, 4);
  bool ok = false;
  const std::string text = Decode(keyed, &ok);
  ASSERT_TRUE(ok) << text;
  EXPECT_EQ(Count(text, "type: TYPE_SLICE_BEGIN"), 8) << text;
}

}  // namespace
}  // namespace ittc::itt_dump
