#include "format/event_stream.h"

#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/coding.h"
#include "format/debug_string.h"
#include "gtest/gtest.h"
#include "tests/format/test_util.h"

namespace ittc::format {
namespace {

using testing::RandomEvent;
using testing::Rng;

// Compares every field according to its type.
void ExpectSameEvent(const Event& want, const Event& got) {
  ASSERT_EQ(want.kind, got.kind);
  EXPECT_EQ(want.time, got.time);
  const KindSchema* s = FindSchema(want.kind);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(got.field_count, s->field_count);
  for (int i = 0; i < s->field_count; ++i) {
    SCOPED_TRACE(s->fields[i].name);
    switch (s->fields[i].type) {
      case FieldType::kId:
        EXPECT_EQ(want.fields[i].id, got.fields[i].id);
        break;
      case FieldType::kBytes:
        EXPECT_EQ(want.fields[i].bytes, got.fields[i].bytes);
        break;
      default:
        EXPECT_EQ(want.fields[i].u, got.fields[i].u);
        break;
    }
  }
}

// The flags of a chunk whose fields are plain (as 1.0 and 1.1 wrote them):
// what the hand-built payloads below are.
constexpr uint16_t kPlainFields = 0;

std::string Varints(std::initializer_list<uint64_t> values);

// One prefix of a field block as one decoder read it: where it stopped
// (nullptr: failed), why, and the fields.
struct Decoded {
  const char* end = nullptr;
  const char* reason = nullptr;
  Event event;
};

// The schema-driven and the straight-line decoders read a prefix of
// `kind`'s fields alike: they stop at the same place and fail for the same
// reason, or give the same fields.
void ExpectSameDecoding(EventKind kind, Decoded& generic, Decoded& fast, ptrdiff_t at) {
  ASSERT_EQ(fast.end, generic.end) << at;
  if (generic.end == nullptr) {
    ASSERT_STREQ(fast.reason, generic.reason);
    return;
  }
  generic.event.kind = fast.event.kind = kind;
  generic.event.time = fast.event.time = 0;
  ExpectSameEvent(generic.event, fast.event);
}

std::vector<Event> DecodeAll(std::string_view payload, uint16_t chunk_flags, absl::Status* status) {
  EventStreamDecoder dec;
  std::vector<Event> out;
  *status = dec.Reset(payload, chunk_flags);
  if (!status->ok()) return out;
  Event e;
  while (dec.Next(&e)) out.push_back(e);
  *status = dec.status();
  return out;
}

std::vector<const KindSchema*> EventSchemas() {
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  std::vector<const KindSchema*> out;
  for (int i = 0; i < count; ++i) {
    if (static_cast<uint16_t>(all[i].kind) < 0x100) out.push_back(&all[i]);
  }
  return out;
}

// `rounds` random events of every event kind from `time` on, whose times
// mostly rise but step back now and then, as user clock domain timestamps
// and cross-CPU TSC reads can. Bytes fields point into *storage.
std::vector<Event> EveryKindEvents(Rng& rng, int rounds, uint64_t time,
                                   std::deque<std::string>* storage) {
  std::vector<Event> events;
  for (int round = 0; round < rounds; ++round) {
    for (const KindSchema* s : EventSchemas()) {
      time += rng() % 5000;
      if (rng() % 10 == 0) time -= rng() % 20000;
      events.push_back(RandomEvent(rng, s->kind, time, storage));
    }
  }
  return events;
}

TEST(EventStream, EveryEventKindRoundTrips) {
  Rng rng(42);
  std::deque<std::string> storage;
  std::vector<Event> events = EveryKindEvents(rng, 20, 1000000, &storage);
  // Extreme times: deltas that need all 64 bits.
  events.push_back(RandomEvent(rng, EventKind::kTaskEnd, ~0ull, &storage));
  events.push_back(RandomEvent(rng, EventKind::kTaskEnd, 0, &storage));

  for (auto coding :
       {EventStreamEncoder::FieldCoding::kDelta, EventStreamEncoder::FieldCoding::kPlain}) {
    SCOPED_TRACE(coding == EventStreamEncoder::FieldCoding::kDelta ? "delta" : "plain");
    EventStreamEncoder enc(coding);
    enc.Reset(7, 999999);
    for (const Event& e : events) {
      const size_t before = enc.payload().size();
      enc.Append(e);
      EXPECT_LE(enc.payload().size() - before, MaxEncodedEventSize(e));
    }
    EXPECT_EQ(enc.event_count(), events.size());
    EXPECT_EQ(enc.thread_index(), 7u);

    EventStreamDecoder dec;
    ASSERT_TRUE(dec.Reset(enc.payload(), enc.chunk_flags()).ok());
    EXPECT_EQ(dec.thread_index(), 7u);
    EXPECT_EQ(dec.base_time(), 999999u);
    Event got;
    for (const Event& want : events) {
      ASSERT_TRUE(dec.Next(&got)) << dec.status();
      ExpectSameEvent(want, got);
      if (HasFailure()) FAIL() << DebugString(want) << "\n" << DebugString(got);
    }
    EXPECT_FALSE(dec.Next(&got));
    EXPECT_TRUE(dec.status().ok());
    EXPECT_EQ(dec.events_decoded(), events.size());
  }
}

// Prepare only makes room: a prepared encoder writes the payload an
// unprepared one writes, however far the events go past the room made.
TEST(EventStream, PreparedEncoderWritesTheSamePayload) {
  Rng rng(7);
  std::deque<std::string> storage;
  const std::vector<Event> events = EveryKindEvents(rng, 200, 1000000, &storage);
  for (size_t room : {size_t{0}, size_t{100}, size_t{1} << 20}) {
    SCOPED_TRACE(room);
    EventStreamEncoder plain, prepared;
    plain.Reset(3, 4000);
    prepared.Reset(3, 4000);
    prepared.Prepare(room);
    for (const Event& e : events) {
      plain.Append(e);
      prepared.Append(e);
    }
    EXPECT_EQ(prepared.payload(), plain.payload());
    EXPECT_FALSE(prepared.failed());
  }
}

// payload() puts the prefix and time stream in the room before the op
// stream once a Reset has made it large enough, and copies the whole
// payload when it is not: both forms hold the same bytes, including a
// payload() taken between appends and after the room was outgrown.
TEST(EventStream, PayloadIsTheSameAssembledInPlaceOrCopied) {
  Rng rng(11);
  std::deque<std::string> storage;
  const std::vector<Event> events = EveryKindEvents(rng, 300, 1000000, &storage);
  EventStreamEncoder reused;
  for (size_t count : {events.size() / 3, events.size() / 3, events.size(), size_t{5}}) {
    SCOPED_TRACE(count);
    EventStreamEncoder fresh;  // its first payload is always copied
    fresh.Reset(3, 4000);
    reused.Reset(3, 4000);
    for (size_t i = 0; i < count; ++i) {
      fresh.Append(events[i]);
      reused.Append(events[i]);
      if (i % 97 == 0) {
        EXPECT_TRUE(reused.payload() == fresh.payload()) << i;  // not printed: binary
      }
    }
    EXPECT_TRUE(reused.payload() == fresh.payload());
    EXPECT_EQ(reused.payload().size(), reused.payload_size());
    absl::Status status;
    EXPECT_EQ(DecodeAll(reused.payload(), reused.chunk_flags(), &status).size(), count);
    EXPECT_TRUE(status.ok()) << status;
  }
}

TEST(EventStream, EveryEventKindPacksAndUnpacksToItself) {
  Rng rng(7);
  std::deque<std::string> storage;
  for (int round = 0; round < 20; ++round) {
    for (const KindSchema* s : EventSchemas()) {
      const Event want = RandomEvent(rng, s->kind, rng() % 100000, &storage);
      // The bytes land after others, and the bound leaves room past them.
      std::string buffer(16, 'x');
      buffer.resize(16 + PackedFieldsBound(want) + 16, 'y');
      char* const end = PackFields(want, buffer.data() + 16);
      ASSERT_LE(end, buffer.data() + 16 + PackedFieldsBound(want)) << s->name;
      EXPECT_LE(PackedFieldsBound(want), MaxEncodedEventSize(want)) << s->name;
      Event got;
      got.kind = want.kind;
      got.time = want.time;
      EXPECT_EQ(UnpackFields(buffer.data() + 16, end, &got), end) << s->name;
      ExpectSameEvent(want, got);
      if (HasFailure()) FAIL() << DebugString(want) << "\n" << DebugString(got);
      // A packed event cut short does not unpack.
      if (end > buffer.data() + 16) {
        EXPECT_EQ(UnpackFields(buffer.data() + 16, end - 1, &got), nullptr) << s->name;
      }
    }
  }
  Event unknown;
  unknown.kind = static_cast<EventKind>(0xfff);
  const char bytes[1] = {0};
  EXPECT_EQ(UnpackFields(bytes, bytes + 1, &unknown), nullptr);
}

TEST(EventStream, DeltaFieldsAreDifferencesFromTheKindsPreviousEvent) {
  // Hand-built: two overlapped task ends of ids {p, 7, 0} then {p, 8, 0},
  // with task ends of domains 5 and 3 among them. Ids are measured against
  // the previous event of their kind; domains, references, are stored as
  // they are.
  const uint64_t p = 0x7f0012345678;
  // Presence 0x0b: relative (8), d1 and d2 differ from the zero row.
  std::string ops = Varints({5, 1, 0x0b}) + Varints({ZigZagEncode(static_cast<int64_t>(p)), 14});
  ops += Varints({2, 5});           // task_end, domain 5
  ops += Varints({5, 1, 0x0a, 2});  // id: d1 as before, d2 + 1
  ops += Varints({2, 3});           // task_end, domain 3
  const std::string payload = Varints({0, 100, 4, 4, 2, 2, 2, 2}) + ops;
  EventStreamDecoder dec;
  ASSERT_TRUE(dec.Reset(payload, kChunkFlagDeltaFields).ok());
  Event e;
  ASSERT_TRUE(dec.Next(&e)) << dec.status();
  EXPECT_EQ(DebugString(e), absl::StrCat("task_end_overlapped @101 domain=1 id={", p, ",7,0}"));
  ASSERT_TRUE(dec.Next(&e)) << dec.status();
  EXPECT_EQ(DebugString(e), "task_end @102 domain=5");
  ASSERT_TRUE(dec.Next(&e)) << dec.status();
  EXPECT_EQ(DebugString(e), absl::StrCat("task_end_overlapped @103 domain=1 id={", p, ",8,0}"));
  ASSERT_TRUE(dec.Next(&e)) << dec.status();
  EXPECT_EQ(DebugString(e), "task_end @104 domain=3");
  EXPECT_FALSE(dec.Next(&e));
  EXPECT_TRUE(dec.status().ok()) << dec.status();
  // Read as plain fields, the same bytes are malformed: the chunk flag is
  // what tells the two codings apart.
  ASSERT_TRUE(dec.Reset(payload, kPlainFields).ok());
  EXPECT_FALSE(dec.Next(&e));
  EXPECT_EQ(dec.status().message(), "bad id presence byte");
}

TEST(EventStream, DeltaFieldsMakeALoopsEventsRepeatByteForByte) {
  // What delta coding is for: in a loop whose ids and user timestamps
  // count up, every event's ops are the same bytes, which zstd then finds
  // as one long match.
  EventStreamEncoder enc;
  enc.Reset(1, 0);
  for (uint64_t i = 1; i <= 3; ++i) {
    Event e;
    e.Init(EventKind::kRelationAdd, i * 10);
    e.Set(Field::kDomain, 1);
    e.SetId(Field::kHead, Id{0x7f0012345678, i, 0});
    e.Set(Field::kRelation, 3);
    e.SetId(Field::kTail, Id{0x7f0012345678, i + 1, 0});
    enc.Append(e);
    e.Init(EventKind::kTaskEndEx, i * 10 + 5);
    e.Set(Field::kDomain, 1);
    e.Set(Field::kClockDomain, 0);
    e.Set(Field::kUserTimestamp, 1000 + i);
    e.Set(Field::kTimestamp, 1000 + i);
    enc.Append(e);
  }
  const std::string payload(enc.payload());
  // relation_add: domain, head relative {=, +1, =}, relation, tail the same;
  // task_end_ex: domain, clock domain, user timestamp +1, and a timestamp
  // one more than the last: tag 1 (against its last value) and zigzag(1)
  // above it, where against its distance from the event's own time, which
  // shrinks by 9 each time, it would be zigzag(-9) = 17 (version 1.3).
  const std::string ops =
      Varints({41, 1, 0x0a, 2, 3, 0x0a, 2}) + Varints({8, 1, 0, 2, (2 << 1) | 1});
  EXPECT_EQ(payload.substr(payload.size() - 2 * ops.size()), ops + ops);
}

// A time field's two forms, with random values and event times against one
// running reference row: the 1.4 form (PutDeltaTime, what the encoder
// writes) and the form before it (the distance from the event's time as a
// difference from the last, PutDeltaWord, which readers of 1.2 and 1.3
// chunks meet) both read back as the value, and leave the row the writer
// left.
TEST(EventStream, TimeFieldsReadBackInBothForms) {
  Rng rng(31);
  for (bool pairs : {true, false}) {
    SCOPED_TRACE(pairs ? "1.4" : "1.3");
    internal::FieldHistory::Slot written = {0, 0, 0}, read = {0, 0, 0};
    for (int i = 0; i < 20000; ++i) {
      const uint64_t own_time = rng() >> (rng() % 64);
      // Counting, clock-like, near the event time, or anything.
      const uint64_t value = i % 4 == 0   ? written[1] + rng() % 3
                             : i % 4 == 1 ? own_time + written[0] + rng() % 100
                             : i % 4 == 2 ? own_time - rng() % 1000
                                          : rng();
      char buf[32];
      const char* end = pairs ? internal::PutDeltaTime(buf, value, own_time, written)
                              : internal::PutDeltaWord(buf, value - own_time, &written[0]);
      FieldValue f;
      const char* reason = nullptr;
      ASSERT_EQ(internal::GetDeltaField<FieldType::kTime>(
                    buf, end, own_time, [&]() -> auto& { return read; }, pairs, &f, &reason),
                end)
          << reason;
      ASSERT_EQ(f.u, value);
      ASSERT_EQ(read[0], written[0]);
      if (pairs) {
        ASSERT_EQ(read[1], written[1]);
      }
    }
  }
}

// The writer's choice between the two references: the nearer, and on a tie
// the distance from the event's time (tag 0), as FORMAT.md fixes it.
TEST(EventStream, TimeFieldTiesTakeTheFirstReference) {
  internal::FieldHistory::Slot slot = {0, 0, 0};
  char buf[16];
  // At own time 0 against a zero row both references differ by 5.
  ASSERT_EQ(internal::PutDeltaTime(buf, 5, 0, slot) - buf, 1);
  EXPECT_EQ(static_cast<unsigned char>(buf[0]), 10u << 1);  // zigzag(5), tag 0
  // One nearer by the value: tag 1.
  ASSERT_EQ(internal::PutDeltaTime(buf, 6, 100, slot) - buf, 1);
  EXPECT_EQ(static_cast<unsigned char>(buf[0]), (2u << 1) | 1);  // zigzag(1), tag 1
}

TEST(EventStream, EveryFieldTypeRoundTripsThroughTheFieldCodec) {
  // kDouble is used by no kind of version 1.0; a synthetic schema covers it
  // and every other type with the values that stress its encoding.
  KindSchema s{EventKind::kInvalid,
               "synthetic",
               6,
               {{"u", FieldType::kUint, Field::kUnknown, FieldRole::kPlain},
                {"s", FieldType::kSint, Field::kUnknown, FieldRole::kPlain},
                {"d", FieldType::kDouble, Field::kUnknown, FieldRole::kPlain},
                {"i", FieldType::kId, Field::kUnknown, FieldRole::kPlain},
                {"b", FieldType::kBytes, Field::kUnknown, FieldRole::kPlain},
                {"t", FieldType::kTime, Field::kUnknown, FieldRole::kPlain}},
               1};
  const std::string big(100000, 'x');
  struct Case {
    uint64_t u;
    int64_t s;
    double d;
    Id id;
    std::string_view b;
    uint64_t t;
  } cases[] = {
      {0, 0, 0.0, Id{}, "", 1000},
      {~0ull, -1, -1.5, Id{1, 0, 0}, "a", 0},
      {127, INT64_MIN, 1e300, Id{0, 2, 0}, std::string_view("\0\xff", 2), ~0ull},
      {128, INT64_MAX, -0.0, Id{0, 0, 3}, big, 999},
      {1ull << 63, 12345, 3.25, Id{~0ull, ~0ull, ~0ull}, "text", 1001},
  };
  for (const Case& c : cases) {
    Event e;
    e.field_count = 6;
    e.fields[0] = FieldValue::Uint(c.u);
    e.fields[1] = FieldValue::Sint(c.s);
    e.fields[2] = FieldValue::Double(c.d);
    e.fields[3] = FieldValue::OfId(c.id);
    e.fields[4] = FieldValue::Bytes(c.b);
    e.fields[5] = FieldValue::Time(c.t);
    std::string buf(200000, '\0');
    char* end = internal::EncodeFields(s, e, 1000, &buf[0]);
    Event got;
    const char* reason = nullptr;
    const char* p = internal::DecodeFields(s, buf.data(), end, 1000, &got, &reason);
    ASSERT_EQ(p, end) << reason;
    EXPECT_EQ(got.fields[0].u, c.u);
    EXPECT_EQ(got.fields[1].as_sint(), c.s);
    EXPECT_EQ(got.fields[2].u, e.fields[2].u);  // bit-exact, including -0.0
    EXPECT_EQ(got.fields[3].id, c.id);
    EXPECT_EQ(got.fields[4].bytes, c.b);
    EXPECT_EQ(got.fields[5].u, c.t);
    // Every strict prefix of the encoding is rejected, never over-read.
    for (const char* q = buf.data(); q < end; q += (end - q > 64 ? 997 : 1)) {
      EXPECT_EQ(internal::DecodeFields(s, buf.data(), q, 1000, &got, &reason), nullptr);
    }
  }
}

TEST(EventStream, FixedFormDecodesEveryKindAsTheSchemaDoes) {
  // Random events of every kind, then every prefix of their fields and
  // random bytes: the straight-line decoder of the usual kinds and the
  // schema-driven one agree on the fields, where they stop, and why they
  // fail. Kinds without a straight-line form say so and read nothing.
  Rng rng(11);
  std::deque<std::string> storage;
  int fixed_kinds = 0;
  for (const KindSchema* s : EventSchemas()) {
    SCOPED_TRACE(s->name);
    bool counted = false;
    for (int round = 0; round < 200; ++round) {
      const uint64_t own_time = rng();
      const Event e = RandomEvent(rng, s->kind, own_time + rng() % 1000, &storage);
      std::string buf(MaxEncodedEventSize(e), '\0');
      const char* end = internal::EncodeFields(*s, e, own_time, &buf[0]);
      if (round % 4 == 3) {  // garbage after a valid prefix
        const size_t cut = rng() % (static_cast<size_t>(end - buf.data()) + 1);
        for (size_t i = cut; i < buf.size(); ++i) buf[i] = static_cast<char>(rng());
        end = buf.data() + buf.size();
      }
      for (const char* limit = buf.data(); limit <= end; ++limit) {
        Decoded generic, fast;
        bool fixed = false;
        generic.end = internal::DecodeFields(*s, buf.data(), limit, own_time, &generic.event,
                                             &generic.reason);
        fast.end =
            internal::DecodeFixedFields(s->kind, buf.data(), limit, own_time, /*history=*/nullptr,
                                        /*addresses=*/false, &fast.event, &fast.reason, &fixed);
        if (!fixed) {
          ASSERT_EQ(fast.end, nullptr);
          break;
        }
        if (!counted) {
          ++fixed_kinds;
          counted = true;
        }
        ExpectSameDecoding(s->kind, generic, fast, limit - buf.data());
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GE(fixed_kinds, 30);  // the usual kinds all have the fast form
}

// The same in a delta-coded chunk, each event measured against a row of
// random previous values: both decoders give back the event, stop at the
// same place on every prefix, and leave the same row behind; with the
// addresses as they are (version 1.2) and as differences (1.3), the time
// fields both times in the 1.4 form, the only one the encoder writes
// (TimeFieldsReadBackInBothForms covers the older).
class FixedFormDeltaTest : public ::testing::TestWithParam<bool> {};

TEST_P(FixedFormDeltaTest, DecodesDeltaFieldsAsTheSchemaDoes) {
  const bool addresses = GetParam();
  Rng rng(12);
  std::deque<std::string> storage;
  int fixed_kinds = 0;
  using internal::FieldHistory;
  // Big: kept off the stack.
  auto enc_history = std::make_unique<FieldHistory>();
  auto g_history = std::make_unique<FieldHistory>();
  auto f_history = std::make_unique<FieldHistory>();
  for (const KindSchema* s : EventSchemas()) {
    SCOPED_TRACE(s->name);
    const uint16_t mask = s->delta_mask | (addresses ? s->address_mask : 0);
    bool counted = false;
    for (int round = 0; round < 50; ++round) {
      FieldHistory::Slot before[kMaxFields];
      for (FieldHistory::Slot& slot : before) {
        for (uint64_t& w : slot) w = rng() % 3 == 0 ? 0 : rng();
      }
      enc_history->Clear();
      FieldHistory::Slot* const enc_row = enc_history->Of(s->kind);
      std::memcpy(enc_row, before, sizeof before);
      const uint64_t own_time = rng();
      const Event e = RandomEvent(rng, s->kind, own_time + rng() % 1000, &storage);
      std::string buf(MaxEncodedEventSize(e), '\0');
      internal::EventFieldSource source(e);
      const char* end =
          internal::EncodeDeltaFieldsFrom(*s, mask, own_time, enc_row, source, &buf[0]);
      for (const char* limit = buf.data(); limit <= end; ++limit) {
        g_history->Clear();
        f_history->Clear();
        FieldHistory::Slot* const g_row = g_history->Of(s->kind);
        FieldHistory::Slot* const f_row = f_history->Of(s->kind);
        std::memcpy(g_row, before, sizeof before);
        std::memcpy(f_row, before, sizeof before);
        Decoded generic, fast;
        bool fixed = false;
        generic.end = internal::DecodeDeltaFields(*s, mask, buf.data(), limit, own_time, g_row,
                                                  &generic.event, &generic.reason);
        fast.end =
            internal::DecodeFixedFields(s->kind, buf.data(), limit, own_time, f_history.get(),
                                        addresses, &fast.event, &fast.reason, &fixed);
        if (limit == end) {
          ASSERT_EQ(generic.end, end) << generic.reason;
          generic.event.kind = e.kind;
          generic.event.time = e.time;
          ExpectSameEvent(e, generic.event);
          EXPECT_EQ(std::memcmp(g_row, enc_row, sizeof before), 0);
        }
        if (!fixed) {
          // Only the schema's reading: its full one was checked above.
          ASSERT_EQ(fast.end, nullptr);
          continue;
        }
        if (!counted) {
          ++fixed_kinds;
          counted = true;
        }
        ExpectSameDecoding(s->kind, generic, fast, limit - buf.data());
        if (generic.end != nullptr) {
          EXPECT_EQ(std::memcmp(g_row, f_row, sizeof before), 0);
        }
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GE(fixed_kinds, 30);
}

INSTANTIATE_TEST_SUITE_P(Versions, FixedFormDeltaTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Addresses" : "NoAddresses";
                         });

// WithFixedFields's visitor that gives a kind's straight-line address
// bits, or -1 if it has no straight-line form.
struct FixedAddresses {
  template <uint16_t kAddresses, FieldType...>
  int Fixed() {
    return kAddresses;
  }
  int Other() { return -1; }
};

TEST(EventStream, StraightLineKindsDeltaCodeOnlyTheirIdsAndAddresses) {
  // What PutDeltaFields assumes: a kind with a straight-line form stores
  // only its ids (and, in a 1.3 chunk, its addresses) as differences; the
  // address bits its form names are the schema's.
  int fixed_kinds = 0, with_addresses = 0;
  for (const KindSchema* s : EventSchemas()) {
    const int addresses = internal::WithFixedFields(s->kind, FixedAddresses{});
    if (addresses < 0) continue;
    ++fixed_kinds;
    with_addresses += addresses != 0;
    EXPECT_EQ(addresses, s->address_mask) << s->name;
    for (int i = 0; i < s->field_count; ++i) {
      EXPECT_EQ((s->delta_mask >> i) & 1, s->fields[i].type == FieldType::kId ? 1 : 0)
          << s->name << "." << s->fields[i].name;
      EXPECT_EQ(
          (s->address_mask >> i) & 1,
          s->fields[i].role == FieldRole::kAddress && s->fields[i].type == FieldType::kUint ? 1 : 0)
          << s->name << "." << s->fields[i].name;
    }
  }
  EXPECT_GE(fixed_kinds, 30);
  EXPECT_GE(with_addresses, 9);  // sync, heap, task_begin_fn
}

// A source whose fields read as `value` and which then says it was not ok
// (a malformed ring record).
struct RefusingSource {
  uint64_t value;
  uint64_t Word() { return value; }
  Id NextId() { return Id{value, value, 0}; }
  std::string_view NextBytes() { return {}; }
  bool ok() const { return false; }
};

TEST(EventStream, RefusedAppendLeavesTheDeltaReferencesAsTheReaderHasThem) {
  // A refused event has moved its kind's references before the source said
  // it was bad: the events after it must still decode to themselves, on
  // the straight-line path (sync_prepare: an address; task_begin: ids) and
  // the schema's (sync_create: an address; task_begin_ex: a counting field).
  for (EventKind kind : {EventKind::kSyncPrepare, EventKind::kTaskBegin, EventKind::kSyncCreate,
                         EventKind::kTaskBeginEx}) {
    SCOPED_TRACE(FindSchema(kind)->name);
    Rng rng(static_cast<uint64_t>(kind));
    std::deque<std::string> storage;
    EventStreamEncoder enc;
    enc.Reset(0, 100);
    std::vector<Event> kept;
    for (int i = 0; i < 20; ++i) {
      if (i % 3 == 1) {
        RefusingSource bad{rng()};
        EXPECT_FALSE(enc.AppendFrom(kind, 100 + i, 0, bad));
        continue;
      }
      kept.push_back(RandomEvent(rng, kind, 100 + i, &storage));
      enc.Append(kept.back());
    }
    ASSERT_FALSE(enc.failed());
    EXPECT_EQ(enc.event_count(), kept.size());
    EventStreamDecoder dec;
    ASSERT_TRUE(dec.Reset(enc.payload(), enc.chunk_flags()).ok());
    for (const Event& want : kept) {
      Event got;
      ASSERT_TRUE(dec.Next(&got)) << dec.status();
      ExpectSameEvent(want, got);
    }
    Event extra;
    EXPECT_FALSE(dec.Next(&extra));
    EXPECT_TRUE(dec.status().ok()) << dec.status();
  }
}

// A payload assembled in place lives in the op stream's buffer. An append
// that grows that buffer and is then refused (so the event count stays the
// same) must not leave payload() pointing at the old one: the refusal
// itself reads the payload back (RestoreHistory).
TEST(EventStream, PayloadInPlaceSurvivesARefusedAppendThatGrewTheBuffer) {
  Rng rng(5);
  std::deque<std::string> storage;
  std::vector<Event> kept;
  for (int i = 0; i < 200; ++i) {
    kept.push_back(RandomEvent(rng, EventKind::kTaskBeginEx, 100 + i, &storage));
  }
  EventStreamEncoder enc, want;
  enc.Reset(0, 100);
  for (const Event& e : kept) enc.Append(e);
  ASSERT_FALSE(enc.payload().empty());  // copied; the next Reset makes room in front
  enc.Reset(0, 100);
  want.Reset(0, 100);
  for (size_t i = 0; i < kept.size(); ++i) {
    enc.Append(kept[i]);
    want.Append(kept[i]);
    if (i == kept.size() / 2) {
      ASSERT_FALSE(enc.payload().empty());  // in place
      RefusingSource bad{rng()};
      // Room for a huge bytes field: the op buffer grows, and moves.
      EXPECT_FALSE(enc.AppendFrom(EventKind::kTaskBeginEx, 100 + i, size_t{4} << 20, bad));
      EXPECT_TRUE(enc.payload() == want.payload());
    }
  }
  ASSERT_FALSE(enc.failed());
  EXPECT_TRUE(enc.payload() == want.payload());
}

// Prepare may move the buffer a copied payload goes to, and only that one:
// room for 8 KiB grows the copy's buffer (4 KiB so far) but not the op
// stream's. The payload taken afterwards is still whole.
TEST(EventStream, PayloadAfterPrepareIsAssembledAgain) {
  EventStreamEncoder enc, want;
  enc.Reset(7, 100);
  want.Reset(7, 100);
  ASSERT_FALSE(enc.payload().empty());  // copied: no room in front yet
  enc.Prepare(8192);
  EXPECT_EQ(std::string(enc.payload()), std::string(want.payload()));
}

TEST(EventStream, NullIdTakesOneByte) {
  EventStreamEncoder enc(EventStreamEncoder::FieldCoding::kPlain);
  enc.Reset(0, 100);
  const size_t start = enc.payload_size();
  Event e;
  e.Init(EventKind::kTaskBegin, 101);
  e.Set(Field::kDomain, 1);
  e.SetId(Field::kId, Id{});
  e.SetId(Field::kParent, Id{});
  e.Set(Field::kName, 2);
  enc.Append(e);
  // delta; kind, domain, id, parent, name; and the count varint stays 1 byte.
  EXPECT_EQ(enc.payload_size() - start, 6u);
  Event end;
  end.Init(EventKind::kTaskEnd, 105);
  end.Set(Field::kDomain, 1);
  enc.Append(end);
  EXPECT_EQ(enc.payload_size() - start, 9u);
  EXPECT_EQ(enc.payload().size(), enc.payload_size());
  // Layout: thread, base, count, times length, times, ops.
  EXPECT_EQ(enc.payload(), std::string("\x00\x64\x02\x02\x02\x08"
                                       "\x01\x01\x00\x00\x02"
                                       "\x02\x01",
                                       13));
  // Delta-coded, the same bytes: null ids are null against the zero row,
  // and domains and names, references, are stored as they are.
  EventStreamEncoder delta;
  delta.Reset(0, 100);
  delta.Append(e);
  delta.Append(end);
  EXPECT_EQ(delta.payload(), enc.payload());
}

TEST(EventStream, OutOfMemoryDropsTheEventAndIsReported) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan reports a 4 TiB allocation instead of failing it";
#endif
  EventStreamEncoder enc;
  enc.Reset(1, 0);
  Event e;
  e.Init(EventKind::kTaskEnd, 1);
  e.Set(Field::kDomain, 1);
  enc.Append(e);
  const std::string before(enc.payload());
  // A bytes field claiming 4 TiB: the encoder must fail to make room for it
  // before reading any of it.
  static const char kByte = 'x';
  e.Init(EventKind::kMetadataStrAdd, 2);
  e.Set(Field::kDomain, 1);
  e.SetId(Field::kId, Id{});
  e.Set(Field::kKey, 1);
  e.SetBytes(Field::kText, std::string_view(&kByte, size_t{1} << 42));
  enc.Append(e);
  EXPECT_TRUE(enc.failed());
  EXPECT_EQ(enc.event_count(), 1u);
  EXPECT_EQ(enc.payload(), before);  // still a consistent payload
  enc.Reset(1, 0);
  EXPECT_FALSE(enc.failed());
}

TEST(EventStream, ResetReusesTheEncoder) {
  Rng rng(3);
  uint64_t t = 0;
  std::vector<Event> a = testing::RealisticMix(rng, 1000, &t);
  EventStreamEncoder enc;
  enc.Reset(1, a[0].time);
  for (const Event& e : a) enc.Append(e);
  const std::string first(enc.payload());
  enc.Reset(1, a[0].time);
  for (const Event& e : a) enc.Append(e);
  EXPECT_EQ(enc.payload(), first);
  EXPECT_EQ(enc.event_count(), a.size());
}

TEST(EventStream, EmptyPayloadIsAnError) {
  EventStreamDecoder dec;
  EXPECT_FALSE(dec.Reset("", kPlainFields).ok());
  Event e;
  EXPECT_FALSE(dec.Next(&e));
}

TEST(EventStream, ThreadIndexAbove32BitsIsAnError) {
  std::string p;
  AppendVarint64(&p, 1ull << 32);
  AppendVarint64(&p, 0);
  AppendVarint64(&p, 0);
  AppendVarint64(&p, 0);
  EventStreamDecoder dec;
  EXPECT_FALSE(dec.Reset(p, kPlainFields).ok());
}

// Builds payloads by hand, as an independent decoder would read them.
struct RawStream {
  std::string times;
  std::string ops;
  uint64_t count = 0;

  void Add(uint64_t zigzag_delta, std::string_view op_bytes) {
    AppendVarint64(&times, zigzag_delta);
    ops.append(op_bytes.data(), op_bytes.size());
    ++count;
  }
  void AddTaskEnd(uint64_t zigzag_delta) { Add(zigzag_delta, std::string("\x02\x01", 2)); }
  std::string Payload() const {
    std::string p;
    AppendVarint64(&p, 3);     // thread index
    AppendVarint64(&p, 1000);  // base time
    AppendVarint64(&p, count);
    AppendVarint64(&p, times.size());
    return p + times + ops;
  }
};

std::string Varints(std::initializer_list<uint64_t> values) {
  std::string s;
  for (uint64_t v : values) AppendVarint64(&s, v);
  return s;
}

TEST(EventStream, UnknownSizedKindIsSkippedAndItsTimeKept) {
  RawStream raw;
  raw.AddTaskEnd(20);  // +10 -> 1010
  // Unknown sized kind, +20 -> 1030, five bytes of fields.
  raw.Add(40, Varints({0x1234, 5}) + "\x01\x02\x03\x04\x05");
  raw.AddTaskEnd(2);                          // +1 -> 1031
  const std::string payload = raw.Payload();  // must outlive the decoder
  EventStreamDecoder dec;
  ASSERT_TRUE(dec.Reset(payload, kPlainFields).ok());
  Event e;
  ASSERT_TRUE(dec.Next(&e));
  EXPECT_EQ(e.time, 1010u);
  ASSERT_TRUE(dec.Next(&e));
  EXPECT_EQ(e.kind, EventKind::kTaskEnd);
  EXPECT_EQ(e.time, 1031u);
  EXPECT_FALSE(dec.Next(&e));
  EXPECT_TRUE(dec.status().ok()) << dec.status();
  EXPECT_EQ(dec.unknown_skipped(), 1u);
}

struct BadCase {
  const char* name;
  std::string times;  // time-stream bytes of the bad event
  std::string ops;    // op-stream bytes of the bad event
  const char* reason;
};

TEST(EventStream, MalformedEventsAreErrorsNotCrashes) {
  const std::string zero(1, '\0');
  std::vector<BadCase> cases = {
      {"kind zero", zero, zero, "bad event kind"},
      {"unknown unsized kind", zero, "\x7f", "unknown event kind"},
      {"record kind", zero, Varints({0x100, 1, 0}), "record kind in events chunk"},
      {"kind above 16 bits", zero, Varints({0x10000}), "bad event kind"},
      {"truncated delta", "\x80", "\x02\x01", "bad time delta"},
      {"missing delta", "", "\x02\x01", "bad time delta"},
      {"missing field", zero, "\x02", "bad varint field"},
      // task_begin with an id presence byte using reserved bits.
      {"bad id presence", zero, std::string("\x01\x01\x08", 3), "bad id presence byte"},
      // metadata_str_add whose text length runs past the end.
      {"bytes past end", zero,
       std::string("\x23\x01\x00\x05\x10"
                   "abc",
                   8),
       "bad bytes field length"},
      {"sized length past end", zero, Varints({0x1234, 100}) + "short", "bad sized event length"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    RawStream raw;
    raw.AddTaskEnd(2);
    raw.times += c.times;
    raw.ops += c.ops;
    raw.count += 1;
    const std::string p = raw.Payload();
    EventStreamDecoder dec;
    ASSERT_TRUE(dec.Reset(p, kPlainFields).ok());
    Event e;
    ASSERT_TRUE(dec.Next(&e));
    EXPECT_FALSE(dec.Next(&e));
    EXPECT_FALSE(dec.Next(&e));
    EXPECT_EQ(dec.status().message(), c.reason);
    EXPECT_EQ(dec.offset(), p.size() - c.ops.size());
  }
}

TEST(EventStream, CountAndStreamsMustAgree) {
  RawStream ok;
  ok.AddTaskEnd(2);
  ok.AddTaskEnd(2);
  RawStream more_times = ok;
  more_times.times += std::string(1, '\0');
  RawStream fewer_declared = ok;
  fewer_declared.count = 1;
  RawStream more_declared = ok;
  more_declared.count = 3;
  for (auto& [raw, reason] : std::vector<std::pair<RawStream, const char*>>{
           {more_times, "event count does not match the streams"},
           {fewer_declared, "more events than the declared count"},
           {more_declared, "event count does not match the streams"}}) {
    const std::string payload = raw.Payload();
    EventStreamDecoder dec;
    ASSERT_TRUE(dec.Reset(payload, kPlainFields).ok());
    Event e;
    while (dec.Next(&e)) {
    }
    EXPECT_EQ(dec.status().message(), reason);
  }
  const std::string payload = ok.Payload();
  EventStreamDecoder dec;
  ASSERT_TRUE(dec.Reset(payload, kPlainFields).ok());
  EXPECT_EQ(dec.event_count(), 2u);
  Event e;
  int n = 0;
  while (dec.Next(&e)) ++n;
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(dec.status().ok());
}

TEST(EventStream, TimesLengthPastTheEndIsAnError) {
  EventStreamDecoder dec;
  EXPECT_FALSE(dec.Reset(Varints({0, 0, 1, 50}) + "\x00\x02\x01", kPlainFields).ok());
}

TEST(EventStream, NothingAfterAMalformedEventIsDecoded) {
  RawStream raw;
  raw.Add(0, "\x7f");  // unknown unsized kind: its length is unknowable
  raw.AddTaskEnd(2);
  const std::string payload = raw.Payload();  // must outlive the decoder
  EventStreamDecoder dec;
  ASSERT_TRUE(dec.Reset(payload, kPlainFields).ok());
  Event e;
  EXPECT_FALSE(dec.Next(&e));
  EXPECT_FALSE(dec.status().ok());
  EXPECT_FALSE(dec.Next(&e));
  EXPECT_EQ(dec.events_decoded(), 0u);
}

TEST(EventStream, EveryTruncationOfAPayloadDecodesAPrefixOrFails) {
  Rng rng(11);
  std::deque<std::string> storage;
  EventStreamEncoder enc;
  enc.Reset(1, 0);
  std::vector<Event> events;
  uint64_t t = 0;
  for (const KindSchema* s : EventSchemas()) {
    t += 100;
    events.push_back(RandomEvent(rng, s->kind, t, &storage));
    enc.Append(events.back());
  }
  const std::string payload(enc.payload());
  for (size_t n = 0; n < payload.size(); ++n) {
    const std::string cut = payload.substr(0, n);  // exact-size heap buffer
    absl::Status st;
    std::vector<Event> got = DecodeAll(cut, enc.chunk_flags(), &st);
    ASSERT_LE(got.size(), events.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(DebugString(got[i]), DebugString(events[i]));
    }
    if (st.ok()) {
      // Only a cut exactly between events decodes cleanly.
      EXPECT_LT(got.size(), events.size());
    }
  }
}

// Decodes with NextSimpleTask or NextSimpleFrame wherever it takes the
// event and Next elsewhere, each simple task or frame as its ToEvent; and
// checks that NextMayBeSimple said, before each event, whether it is a
// task_begin, task_end, frame_begin or frame_end.
std::vector<Event> DecodeAllWithSimpleTasks(std::string_view payload, uint16_t chunk_flags,
                                            absl::Status* status, size_t* simple) {
  EventStreamDecoder dec;
  std::vector<Event> out;
  *status = dec.Reset(payload, chunk_flags);
  if (!status->ok()) return out;
  EventStreamDecoder::SimpleTask task;
  EventStreamDecoder::SimpleFrame frame;
  Event e;
  for (;;) {
    const bool may_be_simple = dec.NextMayBeSimple();
    const size_t before = out.size();
    if (dec.NextSimpleTask(&task)) {
      ++*simple;
      task.ToEvent(&e);
      out.push_back(e);
    } else if (dec.NextSimpleFrame(&frame)) {
      ++*simple;
      frame.ToEvent(&e);
      out.push_back(e);
    } else if (dec.Next(&e)) {
      out.push_back(e);
    } else {
      break;
    }
    if (out.size() != before) {
      const EventKind k = out.back().kind;
      EXPECT_EQ(may_be_simple, k == EventKind::kTaskBegin || k == EventKind::kTaskEnd ||
                                   k == EventKind::kFrameBegin || k == EventKind::kFrameEnd)
          << DebugString(out.back());
    }
  }
  *status = dec.status();
  return out;
}

// Simple tasks and frames read without an Event read as Next reads them,
// in both codings, among every other kind, task begins and frames with
// ids, and on every truncation of the payload (the same events, the same
// error).
TEST(EventStream, SimpleTasksAndFramesDecodeAsNextDecodesThem) {
  Rng rng(13);
  std::deque<std::string> storage;
  std::vector<Event> events;
  uint64_t t = 1000;
  for (int round = 0; round < 30; ++round) {
    for (const KindSchema* s : EventSchemas()) {
      t += rng() % 3000;
      Event e = RandomEvent(rng, s->kind, t, &storage);
      if (s->kind == EventKind::kTaskBegin && rng() % 3 != 0) {
        e.SetId(Field::kId, Id{});  // mostly null ids, as __itt_null
        e.SetId(Field::kParent, Id{});
      }
      if ((s->kind == EventKind::kFrameBegin || s->kind == EventKind::kFrameEnd) &&
          rng() % 3 != 0) {
        e.SetId(Field::kId, Id{});  // mostly NULL, the usual call
      }
      events.push_back(e);
      if (rng() % 2 == 0) {
        events.push_back(RandomEvent(rng, EventKind::kTaskEnd, t + rng() % 100, &storage));
      }
    }
  }
  for (auto coding :
       {EventStreamEncoder::FieldCoding::kDelta, EventStreamEncoder::FieldCoding::kPlain}) {
    SCOPED_TRACE(coding == EventStreamEncoder::FieldCoding::kDelta ? "delta" : "plain");
    EventStreamEncoder enc(coding);
    enc.Reset(3, 500);
    for (const Event& e : events) enc.Append(e);
    const std::string payload(enc.payload());
    size_t simple = 0;
    absl::Status st;
    std::vector<Event> got = DecodeAllWithSimpleTasks(payload, enc.chunk_flags(), &st, &simple);
    ASSERT_TRUE(st.ok()) << st;
    ASSERT_EQ(got.size(), events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      ASSERT_EQ(DebugString(got[i]), DebugString(events[i])) << i;
    }
    EXPECT_GT(simple, events.size() / 4);  // the path under test was taken
    // Every cut of a shorter stream.
    enc.Reset(3, 500);
    for (size_t i = 0; i < 120; ++i) enc.Append(events[i]);
    const std::string short_payload(enc.payload());
    for (size_t n = 0; n < short_payload.size(); ++n) {
      const std::string cut = short_payload.substr(0, n);  // exact-size heap buffer
      absl::Status want_status;
      const std::vector<Event> want = DecodeAll(cut, enc.chunk_flags(), &want_status);
      absl::Status got_status;
      size_t unused = 0;
      const std::vector<Event> cut_got =
          DecodeAllWithSimpleTasks(cut, enc.chunk_flags(), &got_status, &unused);
      ASSERT_EQ(got_status, want_status) << n;
      ASSERT_EQ(cut_got.size(), want.size()) << n;
      for (size_t i = 0; i < want.size(); ++i) {
        ExpectSameEvent(want[i], cut_got[i]);
        ASSERT_FALSE(HasFailure()) << n << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ittc::format
