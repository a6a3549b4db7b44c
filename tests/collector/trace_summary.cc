// Debugging aid for tests: prints event, loss and chunk counts of a trace.
#include <cstdio>

#include "tests/collector/trace_loader.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trace_summary FILE\n");
    return 2;
  }
  auto trace = ittc::testing::LoadTrace(argv[1]);
  if (!trace.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], std::string(trace.status().message()).c_str());
    return 1;
  }
  std::printf("events %zu, end %d (recorded %llu dropped %llu), chunks %llu, corrupt %d, "
              "truncated %d\n",
              trace->events.size(), trace->has_end,
              static_cast<unsigned long long>(trace->end.events_recorded),
              static_cast<unsigned long long>(trace->end.events_dropped),
              static_cast<unsigned long long>(trace->stats.chunks_read), trace->corruptions,
              trace->truncations);
  for (const auto& [key, n] : trace->losses) {
    std::printf("loss thread %u cause %s: %llu\n", key.first, ittc::format::LossCauseName(key.second),
                static_cast<unsigned long long>(n));
  }
  return 0;
}
