// Real third-party clients from Debian's packages: oneTBB (libtbb12) and
// LLVM's OpenMP runtime (libomp5) each embed an older ITT static part that
// loads our collector. Each runs alone, then both together with our own
// static part: three static parts, one collector, one trace.

#include <sys/wait.h>

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

using K = format::EventKind;

LoadedTrace RunMode(const std::string& mode) {
  std::string dir = MakeTempDir("real_clients_" + mode);
  std::string path = dir + "/trace.itt";
  int status = RunProgram({Runfile("tests/collector/real_clients_program"), mode},
                          {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                           "ITTC_OUTPUT=" + path, "OMP_NUM_THREADS=2"},
                          dir + "/stdout.txt", dir + "/stderr.txt");
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "wrong result or crash in mode " << mode;
  auto trace = LoadTrace(path);
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? std::move(*trace) : LoadedTrace{};
}

void ExpectComplete(const LoadedTrace& t) {
  EXPECT_TRUE(t.has_end);
  EXPECT_EQ(t.corruptions, 0);
  EXPECT_EQ(t.truncations, 0);
  EXPECT_EQ(t.TotalLoss(), 0u);
  EXPECT_EQ(t.end.events_recorded, t.events.size());
}

size_t Count(const LoadedTrace& t, K kind) { return t.OfKind(kind).size(); }

void ExpectTbbEvents(const LoadedTrace& t) {
  // oneTBB names its synchronisation objects and reports acquisitions.
  EXPECT_GT(Count(t, K::kSyncCreate), 0u);
  EXPECT_GT(Count(t, K::kSyncAcquired), 0u);
  EXPECT_GT(Count(t, K::kSyncReleasing), 0u);
}

void ExpectOmpEvents(const LoadedTrace& t) {
  // libomp submits a frame per parallel region, stamped with values from
  // __itt_get_timestamp (our timebase), and reports barrier sync objects.
  auto frames = t.OfKind(K::kFrameSubmit);
  ASSERT_GE(frames.size(), 5u);
  for (const DecodedEvent* f : frames) {
    EXPECT_LE(f->U("begin"), f->U("end"));
    EXPECT_GE(f->U("begin"), t.header.start_ticks);
    EXPECT_LE(f->U("end"), f->time);
  }
  EXPECT_GT(Count(t, K::kSyncAcquired), 0u);
  EXPECT_GT(Count(t, K::kThreadSetName), 0u);
}

TEST(RealClients, OneTbbProgram) {
  LoadedTrace t = RunMode("tbb");
  ExpectComplete(t);
  ExpectTbbEvents(t);
}

TEST(RealClients, OpenMpProgram) {
  LoadedTrace t = RunMode("omp");
  ExpectComplete(t);
  ExpectOmpEvents(t);
  // Worker threads record too.
  std::set<uint32_t> threads;
  for (const DecodedEvent& e : t.events) threads.insert(e.thread);
  EXPECT_GE(threads.size(), 2u);
}

TEST(RealClients, StubTbbAndOpenMpInOneProcess) {
  LoadedTrace t = RunMode("all");
  ExpectComplete(t);
  ExpectTbbEvents(t);
  ExpectOmpEvents(t);
  // Our own static part's task encloses both runtimes' work.
  auto begins = t.OfKind(K::kTaskBegin);
  const DecodedEvent* ours = nullptr;
  for (const DecodedEvent* b : begins) {
    if (t.strings.count(b->U("name")) && t.strings.at(b->U("name")) == "both.runtimes") ours = b;
  }
  ASSERT_NE(ours, nullptr);
  EXPECT_EQ(t.domains.at(ours->U("domain")), "real.clients");
  // One registry: every domain name is defined once, whichever static part
  // created it.
  std::set<std::string> names;
  for (const auto& [id, name] : t.domains) {
    EXPECT_TRUE(names.insert(name).second) << "domain defined twice: " << name;
  }
}

}  // namespace
}  // namespace ittc::testing
