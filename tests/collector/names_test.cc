// Threads creating overlapping sets of new names at once (names_program.c):
// every thread gets one handle per name, and the trace defines each name
// once and refers to it from every task recorded with it. Block mode, so
// that every task is in the trace. Also run under ThreadSanitizer.
// And threads named by pthread_setname_np keep their names in the trace
// when they exit before the end (thread_names_program.c), and the track
// API's groups and tracks are defined once each (tracks_program.c).

#include <sys/wait.h>

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

using format::EventKind;

constexpr int kThreads = 4;
constexpr int kNamesPerThread = 1000;
// Thread i has names i * N/2 .. i * N/2 + N - 1.
constexpr int kNames = (kThreads + 1) * kNamesPerThread / 2;

// How many threads had name k.
int ThreadsWithName(int k) {
  int n = 0;
  for (int i = 0; i < kThreads; ++i) {
    const int first = i * kNamesPerThread / 2;
    if (k >= first && k < first + kNamesPerThread) ++n;
  }
  return n;
}

TEST(Names, ThreadsCreatingTheSameNamesAtOnceGetOneHandleEachDefinedOnce) {
  const std::string dir = MakeTempDir("names");
  const std::string path = dir + "/names.itt";
  const int status = RunProgram({Runfile("tests/collector/names_program"), std::to_string(kThreads),
                                 std::to_string(kNamesPerThread)},
                                {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                                 "ITTC_OUTPUT=" + path, "ITTC_OVERFLOW=block"},
                                dir + "/stdout.txt");
  std::stringstream out;
  out << std::ifstream(dir + "/stdout.txt").rdbuf();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << " " << out.str();
  EXPECT_EQ(out.str(), "mismatches 0\n");

  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->has_end);
  EXPECT_EQ(trace->TotalLoss(), 0u);

  std::map<std::string, int> strings;  // text -> definitions of it
  std::map<std::string, int> domains;
  for (const DecodedEvent& d : trace->definitions) {
    if (d.kind == EventKind::kDefString) ++strings[d.Bytes("text")];
    if (d.kind == EventKind::kDefDomain) ++domains[d.Bytes("name")];
  }
  std::map<std::string, int> tasks;  // "domain-K name-K" -> task begins
  for (const DecodedEvent* e : trace->OfKind(EventKind::kTaskBegin)) {
    ++tasks[trace->domains[e->U("domain")] + " " + trace->strings[e->U("name")]];
  }
  for (int k = 0; k < kNames; ++k) {
    const std::string name = "name-" + std::to_string(k);
    const std::string domain = "domain-" + std::to_string(k);
    EXPECT_EQ(strings[name], 1) << name;
    EXPECT_EQ(domains[domain], 1) << domain;
    EXPECT_EQ(tasks[domain + " " + name], ThreadsWithName(k)) << name;
  }
}

TEST(Names, AThreadKeepsItsNameAfterItExits) {
  const std::string dir = MakeTempDir("thread_names");
  const std::string path = dir + "/names.itt";
  const int status = RunProgram({Runfile("tests/collector/thread_names_program")},
                                {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                                 "ITTC_OUTPUT=" + path, "ITTC_OVERFLOW=block"},
                                dir + "/stdout.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->has_end);
  EXPECT_EQ(trace->TotalLoss(), 0u);
  std::set<std::string> names;
  for (const auto& [index, name] : trace->thread_names) names.insert(name);
  EXPECT_EQ(names.count("drained-alive"), 1u) << ::testing::PrintToString(names);
  EXPECT_EQ(names.count("exit-unseen"), 1u) << ::testing::PrintToString(names);
  EXPECT_EQ(trace->OfKind(EventKind::kTaskBegin).size(), 3u);
}

// A naming whose record the full ring dropped (counted) still names the
// thread: the flusher takes the name the collector kept; and an
// __itt_thread_ignore whose record was dropped still marks its thread
// ignored.
TEST(Names, AThreadNamedWhileItsRingIsFullHasTheName) {
  const std::string dir = MakeTempDir("lost_name");
  const std::string path = dir + "/names.itt";
  const int status = RunProgram({Runfile("tests/collector/lost_name_program")},
                                {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                                 "ITTC_OUTPUT=" + path, "ITTC_RING_KB=64"},
                                dir + "/stdout.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->has_end);
  EXPECT_GT(trace->TotalLoss(), 0u);  // the ring overran, the naming with it
  for (const DecodedEvent* e : trace->OfKind(EventKind::kThreadSetName)) {
    EXPECT_NE(trace->strings.at(e->U("name")), "my-worker");  // its record dropped
  }
  std::set<std::string> names;
  for (const auto& [index, name] : trace->thread_names) names.insert(name);
  EXPECT_EQ(names.count("my-worker"), 1u) << ::testing::PrintToString(names);
  int ignored = 0;
  for (const auto& [index, name] : trace->thread_names) {
    if (name == "ignoring-worker") {
      ++ignored;
      EXPECT_TRUE(trace->threads.at(index).ignored);
    } else {
      EXPECT_FALSE(trace->threads.at(index).ignored) << name;
    }
  }
  EXPECT_EQ(ignored, 1);
  EXPECT_TRUE(trace->OfKind(EventKind::kThreadIgnore).empty());  // its record dropped
}

// Context metadata bound to a counter before the collector loads (kept by
// the static part) is bound when it loads: all three items, before the
// counter's first value.
TEST(Names, CounterMetadataBoundBeforeTheLoadIsKept) {
  const std::string dir = MakeTempDir("counter_metadata");
  const std::string path = dir + "/names.itt";
  const int status = RunProgram(
      {Runfile("tests/collector/counter_metadata_program")},
      {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"), "ITTC_OUTPUT=" + path},
      dir + "/stdout.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  const auto binds = trace->OfKind(EventKind::kCounterBindContextMetadata);
  ASSERT_EQ(binds.size(), 3u);
  EXPECT_EQ(binds[0]->U("context_type"), 1u /* __itt_context_nameA */);
  EXPECT_EQ(binds[0]->Bytes("text"), "Bandwidth");
  EXPECT_EQ(binds[1]->U("context_type"), 5u /* __itt_context_unitsA */);
  EXPECT_EQ(binds[1]->Bytes("text"), "GB/s");
  EXPECT_EQ(binds[2]->U("context_type"), 11u /* __itt_context_bandwidth_flag */);
  EXPECT_EQ(binds[2]->U("value"), 1u);
  const auto values = trace->OfKind(EventKind::kCounterSetValueV3);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_LE(binds[2]->time, values[0]->time);
}

TEST(Names, TrackGroupsAndTracksAreDefinedOnceAndSetTrackNamesOne) {
  const std::string dir = MakeTempDir("tracks");
  const std::string path = dir + "/tracks.itt";
  const int status = RunProgram(
      {Runfile("tests/collector/tracks_program")},
      {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"), "ITTC_OUTPUT=" + path},
      dir + "/stdout.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  std::vector<std::string> defs;
  for (const DecodedEvent& d : trace->definitions) {
    if (d.kind == EventKind::kDefTrackGroup) {
      defs.push_back("group " + std::to_string(d.U("id")) + " " + trace->strings[d.U("name")] +
                     " " + std::to_string(d.U("type")));
    }
    if (d.kind == EventKind::kDefTrack) {
      defs.push_back("track " + std::to_string(d.U("id")) + " of " +
                     std::to_string(d.U("track_group")) + " " + trace->strings[d.U("name")] + " " +
                     std::to_string(d.U("type")));
    }
  }
  EXPECT_EQ(defs, (std::vector<std::string>{"group 1 gpu queues 0", "track 1 of 1 queue 0 0"}));
  std::vector<uint64_t> set;
  for (const DecodedEvent* e : trace->OfKind(EventKind::kSetTrack)) set.push_back(e->U("track"));
  EXPECT_EQ(set, (std::vector<uint64_t>{1, 0}));
  // The pointer that is no track: an invalid argument.
  EXPECT_EQ(trace->TotalLoss(), 1u);
}

// A counter is its domain, name and type, as the static parts find one:
// created again with another type, it is another counter, whose values are
// read as that type (read as the first's, a float's 4 bytes were read as 8).
TEST(Names, ACounterCreatedWithAnotherTypeIsACounterOfItsOwn) {
  const std::string dir = MakeTempDir("counter_types");
  const std::string path = dir + "/counters.itt";
  const int status = RunProgram(
      {Runfile("tests/collector/counter_types_program")},
      {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"), "ITTC_OUTPUT=" + path},
      dir + "/stdout.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  std::map<uint64_t, uint64_t> type_of;  // counter id -> type
  for (const DecodedEvent& d : trace->definitions) {
    if (d.kind != EventKind::kDefCounter) continue;
    EXPECT_EQ(d.Bytes("name"), "load");
    type_of[d.U("id")] = d.U("type");
  }
  EXPECT_EQ(type_of.size(), 3u);
  std::map<uint64_t, uint64_t> value_of;  // type -> value bits
  for (const DecodedEvent* e : trace->OfKind(EventKind::kCounterSetValue)) {
    EXPECT_EQ(e->U("type"), type_of[e->U("counter")]);
    value_of[e->U("type")] = e->U("value");
  }
  // Floats are stored as doubles' bits (FORMAT.md, "Typed values");
  // __itt_metadata_u64 is 1, _float 7, _double 8.
  const auto bits = [](double v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
  };
  EXPECT_EQ(value_of, (std::map<uint64_t, uint64_t>{{1, 7}, {7, bits(2.5)}, {8, bits(0.75)}}));
}

}  // namespace
}  // namespace ittc::testing
