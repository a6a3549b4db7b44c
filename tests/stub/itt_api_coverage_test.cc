// Every ITT API function, called through the public macros and our static
// part, reaches the test collector with exactly the arguments passed.
//
// Built twice (see BUILD): against the collector that exports
// __itt_api_init (TEST_WITH_API_INIT) and against the one the static part
// binds symbol by symbol. The whole binary is one process, so the suite's
// setup creates the pre-load objects and performs the load once; each test
// then takes the log it produced.
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

#define INTEL_ITTNOTIFY_API_PRIVATE
#include <ittnotify.h>

#include "stub/abi/itt_static_abi.h"
#include "tests/stub/test_collector.h"

#define TEST_STR_(x) #x
#define TEST_STR(x) TEST_STR_(x)
#define TEST_COLLECTOR_PATH "tests/stub/" TEST_STR(TEST_COLLECTOR_SO) ".so"

namespace ittc::testing {
namespace {

using Lines = std::vector<std::string>;

class IttApiCoverage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    path_ = new std::string(RunfilePath(TEST_COLLECTOR_PATH));
    setenv("INTEL_LIBITTNOTIFY64", path_->c_str(), 1);
#ifndef TEST_WITH_API_INIT
    // Per-symbol binding only binds the groups selected here (Intel's rule).
    setenv("INTEL_ITTNOTIFY_GROUPS", "all", 1);
#endif
    // Created before the collector is loaded: they live on the static
    // part's lists and must reach the collector.
    pre_domain_ = __itt_domain_create("pre.domain");
    pre_domain_again_ = __itt_domain_create("pre.domain");
    pre_string_ = __itt_string_handle_create("pre.string");
    pre_counter_ = __itt_counter_create("pre.counter", "pre.counter.domain");
    pre_counter_typed_ = __itt_counter_create_typed("pre.typed", nullptr, __itt_metadata_s32);
    pre_counter_v3_ = __itt_counter_create_v3(pre_domain_, "pre.v3", __itt_metadata_double);
    pre_histogram_ = __itt_histogram_create(pre_domain_, "pre.histogram", __itt_metadata_u64,
                                            __itt_metadata_double);
    static unsigned long long tid = 1234;
    static char units[] = "ms";
    __itt_context_metadata metadata[] = {
        {__itt_context_unitsA, units},
        {__itt_context_tid, &tid},
    };
    __itt_bind_context_metadata_to_counter(pre_counter_, 2, metadata);
    // The first call that is not a creator loads the collector.
    __itt_thread_set_name("first call");
    log_ = new CollectorLog(*path_);
  }

  void SetUp() override {
    ASSERT_TRUE(log_->ok()) << "collector not loaded: " << *path_;
    first_lines_once_ = log_->Take();
    if (first_lines_ == nullptr) first_lines_ = new Lines(first_lines_once_);
    d_ = __itt_domain_create("test.domain");
    h_ = __itt_string_handle_create("test.handle");
    setup_lines_ = log_->Take();
  }

  static std::string *path_;
  static CollectorLog *log_;
  static Lines *first_lines_;
  static __itt_domain *pre_domain_;
  static __itt_domain *pre_domain_again_;
  static __itt_string_handle *pre_string_;
  static __itt_counter pre_counter_;
  static __itt_counter pre_counter_typed_;
  static __itt_counter pre_counter_v3_;
  static __itt_histogram *pre_histogram_;

  Lines first_lines_once_;
  Lines setup_lines_;
  __itt_domain *d_ = nullptr;
  __itt_string_handle *h_ = nullptr;
};

std::string *IttApiCoverage::path_;
CollectorLog *IttApiCoverage::log_;
Lines *IttApiCoverage::first_lines_;
__itt_domain *IttApiCoverage::pre_domain_;
__itt_domain *IttApiCoverage::pre_domain_again_;
__itt_string_handle *IttApiCoverage::pre_string_;
__itt_counter IttApiCoverage::pre_counter_;
__itt_counter IttApiCoverage::pre_counter_typed_;
__itt_counter IttApiCoverage::pre_counter_v3_;
__itt_histogram *IttApiCoverage::pre_histogram_;

TEST_F(IttApiCoverage, PreLoadObjectsAreCreatedOnceAndEnabled) {
  ASSERT_NE(pre_domain_, nullptr);
  EXPECT_EQ(pre_domain_, pre_domain_again_);
  EXPECT_EQ(pre_domain_->flags, 1);
  EXPECT_STREQ(pre_domain_->nameA, "pre.domain");
  ASSERT_NE(pre_string_, nullptr);
  EXPECT_STREQ(pre_string_->strA, "pre.string");
  EXPECT_NE(pre_counter_, nullptr);
  EXPECT_NE(pre_counter_typed_, nullptr);
  EXPECT_NE(pre_counter_v3_, nullptr);
  EXPECT_NE(pre_histogram_, nullptr);
}

TEST_F(IttApiCoverage, LoadHappensOnFirstCallAndHandsOverPreLoadObjects) {
  ASSERT_NE(first_lines_, nullptr);
  Lines expected;
#ifdef TEST_WITH_API_INIT
  EXPECT_EQ(log_->InitCount(), 1);
  const std::string p = FormatArg(pre_domain_);
  expected.push_back(
      "api_init(-1) global=" + FormatArg(static_cast<void *>(&__itt__ittapi_global)) +
      " build=" + FormatArg(__itt__ittapi_global.version_build) + " domains=[" + p +
      " \"pre.domain\";] strings=[" + FormatArg(pre_string_) + " \"pre.string\";] counters=[" +
      FormatArg(pre_counter_) + " \"pre.counter\" \"pre.counter.domain\" 1;" +
      FormatArg(pre_counter_typed_) + " \"pre.typed\" null 4;" + FormatArg(pre_counter_v3_) +
      " \"pre.v3\" \"pre.domain\" 8;" + "] histograms=[" + FormatArg(pre_histogram_) + " " + p +
      " \"pre.histogram\" 1 8;] metadata=[" + FormatArg(pre_counter_) + " 5 \"ms\" 0;" +
      FormatArg(pre_counter_) + " 9 null 1234;]");
#endif
  expected.push_back(Call("thread_set_name", "first call"));
  EXPECT_EQ(*first_lines_, expected);
}

TEST_F(IttApiCoverage, CreatorsAfterLoadGoToTheCollector) {
  ASSERT_EQ(setup_lines_.size(), 2u);
  EXPECT_EQ(setup_lines_[0], CallReturning(d_, "domain_create", "test.domain"));
  EXPECT_EQ(setup_lines_[1], CallReturning(h_, "string_handle_create", "test.handle"));
  EXPECT_EQ(d_->flags, 1);
}

TEST_F(IttApiCoverage, PreLoadObjectsReachTheCollectorAsPassed) {
  __itt_task_begin(pre_domain_, __itt_null, __itt_null, pre_string_);
  __itt_counter_inc(pre_counter_);
  unsigned long long x = 1, y = 2;
  __itt_histogram_submit(pre_histogram_, 1, &x, &y);
  EXPECT_EQ(log_->Take(),
            (Lines{Call("task_begin", pre_domain_, __itt_null, __itt_null, pre_string_),
                   Call("counter_inc", pre_counter_),
                   Call("histogram_submit", pre_histogram_, size_t{1}, static_cast<void *>(&x),
                        static_cast<void *>(&y))}));
}

TEST_F(IttApiCoverage, DomainCallsAreSkippedForNullOrDisabledDomains) {
  __itt_domain *none = nullptr;
  __itt_task_begin(none, __itt_null, __itt_null, h_);
  d_->flags = 0;
  __itt_task_begin(d_, __itt_null, __itt_null, h_);
  __itt_marker(d_, __itt_null, h_, __itt_scope_global);
  d_->flags = 1;
  __itt_task_end(d_);
  EXPECT_EQ(log_->Take(), (Lines{Call("task_end", d_)}));
}

TEST_F(IttApiCoverage, CollectionControl) {
  __itt_pause();
  __itt_resume();
  __itt_pause_scoped(__itt_collection_scope_host);
  __itt_resume_scoped(__itt_collection_scope_offload);
  __itt_detach();
  EXPECT_EQ(log_->Take(),
            (Lines{Call("pause"), Call("resume"), Call("pause_scoped", __itt_collection_scope_host),
                   Call("resume_scoped", __itt_collection_scope_offload), Call("detach")}));
}

TEST_F(IttApiCoverage, ThreadNamingAndIgnore) {
  __itt_thread_set_name("worker 7");
  __itt_thread_ignore();
  EXPECT_EQ(log_->Take(), (Lines{Call("thread_set_name", "worker 7"), Call("thread_ignore")}));
}

TEST_F(IttApiCoverage, Ids) {
  int obj = 0;
  __itt_id id = __itt_id_make(&obj, 77);
  EXPECT_EQ(id.d1, reinterpret_cast<uintptr_t>(&obj));
  EXPECT_EQ(id.d2, 77u);
  EXPECT_EQ(id.d3, 0u);
  __itt_id_create(d_, id);
  __itt_id_destroy(d_, id);
  EXPECT_EQ(log_->Take(), (Lines{Call("id_create", d_, id), Call("id_destroy", d_, id)}));
}

TEST_F(IttApiCoverage, Tasks) {
  __itt_id id = __itt_id_make(d_, 1), parent = __itt_id_make(h_, 2);
  void *fn = reinterpret_cast<void *>(&__itt_id_make);
  __itt_task_begin(d_, id, parent, h_);
  __itt_task_end(d_);
  __itt_task_begin_fn(d_, id, parent, fn);
  __itt_task_end(d_);
  __itt_task_begin_overlapped(d_, id, parent, h_);
  __itt_task_end_overlapped(d_, id);
  __itt_task_group(d_, id, parent, h_);
  EXPECT_EQ(log_->Take(),
            (Lines{Call("task_begin", d_, id, parent, h_), Call("task_end", d_),
                   Call("task_begin_fn", d_, id, parent, fn), Call("task_end", d_),
                   Call("task_begin_overlapped", d_, id, parent, h_),
                   Call("task_end_overlapped", d_, id), Call("task_group", d_, id, parent, h_)}));
}

TEST_F(IttApiCoverage, ClockDomainsAndExFunctions) {
  static __itt_get_clock_info_fn info_fn = [](__itt_clock_info *info, void *) {
    info->clock_freq = 1000;
    info->clock_base = 0;
  };
  int data = 0;
  __itt_clock_domain *cd = __itt_clock_domain_create(info_fn, &data);
  __itt_clock_domain_reset();
  __itt_id id = __itt_id_make(&data, 3), parent = __itt_id_make(&data, 4);
  void *fn = reinterpret_cast<void *>(&__itt_id_make);
  __itt_id_create_ex(d_, cd, 10, id);
  __itt_task_begin_ex(d_, cd, 11, id, parent, h_);
  __itt_task_end_ex(d_, cd, 12);
  __itt_task_begin_fn_ex(d_, cd, 13, id, parent, fn);
  __itt_task_end_ex(d_, cd, 14);
  __itt_task_begin_overlapped_ex(d_, cd, 15, id, parent, h_);
  __itt_task_end_overlapped_ex(d_, cd, 16, id);
  __itt_marker_ex(d_, cd, 17, id, h_, __itt_scope_task);
  __itt_relation_add_to_current_ex(d_, cd, 18, __itt_relation_is_child_of, id);
  __itt_relation_add_ex(d_, cd, 19, id, __itt_relation_is_parent_of, parent);
  __itt_id_destroy_ex(d_, cd, 20, id);
  Lines got = log_->Take();
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got,
            (Lines{
                CallReturning(cd, "clock_domain_create", info_fn, static_cast<void *>(&data)),
                Call("clock_domain_reset"),
                Call("id_create_ex", d_, cd, 10ull, id),
                Call("task_begin_ex", d_, cd, 11ull, id, parent, h_),
                Call("task_end_ex", d_, cd, 12ull),
                Call("task_begin_fn_ex", d_, cd, 13ull, id, parent, fn),
                Call("task_end_ex", d_, cd, 14ull),
                Call("task_begin_overlapped_ex", d_, cd, 15ull, id, parent, h_),
                Call("task_end_overlapped_ex", d_, cd, 16ull, id),
                Call("marker_ex", d_, cd, 17ull, id, h_, __itt_scope_task),
                Call("relation_add_to_current_ex", d_, cd, 18ull, __itt_relation_is_child_of, id),
                Call("relation_add_ex", d_, cd, 19ull, id, __itt_relation_is_parent_of, parent),
                Call("id_destroy_ex", d_, cd, 20ull, id),
            }));
}

TEST_F(IttApiCoverage, RegionsFramesMarkersTimestamps) {
  __itt_id id = __itt_id_make(d_, 5), parent = __itt_id_make(d_, 6);
  __itt_region_begin(d_, id, parent, h_);
  __itt_region_end(d_, id);
  __itt_frame_begin_v3(d_, &id);
  __itt_frame_end_v3(d_, &id);
  __itt_frame_begin_v3(d_, nullptr);
  __itt_frame_submit_v3(d_, &id, 100, __itt_timestamp_none);
  __itt_marker(d_, id, h_, __itt_scope_global);
  __itt_timestamp ts = __itt_get_timestamp();
  __itt_id *null_id = nullptr;
  EXPECT_EQ(log_->Take(), (Lines{Call("region_begin", d_, id, parent, h_),
                                 Call("region_end", d_, id), Call("frame_begin_v3", d_, &id),
                                 Call("frame_end_v3", d_, &id), Call("frame_begin_v3", d_, null_id),
                                 Call("frame_submit_v3", d_, &id, 100ull, __itt_timestamp_none),
                                 Call("marker", d_, id, h_, __itt_scope_global),
                                 CallReturning(ts, "get_timestamp")}));
  EXPECT_NE(ts, 0u);
}

TEST_F(IttApiCoverage, Metadata) {
  __itt_id id = __itt_id_make(d_, 8);
  unsigned long long values[2] = {3, 4};
  char text[] = "some text";
  __itt_metadata_add(d_, id, h_, __itt_metadata_u64, 2, values);
  __itt_metadata_str_add(d_, id, h_, text, 9);
  __itt_metadata_add_with_scope(d_, __itt_scope_track, h_, __itt_metadata_s32, 1, values);
  __itt_metadata_str_add_with_scope(d_, __itt_scope_global, h_, text, 4);
  EXPECT_EQ(
      log_->Take(),
      (Lines{Call("metadata_add", d_, id, h_, __itt_metadata_u64, size_t{2},
                  static_cast<void *>(values)),
             Call("metadata_str_add", d_, id, h_, text, size_t{9}),
             Call("metadata_add_with_scope", d_, __itt_scope_track, h_, __itt_metadata_s32,
                  size_t{1}, static_cast<void *>(values)),
             Call("metadata_str_add_with_scope", d_, __itt_scope_global, h_, text, size_t{4})}));
}

TEST_F(IttApiCoverage, FormattedMetadataKeepsItsVariadicArguments) {
  __itt_string_handle *fmt = __itt_string_handle_create("%d %s %f %llu");
  __itt_id id = __itt_id_make(d_, 9);
  log_->Take();
  __itt_formatted_metadata_add(d_, fmt, 42, "str", 2.5, 7ull);
  __itt_formatted_metadata_add_overlapped(d_, id, fmt, -1, "x", 0.25, 8ull);
  EXPECT_EQ(log_->Take(),
            (Lines{Call("formatted_metadata_add", d_, fmt, 42, "str", 2.5, 7ull),
                   Call("formatted_metadata_add_overlapped", d_, id, fmt, -1, "x", 0.25, 8ull)}));
}

TEST_F(IttApiCoverage, Relations) {
  __itt_id a = __itt_id_make(d_, 10), b = __itt_id_make(d_, 11);
  __itt_relation_add_to_current(d_, __itt_relation_is_dependent_on, a);
  __itt_relation_add(d_, a, __itt_relation_is_predecessor_to, b);
  EXPECT_EQ(log_->Take(),
            (Lines{Call("relation_add_to_current", d_, __itt_relation_is_dependent_on, a),
                   Call("relation_add", d_, a, __itt_relation_is_predecessor_to, b)}));
}

TEST_F(IttApiCoverage, Counters) {
  __itt_counter c1 = __itt_counter_create("c1", "dom");
  __itt_counter c2 = __itt_counter_create_typed("c2", "dom", __itt_metadata_float);
  __itt_counter c3 = __itt_counter_create_v3(d_, "c3", __itt_metadata_s64);
  long long v = -5;
  int cd_data = 0;
  __itt_clock_domain *cd = __itt_clock_domain_create(nullptr, &cd_data);
  __itt_counter_inc(c1);
  __itt_counter_inc_delta(c1, 10);
  __itt_counter_dec(c1);
  __itt_counter_dec_delta(c1, 3);
  __itt_counter_set_value(c2, &v);
  __itt_counter_set_value_ex(c2, cd, 99, &v);
  __itt_counter_set_value_v3(c3, &v);
  __itt_counter_inc_v3(d_, h_);
  __itt_counter_inc_delta_v3(d_, h_, 6);
  __itt_counter_dec_v3(d_, h_);
  __itt_counter_dec_delta_v3(d_, h_, 2);
  unsigned long long tid = 77;
  char device[] = "gpu0";
  __itt_context_metadata md[] = {{__itt_context_deviceA, device}, {__itt_context_tid, &tid}};
  __itt_bind_context_metadata_to_counter(c3, 2, md);
  __itt_counter_destroy(c1);
  void *vp = &v;
  __itt_get_clock_info_fn no_fn = nullptr;
  EXPECT_EQ(
      log_->Take(),
      (Lines{CallReturning(c1, "counter_create", "c1", "dom"),
             CallReturning(c2, "counter_create_typed", "c2", "dom", __itt_metadata_float),
             CallReturning(c3, "counter_create_v3", d_, "c3", __itt_metadata_s64),
             CallReturning(cd, "clock_domain_create", no_fn, static_cast<void *>(&cd_data)),
             Call("counter_inc", c1), Call("counter_inc_delta", c1, 10ull), Call("counter_dec", c1),
             Call("counter_dec_delta", c1, 3ull), Call("counter_set_value", c2, vp),
             Call("counter_set_value_ex", c2, cd, 99ull, vp), Call("counter_set_value_v3", c3, vp),
             Call("counter_inc_v3", d_, h_), Call("counter_inc_delta_v3", d_, h_, 6ull),
             Call("counter_dec_v3", d_, h_), Call("counter_dec_delta_v3", d_, h_, 2ull),
             Call("bind_context_metadata_to_counter", c3, size_t{2},
                  static_cast<__itt_context_metadata *>(md)),
             Call("counter_destroy", c1)}));
}

TEST_F(IttApiCoverage, Histograms) {
  __itt_histogram *hist =
      __itt_histogram_create(d_, "hist", __itt_metadata_u32, __itt_metadata_u64);
  unsigned int xs[3] = {1, 2, 3};
  unsigned long long ys[3] = {4, 5, 6};
  __itt_histogram_submit(hist, 3, xs, ys);
  __itt_histogram_submit(hist, 3, nullptr, ys);
  void *no_x = nullptr;
  EXPECT_EQ(log_->Take(),
            (Lines{CallReturning(hist, "histogram_create", d_, "hist", __itt_metadata_u32,
                                 __itt_metadata_u64),
                   Call("histogram_submit", hist, size_t{3}, static_cast<void *>(xs),
                        static_cast<void *>(ys)),
                   Call("histogram_submit", hist, size_t{3}, no_x, static_cast<void *>(ys))}));
}

TEST_F(IttApiCoverage, EventsAndMarks) {
  __itt_event e = __itt_event_create("event", 5);
  int started = __itt_event_start(e);
  int ended = __itt_event_end(e);
  __itt_mark_type m = __itt_mark_create("mark");
  int marked = __itt_mark(m, "param");
  int off = __itt_mark_off(m);
  int global = __itt_mark_global(m, "g");
  int global_off = __itt_mark_global_off(m);
  EXPECT_EQ(
      log_->Take(),
      (Lines{CallReturning(e, "event_create", "event", 5), CallReturning(started, "event_start", e),
             CallReturning(ended, "event_end", e), CallReturning(m, "mark_create", "mark"),
             CallReturning(marked, "mark", m, "param"), CallReturning(off, "mark_off", m),
             CallReturning(global, "mark_global", m, "g"),
             CallReturning(global_off, "mark_global_off", m)}));
  EXPECT_NE(e, 0);
}

TEST_F(IttApiCoverage, UserDefinedSync) {
  int lock = 0;
  void *addr = &lock;
  __itt_sync_create(addr, "Mutex", "my lock", __itt_attr_mutex);
  __itt_sync_rename(addr, "renamed");
  __itt_sync_prepare(addr);
  __itt_sync_cancel(addr);
  __itt_sync_prepare(addr);
  __itt_sync_acquired(addr);
  __itt_sync_releasing(addr);
  __itt_sync_destroy(addr);
  // The fsync functions are bound to the collector's sync functions.
  __itt_fsync_prepare(addr);
  __itt_fsync_cancel(addr);
  __itt_fsync_acquired(addr);
  __itt_fsync_releasing(addr);
  EXPECT_EQ(
      log_->Take(),
      (Lines{Call("sync_create", addr, "Mutex", "my lock", 2), Call("sync_rename", addr, "renamed"),
             Call("sync_prepare", addr), Call("sync_cancel", addr), Call("sync_prepare", addr),
             Call("sync_acquired", addr), Call("sync_releasing", addr), Call("sync_destroy", addr),
             Call("sync_prepare", addr), Call("sync_cancel", addr), Call("sync_acquired", addr),
             Call("sync_releasing", addr)}));
}

TEST_F(IttApiCoverage, HeapFunctions) {
  __itt_heap_function f = __itt_heap_function_create("my_malloc", "alloc");
  char buf[16];
  void *p = buf;
  void *q = buf + 8;
  __itt_heap_allocate_begin(f, 16, 1);
  __itt_heap_allocate_end(f, &p, 16, 1);
  __itt_heap_reallocate_begin(f, p, 32, 0);
  __itt_heap_reallocate_end(f, p, &q, 32, 0);
  __itt_heap_free_begin(f, q);
  __itt_heap_free_end(f, q);
  __itt_heap_internal_access_begin();
  __itt_heap_internal_access_end();
  __itt_heap_record_memory_growth_begin();
  __itt_heap_record_memory_growth_end();
  __itt_heap_reset_detection(__itt_heap_leaks);
  __itt_heap_record(__itt_heap_growth);
  EXPECT_EQ(log_->Take(),
            (Lines{CallReturning(f, "heap_function_create", "my_malloc", "alloc"),
                   Call("heap_allocate_begin", f, size_t{16}, 1),
                   Call("heap_allocate_end", f, &p, size_t{16}, 1),
                   Call("heap_reallocate_begin", f, p, size_t{32}, 0),
                   Call("heap_reallocate_end", f, p, &q, size_t{32}, 0),
                   Call("heap_free_begin", f, q), Call("heap_free_end", f, q),
                   Call("heap_internal_access_begin"), Call("heap_internal_access_end"),
                   Call("heap_record_memory_growth_begin"), Call("heap_record_memory_growth_end"),
                   Call("heap_reset_detection", 1u), Call("heap_record", 2u)}));
}

TEST_F(IttApiCoverage, ModulesTracksAndMisc) {
  char start[4], end[1];
  __itt_module_load(start, end, "/lib/x.so");
  __itt_module_unload(start);
  __itt_module_object module = {};
  module.version = 0;
  module.module_name = "mod";
  // The static part stamps `version` only on a call that passes through
  // its first-call stub; bound directly, the collector gets the object as is.
  __itt_module_load_with_sections(&module);
  __itt_module_unload_with_sections(&module);
  __itt_track_group *tg = __itt_track_group_create(h_, __itt_track_group_type_normal);
  __itt_track *track = __itt_track_create(tg, h_, __itt_track_type_queue);
  __itt_set_track(track);
  __itt_pt_region region = __itt_pt_region_create("region");
  __itt_mark_pt_region_begin(region);
  __itt_mark_pt_region_end(region);
  __itt_caller caller = __itt_stack_caller_create();
  __itt_stack_callee_enter(caller);
  __itt_stack_callee_leave(caller);
  __itt_stack_caller_destroy(caller);
  int dims[1] = {2};
  double av[2] = {1, 2};
  int saved = __itt_av_save(av, 1, dims, __itt_e_double, "/tmp/x", 0);
  const char *version = __itt_api_version();
  __itt_enable_attach();
  void *vstart = start, *vend = end;
  EXPECT_EQ(log_->Take(),
            (Lines{Call("module_load", vstart, vend, "/lib/x.so"), Call("module_unload", vstart),
                   Call("module_load_with_sections", &module),
                   Call("module_unload_with_sections", &module),
                   CallReturning(tg, "track_group_create", h_, __itt_track_group_type_normal),
                   CallReturning(track, "track_create", tg, h_, __itt_track_type_queue),
                   Call("set_track", track), CallReturning(region, "pt_region_create", "region"),
                   CallReturning(caller, "stack_caller_create"), Call("stack_callee_enter", caller),
                   Call("stack_callee_leave", caller), Call("stack_caller_destroy", caller),
                   CallReturning(saved, "av_save", static_cast<void *>(av), 1,
                                 static_cast<const int *>(dims), 9, "/tmp/x", 0),
                   CallReturning(version, "api_version"), Call("enable_attach")}));
  EXPECT_STREQ(version, "test-collector");
}

TEST_F(IttApiCoverage, SuppressionAndModelAnnotations) {
  int x = 0;
  void *a = &x;
  __itt_suppress_push(__itt_suppress_memory_errors);
  __itt_suppress_pop();
  __itt_suppress_mark_range(__itt_suppress_range, __itt_suppress_threading_errors, a, 4);
  __itt_suppress_clear_range(__itt_unsuppress_range, 1, a, 4);
  __itt_model_site site = nullptr;
  __itt_model_site_instance site_inst = nullptr;
  __itt_model_task task = nullptr;
  __itt_model_task_instance task_inst = nullptr;
  __itt_model_site_begin(&site, &site_inst, "site");
  __itt_model_site_beginA("siteA");
  __itt_model_site_beginAL("siteAL", 6);
  __itt_model_site_end(&site, &site_inst);
  __itt_model_site_end_2();
  __itt_model_task_begin(&task, &task_inst, "task");
  __itt_model_task_beginA("taskA");
  __itt_model_task_beginAL("taskAL", 6);
  __itt_model_iteration_taskA("iter");
  __itt_model_iteration_taskAL("iterAL", 6);
  __itt_model_task_end(&task, &task_inst);
  __itt_model_task_end_2();
  __itt_model_lock_acquire(a);
  __itt_model_lock_acquire_2(a);
  __itt_model_lock_release(a);
  __itt_model_lock_release_2(a);
  __itt_model_record_allocation(a, 4);
  __itt_model_record_deallocation(a);
  __itt_model_induction_uses(a, 4);
  __itt_model_reduction_uses(a, 4);
  __itt_model_observe_uses(a, 4);
  __itt_model_clear_uses(a);
  __itt_model_disable_push(__itt_model_disable_collection);
  __itt_model_disable_pop();
  __itt_model_aggregate_task(3);
  EXPECT_EQ(log_->Take(),
            (Lines{Call("suppress_push", 0xff00u),
                   Call("suppress_pop"),
                   Call("suppress_mark_range", __itt_suppress_range, 0xffu, a, size_t{4}),
                   Call("suppress_clear_range", __itt_unsuppress_range, 1u, a, size_t{4}),
                   Call("model_site_begin", &site, &site_inst, "site"),
                   Call("model_site_beginA", "siteA"),
                   Call("model_site_beginAL", "siteAL", size_t{6}),
                   Call("model_site_end", &site, &site_inst),
                   Call("model_site_end_2"),
                   Call("model_task_begin", &task, &task_inst, "task"),
                   Call("model_task_beginA", "taskA"),
                   Call("model_task_beginAL", "taskAL", size_t{6}),
                   Call("model_iteration_taskA", "iter"),
                   Call("model_iteration_taskAL", "iterAL", size_t{6}),
                   Call("model_task_end", &task, &task_inst),
                   Call("model_task_end_2"),
                   Call("model_lock_acquire", a),
                   Call("model_lock_acquire_2", a),
                   Call("model_lock_release", a),
                   Call("model_lock_release_2", a),
                   Call("model_record_allocation", a, size_t{4}),
                   Call("model_record_deallocation", a),
                   Call("model_induction_uses", a, size_t{4}),
                   Call("model_reduction_uses", a, size_t{4}),
                   Call("model_observe_uses", a, size_t{4}),
                   Call("model_clear_uses", a),
                   Call("model_disable_push", __itt_model_disable_collection),
                   Call("model_disable_pop"),
                   Call("model_aggregate_task", size_t{3})}));
}

TEST_F(IttApiCoverage, CollectionStateIsInitSuccessful) {
  EXPECT_EQ(__itt_get_collection_state(), __itt_collection_init_successful);
}

}  // namespace
}  // namespace ittc::testing
