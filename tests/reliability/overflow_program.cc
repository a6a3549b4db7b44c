// Row 1: producers faster than the flusher. N threads emit task pairs as
// fast as they can into small rings; each reports how many events it
// emitted ("emitted worker-<i> <n>", counting its thread-name event too).
// usage: overflow_program <threads> <task pairs per thread>

#include <ittnotify.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int threads = std::atoi(argv[1]);
  const long pairs = std::atol(argv[2]);
  __itt_domain* domain = __itt_domain_create("reliability.overflow");
  __itt_string_handle* name = __itt_string_handle_create("work");
  std::vector<long> emitted(threads, 0);
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      std::string thread_name = "worker-" + std::to_string(i);
      __itt_thread_set_name(thread_name.c_str());
      long n = 1;
      for (long k = 0; k < pairs; ++k) {
        __itt_task_begin(domain, __itt_null, __itt_null, name);
        __itt_task_end(domain);
        n += 2;
      }
      emitted[i] = n;
    });
  }
  for (std::thread& t : workers) t.join();
  for (int i = 0; i < threads; ++i) std::printf("emitted worker-%d %ld\n", i, emitted[i]);
  return 0;
}
