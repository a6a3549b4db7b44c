// Ring records and the flusher's direct path: a record of every event kind,
// with random field values, written with the hot path's own primitives,
// encodes straight into an events payload (AppendRawRecord) and decodes,
// with the format's schema-driven decoder, to the event it was made from.
// A record that does not match its kind's schema appends nothing.

#include "collector/internal/raw_record.h"

#include <deque>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "format/debug_string.h"
#include "format/event_stream.h"
#include "gtest/gtest.h"
#include "tests/format/test_util.h"

namespace ittc::collector_internal {
namespace {

using format::Event;
using format::EventKind;
using format::FieldType;

// The ring record the hot path writes for `event` after a record at `prev`
// ticks, assembled field by field from the kind's schema with the emitter's
// primitives (PutRaw, AddIdBit, MakeRawHeader). 8-byte aligned, as ring
// slots are.
std::vector<uint64_t> RawRecordOf(const Event& event, uint64_t prev = 0) {
  const format::KindSchema* s = format::FindSchema(event.kind);
  const bool narrow = TicksFitHeader(event.time, prev);
  size_t size = kRawHeaderBytes + RawTimeBytes(event.time, prev);
  uint8_t mask = 0;
  int id_index = 0;
  for (int i = 0; i < s->field_count; ++i) {
    const format::FieldValue& f = event.fields[i];
    if (s->fields[i].type == FieldType::kId) {
      const RawId id{f.id.d1, f.id.d2, f.id.d3};
      size += RawFieldSize(id);
      AddIdBit(id, &mask, &id_index);
    } else if (s->fields[i].type == FieldType::kBytes) {
      size += RawFieldSize(RawBytes{f.bytes.data(), f.bytes.size()});
    } else {
      size += RawFieldSize(f.u);
    }
  }
  std::vector<uint64_t> words(size / 8);
  auto* p = reinterpret_cast<uint8_t*>(words.data());
  if (narrow) {
    p = PutRaw(p, MakeRawHeader(event.kind, mask, size, static_cast<int32_t>(event.time - prev)));
  } else {
    p = PutRaw(p, MakeRawHeader(event.kind, mask, size, kWideTicks));
    p = PutRaw(p, event.time);
  }
  for (int i = 0; i < s->field_count; ++i) {
    const format::FieldValue& f = event.fields[i];
    if (s->fields[i].type == FieldType::kId) {
      p = PutRaw(p, RawId{f.id.d1, f.id.d2, f.id.d3});
    } else if (s->fields[i].type == FieldType::kBytes) {
      p = PutRaw(p, RawBytes{f.bytes.data(), f.bytes.size()});
    } else {
      p = PutRaw(p, f.u);
    }
  }
  return words;
}

const uint8_t* Bytes(const std::vector<uint64_t>& words) {
  return reinterpret_cast<const uint8_t*>(words.data());
}

// Every event kind this version knows (the ones a ring can hold).
std::vector<EventKind> EventKinds() {
  int count = 0;
  const format::KindSchema* all = format::AllSchemas(&count);
  std::vector<EventKind> kinds;
  for (int i = 0; i < count; ++i) {
    if (static_cast<uint16_t>(all[i].kind) < 0x100) kinds.push_back(all[i].kind);
  }
  return kinds;
}

// The ring record path and the Event path side by side: each record goes
// through the flusher's path (AppendRawRecord) and, when asked, the decoder
// (DecodeRawRecord), each carrying the task word as a ring's reader does;
// its event goes through the format's own writer. The tests then compare
// the two payloads.
struct BothPaths {
  explicit BothPaths(uint64_t base_time) {
    from_ring.Reset(1, base_time);
    from_events.Reset(1, base_time);
  }
  // `record`, whose ticks are `ticks`, stands for `e`; with `decode` it must
  // also decode to e.
  void Add(const std::vector<uint64_t>& record, uint64_t ticks, const Event& e,
           bool decode = false) {
    if (decode) {
      Event decoded;
      ASSERT_TRUE(DecodeRawRecord(Bytes(record), ticks, &decode_word, &decoded))
          << format::DebugString(e);
      ASSERT_EQ(format::DebugString(decoded), format::DebugString(e));
    }
    ASSERT_TRUE(AppendRawRecord(Bytes(record), ticks, &append_word, &from_ring))
        << format::DebugString(e);
    from_events.Append(e);
  }

  format::EventStreamEncoder from_ring, from_events;
  uint64_t append_word = kNoTaskWord, decode_word = kNoTaskWord;
};

// The events of `encoder`'s payload.
std::vector<std::string> DecodeAll(const format::EventStreamEncoder& encoder) {
  format::EventStreamDecoder decoder;
  EXPECT_TRUE(decoder.Reset(encoder.payload(), encoder.chunk_flags()).ok());
  std::vector<std::string> out;
  Event e;
  while (decoder.Next(&e)) out.push_back(format::DebugString(e));
  EXPECT_TRUE(decoder.status().ok()) << decoder.status();
  return out;
}

TEST(RawRecord, EveryKindEncodesStraightToItself) {
  format::testing::Rng rng(13);
  std::deque<std::string> storage;
  std::vector<EventKind> kinds = EventKinds();
  ASSERT_GT(kinds.size(), 50u);
  std::vector<std::string> expected;
  std::vector<std::vector<uint64_t>> records;
  uint64_t time = 1u << 20, prev = 0;
  size_t wide = 0;
  for (int round = 0; round < 40; ++round) {
    std::shuffle(kinds.begin(), kinds.end(), rng);
    for (EventKind kind : kinds) {
      // Mostly small steps (the header's difference), now and then a step
      // back or a gap too long for it (the ticks word).
      const uint64_t r = rng();
      if (r % 16 == 0) {
        time += uint64_t{1} << (31 + r % 3);
      } else if (r % 16 == 1) {
        time -= r % 3000;
      } else {
        time += r % 5000;
      }
      Event e = format::testing::RandomEvent(rng, kind, time, &storage);
      expected.push_back(format::DebugString(e));
      records.push_back(RawRecordOf(e, prev));
      if (!TicksFitHeader(time, prev)) ++wide;
      prev = time;
    }
  }
  EXPECT_GT(wide, 20u);
  format::EventStreamEncoder encoder;
  encoder.Reset(7, 1u << 20);
  uint64_t read_ticks = 0;
  uint64_t decode_word = kNoTaskWord, append_word = kNoTaskWord;
  for (size_t i = 0; i < records.size(); ++i) {
    read_ticks = RawTicks(Bytes(records[i]), read_ticks);
    Event decoded;
    ASSERT_TRUE(DecodeRawRecord(Bytes(records[i]), read_ticks, &decode_word, &decoded))
        << expected[i];
    EXPECT_EQ(format::DebugString(decoded), expected[i]);
    ASSERT_TRUE(AppendRawRecord(Bytes(records[i]), read_ticks, &append_word, &encoder))
        << expected[i];
  }
  ASSERT_FALSE(encoder.failed());
  EXPECT_EQ(encoder.event_count(), records.size());
  EXPECT_EQ(DecodeAll(encoder), expected);
}

// The ring record's field source and an Event's give the same bytes: the
// flusher's payloads are those the format's own writers produce.
TEST(RawRecord, RingPathAndEventPathWriteTheSamePayload) {
  format::testing::Rng rng(31);
  std::deque<std::string> storage;
  BothPaths paths(0);
  uint64_t time = 0;
  for (EventKind kind : EventKinds()) {
    for (int i = 0; i < 20; ++i) {
      time += rng() % 100;
      Event e = format::testing::RandomEvent(rng, kind, time, &storage);
      ASSERT_NO_FATAL_FAILURE(paths.Add(RawRecordOf(e), time, e));
    }
  }
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());
}

// With every id null and the time in the header, the hottest kinds take
// AppendRawRecord's plain path (the header alone gives their layout): every
// kind's payload is still the one the Event path writes, and decodes to it.
TEST(RawRecord, RecordsWithNullIdsWriteTheSamePayloadAsTheirEvents) {
  format::testing::Rng rng(41);
  std::deque<std::string> storage;
  BothPaths paths(5000);
  std::vector<std::string> expected;
  uint64_t time = 5000, prev = 0;
  size_t plain = 0;
  const EventKind plain_kinds[] = {EventKind::kTaskEnd,
                                   EventKind::kTaskBegin,
                                   EventKind::kFrameBegin,
                                   EventKind::kFrameEnd,
                                   EventKind::kMarker,
                                   EventKind::kCounterInc,
                                   EventKind::kCounterSetValue,
                                   EventKind::kSyncPrepare,
                                   EventKind::kSyncAcquired,
                                   EventKind::kSyncReleasing,
                                   EventKind::kHeapAllocateBegin,
                                   EventKind::kHeapAllocateEnd};
  for (EventKind kind : EventKinds()) {
    const format::KindSchema* s = format::FindSchema(kind);
    for (int i = 0; i < 30; ++i) {
      time += rng() % 100;
      Event e = format::testing::RandomEvent(rng, kind, time, &storage);
      for (int f = 0; f < s->field_count; ++f) {
        if (s->fields[f].type == FieldType::kId) e.fields[f].id = format::Id{};
      }
      const std::vector<uint64_t> record = RawRecordOf(e, prev);
      prev = time;
      for (EventKind k : plain_kinds) {
        if (k == kind) {
          size_t words = 0;
          for (int f = 0; f < s->field_count; ++f) words += s->fields[f].type != FieldType::kId;
          EXPECT_EQ(static_cast<uint32_t>(record[0]), PlainHeader(kind, words)) << s->name;
          ++plain;
        }
      }
      ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e)) << s->name;
      expected.push_back(format::DebugString(e));
    }
  }
  EXPECT_EQ(plain, std::size(plain_kinds) * 30);
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());
  EXPECT_EQ(DecodeAll(paths.from_ring), expected);
}

// Appends `record` to an encoder holding one good event, checks it is
// refused with nothing appended, and that a good event still follows.
void ExpectRefused(const std::vector<uint64_t>& record, const std::string& what) {
  Event good;
  good.Init(EventKind::kTaskEnd, 100);
  good.Set(format::Field::kDomain, 3);
  const std::vector<uint64_t> good_record = RawRecordOf(good);
  format::EventStreamEncoder encoder;
  encoder.Reset(1, 0);
  uint64_t task_word = kNoTaskWord;
  ASSERT_TRUE(AppendRawRecord(Bytes(good_record), 100, &task_word, &encoder));
  const std::string before(encoder.payload());
  const uint64_t ticks = RawTicks(Bytes(record), 0);
  EXPECT_FALSE(AppendRawRecord(Bytes(record), ticks, &task_word, &encoder)) << what;
  EXPECT_EQ(encoder.payload(), before) << what;
  EXPECT_EQ(encoder.event_count(), 1u) << what;
  Event decoded;
  EXPECT_FALSE(DecodeRawRecord(Bytes(record), ticks, &task_word, &decoded)) << what;
  ASSERT_TRUE(AppendRawRecord(Bytes(good_record), 100, &task_word, &encoder));
  EXPECT_EQ(DecodeAll(encoder).size(), 2u) << what;
}

std::vector<uint64_t> WithSize(std::vector<uint64_t> record, size_t size) {
  record.resize(size / 8 + 1, 0);  // bytes past the size stay readable
  record[0] = (record[0] & ~(uint64_t{0xffff} << 16)) | (static_cast<uint64_t>(size / 8) << 16);
  return record;
}

TEST(RawRecord, RecordsThatDoNotMatchTheSchemaAppendNothing) {
  format::testing::Rng rng(5);
  std::deque<std::string> storage;
  for (EventKind kind : EventKinds()) {
    const format::KindSchema* s = format::FindSchema(kind);
    Event e = format::testing::RandomEvent(rng, kind, 1000, &storage);
    for (int i = 0; i < s->field_count; ++i) {
      if (s->fields[i].type == FieldType::kId) e.fields[i].id = format::Id{1, 2, 3};
    }
    const std::vector<uint64_t> record = RawRecordOf(e);
    const size_t size = record.size() * 8;
    const std::string name = format::FindSchema(kind)->name;
    if (size > kRawHeaderBytes) ExpectRefused(WithSize(record, size - 8), name + " one word short");
    ExpectRefused(WithSize(record, size + 8), name + " one word too long");
    if (RawIdMask(record[0]) != 0) {
      std::vector<uint64_t> cleared = record;
      cleared[0] &= ~(uint64_t{1} << 9);  // first id says absent
      ExpectRefused(cleared, name + " id mask short");
    }
  }
  std::vector<uint64_t> unknown = {MakeRawHeader(static_cast<EventKind>(0xff), 0, 16, 0), 5};
  ExpectRefused(unknown, "unknown kind");
}

// A record's ticks, written as the difference from the record before it
// (or whole when that does not fit), read back exactly, for any pair of
// ticks; the difference costs no word, the whole ticks one.
TEST(RawRecord, TicksReadBackWhateverTheStepFromThePreviousRecord) {
  format::testing::Rng rng(77);
  const uint64_t domain = 3;
  const uint64_t steps[] = {0,
                            1,
                            uint64_t{INT32_MAX},
                            uint64_t{INT32_MAX} + 1,
                            uint64_t{0} - uint64_t{INT32_MAX},
                            uint64_t{0} - uint64_t{INT32_MAX} - 1,
                            uint64_t{1} << 40,
                            ~uint64_t{0}};
  uint64_t prev = 0, read = 0;
  for (int i = 0; i < 4000; ++i) {
    const uint64_t step = i < 64 ? steps[i % 8] : (rng() % 4 == 0 ? rng() : rng() % 100000);
    const uint64_t ticks = prev + step;
    const size_t size = RawRecordSize(ticks, prev, domain);
    const bool narrow = TicksFitHeader(ticks, prev);
    EXPECT_EQ(size, narrow ? 16u : 24u) << "step " << step;
    std::vector<uint64_t> words(size / 8);
    WriteRawRecord(reinterpret_cast<uint8_t*>(words.data()), size, EventKind::kTaskEnd, ticks, prev,
                   domain);
    EXPECT_EQ(RawSize(words[0]), size);
    EXPECT_EQ(RawKind(words[0]), static_cast<uint16_t>(EventKind::kTaskEnd));
    read = RawTicks(Bytes(words), read);
    ASSERT_EQ(read, ticks) << "step " << step;
    Event decoded;
    uint64_t task_word = kNoTaskWord;
    ASSERT_TRUE(DecodeRawRecord(Bytes(words), read, &task_word, &decoded));
    EXPECT_EQ(decoded.Get(format::Field::kDomain), domain);
    prev = ticks;
  }
}

// Every kind's ids fit the header's id mask, and every kind a ring or the
// definitions hold fits its kind bits.
TEST(RawRecord, EveryKindFitsTheHeader) {
  int count = 0;
  const format::KindSchema* all = format::AllSchemas(&count);
  for (int i = 0; i < count; ++i) {
    const auto kind = static_cast<uint16_t>(all[i].kind);
    if (kind >= 0x180) continue;  // written by the flusher itself, never raw
    EXPECT_LT(kind, kRawKindLimit) << all[i].name;
    int ids = 0;
    for (int f = 0; f < all[i].field_count; ++f) ids += all[i].fields[f].type == FieldType::kId;
    EXPECT_LE(ids, 7) << all[i].name;
  }
}

// Ring-only records one after another, as a ring holds them: each a random
// step after the one before, every 100th too far for the header's
// difference (its time then a whole word), written with the hot path's
// WriteRawRecord, and read back at their ticks. Every field one word.
struct RecordSequence {
  explicit RecordSequence(uint64_t seed) : rng(seed) {}
  // The next record's time.
  uint64_t Step() {
    time += steps++ % 100 == 0 ? uint64_t{1} << 33 : rng() % 1000;
    return time;
  }
  // *record: the record of `kind` and `fields` at the time Step gave, whose
  // ticks read back as that time.
  template <typename... Fields>
  void Write(std::vector<uint64_t>* record, EventKind kind, const Fields&... fields) {
    const size_t size = RawRecordSize(time, prev, fields...);
    record->assign(size / 8, 0);
    WriteRawRecord(reinterpret_cast<uint8_t*>(record->data()), size, kind, time, prev, fields...);
    wide += size == kRawHeaderBytes + kRawWideTicksBytes + 8 * sizeof...(fields);
    ASSERT_EQ(RawTicks(Bytes(*record), prev), time);
    prev = time;
  }

  format::testing::Rng rng;
  uint64_t time = 1000, prev = 0;
  int steps = 0;
  size_t wide = 0;  // records whose time is a whole word
};

// The ring-only packed task begin (domain and name in one word) reaches the
// trace as the kTaskBegin it stands for, with its time in the header or
// whole, and any other shape of it is refused.
TEST(RawRecord, PackedTaskBeginsWriteTheTaskBeginTheyStandFor) {
  RecordSequence seq(53);
  BothPaths paths(0);
  std::vector<uint64_t> record;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t time = seq.Step();
    const auto domain = static_cast<uint32_t>(seq.rng()), name = static_cast<uint32_t>(seq.rng());
    const uint64_t word = PackTaskBegin(domain, name);
    ASSERT_NO_FATAL_FAILURE(seq.Write(&record, kRawPackedTaskBegin, word));
    Event e;
    e.Init(EventKind::kTaskBegin, time);
    e.Set(format::Field::kDomain, domain);
    e.Set(format::Field::kName, name);
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
    EXPECT_EQ(paths.decode_word, word);
    EXPECT_EQ(paths.append_word, word);
  }
  EXPECT_EQ(seq.wide, 20u);
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  const uint64_t word = PackTaskBegin(1, 2);
  ExpectRefused({MakeRawHeader(kRawPackedTaskBegin, 0, 24, 0), word, 0}, "packed, a word long");
  ExpectRefused({MakeRawHeader(kRawPackedTaskBegin, 1, 16, 0), word}, "packed, an id bit");
  ExpectRefused({MakeRawHeader(kRawPackedTaskBegin, 0, 8, 0)}, "packed, no word");
}

// The ring-only metadata value (domain, type and key in one word, then the
// value's word) reaches the trace as the kMetadataAdd it stands for: one
// element of its type, null id, with its time in the header or whole; any
// other shape of it, or a type with no size, is refused.
TEST(RawRecord, MetadataValuesWriteTheMetadataAddTheyStandFor) {
  RecordSequence seq(61);
  BothPaths paths(0);
  std::deque<std::string> data;
  std::vector<uint64_t> record;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t time = seq.Step();
    const auto domain = static_cast<uint32_t>(seq.rng() & kMaxPackedDomain);
    const auto key = static_cast<uint32_t>(seq.rng());
    const auto type = static_cast<uint8_t>(1 + seq.rng() % 8);
    const auto size = static_cast<size_t>(format::MetadataTypeSize(type));
    uint64_t value = seq.rng();
    if (size < 8) value &= (uint64_t{1} << (8 * size)) - 1;  // as the hot path copies it
    ASSERT_NO_FATAL_FAILURE(
        seq.Write(&record, kRawMetadataValue, PackMetadataValue(domain, type, key), value));
    Event e;
    e.Init(EventKind::kMetadataAdd, time);
    e.Set(format::Field::kDomain, domain);
    e.Set(format::Field::kKey, key);
    e.Set(format::Field::kType, type);
    e.Set(format::Field::kCount, 1);
    data.emplace_back(reinterpret_cast<const char*>(&value), size);
    e.SetBytes(format::Field::kData, data.back());
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
  }
  EXPECT_EQ(seq.wide, 20u);
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  const uint64_t word = PackMetadataValue(1, 1, 2);
  ExpectRefused({MakeRawHeader(kRawMetadataValue, 0, 32, 0), word, 7, 0}, "value, a word long");
  ExpectRefused({MakeRawHeader(kRawMetadataValue, 0, 16, 0), word}, "value, no value word");
  ExpectRefused({MakeRawHeader(kRawMetadataValue, 1, 24, 0), word, 7}, "value, an id bit");
  ExpectRefused({MakeRawHeader(kRawMetadataValue, 0, 24, 0), PackMetadataValue(1, 0, 2), 7},
                "value, unknown type");
  ExpectRefused({MakeRawHeader(kRawMetadataValue, 0, 24, 0), PackMetadataValue(1, 9, 2), 7},
                "value, type past the last");
}

// The header-bits records (frames with a null id, counter steps: their
// domain or counter in the header's id-mask bits, no field) reach the trace
// as the kFrameBegin, kFrameEnd, kCounterInc and kCounterDec they stand
// for, with their time in the header or whole; WriteFrame and
// WriteCounterStep take that form exactly below kHeaderBitsLimit (and for
// a frame with a null id); a header-bits record with a field is refused.
TEST(RawRecord, HeaderBitsRecordsWriteTheEventsTheyStandFor) {
  RecordSequence seq(69);
  BothPaths paths(0);
  std::vector<uint64_t> record;
  std::map<EventKind, size_t> forms;
  size_t wide = 0;
  for (int i = 0; i < 4000; ++i) {
    const uint64_t time = seq.Step();
    // Mostly below the limit, now and then at it or past it.
    const auto ref = static_cast<uint32_t>(seq.rng() % 8 == 0 ? kHeaderBitsLimit - 1 + seq.rng() % 3
                                                              : seq.rng() % kHeaderBitsLimit);
    EventKind written = EventKind::kTaskEnd;
    auto write = [&](EventKind kind, const auto&... fields) {
      written = kind;
      seq.Write(&record, kind, fields...);
    };
    Event e;
    const int call = static_cast<int>(seq.rng() % 4);
    if (call < 2) {
      const EventKind kind = call == 0 ? EventKind::kFrameBegin : EventKind::kFrameEnd;
      const RawId id = seq.rng() % 5 == 0 ? RawId{seq.rng(), seq.rng(), 0} : RawId{0, 0, 0};
      ASSERT_NO_FATAL_FAILURE(WriteFrame(kind, ref, id, write));
      const bool small = !id.present() && ref < kHeaderBitsLimit;
      ASSERT_EQ(written, small ? (call == 0 ? kRawFrameBeginSmall : kRawFrameEndSmall) : kind);
      e.Init(kind, time);
      e.Set(format::Field::kDomain, ref);
      e.SetId(format::Field::kId, format::Id{id.d1, id.d2, id.d3});
    } else {
      const EventKind kind = call == 2 ? EventKind::kCounterInc : EventKind::kCounterDec;
      ASSERT_NO_FATAL_FAILURE(WriteCounterStep(kind, ref, write));
      ASSERT_EQ(written, ref < kHeaderBitsLimit
                             ? (call == 2 ? kRawCounterIncSmall : kRawCounterDecSmall)
                             : kind);
      e.Init(kind, time);
      e.Set(format::Field::kCounter, ref);
    }
    ++forms[written];
    wide += RawTickDelta(record[0]) == kWideTicks;
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
  }
  EXPECT_EQ(wide, 40u);  // every 100th step
  for (EventKind kind : {kRawFrameBeginSmall, kRawFrameEndSmall, kRawCounterIncSmall,
                         kRawCounterDecSmall, EventKind::kFrameBegin, EventKind::kFrameEnd,
                         EventKind::kCounterInc, EventKind::kCounterDec}) {
    EXPECT_GT(forms[kind], 50u) << static_cast<int>(kind);
  }
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  for (EventKind kind :
       {kRawFrameBeginSmall, kRawFrameEndSmall, kRawCounterIncSmall, kRawCounterDecSmall}) {
    ExpectRefused({MakeRawHeader(kind, 5, 16, 0), 7}, "header bits, a word");
    ExpectRefused({MakeRawHeader(kind, 5, 24, kWideTicks), 1000, 7}, "header bits, wide, a word");
  }
}

// The ring-only marker (domain, scope and name in one word) reaches the
// trace as the kMarker it stands for, null id, with its time in the header
// or whole; WriteMarker takes it exactly when the id is null, the domain
// fits 24 bits and the scope 8; any other shape of it is refused.
TEST(RawRecord, PackedMarkersWriteTheMarkerTheyStandFor) {
  RecordSequence seq(67);
  BothPaths paths(0);
  std::vector<uint64_t> record;
  size_t packed = 0;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t time = seq.Step();
    // Mostly what __itt_marker passes; now and then past each limit.
    const auto domain =
        static_cast<uint32_t>(i % 11 == 0 ? seq.rng() : seq.rng() & kMaxPackedDomain);
    const auto name = static_cast<uint32_t>(seq.rng());
    const uint64_t scope = i % 13 == 0 ? 256 + seq.rng() % 1000 : seq.rng() % 6;
    const RawId id = i % 7 == 0 ? RawId{seq.rng(), 0, 0} : RawId{0, 0, 0};
    EventKind written = EventKind::kTaskEnd;
    ASSERT_NO_FATAL_FAILURE(
        WriteMarker(domain, id, name, scope, [&](EventKind kind, const auto&... fields) {
          written = kind;
          seq.Write(&record, kind, fields...);
        }));
    const bool fits = !id.present() && domain <= kMaxPackedDomain && scope < 256;
    ASSERT_EQ(written, fits ? kRawMarkerPacked : EventKind::kMarker);
    packed += fits;
    Event e;
    e.Init(EventKind::kMarker, time);
    e.Set(format::Field::kDomain, domain);
    e.SetId(format::Field::kId, format::Id{id.d1, id.d2, id.d3});
    e.Set(format::Field::kName, name);
    e.Set(format::Field::kScope, scope);
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
  }
  EXPECT_GT(packed, 1000u);
  EXPECT_LT(packed, 2000u);
  EXPECT_GE(seq.wide, 10u);  // of the 20 wide steps, those whose record has no id
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  const uint64_t word = PackDomainByteString(1, 4, 2);
  ExpectRefused({MakeRawHeader(kRawMarkerPacked, 0, 24, 0), word, 7}, "marker, a word long");
  ExpectRefused({MakeRawHeader(kRawMarkerPacked, 0, 8, 0)}, "marker, no word");
  ExpectRefused({MakeRawHeader(kRawMarkerPacked, 1, 16, 0), word}, "marker, an id bit");
}

// The ring-only _ex task records on the default clock reach the trace as
// the kTaskBeginEx and kTaskEndEx they stand for, with their time in the
// header or whole: written as the hot path writes them (a begin's packed
// word becomes the task word; a begin or end that matches it is a repeat),
// few domains and names so that each form is common, plain task records
// mixed in (they share the task word); any other shape of them is refused.
TEST(RawRecord, DefaultClockTasksWriteTheEventsTheyStandFor) {
  RecordSequence seq(67);
  BothPaths paths(0);
  std::vector<uint64_t> record;
  uint64_t producer_word = kNoTaskWord;
  std::map<EventKind, size_t> forms;
  for (int i = 0; i < 4000; ++i) {
    const uint64_t time = seq.Step();
    const auto domain = static_cast<uint32_t>(1 + seq.rng() % 3);
    const auto name = static_cast<uint32_t>(1 + seq.rng() % 3);
    const uint64_t ts = seq.rng();
    auto write = [&](EventKind kind, const auto&... fields) {
      ++forms[kind];
      seq.Write(&record, kind, fields...);
      return true;
    };
    Event e;
    switch (seq.rng() % 5) {
      case 0:  // a plain task begin: it moves the task word too
        ASSERT_NO_FATAL_FAILURE(WriteTaskBegin(PackTaskBegin(domain, name), &producer_word, write));
        e.Init(EventKind::kTaskBegin, time);
        e.Set(format::Field::kDomain, domain);
        e.Set(format::Field::kName, name);
        ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
        continue;
      case 1:
      case 2:
        ASSERT_NO_FATAL_FAILURE(
            WriteDefaultClockBeginEx(PackTaskBegin(domain, name), ts, &producer_word, write));
        e.Init(EventKind::kTaskBeginEx, time);
        e.Set(format::Field::kName, name);
        break;
      default:
        ASSERT_NO_FATAL_FAILURE(WriteDefaultClockEndEx(domain, ts, producer_word, write));
        e.Init(EventKind::kTaskEndEx, time);
        break;
    }
    e.Set(format::Field::kDomain, domain);
    e.Set(format::Field::kClockDomain, 0);
    e.Set(format::Field::kUserTimestamp, ts);
    e.Set(format::Field::kTimestamp, ts);
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
    ASSERT_EQ(paths.append_word, producer_word);
    ASSERT_EQ(paths.decode_word, producer_word);
  }
  EXPECT_GE(seq.wide, 30u);
  for (EventKind kind : {kRawDefaultClockBeginEx, kRawDefaultClockEndEx,
                         kRawDefaultClockBeginExRepeat, kRawDefaultClockEndExRepeat}) {
    EXPECT_GT(forms[kind], 100u) << static_cast<int>(kind);
  }
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  for (EventKind kind : {kRawDefaultClockBeginEx, kRawDefaultClockEndEx}) {
    ExpectRefused({MakeRawHeader(kind, 0, 32, 0), 1, 2, 3}, "default clock, a word long");
    ExpectRefused({MakeRawHeader(kind, 0, 16, 0), 1}, "default clock, a word short");
    ExpectRefused({MakeRawHeader(kind, 1, 24, 0), 1, 2}, "default clock, an id bit");
  }
  for (EventKind kind : {kRawDefaultClockBeginExRepeat, kRawDefaultClockEndExRepeat}) {
    ExpectRefused({MakeRawHeader(kind, 0, 24, 0), 1, 2}, "default clock repeat, a word long");
    ExpectRefused({MakeRawHeader(kind, 0, 8, 0)}, "default clock repeat, no timestamp");
    ExpectRefused({MakeRawHeader(kind, 1, 16, 0), 1}, "default clock repeat, an id bit");
  }
}

// The ring-only relation with short ids (domain and relation in one word,
// the d1 and d2 of head and tail) reaches the trace as the kRelationAdd it
// stands for, d3 = 0, with its time in the header or whole; any other
// shape of it is refused.
TEST(RawRecord, ShortIdRelationsWriteTheRelationAddTheyStandFor) {
  RecordSequence seq(71);
  BothPaths paths(0);
  std::vector<uint64_t> record;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t time = seq.Step();
    const auto domain = static_cast<uint32_t>(seq.rng());
    const auto relation = static_cast<uint32_t>(seq.rng() % 16);
    const format::Id head{seq.rng(), seq.rng() % 3, 0}, tail{seq.rng(), seq.rng(), 0};
    ASSERT_NO_FATAL_FAILURE(seq.Write(&record, kRawRelationShortIds, PackRelation(domain, relation),
                                      head.d1, head.d2, tail.d1, tail.d2));
    Event e;
    e.Init(EventKind::kRelationAdd, time);
    e.Set(format::Field::kDomain, domain);
    e.SetId(format::Field::kHead, head);
    e.Set(format::Field::kRelation, relation);
    e.SetId(format::Field::kTail, tail);
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
  }
  EXPECT_EQ(seq.wide, 20u);
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  // WriteRelation takes the short form exactly when both ids are present
  // with d3 = 0 and the relation fits 32 bits; every form stands for its call.
  struct Choice {
    RawId head, tail;
    uint64_t relation;
    EventKind form;
  };
  const Choice choices[] = {
      {{1, 2, 0}, {3, 4, 0}, 5, kRawRelationShortIds},
      {{0, 2, 0}, {3, 0, 0}, 0, kRawRelationShortIds},
      {{1, 2, 7}, {3, 4, 0}, 5, EventKind::kRelationAdd},
      {{1, 2, 0}, {3, 4, 7}, 5, EventKind::kRelationAdd},
      {{0, 0, 0}, {3, 4, 0}, 5, EventKind::kRelationAdd},
      {{1, 2, 0}, {0, 0, 0}, 5, EventKind::kRelationAdd},
      {{1, 2, 0}, {3, 4, 0}, uint64_t{1} << 32, EventKind::kRelationAdd},
  };
  for (const Choice& c : choices) {
    const uint64_t time = seq.Step();
    EventKind written = EventKind::kTaskEnd;
    ASSERT_NO_FATAL_FAILURE(
        WriteRelation(9, c.head, c.relation, c.tail, [&](EventKind kind, const auto&... fields) {
          written = kind;
          seq.Write(&record, kind, fields...);
        }));
    EXPECT_EQ(written, c.form) << c.head.d3 << " " << c.relation;
    Event e;
    e.Init(EventKind::kRelationAdd, time);
    e.Set(format::Field::kDomain, 9);
    e.SetId(format::Field::kHead, format::Id{c.head.d1, c.head.d2, c.head.d3});
    e.Set(format::Field::kRelation, c.relation);
    e.SetId(format::Field::kTail, format::Id{c.tail.d1, c.tail.d2, c.tail.d3});
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
  }
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  const uint64_t word = PackRelation(1, 2);
  ExpectRefused({MakeRawHeader(kRawRelationShortIds, 0, 56, 0), word, 1, 2, 3, 4, 5},
                "relation, a word long");
  ExpectRefused({MakeRawHeader(kRawRelationShortIds, 0, 40, 0), word, 1, 2, 3},
                "relation, a word short");
  ExpectRefused({MakeRawHeader(kRawRelationShortIds, 1, 48, 0), word, 1, 2, 3, 4},
                "relation, an id bit");
}

// The ring-only JIT method load without files or line table (id, name,
// address, size) reaches the trace as the kJitMethodLoad it stands for,
// with three empty bytes fields, names of every length up to past the
// encoder's inline copy, time in the header or whole; WriteJitMethodLoad
// takes the whole record once any of the three is there; a short-form
// record whose name runs past its end, or with a word more, is refused.
TEST(RawRecord, NameOnlyJitMethodLoadsWriteTheMethodLoadTheyStandFor) {
  RecordSequence seq(73);
  BothPaths paths(0);
  std::deque<std::string> texts;
  std::vector<uint64_t> record;
  size_t whole = 0;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t time = seq.Step();
    const uint64_t id = 1 + seq.rng() % 100000, address = seq.rng(), size = seq.rng() % 65536;
    const std::string& name = texts.emplace_back(seq.rng() % 90, static_cast<char>('a' + i % 26));
    const std::string& file = texts.emplace_back(i % 7 == 0 ? "f.cc" : "");
    const RawBytes name_field{name.data(), name.size()}, file_field{file.data(), file.size()};
    EventKind written = EventKind::kTaskEnd;
    auto write = [&](EventKind kind, const auto&... fields) {
      written = kind;
      seq.Write(&record, kind, fields...);
    };
    ASSERT_NO_FATAL_FAILURE(WriteJitMethodLoad(id, name_field, address, size, RawBytes{"", 0},
                                               file_field, RawBytes{"", 0}, write));
    ASSERT_EQ(written, file.empty() ? kRawJitMethodLoadName : EventKind::kJitMethodLoad);
    whole += written == EventKind::kJitMethodLoad;
    Event e;
    e.Init(EventKind::kJitMethodLoad, time);
    e.Set(format::Field::kMethodId, id);
    e.SetBytes(format::Field::kMethodName, name);
    e.Set(format::Field::kAddress, address);
    e.Set(format::Field::kSize, size);
    e.SetBytes(format::Field::kClassFile, "");
    e.SetBytes(format::Field::kSourceFile, file);
    e.SetBytes(format::Field::kLineTable, "");
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, time, e, /*decode=*/true));
  }
  EXPECT_GT(whole, 200u);
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());

  const uint64_t a8 = 0x6161616161616161;  // "aaaaaaaa"
  ExpectRefused({MakeRawHeader(kRawJitMethodLoadName, 0, 40, 0), 1, 8, a8, 2}, "jit, a word short");
  ExpectRefused({MakeRawHeader(kRawJitMethodLoadName, 0, 56, 0), 1, 8, a8, 2, 3, 7},
                "jit, a word long");
  ExpectRefused({MakeRawHeader(kRawJitMethodLoadName, 0, 48, 0), 1, 100, a8, 2, 3},
                "jit, the name past the record");
  ExpectRefused({MakeRawHeader(kRawJitMethodLoadName, 1, 48, 0), 1, 8, a8, 2, 3}, "jit, an id bit");
  ExpectRefused({MakeRawHeader(EventKind::kJitMethodLoad, 1, 72, 0), 1, 8, a8, 2, 3, 0, 0, 0},
                "jit, whole, an id bit");
}

// A thread's task loop as the hot path writes it (itt_tasks.cc): a begin
// whose packed word is the ring's task word is a repeat, else a packed
// begin that becomes the task word; an end whose domain is the task word's
// is a repeat, else a whole record. Plain and overlapped calls (ids with
// d3 = 0 take the compact forms, others whole records) mixed, random
// domains, names and nesting, with the time in the header or whole: the
// flusher's path and the decoder write exactly the events made, carrying
// the task word from record to record as the ring's two ends do.
TEST(RawRecord, RepeatedTasksWriteTheEventsTheyStandFor) {
  format::testing::Rng rng(61);
  BothPaths paths(0);
  uint64_t time = 1000, prev = 0;
  uint64_t producer_word = kNoTaskWord;
  // Repeated begins, repeated ends, wide times, overlapped calls in compact
  // forms, begins with their name in the header.
  size_t counts[5] = {};
  std::vector<uint32_t> open;  // domains of the open tasks
  for (int i = 0; i < 30000; ++i) {
    time += i % 500 == 0 ? uint64_t{1} << 33 : rng() % 1000;
    // Few domains and names, so that repeats are common but not the rule.
    const auto domain = static_cast<uint32_t>(1 + rng() % 3);
    const bool overlapped = rng() % 2 == 0;
    const format::Id id{1 + rng() % 1000, rng() % 4, rng() % 8 == 0 ? uint64_t{1} + rng() % 9 : 0};
    const bool compact_id = overlapped && id.d3 == 0;
    counts[3] += compact_id;
    Event e;
    std::vector<uint64_t> record;
    auto make = [&](EventKind kind, auto... fields) {
      const size_t size = RawRecordSize(time, prev, fields...);
      record.assign(size / 8, 0);
      WriteRawRecord(reinterpret_cast<uint8_t*>(record.data()), size, kind, time, prev, fields...);
      counts[2] += !TicksFitHeader(time, prev);
    };
    auto init = [&](EventKind plain, EventKind with_id, uint32_t event_domain) {
      e.Init(overlapped ? with_id : plain, time);
      e.Set(format::Field::kDomain, event_domain);
      if (overlapped) e.SetId(format::Field::kId, id);
    };
    const RawId raw_id{id.d1, id.d2, id.d3};
    if (open.empty() || (open.size() < 8 && rng() % 2 == 0)) {
      // Names on both sides of the header's limit.
      const auto name =
          static_cast<uint32_t>(rng() % 8 == 0 ? kHeaderBitsLimit - 1 + rng() % 3 : rng() % 3);
      init(EventKind::kTaskBegin, EventKind::kTaskBeginOverlapped, domain);
      e.Set(format::Field::kName, name);
      const uint64_t word = PackTaskBegin(domain, name);
      if (overlapped && !compact_id) {
        make(EventKind::kTaskBeginOverlapped, uint64_t{domain}, raw_id, RawId{0, 0, 0},
             uint64_t{name});
      } else if (compact_id) {
        if (word == producer_word) {
          make(kRawOverlappedBeginRepeat, id.d1, id.d2);
          ++counts[0];
        } else {
          make(kRawPackedOverlappedBegin, word, id.d1, id.d2);
          producer_word = word;
        }
      } else {
        // As the hot path's task begin writes it.
        EventKind written = EventKind::kInvalid;
        WriteTaskBegin(word, &producer_word, [&](EventKind kind, auto... fields) {
          make(kind, fields...);
          written = kind;
          return true;
        });
        if (written == kRawTaskBeginRepeat) ++counts[0];
        if (written == kRawTaskBeginName) {
          ASSERT_LT(name, kHeaderBitsLimit);
          ++counts[4];
        }
      }
      open.push_back(domain);
    } else {
      const uint32_t end_domain = rng() % 4 == 0 ? domain : open.back();
      open.pop_back();
      init(EventKind::kTaskEnd, EventKind::kTaskEndOverlapped, end_domain);
      if (overlapped && !compact_id) {
        make(EventKind::kTaskEndOverlapped, uint64_t{end_domain}, raw_id);
      } else if (end_domain == TaskWordDomain(producer_word)) {
        compact_id ? make(kRawOverlappedEndRepeat, id.d1, id.d2) : make(kRawTaskEndRepeat);
        ++counts[1];
      } else if (compact_id) {
        make(EventKind::kTaskEndOverlapped, uint64_t{end_domain}, raw_id);
      } else {
        make(EventKind::kTaskEnd, uint64_t{end_domain});
      }
    }
    const uint64_t ticks = RawTicks(Bytes(record), prev);
    ASSERT_EQ(ticks, time);
    prev = time;
    ASSERT_NO_FATAL_FAILURE(paths.Add(record, ticks, e, /*decode=*/true)) << "record " << i;
  }
  EXPECT_GT(counts[0], 1000u);
  EXPECT_GT(counts[1], 1000u);
  EXPECT_GT(counts[2], 20u);
  EXPECT_GT(counts[3], 5000u);
  EXPECT_GT(counts[4], 1000u);
  EXPECT_EQ(paths.from_ring.payload(), paths.from_events.payload());
  EXPECT_EQ(paths.from_ring.event_count(), 30000u);

  // Any other shape of the ring-only kinds is refused.
  ExpectRefused({MakeRawHeader(kRawTaskBeginRepeat, 0, 16, 0), 5}, "begin repeat, a word long");
  ExpectRefused({MakeRawHeader(kRawTaskBeginRepeat, 1, 8, 0)}, "begin repeat, an id bit");
  ExpectRefused({MakeRawHeader(kRawTaskBeginName, 5, 16, 0), 5}, "named begin, a word long");
  ExpectRefused({MakeRawHeader(kRawTaskEndRepeat, 0, 16, 0), 5}, "end repeat, a word long");
  ExpectRefused({MakeRawHeader(kRawTaskEndRepeat, 2, 8, 0)}, "end repeat, an id bit");
  ExpectRefused({MakeRawHeader(kRawPackedOverlappedBegin, 0, 24, 0), 5, 6},
                "packed overlapped, no d2");
  ExpectRefused({MakeRawHeader(kRawOverlappedBeginRepeat, 0, 32, 0), 5, 6, 7},
                "overlapped begin repeat, a d3");
  ExpectRefused({MakeRawHeader(kRawOverlappedEndRepeat, 0, 16, 0), 5}, "overlapped end, no d2");
  ExpectRefused({MakeRawHeader(kRawOverlappedEndRepeat, 1, 24, 0), 5, 6},
                "overlapped end, an id bit");
}

}  // namespace
}  // namespace ittc::collector_internal
