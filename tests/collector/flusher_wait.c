#define _GNU_SOURCE
#include "tests/collector/flusher_wait.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The trace file this process writes: the descriptor whose path ends in
 * ".itt" (the collector opens it on the first ITT call). */
static int TraceSize(long long* size) {
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) return 0;
  struct dirent* e;
  int found = 0;
  while ((e = readdir(d)) != NULL && !found) {
    char link[300], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 5) continue;
    target[n] = '\0';
    if (strcmp(target + n - 4, ".itt") != 0) continue;
    struct stat st;
    if (stat(target, &st) == 0) {
      *size = (long long)st.st_size;
      found = 1;
    }
  }
  closedir(d);
  return found;
}

void WaitForFlusherRound(__itt_domain* domain) {
  __itt_string_handle* tick = __itt_string_handle_create("wait");
  for (int growth = 0; growth < 2; ++growth) {
    long long before = 0, now = 0;
    if (!TraceSize(&before)) {
      fprintf(stderr, "no trace file descriptor\n");
      exit(3);
    }
    __itt_task_begin(domain, __itt_null, __itt_null, tick);
    __itt_task_end(domain);
    time_t deadline = time(NULL) + 120;
    while (TraceSize(&now) && now == before) {
      if (time(NULL) > deadline) {
        fprintf(stderr, "the trace did not grow\n");
        exit(4);
      }
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  }
}
