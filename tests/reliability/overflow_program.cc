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
// (__itt_pause): the calls waiting were made before the pause.
//
// usage: overflow_program <threads> <held pairs> <free pairs> done|blocked|paused

#include <ittnotify.h>

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

void EmitPairs(__itt_domain* domain, __itt_string_handle* name, long pairs, long* emitted) {
  for (long k = 0; k < pairs; ++k) {
    __itt_task_begin(domain, __itt_null, __itt_null, name);
    __itt_task_end(domain);
    *emitted += 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const int threads = std::atoi(argv[1]);
  const long held = std::atol(argv[2]);
  const long free_pairs = std::atol(argv[3]);
  const bool pause = std::strcmp(argv[4], "paused") == 0;
  const bool release_when_blocked = pause || std::strcmp(argv[4], "blocked") == 0;
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
      EmitPairs(domain, name, held, &emitted[i]);
      {
        std::unique_lock<std::mutex> lock(mu);
        ++held_done;
        cv.notify_all();
        cv.wait(lock, [&] { return released; });
      }
      EmitPairs(domain, name, free_pairs, &emitted[i]);
    });
  }
  if (release_when_blocked) {
    WaitForBlockedReserves(static_cast<unsigned long long>(threads));
    if (pause) __itt_pause();
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
