// Row 3: killed with SIGKILL in the middle of a run. Worker threads emit task
// pairs (paced, so rings rarely overflow); once every worker has emitted
// kSnapshotAfter events the main thread prints how many each had emitted so
// far ("snapshot worker-<i> <n>", then "snapshot-done") and the program runs
// on until it is killed, the workers at a slower pace: the test re-reads the
// whole trace until it holds the snapshot, and a trace growing by millions
// of events a second outran that reading under AddressSanitizer on a busy
// machine (each read took longer than the last, and the test never ended).
// usage: sigkill_program <threads>

#include <ittnotify.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const int threads = std::atoi(argv[1]);
  __itt_domain* domain = __itt_domain_create("reliability.sigkill");
  __itt_string_handle* name = __itt_string_handle_create("work");
  std::vector<std::atomic<long>> emitted(threads);
  std::atomic<bool> snapshot_taken{false};
  for (int i = 0; i < threads; ++i) {
    std::thread([&, i] {
      std::string thread_name = "worker-" + std::to_string(i);
      __itt_thread_set_name(thread_name.c_str());
      emitted[i].store(1, std::memory_order_relaxed);
      for (long k = 1;; ++k) {
        __itt_task_begin(domain, __itt_null, __itt_null, name);
        __itt_task_end(domain);
        emitted[i].fetch_add(2, std::memory_order_relaxed);
        // A nap every 512 pairs, every 16 once the snapshot is taken.
        if (k % (snapshot_taken.load(std::memory_order_relaxed) ? 16 : 512) == 0) {
          timespec nap{0, 200 * 1000};
          nanosleep(&nap, nullptr);
        }
      }
    }).detach();
  }
  // Waits for the workers' progress, not for an amount of time: on a busy
  // machine a worker may not run at all for a while.
  constexpr long kSnapshotAfter = 20000;
  for (int i = 0; i < threads; ++i) {
    while (emitted[i].load(std::memory_order_relaxed) < kSnapshotAfter) {
      timespec nap{0, 1000 * 1000};
      nanosleep(&nap, nullptr);
    }
  }
  std::string report;
  for (int i = 0; i < threads; ++i) {
    report += "snapshot worker-" + std::to_string(i) + " " +
              std::to_string(emitted[i].load(std::memory_order_relaxed)) + "\n";
  }
  report += "snapshot-done\n";
  snapshot_taken.store(true, std::memory_order_relaxed);
  // One write: the test reads whole lines while we keep running.
  if (write(1, report.data(), report.size()) != static_cast<ssize_t>(report.size())) return 3;
  for (;;) pause();
}
