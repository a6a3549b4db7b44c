#include "format/schema.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace ittc::format {
namespace {

TEST(Schema, EveryListedKindIsFoundByItsNumber) {
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  ASSERT_GT(count, 90);
  std::set<std::string> names;
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(FindSchema(all[i].kind), &all[i]);
    EXPECT_TRUE(names.insert(all[i].name).second) << all[i].name;
    EXPECT_LE(all[i].field_count, kMaxFields);
    std::set<std::string> fields;
    for (int f = 0; f < all[i].field_count; ++f) {
      EXPECT_TRUE(fields.insert(all[i].fields[f].name).second)
          << all[i].name << "." << all[i].fields[f].name;
      EXPECT_EQ(FindField(all[i], all[i].fields[f].name), f);
    }
    EXPECT_EQ(FindField(all[i], "no_such_field"), -1);
  }
}

TEST(Schema, UnknownKindsHaveNoSchema) {
  EXPECT_EQ(FindSchema(EventKind::kInvalid), nullptr);
  EXPECT_EQ(FindSchema(static_cast<EventKind>(127)), nullptr);
  EXPECT_EQ(FindSchema(static_cast<EventKind>(0x1ff)), nullptr);
  EXPECT_EQ(FindSchema(static_cast<EventKind>(0x1000)), nullptr);
  EXPECT_EQ(FindSchema(static_cast<EventKind>(0xffff)), nullptr);
}

TEST(Schema, HotKindsEncodeInOneByte) {
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  for (int i = 0; i < count; ++i) {
    const auto k = static_cast<uint16_t>(all[i].kind);
    if (k < 0x100) {
      EXPECT_LT(k, 128) << all[i].name;
    }
    EXPECT_FALSE(IsSizedKind(all[i].kind)) << "1.0 defines no sized kinds";
  }
}

TEST(Schema, OnDiskNumbersAreStable) {
  // These values are in files already written: they must never change.
  EXPECT_EQ(static_cast<int>(EventKind::kTaskBegin), 1);
  EXPECT_EQ(static_cast<int>(EventKind::kTaskEnd), 2);
  EXPECT_EQ(static_cast<int>(EventKind::kFrameSubmit), 16);
  EXPECT_EQ(static_cast<int>(EventKind::kCounterSetValue), 27);
  EXPECT_EQ(static_cast<int>(EventKind::kJitMethodLoadV3), 98);
  EXPECT_EQ(static_cast<int>(EventKind::kDefString), 0x100);
  EXPECT_EQ(static_cast<int>(EventKind::kEnd), 0x183);
  EXPECT_STREQ(FindSchema(EventKind::kTaskBegin)->name, "task_begin");
  EXPECT_EQ(FindSchema(EventKind::kTaskBegin)->field_count, 4);
}

TEST(Schema, MetadataTypeSizes) {
  EXPECT_EQ(MetadataTypeSize(static_cast<uint64_t>(MetadataType::kU64)), 8);
  EXPECT_EQ(MetadataTypeSize(static_cast<uint64_t>(MetadataType::kS16)), 2);
  EXPECT_EQ(MetadataTypeSize(static_cast<uint64_t>(MetadataType::kFloat)), 4);
  EXPECT_EQ(MetadataTypeSize(static_cast<uint64_t>(MetadataType::kDouble)), 8);
  EXPECT_EQ(MetadataTypeSize(0), 0);
  EXPECT_EQ(MetadataTypeSize(9), 0);
}

TEST(Event, TypedAccessorsRoundTrip) {
  Event e;
  e.Init(EventKind::kClockSync, 0);
  EXPECT_EQ(e.field_count, 3);
  EXPECT_TRUE(e.SetSint(Field::kRealtimeNs, -5));
  EXPECT_EQ(e.GetSint(Field::kRealtimeNs), -5);
  EXPECT_TRUE(e.SetDouble(Field::kTicks, 2.5));
  EXPECT_EQ(e.GetDouble(Field::kTicks), 2.5);
  e.Init(static_cast<EventKind>(0x1234), 9);
  EXPECT_EQ(e.field_count, 0);
}

TEST(Event, FieldsAreReachedByNameInEveryKind) {
  // task_begin_ex has its id three places later than task_begin: readers
  // that ask by name never see the difference.
  for (EventKind kind : {EventKind::kTaskBegin, EventKind::kTaskBeginEx}) {
    Event e;
    e.Init(kind, 100);
    EXPECT_TRUE(e.Set(Field::kDomain, 7));
    EXPECT_TRUE(e.SetId(Field::kId, Id{1, 2, 3}));
    EXPECT_TRUE(e.Set(Field::kName, 9));
    EXPECT_EQ(e.Get(Field::kDomain), 7u);
    EXPECT_EQ(e.GetId(Field::kId), (Id{1, 2, 3}));
    EXPECT_EQ(e.GetId(Field::kParent), Id{});
    EXPECT_EQ(e.Get(Field::kName), 9u);
    const KindSchema* s = FindSchema(kind);
    EXPECT_EQ(s->fields[s->IndexOf(Field::kName)].name, std::string("name"));
  }
}

TEST(Event, AFieldTheKindLacksReadsAsZeroAndCannotBeSet) {
  Event e;
  e.Init(EventKind::kTaskEnd, 5);
  EXPECT_FALSE(e.Has(Field::kName));
  EXPECT_EQ(e.Get(Field::kName), 0u);
  EXPECT_EQ(e.GetId(Field::kId), Id{});
  EXPECT_EQ(e.GetBytes(Field::kText), "");
  EXPECT_FALSE(e.Set(Field::kName, 3));
  EXPECT_EQ(FieldIndexOf(static_cast<EventKind>(0x1234), Field::kDomain), -1);
}

// A field's value shares storage with the other types' (FieldValue is a
// union), so each getter and setter keeps to the field's own type: `name`
// is a string id in a task and text in a domain definition, `id` an
// __itt_id in a task and a number in a definition.
TEST(Event, GettersAndSettersKeepToTheFieldsType) {
  Event task;
  task.Init(EventKind::kTaskBegin, 5);
  ASSERT_TRUE(task.Set(Field::kName, 0x1234));
  ASSERT_TRUE(task.SetId(Field::kId, Id{7, 8, 9}));
  EXPECT_EQ(task.Get(Field::kName), 0x1234u);
  EXPECT_EQ(task.GetBytes(Field::kName), "");
  EXPECT_EQ(task.Get(Field::kId), 0u);
  EXPECT_EQ(task.GetDouble(Field::kId), 0.0);
  EXPECT_EQ(task.GetId(Field::kId), (Id{7, 8, 9}));
  EXPECT_EQ(task.GetId(Field::kName), Id{});
  EXPECT_FALSE(task.SetBytes(Field::kName, "x"));
  EXPECT_FALSE(task.Set(Field::kId, 1));
  EXPECT_EQ(task.GetId(Field::kId), (Id{7, 8, 9}));
  EXPECT_EQ(task.Get(Field::kName), 0x1234u);

  Event def;
  def.Init(EventKind::kDefDomain, 0);
  ASSERT_TRUE(def.SetBytes(Field::kName, "dom"));
  ASSERT_TRUE(def.Set(Field::kId, 3));
  EXPECT_EQ(def.GetBytes(Field::kName), "dom");
  EXPECT_EQ(def.Get(Field::kName), 0u);
  EXPECT_EQ(def.Get(Field::kId), 3u);
  EXPECT_EQ(def.GetId(Field::kId), Id{});
  EXPECT_FALSE(def.Set(Field::kName, 1));
  EXPECT_FALSE(def.SetId(Field::kId, Id{1, 0, 0}));
  // The position does not depend on the type.
  EXPECT_EQ(FieldIndexOf(EventKind::kDefDomain, Field::kName), 1);
  EXPECT_EQ(FieldIndexOf(EventKind::kTaskBegin, Field::kId), 1);
}

TEST(Event, EffectiveTimeIsTheTimestampOfExKinds) {
  Event e;
  e.Init(EventKind::kTaskBeginEx, 100);
  e.Set(Field::kTimestamp, 90);
  EXPECT_EQ(EffectiveTime(e), 90u);
  e.Init(EventKind::kTaskBegin, 100);
  EXPECT_EQ(EffectiveTime(e), 100u);
}

TEST(Schema, EveryFieldHasItsNameAndARole) {
  int count = 0;
  const KindSchema* all = AllSchemas(&count);
  for (int i = 0; i < count; ++i) {
    for (int f = 0; f < all[i].field_count; ++f) {
      const FieldSpec& spec = all[i].fields[f];
      SCOPED_TRACE(std::string(all[i].name) + "." + spec.name);
      EXPECT_NE(spec.field, Field::kUnknown);
      EXPECT_EQ(std::string(FieldName(spec.field)), spec.name);
      EXPECT_EQ(FieldNamed(spec.name), spec.field);
      EXPECT_EQ(all[i].IndexOf(spec.field), f);
      if (spec.type == FieldType::kTime) {
        EXPECT_EQ(spec.role, FieldRole::kTime);
      }
      if (spec.role == FieldRole::kText) {
        EXPECT_EQ(spec.type, FieldType::kBytes);
      }
      if (spec.role == FieldRole::kStringRef || spec.role == FieldRole::kDomainRef) {
        EXPECT_EQ(spec.type, FieldType::kUint);
      }
    }
  }
  EXPECT_EQ(FieldNamed("no_such_field"), Field::kUnknown);
}

TEST(Schema, RolesSayWhatAFieldRefersTo) {
  const KindSchema* s = FindSchema(EventKind::kSyncCreate);
  EXPECT_EQ(s->fields[s->IndexOf(Field::kAddr)].role, FieldRole::kAddress);
  EXPECT_EQ(s->fields[s->IndexOf(Field::kObjname)].role, FieldRole::kStringRef);
  s = FindSchema(EventKind::kDefCounter);
  EXPECT_EQ(s->fields[s->IndexOf(Field::kName)].role, FieldRole::kText);
  EXPECT_EQ(s->fields[s->IndexOf(Field::kDomain)].role, FieldRole::kDomainRef);
  s = FindSchema(EventKind::kHeapAllocateEnd);
  EXPECT_EQ(s->fields[s->IndexOf(Field::kFunction)].role, FieldRole::kHeapFunctionRef);
}

}  // namespace
}  // namespace ittc::format

namespace ittc::format {
namespace {

TEST(Schema, LossCauseNames) {
  EXPECT_STREQ(LossCauseName(static_cast<uint64_t>(LossCause::kBufferFull)), "buffer_full");
  EXPECT_STREQ(LossCauseName(static_cast<uint64_t>(LossCause::kReentrant)), "reentrant");
  EXPECT_STREQ(LossCauseName(static_cast<uint64_t>(LossCause::kOverwritten)), "overwritten");
  EXPECT_STREQ(LossCauseName(200), "unknown");
}

}  // namespace
}  // namespace ittc::format
