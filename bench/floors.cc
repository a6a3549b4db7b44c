#include "bench/floors.h"

#include <benchmark/benchmark.h>
#include <ittnotify.h>
#include <x86intrin.h>

#include <cstdint>

namespace ittc::bench {
namespace {

__attribute__((noinline)) void EmptyFunction() { asm volatile(""); }

// A 16-byte slot per call in a 64 KiB buffer, like a ring without a consumer.
alignas(64) uint64_t g_buffer[8192];
size_t g_buffer_pos;

__attribute__((noinline)) void RdtscStore() {
  uint64_t now = __rdtsc();
  size_t pos = g_buffer_pos;
  g_buffer[pos] = 0x0001000200000010u;
  g_buffer[pos + 1] = now;
  g_buffer_pos = (pos + 2) & 8191;
}

using Fn = void (*)();
Fn g_empty = EmptyFunction;
Fn g_rdtsc_store = RdtscStore;
__itt_domain g_disabled_domain;  // flags == 0
__itt_domain* g_disabled = &g_disabled_domain;

// The call macros read function pointers with an acquire load.
Fn Load(Fn* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

void BM_Floor_Rdtsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(__rdtsc());
  state.counters["calls"] = 1;
}

void BM_Floor_IndirectCall(benchmark::State& state) {
  for (auto _ : state) Load (&g_empty)();
  state.counters["calls"] = 1;
}

void BM_Floor_FlagsCheck(benchmark::State& state) {
  for (auto _ : state) {
    if (g_disabled->flags) Load (&g_empty)();
  }
  state.counters["calls"] = 1;
}

void BM_Floor_CallRdtscStore(benchmark::State& state) {
  for (auto _ : state) Load (&g_rdtsc_store)();
  state.counters["calls"] = 1;
}

}  // namespace

void RegisterFloors(const std::string& state) {
  benchmark::RegisterBenchmark(("BM_Floor_Rdtsc/" + state).c_str(), BM_Floor_Rdtsc);
  benchmark::RegisterBenchmark(("BM_Floor_IndirectCall/" + state).c_str(), BM_Floor_IndirectCall);
  benchmark::RegisterBenchmark(("BM_Floor_FlagsCheck/" + state).c_str(), BM_Floor_FlagsCheck);
  benchmark::RegisterBenchmark(("BM_Floor_CallRdtscStore/" + state).c_str(),
                               BM_Floor_CallRdtscStore);
}

}  // namespace ittc::bench
