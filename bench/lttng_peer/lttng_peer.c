/* The peer benchmark's LTTng-UST side: the sustained tight loop of
 * call_overhead_bench --state=sustained (task begin + end, 20 M events by
 * default), each event a tracepoint of the same shape (ittc_bench_tp.h),
 * plus one RDTSC timed in the same process as the reference. Prints
 *   RESULT events=N cpu_ns=N rdtsc_ns_per_call=X
 * The session (daemon, channel, start/stop, discarded-event count, trace
 * size) is tools/run_benchmarks.sh's job: this program only emits.
 *
 *   lttng_peer [EVENTS]
 *
 * Built by tools/run_benchmarks.sh with the system compiler against
 * Debian's liblttng-ust-dev (not a Bazel target: the workspace has no
 * LTTng repository).
 *
 * Thread safety: one thread. */
#define _GNU_SOURCE 1
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "ittc_bench_tp.h"

static uint64_t ThreadCpuNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
  const uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000u;
  const uint64_t rdtsc_calls = 10000000u;
  volatile uint64_t sink = 0;
  uint64_t t0 = ThreadCpuNs();
  for (uint64_t i = 0; i < rdtsc_calls; ++i) sink = __rdtsc();
  uint64_t t1 = ThreadCpuNs();
  (void)sink;

  const uint64_t domain = 1, name = 2;
  uint64_t c0 = ThreadCpuNs();
  for (uint64_t i = 0; i < events / 2; ++i) {
    lttng_ust_tracepoint(ittc_bench, task_begin, domain, name);
    lttng_ust_tracepoint(ittc_bench, task_end, domain);
  }
  uint64_t c1 = ThreadCpuNs();
  printf("RESULT events=%llu cpu_ns=%llu rdtsc_ns_per_call=%.3f\n",
         (unsigned long long)(events / 2 * 2), (unsigned long long)(c1 - c0),
         (double)(t1 - t0) / (double)rdtsc_calls);
  return 0;
}
