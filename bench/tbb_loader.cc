// Runs one oneTBB parallel loop, which makes libtbb's ITT static part load
// the collector named by INTEL_LIBITTNOTIFY64 and register its domains.

#include <tbb/parallel_for.h>

#include <atomic>

namespace ittc::bench {

void RunTbbOnce() {
  std::atomic<long> sum{0};
  tbb::parallel_for(0, 10000, [&](int i) { sum.fetch_add(i, std::memory_order_relaxed); });
}

}  // namespace ittc::bench
