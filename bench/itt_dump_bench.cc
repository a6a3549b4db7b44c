// itt-dump on two big generated traces (issues 12 and 47): events per
// second of the verbs, each with its ratio to a plain zstd decompression of
// the same bytes measured in the same run, the CPU per event of their
// serial part and of all their work, and the peak resident memory of
// `stats`.
//
// The traces (tests/tools/sample_traces.h):
//   frames  FrameTrace: 4 threads x 2 M frames, each an outer task with two
//           nested tasks, and every 64th frame a counter sample and a
//           marker: 64.25 M events, about 31 MB of zstd chunks.
//   mixed   MixedTrace: 4 threads x 1 M iterations of what a real program
//           records (a counter sample, a lock, a heap allocation and free,
//           task metadata in each, markers, three domains, frames on the
//           main thread): 62.5 M events.
//
//   BM_PlainZstd/T    ZSTD_decompressDCtx of every chunk's stored payload
//                     of trace T: the floor any reader of it pays
//   BM_AppendMicros   chrome's "ts" and "dur" text (AppendMicros), per value
//   BM_Verb/V/T       verb V (stats, verify, text, chrome, perfetto,
//                     parquet: its dataset written to a temporary
//                     directory, the files' bytes to the page cache;
//                     vtune-csv: both files formatted and discarded) on
//                     trace T (0 frames, 1 mixed): the whole verb
//                     in-process (index pass, merged pass, report), 3 runs
//                     (the report: their median); output is formatted and
//                     discarded, as with `>/dev/null`. Counters:
//                     ratio_to_zstd (events/s over the plain
//                     decompression of trace T, BM_PlainZstd/T's best of
//                     3 in the same run), trace_MB, and per event (issue
//                     47):
//                       serial_ns  CPU of the work that runs on one thread
//                                  only: the reading thread's (less the
//                                  chunks it took off the workers' queue
//                                  while it waited for them, work any
//                                  thread does: format::
//                                  ThisThreadQueuedWorkCpuNs), or another
//                                  thread of the verb's own (the writer
//                                  of text's and chrome's output, of one of
//                                  parquet's tables' rows, vtune-csv's
//                                  spill of its counters' rows) if that
//                                  one's is larger
//                       total_ns   CPU of every thread of the process
//                       taken_ns   CPU of the chunks the reading thread
//                                  took off the workers' queue (in
//                                  total_ns, not in serial_ns)
//                       cores16_mps, cores2_mps
//                                  the rate they bound on 16 and 2 cores,
//                                  1 / (serial + total / C), in M events/s
//   BM_ManyFiles/T    `stats` on 64 files of T threads (1, 4), 1 M events
//                     each (an MPI job's directory, sample_traces.h
//                     RunTraces; the 4 threads of a file share its frames),
//                     alternated with `stats` on the one big file, 3 rounds:
//                     many_over_one is the 64-file rate over the one-file
//                     rate of the same round (median round; issue 14's goal
//                     is >= 0.8)
//   BM_StatsPeakRss   the itt-dump binary run on the frames trace's file in a
//                     child process: peak_rss_MB, its VmHWM at its exit
//
// Times are wall-clock (manual timing): a verb that decodes on several cores
// is credited for it. The CPU of a thread other than the benchmark's own
// (which runs the verb, so it is the reading thread) is sampled from
// /proc/self/task/*/schedstat every 2 ms while the verb runs; threads named
// "itt-dump-read", "itt-dump-index", "itt-dump-pq" or "itt-dump-zstd" (the
// reader's pool, the index pass's files, parquet's encoders, perfetto's
// block compressors) work on every core, any other is one thread's work.
// Goals (issue 12, this 2-core machine): stats >= 100 M events/s, verify
// >= 150 M, text >= 15 M, chrome >= 20 M, peak RSS of stats <= 200 MB;
// perfetto >= 20 M (issue 16); issue 47: stats >= 150 M and each exporter
// >= 30 M on both traces, serial_ns <= 1 for stats and <= 2 for each
// exporter.
//
// Run: bazel run -c opt //bench:itt_dump_bench

#include <dirent.h>
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_env.h"
#include "benchmark/benchmark.h"
#include "format/format.h"
#include "format/trace_reader.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/sample_traces.h"
#include "tools/itt_dump/model/text_buffer.h"
#include "tools/itt_dump/model/trace_index.h"
#include "tools/itt_dump/model/values.h"

namespace {

using ittc::itt_dump::testing::RunDumpWithDefaults;

constexpr int kThreads = 4;
constexpr uint64_t kFramesPerThread = 2000000;
constexpr uint64_t kMixedPerThread = 1000000;

struct BigTrace {
  std::string bytes;
  uint64_t events = 0;
  // The chunks' stored payloads and their decompressed sizes.
  std::vector<std::string_view> stored;
  std::vector<size_t> sizes;
};

uint32_t LoadLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

enum TraceKind { kFrames = 0, kMixed = 1 };
const char* const kTraceNames[] = {"frames", "mixed"};

BigTrace* MakeTrace(TraceKind kind) {
  auto* t = new BigTrace;
  t->bytes = kind == kFrames ? ittc::itt_dump::testing::FrameTrace(kThreads, kFramesPerThread)
                             : ittc::itt_dump::testing::MixedTrace(kThreads, kMixedPerThread);
  const auto source = ittc::itt_dump::TraceSource::Memory(t->bytes, "bench");
  ittc::itt_dump::IndexOptions options;
  options.decode_all_events = true;
  const ittc::itt_dump::IndexResult index = ittc::itt_dump::BuildIndex(source, options);
  t->events = index.index != nullptr ? index.index->events : 0;
  // Chunk framing (format/chunk.h): a 32-byte header whose bytes [8, 12)
  // and [12, 16) are the stored and decompressed payload lengths.
  auto reader = ittc::itt_dump::OpenForPass(source);
  ittc::format::Chunk c;
  while (reader.ok() && (*reader)->Next(&c)) {
    if ((c.flags & ittc::format::kChunkFlagZstd) == 0) continue;
    const char* h = t->bytes.data() + c.offset;
    t->stored.emplace_back(h + ittc::format::kChunkHeaderSize, LoadLe32(h + 8));
    t->sizes.push_back(LoadLe32(h + 12));
  }
  return t;
}

const BigTrace& Trace(TraceKind kind = kFrames) {
  static const BigTrace* frames = MakeTrace(kFrames);
  if (kind == kFrames) return *frames;
  static const BigTrace* mixed = MakeTrace(kMixed);
  return *mixed;
}

// One decompression of every chunk of trace `kind`; returns the seconds it
// took.
double DecompressAll(TraceKind kind, ZSTD_DCtx* dctx, std::string* out) {
  const BigTrace& t = Trace(kind);
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < t.stored.size(); ++i) {
    out->resize(t.sizes[i]);
    const size_t n =
        ZSTD_decompressDCtx(dctx, out->data(), out->size(), t.stored[i].data(), t.stored[i].size());
    if (ZSTD_isError(n) || n != t.sizes[i]) std::abort();
    benchmark::DoNotOptimize(out->data());
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Events per second of the plain decompression of trace `kind` (each
// trace's verbs are compared with their own: the mixed trace's events take
// more bytes each): the best of three, measured once per run so every verb
// of a trace uses the same figure.
double ZstdEventsPerSecond(TraceKind kind) {
  const auto measure = [](TraceKind k) {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::string out;
    double best = 1e300;
    for (int i = 0; i < 3; ++i) best = std::min(best, DecompressAll(k, dctx, &out));
    ZSTD_freeDCtx(dctx);
    return static_cast<double>(Trace(k).events) / best;
  };
  static const double frames = measure(kFrames);
  if (kind == kFrames) return frames;
  static const double mixed = measure(kMixed);
  return mixed;
}

void BM_PlainZstd(benchmark::State& state) {
  const auto kind = static_cast<TraceKind>(state.range(0));
  const BigTrace& t = Trace(kind);
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::string out;
  for (auto _ : state) {
    const double s = DecompressAll(kind, dctx, &out);
    state.SetIterationTime(s);
  }
  ZSTD_freeDCtx(dctx);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events));
  state.SetLabel(kTraceNames[kind]);
  state.counters["trace_MB"] = static_cast<double>(t.bytes.size()) / 1e6;
}
BENCHMARK(BM_PlainZstd)
    ->Arg(kFrames)
    ->Arg(kMixed)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

// What chrome writes twice per object (ts, dur): times in ns as
// microseconds with three decimals, here of 1 to 100 s (8 to 11 digits),
// each followed by a comma, into a TextBuffer emptied every 64 Ki values.
void BM_AppendMicros(benchmark::State& state) {
  ittc::itt_dump::TextBuffer out;
  int64_t ns = 1'000'000'000;
  size_t values = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i) {
      ittc::itt_dump::AppendMicros(&out, ns);
      out.push_back(',');
      ns += 1'433'217;
      if (ns >= 100'000'000'000) ns = 1'000'000'000;
    }
    values += 1024;
    if (out.size() > (size_t{1} << 20)) out.clear();
  }
  benchmark::DoNotOptimize(out.data());
  state.SetItemsProcessed(static_cast<int64_t>(values));
}
BENCHMARK(BM_AppendMicros);

const char* const kVerbs[] = {"stats",    "verify",  "text",     "chrome",
                              "perfetto", "parquet", "vtune-csv"};

// Where BM_Verb/parquet writes its dataset (made once, under TMPDIR).
const std::string& ParquetDir() {
  static const std::string* dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/itt_dump_bench.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    return new std::string(pattern + "/dataset");
  }();
  return *dir;
}

// The CPU time of this process's threads, sampled from /proc every 2 ms
// from construction to Stop(): what each thread other than the caller and
// the sampler had run when it was last seen (a thread that exits loses at
// most its last 2 ms).
class ThreadCpuSampler {
 public:
  struct Seen {
    std::string name;
    uint64_t ns = 0;
  };

  ThreadCpuSampler() : caller_(static_cast<int>(gettid())) {
    thread_ = std::thread([this] {
      sampler_ = static_cast<int>(gettid());
      while (!stop_.load(std::memory_order_relaxed)) {
        Sample();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      Sample();
      own_ns_ = ittc::bench::ThreadCpuNs();
    });
  }
  ~ThreadCpuSampler() {
    if (thread_.joinable()) Stop();
  }

  // Stops sampling; the threads seen, by tid.
  const std::map<int, Seen>& Stop() {
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();  // publishes seen_ and own_ns_
    return seen_;
  }
  // The sampler's own CPU time (to leave out of the process's). After Stop.
  uint64_t own_ns() const { return own_ns_; }

 private:
  void Sample() {
    DIR* d = opendir("/proc/self/task");
    if (d == nullptr) return;
    while (dirent* e = readdir(d)) {
      const int tid = std::atoi(e->d_name);
      if (tid <= 0 || tid == caller_ || tid == sampler_) continue;
      const std::string dir = std::string("/proc/self/task/") + e->d_name;
      const uint64_t ns = ittc::bench::TaskRunNs(dir);
      Seen& seen = seen_[tid];
      // Read at every sample: a thread names itself after it starts, and
      // a name read before that (its creator's) would count a pool's
      // worker as one thread's work.
      FILE* f = std::fopen((dir + "/comm").c_str(), "r");
      if (f != nullptr) {
        char buf[64] = {};
        if (std::fgets(buf, sizeof buf, f) != nullptr) {
          buf[std::strcspn(buf, "\n")] = 0;
          seen.name = buf;
        }
        std::fclose(f);
      }
      seen.ns = std::max(seen.ns, ns);
    }
    closedir(d);
  }

  const int caller_;
  int sampler_ = 0;  // the sampler thread only
  std::atomic<bool> stop_{false};
  std::map<int, Seen> seen_;  // the sampler thread only until Stop
  uint64_t own_ns_ = 0;
  std::thread thread_;
};

// Whether a thread of that name works on every core (one of a pool).
bool OnEveryCore(const std::string& name) {
  return name == "itt-dump-read" || name == "itt-dump-index" || name == "itt-dump-pq" ||
         name == "itt-dump-zstd";
}

// The CPU of one run of a verb, in ns.
struct RunCpu {
  uint64_t serial = 0;  // the largest of the threads that run alone
  uint64_t total = 0;   // every thread
  uint64_t queued = 0;  // the reading thread's of the workers' queued work
};

// Runs `args` on `trace` in-process and measures its CPU.
RunCpu RunMeasured(const std::vector<std::string>& args, const std::string& trace,
                   std::string* error) {
  const uint64_t process0 = ittc::bench::ProcessCpuNs();
  const uint64_t thread0 = ittc::bench::ThreadCpuNs();
  const uint64_t queued0 = ittc::format::ThisThreadQueuedWorkCpuNs();
  ThreadCpuSampler sampler;
  auto r = RunDumpWithDefaults(args, trace, /*output_limit=*/0);
  // What the reading thread did of the workers' work, taking it off the
  // queue as it waited for it, is in total_ns only.
  const uint64_t queued = ittc::format::ThisThreadQueuedWorkCpuNs() - queued0;
  const uint64_t reading = ittc::bench::ThreadCpuNs() - thread0 - queued;
  const std::map<int, ThreadCpuSampler::Seen>& seen = sampler.Stop();
  RunCpu cpu;
  cpu.total = ittc::bench::ProcessCpuNs() - process0 - sampler.own_ns();
  cpu.serial = reading;
  cpu.queued = queued;
  for (const auto& [tid, thread] : seen) {
    if (!OnEveryCore(thread.name)) cpu.serial = std::max(cpu.serial, thread.ns);
  }
  if (r.status != 0) *error = r.err;
  benchmark::DoNotOptimize(r);
  return cpu;
}

void BM_Verb(benchmark::State& state) {
  const auto kind = static_cast<TraceKind>(state.range(1));
  const BigTrace& t = Trace(kind);
  const char* verb = kVerbs[state.range(0)];
  std::vector<std::string> args = {verb, "--no-progress", "trace.itt"};
  if (std::strcmp(verb, "chrome") == 0 || std::strcmp(verb, "perfetto") == 0) {
    args.insert(args.end(), {"-o", "-"});
  }
  if (std::strcmp(verb, "parquet") == 0) args.insert(args.end(), {"-o", ParquetDir()});
  if (std::strcmp(verb, "vtune-csv") == 0) args.insert(args.end(), {"-o", "vtune"});
  const double zstd_rate = ZstdEventsPerSecond(kind);
  RunCpu cpu;
  for (auto _ : state) {
    std::string error;
    const RunCpu run = RunMeasured(args, t.bytes, &error);
    if (!error.empty()) state.SkipWithError(error.c_str());
    cpu.serial += run.serial;
    cpu.total += run.total;
    cpu.queued += run.queued;
  }
  const double events = static_cast<double>(state.iterations() * t.events);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events));
  state.SetLabel(std::string(verb) + " " + kTraceNames[kind]);
  state.counters["trace_MB"] = static_cast<double>(t.bytes.size()) / 1e6;
  // events/s of this verb over events/s of BM_PlainZstd (benchmark's rate
  // counter divided by a constant stays a rate, so the ratio is formed from
  // the measured time here).
  state.counters["ratio_to_zstd"] = benchmark::Counter(
      events / zstd_rate, benchmark::Counter::kIsRate, benchmark::Counter::OneK::kIs1000);
  const double serial = static_cast<double>(cpu.serial) / events;
  const double total = static_cast<double>(cpu.total) / events;
  state.counters["serial_ns"] = serial;
  state.counters["total_ns"] = total;
  state.counters["taken_ns"] = static_cast<double>(cpu.queued) / events;
  state.counters["cores16_mps"] = 1e3 / (serial + total / 16);
  state.counters["cores2_mps"] = 1e3 / (serial + total / 2);
}
// Three runs of each verb on each trace: the report gives their median (one
// run moved by 20-30% with the host's phase).
BENCHMARK(BM_Verb)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6}, {kFrames, kMixed}})
    ->Iterations(1)
    ->Repetitions(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

struct RunSet {
  std::map<std::string, std::string> traces;  // "run/<file name>" -> bytes
  uint64_t events = 0;
};

// 64 files of `threads` threads (1 or 4), 1 M events each.
const RunSet& ManyFiles(int threads) {
  static std::map<int, const RunSet*> sets;
  const RunSet*& set = sets[threads];
  if (set != nullptr) return *set;
  set = [threads] {
    auto* r = new RunSet;
    const uint64_t frames = kFramesPerThread / 16 / static_cast<uint64_t>(threads);
    for (auto& [name, bytes] : ittc::itt_dump::testing::RunTraces(64, frames, threads)) {
      const auto source = ittc::itt_dump::TraceSource::Memory(bytes, name);
      ittc::itt_dump::IndexOptions options;
      options.decode_all_events = true;
      const ittc::itt_dump::IndexResult index = ittc::itt_dump::BuildIndex(source, options);
      r->events += index.index != nullptr ? index.index->events : 0;
      r->traces["run/" + name] = std::move(bytes);
    }
    return r;
  }();
  return *set;
}

// Seconds `stats` takes on `traces` (a file "trace.itt" or a directory).
template <typename Traces>
double TimeStats(const std::string& path, const Traces& traces) {
  const auto start = std::chrono::steady_clock::now();
  auto r = RunDumpWithDefaults({"stats", "--no-progress", path}, traces, /*output_limit=*/0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.status != 0) std::fprintf(stderr, "stats %s: %s\n", path.c_str(), r.err.c_str());
  return r.status == 0 ? s : -1;
}

void BM_ManyFiles(benchmark::State& state) {
  const BigTrace& one = Trace();
  const RunSet& many = ManyFiles(static_cast<int>(state.range(0)));
  std::vector<double> ratios;
  std::vector<double> many_rates, one_rates;
  for (auto _ : state) {
    const double t_one = TimeStats("trace.itt", one.bytes);
    const double t_many = TimeStats("run", many.traces);
    if (t_one <= 0 || t_many <= 0) {
      state.SkipWithError("stats failed");
      return;
    }
    state.SetIterationTime(t_many);
    one_rates.push_back(static_cast<double>(one.events) / t_one);
    many_rates.push_back(static_cast<double>(many.events) / t_many);
    ratios.push_back(many_rates.back() / one_rates.back());
  }
  // The median round: its ratio, and both rates of that round.
  std::vector<size_t> order(ratios.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ratios[a] < ratios[b]; });
  const size_t mid = order[order.size() / 2];
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * many.events));
  state.counters["files"] = static_cast<double>(many.traces.size());
  state.counters["threads_per_file"] = static_cast<double>(state.range(0));
  state.counters["one_file_mps"] = one_rates[mid] / 1e6;
  state.counters["many_files_mps"] = many_rates[mid] / 1e6;
  state.counters["many_over_one"] = ratios[mid];
  std::string each;
  for (double r : ratios) each += (each.empty() ? "" : " ") + std::to_string(r).substr(0, 5);
  state.SetLabel("many_over_one each round: " + each);
}
BENCHMARK(BM_ManyFiles)
    ->Arg(1)
    ->Arg(4)
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The peak resident set of the process `pid` (VmHWM), in bytes, or -1.
long HighWaterMark(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r");
  if (f == nullptr) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

// Runs `argv` and returns its peak resident set in bytes, or -1. The child
// is stopped at its exit (ptrace) to read its own high-water mark: wait4's
// ru_maxrss would report this big process's, which survives fork and exec.
long PeakRssOfChild(const std::vector<std::string>& argv) {
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& s : args) argp.push_back(s.data());
  argp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    execv(argp[0], argp.data());
    _exit(127);
  }
  int status = 0;
  long rss = -1;
  // First stop: the exec (SIGTRAP). Then ask for a stop at exit.
  if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) return -1;
  ptrace(PTRACE_SETOPTIONS, pid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACEEXIT));
  ptrace(PTRACE_CONT, pid, nullptr, nullptr);
  while (waitpid(pid, &status, 0) == pid) {
    if (WIFEXITED(status) || WIFSIGNALED(status)) break;
    if (WIFSTOPPED(status) && (status >> 8) == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
      rss = HighWaterMark(pid);
      ptrace(PTRACE_CONT, pid, nullptr, nullptr);
    } else if (WIFSTOPPED(status)) {
      // Pass on any other signal.
      ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(WSTOPSIG(status)));
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return rss;
}

void BM_StatsPeakRss(benchmark::State& state) {
  const BigTrace& t = Trace();
  const std::string dir = ittc::bench::MakeTempDir("itt_dump_bench");
  const std::string path = dir + "/big.itt";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(t.bytes.data(), 1, t.bytes.size(), f) != t.bytes.size() ||
      std::fclose(f) != 0) {
    state.SkipWithError("cannot write the trace file");
    return;
  }
  const std::string binary = ittc::bench::Runfile("tools/itt-dump");
  long rss = -1;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    rss = PeakRssOfChild({binary, "stats", "--no-progress", path});
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  ittc::bench::RemoveTree(dir);
  if (rss < 0) {
    state.SkipWithError("itt-dump stats failed");
    return;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events));
  state.counters["peak_rss_MB"] = static_cast<double>(rss) / 1e6;
}
BENCHMARK(BM_StatsPeakRss)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
