// The flight recorder (ITTC_FLIGHT_MB) under the faults and triggers of
// flight_test. Worker threads emit task begin/end pairs whose begin carries
// the pair's number in the thread (id {0, n}), so that a dump shows which
// events it kept; they then stop, and the main thread reports what each
// emitted ("emitted worker-<i> <events>") before the trigger. The program
// waits for the files the test names (a dump, a handshake), never for an
// amount of time.
//
// usage: flight_program MODE ARGS...
//   signal DUMP1           emit; print "ready <timestamp>"; wait for DUMP1
//                          (the test sends the trigger signal); print
//                          "after <timestamp>"; emit again; exit
//   marker DUMP1 DUMP2     emit; marker "checkpoint-1" (and "unrelated", and
//                          "checkpoint-0" from an ignored thread, plain and
//                          _ex, which must not trigger); wait for DUMP1; emit;
//                          marker "checkpoint-2"; wait for DUMP2; exit
//   crash segv|abort       emit; marker "before-crash"; print; crash
//   overtake DUMP1 DUMP2   emit; hold the flusher; raise the trigger signal;
//                          once the dump asked its round (held), marker
//                          "checkpoint-2", which must be the next dump's;
//                          release the flusher; wait for DUMP2; exit
//   storm GO K DUMP2       emit; print "ready"; wait for GO (the test saw
//                          dump 1 being written, held by a FIFO); raise the
//                          trigger signal K times; print "raised"; wait
//                          for DUMP2; exit
//   fork DUMP1             emit; fork a child that emits and exits; wait
//                          for it; raise the trigger signal; wait for
//                          DUMP1; exit
//   own-handler            install a SIGUSR2 handler of its own, emit,
//                          raise SIGUSR2 (the program's handler runs), exit
//   plain                  emit; exit
//   chdir START LATER      before any ITT call, make START the current
//                          directory; emit; make LATER current; exit

#include <ittnotify.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/collector/collector_hooks.h"

namespace {

constexpr int kWorkers = 2;
constexpr double kHangSeconds = 120;

__itt_domain* g_domain;
__itt_string_handle* g_names[64];

void Say(const std::string& line) {
  const std::string text = line + "\n";
  if (write(1, text.data(), text.size()) != static_cast<ssize_t>(text.size())) std::exit(5);
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Returns once `path` exists; exits with status 3 at a deadline only a hang
// reaches.
void WaitForFile(const std::string& path) {
  const double start = Now();
  struct stat st;
  while (stat(path.c_str(), &st) != 0) {
    if (Now() - start > kHangSeconds) {
      Say("timeout waiting for " + path);
      std::exit(3);
    }
    timespec nap{0, 1000 * 1000};
    nanosleep(&nap, nullptr);
  }
}

// Events each worker emitted (its name, then two per pair).
std::vector<long> g_events(kWorkers, 0);

// Pairs each worker emits after the others have emitted the rest: every
// worker's last events are among the newest, however the threads were
// scheduled (one that finished early would otherwise see all of its events
// overwritten by the others' later ones, as a flight recorder should).
constexpr long kTailPairs = 1000;

// kWorkers threads named <prefix><i> emit `pairs` task pairs each, their
// numbers continuing from *next (one counter per worker, which ends as the
// pairs each emitted), then end.
void Emit(long pairs, std::vector<long>* next, const char* prefix) {
  std::vector<std::thread> threads;
  std::atomic<int> arrived{0};
  for (int i = 0; i < kWorkers; ++i) {
    threads.emplace_back([i, pairs, next, prefix, &arrived] {
      const std::string name = std::string(prefix) + std::to_string(i);
      __itt_thread_set_name(name.c_str());
      g_events[i] += 1 + 2 * pairs;
      long& n = (*next)[i];
      uint32_t lcg = 12345u + static_cast<uint32_t>(i);
      const long tail_from = pairs > kTailPairs ? pairs - kTailPairs : 0;
      for (long k = 0; k < pairs; ++k, ++n) {
        if (k == tail_from) {
          arrived.fetch_add(1);
          while (arrived.load() < kWorkers) sched_yield();
        }
        lcg = lcg * 1664525u + 1013904223u;
        __itt_task_begin(g_domain, __itt_id_make(nullptr, static_cast<unsigned long long>(n)),
                         __itt_null, g_names[lcg >> 26]);
        __itt_task_end(g_domain);
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

void ReportEmitted(const char* prefix, const std::vector<long>& next) {
  for (int i = 0; i < kWorkers; ++i) {
    const std::string name = std::string(prefix) + std::to_string(i);
    Say("emitted " + name + " " + std::to_string(g_events[i]));
    Say("pairs " + name + " " + std::to_string(next[i]));
  }
}

void Marker(const char* name) {
  __itt_marker(g_domain, __itt_null, __itt_string_handle_create(name), __itt_scope_global);
}

// The crash: a store through a null pointer, which the hardware faults on.
// The pointer is read from a volatile, so the compiler cannot see it is
// null (GCC drops a store it knows goes to null); UndefinedBehaviorSanitizer
// would report it first and exit instead, and is told to leave it alone.
int* volatile g_null = nullptr;
__attribute__((noinline, no_sanitize("null"))) void StoreThroughNull() { *g_null = 1; }

// Enough pairs that a 1 MiB recorder overwrites most of them.
constexpr long kPairs = 600000;

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  static std::atomic<int> handled{0};
  if (mode == "own-handler") {
    // Before the first ITT call, which starts the collector.
    struct sigaction sa {};
    sa.sa_handler = [](int) { handled.fetch_add(1); };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, nullptr);
  }
  if (mode == "chdir" && (argc != 4 || chdir(argv[2]) != 0)) return 2;
  g_domain = __itt_domain_create("flight");
  for (int i = 0; i < 64; ++i) {
    g_names[i] = __itt_string_handle_create(("name-" + std::to_string(i)).c_str());
  }
  std::vector<long> next(kWorkers, 0);
  if (mode == "own-handler") {
    Emit(1000, &next, "worker-");
    raise(SIGUSR2);
    Say("handled " + std::to_string(handled.load()));
    return 0;
  }
  Emit(kPairs, &next, "worker-");
  if (mode == "plain") {
    ReportEmitted("worker-", next);
    return 0;
  }
  if (mode == "chdir") return chdir(argv[3]) == 0 ? 0 : 7;
  if (mode == "signal" && argc == 3) {
    ReportEmitted("worker-", next);
    Say("ready " + std::to_string(__itt_get_timestamp()));
    WaitForFile(argv[2]);
    Say("after " + std::to_string(__itt_get_timestamp()));
    Emit(1000, &next, "worker-");
    return 0;
  }
  if (mode == "overtake" && argc == 4) {
    ReportEmitted("worker-", next);
    HoldFlusher();
    const int rounds = FullRoundsAsked();
    raise(SIGUSR2);
    const double start = Now();
    while (FullRoundsAsked() == rounds) {  // the dump waits for its round
      if (Now() - start > kHangSeconds) std::exit(3);
      timespec nap{0, 1000 * 1000};
      nanosleep(&nap, nullptr);
    }
    Marker("checkpoint-2");
    ReleaseFlusher();
    WaitForFile(argv[3]);
    return 0;
  }
  if (mode == "marker" && argc == 4) {
    Marker("unrelated");
    // A thread that records nothing (__itt_thread_ignore): its markers,
    // plain and _ex, do not trigger.
    std::thread([] {
      __itt_thread_ignore();
      Marker("checkpoint-0");
      __itt_marker_ex(g_domain, nullptr, 0, __itt_null, __itt_string_handle_create("checkpoint-0"),
                      __itt_scope_global);
    }).join();
    Marker("checkpoint-1");
    WaitForFile(argv[2]);
    Emit(1000, &next, "worker-");
    Marker("checkpoint-2");
    WaitForFile(argv[3]);
    return 0;
  }
  if (mode == "crash" && argc == 3) {
    ReportEmitted("worker-", next);
    Marker("before-crash");
    Say("crashing");
    if (std::strcmp(argv[2], "abort") == 0) std::abort();
    StoreThroughNull();
    return 4;
  }
  if (mode == "storm" && argc == 5) {
    Say("ready");
    WaitForFile(argv[2]);
    const int k = std::atoi(argv[3]);
    for (int i = 0; i < k; ++i) raise(SIGUSR2);
    Say("raised");
    WaitForFile(argv[4]);
    return 0;
  }
  if (mode == "fork" && argc == 3) {
    const pid_t child = fork();
    if (child > 0) Say("child pid " + std::to_string(child));
    if (child == 0) {
      std::vector<long> mine(kWorkers, 0);
      g_events.assign(kWorkers, 0);
      Emit(5000, &mine, "child-");
      ReportEmitted("child-", mine);
      std::exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      return 6;
    }
    ReportEmitted("worker-", next);
    raise(SIGUSR2);
    WaitForFile(argv[2]);
    return 0;
  }
  return 2;
}
