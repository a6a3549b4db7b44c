/* Records task_begin_fn tasks whose functions only the ELF symbol tables
 * name: static_fn, a static function of this executable (linked without
 * -rdynamic), and hidden_fn, a hidden function of the plugin argv[1], which
 * is dlopened, called and dlclosed before the program exits. For each it
 * prints "WHAT ADDRESS LOAD_BIAS DLADDR_NAME" (hex; the name dladdr gives,
 * "-" for none), for the test to compare with itt-dump's names.
 * By default a flusher round sees the plugin loaded and another sees it
 * gone. With "held" as argv[2], the flusher is held from before the dlopen
 * until after the dlclose, so that no round ever sees the plugin loaded,
 * and hidden_fn's tasks are begun with task_begin_fn and task_begin_fn_ex
 * both. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ittnotify.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/collector/collector_hooks.h"
#include "tests/collector/flusher_wait.h"

static __itt_domain* g_domain;

__attribute__((noinline)) static int static_fn(int x) { return x + 1; }

static int Call(int (*fn)(int), int x) {
  __itt_task_begin_fn(g_domain, __itt_null, __itt_null, (void*)fn);
  const int v = fn(x);
  __itt_task_end(g_domain);
  return v;
}

static int Report(const char* what, int (*fn)(int)) {
  Dl_info info;
  struct link_map* map = NULL;
  if (dladdr1((void*)fn, &info, (void**)&map, RTLD_DL_LINKMAP) == 0 || map == NULL) return 0;
  printf("%s %llx %llx %s\n", what, (unsigned long long)(uintptr_t)fn,
         (unsigned long long)map->l_addr, info.dli_sname != NULL ? info.dli_sname : "-");
  return 1;
}

static int CallEx(int (*fn)(int), int x) {
  __itt_task_begin_fn_ex(g_domain, NULL, 0, __itt_null, __itt_null, (void*)fn);
  const int v = fn(x);
  __itt_task_end_ex(g_domain, NULL, 0);
  return v;
}

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const int held = argc > 2 && strcmp(argv[2], "held") == 0;
  g_domain = __itt_domain_create("symbols");
  int v = Call(&static_fn, 1);
  if (!Report("static", &static_fn)) return 2;
  if (held) HoldFlusher();
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 3;
  }
  void* (*get)(void) = (void* (*)(void))dlsym(h, "symbols_plugin_hidden_fn");
  if (get == NULL) return 4;
  int (*hidden)(int) = (int (*)(int))get();
  /* The collector lists loaded modules once per flusher round. */
  if (!held) WaitForFlusherRound(g_domain);
  v += Call(hidden, 2);
  if (held) v += CallEx(hidden, 2) - 42;
  if (!Report("hidden", hidden)) return 5;
  fflush(stdout);
  dlclose(h);
  if (held) {
    ReleaseFlusher();
  } else {
    WaitForFlusherRound(g_domain);
  }
  return v == 44 ? 0 : 6;
}
