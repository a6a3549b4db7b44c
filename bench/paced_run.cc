#include "bench/paced_run.h"

#include <dirent.h>
#include <ittnotify.h>
#include <sys/resource.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_env.h"
#include "bench/trace_summary.h"
#include "tests/collector/collector_hooks.h"

namespace ittc::bench {
namespace {

// Pairs emitted between two looks at the clock: small enough to keep the
// rate smooth at the scale of the ring (1 MiB holds ~18k pairs).
constexpr int kPairsPerCheck = 32;

// The nice value of the thread whose /proc directory is `task_dir`; 0 if
// unavailable.
int NiceOf(const std::string& task_dir) {
  const size_t slash = task_dir.rfind('/');
  if (task_dir.empty() || slash == std::string::npos) return 0;
  errno = 0;
  const int nice =
      getpriority(PRIO_PROCESS, static_cast<id_t>(std::atoi(task_dir.c_str() + slash + 1)));
  return errno == 0 ? nice : 0;
}

struct ProducerResult {
  uint64_t emitted = 0;
  uint64_t cpu_ns = 0;   // the thread's CPU time while producing
  uint64_t wait_ns = 0;  // runnable but waiting for a CPU meanwhile
};

// One producer: task begin/end pairs over `names` until tsc_end, a batch
// of kPairsPerCheck pairs every batch_ticks (0: as fast as possible).
void Produce(__itt_domain* domain, __itt_string_handle* const* names, uint64_t tsc0,
             uint64_t tsc_end, uint64_t batch_ticks, double hz, ProducerResult* result) {
  const uint64_t wait0 = RunQueueWaitNs("/proc/thread-self");
  const uint64_t cpu0 = ThreadCpuNs();
  // A producer that was preempted does not catch up in a burst at full
  // speed (that would measure bursts, not the rate): past this lag the
  // schedule restarts from now, and the achieved rate falls short instead.
  const uint64_t max_lag_ticks = static_cast<uint64_t>(hz * 20e-6);
  uint64_t due = tsc0;
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
    if (batch_ticks > 0) {
      due += batch_ticks;
      if (now > due + max_lag_ticks) due = now;
      while (now < due && now < tsc_end) {
        _mm_pause();
        now = __rdtsc();
      }
    }
  }
  result->emitted = emitted;
  result->cpu_ns = ThreadCpuNs() - cpu0;
  result->wait_ns = RunQueueWaitNs("/proc/thread-self") - wait0;
}

int ChildMain(const PacedRunConfig& config) {
  std::string dir = MakeTempDir("ittc-paced");
  SetEnv("INTEL_LIBITTNOTIFY64", CollectorPath());
  SetEnv("ITTC_OUTPUT", dir + "/paced-%p.itt");
  if (config.ring_kb > 0) SetEnv("ITTC_RING_KB", std::to_string(config.ring_kb));
  if (config.zstd_level > 0) SetEnv("ITTC_ZSTD_LEVEL", std::to_string(config.zstd_level));
  if (config.block) SetEnv("ITTC_OVERFLOW", "block");
  if (!config.flusher_nice.empty()) SetEnv("ITTC_FLUSHER_NICE", config.flusher_nice);
  if (!config.flushers.empty()) SetEnv("ITTC_FLUSHERS", config.flushers);

  __itt_domain* domain = __itt_domain_create("paced");
  // A few task names, as a real loop nest would have.
  __itt_string_handle* names[4] = {
      __itt_string_handle_create("paced.outer"), __itt_string_handle_create("paced.inner"),
      __itt_string_handle_create("paced.io"), __itt_string_handle_create("paced.compute")};
  const double hz = TscHz();

  // The first event starts the session and its flusher, which names itself
  // when it starts running: give it a moment.
  __itt_task_begin(domain, __itt_null, __itt_null, names[0]);
  __itt_task_end(domain);
  std::string flusher_task;
  for (int i = 0; i < 100 && flusher_task.empty(); ++i) {
    flusher_task = FindTask("ittc-flusher");
    if (flusher_task.empty()) usleep(1000);
  }
  const int producers = config.producers > 1 ? config.producers : 1;
  std::vector<ProducerResult> results(static_cast<size_t>(producers));
  std::vector<std::thread> others;
  // Drain mode: the rings are filled while the flushers are held.
  std::atomic<int> filled{0};
  std::atomic<bool> released{false};
  std::vector<std::chrono::steady_clock::time_point> empty_at(static_cast<size_t>(producers));
  if (config.drain_pairs > 0) {
    HoldFlusher();
    for (int i = 0; i < producers; ++i) {
      others.emplace_back([&, i] {
        ProducerResult& r = results[static_cast<size_t>(i)];
        const uint64_t cpu0 = ThreadCpuNs();
        for (uint64_t k = 0; k < config.drain_pairs; ++k) {
          __itt_task_begin(domain, __itt_null, __itt_null, names[k & 3]);
          __itt_task_end(domain);
        }
        r.emitted = 2 * config.drain_pairs;
        r.cpu_ns = ThreadCpuNs() - cpu0;
        filled.fetch_add(1);
        // Naps, not spins: the flushers need the cores.
        while (!released.load()) usleep(100);
        while (BacklogOfThisThread() != 0) usleep(20);
        empty_at[static_cast<size_t>(i)] = std::chrono::steady_clock::now();
      });
    }
    while (filled.load() < producers) usleep(100);
  }
  unsigned long long flusher_cpu0[64] = {};
  const int flushers0 = FlusherCpuNs(flusher_cpu0, 64);
  const uint64_t flusher_wait0 = RunQueueWaitNs(flusher_task);
  uint64_t cpu0 = ProcessCpuNs();
  auto wall0 = std::chrono::steady_clock::now();
  const uint64_t tsc0 = __rdtsc();
  const uint64_t tsc_end = tsc0 + static_cast<uint64_t>(config.seconds * hz);
  // Ticks per batch of kPairsPerCheck pairs of one producer at its share of
  // the target rate.
  const uint64_t batch_ticks =
      config.rate_mps > 0
          ? static_cast<uint64_t>(hz * 2 * kPairsPerCheck * producers / (config.rate_mps * 1e6))
          : 0;
  if (config.drain_pairs > 0) {
    released.store(true);
    ReleaseFlusher();
  } else {
    for (int i = 1; i < producers; ++i) {
      others.emplace_back([&, i] {
        Produce(domain, names, tsc0, tsc_end, batch_ticks, hz, &results[static_cast<size_t>(i)]);
      });
    }
    Produce(domain, names, tsc0, tsc_end, batch_ticks, hz, &results[0]);
  }
  for (std::thread& t : others) t.join();
  auto wall1 = std::chrono::steady_clock::now();
  double drain_seconds = 0;
  for (const auto& at : empty_at) {
    if (config.drain_pairs > 0) {
      drain_seconds = std::max(drain_seconds, std::chrono::duration<double>(at - wall0).count());
    }
  }
  unsigned long long flusher_cpu1[64] = {};
  const int flushers = FlusherCpuNs(flusher_cpu1, 64);
  std::string flusher_cpu_each;
  for (int i = 0; i < flushers; ++i) {
    if (i > 0) flusher_cpu_each += ',';
    flusher_cpu_each += std::to_string(flusher_cpu1[i] - (i < flushers0 ? flusher_cpu0[i] : 0ull));
  }
  const uint64_t flusher_wait = RunQueueWaitNs(flusher_task) - flusher_wait0;
  const int flusher_nice = NiceOf(flusher_task);
  uint64_t emitted = 2;  // the first pair above
  uint64_t producer_cpu = 0;
  uint64_t producer_wait = 0;
  for (const ProducerResult& r : results) {
    emitted += r.emitted;
    producer_cpu += r.cpu_ns;
    producer_wait += r.wait_ns;
  }
  const uint64_t main_cpu0 = ThreadCpuNs();
  __itt_detach();
  uint64_t cpu1 = ProcessCpuNs();
  // The process's CPU time but the producers' and the main thread's detach
  // call: the flusher's (the other producers have exited).
  const uint64_t others_cpu = producer_cpu + (ThreadCpuNs() - main_cpu0);
  // Of that, what the collector counted compressing and writing.
  unsigned long long compress_ticks = 0, write_ticks = 0;
  FlusherStageTicks(&compress_ticks, &write_ticks);
  auto ticks_ns = [&](unsigned long long ticks) {
    return static_cast<unsigned long long>(static_cast<double>(ticks) / hz * 1e9);
  };

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
      "flusher_cpu_ns=%llu file_bytes=%llu flusher_wait_ns=%llu producer_wait_ns=%llu "
      "event_chunks=%llu event_payload_bytes=%llu flusher_nice=%d flusher_compress_ns=%llu "
      "flusher_write_ns=%llu flushers=%d flusher_cpu_each_ns=%s drain_seconds=%.6f\n",
      static_cast<unsigned long long>(emitted),
      static_cast<unsigned long long>(summary->end_recorded),
      static_cast<unsigned long long>(summary->end_dropped),
      std::chrono::duration<double>(wall1 - wall0).count(),
      static_cast<unsigned long long>(producer_cpu),
      static_cast<unsigned long long>(cpu1 - cpu0 - others_cpu),
      static_cast<unsigned long long>(summary->file_bytes),
      static_cast<unsigned long long>(flusher_task.empty() ? 0 : flusher_wait),
      static_cast<unsigned long long>(producer_wait),
      static_cast<unsigned long long>(summary->event_chunks),
      static_cast<unsigned long long>(summary->event_payload_bytes), flusher_nice,
      ticks_ns(compress_ticks), ticks_ns(write_ticks), flushers, flusher_cpu_each.c_str(),
      drain_seconds);
  RemoveTree(dir);
  return summary->has_end ? 0 : 1;
}

// The text of field `key` in a RESULT line (" key=value"), or "0" if absent.
const char* FieldText(const std::string& line, const char* key) {
  std::string k = std::string(" ") + key + "=";
  size_t pos = line.find(k);
  return pos == std::string::npos ? "0" : line.c_str() + pos + k.size();
}

uint64_t Field(const std::string& line, const char* key) {
  return std::strtoull(FieldText(line, key), nullptr, 10);
}

int64_t FieldInt(const std::string& line, const char* key) {
  return std::strtoll(FieldText(line, key), nullptr, 10);
}

double FieldDouble(const std::string& line, const char* key) {
  return std::strtod(FieldText(line, key), nullptr);
}

}  // namespace

PacedRunResult RunPacedChild(const PacedRunConfig& config) {
  PacedRunResult result;
  std::string dir = MakeTempDir("ittc-paced-out");
  std::string out = dir + "/stdout";
  char rate[64], seconds[64];
  std::snprintf(rate, sizeof(rate), "%g", config.rate_mps);
  std::snprintf(seconds, sizeof(seconds), "%g", config.seconds);
  std::vector<std::string> args = {"--paced_child",
                                   std::string("--rate_mps=") + rate,
                                   std::string("--seconds=") + seconds,
                                   "--ring_kb=" + std::to_string(config.ring_kb),
                                   "--zstd_level=" + std::to_string(config.zstd_level),
                                   std::string("--block=") + (config.block ? "1" : "0"),
                                   "--producers=" + std::to_string(config.producers),
                                   "--flusher_nice=" + config.flusher_nice,
                                   "--flushers=" + config.flushers,
                                   "--drain_pairs=" + std::to_string(config.drain_pairs)};
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
    result.flusher_wait_ns = Field(line, "flusher_wait_ns");
    result.producer_wait_ns = Field(line, "producer_wait_ns");
    result.event_chunks = Field(line, "event_chunks");
    result.event_payload_bytes = Field(line, "event_payload_bytes");
    result.flusher_nice = static_cast<int>(FieldInt(line, "flusher_nice"));
    result.flusher_compress_ns = Field(line, "flusher_compress_ns");
    result.flusher_write_ns = Field(line, "flusher_write_ns");
    result.flushers = static_cast<int>(FieldInt(line, "flushers"));
    result.drain_seconds = FieldDouble(line, "drain_seconds");
    for (const char* p = FieldText(line, "flusher_cpu_each_ns"); *p >= '0' && *p <= '9';) {
      char* end;
      result.flusher_cpu_each_ns.push_back(std::strtoull(p, &end, 10));
      p = *end == ',' ? end + 1 : end;
    }
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
  config.flusher_nice = FlagValue(argc, argv, "flusher_nice");
  config.producers = std::atoi(FlagValue(argc, argv, "producers").c_str());
  config.flushers = FlagValue(argc, argv, "flushers");
  config.drain_pairs = std::strtoull(FlagValue(argc, argv, "drain_pairs").c_str(), nullptr, 10);
  *exit_code = ChildMain(config);
  return true;
}

}  // namespace ittc::bench
