// Row 13: the flushers are stuck (a test hook parks them for good) when the
// program returns from main: the collector waits ITTC_EXIT_TIMEOUT_MS for
// its last round, then lets the process end without the end record.
// Threads record before the hold (their events may or may not be written)
// and after it (never written). Prints "held" once the flushers are parked.
// usage: exit_timeout_program <threads>

#include <ittnotify.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tests/collector/collector_hooks.h"

namespace {

void Record(__itt_domain* domain, __itt_string_handle* name, int pairs) {
  for (int i = 0; i < pairs; ++i) {
    __itt_task_begin(domain, __itt_null, __itt_null, name);
    __itt_task_end(domain);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const int threads = std::atoi(argv[1]);
  __itt_domain* domain = __itt_domain_create("reliability.exit_timeout");
  __itt_string_handle* name = __itt_string_handle_create("work");
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) workers.emplace_back(Record, domain, name, 1000);
  for (std::thread& w : workers) w.join();
  Record(domain, name, 1);  // this thread records too: the session runs
  HoldFlusherThroughExit();
  std::puts("held");
  std::fflush(stdout);
  workers.clear();
  for (int i = 0; i < threads; ++i) workers.emplace_back(Record, domain, name, 1000);
  for (std::thread& w : workers) w.join();
  return 0;
}
