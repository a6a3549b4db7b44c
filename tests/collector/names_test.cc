// Threads creating overlapping sets of new names at once (names_program.c):
// every thread gets one handle per name, and the trace defines each name
// once and refers to it from every task recorded with it. Block mode, so
// that every task is in the trace. Also run under ThreadSanitizer.
// And threads named by pthread_setname_np keep their names in the trace
// when they exit before the end (thread_names_program.c), and the track
// API's groups and tracks are defined once each (tracks_program.c).

#include <sys/wait.h>

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

}  // namespace
}  // namespace ittc::testing
