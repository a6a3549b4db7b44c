/* A program that leaks on purpose, through the ITT heap hooks, for the
 * `itt-dump leaks` tests. Under the collector it allocates with two heap
 * functions inside named tasks:
 *   - in task "load":   10 blocks of 100 bytes with "pool_alloc"; frees 7
 *   - in task "parse":  one block of 4000 bytes with "big_alloc", then
 *                       reallocates it to 6000 bytes (still leaked)
 *   - outside any task: one block of 33 bytes with "pool_alloc" (leaked)
 *   - a free of an address never allocated (counted, not fatal)
 * so 5 blocks and 3*100 + 6000 + 33 = 6333 bytes leak. The blocks are real
 * malloc'd memory, freed for real before exit (only the trace leaks). */
#include <ittnotify.h>
#include <stdint.h>
#include <stdlib.h>

static void* hooked_alloc(__itt_heap_function f, size_t size) {
  __itt_heap_allocate_begin(f, size, 0);
  void* p = malloc(size);
  __itt_heap_allocate_end(f, &p, size, 0);
  return p;
}

static void hooked_free(__itt_heap_function f, void* p) {
  __itt_heap_free_begin(f, p);
  __itt_heap_free_end(f, p);
}

int main(void) {
  __itt_domain* d = __itt_domain_create("leaky");
  __itt_heap_function pool = __itt_heap_function_create("pool_alloc", "leaky");
  __itt_heap_function big = __itt_heap_function_create("big_alloc", "leaky");
  void* blocks[10];

  __itt_task_begin(d, __itt_null, __itt_null, __itt_string_handle_create("load"));
  for (int i = 0; i < 10; ++i) blocks[i] = hooked_alloc(pool, 100);
  for (int i = 0; i < 7; ++i) hooked_free(pool, blocks[i]);
  __itt_task_end(d);

  __itt_task_begin(d, __itt_null, __itt_null, __itt_string_handle_create("parse"));
  void* b = hooked_alloc(big, 4000);
  __itt_heap_reallocate_begin(big, b, 6000, 0);
  /* The hook names the old address after the move: a number the compiler
   * does not trace back to the freed pointer. */
  volatile uintptr_t old = (uintptr_t)b;
  void* nb = realloc(b, 6000);
  __itt_heap_reallocate_end(big, (void*)old, &nb, 6000, 0);
  __itt_task_end(d);

  void* outside = hooked_alloc(pool, 33);
  hooked_free(pool, (void*)0x10); /* never allocated */

  for (int i = 7; i < 10; ++i) free(blocks[i]);
  free(nb);
  free(outside);
  return 0;
}
