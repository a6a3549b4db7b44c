// Runs every_api_program under the collector (loaded by our static part for
// both ITT and JIT) and checks that the trace holds exactly the calls made,
// in order, with their arguments, and none made while paused.

#include <sys/wait.h>

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/collector/every_api_constants.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

using format::EventKind;
using K = format::EventKind;

class EveryApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = MakeTempDir("every_api");
    trace_path_ = new std::string(dir + "/every.itt");
    std::string lib = Runfile("collector/libittcollector.so");
    int status = RunProgram({Runfile("tests/collector/every_api_program")},
                            {"INTEL_LIBITTNOTIFY64=" + lib, "INTEL_JIT_PROFILER64=" + lib,
                             "ITTC_OUTPUT=" + *trace_path_},
                            dir + "/stdout.txt");
    ASSERT_TRUE(WIFEXITED(status)) << status;
    ASSERT_EQ(WEXITSTATUS(status), 0);
    auto loaded = LoadTrace(*trace_path_);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    trace_ = new LoadedTrace(std::move(*loaded));
  }

  static const DecodedEvent& Only(EventKind kind) {
    auto all = trace_->OfKind(kind);
    EXPECT_EQ(all.size(), 1u) << format::FindSchema(kind)->name;
    static DecodedEvent empty;
    return all.empty() ? empty : *all[0];
  }

  static std::string Str(uint64_t id) {
    auto it = trace_->strings.find(id);
    return it == trace_->strings.end() ? "<no string " + std::to_string(id) + ">" : it->second;
  }

  static std::string DefName(EventKind def_kind, uint64_t id, const char* field = "name") {
    for (const DecodedEvent& d : trace_->definitions) {
      if (d.kind == def_kind && d.U("id") == id) return d.Bytes(field);
    }
    return "<undefined>";
  }

  static std::string* trace_path_;
  static LoadedTrace* trace_;
};

std::string* EveryApiTest::trace_path_ = nullptr;
LoadedTrace* EveryApiTest::trace_ = nullptr;

const format::Id kId{EA_ID_ADDR, EA_ID_EXTRA, 0};
const format::Id kParent{EA_PARENT_ADDR, EA_PARENT_EXTRA, 0};

TEST_F(EveryApiTest, TraceIsCompleteAndClean) {
  EXPECT_TRUE(trace_->has_end);
  EXPECT_EQ(trace_->corruptions, 0);
  EXPECT_EQ(trace_->truncations, 0);
  EXPECT_EQ(trace_->TotalLoss(), 0u);
  EXPECT_EQ(trace_->end.events_recorded, trace_->events.size());
  EXPECT_EQ(trace_->end.events_dropped, 0u);
  EXPECT_GE(trace_->syncs.size(), 2u);
  EXPECT_NE(trace_->header.timebase_hz, 0u);
  EXPECT_NE(trace_->header.executable_path.find("every_api_program"), std::string::npos);
}

TEST_F(EveryApiTest, RecordsExactlyTheCallsInOrder) {
  const std::vector<EventKind> expected = {
      K::kThreadSetName,
      K::kTaskBegin,
      K::kTaskEnd,
      K::kTaskBeginFn,
      K::kTaskEnd,
      K::kTaskGroup,
      K::kTaskBeginOverlapped,
      K::kTaskEndOverlapped,
      K::kTaskBeginOverlapped,
      K::kTaskEndOverlapped,
      K::kTaskBeginEx,
      K::kTaskEndEx,
      K::kTaskBeginEx,
      K::kTaskEndEx,
      K::kTaskBeginFnEx,
      K::kTaskBeginOverlappedEx,
      K::kTaskEndOverlappedEx,
      K::kRegionBegin,
      K::kRegionEnd,
      K::kFrameBegin,
      K::kFrameEnd,
      K::kFrameBegin,
      K::kFrameEnd,
      K::kFrameSubmit,
      K::kMarker,
      K::kMarker,
      K::kMarkerEx,
      K::kIdCreate,
      K::kIdDestroy,
      K::kIdCreateEx,
      K::kIdDestroyEx,
      K::kRelationAdd,
      K::kRelationAddToCurrent,
      K::kRelationAddEx,
      K::kRelationAddToCurrentEx,
      K::kCounterInc,
      K::kCounterIncDelta,
      K::kCounterDec,
      K::kCounterDecDelta,
      K::kCounterSetValue,
      K::kCounterSetValueV3,
      K::kCounterSetValueEx,
      K::kCounterIncV3,
      K::kCounterIncDeltaV3,
      K::kCounterDecV3,
      K::kCounterDecDeltaV3,
      K::kCounterBindContextMetadata,
      K::kCounterBindContextMetadata,
      K::kCounterDestroy,
      K::kEventStart,
      K::kEventEnd,
      K::kMetadataAdd,
      K::kMetadataAdd,
      K::kMetadataAdd,
      K::kMetadataAdd,
      K::kMetadataStrAdd,
      K::kMetadataAddWithScope,
      K::kMetadataStrAddWithScope,
      K::kFormattedMetadataAdd,
      K::kFormattedMetadataAddOverlapped,
      K::kHistogramSubmit,
      K::kSyncCreate,
      K::kSyncRename,
      K::kSyncPrepare,
      K::kSyncCancel,
      K::kSyncPrepare,
      K::kSyncAcquired,
      K::kSyncReleasing,
      K::kSyncDestroy,
      K::kHeapAllocateBegin,
      K::kHeapAllocateEnd,
      K::kHeapReallocateBegin,
      K::kHeapReallocateEnd,
      K::kHeapFreeBegin,
      K::kHeapFreeEnd,
      K::kHeapInternalAccessBegin,
      K::kHeapInternalAccessEnd,
      K::kHeapRecordMemoryGrowthBegin,
      K::kHeapRecordMemoryGrowthEnd,
      K::kHeapResetDetection,
      K::kHeapRecord,
      K::kModuleLoad,
      K::kModuleUnload,
      K::kSuppressPush,
      K::kSuppressPop,
      K::kPause,
      K::kThreadSetName,
      K::kResume,
      K::kJitMethodLoad,
      K::kJitMethodLoadV2,
      K::kJitMethodLoadV3,
      K::kJitInlineLoad,
      K::kJitMethodUpdate,
      K::kJitMethodUpdateV2,
      K::kJitMethodUnload,
      K::kJitShutdown,
      K::kThreadIgnore,
  };
  std::vector<std::string> got;
  for (const DecodedEvent& e : trace_->events) got.push_back(format::FindSchema(e.kind)->name);
  std::vector<std::string> want;
  for (EventKind k : expected) want.push_back(format::FindSchema(k)->name);
  EXPECT_EQ(got, want);
  // One thread, in non-decreasing time order.
  for (size_t i = 1; i < trace_->events.size(); ++i) {
    EXPECT_EQ(trace_->events[i].thread, trace_->events[0].thread);
    EXPECT_LE(trace_->events[i - 1].time, trace_->events[i].time) << i;
  }
}

TEST_F(EveryApiTest, NothingButThreadNamingRecordedWhilePaused) {
  bool paused = false;
  int named_while_paused = 0;
  for (const DecodedEvent& e : trace_->events) {
    if (e.kind == K::kPause) {
      paused = true;
      continue;
    }
    if (e.kind == K::kResume) {
      paused = false;
      continue;
    }
    if (paused && e.kind == K::kThreadSetName) {
      ++named_while_paused;
      continue;
    }
    EXPECT_FALSE(paused) << format::FindSchema(e.kind)->name << " recorded while paused";
    const format::KindSchema* s = format::FindSchema(e.kind);
    int name = format::FindField(*s, "name");
    if (name >= 0 && e.kind != K::kThreadSetName) {
      EXPECT_NE(Str(e.u[name]), EA_PAUSED_TASK);
    }
  }
  EXPECT_EQ(named_while_paused, 1);
}

TEST_F(EveryApiTest, TaskArguments) {
  auto begins = trace_->OfKind(K::kTaskBegin);
  ASSERT_EQ(begins.size(), 1u);
  EXPECT_EQ(trace_->domains[begins[0]->U("domain")], EA_DOMAIN);
  EXPECT_EQ(begins[0]->IdOf("id"), kId);
  EXPECT_EQ(begins[0]->IdOf("parent"), kParent);
  EXPECT_EQ(Str(begins[0]->U("name")), EA_TASK);
  const DecodedEvent& fn = Only(K::kTaskBeginFn);
  EXPECT_NE(fn.U("fn"), 0u);
  EXPECT_EQ(fn.IdOf("id"), format::Id{});
  EXPECT_EQ(Only(K::kTaskGroup).IdOf("parent"), kParent);
  const auto overlapped_begins = trace_->OfKind(K::kTaskBeginOverlapped);
  const auto overlapped_ends = trace_->OfKind(K::kTaskEndOverlapped);
  ASSERT_EQ(overlapped_begins.size(), 2u);
  ASSERT_EQ(overlapped_ends.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(overlapped_begins[i]->U("domain"), begins[0]->U("domain"));
    EXPECT_EQ(overlapped_begins[i]->IdOf("id"), kId);
    EXPECT_EQ(overlapped_begins[i]->IdOf("parent"), i == 0 ? kParent : format::Id{});
    EXPECT_EQ(Str(overlapped_begins[i]->U("name")), EA_TASK);
    EXPECT_EQ(overlapped_ends[i]->U("domain"), begins[0]->U("domain"));
    EXPECT_EQ(overlapped_ends[i]->IdOf("id"), kId);
  }
}

TEST_F(EveryApiTest, UserClockTimestampsAreConverted) {
  // The clock domain reports base EA_CLOCK_BASE at 1 MHz; EA_USER_TS is
  // 100 units (100 us) after it.
  const DecodedEvent* def = nullptr;
  for (const DecodedEvent& d : trace_->definitions) {
    if (d.kind == K::kDefClockDomain) def = &d;
  }
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->U("frequency_hz"), EA_CLOCK_HZ);
  EXPECT_EQ(def->U("clock_base"), EA_CLOCK_BASE);
  double expected = static_cast<double>(def->U("ticks")) +
                    100e-6 * static_cast<double>(trace_->header.timebase_hz);
  for (EventKind k : {K::kTaskBeginEx, K::kTaskEndEx, K::kTaskBeginFnEx, K::kMarkerEx,
                      K::kIdCreateEx, K::kRelationAddEx, K::kCounterSetValueEx}) {
    const auto all = trace_->OfKind(k);
    ASSERT_FALSE(all.empty()) << format::FindSchema(k)->name;
    const DecodedEvent& e = *all[0];
    EXPECT_EQ(e.U("clock_domain"), def->U("id")) << format::FindSchema(k)->name;
    EXPECT_EQ(e.U("user_timestamp"), EA_USER_TS);
    EXPECT_NEAR(static_cast<double>(e.U("timestamp")), expected, 2.0);
  }
  const auto begins = trace_->OfKind(K::kTaskBeginEx);
  const auto ends = trace_->OfKind(K::kTaskEndEx);
  ASSERT_EQ(begins.size(), 2u);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(begins[0]->IdOf("parent"), kParent);
  // Without a clock domain the timestamp is taken as trace ticks.
  for (const DecodedEvent* e : {begins[1], ends[1]}) {
    EXPECT_EQ(e->U("domain"), begins[0]->U("domain"));
    EXPECT_EQ(e->U("clock_domain"), 0u);
    EXPECT_EQ(e->U("user_timestamp"), EA_USER_TS);
    EXPECT_EQ(e->U("timestamp"), EA_USER_TS);
  }
  EXPECT_EQ(Str(begins[1]->U("name")), EA_TASK);
  EXPECT_EQ(begins[1]->IdOf("id"), format::Id{});
  EXPECT_EQ(begins[1]->IdOf("parent"), format::Id{});
  EXPECT_EQ(Only(K::kTaskEndOverlappedEx).IdOf("id"), kId);
}

TEST_F(EveryApiTest, FramesMarkersIdsRelations) {
  const auto begins = trace_->OfKind(K::kFrameBegin);
  const auto ends = trace_->OfKind(K::kFrameEnd);
  ASSERT_EQ(begins.size(), 2u);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(begins[0]->IdOf("id"), kId);
  EXPECT_EQ(ends[0]->IdOf("id"), kId);
  // With a null id: the header-bits ring record stands for the same domain.
  EXPECT_EQ(begins[1]->IdOf("id"), format::Id{});
  EXPECT_EQ(ends[1]->IdOf("id"), format::Id{});
  EXPECT_EQ(begins[1]->U("domain"), begins[0]->U("domain"));
  EXPECT_EQ(ends[1]->U("domain"), begins[0]->U("domain"));
  const DecodedEvent& submit = Only(K::kFrameSubmit);
  EXPECT_LE(submit.U("begin"), submit.U("end"));
  EXPECT_LE(submit.U("end"), submit.time);
  EXPECT_GT(submit.U("begin"), trace_->header.start_ticks);
  const auto markers = trace_->OfKind(K::kMarker);
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_EQ(markers[0]->IdOf("id"), kId);
  EXPECT_EQ(markers[0]->U("scope"), 1u);  // __itt_scope_global
  EXPECT_EQ(Str(markers[0]->U("name")), EA_TASK);
  // With a null id: the packed ring record stands for the same fields.
  EXPECT_EQ(markers[1]->IdOf("id"), format::Id{});
  EXPECT_EQ(markers[1]->U("scope"), 3u);  // __itt_scope_track
  EXPECT_EQ(Str(markers[1]->U("name")), EA_TASK);
  EXPECT_EQ(markers[1]->U("domain"), markers[0]->U("domain"));
  EXPECT_EQ(Only(K::kMarkerEx).U("scope"), 4u);  // __itt_scope_task
  EXPECT_EQ(Only(K::kIdCreate).IdOf("id"), kId);
  EXPECT_EQ(Only(K::kIdDestroyEx).IdOf("id"), kId);
  const DecodedEvent& rel = Only(K::kRelationAdd);
  EXPECT_EQ(rel.IdOf("head"), kId);
  EXPECT_EQ(rel.U("relation"), 3u);  // __itt_relation_is_parent_of
  EXPECT_EQ(rel.IdOf("tail"), kParent);
  EXPECT_EQ(Only(K::kRelationAddToCurrent).U("relation"), 5u);    // is_child_of
  EXPECT_EQ(Only(K::kRelationAddEx).U("relation"), 1u);           // is_dependent_on
  EXPECT_EQ(Only(K::kRelationAddToCurrentEx).U("relation"), 2u);  // is_sibling_of
}

TEST_F(EveryApiTest, CounterArguments) {
  uint64_t c = Only(K::kCounterInc).U("counter");
  EXPECT_EQ(DefName(K::kDefCounter, c), EA_COUNTER);
  EXPECT_EQ(DefName(K::kDefCounter, c, "domain_name"), EA_DOMAIN);
  EXPECT_EQ(Only(K::kCounterIncDelta).U("delta"), static_cast<uint64_t>(EA_DELTA));
  EXPECT_EQ(Only(K::kCounterDecDelta).U("delta"), static_cast<uint64_t>(EA_DEC_DELTA));
  EXPECT_EQ(Only(K::kCounterDec).U("counter"), c);
  EXPECT_EQ(Only(K::kCounterDestroy).U("counter"), c);

  const DecodedEvent& s32 = Only(K::kCounterSetValue);
  EXPECT_EQ(DefName(K::kDefCounter, s32.U("counter")), EA_COUNTER_S32);
  EXPECT_EQ(s32.U("type"), 4u);  // __itt_metadata_s32
  EXPECT_EQ(static_cast<int64_t>(s32.U("value")), EA_S32_VALUE);

  const DecodedEvent& dbl = Only(K::kCounterSetValueV3);
  EXPECT_EQ(dbl.U("type"), 8u);  // __itt_metadata_double
  double d;
  uint64_t bits = dbl.U("value");
  std::memcpy(&d, &bits, sizeof(d));
  EXPECT_EQ(d, EA_DOUBLE_VALUE);

  const DecodedEvent& ex = Only(K::kCounterSetValueEx);
  EXPECT_EQ(DefName(K::kDefCounter, ex.U("counter")), EA_COUNTER_V3);
  EXPECT_EQ(ex.U("value"), EA_U64_VALUE);

  EXPECT_EQ(Str(Only(K::kCounterIncV3).U("name")), EA_TASK);
  EXPECT_EQ(Only(K::kCounterIncDeltaV3).U("delta"), static_cast<uint64_t>(EA_DELTA));
  EXPECT_EQ(Only(K::kCounterDecDeltaV3).U("delta"), static_cast<uint64_t>(EA_DEC_DELTA));

  auto binds = trace_->OfKind(K::kCounterBindContextMetadata);
  ASSERT_EQ(binds.size(), 2u);
  EXPECT_EQ(binds[0]->U("counter"), ex.U("counter"));
  EXPECT_EQ(binds[0]->U("context_type"), 5u);  // __itt_context_unitsA
  EXPECT_EQ(binds[0]->Bytes("text"), "ops");
  EXPECT_EQ(binds[1]->U("context_type"), 10u);  // __itt_context_max_val
  EXPECT_EQ(binds[1]->U("value"), 1000u);
}

TEST_F(EveryApiTest, EventsMetadataHistograms) {
  uint64_t ev = Only(K::kEventStart).U("event");
  EXPECT_EQ(DefName(K::kDefEvent, ev), EA_EVENT);
  EXPECT_EQ(Only(K::kEventEnd).U("event"), ev);

  const int ints[3] = {1, -2, 3};
  const std::string int_bytes(reinterpret_cast<const char*>(ints), sizeof(ints));
  const auto mds = trace_->OfKind(K::kMetadataAdd);
  ASSERT_EQ(mds.size(), 4u);
  const DecodedEvent& md = *mds[0];
  EXPECT_EQ(md.IdOf("id"), kId);
  EXPECT_EQ(Str(md.U("key")), EA_KEY);
  EXPECT_EQ(md.U("type"), 4u);
  EXPECT_EQ(md.U("count"), 3u);
  EXPECT_EQ(md.Bytes("data"), int_bytes);
  // One value with a null id each (the ring's compact record): its type's
  // size of bytes.
  const unsigned long long one_u64 = EA_META_U64;
  const double one_double = EA_META_DOUBLE;
  const short one_s16 = EA_META_S16;
  const std::string values[] = {
      std::string(reinterpret_cast<const char*>(&one_u64), sizeof(one_u64)),
      std::string(reinterpret_cast<const char*>(&one_double), sizeof(one_double)),
      std::string(reinterpret_cast<const char*>(&one_s16), sizeof(one_s16))};
  const uint64_t types[] = {1, 8, 6};  // __itt_metadata_u64, _double, _s16
  for (int i = 0; i < 3; ++i) {
    const DecodedEvent& one = *mds[1 + i];
    EXPECT_EQ(one.IdOf("id"), format::Id{}) << i;
    EXPECT_EQ(trace_->domains[one.U("domain")], EA_DOMAIN) << i;
    EXPECT_EQ(Str(one.U("key")), EA_KEY) << i;
    EXPECT_EQ(one.U("type"), types[i]) << i;
    EXPECT_EQ(one.U("count"), 1u) << i;
    EXPECT_EQ(one.Bytes("data"), values[i]) << i;
  }
  EXPECT_EQ(Only(K::kMetadataStrAdd).Bytes("text"), EA_STR_META);
  EXPECT_EQ(Only(K::kMetadataAddWithScope).U("scope"), 1u);
  EXPECT_EQ(Only(K::kMetadataAddWithScope).Bytes("data"), int_bytes);
  EXPECT_EQ(Only(K::kMetadataStrAddWithScope).Bytes("text"), EA_STR_META);
  EXPECT_EQ(Only(K::kMetadataStrAddWithScope).U("scope"), 4u);

  const DecodedEvent& fm = Only(K::kFormattedMetadataAdd);
  EXPECT_EQ(Str(fm.U("format")), EA_FORMAT);
  EXPECT_EQ(fm.Bytes("text"), EA_FORMATTED);
  EXPECT_EQ(Only(K::kFormattedMetadataAddOverlapped).Bytes("text"), EA_FORMATTED);
  EXPECT_EQ(Only(K::kFormattedMetadataAddOverlapped).IdOf("id"), kId);

  const DecodedEvent& h = Only(K::kHistogramSubmit);
  EXPECT_EQ(DefName(K::kDefHistogram, h.U("histogram")), EA_HIST);
  EXPECT_EQ(h.U("length"), 3u);
  const unsigned xs[3] = {1, 2, 3};
  const double ys[3] = {0.5, 1.5, 2.5};
  EXPECT_EQ(h.Bytes("x"), std::string(reinterpret_cast<const char*>(xs), sizeof(xs)));
  EXPECT_EQ(h.Bytes("y"), std::string(reinterpret_cast<const char*>(ys), sizeof(ys)));
}

TEST_F(EveryApiTest, SyncHeapModuleSuppress) {
  const DecodedEvent& create = Only(K::kSyncCreate);
  uint64_t addr = create.U("addr");
  EXPECT_NE(addr, 0u);
  EXPECT_EQ(Str(create.U("objtype")), EA_SYNC_TYPE);
  EXPECT_EQ(Str(create.U("objname")), EA_SYNC_NAME);
  EXPECT_EQ(create.U("attribute"), static_cast<uint64_t>(EA_SYNC_ATTR));
  EXPECT_EQ(Str(Only(K::kSyncRename).U("name")), EA_SYNC_RENAME);
  for (EventKind k : {K::kSyncCancel, K::kSyncAcquired, K::kSyncReleasing, K::kSyncDestroy}) {
    EXPECT_EQ(Only(k).U("addr"), addr);
  }
  EXPECT_EQ(trace_->OfKind(K::kSyncPrepare).size(), 2u);

  const DecodedEvent& alloc = Only(K::kHeapAllocateBegin);
  EXPECT_EQ(DefName(K::kDefHeapFunction, alloc.U("function")), EA_HEAP_FN);
  EXPECT_EQ(alloc.U("size"), static_cast<uint64_t>(EA_ALLOC_SIZE));
  EXPECT_EQ(alloc.U("initialized"), 1u);
  const DecodedEvent& alloc_end = Only(K::kHeapAllocateEnd);
  EXPECT_NE(alloc_end.U("addr"), 0u);
  const DecodedEvent& realloc_end = Only(K::kHeapReallocateEnd);
  EXPECT_EQ(realloc_end.U("addr"), alloc_end.U("addr"));
  EXPECT_EQ(realloc_end.U("new_size"), static_cast<uint64_t>(EA_REALLOC_SIZE));
  EXPECT_EQ(Only(K::kHeapFreeBegin).U("addr"), realloc_end.U("new_addr"));
  EXPECT_EQ(Only(K::kHeapResetDetection).U("mask"), static_cast<uint64_t>(EA_HEAP_MASK));
  EXPECT_EQ(Only(K::kHeapRecord).U("mask"), static_cast<uint64_t>(EA_HEAP_MASK));

  const DecodedEvent& mod = Only(K::kModuleLoad);
  EXPECT_EQ(mod.U("start_addr"), static_cast<uint64_t>(EA_MODULE_START));
  EXPECT_EQ(mod.U("end_addr"), static_cast<uint64_t>(EA_MODULE_END));
  EXPECT_EQ(Str(mod.U("path")), EA_MODULE);
  EXPECT_EQ(Only(K::kModuleUnload).U("addr"), static_cast<uint64_t>(EA_MODULE_START));
  EXPECT_EQ(Only(K::kSuppressPush).U("mask"), static_cast<uint64_t>(EA_SUPPRESS_MASK));
}

TEST_F(EveryApiTest, JitArguments) {
  const DecodedEvent& load = Only(K::kJitMethodLoad);
  EXPECT_EQ(load.U("method_id"), static_cast<uint64_t>(EA_METHOD_ID));
  EXPECT_EQ(load.Bytes("method_name"), EA_METHOD);
  EXPECT_EQ(load.U("address"), static_cast<uint64_t>(EA_METHOD_ADDR));
  EXPECT_EQ(load.U("size"), static_cast<uint64_t>(EA_METHOD_SIZE));
  EXPECT_EQ(load.Bytes("class_file"), EA_CLASS);
  EXPECT_EQ(load.Bytes("source_file"), EA_SOURCE);
  const std::string& table = load.Bytes("line_table");
  ASSERT_EQ(format::LineTableSize(table), 2);
  EXPECT_EQ(format::LineTableEntry(table, 1).offset, 16u);
  EXPECT_EQ(format::LineTableEntry(table, 1).line, 11u);
  EXPECT_EQ(Only(K::kJitMethodLoadV2).Bytes("module_name"), EA_JIT_MODULE);
  EXPECT_EQ(Only(K::kJitMethodLoadV3).U("arch"), 2u);  // iJIT_CA_64
  EXPECT_EQ(Only(K::kJitInlineLoad).U("parent_method_id"), static_cast<uint64_t>(EA_METHOD_ID));
  EXPECT_EQ(Only(K::kJitInlineLoad).U("method_id"), static_cast<uint64_t>(EA_INLINE_ID));
  EXPECT_EQ(Only(K::kJitMethodUpdate).Bytes("method_name"), EA_METHOD);
  EXPECT_EQ(Only(K::kJitMethodUpdateV2).U("size"), static_cast<uint64_t>(EA_METHOD_SIZE));
  EXPECT_EQ(Only(K::kJitMethodUpdateV2).Bytes("data_format"), "raw");
  EXPECT_EQ(Only(K::kJitMethodUnload).U("method_id"), static_cast<uint64_t>(EA_METHOD_ID));
}

TEST_F(EveryApiTest, ThreadInfoHasNameAndIgnoreFlag) {
  ASSERT_FALSE(trace_->events.empty());
  uint32_t t = trace_->events[0].thread;
  EXPECT_EQ(trace_->thread_names[t], EA_THREAD);
  EXPECT_TRUE(trace_->threads[t].ignored);
  EXPECT_NE(trace_->threads[t].tid, 0u);
}

}  // namespace
}  // namespace ittc::testing
