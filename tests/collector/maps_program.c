/* The module map and the live perf map, seen from a program: records a
 * task_begin_fn of a static function, dlopens a plugin (argv[1]) and waits
 * until a flusher round has seen it, calls it, dlcloses it and waits again,
 * then reports one JIT method load, and one more while paused. With "fork"
 * as argv[2], a child does the same ITT calls after fork(). Prints the pid
 * and the plugin's function address, which the test checks against the
 * trace, then the paused method's address and size. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ittnotify.h>
#include <jitprofiling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/collector/flusher_wait.h"

static __itt_domain* g_domain;

static void StaticWork(void) {
  __itt_task_begin_fn(g_domain, __itt_null, __itt_null, (void*)&StaticWork);
  __itt_task_end(g_domain);
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
  WaitForFlusherRound(g_domain);
  __itt_task_begin_fn(g_domain, __itt_null, __itt_null, (void*)fn);
  int v = fn(2);
  __itt_task_end(g_domain);
  printf("%d %llx %d\n", (int)getpid(), (unsigned long long)(size_t)fn, v);
  fflush(stdout);
  dlclose(h);
  WaitForFlusherRound(g_domain);

  static unsigned char code[64];
  iJIT_Method_Load m;
  memset(&m, 0, sizeof m);
  m.method_id = (unsigned int)iJIT_GetNewMethodID();
  m.method_name = (char*)"jitted_kernel_one";
  m.method_load_address = code;
  m.method_size = sizeof code;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  /* Its code moved: a line for the new place. */
  static unsigned char moved_code[48];
  m.method_load_address = moved_code;
  m.method_size = sizeof moved_code;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UPDATE, &m);
  /* No code: no line. */
  m.method_id = (unsigned int)iJIT_GetNewMethodID();
  m.method_name = (char*)"no_code";
  m.method_size = 0;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  /* A name longer than the old 512-byte line: whole, as the trace has it. */
  static char long_name[700];
  memset(long_name, 'n', sizeof long_name - 1);
  static unsigned char long_code[16];
  m.method_id = (unsigned int)iJIT_GetNewMethodID();
  m.method_name = long_name;
  m.method_load_address = long_code;
  m.method_size = sizeof long_code;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);

  /* Loaded while paused: not in the trace, but in the live perf map. */
  static unsigned char paused_code[32];
  __itt_pause();
  m.method_id = (unsigned int)iJIT_GetNewMethodID();
  m.method_name = (char*)"jitted_while_paused";
  m.method_load_address = paused_code;
  m.method_size = sizeof paused_code;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  __itt_resume();
  printf("paused_method %llx %llx\n", (unsigned long long)(size_t)paused_code,
         (unsigned long long)sizeof paused_code);
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
