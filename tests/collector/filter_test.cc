// ITTC_DOMAINS enables only matching domains (the others get flags = 0, so
// the caller skips them; counters, histograms and heap functions of the
// others record nothing), and ITTC_START_PAUSED records nothing until
// __itt_resume; __itt_pause_scoped and __itt_resume_scoped pause and resume
// only for a scope with the host's bit, and are recorded with their scope;
// after __itt_thread_ignore a thread records its control calls only.

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

using K = format::EventKind;

TEST(Filter, DomainFilterAndStartPaused) {
  std::string dir = MakeTempDir("filter");
  std::string path = dir + "/filter.itt";
  int status = RunProgram({Runfile("tests/collector/filter_program")},
                          {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                           "ITTC_OUTPUT=" + path, "ITTC_DOMAINS=keep.*", "ITTC_START_PAUSED=1"},
                          dir + "/stdout.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  FILE* f = std::fopen((dir + "/stdout.txt").c_str(), "r");
  ASSERT_NE(f, nullptr);
  int keep_flags = -1, drop_flags = -1;
  ASSERT_EQ(std::fscanf(f, "%d %d", &keep_flags, &drop_flags), 2);
  std::fclose(f);
  EXPECT_EQ(keep_flags, 1);
  EXPECT_EQ(drop_flags, 0);

  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  std::vector<std::string> seen;
  for (const DecodedEvent& e : trace->events) {
    std::string what = format::FindSchema(e.kind)->name;
    if (e.kind == K::kTaskBegin)
      what += ":" + trace->domains[e.U("domain")] + ":" + trace->strings[e.U("name")];
    if (e.kind == K::kTaskEnd) what += ":" + trace->domains[e.U("domain")];
    if (e.kind == K::kPauseScoped || e.kind == K::kResumeScoped) {
      what += ":" + std::to_string(e.U("collection_scope"));
    }
    seen.push_back(what);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "resume", "task_begin:keep.me:after_resume", "task_end:keep.me",
                      "counter_inc", "counter_inc", "heap_allocate_begin", "heap_allocate_end",
                      "pause_scoped:2", "task_begin:keep.me:scoped", "task_end:keep.me",
                      "resume_scoped:2", "pause", "resume_scoped:1", "task_begin:keep.me:scoped",
                      "task_end:keep.me", "thread_ignore", "pause", "resume"}));
  ASSERT_EQ(trace->threads.size(), 1u);
  EXPECT_TRUE(trace->threads.begin()->second.ignored);
  EXPECT_EQ(trace->TotalLoss(), 0u);
  EXPECT_TRUE(trace->has_end);
}

}  // namespace
}  // namespace ittc::testing
