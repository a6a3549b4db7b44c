// Row 9: signal handlers that make ITT calls while the interrupted thread is
// inside an ITT call. Each worker arms a timer that sends SIGALRM to itself
// every few microseconds; the handler records task_begin, a marker named
// "in-handler" and task_end. Modes:
//   steady       the timer is armed after the thread's first ITT call
//   first_calls  many short threads arm it before their first ITT call, so
//                signals land while the collector attaches the thread
// Each worker reports "emitted <thread name> <events it made>" and
// "handled <thread name> <handler runs>".
// usage: signals_program steady|first_calls

#include <ittnotify.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

__itt_domain* g_domain;
__itt_string_handle* g_work;
__itt_string_handle* g_in_handler;

thread_local long t_handled = 0;

void OnAlarm(int) {
  int saved = errno;
  __itt_task_begin(g_domain, __itt_null, __itt_null, g_in_handler);
  __itt_marker(g_domain, __itt_null, g_in_handler, __itt_scope_task);
  __itt_task_end(g_domain);
  ++t_handled;
  errno = saved;
}

// A timer delivering SIGALRM to the calling thread every `ns` nanoseconds.
timer_t ArmTimer(long ns) {
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGALRM;
  ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) std::abort();
  itimerspec spec{};
  spec.it_value.tv_nsec = ns;
  spec.it_interval.tv_nsec = ns;
  timer_settime(timer, 0, &spec, nullptr);
  return timer;
}

void Disarm(timer_t timer) {
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm, nullptr);
  timer_delete(timer);
}

std::string Report(const std::string& name, long emitted) {
  return "emitted " + name + " " + std::to_string(emitted) + "\nhandled " + name + " " +
         std::to_string(t_handled) + "\n";
}

// A worker: its name event, then task pairs, signals arriving throughout.
std::string Worker(const std::string& name, bool arm_first, long pairs) {
  timer_t timer{};
  if (arm_first) timer = ArmTimer(20 * 1000);
  __itt_thread_set_name(name.c_str());
  if (!arm_first) timer = ArmTimer(50 * 1000);
  long emitted = 1;
  for (long k = 0; k < pairs; ++k) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_work);
    __itt_task_end(g_domain);
    emitted += 2;
    if (k % 256 == 0) {
      timespec nap{0, 20 * 1000};
      nanosleep(&nap, nullptr);  // lets the flusher keep up; signals land here too
    }
  }
  Disarm(timer);
  return Report(name, emitted + 3 * t_handled);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const bool first_calls = std::strcmp(argv[1], "first_calls") == 0;
  g_domain = __itt_domain_create("reliability.signals");
  g_work = __itt_string_handle_create("work");
  g_in_handler = __itt_string_handle_create("in-handler");
  // Starts the session and loads the collector before any signal flies.
  __itt_marker(g_domain, __itt_null, g_work, __itt_scope_global);

  struct sigaction sa {};
  sa.sa_handler = &OnAlarm;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, nullptr);

  std::vector<std::string> reports;
  std::mutex mu;
  if (first_calls) {
    // Short threads, two at a time, each armed before its first ITT call.
    for (int i = 0; i < 200; i += 2) {
      std::thread a([&, i] {
        std::string r = Worker("short-" + std::to_string(i), true, 200);
        std::lock_guard<std::mutex> lock(mu);
        reports.push_back(r);
      });
      std::thread b([&, i] {
        std::string r = Worker("short-" + std::to_string(i + 1), true, 200);
        std::lock_guard<std::mutex> lock(mu);
        reports.push_back(r);
      });
      a.join();
      b.join();
    }
  } else {
    std::vector<std::thread> workers;
    for (int i = 0; i < 3; ++i) {
      workers.emplace_back([&, i] {
        std::string r = Worker("worker-" + std::to_string(i), false, 200000);
        std::lock_guard<std::mutex> lock(mu);
        reports.push_back(r);
      });
    }
    for (std::thread& t : workers) t.join();
  }
  for (const std::string& r : reports) std::fputs(r.c_str(), stdout);
  return 0;
}
