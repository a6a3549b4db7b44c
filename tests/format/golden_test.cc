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
            "0300"              // version 1.3
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
  // differences from the zero row (0x1234 -> 0x2468); the times' distances
  // from 990 are measured from 0.
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
            "13"
            "14"  // frame_submit
            "23"
            "02"
            "0c02"
            "ac02"
            "026869");  // metadata_str_add
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
  EXPECT_EQ(delta.chunk_flags(), kChunkFlagDeltaFields | kChunkFlagDeltaAddresses);
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
