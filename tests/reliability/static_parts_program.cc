// Row 11: several static parts initialising at once. Our stub, oneTBB's and
// LLVM OpenMP's embedded static parts (three ittapi versions) all load the
// collector; their first calls come from many threads released together by
// a barrier. Compiled by GCC with -fopenmp but linked against LLVM's libomp
// (which implements GCC's GOMP entry points), so sanitizer builds work.
// Prints "sum <n>" (a value the test knows) and "threads-done".
// usage: static_parts_program <stub threads>

#include <ittnotify.h>
#include <oneapi/tbb.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

pthread_barrier_t g_start;
std::atomic<long> g_sum{0};

void StubThread(int i) {
  pthread_barrier_wait(&g_start);
  // Interned names shared by every thread, and one of the runtimes' own.
  __itt_domain* shared = __itt_domain_create("reliability.static_parts");
  __itt_domain* tbb_named = __itt_domain_create("tbb");
  __itt_string_handle* name = __itt_string_handle_create("stub-task");
  for (int k = 0; k < 100; ++k) {
    __itt_task_begin(shared, __itt_null, __itt_null, name);
    __itt_task_end(shared);
    __itt_marker(tbb_named, __itt_null, name, __itt_scope_task);
  }
  g_sum += i;
}

void TbbThread() {
  pthread_barrier_wait(&g_start);
  tbb::parallel_for(0, 10000, [](int i) { g_sum += i % 2; });
  tbb::task_group group;
  for (int i = 0; i < 8; ++i) group.run([] { g_sum += 1; });
  group.wait();
}

void OmpThread() {
  pthread_barrier_wait(&g_start);
  // Atomics only: libomp's barriers are invisible to ThreadSanitizer, so a
  // reduction read after the loop would look like a race.
#pragma omp parallel for
  for (int i = 0; i < 10000; ++i) g_sum += i % 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const int stub_threads = std::atoi(argv[1]);
  pthread_barrier_init(&g_start, nullptr, static_cast<unsigned>(stub_threads + 2));
  std::vector<std::thread> threads;
  threads.emplace_back(&TbbThread);
  threads.emplace_back(&OmpThread);
  for (int i = 0; i < stub_threads; ++i) threads.emplace_back(&StubThread, i);
  for (std::thread& t : threads) t.join();
  std::printf("sum %ld\nthreads-done\n", g_sum.load());
  return 0;
}
