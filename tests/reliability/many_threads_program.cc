// Row 5: many short-lived threads. Starts <total> threads, <parallel> at a
// time; each emits task_begin, marker, task_end and exits.
// usage: many_threads_program <total> <parallel>

#include <ittnotify.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int total = std::atoi(argv[1]);
  const int parallel = std::atoi(argv[2]);
  __itt_domain* domain = __itt_domain_create("reliability.many_threads");
  __itt_string_handle* name = __itt_string_handle_create("short");
  int started = 0;
  while (started < total) {
    std::vector<std::thread> batch;
    for (int i = 0; i < parallel && started < total; ++i, ++started) {
      batch.emplace_back([=] {
        __itt_task_begin(domain, __itt_null, __itt_null, name);
        __itt_marker(domain, __itt_null, name, __itt_scope_task);
        __itt_task_end(domain);
      });
    }
    for (std::thread& t : batch) t.join();
  }
  std::printf("started %d\n", started);
  return 0;
}
