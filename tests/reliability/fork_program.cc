// Row 6: fork() without exec from a process whose threads are tracing, with
// the flusher busy (full-rate workers, threads coming and going, new
// strings). Each child records its own events from the forking thread and
// from two new threads, then exits. The parent reports each child:
// "child <pid> ok <events emitted in the child>" or "child <pid> hung|failed".
// usage: fork_program <children>

#include <ittnotify.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kChildPairs = 1000;

__itt_domain* g_domain;
std::atomic<bool> g_stop{false};

// In the child: the forking thread and two new threads each emit
// kChildPairs task pairs named "child-work". Returns the events emitted.
int ChildMain() {
  __itt_string_handle* name = __itt_string_handle_create("child-work");
  auto work = [name] {
    for (int k = 0; k < kChildPairs; ++k) {
      __itt_task_begin(g_domain, __itt_null, __itt_null, name);
      __itt_task_end(g_domain);
    }
  };
  work();
  std::thread a(work), b(work);
  a.join();
  b.join();
  return 3 * 2 * kChildPairs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const int children = std::atoi(argv[1]);
  g_domain = __itt_domain_create("reliability.fork");
  __itt_string_handle* work = __itt_string_handle_create("parent-work");
  __itt_string_handle* main_name = __itt_string_handle_create("parent-main");

  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([=] {
      std::string thread_name = "worker-" + std::to_string(i);
      __itt_thread_set_name(thread_name.c_str());
      while (!g_stop.load(std::memory_order_relaxed)) {
        __itt_task_begin(g_domain, __itt_null, __itt_null, work);
        __itt_task_end(g_domain);
      }
    });
  }
  // Threads that come and go (the flusher reaps their rings) and new
  // strings (the flusher copies definitions), so forks land mid-round.
  threads.emplace_back([=] {
    for (unsigned k = 0; !g_stop.load(std::memory_order_relaxed); ++k) {
      std::thread([=] {
        std::string name = "churn-" + std::to_string(k);
        __itt_string_handle* h = __itt_string_handle_create(name.c_str());
        __itt_task_begin(g_domain, __itt_null, __itt_null, h);
        __itt_task_end(g_domain);
      }).join();
    }
  });

  for (int c = 0; c < children; ++c) {
    // Unflushed parent events on the forking thread: the child must not
    // write them.
    __itt_marker(g_domain, __itt_null, main_name, __itt_scope_global);
    timespec nap{0, (c % 7) * 1000000L};
    nanosleep(&nap, nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      std::exit(ChildMain() > 0 ? 0 : 1);
    }
    if (pid < 0) return 3;
    int status = 0;
    bool done = false;
    // Two minutes of 5 ms naps (longer on a busy machine): only a hang.
    for (int waited_ms = 0; waited_ms < 120000; waited_ms += 5) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        done = true;
        break;
      }
      usleep(5000);
    }
    if (!done) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::printf("child %d hung\n", pid);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      std::printf("child %d ok %d\n", pid, 3 * 2 * kChildPairs);
    } else {
      std::printf("child %d failed %d\n", pid, status);
    }
    std::fflush(stdout);
  }
  g_stop.store(true);
  for (std::thread& t : threads) t.join();
  return 0;
}
