// Row 6b: forks of forks without exec, with a fixed ITTC_OUTPUT (no %p).
// The top process P records, forks C, which records and forks G, which
// records; P also forks D, which forks E before its own first ITT call,
// then both record. Each reports "<role> <pid> <ppid> <events emitted>";
// P reports "P <pid> <ppid> <events>" last, after the others exited.
// usage: fork_tree_program

#include <ittnotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

__itt_domain* g_domain;

// `pairs` task pairs named `name`: 2 * pairs events.
int Record(const char* name, int pairs) {
  __itt_string_handle* h = __itt_string_handle_create(name);
  for (int k = 0; k < pairs; ++k) {
    __itt_task_begin(g_domain, __itt_null, __itt_null, h);
    __itt_task_end(g_domain);
  }
  return 2 * pairs;
}

void Report(const char* role, int events) {
  std::printf("%s %d %d %d\n", role, static_cast<int>(getpid()), static_cast<int>(getppid()),
              events);
  std::fflush(stdout);
}

// Waits for child `pid`; false unless it exited with 0.
bool Reaped(pid_t pid) {
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

}  // namespace

int main() {
  g_domain = __itt_domain_create("reliability.fork_tree");
  int p_events = Record("p-work", 100);
  std::fflush(stdout);
  const pid_t c = fork();
  if (c == 0) {
    int events = Record("c-work", 200);
    const pid_t g = fork();
    if (g == 0) {
      Report("G", Record("g-work", 300));
      std::exit(0);
    }
    const bool ok = Reaped(g);
    Report("C", events);
    std::exit(ok ? 0 : 1);
  }
  // D forks E before any ITT call of its own.
  const pid_t d = fork();
  if (d == 0) {
    const pid_t e = fork();
    if (e == 0) {
      Report("E", Record("e-work", 50));
      std::exit(0);
    }
    const bool ok = Reaped(e);
    Report("D", Record("d-work", 50));
    std::exit(ok ? 0 : 1);
  }
  p_events += Record("p-work", 100);
  if (!Reaped(c) || !Reaped(d)) return 1;
  Report("P", p_events);
  return 0;
}
