// Row 1: producers faster than the flusher, made certain rather than hoped
// for. With the flusher held (a test hook), N threads each emit `held`
// task pairs into small rings, more than a ring holds; the flusher is then
// released and each emits `free` more pairs at full rate. Each reports how
// many events it emitted ("emitted worker-<i> <n>", counting its
// thread-name event too), and the program how many times a producer waited
// in block mode ("blocked reserves <n>").
//
// The flusher is released when every thread has finished its held pairs
// ("done": drop mode, or block mode with a timeout shorter than the hold),
// or when every thread is waiting for room ("blocked": block mode, which
// would otherwise wait for the hold until its timeout), or, "paused", when
// every thread is waiting for room and collection is then paused
// (__itt_pause): the calls waiting were made before the pause. Or,
// "detached", when every thread is waiting for room the session is
// stopped (__itt_detach): each thread makes no call after the one that
// waited (the emitted counts are of calls made).
//
// usage: overflow_program <threads> <held pairs> <free pairs>
//                         done|blocked|paused|detached

#include <ittnotify.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/collector/collector_hooks.h"

namespace {

// Stops after the call during which `stop` was set.
void EmitPairs(__itt_domain* domain, __itt_string_handle* name, long pairs, long* emitted,
               const std::atomic<bool>& stop) {
  for (long k = 0; k < pairs; ++k) {
    __itt_task_begin(domain, __itt_null, __itt_null, name);
    ++*emitted;
    if (stop.load(std::memory_order_acquire)) return;
    __itt_task_end(domain);
    ++*emitted;
    if (stop.load(std::memory_order_acquire)) return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const int threads = std::atoi(argv[1]);
  const long held = std::atol(argv[2]);
  const long free_pairs = std::atol(argv[3]);
  const bool pause = std::strcmp(argv[4], "paused") == 0;
  const bool detach = std::strcmp(argv[4], "detached") == 0;
  const bool release_when_blocked = pause || detach || std::strcmp(argv[4], "blocked") == 0;
  std::atomic<bool> stop{false};
  if (!release_when_blocked && std::strcmp(argv[4], "done") != 0) return 2;
  __itt_domain* domain = __itt_domain_create("reliability.overflow");
  __itt_string_handle* name = __itt_string_handle_create("work");
  __itt_thread_set_name("overflow-main");  // loads the collector, starts its session
  HoldFlusher();

  std::mutex mu;
  std::condition_variable cv;
  int held_done = 0;      // guarded by mu
  bool released = false;  // guarded by mu
  std::vector<long> emitted(threads, 0);
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      std::string thread_name = "worker-" + std::to_string(i);
      __itt_thread_set_name(thread_name.c_str());
      emitted[i] = 1;
      EmitPairs(domain, name, held, &emitted[i], stop);
      {
        std::unique_lock<std::mutex> lock(mu);
        ++held_done;
        cv.notify_all();
        cv.wait(lock, [&] { return released; });
      }
      if (!stop.load(std::memory_order_acquire)) {
        EmitPairs(domain, name, free_pairs, &emitted[i], stop);
      }
    });
  }
  if (release_when_blocked) {
    WaitForBlockedReserves(static_cast<unsigned long long>(threads));
    if (pause) __itt_pause();
    if (detach) {
      stop.store(true, std::memory_order_release);
      __itt_detach();  // (releases the held flusher for its last round)
    }
  } else {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return held_done == threads; });
  }
  ReleaseFlusher();
  {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
  }
  cv.notify_all();
  for (std::thread& t : workers) t.join();
  for (int i = 0; i < threads; ++i) std::printf("emitted worker-%d %ld\n", i, emitted[i]);
  std::printf("blocked reserves %llu\n", BlockedReserves());
  return 0;
}
