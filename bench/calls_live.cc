// The per-call benchmarks against the real call macros (call_bodies.inc).

#include <ittnotify.h>

#include "bench/calls.h"

#define ITTC_BENCH_NS ittc_bench_live
#include "bench/call_bodies.inc"

namespace ittc::bench {

void RegisterLiveCalls(const std::string& state, bool with_burst) {
  ittc_bench_live::RegisterCallBenchmarks(state, with_burst);
}

}  // namespace ittc::bench
