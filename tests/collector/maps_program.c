/* The module map and the live perf map, seen from a program: records a
 * task_begin_fn of a static function, dlopens a plugin (argv[1]) and waits
 * until a flusher round has seen it, calls it, dlcloses it and waits again,
 * then reports one JIT method load. With "fork" as argv[2], a child does the
 * same ITT calls after fork(). Prints the pid and the plugin's function
 * address, which the test checks against the trace. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <ittnotify.h>
#include <jitprofiling.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static __itt_domain* g_domain;

static void StaticWork(void) {
  __itt_task_begin_fn(g_domain, __itt_null, __itt_null, (void*)&StaticWork);
  __itt_task_end(g_domain);
}

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

/* Returns once a flusher round that began after this call has written:
 * two growths of the file, each after a new event (the flusher writes once
 * per round, at its end). The deadline only catches a hang. */
static void WaitForFlusherRound(void) {
  __itt_string_handle* tick = __itt_string_handle_create("wait");
  for (int growth = 0; growth < 2; ++growth) {
    long long before = 0, now = 0;
    if (!TraceSize(&before)) {
      fprintf(stderr, "no trace file descriptor\n");
      exit(3);
    }
    __itt_task_begin(g_domain, __itt_null, __itt_null, tick);
    __itt_task_end(g_domain);
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

static int Run(const char* plugin) {
  g_domain = __itt_domain_create("maps");
  StaticWork();
  void* h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  int (*fn)(int) = (int (*)(int))dlsym(h, "maps_plugin_function");
  if (fn == NULL) return 2;
  WaitForFlusherRound();
  __itt_task_begin_fn(g_domain, __itt_null, __itt_null, (void*)fn);
  int v = fn(2);
  __itt_task_end(g_domain);
  printf("%d %llx %d\n", (int)getpid(), (unsigned long long)(size_t)fn, v);
  fflush(stdout);
  dlclose(h);
  WaitForFlusherRound();

  static unsigned char code[64];
  iJIT_Method_Load m;
  memset(&m, 0, sizeof m);
  m.method_id = (unsigned int)iJIT_GetNewMethodID();
  m.method_name = (char*)"jitted_kernel_one";
  m.method_load_address = code;
  m.method_size = sizeof code;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  if (argc > 2 && strcmp(argv[2], "fork") == 0) {
    __itt_domain_create("maps.parent");
    pid_t child = fork();
    if (child == 0) exit(Run(argv[1])); /* exit: the child writes its end record */
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 5;
    if (WEXITSTATUS(status) != 0) return WEXITSTATUS(status);
  }
  return Run(argv[1]);
}
