/* Timing scenarios for timing_test.cc:
 *  1. a task "fifty" spinning exactly 50 ms of CLOCK_MONOTONIC_RAW;
 *  2. a task "outer" around a task "inner" recorded through a user clock
 *     domain (microseconds of CLOCK_MONOTONIC_RAW) spanning 10 ms. */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <stdio.h>
#include <time.h>

static unsigned long long NowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void SpinUntil(unsigned long long deadline_ns) {
  while (NowNs() < deadline_ns) {
  }
}

static void MicrosecondClock(__itt_clock_info* info, void* data) {
  (void)data;
  info->clock_freq = 1000000;
  info->clock_base = NowNs() / 1000;
}

int main(void) {
  __itt_domain* d = __itt_domain_create("timing");
  __itt_string_handle* fifty = __itt_string_handle_create("fifty");
  __itt_string_handle* outer = __itt_string_handle_create("outer");
  __itt_string_handle* inner = __itt_string_handle_create("inner");
  __itt_clock_domain* cd = __itt_clock_domain_create(MicrosecondClock, NULL);

  unsigned long long start = NowNs();
  __itt_task_begin(d, __itt_null, __itt_null, fifty);
  SpinUntil(start + 50000000ull);
  __itt_task_end(d);
  unsigned long long stop = NowNs();

  __itt_task_begin(d, __itt_null, __itt_null, outer);
  SpinUntil(NowNs() + 1000000ull);
  unsigned long long u0 = NowNs() / 1000;
  __itt_task_begin_ex(d, cd, u0, __itt_null, __itt_null, inner);
  SpinUntil((u0 + 10000ull) * 1000ull);
  unsigned long long u1 = NowNs() / 1000;
  __itt_task_end_ex(d, cd, u1);
  SpinUntil(NowNs() + 1000000ull);
  __itt_task_end(d);
  /* The machine may deschedule us, so the test compares the trace with
   * what we measured, not with the nominal 50 ms and 10 ms. */
  printf("%llu %llu\n", stop - start, u1 - u0);
  return 0;
}
