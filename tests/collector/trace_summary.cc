// Debugging aid for tests: prints event, loss and chunk counts of a trace.
#include <cstdio>
#include <string>

#include "tests/collector/trace_loader.h"

int main(int argc, char** argv) {
  bool verbose = argc == 3 && std::string(argv[1]) == "-v";
  if (argc != 2 && !verbose) {
    std::fprintf(stderr, "usage: trace_summary [-v] FILE\n");
    return 2;
  }
  auto trace = ittc::testing::LoadTrace(
      argv[argc - 1], verbose ? ittc::testing::KeepEvents::kAll : ittc::testing::KeepEvents::kNone);
  if (!trace.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], std::string(trace.status().message()).c_str());
    return 1;
  }
  uint64_t events = 0;
  for (const auto& [thread, n] : trace->event_counts) events += n;
  std::printf(
      "events %llu, end %d (recorded %llu dropped %llu), chunks %llu, corrupt %d, "
      "truncated %d\n",
      static_cast<unsigned long long>(events), trace->has_end,
      static_cast<unsigned long long>(trace->end.events_recorded),
      static_cast<unsigned long long>(trace->end.events_dropped),
      static_cast<unsigned long long>(trace->stats.chunks_read), trace->corruptions,
      trace->truncations);
  for (const auto& [key, n] : trace->losses) {
    std::printf("loss thread %u cause %s: %llu\n", key.first,
                ittc::format::LossCauseName(key.second), static_cast<unsigned long long>(n));
  }
  if (verbose) {
    std::printf("timebase_hz %llu (%s)\n",
                static_cast<unsigned long long>(trace->header.timebase_hz),
                trace->header.writer.c_str());
    for (const auto& sync : trace->syncs) {
      std::printf("sync ticks %llu monotonic_raw_ns %llu\n",
                  static_cast<unsigned long long>(sync.ticks),
                  static_cast<unsigned long long>(sync.monotonic_raw_ns));
    }
    for (const auto& e : trace->events) {
      std::printf("thread %u %s time %llu\n", e.thread, ittc::format::FindSchema(e.kind)->name,
                  static_cast<unsigned long long>(e.time));
    }
  }
  return 0;
}
