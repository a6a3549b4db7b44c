// Row 4: the process ends (return from main, or exit()) while other threads
// call ITT at full rate, create handles, and start and finish short threads
// whose thread_local and pthread-key destructors call ITT; static destructors
// and late atexit handlers call ITT too.
//
// Before ending, main prints how many events each full-rate worker had
// emitted ("snapshot worker-<i> <n>", then "snapshot-done").
// usage: exit_program return|exit <threads>

#include <ittnotify.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

__itt_domain* g_domain;
__itt_string_handle* g_name;
pthread_key_t g_key;
// Static storage: workers keep counting while main's frame is gone.
std::atomic<long> g_emitted[64];

// Calls ITT when destroyed: as a static, after the collector shut down; as a
// thread_local, when a short thread exits (perhaps during shutdown).
struct CallsIttWhenDestroyed {
  const char* what;
  ~CallsIttWhenDestroyed() {
    if (g_domain == nullptr) return;
    __itt_string_handle* h = __itt_string_handle_create(what);
    __itt_task_begin(g_domain, __itt_null, __itt_null, h);
    __itt_task_end(g_domain);
    __itt_thread_set_name(what);
  }
};

CallsIttWhenDestroyed g_static{"static-destructor"};
thread_local CallsIttWhenDestroyed t_local{"thread-local-destructor"};

void KeyDestructor(void*) {
  __itt_marker(g_domain, __itt_null, g_name, __itt_scope_task);
  __itt_domain_create("reliability.exit.key-destructor");
}

void LateAtExit() {
  // Registered after the collector's own handler: runs before it, so this
  // is recorded.
  __itt_marker(g_domain, __itt_null, __itt_string_handle_create("late-atexit"), __itt_scope_global);
}

void ShortThread() {
  pthread_setspecific(g_key, &g_key);
  (void)t_local.what;
  __itt_task_begin(g_domain, __itt_null, __itt_null, g_name);
  __itt_task_end(g_domain);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const bool use_exit = std::strcmp(argv[1], "exit") == 0;
  const int threads = std::atoi(argv[2]);
  g_domain = __itt_domain_create("reliability.exit");
  g_name = __itt_string_handle_create("work");
  pthread_key_create(&g_key, &KeyDestructor);
  // The session starts with the first recording call (creating handles does
  // not load the collector); its exit handler is registered then.
  __itt_marker(g_domain, __itt_null, g_name, __itt_scope_global);
  std::atexit(&LateAtExit);

  if (threads > 64) return 2;
  for (int i = 0; i < threads; ++i) {
    std::thread([i] {
      std::string thread_name = "worker-" + std::to_string(i);
      __itt_thread_set_name(thread_name.c_str());
      g_emitted[i].store(1, std::memory_order_relaxed);
      for (;;) {
        __itt_task_begin(g_domain, __itt_null, __itt_null, g_name);
        __itt_task_end(g_domain);
        g_emitted[i].fetch_add(2, std::memory_order_relaxed);
      }
    }).detach();
  }
  // Handle creation and short threads, racing with the end of the process.
  std::thread([] {
    for (unsigned k = 0;; ++k) {
      std::string name = "handle-" + std::to_string(k % 64);
      __itt_string_handle_create(name.c_str());
      __itt_domain_create(name.c_str());
      std::thread(&ShortThread).detach();
      usleep(100);
    }
  }).detach();

  // Shutdown begins once every worker is under way (its progress, not an
  // amount of time: a busy machine may hold a thread off the CPU).
  constexpr long kSnapshotAfter = 20000;
  for (int i = 0; i < threads; ++i) {
    while (g_emitted[i].load(std::memory_order_relaxed) < kSnapshotAfter) usleep(1000);
  }
  std::string report;
  for (int i = 0; i < threads; ++i) {
    report += "snapshot worker-" + std::to_string(i) + " " +
              std::to_string(g_emitted[i].load(std::memory_order_relaxed)) + "\n";
  }
  report += "snapshot-done\n";
  if (write(1, report.data(), report.size()) != static_cast<ssize_t>(report.size())) return 3;
  if (use_exit) std::exit(0);
  return 0;
}
