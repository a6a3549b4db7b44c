// A recording JIT profiling agent: what libjitprofiling.a loads through
// INTEL_JIT_PROFILER64. Records every NotifyEvent as one line
// (jit_event_format.h) and answers Initialize with iJIT_SAMPLING_ON. Its log
// is read with ittc::testing::CollectorLog; "init count" counts Initialize calls.
// It also has our collector's optional recording gate, which the test sets
// through test_jit_agent_set_gate.
#include <mutex>
#include <string>
#include <vector>

#include "tests/stub/jit_event_format.h"

namespace {

std::mutex mu;
std::vector<std::string> *event_log = new std::vector<std::string>();
int initialize_calls = 0;

int recording_gate = 1;  // open

}  // namespace

extern "C" __attribute__((visibility("default"))) const int *ittc_recording_gate(void) {
  return &recording_gate;
}

extern "C" __attribute__((visibility("default"))) void test_jit_agent_set_gate(int value) {
  __atomic_store_n(&recording_gate, value, __ATOMIC_RELAXED);
}

// Result of NotifyEvent: distinguishable from the static part's own 0.
constexpr unsigned int kNotifyResult = 77;

extern "C" __attribute__((visibility("default"))) unsigned int Initialize(void) {
  std::lock_guard<std::mutex> lock(mu);
  ++initialize_calls;
  return iJIT_SAMPLING_ON;
}

extern "C" __attribute__((visibility("default"))) unsigned int NotifyEvent(unsigned int event_type,
                                                                           void *data) {
  std::string line = ittc::testing::FormatJitEvent(event_type, data);
  std::lock_guard<std::mutex> lock(mu);
  event_log->push_back(line);
  return kNotifyResult;
}

extern "C" __attribute__((visibility("default"))) int test_collector_init_count(void) {
  std::lock_guard<std::mutex> lock(mu);
  return initialize_calls;
}

extern "C" __attribute__((visibility("default"))) void test_collector_take_log(
    void (*sink)(void *ctx, const char *), void *ctx) {
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(mu);
    lines.swap(*event_log);
  }
  for (const std::string &line : lines) sink(ctx, line.c_str());
}
