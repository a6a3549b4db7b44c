#include "bench/paced_run.h"

#include <x86intrin.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <ittnotify.h>

#include "bench/bench_env.h"
#include "bench/trace_summary.h"

namespace ittc::bench {
namespace {

// Pairs emitted between two looks at the clock: small enough to keep the
// rate smooth at the scale of the ring (1 MiB holds ~18k pairs).
constexpr int kPairsPerCheck = 32;

int ChildMain(const PacedRunConfig& config) {
  std::string dir = MakeTempDir("ittc-paced");
  SetEnv("INTEL_LIBITTNOTIFY64", CollectorPath());
  SetEnv("ITTC_OUTPUT", dir + "/paced-%p.itt");
  if (config.ring_kb > 0) SetEnv("ITTC_RING_KB", std::to_string(config.ring_kb));
  if (config.zstd_level > 0) SetEnv("ITTC_ZSTD_LEVEL", std::to_string(config.zstd_level));
  if (config.block) SetEnv("ITTC_OVERFLOW", "block");

  __itt_domain* domain = __itt_domain_create("paced");
  // A few task names, as a real loop nest would have.
  __itt_string_handle* names[4] = {
      __itt_string_handle_create("paced.outer"), __itt_string_handle_create("paced.inner"),
      __itt_string_handle_create("paced.io"), __itt_string_handle_create("paced.compute")};
  const double hz = TscHz();

  uint64_t cpu0 = ProcessCpuNs();
  uint64_t thread_cpu0 = ThreadCpuNs();
  auto wall0 = std::chrono::steady_clock::now();
  const uint64_t tsc0 = __rdtsc();
  const uint64_t tsc_end = tsc0 + static_cast<uint64_t>(config.seconds * hz);
  const double ticks_per_event = config.rate_mps > 0 ? hz / (config.rate_mps * 1e6) : 0;
  uint64_t emitted = 0;
  unsigned n = 0;
  for (;;) {
    for (int i = 0; i < kPairsPerCheck; ++i) {
      __itt_task_begin(domain, __itt_null, __itt_null, names[n++ & 3]);
      __itt_task_end(domain);
    }
    emitted += 2 * kPairsPerCheck;
    uint64_t now = __rdtsc();
    if (now >= tsc_end) break;
    if (ticks_per_event > 0) {
      uint64_t due = tsc0 + static_cast<uint64_t>(static_cast<double>(emitted) * ticks_per_event);
      while (now < due && now < tsc_end) {
        _mm_pause();
        now = __rdtsc();
      }
    }
  }
  auto wall1 = std::chrono::steady_clock::now();
  uint64_t producer_cpu = ThreadCpuNs() - thread_cpu0;
  __itt_detach();
  uint64_t cpu1 = ProcessCpuNs();
  uint64_t thread_cpu_total = ThreadCpuNs() - thread_cpu0;

  std::string path = FindTrace(dir);
  auto summary = SummarizeTrace(path);
  if (!summary.ok()) {
    std::fprintf(stderr, "reading %s: %s\n", path.c_str(),
                 std::string(summary.status().message()).c_str());
    RemoveTree(dir);
    return 1;
  }
  // Drops: the end record's total, which counts every cause.
  std::printf(
      "RESULT emitted=%llu recorded=%llu dropped=%llu seconds=%.6f producer_cpu_ns=%llu "
      "flusher_cpu_ns=%llu file_bytes=%llu\n",
      static_cast<unsigned long long>(emitted),
      static_cast<unsigned long long>(summary->end_recorded),
      static_cast<unsigned long long>(summary->end_dropped),
      std::chrono::duration<double>(wall1 - wall0).count(),
      static_cast<unsigned long long>(producer_cpu),
      static_cast<unsigned long long>(cpu1 - cpu0 - thread_cpu_total),
      static_cast<unsigned long long>(summary->file_bytes));
  RemoveTree(dir);
  return summary->has_end ? 0 : 1;
}

uint64_t Field(const std::string& line, const char* key) {
  std::string k = std::string(" ") + key + "=";
  size_t pos = line.find(k);
  return pos == std::string::npos ? 0 : std::strtoull(line.c_str() + pos + k.size(), nullptr, 10);
}

double FieldDouble(const std::string& line, const char* key) {
  std::string k = std::string(" ") + key + "=";
  size_t pos = line.find(k);
  return pos == std::string::npos ? 0 : std::strtod(line.c_str() + pos + k.size(), nullptr);
}

}  // namespace

PacedRunResult RunPacedChild(const PacedRunConfig& config) {
  PacedRunResult result;
  std::string dir = MakeTempDir("ittc-paced-out");
  std::string out = dir + "/stdout";
  char rate[64], seconds[64];
  std::snprintf(rate, sizeof(rate), "%g", config.rate_mps);
  std::snprintf(seconds, sizeof(seconds), "%g", config.seconds);
  std::vector<std::string> args = {
      "--paced_child", std::string("--rate_mps=") + rate, std::string("--seconds=") + seconds,
      "--ring_kb=" + std::to_string(config.ring_kb),
      "--zstd_level=" + std::to_string(config.zstd_level),
      std::string("--block=") + (config.block ? "1" : "0")};
  int rc = RunSelf(args, {}, out);
  FILE* f = std::fopen(out.c_str(), "r");
  char buf[1024];
  while (f != nullptr && std::fgets(buf, sizeof(buf), f) != nullptr) {
    std::string line = buf;
    if (line.compare(0, 7, "RESULT ") != 0) continue;
    result.ok = rc == 0;
    result.emitted = Field(line, "emitted");
    result.recorded = Field(line, "recorded");
    result.dropped = Field(line, "dropped");
    result.seconds = FieldDouble(line, "seconds");
    result.producer_cpu_ns = Field(line, "producer_cpu_ns");
    result.flusher_cpu_ns = Field(line, "flusher_cpu_ns");
    result.file_bytes = Field(line, "file_bytes");
  }
  if (f != nullptr) std::fclose(f);
  RemoveTree(dir);
  return result;
}

bool MaybeRunPacedChild(int argc, char** argv, int* exit_code) {
  bool child = false;
  for (int i = 1; i < argc; ++i) child = child || std::strcmp(argv[i], "--paced_child") == 0;
  if (!child) return false;
  PacedRunConfig config;
  config.rate_mps = std::atof(FlagValue(argc, argv, "rate_mps").c_str());
  config.seconds = std::atof(FlagValue(argc, argv, "seconds").c_str());
  config.ring_kb = std::atoi(FlagValue(argc, argv, "ring_kb").c_str());
  config.zstd_level = std::atoi(FlagValue(argc, argv, "zstd_level").c_str());
  config.block = FlagValue(argc, argv, "block") == "1";
  *exit_code = ChildMain(config);
  return true;
}

}  // namespace ittc::bench
