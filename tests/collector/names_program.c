/* Threads creating overlapping sets of new names at once: thread i creates
 * the string handles "name-K" and the domains "domain-K" for K from
 * i * N / 2 to i * N / 2 + N - 1 (each name is also some neighbour's),
 * all threads released together, then creates each of its names again
 * while the others still insert theirs, and records one task per name.
 * Every thread must get one handle per name: the same object on every
 * creation and in every thread, holding the name's text.
 * Prints "mismatches M" (handles that broke this) and exits 0 when M is 0.
 * usage: names_program <threads> <names per thread> */
#define _GNU_SOURCE
#include <ittnotify.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_names_per_thread;
static pthread_barrier_t g_start;
/* By name number: the first handle any thread got for it (CAS). */
static __itt_string_handle** g_handles;
static __itt_domain** g_domains;
static long g_mismatches;

static void NameOf(char* buf, size_t size, const char* prefix, int k) {
  snprintf(buf, size, "%s-%d", prefix, k);
}

/* Publishes `got` as the handle of name k, or checks it against the one
 * published. */
static void Check(void** slot, void* got, const char* text, const char* want) {
  void* expected = NULL;
  if (got == NULL || strcmp(text, want) != 0 ||
      (!__atomic_compare_exchange_n(slot, &expected, got, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
       expected != got)) {
    __atomic_fetch_add(&g_mismatches, 1, __ATOMIC_RELAXED);
  }
}

static void* Thread(void* arg) {
  const int first = (int)(long)arg * g_names_per_thread / 2;
  const int end = first + g_names_per_thread;
  char name[32];
  char domain[32];
  pthread_barrier_wait(&g_start);
  for (int round = 0; round < 2; ++round) {
    for (int k = first; k < end; ++k) {
      NameOf(name, sizeof(name), "name", k);
      NameOf(domain, sizeof(domain), "domain", k);
      __itt_string_handle* h = __itt_string_handle_create(name);
      __itt_domain* d = __itt_domain_create(domain);
      Check((void**)&g_handles[k], h, h != NULL ? h->strA : "", name);
      Check((void**)&g_domains[k], d, d != NULL ? d->nameA : "", domain);
      if (round == 1 && h != NULL && d != NULL) {
        __itt_task_begin(d, __itt_null, __itt_null, h);
        __itt_task_end(d);
      }
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int threads = atoi(argv[1]);
  g_names_per_thread = atoi(argv[2]);
  if (threads < 1 || g_names_per_thread < 2) return 2;
  const int names = (threads + 1) * g_names_per_thread / 2;
  g_handles = calloc((size_t)names, sizeof(*g_handles));
  g_domains = calloc((size_t)names, sizeof(*g_domains));
  pthread_t* ids = calloc((size_t)threads, sizeof(*ids));
  if (g_handles == NULL || g_domains == NULL || ids == NULL) return 2;

  /* The first call that is not a creation loads the collector: the names
   * below are the collector's, not the static part's list. */
  __itt_domain* main_domain = __itt_domain_create("names.main");
  __itt_task_begin(main_domain, __itt_null, __itt_null, NULL);
  __itt_task_end(main_domain);

  pthread_barrier_init(&g_start, NULL, (unsigned)threads);
  for (int i = 0; i < threads; ++i) {
    if (pthread_create(&ids[i], NULL, Thread, (void*)(long)i) != 0) return 2;
  }
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  free(ids);
  printf("mismatches %ld\n", g_mismatches);
  return g_mismatches == 0 ? 0 : 1;
}
