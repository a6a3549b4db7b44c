/* Timing scenarios for timing_test.cc:
 *  1. a task "fifty" spinning at least 50 ms of CLOCK_MONOTONIC_RAW;
 *  2. a task "outer" around a task "inner" recorded through a user clock
 *     domain (microseconds of CLOCK_MONOTONIC_RAW) spanning 10 ms.
 * Prints, in CLOCK_MONOTONIC_RAW nanoseconds, "fifty" then the clock read
 * before and after its begin call and before and after its end call, and
 * "inner" then its user begin timestamp, the read after the begin call, its
 * user end timestamp and the read after the end call. */
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

  /* Each ITT call is bracketed by clock reads (before, after): the test
   * checks the collector's stamp lies between them, which holds however long
   * the machine keeps us off the CPU. */
  unsigned long long fifty_b0 = NowNs();
  __itt_task_begin(d, __itt_null, __itt_null, fifty);
  unsigned long long fifty_a0 = NowNs();
  SpinUntil(fifty_a0 + 50000000ull);
  unsigned long long fifty_b1 = NowNs();
  __itt_task_end(d);
  unsigned long long fifty_a1 = NowNs();

  __itt_task_begin(d, __itt_null, __itt_null, outer);
  SpinUntil(NowNs() + 1000000ull);
  unsigned long long u0 = NowNs() / 1000;
  __itt_task_begin_ex(d, cd, u0, __itt_null, __itt_null, inner);
  unsigned long long inner_a0 = NowNs();
  SpinUntil((u0 + 10000ull) * 1000ull);
  unsigned long long u1 = NowNs() / 1000;
  __itt_task_end_ex(d, cd, u1);
  unsigned long long inner_a1 = NowNs();
  SpinUntil(NowNs() + 1000000ull);
  __itt_task_end(d);
  printf("fifty %llu %llu %llu %llu\n", fifty_b0, fifty_a0, fifty_b1, fifty_a1);
  printf("inner %llu %llu %llu %llu\n", u0 * 1000, inner_a0, u1 * 1000, inner_a1);
  return 0;
}
