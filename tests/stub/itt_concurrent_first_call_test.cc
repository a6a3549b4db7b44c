// 32 threads make their first ITT call at the same moment: the collector is
// loaded exactly once and every call reaches it. Meant to run under
// ThreadSanitizer too (bazel test --config=tsan).
#include <ittnotify.h>
#include <pthread.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/stub/test_collector.h"

namespace ittc::testing {
namespace {

constexpr int kThreads = 32;

TEST(ConcurrentFirstCall, LoadsTheCollectorOnceAndLosesNoCall) {
  const std::string path = RunfilePath("tests/stub/libtest_collector_init.so");
  setenv("INTEL_LIBITTNOTIFY64", path.c_str(), 1);

  pthread_barrier_t barrier;
  ASSERT_EQ(pthread_barrier_init(&barrier, nullptr, kThreads), 0);
  int slots[kThreads] = {};
  __itt_domain *domains[kThreads] = {};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      pthread_barrier_wait(&barrier);
      // Different first calls exercise different first-call stubs.
      switch (i % 4) {
        case 0:
          __itt_sync_prepare(&slots[i]);
          break;
        case 1:
          __itt_thread_set_name(("thread " + std::to_string(i)).c_str());
          break;
        case 2:
          __itt_pause();
          break;
        case 3:
          // A creator racing with the load, then a call with its domain.
          domains[i] = __itt_domain_create("shared");
          __itt_task_end(domains[i]);
          break;
      }
    });
  }
  for (std::thread &t : threads) t.join();
  pthread_barrier_destroy(&barrier);

  CollectorLog log(path);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log.InitCount(), 1);

  std::vector<std::string> expected;
  for (int i = 0; i < kThreads; ++i) {
    switch (i % 4) {
      case 0:
        expected.push_back(Call("sync_prepare", static_cast<void *>(&slots[i])));
        break;
      case 1:
        expected.push_back(Call("thread_set_name", ("thread " + std::to_string(i)).c_str()));
        break;
      case 2:
        expected.push_back(Call("pause"));
        break;
      case 3:
        ASSERT_NE(domains[i], nullptr);
        expected.push_back(Call("task_end", domains[i]));
        break;
    }
  }
  // api_init and the collector's own domain_create lines are not calls the
  // threads asked for; everything else must match one to one.
  std::vector<std::string> got;
  for (const std::string &line : log.Take()) {
    if (line.rfind("api_init(", 0) == 0) continue;
    if (line.rfind("domain_create(", 0) == 0) continue;
    got.push_back(line);
  }
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace ittc::testing
