// Row 8: the trace cannot be written (disk full, unwritable directory, path
// that is a directory). The program records a lot of poorly compressible
// metadata from two threads, computes a result the test knows, prints it,
// after what iJIT_IsProfilingActive answered first ("jit_active 0" where
// the collector could not start: nothing would be recorded).
// usage: output_errors_program <records per thread>

#include <ittnotify.h>
#include <jitprofiling.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const long records = std::atol(argv[1]);
  std::printf("jit_active %d\n", iJIT_IsProfilingActive() != iJIT_NOTHING_RUNNING ? 1 : 0);
  __itt_domain* domain = __itt_domain_create("reliability.output_errors");
  __itt_string_handle* key = __itt_string_handle_create("noise");
  uint64_t sums[2] = {0, 0};
  auto work = [&](int t) {
    uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t + 1);
    char text[64];
    for (long k = 0; k < records; ++k) {
      // xorshift: text that zstd cannot squeeze.
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      std::snprintf(text, sizeof(text), "%016llx%016llx", static_cast<unsigned long long>(x),
                    static_cast<unsigned long long>(x * 31));
      __itt_metadata_str_add(domain, __itt_null, key, text, 32);
      sums[t] += static_cast<uint64_t>(k);
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  std::printf("result %llu\n", static_cast<unsigned long long>(sums[0] + sums[1]));
  return 0;
}
