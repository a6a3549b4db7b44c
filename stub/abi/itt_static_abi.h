/* ittcollector: the contract between an ITT static part and a collector.
 *
 * Not for applications. A static part (ours in stub/, Intel's
 * libittnotify.a, or one of the copies embedded in oneTBB, LLVM's OpenMP
 * runtime and others) owns one `__itt_global` and, on the first ITT call,
 * dlopen()s the library named by INTEL_LIBITTNOTIFY64. If that library
 * exports `__itt_api_init`, the static part calls it once with its
 * `__itt_global` and the groups it wants; the collector then fills the
 * function pointers listed in `api_list_ptr` and takes over the objects the
 * static part created before the load (domain_list, string_list,
 * counter_list, histogram_list, counter_metadata_list). Otherwise the static
 * part looks up each `__itt_<name>` itself (see `__itt_api_info`).
 *
 * Layouts, names and values here are those of Intel's ittapi
 * (src/ittnotify/ittnotify_config.h, ittnotify_types.h) and must never
 * change: collectors and static parts from different builds meet through
 * them.
 *
 * --- Which fields a given static part has -----------------------------------
 * `__itt_global` only ever grew at its end. A collector handed an
 * `__itt_global*` from an unknown static part must read only the fields that
 * part has. What ittapi's history and older static parts show (LP64 offsets,
 * pthread_mutex_t of 40 bytes):
 *
 *   field                  offset  present since
 *   magic .. state            0    every 3.x static part (build 20111111 ends
 *                                  with `state` at 160; sizeof 168)
 *   counter_list            168    build 20151119 and later
 *   ipt_collect_events      176    build 20180723 (ittapi 3.15 .. 3.18.x)
 *   histogram_list          184    ittapi 3.20.1 (July 2021) - NOTE: still
 *                                  build 20180723
 *   counter_metadata_list   192    ittapi 3.24.2, build 20230630, and later
 *   (sizeof(__itt_global) == 200 today)
 *
 * version_major/version_minor are 3/0 in all of them, so they tell nothing.
 * version_build separates counter_list (>= 20151119), ipt_collect_events
 * (>= 20180723) and counter_metadata_list (>= 20230630). It does NOT
 * separate histogram_list: ittapi 3.18.x and 3.20.1 .. 3.24.0 all say
 * 20180723 (3.24.1 says 20210712, still without counter_metadata_list). The reliable test
 * for histogram_list is the function table: a static part has the field
 * exactly when `api_list_ptr` has an entry named "__itt_histogram_create"
 * (both were added by the same ittapi commit). Likewise
 * "__itt_bind_context_metadata_to_counter" and "__itt_counter_create_v3"
 * arrived together with counter_metadata_list. Use
 * ITTC_ABI_HAS_HISTOGRAM_LIST()/ITTC_ABI_HAS_COUNTER_METADATA_LIST() below.
 *
 * Static parts found on a Debian 12 system (by the magic in their data):
 *   libtbb.so.12 (oneTBB 2021.8): ittapi 3.18.6, build 20180723,
 *       no histogram_list, no counter_metadata_list.
 *   libomp.so.5 (LLVM 14):       ittapi 3.20.1, build 20180723,
 *       histogram_list, no counter_metadata_list. Its pointer variables are
 *       named __kmp_itt_<name>_ptr__3_0, but api_list names are still
 *       "__itt_<name>".
 *
 * Observed with our recording test collector (tests/stub) on Debian 12:
 *   a oneTBB program calls __itt_api_init twice, from two static parts with
 *   two different __itt_global: libtbb.so.12 and libtbbmalloc.so.2 (which
 *   libtbb dlopens), each with init_groups = 0x1414 (thread | sync | stitch |
 *   structure), not __itt_group_all. An OpenMP program (libomp.so.5) calls it
 *   once with __itt_group_all and then goes through mark_create / mark /
 *   thr_name_set / suppress_mark_range. A collector must therefore accept
 *   several __itt_api_init calls, one per static part, and bind each table.
 *
 * Other differences in old static parts:
 *   - Before 3.22.3 (November 2021) `state` held an enum with 0 = normal,
 *     1 = paused; today it holds __itt_collection_state. Do not interpret it
 *     unless version_build >= 20210712 or the part has histogram_list and
 *     the table has "__itt_histogram_create" (then still ambiguous; treat it
 *     as opaque).
 *   - Build 20111111 static parts created domains with flags = 0 (disabled
 *     until a collector enables them); later ones create them enabled.
 *   - `__itt_api_info_20101001` (no null_func) is the table entry of static
 *     parts whose version_build is 20101001 or older, judging by its name;
 *     no such part was available to check.
 *   - Each domain / string handle on the lists carries only nameA/strA on
 *     Linux; nameW/strW are NULL.
 *
 * --- Threads -----------------------------------------------------------------
 * The static part calls `__itt_api_init` exactly once, holding `mutex`
 * (recursive; the collector may lock it again from inside __itt_api_init,
 * as Intel's reference collector does). The lists are stable while `mutex`
 * is held; after __itt_api_init returns, creators reach the collector, so
 * the static part appends nothing more. Function pointers the collector
 * stores should be stored with release order (see ITTNOTIFY_LOAD_ in
 * ittnotify.h); older static parts read them with plain loads.
 */
#ifndef STUB_ABI_ITT_STATIC_ABI_H_
#define STUB_ABI_ITT_STATIC_ABI_H_

#include <ittnotify.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The first 8 bytes of every __itt_global. */
#define ITT_MAGIC \
  { 0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30 }

/* Version triple our static part reports (major/minor are fixed at 3/0 in
 * every ittapi release; see the table above for what build means). */
#define ITTC_ABI_VERSION_MAJOR 3
#define ITTC_ABI_VERSION_MINOR 0
#define ITTC_ABI_VERSION_BUILD 20250807

/* version_build markers of the layouts listed above. */
#define ITTC_ABI_BUILD_COUNTER_LIST 20151119
#define ITTC_ABI_BUILD_IPT_COLLECT_EVENTS 20180723
#define ITTC_ABI_BUILD_COUNTER_METADATA_LIST 20230630

/* API groups: which functions a collector wants bound (per-symbol lookup)
 * and, passed to __itt_api_init, which ones the static part asks for. */
typedef enum ___itt_group_id {
  __itt_group_none = 0,
  __itt_group_legacy = 1 << 0,
  __itt_group_control = 1 << 1,
  __itt_group_thread = 1 << 2,
  __itt_group_mark = 1 << 3,
  __itt_group_sync = 1 << 4,
  __itt_group_fsync = 1 << 5,
  __itt_group_jit = 1 << 6,
  __itt_group_model = 1 << 7,
  __itt_group_splitter_min = 1 << 7,
  __itt_group_counter = 1 << 8,
  __itt_group_frame = 1 << 9,
  __itt_group_stitch = 1 << 10,
  __itt_group_heap = 1 << 11,
  __itt_group_splitter_max = 1 << 12,
  __itt_group_structure = 1 << 12,
  __itt_group_suppress = 1 << 13,
  __itt_group_arrays = 1 << 14,
  __itt_group_module = 1 << 15,
  __itt_group_all = -1
} __itt_group_id;

typedef enum { __itt_thread_normal = 0, __itt_thread_ignored = 1 } __itt_thread_state;

#pragma pack(push, 8)

/* Group names accepted in INTEL_ITTNOTIFY_GROUPS. */
typedef struct ___itt_group_list {
  __itt_group_id id;
  const char *name;
} __itt_group_list;

typedef struct ___itt_thread_info {
  const char *nameA;
#if defined(UNICODE) || defined(_UNICODE)
  const wchar_t *nameW;
#else
  void *nameW;
#endif
  pthread_t tid;
  __itt_thread_state state;
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_thread_info *next;
} __itt_thread_info;

/* Table entry of static parts up to build 20101001 (see above). */
typedef struct ___itt_api_info_20101001 {
  const char *name;
  void **func_ptr;
  void *init_func;
  __itt_group_id group;
} __itt_api_info_20101001;

/* One row of the function table, terminated by a row with name == NULL.
 *   name       symbol the collector exports, "__itt_<name>"
 *   func_ptr   address of the pointer variable the call macros read
 *   init_func  the static part's first-call stub (the pointer's initial value)
 *   null_func  what the pointer must hold when the collector lacks the
 *              function: NULL, or for functions the static part implements
 *              itself (domain_create, string_handle_create, the counter and
 *              histogram creators, thread naming, pause/resume, ...) that
 *              implementation
 *   group      the function's groups */
typedef struct ___itt_api_info {
  const char *name;
  void **func_ptr;
  void *init_func;
  void *null_func;
  __itt_group_id group;
} __itt_api_info;

/* A counter created before the collector loaded; __itt_counter handles
 * returned then point to one of these. */
typedef struct __itt_counter_info {
  const char *nameA;
#if defined(UNICODE) || defined(_UNICODE)
  const wchar_t *nameW;
#else
  void *nameW;
#endif
  const char *domainA;
#if defined(UNICODE) || defined(_UNICODE)
  const wchar_t *domainW;
#else
  void *domainW;
#endif
  int type; /* __itt_metadata_type */
  long index;
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct __itt_counter_info *next;
} __itt_counter_info_t;

/* The static part's descriptor. `volatile long` fields are accessed with
 * GCC __atomic builtins by our static part; the type is part of the ABI. */
typedef struct ___itt_global {
  unsigned char magic[8];
  unsigned long version_major;
  unsigned long version_minor;
  unsigned long version_build;
  volatile long api_initialized;   /* 1 once the load attempt finished */
  volatile long mutex_initialized; /* `mutex` usable */
  volatile long atomic_counter;    /* guards lazy init of `mutex` */
  pthread_mutex_t mutex;           /* recursive */
  void *lib;                       /* dlopen() handle of the collector */
  void *error_handler;             /* __itt_error_handler_t* */
  const char **dll_path_ptr;
  __itt_api_info *api_list_ptr;
  struct ___itt_global *next;
  __itt_thread_info *thread_list;
  struct ___itt_domain *domain_list;
  struct ___itt_string_handle *string_list;
  __itt_collection_state state;
  /* --- appended later; see the version table at the top --- */
  __itt_counter_info_t *counter_list;
  unsigned int ipt_collect_events;
  struct ___itt_histogram *histogram_list;
  struct ___itt_counter_metadata *counter_metadata_list;
} __itt_global;

#pragma pack(pop)

/* What a collector exports (Intel's names). __itt_api_fini is called by
 * __itt_fini_ittlib(), if exported. */
typedef void(__itt_api_init_t)(__itt_global *, __itt_group_id);
typedef void(__itt_api_fini_t)(__itt_global *);

/* Exported by every static part (ours included). */
int __itt_init_ittlib(const char *lib_name, __itt_group_id init_groups);
void __itt_fini_ittlib(void);
extern __itt_global __itt__ittapi_global;

/* Byte sizes up to and including each appended field (LP64). A collector
 * that copies an __itt_global must copy no more than the part has. */
#define ITTC_ABI_SIZE_UP_TO_STATE (offsetof(__itt_global, state) + sizeof(__itt_collection_state))
#define ITTC_ABI_SIZE_UP_TO_COUNTER_LIST (offsetof(__itt_global, counter_list) + sizeof(void *))
#define ITTC_ABI_SIZE_UP_TO_IPT_COLLECT_EVENTS \
  (offsetof(__itt_global, ipt_collect_events) + sizeof(unsigned int))
#define ITTC_ABI_SIZE_UP_TO_HISTOGRAM_LIST (offsetof(__itt_global, histogram_list) + sizeof(void *))

/* True when the table of `g` has an entry `name`. REQUIRES: g->api_list_ptr
 * is a table of __itt_api_info (version_build > 20101001). */
static inline int ittc_abi_table_has(const __itt_global *g, const char *name) {
  const __itt_api_info *row = g->api_list_ptr;
  if (row == NULL) return 0;
  for (; row->name != NULL; ++row) {
    if (strcmp(row->name, name) == 0) return 1;
  }
  return 0;
}

#define ITTC_ABI_HAS_COUNTER_LIST(g) ((g)->version_build >= ITTC_ABI_BUILD_COUNTER_LIST)
#define ITTC_ABI_HAS_IPT_COLLECT_EVENTS(g) ((g)->version_build >= ITTC_ABI_BUILD_IPT_COLLECT_EVENTS)
#define ITTC_ABI_HAS_HISTOGRAM_LIST(g) \
  (ITTC_ABI_HAS_IPT_COLLECT_EVENTS(g) && ittc_abi_table_has((g), "__itt_histogram_create"))
#define ITTC_ABI_HAS_COUNTER_METADATA_LIST(g)                    \
  ((g)->version_build >= ITTC_ABI_BUILD_COUNTER_METADATA_LIST && \
   ittc_abi_table_has((g), "__itt_bind_context_metadata_to_counter"))

#ifdef __cplusplus
}
#endif

#endif /* STUB_ABI_ITT_STATIC_ABI_H_ */
