// iJIT_NotifyEvent reaches the agent's NotifyEvent with every event type and
// structure intact; iJIT_IsProfilingActive reports the agent's Initialize.
// With JIT_NO_AGENT the variable is unset and every call returns 0.
#include <dlfcn.h>
#include <jitprofiling.h>
#include <stdlib.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/stub/jit_event_format.h"

namespace ittc::testing {
namespace {

using Lines = std::vector<std::string>;

[[maybe_unused]] const std::string &AgentPath() {
  static const std::string *path = new std::string(RunfilePath("tests/stub/libtest_jit_agent.so"));
  return *path;
}

class JitProfiling : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
#ifdef JIT_NO_AGENT
    unsetenv("INTEL_JIT_PROFILER64");
#else
    setenv("INTEL_JIT_PROFILER64", AgentPath().c_str(), 1);
#endif
  }
};

TEST_F(JitProfiling, MethodIdsAreFreshAndNonZeroAcrossThreads) {
  std::vector<unsigned int> ids(8 * 1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&ids, t] {
      for (int i = 0; i < 1000; ++i) ids[t * 1000 + i] = iJIT_GetNewMethodID();
    });
  }
  for (std::thread &t : threads) t.join();
  std::set<unsigned int> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());
  EXPECT_EQ(unique.count(0u), 0u);
}

#ifdef JIT_NO_AGENT

TEST_F(JitProfiling, WithoutAnAgentEverythingIsANoOp) {
  EXPECT_EQ(iJIT_IsProfilingActive(), iJIT_NOTHING_RUNNING);
  iJIT_Method_Load load = {};
  load.method_id = iJIT_GetNewMethodID();
  load.method_name = const_cast<char *>("m");
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load), 0);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, nullptr), 0);
}

#else

TEST_F(JitProfiling, EveryEventReachesTheAgentIntact) {
  EXPECT_EQ(iJIT_IsProfilingActive(), iJIT_SAMPLING_ON);
  CollectorLog log(AgentPath());
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log.InitCount(), 1);

  static char code[64];
  LineNumberInfo lines[2] = {{0, 10}, {16, 12}};
  char name[] = "jitted", cls[] = "Cls", src[] = "x.js", mod[] = "mod";

  iJIT_Method_Load load = {};
  load.method_id = iJIT_GetNewMethodID();
  load.method_name = name;
  load.method_load_address = code;
  load.method_size = sizeof(code);
  load.line_number_size = 2;
  load.line_number_table = lines;
  load.class_file_name = cls;
  load.source_file_name = src;

  iJIT_Method_Load_V2 v2 = {};
  v2.method_id = iJIT_GetNewMethodID();
  v2.method_name = name;
  v2.method_load_address = code;
  v2.method_size = 32;
  v2.line_number_size = 1;
  v2.line_number_table = lines;
  v2.class_file_name = cls;
  v2.source_file_name = src;
  v2.module_name = mod;

  iJIT_Method_Load_V3 v3 = {};
  v3.method_id = iJIT_GetNewMethodID();
  v3.method_name = name;
  v3.method_load_address = code + 32;
  v3.method_size = 32;
  v3.module_name = mod;
  v3.module_arch = iJIT_CA_64;

  iJIT_Method_Inline_Load inl = {};
  inl.method_id = iJIT_GetNewMethodID();
  inl.parent_method_id = load.method_id;
  inl.method_name = name;
  inl.method_load_address = code + 4;
  inl.method_size = 8;
  inl.line_number_size = 2;
  inl.line_number_table = lines;

  iJIT_Method_Update update = {};
  update.load_address = code + 48;
  update.size = 16;
  update.type = iJIT_CT_DATA;
  update.data_format = "raw";

  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load), 77);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, &load), 77);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &v2), 77);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &v3), 77);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inl), 77);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &update), 77);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &load), 77);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, nullptr), 77);

  EXPECT_EQ(log.Take(), (Lines{FormatJitEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load),
                               FormatJitEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, &load),
                               FormatJitEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &v2),
                               FormatJitEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &v3),
                               FormatJitEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inl),
                               FormatJitEvent(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &update),
                               FormatJitEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &load),
                               FormatJitEvent(iJVM_EVENT_TYPE_SHUTDOWN, nullptr)}));
  // The rendering must carry the fields, not just the pointer.
  EXPECT_NE(FormatJitEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load).find("\"jitted\""),
            std::string::npos);
}

TEST_F(JitProfiling, EventsWithZeroIdsAreDropped) {
  CollectorLog log(AgentPath());
  ASSERT_TRUE(log.ok());
  log.Take();
  iJIT_Method_Load load = {};
  iJIT_Method_Load_V2 v2 = {};
  iJIT_Method_Load_V3 v3 = {};
  iJIT_Method_Inline_Load inl = {};
  inl.method_id = 5;  // parent id 0
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load), 0);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, &load), 0);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &v2), 0);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &v3), 0);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inl), 0);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, nullptr), 0);
  EXPECT_TRUE(log.Take().empty());
}

// An agent that has ittc_recording_gate (ours does) is not called while the
// gate reads negative (the collector paused), and is again once it does not.
TEST_F(JitProfiling, ACallIsSkippedWhileTheAgentsGateIsClosed) {
  EXPECT_EQ(iJIT_IsProfilingActive(), iJIT_SAMPLING_ON);  // loads the agent
  CollectorLog log(AgentPath());
  ASSERT_TRUE(log.ok());
  log.Take();
  void *agent = dlopen(AgentPath().c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(agent, nullptr);
  auto set_gate = reinterpret_cast<void (*)(int)>(dlsym(agent, "test_jit_agent_set_gate"));
  ASSERT_NE(set_gate, nullptr);
  iJIT_Method_Load load = {};
  load.method_id = iJIT_GetNewMethodID();
  load.method_name = const_cast<char *>("gated");
  set_gate(-1);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load), 0);
  EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, nullptr), 0);
  EXPECT_TRUE(log.Take().empty());
  for (int open : {0, 1}) {
    set_gate(open);
    EXPECT_EQ(iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load), 77) << open;
    EXPECT_EQ(log.Take(), Lines{FormatJitEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load)});
  }
  dlclose(agent);
}

#endif  // JIT_NO_AGENT

}  // namespace
}  // namespace ittc::testing
