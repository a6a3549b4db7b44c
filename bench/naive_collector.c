/* A deliberately naive ITT collector, for comparison only: every call takes
 * one global mutex and writes one line with fprintf, which is the design of
 * Intel's reference collector (ittnotify_refcol). It is bound per symbol
 * (it exports __itt_api_version; run with INTEL_ITTNOTIFY_GROUPS=all) and
 * implements only what the task benchmark calls. Output goes to
 * $NAIVE_COLLECTOR_OUTPUT, else /dev/null.
 *
 * Thread safety: everything under g_mutex. */
#define _GNU_SOURCE 1
#define INTEL_NO_MACRO_BODY

#include <ittnotify.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NAIVE_EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static FILE *g_out;

/* REQUIRES: g_mutex held. */
static FILE *OutLocked(void) {
  if (g_out == NULL) {
    const char *path = getenv("NAIVE_COLLECTOR_OUTPUT");
    g_out = fopen(path != NULL ? path : "/dev/null", "w");
    if (g_out == NULL) g_out = fopen("/dev/null", "w");
  }
  return g_out;
}

static unsigned long long NowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

NAIVE_EXPORT const char *ITTAPI __itt_api_version(void) { return "naive 1.0"; }

NAIVE_EXPORT __itt_domain *ITTAPI __itt_domain_create(const char *name) {
  __itt_domain *d = (__itt_domain *)calloc(1, sizeof(*d));
  if (d == NULL) return NULL;
  d->flags = 1;
  d->nameA = strdup(name != NULL ? name : "");
  pthread_mutex_lock(&g_mutex);
  fprintf(OutLocked(), "%llu domain_create %s\n", NowNs(), d->nameA);
  pthread_mutex_unlock(&g_mutex);
  return d;
}

NAIVE_EXPORT __itt_string_handle *ITTAPI __itt_string_handle_create(const char *name) {
  __itt_string_handle *h = (__itt_string_handle *)calloc(1, sizeof(*h));
  if (h == NULL) return NULL;
  h->strA = strdup(name != NULL ? name : "");
  pthread_mutex_lock(&g_mutex);
  fprintf(OutLocked(), "%llu string_handle_create %s\n", NowNs(), h->strA);
  pthread_mutex_unlock(&g_mutex);
  return h;
}

NAIVE_EXPORT void ITTAPI __itt_task_begin(const __itt_domain *domain, __itt_id taskid,
                                          __itt_id parentid, __itt_string_handle *name) {
  pthread_mutex_lock(&g_mutex);
  fprintf(OutLocked(), "%llu task_begin domain=%s id=%llu parent=%llu name=%s\n", NowNs(),
          domain->nameA, taskid.d1, parentid.d1, name != NULL ? name->strA : "");
  pthread_mutex_unlock(&g_mutex);
}

NAIVE_EXPORT void ITTAPI __itt_task_end(const __itt_domain *domain) {
  pthread_mutex_lock(&g_mutex);
  fprintf(OutLocked(), "%llu task_end domain=%s\n", NowNs(), domain->nameA);
  pthread_mutex_unlock(&g_mutex);
}
