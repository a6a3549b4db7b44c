/* ittcollector: the ITT static part (libittnotify.a).
 *
 * Exports one pointer variable per API function (`__itt_<name>_ptr__3_0`),
 * the descriptor `__itt__ittapi_global`, and the few functions the public
 * header declares as real functions. Every pointer starts at a first-call
 * stub defined here. The first stub that runs loads the collector named by
 * INTEL_LIBITTNOTIFY64 (INTEL_LIBITTNOTIFY32 on 32-bit) and binds the
 * pointers the way Intel's static part does, so that collectors written for
 * Intel's (VTune's, Intel's reference collector, ours) work unchanged:
 *
 *  1. The library exports `__itt_api_init`: call it once with our
 *     `__itt_global` and the groups asked for; it fills the pointers.
 *  2. Otherwise, if it exports `__itt_api_version`: look up `__itt_<name>`
 *     for every function whose groups intersect the groups selected by
 *     INTEL_ITTNOTIFY_GROUPS (none when unset, as in Intel's).
 *  3. Otherwise: the same, limited to the legacy group.
 * A function the collector lacks gets its table's null function: NULL (the
 * call macros then skip it) or, for the functions the static part implements
 * itself, that implementation.
 *
 * Before the collector is loaded, domains, string handles, counters,
 * histograms and counter metadata are created on the lists of
 * `__itt_global` (only when INTEL_LIBITTNOTIFY64 is set, as in Intel's); the
 * collector takes them over in `__itt_api_init`. Without the variable, or
 * when loading fails, every call stays a test of a NULL pointer.
 *
 * Differences from Intel's static part, all in the direction of safety:
 *  - When the collector fails to load, objects created before stay allocated
 *    (Intel's frees them while the program still holds pointers to them);
 *    their domains are disabled (flags = 0) so calls with them are skipped.
 *  - Pointer variables and `api_initialized` are written with release
 *    stores and read with acquire loads (Intel's: plain accesses).
 *  - `mutex` is a statically initialised recursive mutex, so
 *    `mutex_initialized` is 1 from the start; __itt_release_resources()
 *    frees the lists but keeps the mutex usable.
 *  - The first formatted_metadata_add call, if it is the one that loads the
 *    collector, is forwarded with all its variadic arguments (Intel's drops
 *    them): to ours as a va_list, to another collector re-issued (GCC only,
 *    16 stack values at most; see "Variadic stubs").
 *
 * Thread safety:
 *  - `mutex` (recursive) serialises loading, the object lists, `state` and
 *    the creators' slow paths. `__itt_api_init` runs with it held.
 *  - `api_initialized` is written once per load (release, under `mutex`)
 *    and read without the lock (acquire) by every first-call stub; the
 *    acquire pairs with that release, so a thread that sees 1 also sees the
 *    bound pointers and `state`.
 *  - Pointer variables are written only while loading (release, under
 *    `mutex`) or by the collector inside `__itt_api_init`, and read by the
 *    call macros and stubs with acquire loads.
 */
#define _GNU_SOURCE 1
#define INTEL_NO_MACRO_BODY
#define INTEL_ITTNOTIFY_API_PRIVATE

#include <dlfcn.h>
#include <ittnotify.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stub/abi/itt_static_abi.h"
#include "stub/src/itt_legacy_types.h"

#if defined(__i386__) || defined(_M_IX86) || defined(__arm__)
#define ITTC_LIB_VAR "INTEL_LIBITTNOTIFY32"
#else
#define ITTC_LIB_VAR "INTEL_LIBITTNOTIFY64"
#endif
#define ITTC_GROUPS_VAR "INTEL_ITTNOTIFY_GROUPS"
/* Loaded through the library search path when only the groups variable is
 * set, as Intel's static part does. */
#define ITTC_DEFAULT_LIB "libittnotify.so"
/* Longest environment value accepted, as in Intel's. */
#define ITTC_MAX_ENV_VALUE 4086

/* ---- Pointer variables and first-call stubs (declarations) -------------- */

#define ITTC_API(rk, ret, name, params, args, dll, groups, kind) \
  typedef ret(ITTAPI *ApiFn_##name) params;                      \
  static ret ITTAPI FirstCall_##name params;                     \
  ApiFn_##name ITTNOTIFY_NAME(name) = FirstCall_##name;
#include "stub/src/itt_api_list.inc"
#undef ITTC_API

/* ---- The function table -------------------------------------------------- */

#define ITTC_NULL_FUNC_ITTC_KIND_GENERIC(name) NULL
#define ITTC_NULL_FUNC_ITTC_KIND_STATIC(name) (void *)FirstCall_##name
#define ITTC_NULL_FUNC_ITTC_KIND_CUSTOM(name) (void *)FirstCall_##name

#define ITTC_API(rk, ret, name, params, args, dll, groups, kind)                    \
  {"__itt_" #dll, (void **)(void *)&ITTNOTIFY_NAME(name), (void *)FirstCall_##name, \
   ITTC_NULL_FUNC_##kind(name), (__itt_group_id)(groups)},
static __itt_api_info api_table[] = {
#include "stub/src/itt_api_list.inc"
    {NULL, NULL, NULL, NULL, __itt_group_none}};
#undef ITTC_API

/* ---- The descriptor --------------------------------------------------------- */

__itt_global __itt__ittapi_global = {
    ITT_MAGIC,
    ITTC_ABI_VERSION_MAJOR,
    ITTC_ABI_VERSION_MINOR,
    ITTC_ABI_VERSION_BUILD,
    0, /* api_initialized */
    1, /* mutex_initialized: the mutex below is ready from the start */
    1, /* atomic_counter: Intel's "someone initialised the mutex" mark */
    PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
    NULL, /* lib */
    NULL, /* error_handler */
    NULL, /* dll_path_ptr */
    api_table,
    NULL, /* next */
    NULL, /* thread_list */
    NULL, /* domain_list */
    NULL, /* string_list */
    __itt_collection_uninitialized,
    NULL, /* counter_list */
    0,    /* ipt_collect_events */
    NULL, /* histogram_list */
    NULL, /* counter_metadata_list */
};

/* The descriptor, by a short name (defined after every include). */
#define G __itt__ittapi_global

/* Returned by domain_create once loading is over and no collector provides
 * domains: disabled, so every call with it is skipped by the call macros. */
static __itt_domain disabled_domain;

/* Set while this thread runs the load (guarded by G.mutex). A collector that
 * makes ITT calls from inside __itt_api_init must not start a second load. */
static int load_in_progress;

/* Environment values, copied once under G.mutex. */
static char lib_name_buf[ITTC_MAX_ENV_VALUE + 1];
static const char *lib_name_env;
static int lib_name_read;

static void Lock(void) { pthread_mutex_lock(&G.mutex); }
static void Unlock(void) { pthread_mutex_unlock(&G.mutex); }

static int IsInitialized(void) {
  return __atomic_load_n(&G.api_initialized, __ATOMIC_ACQUIRE) != 0;
}

static void ReportError(__itt_error_code code, ...) {
  __itt_error_handler_t *handler =
      (__itt_error_handler_t *)(uintptr_t)__atomic_load_n(&G.error_handler, __ATOMIC_ACQUIRE);
  if (handler == NULL) return;
  va_list args;
  va_start(args, code);
  handler(code, args);
  va_end(args);
}

/* Copies the value of `name` into `buf` (ITTC_MAX_ENV_VALUE + 1 bytes).
 * Returns buf, or NULL when unset or too long (reported). */
static const char *ReadEnv(const char *name, char *buf) {
  const char *value = getenv(name);
  if (value == NULL) return NULL;
  size_t len = strlen(value);
  if (len > ITTC_MAX_ENV_VALUE) {
    ReportError(__itt_error_env_too_long, name, len, (size_t)ITTC_MAX_ENV_VALUE);
    return NULL;
  }
  memcpy(buf, value, len + 1);
  return buf;
}

/* REQUIRES: G.mutex held. */
static const char *LibNameLocked(void) {
  if (!lib_name_read) {
    lib_name_env = ReadEnv(ITTC_LIB_VAR, lib_name_buf);
    lib_name_read = 1;
  }
  return lib_name_env;
}

/* The library variable as it is at the load: a program may set it after a
 * creator ran (a library's constructor made a domain) and before its first
 * other call, and Intel's static part reads it again there too. Read once
 * more only if it changed, so that a value too long is reported once.
 * REQUIRES: G.mutex held. */
static const char *LibNameAtLoadLocked(void) {
  const char *now = getenv(ITTC_LIB_VAR);
  int same;
  if (now == NULL) {
    same = lib_name_env == NULL;
  } else if (lib_name_env == NULL) {
    same = strlen(now) > ITTC_MAX_ENV_VALUE; /* too long: reported already */
  } else {
    same = strcmp(now, lib_name_env) == 0;
  }
  if (lib_name_read && same) return lib_name_env;
  lib_name_read = 0;
  return LibNameLocked();
}

/* Whether objects created now should be kept for a collector: the library
 * variable is set and loading has not failed. REQUIRES: G.mutex held. */
static int CollectorExpectedLocked(void) {
  if (G.state == __itt_collection_uninitialized) {
    G.state = LibNameLocked() != NULL ? __itt_collection_collector_exists
                                      : __itt_collection_collector_absent;
  }
  return G.state == __itt_collection_collector_exists ||
         G.state == __itt_collection_init_successful;
}

static const __itt_group_list group_names[] = {{__itt_group_all, "all"},
                                               {__itt_group_control, "control"},
                                               {__itt_group_thread, "thread"},
                                               {__itt_group_mark, "mark"},
                                               {__itt_group_sync, "sync"},
                                               {__itt_group_fsync, "fsync"},
                                               {__itt_group_jit, "jit"},
                                               {__itt_group_model, "model"},
                                               {__itt_group_counter, "counter"},
                                               {__itt_group_frame, "frame"},
                                               {__itt_group_stitch, "stitch"},
                                               {__itt_group_heap, "heap"},
                                               {__itt_group_structure, "structure"},
                                               {__itt_group_suppress, "suppress"},
                                               {__itt_group_arrays, "arrays"},
                                               {__itt_group_module, "module"},
                                               {__itt_group_none, NULL}};

/* Groups for per-symbol binding, from INTEL_ITTNOTIFY_GROUPS (names
 * separated by ',', ';' or ' '), else from the OpenMP runtime's alias
 * variables. As in Intel's, once the variable is set the groups strictly
 * between __itt_group_splitter_min and __itt_group_splitter_max (counter,
 * frame, stitch, heap) are always included. REQUIRES: G.mutex held. */
static __itt_group_id SelectedGroupsLocked(void) {
  static char buf[ITTC_MAX_ENV_VALUE + 1];
  const char *list = ReadEnv(ITTC_GROUPS_VAR, buf);
  unsigned int groups = __itt_group_none;
  if (list != NULL) {
    const char *p = list;
    while (*p != '\0') {
      size_t skip = strspn(p, ",; ");
      p += skip;
      size_t len = strcspn(p, ",; ");
      if (len == 0) break;
      int known = 0;
      for (const __itt_group_list *g = group_names; g->name != NULL; ++g) {
        if (strlen(g->name) == len && strncmp(g->name, p, len) == 0) {
          groups |= (unsigned int)g->id;
          known = 1;
          break;
        }
      }
      if (!known) {
        char unknown[64];
        size_t n = len < sizeof(unknown) - 1 ? len : sizeof(unknown) - 1;
        memcpy(unknown, p, n);
        unknown[n] = '\0';
        ReportError(__itt_error_unknown_group, unknown);
      }
      p += len;
    }
    for (const __itt_group_list *g = group_names; g->name != NULL; ++g) {
      if (g->id != __itt_group_all && g->id > __itt_group_splitter_min &&
          g->id < __itt_group_splitter_max) {
        groups |= (unsigned int)g->id;
      }
    }
    return (__itt_group_id)groups;
  }
  if (getenv("KMP_FOR_TPROFILE") != NULL) {
    return (__itt_group_id)(__itt_group_control | __itt_group_thread | __itt_group_sync |
                            __itt_group_mark);
  }
  if (getenv("KMP_FOR_TCHECK") != NULL) {
    return (__itt_group_id)(__itt_group_control | __itt_group_thread | __itt_group_sync |
                            __itt_group_fsync | __itt_group_mark | __itt_group_suppress);
  }
  return __itt_group_none;
}

static void StorePointer(void **slot, void *value) {
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
}

/* Every pointer to its null function. REQUIRES: G.mutex held. */
static void NullifyAllLocked(void) {
  for (const __itt_api_info *row = G.api_list_ptr; row->name != NULL; ++row) {
    StorePointer(row->func_ptr, row->null_func);
  }
}

static void *PointerOf(const char *name) {
  for (const __itt_api_info *row = G.api_list_ptr; row->name != NULL; ++row) {
    if (strcmp(row->name, name) == 0) {
      return __atomic_load_n(row->func_ptr, __ATOMIC_ACQUIRE);
    }
  }
  return NULL;
}

/* Per-symbol binding (protocols 2 and 3 above). REQUIRES: G.mutex held. */
static void BindBySymbolLocked(const char *lib_name, __itt_group_id groups,
                               __itt_group_id init_groups) {
  for (const __itt_api_info *row = G.api_list_ptr; row->name != NULL; ++row) {
    void *fn = NULL;
    if ((unsigned int)row->group & (unsigned int)groups & (unsigned int)init_groups) {
      fn = dlsym(G.lib, row->name);
      if (fn == NULL) {
        ReportError(__itt_error_no_symbol, lib_name, row->name);
      }
    }
    StorePointer(row->func_ptr, fn != NULL ? fn : row->null_func);
  }
  if (groups == __itt_group_legacy) {
    /* A legacy collector implements the old names of these functions. */
    StorePointer((void **)(void *)&ITTNOTIFY_NAME(thread_ignore), PointerOf("__itt_thr_ignore"));
    StorePointer((void **)(void *)&ITTNOTIFY_NAME(sync_create), PointerOf("__itt_sync_set_name"));
    StorePointer((void **)(void *)&ITTNOTIFY_NAME(sync_prepare),
                 PointerOf("__itt_notify_sync_prepare"));
    StorePointer((void **)(void *)&ITTNOTIFY_NAME(sync_cancel),
                 PointerOf("__itt_notify_sync_cancel"));
    StorePointer((void **)(void *)&ITTNOTIFY_NAME(sync_acquired),
                 PointerOf("__itt_notify_sync_acquired"));
    StorePointer((void **)(void *)&ITTNOTIFY_NAME(sync_releasing),
                 PointerOf("__itt_notify_sync_releasing"));
  }
}

/* After a failed load the objects made for the collector stay allocated
 * (the program holds pointers to them) but their domains are disabled.
 * REQUIRES: G.mutex held. */
static void DisableListedDomainsLocked(void) {
  for (__itt_domain *d = G.domain_list; d != NULL; d = d->next) {
    /* Other threads read it (ITTNOTIFY_DOMAIN_ENABLED_) without the lock. */
    __atomic_store_n(&d->flags, 0, __ATOMIC_RELAXED);
  }
}

/* The load. REQUIRES: G.mutex held, !G.api_initialized. */
static void LoadLocked(const char *lib_name, __itt_group_id init_groups) {
  load_in_progress = 1;
  if (lib_name == NULL) lib_name = LibNameAtLoadLocked();
  __itt_group_id groups = SelectedGroupsLocked();
  if (lib_name == NULL && groups == __itt_group_none) {
    G.state = __itt_collection_collector_absent;
    NullifyAllLocked();
  } else {
    const char *path = lib_name != NULL ? lib_name : ITTC_DEFAULT_LIB;
    G.lib = dlopen(path, RTLD_LAZY);
    if (G.lib == NULL) {
      G.state = __itt_collection_init_fail;
      DisableListedDomainsLocked();
      NullifyAllLocked();
      ReportError(__itt_error_no_module, path, dlerror());
    } else {
      G.state = __itt_collection_init_successful;
      __itt_api_init_t *api_init = (__itt_api_init_t *)(uintptr_t)dlsym(G.lib, "__itt_api_init");
      if (api_init != NULL) {
        api_init(&G, init_groups);
      } else {
        if (dlsym(G.lib, "__itt_api_version") == NULL) {
          groups = __itt_group_legacy;
        }
        BindBySymbolLocked(path, groups, init_groups);
      }
    }
  }
  load_in_progress = 0;
  __atomic_store_n(&G.api_initialized, 1, __ATOMIC_RELEASE);
}

/* Loads the collector unless that already happened (or is happening on this
 * thread). Any thread; concurrent callers wait on G.mutex. After the load,
 * costs one acquire load. */
static void EnsureLoaded(void) {
  if (IsInitialized()) return;
  Lock();
  if (!IsInitialized() && !load_in_progress) {
    LoadLocked(NULL, __itt_group_all);
  }
  Unlock();
}

/* ---- Generated first-call stubs ----------------------------------------- */

#define ITTC_CURRENT_(name) __atomic_load_n(&ITTNOTIFY_NAME(name), __ATOMIC_ACQUIRE)

#define ITTC_STUB_BODY_V(ret, name, args)      \
  EnsureLoaded();                              \
  ApiFn_##name ittc_fn_ = ITTC_CURRENT_(name); \
  if (ittc_fn_ != NULL && ittc_fn_ != FirstCall_##name) ittc_fn_ args;
#define ITTC_STUB_BODY_D(ret, name, args)                                     \
  EnsureLoaded();                                                             \
  ApiFn_##name ittc_fn_ = ITTC_CURRENT_(name);                                \
  if (ittc_fn_ != NULL && ittc_fn_ != FirstCall_##name) return ittc_fn_ args; \
  return (ret)0;

#define ITTC_STUB_ITTC_KIND_GENERIC(rk, ret, name, params, args) \
  static ret ITTAPI FirstCall_##name params { ITTC_STUB_BODY_##rk(ret, name, args) }
#define ITTC_STUB_ITTC_KIND_STATIC ITTC_STUB_ITTC_KIND_GENERIC
#define ITTC_STUB_ITTC_KIND_CUSTOM(rk, ret, name, params, args)

#define ITTC_API(rk, ret, name, params, args, dll, groups, kind) \
  ITTC_STUB_##kind(rk, ret, name, params, args)
#define ITTC_API_VA(rk, ret, name, params, args, dll, groups, kind)
#include "stub/src/itt_api_list.inc"
#undef ITTC_API
#undef ITTC_API_VA

/* ---- Variadic stubs ------------------------------------------------------ */

/* The load happens inside the call, so its variadic arguments must reach
 * the collector too. Ours takes them as a va_list (its
 * ittc_formatted_metadata_add_va and _overlapped_va), which passes any
 * number exactly. Another collector gets the call re-issued with this
 * frame's register and stack arguments (GCC's __builtin_apply): up to
 * ITTC_FORWARD_STACK_BYTES of stack arguments, 16 eight-byte values beyond
 * the registers (more would read past the caller's frame); without GCC, or
 * past that, the values past them are not the program's. */
#define ITTC_FORWARD_STACK_BYTES 128

typedef void (*FormattedVaFn)(const __itt_domain *, __itt_string_handle *, va_list);
typedef void (*FormattedOverlappedVaFn)(const __itt_domain *, __itt_id, __itt_string_handle *,
                                        va_list);

/* The loaded collector's symbol `name`, or NULL. */
static void *CollectorSymbol(const char *name) {
  Lock();
  void *lib = G.lib;
  Unlock();
  return lib != NULL ? dlsym(lib, name) : NULL;
}

static void ITTAPI FirstCall_formatted_metadata_add(const __itt_domain *domain,
                                                    __itt_string_handle *format, ...) {
#if defined(__GNUC__) && !defined(__clang__)
  void *saved_args = __builtin_apply_args();
#endif
  EnsureLoaded();
  ApiFn_formatted_metadata_add fn = ITTC_CURRENT_(formatted_metadata_add);
  if (fn == NULL || fn == FirstCall_formatted_metadata_add) return;
  FormattedVaFn va_fn = (FormattedVaFn)(uintptr_t)CollectorSymbol("ittc_formatted_metadata_add_va");
  if (va_fn != NULL) {
    va_list args;
    va_start(args, format);
    va_fn(domain, format, args);
    va_end(args);
    return;
  }
#if defined(__GNUC__) && !defined(__clang__)
  __builtin_apply((void (*)())fn, saved_args, ITTC_FORWARD_STACK_BYTES);
#endif
}

static void ITTAPI FirstCall_formatted_metadata_add_overlapped(const __itt_domain *domain,
                                                               __itt_id taskid,
                                                               __itt_string_handle *format, ...) {
#if defined(__GNUC__) && !defined(__clang__)
  void *saved_args = __builtin_apply_args();
#endif
  EnsureLoaded();
  ApiFn_formatted_metadata_add_overlapped fn = ITTC_CURRENT_(formatted_metadata_add_overlapped);
  if (fn == NULL || fn == FirstCall_formatted_metadata_add_overlapped) return;
  FormattedOverlappedVaFn va_fn = (FormattedOverlappedVaFn)(uintptr_t)CollectorSymbol(
      "ittc_formatted_metadata_add_overlapped_va");
  if (va_fn != NULL) {
    va_list args;
    va_start(args, format);
    va_fn(domain, taskid, format, args);
    va_end(args);
    return;
  }
#if defined(__GNUC__) && !defined(__clang__)
  __builtin_apply((void (*)())fn, saved_args, ITTC_FORWARD_STACK_BYTES);
#endif
}

/* ---- Creators: objects kept for the collector --------------------------- */

static char *CopyString(const char *s) { return s != NULL ? strdup(s) : NULL; }

static int SameString(const char *a, const char *b) {
  if (a == NULL || b == NULL) return a == b;
  return strcmp(a, b) == 0;
}

static __itt_domain *ITTAPI FirstCall_domain_create(const char *name) {
  if (name == NULL) return NULL;
  Lock();
  if (IsInitialized()) {
    ApiFn_domain_create fn = ITTC_CURRENT_(domain_create);
    Unlock();
    if (fn != NULL && fn != FirstCall_domain_create) return fn(name);
    return &disabled_domain;
  }
  __itt_domain *found = NULL;
  if (CollectorExpectedLocked()) {
    __itt_domain **tail = &G.domain_list;
    for (; *tail != NULL; tail = &(*tail)->next) {
      if (SameString((*tail)->nameA, name)) break;
    }
    found = *tail;
    if (found == NULL) {
      found = (__itt_domain *)calloc(1, sizeof(*found));
      if (found != NULL) {
        /* Enabled until the collector decides; no other thread sees the
         * object before Unlock() below publishes it. */
        found->flags = 1;
        found->nameA = CopyString(name);
        *tail = found;
      }
    }
  }
  Unlock();
  return found;
}

static __itt_string_handle *ITTAPI FirstCall_string_handle_create(const char *name) {
  if (name == NULL) return NULL;
  Lock();
  if (IsInitialized()) {
    ApiFn_string_handle_create fn = ITTC_CURRENT_(string_handle_create);
    Unlock();
    if (fn != NULL && fn != FirstCall_string_handle_create) return fn(name);
    return NULL;
  }
  __itt_string_handle *found = NULL;
  if (CollectorExpectedLocked()) {
    __itt_string_handle **tail = &G.string_list;
    for (; *tail != NULL; tail = &(*tail)->next) {
      if (SameString((*tail)->strA, name)) break;
    }
    found = *tail;
    if (found == NULL) {
      found = (__itt_string_handle *)calloc(1, sizeof(*found));
      if (found != NULL) {
        found->strA = CopyString(name);
        *tail = found;
      }
    }
  }
  Unlock();
  return found;
}

/* Finds or appends a counter on G.counter_list. REQUIRES: G.mutex held and
 * CollectorExpectedLocked(). */
static __itt_counter FindOrAddCounterLocked(const char *name, const char *domain,
                                            __itt_metadata_type type) {
  __itt_counter_info_t **tail = &G.counter_list;
  for (; *tail != NULL; tail = &(*tail)->next) {
    const __itt_counter_info_t *c = *tail;
    if (c->type == (int)type && SameString(c->nameA, name) && SameString(c->domainA, domain)) {
      break;
    }
  }
  if (*tail == NULL) {
    __itt_counter_info_t *c = (__itt_counter_info_t *)calloc(1, sizeof(*c));
    if (c != NULL) {
      c->nameA = CopyString(name);
      c->domainA = CopyString(domain);
      c->type = (int)type;
      *tail = c;
    }
  }
  return (__itt_counter)*tail;
}

static __itt_counter ITTAPI FirstCall_counter_create_typed(const char *name, const char *domain,
                                                           __itt_metadata_type type) {
  if (name == NULL) return NULL;
  Lock();
  if (IsInitialized()) {
    ApiFn_counter_create_typed fn = ITTC_CURRENT_(counter_create_typed);
    Unlock();
    if (fn != NULL && fn != FirstCall_counter_create_typed) {
      return fn(name, domain, type);
    }
    return NULL;
  }
  __itt_counter found = NULL;
  if (CollectorExpectedLocked()) {
    found = FindOrAddCounterLocked(name, domain, type);
  }
  Unlock();
  return found;
}

static __itt_counter ITTAPI FirstCall_counter_create(const char *name, const char *domain) {
  if (name == NULL) return NULL;
  Lock();
  if (IsInitialized()) {
    ApiFn_counter_create fn = ITTC_CURRENT_(counter_create);
    Unlock();
    if (fn != NULL && fn != FirstCall_counter_create) return fn(name, domain);
    return NULL;
  }
  __itt_counter found = NULL;
  if (CollectorExpectedLocked()) {
    found = FindOrAddCounterLocked(name, domain, __itt_metadata_u64);
  }
  Unlock();
  return found;
}

static __itt_counter ITTAPI FirstCall_counter_create_v3(const __itt_domain *domain,
                                                        const char *name,
                                                        __itt_metadata_type type) {
  if (domain == NULL || name == NULL) return NULL;
  Lock();
  if (IsInitialized()) {
    ApiFn_counter_create_v3 fn = ITTC_CURRENT_(counter_create_v3);
    Unlock();
    if (fn != NULL && fn != FirstCall_counter_create_v3) {
      return fn(domain, name, type);
    }
    return NULL;
  }
  __itt_counter found = NULL;
  if (CollectorExpectedLocked()) {
    found = FindOrAddCounterLocked(name, domain->nameA, type);
  }
  Unlock();
  return found;
}

static __itt_histogram *ITTAPI FirstCall_histogram_create(const __itt_domain *domain,
                                                          const char *name,
                                                          __itt_metadata_type x_type,
                                                          __itt_metadata_type y_type) {
  if (domain == NULL || name == NULL) return NULL;
  Lock();
  if (IsInitialized()) {
    ApiFn_histogram_create fn = ITTC_CURRENT_(histogram_create);
    Unlock();
    if (fn != NULL && fn != FirstCall_histogram_create) {
      return fn(domain, name, x_type, y_type);
    }
    return NULL;
  }
  __itt_histogram *found = NULL;
  if (CollectorExpectedLocked()) {
    __itt_histogram **tail = &G.histogram_list;
    for (; *tail != NULL; tail = &(*tail)->next) {
      if ((*tail)->domain == domain && SameString((*tail)->nameA, name)) break;
    }
    found = *tail;
    if (found == NULL) {
      found = (__itt_histogram *)calloc(1, sizeof(*found));
      if (found != NULL) {
        found->domain = domain;
        found->nameA = CopyString(name);
        found->x_type = x_type;
        found->y_type = y_type;
        *tail = found;
      }
    }
  }
  Unlock();
  return found;
}

static int IsStringContext(__itt_context_type type) {
  return type == __itt_context_nameA || type == __itt_context_deviceA ||
         type == __itt_context_unitsA || type == __itt_context_pci_addrA;
}

static int IsNumericContext(__itt_context_type type) {
  return type >= __itt_context_tid && type <= __itt_context_cpu_cycles_flag;
}

static void ITTAPI FirstCall_bind_context_metadata_to_counter(__itt_counter counter, size_t length,
                                                              __itt_context_metadata *metadata) {
  if (counter == NULL || length == 0 || metadata == NULL) return;
  Lock();
  if (IsInitialized()) {
    ApiFn_bind_context_metadata_to_counter fn = ITTC_CURRENT_(bind_context_metadata_to_counter);
    Unlock();
    if (fn != NULL && fn != FirstCall_bind_context_metadata_to_counter) {
      fn(counter, length, metadata);
    }
    return;
  }
  if (CollectorExpectedLocked()) {
    for (size_t i = 0; i < length; ++i) {
      __itt_context_type type = metadata[i].type;
      if (!IsStringContext(type) && !IsNumericContext(type)) continue;
      __itt_counter_metadata **tail = &G.counter_metadata_list;
      for (; *tail != NULL; tail = &(*tail)->next) {
        if ((*tail)->counter == counter && (*tail)->type == type) break;
      }
      if (*tail != NULL) continue; /* the first binding of a kind wins */
      __itt_counter_metadata *m = (__itt_counter_metadata *)calloc(1, sizeof(*m));
      if (m == NULL) break;
      m->counter = counter;
      m->type = type;
      if (IsStringContext(type)) {
        m->str_valueA = CopyString((const char *)metadata[i].value);
      } else if (metadata[i].value != NULL) {
        m->value = *(const unsigned long long *)metadata[i].value;
      }
      *tail = m;
    }
  }
  Unlock();
}

/* ---- Other hand-written stubs --------------------------------------------- */

/* Version of __itt_module_object the static part fills in. */
#define ITTC_MODULE_OBJECT_VERSION 1

static void ITTAPI FirstCall_module_load_with_sections(__itt_module_object *module_obj) {
  EnsureLoaded();
  ApiFn_module_load_with_sections fn = ITTC_CURRENT_(module_load_with_sections);
  if (fn != NULL && fn != FirstCall_module_load_with_sections && module_obj != NULL) {
    module_obj->version = ITTC_MODULE_OBJECT_VERSION;
    fn(module_obj);
  }
}

static void ITTAPI FirstCall_module_unload_with_sections(__itt_module_object *module_obj) {
  EnsureLoaded();
  ApiFn_module_unload_with_sections fn = ITTC_CURRENT_(module_unload_with_sections);
  if (fn != NULL && fn != FirstCall_module_unload_with_sections && module_obj != NULL) {
    module_obj->version = ITTC_MODULE_OBJECT_VERSION;
    fn(module_obj);
  }
}

/* Attaching a collector to a running process is an Android-only notion in
 * Intel's static part; on Linux there is nothing to do. */
static void ITTAPI FirstCall_enable_attach(void) {}

/* The legacy thread calls (Intel's legacy/ittnotify.h): a collector that
 * has only the modern functions gets those, as from Intel's static part. */
static int ITTAPI FirstCall_thr_name_set(const char *name, int namelen) {
  EnsureLoaded();
  ApiFn_thr_name_set fn = ITTC_CURRENT_(thr_name_set);
  if (fn != NULL && fn != FirstCall_thr_name_set) return fn(name, namelen);
  ApiFn_thread_set_name modern = ITTC_CURRENT_(thread_set_name);
  if (modern != NULL && modern != FirstCall_thread_set_name) modern(name);
  return 0;
}

static void ITTAPI FirstCall_thr_ignore(void) {
  EnsureLoaded();
  ApiFn_thr_ignore fn = ITTC_CURRENT_(thr_ignore);
  if (fn != NULL && fn != FirstCall_thr_ignore) {
    fn();
    return;
  }
  ApiFn_thread_ignore modern = ITTC_CURRENT_(thread_ignore);
  if (modern != NULL && modern != FirstCall_thread_ignore) modern();
}

/* ---- Exported functions --------------------------------------------------- */

int __itt_init_ittlib(const char *lib_name, __itt_group_id init_groups) {
  if (!IsInitialized()) {
    Lock();
    if (!IsInitialized() && !load_in_progress) {
      LoadLocked(lib_name, init_groups);
    }
    Unlock();
  }
  for (const __itt_api_info *row = G.api_list_ptr; row->name != NULL; ++row) {
    if (((unsigned int)row->group & (unsigned int)init_groups) &&
        __atomic_load_n(row->func_ptr, __ATOMIC_ACQUIRE) != row->null_func) {
      return 1;
    }
  }
  return 0;
}

void __itt_fini_ittlib(void) {
  if (!IsInitialized()) return;
  Lock();
  if (IsInitialized() && !load_in_progress) {
    load_in_progress = 1; /* keeps ITT calls from the collector from loading */
    if (G.lib != NULL) {
      __itt_api_fini_t *api_fini = (__itt_api_fini_t *)(uintptr_t)dlsym(G.lib, "__itt_api_fini");
      if (api_fini != NULL) api_fini(&G);
    }
    NullifyAllLocked();
    load_in_progress = 0;
    __atomic_store_n(&G.api_initialized, 0, __ATOMIC_RELEASE);
  }
  Unlock();
}

__itt_collection_state __itt_get_collection_state(void) {
  EnsureLoaded();
  Lock();
  __itt_collection_state state = G.state;
  Unlock();
  return state;
}

void __itt_release_resources(void) {
  Lock();
  for (__itt_string_handle *s = G.string_list, *next; s != NULL; s = next) {
    next = s->next;
    free((void *)s->strA);
    free(s);
  }
  G.string_list = NULL;
  for (__itt_domain *d = G.domain_list, *next; d != NULL; d = next) {
    next = d->next;
    free((void *)d->nameA);
    free(d);
  }
  G.domain_list = NULL;
  for (__itt_counter_info_t *c = G.counter_list, *next; c != NULL; c = next) {
    next = c->next;
    free((void *)c->nameA);
    free((void *)c->domainA);
    free(c);
  }
  G.counter_list = NULL;
  for (__itt_histogram *h = G.histogram_list, *next; h != NULL; h = next) {
    next = h->next;
    free((void *)h->nameA);
    free(h);
  }
  G.histogram_list = NULL;
  for (__itt_counter_metadata *m = G.counter_metadata_list, *next; m != NULL; m = next) {
    next = m->next;
    free((void *)m->str_valueA);
    free(m);
  }
  G.counter_metadata_list = NULL;
  Unlock();
}

__itt_error_handler_t *__itt_set_error_handler(__itt_error_handler_t *handler) {
  return (__itt_error_handler_t *)(uintptr_t)__atomic_exchange_n(
      &G.error_handler, (void *)(uintptr_t)handler, __ATOMIC_ACQ_REL);
}

/* Processor Trace marks need the IPT assembly helpers of Intel's build
 * (ITT_API_IPT_SUPPORT), which this project does not ship. */
void __itt_mark_pt_region_begin(__itt_pt_region region) { (void)region; }
void __itt_mark_pt_region_end(__itt_pt_region region) { (void)region; }
