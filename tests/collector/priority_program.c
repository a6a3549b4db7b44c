/* For priority_test.cc: once the collector's flusher has run a round (so
 * it has set its own priority, the first thing it does), prints the nice
 * value of every thread named ittc-flusher ("flusher N"), then the main
 * thread's ("main N"). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ittnotify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tests/collector/flusher_wait.h"

/* The nice value of thread `tid` of this process; exits with status 5 if
 * it cannot be read. */
static int NiceOf(id_t tid) {
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, tid);
  if (errno != 0) exit(5);
  return nice;
}

int main(void) {
  __itt_domain* d = __itt_domain_create("priority");
  /* An event opens the trace (and starts the flusher). */
  __itt_task_begin(d, __itt_null, __itt_null, __itt_string_handle_create("start"));
  __itt_task_end(d);
  WaitForFlusherRound(d);
  DIR* dir = opendir("/proc/self/task");
  if (dir == NULL) return 6;
  struct dirent* entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char path[300];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
    FILE* f = fopen(path, "r");
    if (f == NULL) continue; /* the thread has exited */
    char comm[32] = "";
    if (fgets(comm, sizeof comm, f) == NULL) comm[0] = '\0';
    fclose(f);
    if (strcmp(comm, "ittc-flusher\n") == 0) {
      printf("flusher %d\n", NiceOf((id_t)strtol(entry->d_name, NULL, 10)));
    }
  }
  closedir(dir);
  printf("main %d\n", NiceOf(0));
  return 0;
}
