// The static-part ABI: layouts and values that must match Intel's ittapi
// byte for byte (numbers measured against Intel's headers, LP64), and the
// helpers that tell which fields an older static part has.
#include <jitprofiling.h>
#include <stddef.h>
#include <string.h>

#include "gtest/gtest.h"
#include "stub/abi/itt_static_abi.h"

namespace ittc::testing {
namespace {

static_assert(sizeof(void *) == 8, "the numbers below are for LP64");

// __itt_global and the rows of its function table.
static_assert(offsetof(__itt_global, version_build) == 24, "");
static_assert(offsetof(__itt_global, api_initialized) == 32, "");
static_assert(offsetof(__itt_global, mutex) == 56, "");
static_assert(offsetof(__itt_global, lib) == 96, "");
static_assert(offsetof(__itt_global, api_list_ptr) == 120, "");
static_assert(offsetof(__itt_global, thread_list) == 136, "");
static_assert(offsetof(__itt_global, domain_list) == 144, "");
static_assert(offsetof(__itt_global, string_list) == 152, "");
static_assert(offsetof(__itt_global, state) == 160, "");
static_assert(offsetof(__itt_global, counter_list) == 168, "");
static_assert(offsetof(__itt_global, ipt_collect_events) == 176, "");
static_assert(offsetof(__itt_global, histogram_list) == 184, "");
static_assert(offsetof(__itt_global, counter_metadata_list) == 192, "");
static_assert(sizeof(__itt_global) == 200, "");
static_assert(ITTC_ABI_SIZE_UP_TO_STATE == 164, "");
static_assert(ITTC_ABI_SIZE_UP_TO_COUNTER_LIST == 176, "");
static_assert(ITTC_ABI_SIZE_UP_TO_IPT_COLLECT_EVENTS == 180, "");
static_assert(ITTC_ABI_SIZE_UP_TO_HISTOGRAM_LIST == 192, "");
static_assert(sizeof(__itt_api_info) == 40, "");
static_assert(sizeof(__itt_api_info_20101001) == 32, "");
static_assert(sizeof(__itt_thread_info) == 48, "");
static_assert(offsetof(__itt_thread_info, next) == 40, "");
static_assert(sizeof(__itt_counter_info_t) == 72, "");
static_assert(offsetof(__itt_counter_info_t, type) == 32, "");
static_assert(offsetof(__itt_counter_info_t, index) == 40, "");
static_assert(offsetof(__itt_counter_info_t, next) == 64, "");

// Public objects the static part and the collector exchange.
static_assert(sizeof(__itt_domain) == 48, "");
static_assert(offsetof(__itt_domain, nameA) == 8, "");
static_assert(offsetof(__itt_domain, next) == 40, "");
static_assert(sizeof(__itt_string_handle) == 40, "");
static_assert(offsetof(__itt_string_handle, next) == 32, "");
static_assert(sizeof(__itt_id) == 24, "");
static_assert(sizeof(__itt_clock_domain) == 56, "");
static_assert(offsetof(__itt_clock_domain, fn) == 16, "");
static_assert(offsetof(__itt_clock_domain, next) == 48, "");
static_assert(sizeof(__itt_track_group) == 40, "");
static_assert(sizeof(__itt_track) == 40, "");
static_assert(offsetof(__itt_track, ttype) == 16, "");
static_assert(sizeof(__itt_section_info) == 48, "");
static_assert(sizeof(__itt_module_object) == 80, "");
static_assert(offsetof(__itt_module_object, module_id) == 8, "");
static_assert(offsetof(__itt_module_object, module_type) == 32, "");
static_assert(offsetof(__itt_module_object, section_number) == 72, "");
static_assert(sizeof(__itt_histogram) == 56, "");
static_assert(offsetof(__itt_histogram, x_type) == 24, "");
static_assert(offsetof(__itt_histogram, next) == 48, "");
static_assert(sizeof(__itt_context_metadata) == 16, "");
static_assert(sizeof(__itt_counter_metadata) == 64, "");
static_assert(offsetof(__itt_counter_metadata, value) == 32, "");
static_assert(offsetof(__itt_counter_metadata, next) == 56, "");

// JIT structures.
static_assert(sizeof(iJIT_Method_Load) == 64, "");
static_assert(offsetof(iJIT_Method_Load, method_size) == 24, "");
static_assert(offsetof(iJIT_Method_Load, line_number_table) == 32, "");
static_assert(offsetof(iJIT_Method_Load, class_id) == 40, "");
static_assert(offsetof(iJIT_Method_Load, source_file_name) == 56, "");
static_assert(sizeof(iJIT_Method_Load_V2) == 64, "");
static_assert(offsetof(iJIT_Method_Load_V2, module_name) == 56, "");
static_assert(sizeof(iJIT_Method_Load_V3) == 72, "");
static_assert(offsetof(iJIT_Method_Load_V3, module_arch) == 64, "");
static_assert(sizeof(iJIT_Method_Inline_Load) == 56, "");
static_assert(offsetof(iJIT_Method_Inline_Load, source_file_name) == 48, "");
static_assert(sizeof(iJIT_Method_Update) == 24, "");
static_assert(offsetof(iJIT_Method_Update, data_format) == 16, "");
static_assert(sizeof(LineNumberInfo) == 8, "");

// Values.
static_assert(__itt_group_legacy == 1 && __itt_group_control == 2 &&
                  __itt_group_structure == 4096 && __itt_group_module == 32768 &&
                  __itt_group_all == -1,
              "");
static_assert(__itt_collection_uninitialized == 0 && __itt_collection_init_successful == 4, "");
static_assert(__itt_metadata_double == 8 && __itt_scope_marker == 5 &&
                  __itt_relation_is_predecessor_to == 7,
              "");
static_assert(__itt_context_tid == 9 && __itt_context_cpu_cycles_flag == 17, "");
static_assert(iJVM_EVENT_TYPE_SHUTDOWN == 2 && iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED == 13 &&
                  iJVM_EVENT_TYPE_METHOD_UPDATE_V2 == 17 &&
                  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3 == 22,
              "");

TEST(StaticAbi, OurDescriptorIdentifiesItself) {
  static const unsigned char kMagic[] = ITT_MAGIC;
  EXPECT_EQ(memcmp(__itt__ittapi_global.magic, kMagic, sizeof(kMagic)), 0);
  EXPECT_EQ(__itt__ittapi_global.version_major, 3u);
  EXPECT_EQ(__itt__ittapi_global.version_minor, 0u);
  EXPECT_TRUE(ITTC_ABI_HAS_COUNTER_LIST(&__itt__ittapi_global));
  EXPECT_TRUE(ITTC_ABI_HAS_IPT_COLLECT_EVENTS(&__itt__ittapi_global));
  EXPECT_TRUE(ITTC_ABI_HAS_HISTOGRAM_LIST(&__itt__ittapi_global));
  EXPECT_TRUE(ITTC_ABI_HAS_COUNTER_METADATA_LIST(&__itt__ittapi_global));
}

TEST(StaticAbi, TableRowsNameTheExportedPointers) {
  int rows = 0;
  bool saw_task_begin = false;
  for (const __itt_api_info *row = __itt__ittapi_global.api_list_ptr; row->name != nullptr; ++row) {
    ++rows;
    EXPECT_EQ(strncmp(row->name, "__itt_", 6), 0) << row->name;
    EXPECT_EQ(*row->func_ptr, row->init_func) << row->name;
    if (strcmp(row->name, "__itt_task_begin") == 0) {
      saw_task_begin = true;
      EXPECT_EQ(row->func_ptr, reinterpret_cast<void **>(&ITTNOTIFY_NAME(task_begin)));
      EXPECT_EQ(row->null_func, nullptr);
      EXPECT_EQ(row->group, __itt_group_structure);
    }
    if (strcmp(row->name, "__itt_domain_create") == 0) {
      EXPECT_EQ(row->null_func, row->init_func);
    }
  }
  EXPECT_TRUE(saw_task_begin);
  EXPECT_EQ(rows, 156);  // one per pointer variable, as in Intel's
}

// A static part as embedded in oneTBB 2021.8 (ittapi 3.18.6) and one as in
// LLVM 14's OpenMP runtime (ittapi 3.20.1): both say build 20180723; only
// the table tells whether histogram_list exists.
TEST(StaticAbi, OlderStaticPartsAreToldApartByTheirTable) {
  __itt_api_info with_histograms[] = {
      {"__itt_task_begin", nullptr, nullptr, nullptr, __itt_group_structure},
      {"__itt_histogram_create", nullptr, nullptr, nullptr, __itt_group_structure},
      {nullptr, nullptr, nullptr, nullptr, __itt_group_none}};
  __itt_api_info without[] = {
      {"__itt_task_begin", nullptr, nullptr, nullptr, __itt_group_structure},
      {nullptr, nullptr, nullptr, nullptr, __itt_group_none}};
  __itt_global g;
  memset(&g, 0, sizeof(g));
  g.version_major = 3;
  g.version_build = 20180723;
  g.api_list_ptr = without;
  EXPECT_TRUE(ITTC_ABI_HAS_COUNTER_LIST(&g));
  EXPECT_TRUE(ITTC_ABI_HAS_IPT_COLLECT_EVENTS(&g));
  EXPECT_FALSE(ITTC_ABI_HAS_HISTOGRAM_LIST(&g));
  EXPECT_FALSE(ITTC_ABI_HAS_COUNTER_METADATA_LIST(&g));
  g.api_list_ptr = with_histograms;
  EXPECT_TRUE(ITTC_ABI_HAS_HISTOGRAM_LIST(&g));
  EXPECT_FALSE(ITTC_ABI_HAS_COUNTER_METADATA_LIST(&g));
  g.version_build = 20151119;
  EXPECT_TRUE(ITTC_ABI_HAS_COUNTER_LIST(&g));
  EXPECT_FALSE(ITTC_ABI_HAS_IPT_COLLECT_EVENTS(&g));
  EXPECT_FALSE(ITTC_ABI_HAS_HISTOGRAM_LIST(&g));
  g.version_build = 20111111;
  EXPECT_FALSE(ITTC_ABI_HAS_COUNTER_LIST(&g));
}

}  // namespace
}  // namespace ittc::testing
