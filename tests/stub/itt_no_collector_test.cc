// Without a usable collector every ITT call is a no-op and the program runs
// to the end with the output it computes. Built three times (see BUILD), one
// process each:
//   SCENARIO_UNSET     INTEL_LIBITTNOTIFY64 not set
//   SCENARIO_MISSING   set to a path that does not exist
//   SCENARIO_NO_SYMBOLS  set to a shared library without any ITT symbol
#include <stdarg.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

#define INTEL_ITTNOTIFY_API_PRIVATE
#include <ittnotify.h>

#include "tests/stub/test_collector.h"

namespace ittc::testing {
namespace {

std::vector<int> *reported_errors = new std::vector<int>();

void RecordError(__itt_error_code code, va_list) { reported_errors->push_back(code); }

// A small computation instrumented with every kind of call; returns the sum
// of squares of 1..n, which must not depend on the ITT calls.
unsigned long long InstrumentedWork(__itt_domain *d, __itt_string_handle *h, int n) {
  unsigned long long sum = 0;
  __itt_counter c = __itt_counter_create("sum", "work");
  for (int i = 1; i <= n; ++i) {
    __itt_task_begin(d, __itt_null, __itt_null, h);
    __itt_frame_begin_v3(d, nullptr);
    sum += static_cast<unsigned long long>(i) * i;
    __itt_counter_set_value(c, &sum);
    __itt_metadata_add(d, __itt_null, h, __itt_metadata_u64, 1, &sum);
    __itt_formatted_metadata_add(d, h, i);
    __itt_sync_prepare(&sum);
    __itt_sync_acquired(&sum);
    __itt_sync_releasing(&sum);
    __itt_frame_end_v3(d, nullptr);
    __itt_task_end(d);
  }
  __itt_pause();
  __itt_resume();
  __itt_thread_set_name("worker");
  __itt_heap_function f = __itt_heap_function_create("alloc", "work");
  __itt_heap_allocate_begin(f, 8, 0);
  __itt_event e = __itt_event_create("event", 5);
  EXPECT_EQ(__itt_event_start(e), 0);
  EXPECT_EQ(__itt_get_timestamp(), 0u);
  __itt_detach();
  return sum;
}

class NoCollector : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("INTEL_ITTNOTIFY_GROUPS");
#if defined(SCENARIO_UNSET)
    unsetenv("INTEL_LIBITTNOTIFY64");
#elif defined(SCENARIO_MISSING)
    setenv("INTEL_LIBITTNOTIFY64", "/nonexistent/dir/libittnotify_nope.so", 1);
#elif defined(SCENARIO_NO_SYMBOLS)
    setenv("INTEL_LIBITTNOTIFY64", RunfilePath("tests/stub/libnot_a_collector.so").c_str(), 1);
#else
#error "define a SCENARIO_*"
#endif
    __itt_set_error_handler(RecordError);
    pre_domain_ = __itt_domain_create("pre");
    pre_string_ = __itt_string_handle_create("pre");
    pre_flags_ = pre_domain_ != nullptr ? pre_domain_->flags : -1;
    // The first non-creator call attempts the load.
    result_ = InstrumentedWork(pre_domain_, pre_string_, 10);
  }

  static __itt_domain *pre_domain_;
  static __itt_string_handle *pre_string_;
  static int pre_flags_;
  static unsigned long long result_;
};

__itt_domain *NoCollector::pre_domain_;
__itt_string_handle *NoCollector::pre_string_;
int NoCollector::pre_flags_;
unsigned long long NoCollector::result_;

TEST_F(NoCollector, ProgramComputesItsResult) { EXPECT_EQ(result_, 385u); }

TEST_F(NoCollector, CallPointersAreNullAfterTheLoadAttempt) {
  EXPECT_EQ(__itt_task_begin_ptr, nullptr);
  EXPECT_EQ(__itt_sync_prepare_ptr, nullptr);
  EXPECT_EQ(__itt_counter_inc_ptr, nullptr);
  EXPECT_EQ(__itt_formatted_metadata_add_ptr, nullptr);
  EXPECT_EQ(__itt_get_timestamp_ptr, nullptr);
  EXPECT_EQ(__itt_detach_ptr, nullptr);
  // Implemented by the static part itself: stays callable.
  EXPECT_NE(__itt_domain_create_ptr, nullptr);
  EXPECT_NE(__itt_thread_set_name_ptr, nullptr);
}

TEST_F(NoCollector, DomainsAfterTheLoadAttemptAreDisabled) {
  __itt_domain *d = __itt_domain_create("after");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->flags, 0);
  EXPECT_EQ(__itt_string_handle_create("after"), nullptr);
  EXPECT_EQ(__itt_counter_create("after", nullptr), nullptr);
  EXPECT_EQ(InstrumentedWork(d, nullptr, 3), 14u);
}

#if defined(SCENARIO_UNSET)

TEST_F(NoCollector, NothingIsKeptBeforeTheLoadWithoutTheVariable) {
  EXPECT_EQ(pre_domain_, nullptr);
  EXPECT_EQ(pre_string_, nullptr);
  EXPECT_EQ(__itt_get_collection_state(), __itt_collection_collector_absent);
  EXPECT_TRUE(reported_errors->empty());
}

#elif defined(SCENARIO_MISSING)

TEST_F(NoCollector, PreLoadObjectsSurviveAFailedLoadDisabled) {
  ASSERT_NE(pre_domain_, nullptr);
  EXPECT_EQ(pre_flags_, 1);
  EXPECT_EQ(pre_domain_->flags, 0);
  EXPECT_STREQ(pre_domain_->nameA, "pre");
  ASSERT_NE(pre_string_, nullptr);
  EXPECT_STREQ(pre_string_->strA, "pre");
  EXPECT_EQ(__itt_get_collection_state(), __itt_collection_init_fail);
  EXPECT_EQ(*reported_errors, std::vector<int>{__itt_error_no_module});
}

#elif defined(SCENARIO_NO_SYMBOLS)

TEST_F(NoCollector, ALibraryWithoutSymbolsBindsNothing) {
  ASSERT_NE(pre_domain_, nullptr);
  EXPECT_EQ(pre_flags_, 1);
  EXPECT_EQ(__itt_get_collection_state(), __itt_collection_init_successful);
  // Without __itt_api_init or __itt_api_version the library is treated as a
  // legacy collector: only legacy-group functions are looked up, and each
  // missing one is reported.
  ASSERT_FALSE(reported_errors->empty());
  for (int code : *reported_errors) EXPECT_EQ(code, __itt_error_no_symbol);
}

#endif

}  // namespace
}  // namespace ittc::testing
