// Row 6d: a process that starts its trace where another's is still in use,
// with a fixed ITTC_OUTPUT (no %p).
//   traces_in_use_program exec    records 1000 task pairs, waits until the
//                                 flusher has written them, then execs
//                                 itself as `... after`, which records 5
//   traces_in_use_program fork    forks before its first ITT call; the
//                                 child records 300 pairs and waits for a
//                                 flusher round, then the parent records 200
//                                 (its trace begins while the child's is
//                                 open), and both end
// Each image reports "<role> <pid> <events emitted>", and the image before
// exec also how many of them a flusher round that began after them wrote
// (WaitForFlusherRound's last pair may come after the round it waited
// for began: a trace cut by exec may lack it, as a kill's lacks its last
// flush interval).

#include <ittnotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "tests/collector/flusher_wait.h"  // a C library
}

namespace {

int Record(__itt_domain* domain, const char* name, int pairs) {
  __itt_string_handle* h = __itt_string_handle_create(name);
  for (int k = 0; k < pairs; ++k) {
    __itt_task_begin(domain, __itt_null, __itt_null, h);
    __itt_task_end(domain);
  }
  return 2 * pairs;
}

// `written`: of the `events`, those certainly written (-1: all).
void Report(const char* role, int events, int written = -1) {
  std::printf("%s %d %d %d\n", role, static_cast<int>(getpid()), events,
              written < 0 ? events : written);
  std::fflush(stdout);
}

}  // namespace

__itt_domain* Domain() { return __itt_domain_create("reliability.traces_in_use"); }

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (std::strcmp(argv[1], "fork") != 0 && std::strcmp(argv[1], "exec") != 0 &&
      std::strcmp(argv[1], "after") != 0) {
    return 2;
  }
  if (std::strcmp(argv[1], "fork") == 0) {
    // Before the first ITT call: neither process has a session yet.
    int ready[2];
    if (pipe(ready) != 0) return 6;
    const pid_t child = fork();
    if (child == 0) {
      __itt_domain* domain = Domain();
      const int events = Record(domain, "child-work", 300);
      WaitForFlusherRound(domain);  // the child's trace is on disk, open (two pairs)
      Report("child", events + 4);
      if (write(ready[1], "x", 1) != 1) std::_Exit(7);
      std::exit(0);
    }
    char byte;
    if (read(ready[0], &byte, 1) != 1) return 8;
    // The child's trace stays open until it exits (it may have, by now:
    // its pid is then a zombie's until reaped, which kill() still finds).
    Report("parent", Record(Domain(), "parent-work", 200));
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return 9;
    }
    return 0;
  }
  __itt_domain* domain = Domain();
  if (std::strcmp(argv[1], "after") == 0) {
    Report("after", Record(domain, "after-exec", 5));
    return 0;
  }
  if (std::strcmp(argv[1], "exec") == 0) {
    const int events = Record(domain, "before-exec", 1000);
    WaitForFlusherRound(domain);  // two task pairs of its own
    Report("before", events + 4, events + 2);
    char self[] = "/proc/self/exe";
    char after[] = "after";
    char* args[] = {argv[0], after, nullptr};
    execv(self, args);
    return 5;
  }
  return 0;
}
