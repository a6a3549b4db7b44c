/* The headers compile as C11 with -Wall -Wextra -Werror and every call
 * works in a plain C program linked with libittnotify.a (no libstdc++), with
 * or without INTEL_NO_ITTNOTIFY_API (then the program is linked without the
 * static part, so no call may reference it). No collector is loaded. */
#include <stdio.h>

#define INTEL_ITTNOTIFY_API_PRIVATE
#include <ittnotify.h>
#include <jitprofiling.h>

#include "tests/stub/all_calls.inc"

int main(void) {
  int result = CallEveryApi();
  if (result != 55) {
    fprintf(stderr, "CallEveryApi returned %d, want 55\n", result);
    return 1;
  }
#ifndef INTEL_NO_ITTNOTIFY_API
  if (__itt_get_collection_state() != __itt_collection_collector_absent) {
    fprintf(stderr, "unexpected collection state\n");
    return 1;
  }
  if (iJIT_IsProfilingActive() != iJIT_NOTHING_RUNNING) return 1;
#endif
  printf("ok\n");
  return 0;
}
