// Row 6c: what a fork child starts from.
//
// usage: fork_state_program MODE
//   ignore   the main thread names itself "parent-main" and calls
//            __itt_thread_ignore while its flusher is held (so neither
//            record has been read when it forks); the child records 5
//            tasks, pauses and resumes, and records 5 more: an ignored
//            thread stays ignored and named in the child, whatever its
//            parent's flusher had read
//   failed   the parent's trace fails (its file deleted and its descriptor
//            closed: it cannot be reopened, collection stops); then it
//            forks, and the child records 100 tasks into a trace of its
//            own (ITTC_OUTPUT with %p)
// Each process prints "<role> <pid> <tasks it recorded>" and the parent
// exits 0 once the child has; 3 or 4 if a hook is missing or a wait passes
// a deadline only a hang reaches.

#include <dlfcn.h>
#include <ittnotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/collector/collector_hooks.h"

namespace {

__itt_domain* g_domain;
__itt_string_handle* g_task;

void Tasks(int n) {
  for (int i = 0; i < n; ++i) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, g_task);
    __itt_task_end(g_domain);
  }
}

void Say(const char* role, int tasks) {
  std::printf("%s %d %d\n", role, static_cast<int>(getpid()), tasks);
  std::fflush(stdout);
}

int WaitChild(pid_t child) {
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) return 5;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string mode = argv[1];
  g_domain = __itt_domain_create("fork_state");
  g_task = __itt_string_handle_create("task");
  Tasks(1);  // starts the session
  if (mode == "ignore") {
    HoldFlusher();
    __itt_thread_set_name("parent-main");
    __itt_thread_ignore();
    const pid_t child = fork();
    if (child == 0) {
      Tasks(5);
      __itt_pause();
      __itt_resume();
      Tasks(5);
      Say("child", 0);
      std::exit(0);
    }
    ReleaseFlusher();
    const int rc = WaitChild(child);
    Say("parent", 1);
    return rc;
  }
  if (mode == "failed") {
    const char* output = std::getenv("ITTC_OUTPUT");
    if (output == nullptr) return 2;
    std::string path = output;
    const size_t p = path.find("%p");
    if (p == std::string::npos) return 2;
    path.replace(p, 2, std::to_string(getpid()));
    void* lib = dlopen(std::getenv("INTEL_LIBITTNOTIFY64"), RTLD_NOW | RTLD_NOLOAD);
    const auto gate_fn = lib != nullptr
                             ? reinterpret_cast<const int* (*)()>(dlsym(lib, "ittc_recording_gate"))
                             : nullptr;
    if (gate_fn == nullptr) return 3;
    const volatile int* gate = gate_fn();
    unlink(path.c_str());                           // no reopen can find it
    for (int fd = 100; fd < 1024; ++fd) close(fd);  // the trace's descriptor
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int parent_tasks = 1;
    while (*gate >= 0) {  // until the collector has stopped
      Tasks(1);
      ++parent_tasks;
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (now.tv_sec - start.tv_sec > 120) return 4;
      const timespec pause = {0, 1000000};
      nanosleep(&pause, nullptr);
    }
    const pid_t child = fork();
    if (child == 0) {
      Tasks(100);
      Say("child", 100);
      std::exit(0);
    }
    const int rc = WaitChild(child);
    Say("parent", parent_tasks);
    return rc;
  }
  return 2;
}
