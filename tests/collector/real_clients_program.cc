// A program that uses oneTBB, LLVM's OpenMP runtime and (in mode "all") our
// own ITT static part in one process. Both runtimes embed an ITT static
// part of their own, so in mode "all" three static parts of three ittapi
// versions load the same collector. Built with clang++ -fopenmp.
//
// Usage: real_clients_program tbb|omp|all

#include <ittnotify.h>
#include <omp.h>
#include <oneapi/tbb.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace {

long RunTbb() {
  std::atomic<long> sum{0};
  tbb::parallel_for(tbb::blocked_range<int>(0, 200000), [&](const tbb::blocked_range<int>& r) {
    long local = 0;
    for (int i = r.begin(); i != r.end(); ++i) local += i % 7;
    sum += local;
  });
  tbb::task_group group;
  for (int i = 0; i < 8; ++i) group.run([&] { sum += 1; });
  group.wait();
  tbb::spin_mutex mutex;
  tbb::parallel_for(0, 1000, [&](int) {
    tbb::spin_mutex::scoped_lock lock(mutex);
    sum += 1;
  });
  return sum.load();
}

long RunOmp() {
  long sum = 0;
  for (int round = 0; round < 5; ++round) {
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 100000; ++i) sum += i % 3;
  }
#pragma omp parallel
  {
#pragma omp critical
    sum += 1;
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "all";
  bool all = std::strcmp(mode, "all") == 0;
  __itt_domain* domain = nullptr;
  __itt_string_handle* name = nullptr;
  if (all) {
    domain = __itt_domain_create("real.clients");
    name = __itt_string_handle_create("both.runtimes");
    __itt_task_begin(domain, __itt_null, __itt_null, name);
  }
  long tbb_sum = (all || std::strcmp(mode, "tbb") == 0) ? RunTbb() : 0;
  long omp_sum = (all || std::strcmp(mode, "omp") == 0) ? RunOmp() : 0;
  if (all) __itt_task_end(domain);
  std::printf("tbb %ld omp %ld\n", tbb_sum, omp_sum);
  // Exact results: 200000 numbers mod 7 summed, plus 8, plus 1000; and
  // five rounds of 100000 numbers mod 3, plus one per OpenMP thread.
  bool ok =
      (tbb_sum == 0 || tbb_sum == 599994 + 8 + 1000) && (omp_sum == 0 || omp_sum >= 5 * 99999);
  return ok ? 0 : 1;
}
