// Intel's rules for collectors without __itt_api_init, which our static part
// follows so that such collectors behave alike under both:
//   SCENARIO_GROUPS  the collector exports __itt_api_version: only functions
//                    in the groups named by INTEL_ITTNOTIFY_GROUPS (plus
//                    counter, frame, stitch and heap, always) are bound.
//   SCENARIO_LEGACY  it does not: only legacy-group functions are bound, and
//                    the modern sync/thread functions are routed to their
//                    legacy names.
#include <ittnotify.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/stub/test_collector.h"

namespace ittc::testing {
namespace {

using Lines = std::vector<std::string>;

TEST(BindingRules, OnlySelectedGroupsAreBound) {
  const std::string path = RunfilePath("tests/stub/" TEST_COLLECTOR_SO_NAME);
  setenv("INTEL_LIBITTNOTIFY64", path.c_str(), 1);
#ifdef SCENARIO_GROUPS
  setenv("INTEL_ITTNOTIFY_GROUPS", "sync;control", 1);
#else
  setenv("INTEL_ITTNOTIFY_GROUPS", "all", 1);  // ignored for legacy libraries
#endif
  __itt_domain *d = __itt_domain_create("rules");
  int x = 0;
  void *addr = &x;
  __itt_sync_prepare(addr);  // loads the collector
  __itt_pause();
  __itt_thread_ignore();
  __itt_task_begin(d, __itt_null, __itt_null, nullptr);
  __itt_heap_internal_access_begin();
  __itt_event e = __itt_event_create("e", 1);
  (void)e;

  CollectorLog log(path);
  ASSERT_TRUE(log.ok());
#ifdef SCENARIO_GROUPS
  // sync and control were asked for, heap comes always; thread (ignore),
  // structure (task_begin) and mark (event_create) were not.
  EXPECT_EQ(log.Take(),
            (Lines{Call("sync_prepare", addr), Call("pause"), Call("heap_internal_access_begin")}));
  EXPECT_EQ(__itt_task_begin_ptr, nullptr);
#else
  // Legacy names for the modern sync and thread functions; pause and
  // event_create are in the legacy group themselves.
  Lines got = log.Take();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], Call("notify_sync_prepare", addr));
  EXPECT_EQ(got[1], Call("pause"));
  EXPECT_EQ(got[2], Call("thr_ignore"));
  EXPECT_EQ(got[3].rfind("event_create(\"e\", 1) -> ", 0), 0u) << got[3];
  EXPECT_EQ(__itt_task_begin_ptr, nullptr);
#endif
}

}  // namespace
}  // namespace ittc::testing
