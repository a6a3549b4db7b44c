// The JSON itt-dump writes (chrome, stats --format=json) parses with a
// strict parser, every Chrome trace event has the fields the Trace Event
// Format requires for its phase, and each track's complete events nest.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/json_checker.h"
#include "tests/tools/sample_traces.h"
#include "tests/tools/trace_builder.h"

namespace ittc {
namespace itt_dump {
namespace testing {
namespace {

using format::EventKind;
using Type = JsonValue::Type;

TEST(JsonChecker, AcceptsValidAndRejectsInvalid) {
  JsonValue v;
  std::string err;
  EXPECT_TRUE(ParseJson(R"({"a":[1,-2.5e3,true,null,"x\"\u00e9"],"b":{}})", &v, &err)) << err;
  for (const char* bad : {"{\"a\":1,}", "[1,]", "{\"a\":NaN}", "[\"x", "{\"a\" 1}", "01", "[1] [2]",
                          "{\"a\":\"\x01\"}", "[1.]", "[-]", "{'a':1}"}) {
    EXPECT_FALSE(ParseJson(bad, &v, &err)) << bad;
  }
}

// Checks the Trace Event Format requirements of each event and counts the
// events per phase into *phases.
// The viewers draw the complete ("X") events of one track (pid, tid) as a
// stack, and drop one that begins inside another and ends after it
// (Perfetto's slice_drop_overlapping_complete_event).
void ExpectCompleteEventsNest(const JsonValue& events) {
  // By track: (begin, end) in ns (ts and dur have three decimals of us).
  std::map<std::pair<double, double>, std::vector<std::pair<int64_t, int64_t>>> tracks;
  for (const JsonValue& e : events.items) {
    const JsonValue* ph = e.Get("ph");
    if (ph == nullptr || ph->text != "X" || e.Get("dur") == nullptr) continue;
    const auto begin = static_cast<int64_t>(std::llround(e.Get("ts")->number * 1000));
    const auto dur = static_cast<int64_t>(std::llround(e.Get("dur")->number * 1000));
    tracks[{e.Get("pid")->number, e.Get("tid")->number}].emplace_back(begin, begin + dur);
  }
  for (auto& [track, slices] : tracks) {
    // Outer slices first where two begin together.
    std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<int64_t> open_ends;
    for (const auto& [begin, end] : slices) {
      while (!open_ends.empty() && open_ends.back() <= begin) open_ends.pop_back();
      EXPECT_TRUE(open_ends.empty() || end <= open_ends.back())
          << "pid " << track.first << " tid " << track.second << ": [" << begin << ", " << end
          << "] ns overlaps a slice ending at " << open_ends.back() << " without nesting in it";
      open_ends.push_back(end);
    }
  }
}

void CheckChrome(const std::string& json, std::map<std::string, int>* phases) {
  JsonValue doc;
  std::string err;
  EXPECT_TRUE(ParseJson(json, &doc, &err)) << err;
  if (doc.type != Type::kObject) {
    ADD_FAILURE() << "not an object";
    return;
  }
  const JsonValue* events = doc.Get("traceEvents");
  if (events == nullptr || events->type != Type::kArray) {
    ADD_FAILURE() << "no traceEvents array";
    return;
  }
  for (const JsonValue& e : events->items) {
    ASSERT_EQ(e.type, Type::kObject);
    const JsonValue* ph = e.Get("ph");
    ASSERT_NE(ph, nullptr);
    ASSERT_EQ(ph->type, Type::kString);
    ++(*phases)[ph->text];
    for (const char* key : {"pid", "tid", "ts"}) {
      const JsonValue* f = e.Get(key);
      ASSERT_NE(f, nullptr) << key << " missing in a " << ph->text;
      EXPECT_EQ(f->type, Type::kNumber) << key;
    }
    const JsonValue* name = e.Get("name");
    ASSERT_NE(name, nullptr) << "name missing in a " << ph->text;
    EXPECT_EQ(name->type, Type::kString);
    const std::string& p = ph->text;
    if (p == "X") {
      const JsonValue* dur = e.Get("dur");
      ASSERT_NE(dur, nullptr);
      EXPECT_EQ(dur->type, Type::kNumber);
      EXPECT_GE(dur->number, 0);
    } else if (p == "b" || p == "e") {
      ASSERT_NE(e.Get("id"), nullptr);
      ASSERT_NE(e.Get("cat"), nullptr);
    } else if (p == "s" || p == "f") {
      ASSERT_NE(e.Get("id"), nullptr);
      if (p == "f") {
        ASSERT_NE(e.Get("bp"), nullptr);
      }
    } else if (p == "i") {
      const JsonValue* s = e.Get("s");
      ASSERT_NE(s, nullptr);
      EXPECT_TRUE(s->text == "g" || s->text == "p" || s->text == "t");
    } else if (p == "C") {
      const JsonValue* args = e.Get("args");
      ASSERT_NE(args, nullptr);
      ASSERT_EQ(args->type, Type::kObject);
      for (const auto& [k, v] : args->members) EXPECT_EQ(v.type, Type::kNumber);
    } else if (p == "M") {
      const JsonValue* args = e.Get("args");
      ASSERT_NE(args, nullptr);
      ASSERT_NE(args->Get("name"), nullptr);
    } else {
      ADD_FAILURE() << "unexpected phase " << p;
    }
  }
  ExpectCompleteEventsNest(*events);
}

std::string Chrome(const std::string& trace) {
  DumpResult r = RunDump({"chrome", "trace.itt", "-o", "-"}, trace);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

TEST(ChromeJson, SampleHasEveryPhaseWithRequiredFields) {
  std::map<std::string, int> phases;
  CheckChrome(Chrome(SampleTrace()), &phases);
  EXPECT_EQ(phases["M"], 4);  // process, two threads, one frame track
  EXPECT_EQ(phases["X"], 7);  // 5 tasks, 2 frames
  EXPECT_EQ(phases["b"], 2);  // an overlapped task, a legacy event
  EXPECT_EQ(phases["e"], 2);
  EXPECT_EQ(phases["i"], 1);
  EXPECT_EQ(phases["C"], 4);
}

TEST(ChromeJson, SyntheticTraceHasOneCompleteEventPerTask) {
  // 3 threads x 4000 events = 6000 tasks.
  std::map<std::string, int> phases;
  CheckChrome(Chrome(SyntheticTrace(3, 4000, 500)), &phases);
  EXPECT_EQ(phases["X"], 6000);
}

TEST(ChromeJson, ACounterValueThatJsonHasNoNumberForGoesOutAsZero) {
  TraceBuilder b;
  b.Counter(1, "ratio", "app", 1, format::MetadataType::kDouble).Thread(0, 7, "main");
  std::vector<format::Event> events;
  uint64_t t = 1000;
  for (const double v :
       {2.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), -4.0}) {
    events.push_back(Ev(EventKind::kCounterSetValue, t += 100,
                        {{F::kCounter, U(1)},
                         {F::kType, U(static_cast<uint64_t>(format::MetadataType::kDouble))},
                         {F::kValue, D(v)}}));
  }
  b.Events(0, events);
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);
  ASSERT_EQ(phases["C"], 5);
  std::vector<std::string> values;
  for (size_t at = json.find("\"value\":"); at != std::string::npos;
       at = json.find("\"value\":", at + 1)) {
    values.push_back(json.substr(at + 8, json.find('}', at) - at - 8));
  }
  EXPECT_EQ(values, (std::vector<std::string>{"2.5", "0", "0", "0", "-4"}));
}

TEST(ChromeJson, StringsAreEscapedWhateverTheirBytes) {
  static const std::string kNasty("q\"uote\\back\nline\x01\xff\xc3(end", 20);
  TraceBuilder b;
  b.String(1, kNasty).Domain(1, "d\"om").Thread(0, 7, "t\tab\x80");
  b.Events(0, {Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(EventKind::kMetadataStrAdd, 1150,
                  {{F::kDomain, U(1)}, {F::kKey, U(1)}, {F::kText, B(kNasty)}}),
               Ev(EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}})});
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);
  EXPECT_EQ(phases["X"], 1);
}

// Several metadata values of one key on one task: the key once, its values
// in an array in their order (JSON readers keep one value of a repeated
// key); with few args and with many.
TEST(ChromeJson, ARepeatedArgKeyGivesOneKeyWithAnArray) {
  for (const int others : {1, 20}) {
    TraceBuilder b;
    b.String(1, "load").String(2, "file").Domain(1, "d").Thread(0, 7, "t");
    std::vector<format::Event> events = {
        Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
        Ev(EventKind::kMetadataStrAdd, 1110,
           {{F::kDomain, U(1)}, {F::kKey, U(2)}, {F::kText, B("a.txt")}})};
    for (int i = 0; i < others; ++i) {
      const uint64_t key = 10 + static_cast<uint64_t>(i);
      b.String(key, "k" + std::to_string(i));
      events.push_back(Ev(EventKind::kMetadataStrAdd, 1120,
                          {{F::kDomain, U(1)}, {F::kKey, U(key)}, {F::kText, B("v")}}));
    }
    events.push_back(Ev(EventKind::kMetadataStrAdd, 1130,
                        {{F::kDomain, U(1)}, {F::kKey, U(2)}, {F::kText, B("b.txt")}}));
    events.push_back(Ev(EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}}));
    b.Events(0, events);
    const std::string json = Chrome(b.bytes());
    std::map<std::string, int> phases;
    CheckChrome(json, &phases);
    EXPECT_NE(json.find("\"args\":{\"file\":[\"a.txt\",\"b.txt\"],\"k0\":\"v\""), std::string::npos)
        << json;
    EXPECT_EQ(json.find("\"file\":\"b.txt\""), std::string::npos) << json;
  }
}

// Metadata the exports leave out is counted in a warning, the same with the
// pass on every core and the serial one: 70 values of one task (64 kept),
// one outside any task, one by the id of another thread's task.
TEST(ChromeJson, MetadataLeftOutIsCountedInAWarning) {
  TraceBuilder b;
  b.String(1, "work").String(2, "k").Domain(1, "d").Thread(0, 7, "a").Thread(1, 8, "b");
  const auto meta = [](uint64_t t, format::Id id) {
    return Ev(EventKind::kMetadataStrAdd, t,
              {{F::kDomain, U(1)}, {F::kId, I(id.d1)}, {F::kKey, U(2)}, {F::kText, B("v")}});
  };
  std::vector<format::Event> a = {
      Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kName, U(1)}, {F::kId, I(5)}})};
  for (uint64_t i = 0; i < 70; ++i) a.push_back(meta(1110 + i, format::Id{}));
  a.push_back(Ev(EventKind::kTaskEnd, 1300, {{F::kDomain, U(1)}}));
  a.push_back(meta(1400, format::Id{}));  // no task open
  b.Events(0, a);
  b.Events(1, {meta(1150, format::Id{5, 0, 0})});  // thread a's task, by its id
  const std::string warning =
      "metadata left out (`text` shows every one): 2 with no task open on their thread "
      "(outside any task, or by the id of another thread's task), 6 past the 64 a task keeps";
  DumpResult every = RunDump({"chrome", "trace.itt", "-o", "-"}, b.bytes());
  EXPECT_EQ(every.status, 0) << every.err;
  EXPECT_NE(every.err.find(warning), std::string::npos) << every.err;
  DumpResult serial = RunDumpOnOneCore({"chrome", "trace.itt", "-o", "-"}, b.bytes());
  EXPECT_NE(serial.err.find(warning), std::string::npos) << serial.err;
  EXPECT_EQ(every.out, serial.out);
}

// Two counters of one name in two domains: two tracks, each named with its
// domain (viewers key a counter's track by its name); a counter whose name
// no other domain has keeps its name.
TEST(ChromeJson, CountersOfOneNameInTwoDomainsAreTwoTracks) {
  TraceBuilder b;
  b.Domain(1, "net").Domain(2, "disk").Thread(0, 7, "t");
  b.Counter(1, "queue", "net", 1, format::MetadataType::kU64);
  b.Counter(2, "queue", "disk", 2, format::MetadataType::kU64);
  b.Counter(3, "alone", "net", 1, format::MetadataType::kU64);
  b.Events(0, {CounterSetU64(1100, 1, 1), CounterSetU64(1200, 2, 1000), CounterSetU64(1300, 3, 5)});
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);
  EXPECT_EQ(phases["C"], 3);
  EXPECT_NE(json.find("\"name\":\"net/queue\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"disk/queue\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"alone\""), std::string::npos) << json;
}

// Two counters of one name and domain with two value types (ITT makes
// one counter per name, domain and type): two tracks, each named with its
// type; in a name of two domains too, they take both (and the other
// domain's counter of the name only its domain).
TEST(ChromeJson, CountersOfOneNameAndDomainWithTwoTypesAreTwoTracks) {
  TraceBuilder b;
  b.Domain(1, "net").Domain(2, "disk").Thread(0, 7, "t");
  b.Counter(1, "queue", "net", 1, format::MetadataType::kU64);
  b.Counter(2, "queue", "net", 1, format::MetadataType::kDouble);
  b.Counter(3, "depth", "net", 1, format::MetadataType::kU64);
  b.Counter(4, "depth", "net", 1, format::MetadataType::kS32);
  b.Counter(5, "depth", "disk", 2, format::MetadataType::kU64);
  b.Counter(6, "alone", "net", 1, format::MetadataType::kU64);
  b.Events(0, {CounterSetU64(1100, 1, 1), CounterSetU64(1200, 2, 1000), CounterSetU64(1300, 3, 5),
               CounterSetU64(1400, 4, 6), CounterSetU64(1500, 5, 7), CounterSetU64(1600, 6, 8)});
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);
  EXPECT_EQ(phases["C"], 6);
  for (const char* name : {"queue (u64)", "queue (double)", "net/depth (u64)", "net/depth (s32)",
                           "disk/depth", "alone"}) {
    EXPECT_NE(json.find(absl::StrCat("\"name\":\"", name, "\"")), std::string::npos) << name << "\n"
                                                                                     << json;
  }
}

TEST(ChromeJson, RelationsBecomeFlowPairs) {
  TraceBuilder b;
  b.String(1, "producer").String(2, "consumer").Domain(1, "d");
  b.Thread(0, 7, "a").Thread(1, 8, "b");
  b.Events(0,
           {Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kId, I(1)}, {F::kName, U(1)}}),
            Ev(EventKind::kRelationAdd, 1150,
               {{F::kDomain, U(1)}, {F::kHead, I(1)}, {F::kRelation, U(7)}, {F::kTail, I(2)}}),
            Ev(EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}})});
  b.Events(1,
           {Ev(EventKind::kTaskBegin, 1300, {{F::kDomain, U(1)}, {F::kId, I(2)}, {F::kName, U(2)}}),
            Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);
  EXPECT_EQ(phases["s"], 1);
  EXPECT_EQ(phases["f"], 1);
  EXPECT_NE(json.find("{\"ph\":\"f\",\"pid\":4242,\"tid\":8,\"ts\":0.300,"
                      "\"bp\":\"e\",\"id\":1"),
            std::string::npos)
      << json;
}

// A relation to a task that began before it (the usual dependency: B,
// running, depends on A, done): the flow runs forward in time, from A's
// begin ("s", on A's thread) to the relation ("f", binding to B), which the
// viewers drop when its "f" comes first.
TEST(ChromeJson, AFlowToATaskBegunBeforeRunsForward) {
  TraceBuilder b;
  b.String(1, "producer").String(2, "consumer").Domain(1, "d");
  b.Thread(0, 7, "a").Thread(1, 8, "b");
  b.Events(0,
           {Ev(EventKind::kTaskBegin, 1100, {{F::kDomain, U(1)}, {F::kId, I(2)}, {F::kName, U(1)}}),
            Ev(EventKind::kTaskEnd, 1200, {{F::kDomain, U(1)}})});
  b.Events(1,
           {Ev(EventKind::kTaskBegin, 1300, {{F::kDomain, U(1)}, {F::kId, I(1)}, {F::kName, U(2)}}),
            Ev(EventKind::kRelationAdd, 1350,
               {{F::kDomain, U(1)}, {F::kHead, I(1)}, {F::kRelation, U(7)}, {F::kTail, I(2)}}),
            Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);
  EXPECT_EQ(phases["s"], 1);
  EXPECT_EQ(phases["f"], 1);
  EXPECT_NE(json.find("{\"ph\":\"s\",\"pid\":4242,\"tid\":7,\"ts\":0.100,\"id\":1"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"ph\":\"f\",\"pid\":4242,\"tid\":8,\"ts\":0.350,\"bp\":\"e\",\"id\":1"),
            std::string::npos)
      << json;
}

// Regions pair by id, not as a stack: one that ends while a task it holds
// runs on is an async pair, as are two regions that overlap, so no
// viewer drops the one that does not nest (a thread's "X" slices must).
TEST(ChromeJson, RegionsAreAsyncPairs) {
  TraceBuilder b;
  b.String(1, "region a").String(2, "region b").String(3, "work").Domain(1, "d");
  b.Thread(0, 7, "t");
  b.Events(0, {Ev(EventKind::kRegionBegin, 1100,
                  {{F::kDomain, U(1)}, {F::kId, I(1)}, {F::kParent, Null()}, {F::kName, U(1)}}),
               Ev(EventKind::kRegionBegin, 1150,
                  {{F::kDomain, U(1)}, {F::kId, I(2)}, {F::kParent, Null()}, {F::kName, U(2)}}),
               Ev(EventKind::kRegionEnd, 1200, {{F::kDomain, U(1)}, {F::kId, I(1)}}),
               Ev(EventKind::kTaskBegin, 1250, {{F::kDomain, U(1)}, {F::kName, U(3)}}),
               Ev(EventKind::kRegionEnd, 1300, {{F::kDomain, U(1)}, {F::kId, I(2)}}),
               Ev(EventKind::kTaskEnd, 1400, {{F::kDomain, U(1)}})});
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);
  EXPECT_EQ(phases["X"], 1);  // the task
  EXPECT_EQ(phases["b"], 2);
  EXPECT_EQ(phases["e"], 2);
  EXPECT_NE(json.find("\"ph\":\"b\",\"pid\":4242,\"tid\":7,\"ts\":0.150,\"name\":\"region b\""),
            std::string::npos)
      << json;
}

// Frames of one domain overlap without nesting where they have ids (or
// times of their own): each goes on the first frame track of its domain
// that is free (a lane). A legacy event, paired by its event on its
// thread, is an async pair, as it may end while a task begun inside it
// runs on.
TEST(ChromeJson, OverlappingFramesTakeLanesAndLegacyEventsAreAsyncPairs) {
  TraceBuilder b;
  b.String(1, "work").Domain(1, "d").Domain(2, "render").EventName(1, "io");
  b.Thread(0, 7, "a").Thread(1, 8, "b");
  b.Events(0, {Ev(EventKind::kFrameBegin, 1100, {{F::kDomain, U(2)}, {F::kId, I(1)}}),
               Ev(EventKind::kEventStart, 1150, {{F::kEvent, U(1)}}),
               Ev(EventKind::kTaskBegin, 1200, {{F::kDomain, U(1)}, {F::kName, U(1)}}),
               Ev(EventKind::kEventEnd, 1250, {{F::kEvent, U(1)}}),
               Ev(EventKind::kTaskEnd, 1300, {{F::kDomain, U(1)}}),
               Ev(EventKind::kFrameBegin, 1500, {{F::kDomain, U(2)}}),
               Ev(EventKind::kFrameEnd, 1600, {{F::kDomain, U(2)}})});
  // Frame 1 [1100, 1350] and frame 2 [1200, 1400] overlap.
  b.Events(1, {Ev(EventKind::kFrameBegin, 1200, {{F::kDomain, U(2)}, {F::kId, I(2)}}),
               Ev(EventKind::kFrameEnd, 1350, {{F::kDomain, U(2)}, {F::kId, I(1)}}),
               Ev(EventKind::kFrameEnd, 1400, {{F::kDomain, U(2)}, {F::kId, I(2)}})});
  const std::string json = Chrome(b.bytes());
  std::map<std::string, int> phases;
  CheckChrome(json, &phases);         // every track's "X" events nest
  EXPECT_EQ(phases["X"], 4) << json;  // the task and three frames
  EXPECT_EQ(phases["b"], 1) << json;
  EXPECT_EQ(phases["e"], 1) << json;
  // Two lanes, each a "frames render" track; the third frame, after both,
  // reuses the first.
  EXPECT_NE(json.find("{\"ph\":\"M\",\"pid\":4242,\"tid\":1073741824,\"ts\":0,"
                      "\"name\":\"thread_name\",\"args\":{\"name\":\"frames render\"}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"ph\":\"M\",\"pid\":4242,\"tid\":1073741825,\"ts\":0,"
                      "\"name\":\"thread_name\",\"args\":{\"name\":\"frames render\"}}"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("\"tid\":1073741826"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ph\":\"b\",\"pid\":4242,\"tid\":7,\"ts\":0.150,\"name\":\"io\","
                      "\"cat\":\"event\",\"id\":\"thread 7 event 1\""),
            std::string::npos)
      << json;
}

TEST(ChromeJson, DamagedAndEmptyTracesStillGiveValidJson) {
  std::string t = SampleTrace();
  for (size_t cut : {t.size() - 1, t.size() / 2, t.size() / 3}) {
    std::map<std::string, int> phases;
    CheckChrome(Chrome(t.substr(0, cut)), &phases);
  }
  TraceBuilder empty;
  std::map<std::string, int> phases;
  CheckChrome(Chrome(empty.bytes()), &phases);
  EXPECT_EQ(phases["M"], 1);
}

TEST(StatsJson, ParsesAndHasEverySection) {
  for (const std::string& t :
       {SampleTrace(), TraceBuilder().bytes(), SyntheticTrace(2, 3000, 256)}) {
    DumpResult r = RunDump({"stats", "--format=json", "trace.itt"}, t);
    ASSERT_EQ(r.status, 0);
    JsonValue doc;
    std::string err;
    ASSERT_TRUE(ParseJson(r.out, &doc, &err)) << err << "\n" << r.out;
    for (const char* s :
         {"losses", "damage", "unbalanced", "tasks", "frames", "counters", "sync", "heap", "jit"}) {
      const JsonValue* v = doc.Get(s);
      ASSERT_NE(v, nullptr) << s;
      EXPECT_EQ(v->type, Type::kArray) << s;
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace itt_dump
}  // namespace ittc
