// The per-call benchmarks with INTEL_NO_ITTNOTIFY_API: every call macro
// expands to nothing, so these measure the empty benchmark loop.

#define INTEL_NO_ITTNOTIFY_API
#include <ittnotify.h>

#include "bench/calls.h"

#define ITTC_BENCH_NS ittc_bench_compiled_out
#include "bench/call_bodies.inc"

namespace ittc::bench {

void RegisterCompiledOutCalls(const std::string& state) {
  ittc_bench_compiled_out::RegisterCallBenchmarks(state, /*with_burst=*/false);
}

}  // namespace ittc::bench
