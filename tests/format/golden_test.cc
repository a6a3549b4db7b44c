// Exact bytes of small encodings, written out by hand from FORMAT.md. Any
// change to what the library writes for these inputs is a format change
// and must come with a version bump and an update of FORMAT.md.
// (zstd output is not pinned: it may differ between zstd versions.)

#include <string>

#include "format/format.h"
#include "gtest/gtest.h"

namespace ittc::format {
namespace {

std::string Hex(std::string_view s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

TEST(Golden, FileHeader) {
  FileHeader h;
  h.pid = 0x01020304;
  h.ppid = 7;
  h.timebase = Timebase::kMonotonicRawNs;
  h.timebase_hz = 1000000000;
  h.start_ticks = 5;
  h.start_realtime_ns = -1;
  h.start_monotonic_raw_ns = 6;
  h.host_name = "h";
  h.executable_path = "/x";
  h.command_line = std::string("x\0-v", 4);
  h.writer = "";
  const std::string bytes = EncodeFileHeader(h);
  EXPECT_EQ(Hex(bytes.substr(0, bytes.size() - 4)),
            "89495454430d0a1a"  // magic
            "0100"
            "0500"              // version 1.5
            "6f000000"          // header size 111
            "00000000"          // flags
            "04030201"          // pid
            "07000000"          // ppid
            "02000000"          // timebase: CLOCK_MONOTONIC_RAW ns
            "00ca9a3b00000000"  // 1e9 Hz
            "0500000000000000"  // start ticks
            "ffffffffffffffff"  // start realtime -1
            "0600000000000000"  // start monotonic raw
            "01000000"
            "68"  // "h"
            "02000000"
            "2f78"  // "/x"
            "04000000"
            "78002d76"                            // "x\0-v"
            "00000000"                            // ""
            "00000000"                            // 1.1: rank (none: flag bit 1 clear)
            "00000000000000000000000000000000");  // 1.1: boot id unknown
  EXPECT_EQ(bytes.size(), 111u);
}

// Events payloads in both field codings: plain, as versions 1.0 and 1.1
// wrote them (and every reader still reads), and delta-coded, as 1.2
// writes them.
TEST(Golden, EventsPayload) {
  EventStreamEncoder enc(EventStreamEncoder::FieldCoding::kPlain);
  EventStreamEncoder delta;
  delta.Reset(0, 100);
  enc.Reset(0, 100);
  Event e;
  e.Init(EventKind::kTaskBegin, 101);
  e.Set(Field::kDomain, 1);
  e.SetId(Field::kId, Id{});
  e.SetId(Field::kParent, Id{});
  e.Set(Field::kName, 2);
  enc.Append(e);
  delta.Append(e);
  e.Init(EventKind::kTaskEnd, 105);
  e.Set(Field::kDomain, 1);
  enc.Append(e);
  delta.Append(e);
  // The example of FORMAT.md section 6: the same in both codings (null ids
  // against a zero row, references as they are).
  EXPECT_EQ(Hex(enc.payload()),
            "00640202"
            "0208"
            "0101000002"
            "0201");
  EXPECT_EQ(Hex(delta.payload()), Hex(enc.payload()));

  // An id made from a pointer, a time field, bytes and a step back in time.
  enc.Reset(3, 1000);
  delta.Reset(3, 1000);
  e.Init(EventKind::kFrameSubmit, 990);  // 10 ticks back
  e.Set(Field::kDomain, 2);
  e.SetId(Field::kId, Id{0x1234, 0, 0});
  e.Set(Field::kBegin, 980);
  e.Set(Field::kEnd, 1000);
  enc.Append(e);
  delta.Append(e);
  e.Init(EventKind::kMetadataStrAdd, 991);
  e.Set(Field::kDomain, 2);
  e.SetId(Field::kId, Id{0, 0, 1});
  e.Set(Field::kKey, 300);
  e.SetBytes(Field::kText, "hi");
  enc.Append(e);
  delta.Append(e);
  EXPECT_EQ(Hex(enc.payload()),
            "03"
            "e807"
            "02"
            "02"  // thread 3, base 1000, 2 events, 2 bytes
            "13"
            "02"  // -10, +1 (zigzag)
            "10"
            "02"
            "01b424"
            "13"
            "14"  // frame_submit: -10 and +10 from 990
            "23"
            "02"
            "0401"
            "ac02"
            "026869");  // metadata_str_add
  // Delta-coded: each id is relative (presence bit 3), its parts zigzag
  // differences from the zero row (0x1234 -> 0x2468); each time field is a
  // tagged varint (version 1.4): tag 0, its distance from 990 measured from
  // 0, zigzag(-10) = 0x13 and zigzag(10) = 0x14 shifted left by one, which
  // is nearer than the value from 0.
  EXPECT_EQ(Hex(delta.payload()),
            "03"
            "e807"
            "02"
            "02"
            "13"
            "02"
            "10"
            "02"
            "09e848"
            "26"
            "28"  // frame_submit
            "23"
            "02"
            "0c02"
            "ac02"
            "026869");  // metadata_str_add
}

// Time fields (version 1.4): a writer stores each against the nearer of
// two references, its last distance from its event's time (tag 0, the
// only reference before 1.4) and its last value (tag 1), and sets chunk
// flag bit 3; a 1.3 chunk (bits 1 and 2) has the distance alone. Both read
// back as the same events.
TEST(Golden, DeltaCodedTimes) {
  struct {
    uint64_t time, user_timestamp, timestamp;
  } const ends[] = {
      {105, 1, 1},     // a timestamp that counts: 1 from 0 (tag 1)
      {120, 2, 2},     // 1 from the last value (tag 1); the distance -14
      {5130, 3, 102},  // 100 from the last value (tag 1); the distance -4910
      {5140, 4, 112},  // the distance again (tag 0); the value +10
  };
  EventStreamEncoder delta;
  delta.Reset(0, 100);
  for (const auto& end : ends) {
    Event e;
    e.Init(EventKind::kTaskEndEx, end.time);
    e.Set(Field::kDomain, 1);
    e.Set(Field::kClockDomain, 0);
    e.Set(Field::kUserTimestamp, end.user_timestamp);
    e.Set(Field::kTimestamp, end.timestamp);
    delta.Append(e);
  }
  EXPECT_EQ(delta.chunk_flags(),
            kChunkFlagDeltaFields | kChunkFlagDeltaAddresses | kChunkFlagDeltaTimes);
  const std::string v14 = std::string(delta.payload());
  EXPECT_EQ(Hex(v14),
            "00640405"
            "0a1ea44e14"  // thread 0, base 100, 4 events; times +5 +15 +5010 +10
            "08010002"    // task_end_ex: domain 1, clock 0, user timestamp +1
            "05"          // tag 1, zigzag(1) = 2: (2 << 1) | 1
            "08010002"
            "05"
            "08010002"
            "9103"  // tag 1, zigzag(100) = 200: (200 & 63) << 1 | 1 | 0x80, then 200 >> 6
            "08010002"
            "00");  // tag 0, zigzag(0)
  // The same events as a 1.3 writer coded them: each timestamp's distance
  // from its event's time as a difference from the last (-104, -14, -4910,
  // 0).
  const std::string v13(
      "\x00\x64\x04\x05\x0a\x1e\xa4\x4e\x14"
      "\x08\x01\x00\x02\xcf\x01"
      "\x08\x01\x00\x02\x1b"
      "\x08\x01\x00\x02\xdb\x4c"
      "\x08\x01\x00\x02\x00",
      31);
  for (const auto& [payload, flags] :
       {std::pair<std::string, uint16_t>{v14, delta.chunk_flags()},
        std::pair<std::string, uint16_t>{v13, kChunkFlagDeltaFields | kChunkFlagDeltaAddresses}}) {
    SCOPED_TRACE(flags);
    EventStreamDecoder dec;
    ASSERT_TRUE(dec.Reset(payload, flags).ok());
    for (const auto& end : ends) {
      Event e;
      ASSERT_TRUE(dec.Next(&e)) << dec.status();
      EXPECT_EQ(e.kind, EventKind::kTaskEndEx);
      EXPECT_EQ(e.time, end.time);
      EXPECT_EQ(e.Get(Field::kUserTimestamp), end.user_timestamp);
      EXPECT_EQ(e.Get(Field::kTimestamp), end.timestamp);
    }
    Event e;
    EXPECT_FALSE(dec.Next(&e));
    EXPECT_TRUE(dec.status().ok()) << dec.status();
  }
}

// Address fields (version 1.3): a writer stores each as the difference
// from the same field of the kind's last event and sets chunk flag bit 2;
// a 1.2 chunk (bit 1 alone) has them as they are. Both read back as the
// same events.
TEST(Golden, DeltaCodedAddresses) {
  const EventKind kinds[] = {EventKind::kSyncPrepare, EventKind::kSyncAcquired,
                             EventKind::kSyncPrepare};
  const uint64_t addrs[] = {0x1000, 0x1000, 0x1008};
  EventStreamEncoder delta;
  delta.Reset(0, 100);
  for (int i = 0; i < 3; ++i) {
    Event e;
    e.Init(kinds[i], 101 + i);
    e.Set(Field::kAddr, addrs[i]);
    delta.Append(e);
  }
  EXPECT_EQ(delta.chunk_flags(),
            kChunkFlagDeltaFields | kChunkFlagDeltaAddresses | kChunkFlagDeltaTimes);
  // The same bytes as version 1.3 wrote: these kinds have no time field.
  const std::string v13 = std::string(delta.payload());
  EXPECT_EQ(Hex(v13),
            "00640303"
            "020202"  // thread 0, base 100, 3 events; times +1 +1 +1
            "348040"  // sync_prepare: 0x1000 - 0, zigzag
            "368040"  // sync_acquired: its own reference, 0 before
            "3410");  // sync_prepare: 0x1008 - 0x1000, zigzag
  // The same events as a 1.2 writer coded them.
  const std::string v12(
      "\x00\x64\x03\x03\x02\x02\x02"
      "\x34\x80\x20\x36\x80\x20\x34\x88\x20",
      16);
  for (const auto& [payload, flags] :
       {std::pair<std::string, uint16_t>{v13, kChunkFlagDeltaFields | kChunkFlagDeltaAddresses},
        std::pair<std::string, uint16_t>{v12, kChunkFlagDeltaFields}}) {
    SCOPED_TRACE(flags);
    EventStreamDecoder dec;
    ASSERT_TRUE(dec.Reset(payload, flags).ok());
    for (int i = 0; i < 3; ++i) {
      Event e;
      ASSERT_TRUE(dec.Next(&e)) << dec.status();
      EXPECT_EQ(e.kind, kinds[i]);
      EXPECT_EQ(e.time, static_cast<uint64_t>(101 + i));
      EXPECT_EQ(e.fields[0].u, addrs[i]);
    }
    Event e;
    EXPECT_FALSE(dec.Next(&e));
    EXPECT_TRUE(dec.status().ok()) << dec.status();
  }
}

TEST(Golden, RecordsPayload) {
  RecordEncoder enc;
  enc.Append(DefString(1, "ab"));
  enc.Append(ToRecord(ClockSync{300, 2, -1}));
  EXPECT_EQ(Hex(enc.payload()),
            "8002"
            "04"
            "01"
            "026162"  // def_string, 4 bytes
            "8103"
            "04"
            "ac02"
            "02"
            "01");  // clock_sync, 4 bytes
}

TEST(Golden, FlightDumpRecord) {
  FlightDump d;
  d.reason = FlightReason::kFatalSignal;
  d.signal = 11;
  d.window_begin = 300;
  d.window_end = 301;
  d.dump = 2;
  d.triggers = 1;
  RecordEncoder enc;
  enc.Append(ToRecord(d));
  EXPECT_EQ(Hex(enc.payload()),
            "8603"  // kind 0x186
            "09"    // 9 bytes
            "03"    // reason: fatal signal
            "0b"    // signal 11
            "00"    // name: none
            "ac02"  // window_begin 300
            "ad02"  // window_end 301
            "02"    // dump 2
            "01");  // triggers 1
}

TEST(Golden, UncompressedChunkFraming) {
  const std::string c = FrameChunkForTest(3, 0, 0x0102030405060708ull, "xyz", 3);
  EXPECT_EQ(Hex(c.substr(0, 24)),
            "d743484b"
            "0300"
            "0000"
            "03000000"
            "03000000"
            "0807060504030201");
  EXPECT_EQ(c.substr(32), "xyz");
  EXPECT_EQ(c.size(), 35u);
}

}  // namespace
}  // namespace ittc::format
