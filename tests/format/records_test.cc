#include "format/records.h"

#include <algorithm>
#include <string>
#include <vector>

#include "format/coding.h"
#include "format/debug_string.h"
#include "gtest/gtest.h"
#include "tests/format/test_util.h"

namespace ittc::format {
namespace {

TEST(Records, EveryRecordKindRoundTrips) {
  testing::Rng rng(5);
  std::deque<std::string> storage;
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  std::vector<Event> records;
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < count; ++i) {
      // Event kinds may appear in record chunks too; all go through.
      records.push_back(testing::RandomEvent(rng, all[i].kind, 0, &storage));
    }
  }
  RecordEncoder enc;
  for (const Event& r : records) enc.Append(r);
  EXPECT_EQ(enc.record_count(), records.size());
  RecordDecoder dec;
  dec.Reset(enc.payload());
  Event got;
  for (const Event& want : records) {
    ASSERT_TRUE(dec.Next(&got)) << dec.status();
    EXPECT_EQ(DebugString(got), DebugString(want));
  }
  EXPECT_FALSE(dec.Next(&got));
  EXPECT_TRUE(dec.status().ok());
}

TEST(Records, TypedRecordsRoundTrip) {
  RecordEncoder enc;
  enc.Append(ToRecord(ThreadInfo{3, 1234567, "worker-3", true}));
  enc.Append(ToRecord(ClockSync{1ull << 50, 5000000000ull, -42}));
  enc.Append(ToRecord(LossRecord{3, LossCause::kWriteFailed, 77}));
  enc.Append(ToRecord(EndRecord{1000, 77, 9, 1ull << 51}));
  RecordDecoder dec;
  dec.Reset(enc.payload());
  Event r;
  ThreadInfo ti;
  ClockSync cs;
  LossRecord lr;
  EndRecord er;
  ASSERT_TRUE(dec.Next(&r));
  EXPECT_FALSE(FromRecord(r, &cs));
  ASSERT_TRUE(FromRecord(r, &ti));
  EXPECT_EQ(ti.thread_index, 3u);
  EXPECT_EQ(ti.tid, 1234567u);
  EXPECT_EQ(ti.name, "worker-3");
  EXPECT_TRUE(ti.ignored);
  ASSERT_TRUE(dec.Next(&r));
  ASSERT_TRUE(FromRecord(r, &cs));
  EXPECT_EQ(cs.ticks, 1ull << 50);
  EXPECT_EQ(cs.monotonic_raw_ns, 5000000000ull);
  EXPECT_EQ(cs.realtime_ns, -42);
  ASSERT_TRUE(dec.Next(&r));
  ASSERT_TRUE(FromRecord(r, &lr));
  EXPECT_EQ(lr.cause, LossCause::kWriteFailed);
  EXPECT_EQ(lr.count, 77u);
  ASSERT_TRUE(dec.Next(&r));
  ASSERT_TRUE(FromRecord(r, &er));
  EXPECT_EQ(er.events_recorded, 1000u);
  EXPECT_EQ(er.events_dropped, 77u);
  EXPECT_EQ(er.chunk_count, 9u);
  EXPECT_EQ(er.end_ticks, 1ull << 51);
  EXPECT_FALSE(dec.Next(&r));
}

TEST(Records, FlightDumpRoundTrips) {
  FlightDump want;
  want.reason = FlightReason::kMarker;
  want.signal = 0;
  want.name = 7;
  want.window_begin = 1ull << 40;
  want.window_end = (1ull << 40) + 123456789;
  want.dump = 3;
  want.triggers = 2;
  RecordEncoder enc;
  enc.Append(ToRecord(want));
  enc.Append(ToRecord(EndRecord{10, 2, 5, 99}));
  RecordDecoder dec;
  dec.Reset(enc.payload());
  Event r;
  ASSERT_TRUE(dec.Next(&r));
  FlightDump got;
  EndRecord end;
  EXPECT_FALSE(FromRecord(r, &end));
  ASSERT_TRUE(FromRecord(r, &got));
  EXPECT_EQ(got.reason, FlightReason::kMarker);
  EXPECT_EQ(got.signal, 0u);
  EXPECT_EQ(got.name, 7u);
  EXPECT_EQ(got.window_begin, want.window_begin);
  EXPECT_EQ(got.window_end, want.window_end);
  EXPECT_EQ(got.dump, 3u);
  EXPECT_EQ(got.triggers, 2u);
  ASSERT_TRUE(dec.Next(&r));
  EXPECT_FALSE(FromRecord(r, &got));
  EXPECT_STREQ(FlightReasonName(static_cast<uint64_t>(FlightReason::kFatalSignal)), "fatal signal");
  EXPECT_STREQ(FlightReasonName(99), "unknown");
}

// The allocation-free encoder writes what RecordEncoder appends, for every
// kind (the collector's crash dump encodes its records with it).
TEST(Records, EncodeRecordToEqualsRecordEncoder) {
  testing::Rng rng(11);
  std::deque<std::string> storage;
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  for (int i = 0; i < count; ++i) {
    const Event e = testing::RandomEvent(rng, all[i].kind, 0, &storage);
    RecordEncoder enc;
    enc.Append(e);
    std::string raw(MaxEncodedRecordSize(e), '\xAA');
    char* end = EncodeRecordTo(e, &raw[0]);
    ASSERT_LE(end, raw.data() + raw.size());
    raw.resize(static_cast<size_t>(end - raw.data()));
    EXPECT_EQ(raw, enc.payload()) << all[i].name;
  }
}

TEST(Records, ModuleRecordsRoundTrip) {
  RecordEncoder enc;
  const std::string build_id("\x01\x02\xfe\x00\x7f", 5);
  enc.Append(
      ToRecord(ModuleMapped{5, 0x7f0000000000, 0x7f0000001000, 0x20000, "/lib/x.so", build_id}));
  enc.Append(ToRecord(ModuleUnmapped{9, 0x7f0000001000}));
  RecordDecoder dec;
  dec.Reset(enc.payload());
  Event r;
  ModuleMapped m;
  ModuleUnmapped u;
  ASSERT_TRUE(dec.Next(&r));
  EXPECT_FALSE(FromRecord(r, &u));
  ASSERT_TRUE(FromRecord(r, &m));
  EXPECT_EQ(m.ticks, 5u);
  EXPECT_EQ(m.load_bias, 0x7f0000000000u);
  EXPECT_EQ(m.start_addr, 0x7f0000001000u);
  EXPECT_EQ(m.size, 0x20000u);
  EXPECT_EQ(m.path, "/lib/x.so");
  EXPECT_EQ(m.build_id, build_id);
  ASSERT_TRUE(dec.Next(&r));
  EXPECT_FALSE(FromRecord(r, &m));
  ASSERT_TRUE(FromRecord(r, &u));
  EXPECT_EQ(u.ticks, 9u);
  EXPECT_EQ(u.start_addr, 0x7f0000001000u);
  EXPECT_FALSE(dec.Next(&r));
}

TEST(Records, UnknownKindsAndAppendedFieldsAreSkipped) {
  std::string p;
  AppendVarint64(&p, 0x0abc);  // unknown record kind
  AppendVarint64(&p, 3);
  p += "xyz";
  // A def_string with an extra trailing field from a later minor version.
  std::string fields;
  AppendVarint64(&fields, 9);
  AppendVarint64(&fields, 2);
  fields += "hi";
  AppendVarint64(&fields, 12345);  // the future field
  AppendVarint64(&p, static_cast<uint16_t>(EventKind::kDefString));
  AppendVarint64(&p, fields.size());
  p += fields;
  RecordDecoder dec;
  dec.Reset(p);
  Event r;
  ASSERT_TRUE(dec.Next(&r));
  EXPECT_EQ(r.kind, EventKind::kDefString);
  EXPECT_EQ(r.Get(Field::kId), 9u);
  EXPECT_EQ(r.GetBytes(Field::kText), "hi");
  EXPECT_FALSE(dec.Next(&r));
  EXPECT_TRUE(dec.status().ok());
  EXPECT_EQ(dec.unknown_skipped(), 1u);
}

TEST(Records, MalformedRecordsAreErrors) {
  struct Case {
    std::string payload;
    const char* reason;
  } cases[] = {
      {std::string("\x00\x00", 2), "bad record kind"},
      {std::string("\x80", 1), "bad record kind"},
      {std::string("\x80\x02\x05"
                   "ab",
                   5),
       "bad record length"},
      // def_string whose field block is shorter than its fields.
      {std::string("\x80\x02\x02\x01\x05", 5), "bad bytes field length"},
  };
  for (const Case& c : cases) {
    RecordDecoder dec;
    dec.Reset(c.payload);
    Event r;
    EXPECT_FALSE(dec.Next(&r));
    EXPECT_EQ(dec.status().message(), c.reason);
  }
}

TEST(Records, LineTables) {
  std::string t;
  AppendLineEntry(&t, LineEntry{0, 10});
  AppendLineEntry(&t, LineEntry{16, 11});
  ASSERT_EQ(LineTableSize(t), 2);
  EXPECT_EQ(LineTableEntry(t, 1).offset, 16u);
  EXPECT_EQ(LineTableEntry(t, 1).line, 11u);
  EXPECT_EQ(LineTableSize("abc"), -1);
}

}  // namespace
}  // namespace ittc::format

namespace ittc::format {
namespace {

TEST(FormatArgs, RoundTripAndRejectMalformed) {
  std::string a;
  std::vector<size_t> ends;
  AppendFormatArgInt(&a, -7);
  ends.push_back(a.size());
  AppendFormatArgUint(&a, 1ull << 60);
  ends.push_back(a.size());
  AppendFormatArgDouble(&a, 2.75);
  ends.push_back(a.size());
  AppendFormatArgString(&a, std::string("x\0y", 3));
  ends.push_back(a.size());
  AppendFormatArgPointer(&a, 0x7fff0000);
  std::string_view v = a;
  FormatArg arg;
  bool bad = true;
  ASSERT_TRUE(NextFormatArg(&v, &arg, &bad));
  EXPECT_EQ(arg.tag, FormatArgTag::kInt);
  EXPECT_EQ(static_cast<int64_t>(arg.u), -7);
  ASSERT_TRUE(NextFormatArg(&v, &arg, &bad));
  EXPECT_EQ(arg.u, 1ull << 60);
  ASSERT_TRUE(NextFormatArg(&v, &arg, &bad));
  EXPECT_EQ(arg.d, 2.75);
  ASSERT_TRUE(NextFormatArg(&v, &arg, &bad));
  EXPECT_EQ(arg.text, std::string_view("x\0y", 3));
  ASSERT_TRUE(NextFormatArg(&v, &arg, &bad));
  EXPECT_EQ(arg.tag, FormatArgTag::kPointer);
  EXPECT_EQ(arg.u, 0x7fff0000u);
  EXPECT_FALSE(NextFormatArg(&v, &arg, &bad));
  EXPECT_FALSE(bad);
  // Every cut inside an argument, and an unknown tag, is malformed.
  for (size_t n = 1; n < a.size(); ++n) {
    std::string_view cut(a.data(), n);
    size_t good = 0;
    while (NextFormatArg(&cut, &arg, &bad)) ++good;
    const bool boundary = std::find(ends.begin(), ends.end(), n) != ends.end();
    EXPECT_EQ(bad, !boundary) << n;
    EXPECT_EQ(good,
              static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), n) - ends.begin()))
        << n;
  }
  std::string_view unknown("\x09\x01", 2);
  EXPECT_FALSE(NextFormatArg(&unknown, &arg, &bad));
  EXPECT_TRUE(bad);
  EXPECT_TRUE(unknown.empty());
}

}  // namespace
}  // namespace ittc::format

namespace ittc::format {
namespace {

TEST(Records, DefinitionBuildersFillEveryField) {
  RecordEncoder enc;
  enc.Append(DefString(1, "parse"));
  enc.Append(DefDomain(2, "app"));
  enc.Append(DefCounter(3, "queue", "app", 2, MetadataType::kS32));
  enc.Append(DefHistogram(4, 2, "sizes", MetadataType::kU64, MetadataType::kDouble));
  enc.Append(DefClockDomain(5, 1000000, 77, 123456));
  enc.Append(DefHeapFunction(6, "my_malloc", "alloc"));
  enc.Append(DefLegacyEvent(7, "legacy"));
  enc.Append(DefTrackGroup(8, 1, 0));
  enc.Append(DefTrack(9, 8, 1, 1));
  const char* want[] = {
      "def_string @0 id=1 text=\"parse\"",
      "def_domain @0 id=2 name=\"app\"",
      "def_counter @0 id=3 name=\"queue\" domain_name=\"app\" domain=2 type=4",
      "def_histogram @0 id=4 domain=2 name=\"sizes\" x_type=1 y_type=8",
      "def_clock_domain @0 id=5 frequency_hz=1000000 clock_base=77 ticks=123456",
      "def_heap_function @0 id=6 name=\"my_malloc\" domain_name=\"alloc\"",
      "def_event @0 id=7 name=\"legacy\"",
      "def_track_group @0 id=8 name=1 type=0",
      "def_track @0 id=9 track_group=8 name=1 type=1",
  };
  RecordDecoder dec;
  dec.Reset(enc.payload());
  Event r;
  for (const char* w : want) {
    ASSERT_TRUE(dec.Next(&r));
    EXPECT_EQ(DebugString(r), w);
  }
  EXPECT_FALSE(dec.Next(&r));
  EXPECT_TRUE(dec.status().ok());
}

}  // namespace
}  // namespace ittc::format
