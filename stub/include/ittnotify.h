/* ittcollector: the public ITT API (Instrumentation and Tracing Technology).
 *
 * Source- and binary-compatible replacement for Intel's ittapi 3.x
 * include/ittnotify.h on Linux: same function names and signatures, same
 * types, struct layouts and enum values, same macros. A program written
 * against Intel's header compiles against this one unchanged and links
 * against either static part (ours in stub/, or Intel's libittnotify.a),
 * because both export the same function-pointer variables.
 *
 * How a call works. Every API function `__itt_foo` is a macro that calls
 * through the pointer variable `__itt_foo_ptr__3_0` (ITTNOTIFY_NAME(foo))
 * exported by the static part. The pointer starts at a small stub inside the
 * static part; the first call loads the collector named by
 * INTEL_LIBITTNOTIFY64 and rebinds every pointer, either to the collector's
 * function or to NULL. From then on a call costs one load and one test when
 * nobody listens. Calls taking a domain are skipped when the domain is NULL
 * or its `flags` is 0, so a disabled domain costs one `if`.
 *
 * Configuration macros (define before including):
 *   INTEL_NO_ITTNOTIFY_API  every call compiles to nothing (or a typed 0);
 *                           no static part is needed at link time.
 *   INTEL_NO_MACRO_BODY     only prototypes and types; no call macros and no
 *                           pointer declarations. Collectors build with it
 *                           to define the real `__itt_foo` functions.
 *   INTEL_ITTNOTIFY_API_PRIVATE  also declares the private part (marks,
 *                           stack stitching, overlapped `_ex` tasks, errors).
 *   INTEL_ITTNOTIFY_PREFIX / INTEL_ITTNOTIFY_POSTFIX rename the pointer
 *                           variables (for static parts embedded under
 *                           another prefix).
 *
 * Threads: every call may be made from any thread at any time, also before
 * main() and concurrently with the first call of other threads.
 */
#ifndef _ITTNOTIFY_H_
#define _ITTNOTIFY_H_

/* Platform identification, numbered as in Intel's header. Only Linux is a
 * supported target of this project; the others are kept so that code testing
 * ITT_OS / ITT_PLATFORM keeps compiling. */
#ifndef ITT_OS_WIN
#define ITT_OS_WIN 1
#endif
#ifndef ITT_OS_LINUX
#define ITT_OS_LINUX 2
#endif
#ifndef ITT_OS_MAC
#define ITT_OS_MAC 3
#endif
#ifndef ITT_OS_FREEBSD
#define ITT_OS_FREEBSD 4
#endif
#ifndef ITT_OS_OPENBSD
#define ITT_OS_OPENBSD 5
#endif
#ifndef ITT_OS
#if defined(WIN32) || defined(_WIN32)
#define ITT_OS ITT_OS_WIN
#elif defined(__APPLE__) && defined(__MACH__)
#define ITT_OS ITT_OS_MAC
#elif defined(__FreeBSD__)
#define ITT_OS ITT_OS_FREEBSD
#elif defined(__OpenBSD__)
#define ITT_OS ITT_OS_OPENBSD
#else
#define ITT_OS ITT_OS_LINUX
#endif
#endif /* ITT_OS */

#ifndef ITT_PLATFORM_WIN
#define ITT_PLATFORM_WIN 1
#endif
#ifndef ITT_PLATFORM_POSIX
#define ITT_PLATFORM_POSIX 2
#endif
#ifndef ITT_PLATFORM_MAC
#define ITT_PLATFORM_MAC 3
#endif
#ifndef ITT_PLATFORM_FREEBSD
#define ITT_PLATFORM_FREEBSD 4
#endif
#ifndef ITT_PLATFORM_OPENBSD
#define ITT_PLATFORM_OPENBSD 5
#endif
#ifndef ITT_PLATFORM
#if ITT_OS == ITT_OS_WIN
#define ITT_PLATFORM ITT_PLATFORM_WIN
#elif ITT_OS == ITT_OS_MAC
#define ITT_PLATFORM ITT_PLATFORM_MAC
#elif ITT_OS == ITT_OS_FREEBSD
#define ITT_PLATFORM ITT_PLATFORM_FREEBSD
#elif ITT_OS == ITT_OS_OPENBSD
#define ITT_PLATFORM ITT_PLATFORM_OPENBSD
#else
#define ITT_PLATFORM ITT_PLATFORM_POSIX
#endif
#endif /* ITT_PLATFORM */

#if ITT_PLATFORM == ITT_PLATFORM_WIN
#error "ittcollector's ITT headers support POSIX platforms only"
#endif

#if defined(_UNICODE) && !defined(UNICODE)
#define UNICODE
#endif

#include <stddef.h>
#include <stdint.h>
#if defined(UNICODE) || defined(_UNICODE)
#include <wchar.h>
#endif

/* Calling conventions: only 32-bit x86 spells them out. */
#ifndef ITTAPI_CDECL
#if defined(_M_IX86) || defined(__i386__)
#define ITTAPI_CDECL __attribute__((cdecl))
#else
#define ITTAPI_CDECL
#endif
#endif
#ifndef STDCALL
#if defined(_M_IX86) || defined(__i386__)
#define STDCALL __attribute__((stdcall))
#else
#define STDCALL
#endif
#endif
#define ITTAPI ITTAPI_CDECL
#define LIBITTAPI ITTAPI_CDECL
/* Older spellings, still used by some callers. */
#define ITTAPI_CALL ITTAPI_CDECL
#define LIBITTAPI_CALL ITTAPI_CDECL

#ifdef __STRICT_ANSI__
#define ITT_INLINE static
#define ITT_INLINE_ATTRIBUTE __attribute__((unused))
#else
#define ITT_INLINE static inline
#define ITT_INLINE_ATTRIBUTE __attribute__((always_inline, unused))
#endif

/* Token pasting and the versioned names of the pointer variables:
 * ITTNOTIFY_NAME(task_begin) is __itt_task_begin_ptr__3_0. */
#define ITT_JOIN_AUX(p, n) p##n
#define ITT_JOIN(p, n) ITT_JOIN_AUX(p, n)

#ifdef ITT_MAJOR
#undef ITT_MAJOR
#endif
#ifdef ITT_MINOR
#undef ITT_MINOR
#endif
#define ITT_MAJOR 3
#define ITT_MINOR 0

#define ITT_VERSIONIZE(x) ITT_JOIN(x, ITT_JOIN(_, ITT_JOIN(ITT_MAJOR, ITT_JOIN(_, ITT_MINOR))))

#ifndef INTEL_ITTNOTIFY_PREFIX
#define INTEL_ITTNOTIFY_PREFIX __itt_
#endif
#ifndef INTEL_ITTNOTIFY_POSTFIX
#define INTEL_ITTNOTIFY_POSTFIX _ptr_
#endif

#define ITTNOTIFY_NAME_AUX(n) ITT_JOIN(INTEL_ITTNOTIFY_PREFIX, n)
#define ITTNOTIFY_NAME(n) ITT_VERSIONIZE(ITTNOTIFY_NAME_AUX(ITT_JOIN(n, INTEL_ITTNOTIFY_POSTFIX)))

/* Reading a pointer variable. The static part (or the collector) rebinds the
 * pointers once, on the first call, possibly while other threads are already
 * calling. With GCC/Clang the read is an acquire load that pairs with the
 * release store of the binding thread, so a thread that sees the collector's
 * function also sees everything the collector set up before publishing it.
 * On x86-64 this compiles to the same single `mov` as a plain read. */
#if defined(__GNUC__) || defined(__clang__)
#define ITTNOTIFY_LOAD_(n) __atomic_load_n(&ITTNOTIFY_NAME(n), __ATOMIC_ACQUIRE)
#else
#define ITTNOTIFY_LOAD_(n) ITTNOTIFY_NAME(n)
#endif

/* Reading a domain's `flags`, which the collector flips at any time with a
 * relaxed atomic store (pause, resume, detach, domain filter). Relaxed is
 * enough: the flag orders nothing else, and a call racing with a flip may
 * or may not be recorded, as the ITT ABI allows. The field stays a plain
 * 32-bit int, so static parts that read it plainly still work. */
#if defined(__GNUC__) || defined(__clang__)
#define ITTNOTIFY_DOMAIN_ENABLED_(d) __atomic_load_n(&(d)->flags, __ATOMIC_RELAXED)
#else
#define ITTNOTIFY_DOMAIN_ENABLED_(d) ((d)->flags)
#endif

/* The call macros. ITTNOTIFY_VOID(n) / ITTNOTIFY_DATA(n) expand to an
 * expression that still needs the argument list: `__itt_pause()` becomes
 * `(!ptr) ? (void)0 : ptr()`. The _Dk forms take the domain and k further
 * arguments and test the domain first. */
#define ITTNOTIFY_VOID(n) (!ITTNOTIFY_LOAD_(n)) ? (void)0 : ITTNOTIFY_LOAD_(n)
#define ITTNOTIFY_DATA(n) (!ITTNOTIFY_LOAD_(n)) ? 0 : ITTNOTIFY_LOAD_(n)

#define ITTNOTIFY_SKIP_D_(d, n) \
  ((d) == NULL || !ITTNOTIFY_DOMAIN_ENABLED_(d) || !ITTNOTIFY_LOAD_(n))

#define ITTNOTIFY_VOID_D0(n, d) ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d)
#define ITTNOTIFY_VOID_D1(n, d, x) ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x)
#define ITTNOTIFY_VOID_D2(n, d, x, y) \
  ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x, y)
#define ITTNOTIFY_VOID_D3(n, d, x, y, z) \
  ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x, y, z)
#define ITTNOTIFY_VOID_D4(n, d, x, y, z, a) \
  ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x, y, z, a)
#define ITTNOTIFY_VOID_D5(n, d, x, y, z, a, b) \
  ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x, y, z, a, b)
#define ITTNOTIFY_VOID_D6(n, d, x, y, z, a, b, c) \
  ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x, y, z, a, b, c)
#define ITTNOTIFY_VOID_D2_VA(n, d, x, ...) \
  ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x, __VA_ARGS__)
#define ITTNOTIFY_VOID_D3_VA(n, d, x, y, ...) \
  ITTNOTIFY_SKIP_D_(d, n) ? (void)0 : ITTNOTIFY_LOAD_(n)(d, x, y, __VA_ARGS__)

#define ITTNOTIFY_DATA_D0(n, d) ITTNOTIFY_SKIP_D_(d, n) ? 0 : ITTNOTIFY_LOAD_(n)(d)
#define ITTNOTIFY_DATA_D1(n, d, x) ITTNOTIFY_SKIP_D_(d, n) ? 0 : ITTNOTIFY_LOAD_(n)(d, x)
#define ITTNOTIFY_DATA_D2(n, d, x, y) ITTNOTIFY_SKIP_D_(d, n) ? 0 : ITTNOTIFY_LOAD_(n)(d, x, y)
#define ITTNOTIFY_DATA_D3(n, d, x, y, z) \
  ITTNOTIFY_SKIP_D_(d, n) ? 0 : ITTNOTIFY_LOAD_(n)(d, x, y, z)
#define ITTNOTIFY_DATA_D4(n, d, x, y, z, a) \
  ITTNOTIFY_SKIP_D_(d, n) ? 0 : ITTNOTIFY_LOAD_(n)(d, x, y, z, a)
#define ITTNOTIFY_DATA_D5(n, d, x, y, z, a, b) \
  ITTNOTIFY_SKIP_D_(d, n) ? 0 : ITTNOTIFY_LOAD_(n)(d, x, y, z, a, b)
#define ITTNOTIFY_DATA_D6(n, d, x, y, z, a, b, c) \
  ITTNOTIFY_SKIP_D_(d, n) ? 0 : ITTNOTIFY_LOAD_(n)(d, x, y, z, a, b, c)

/* ITT_STUB declares the pointer type `<ptr name>_t` and the exported pointer
 * variable of one API function. */
#ifdef ITT_STUB
#undef ITT_STUB
#endif
#ifdef ITT_STUBV
#undef ITT_STUBV
#endif
#define ITT_STUBV(api, type, name, args)                      \
  typedef type(api *ITT_JOIN(ITTNOTIFY_NAME(name), _t)) args; \
  extern ITT_JOIN(ITTNOTIFY_NAME(name), _t) ITTNOTIFY_NAME(name);
#define ITT_STUB ITT_STUBV

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Collection control ------------------------------------------------ */
/* Pause/resume collection for the whole process (or for the host / offload
 * part with the _scoped variants); detach ends it for good. */
typedef enum {
  __itt_collection_scope_host = 1 << 0,
  __itt_collection_scope_offload = 1 << 1,
  __itt_collection_scope_all = 0x7FFFFFFF
} __itt_collection_scope;

#define ITTC_API_SECTION_CONTROL
#include "ittnotify_api.inc"

/* ---- Intel Processor Trace regions ------------------------------------- */
/* Marking is implemented in the static part; without ITT_API_IPT_SUPPORT
 * (this project never builds it) the two mark functions do nothing. */
typedef unsigned char __itt_pt_region;

#define ITTC_API_SECTION_PT_REGION
#include "ittnotify_api.inc"

void __itt_mark_pt_region_begin(__itt_pt_region region);
void __itt_mark_pt_region_end(__itt_pt_region region);
/* Real functions, not pointers; compiled out as well without the API (Intel's
 * header leaves them in, which needs the static part at link time). */
#if defined(INTEL_NO_ITTNOTIFY_API) && !defined(INTEL_NO_MACRO_BODY)
#define __itt_mark_pt_region_begin(region) ((void)(region))
#define __itt_mark_pt_region_end(region) ((void)(region))
#endif

/* ---- Thread naming and ignoring ---------------------------------------- */
#define ITTC_API_SECTION_THREAD
#include "ittnotify_api.inc"

/* ---- Error suppression (Intel Inspector) ------------------------------- */
#define __itt_suppress_all_errors 0x7fffffff
#define __itt_suppress_threading_errors 0x000000ff
#define __itt_suppress_memory_errors 0x0000ff00

typedef enum __itt_suppress_mode {
  __itt_unsuppress_range,
  __itt_suppress_range
} __itt_suppress_mode_t;

/* Where the static part stands in loading a collector; see
 * __itt_get_collection_state() below. Stored in __itt_global::state. */
typedef enum {
  __itt_collection_uninitialized = 0,
  __itt_collection_init_fail = 1,
  __itt_collection_collector_absent = 2,
  __itt_collection_collector_exists = 3,
  __itt_collection_init_successful = 4
} __itt_collection_state;

#define ITTC_API_SECTION_SUPPRESS
#include "ittnotify_api.inc"

/* ---- User-defined synchronization objects ------------------------------ */
/* `attribute` of __itt_sync_create: */
#define __itt_attr_barrier 1
#define __itt_attr_mutex 2

#define ITTC_API_SECTION_SYNC
#include "ittnotify_api.inc"
#define ITTC_API_SECTION_FSYNC
#include "ittnotify_api.inc"

/* ---- Advisor modeling annotations -------------------------------------- */
typedef void *__itt_model_site;
typedef void *__itt_model_site_instance;
typedef void *__itt_model_task;
typedef void *__itt_model_task_instance;

typedef enum {
  __itt_model_disable_observation,
  __itt_model_disable_collection
} __itt_model_disable;

#define ITTC_API_SECTION_MODEL
#include "ittnotify_api.inc"

/* ---- Memory allocation (heap) ------------------------------------------ */
/* An allocator function registered with __itt_heap_function_create. */
typedef void *__itt_heap_function;

/* Masks for __itt_heap_reset_detection and __itt_heap_record. */
#define __itt_heap_leaks 0x00000001
#define __itt_heap_growth 0x00000002

#define ITTC_API_SECTION_HEAP
#include "ittnotify_api.inc"

/* ---- Domains ----------------------------------------------------------- */
/* A domain groups the calls of one component. The static part or the
 * collector owns the object; it lives until the process ends. `flags` is the
 * only field the call macros read: 0 means disabled, and the collector may
 * flip it at any time. */
#pragma pack(push, 8)
typedef struct ___itt_domain {
  volatile int flags;
  const char *nameA;
#if defined(UNICODE) || defined(_UNICODE)
  const wchar_t *nameW;
#else
  void *nameW;
#endif
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_domain *next;
} __itt_domain;
#pragma pack(pop)

#define ITTC_API_SECTION_DOMAIN
#include "ittnotify_api.inc"

/* ---- Instance ids ------------------------------------------------------ */
#pragma pack(push, 8)
typedef struct ___itt_id {
  unsigned long long d1, d2, d3;
} __itt_id;
#pragma pack(pop)

static const __itt_id __itt_null = {0, 0, 0};

/* Builds an id from an address and a caller-chosen number; d3 stays 0. */
ITT_INLINE __itt_id ITTAPI __itt_id_make(void *addr, unsigned long long extra) ITT_INLINE_ATTRIBUTE;
ITT_INLINE __itt_id ITTAPI __itt_id_make(void *addr, unsigned long long extra) {
  __itt_id id = __itt_null;
  id.d1 = (unsigned long long)(uintptr_t)addr;
  id.d2 = extra;
  id.d3 = 0;
  return id;
}

#define ITTC_API_SECTION_ID
#include "ittnotify_api.inc"

/* ---- String handles ---------------------------------------------------- */
/* Interned names; created once, never destroyed. */
#pragma pack(push, 8)
typedef struct ___itt_string_handle {
  const char *strA;
#if defined(UNICODE) || defined(_UNICODE)
  const wchar_t *strW;
#else
  void *strW;
#endif
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_string_handle *next;
} __itt_string_handle;
#pragma pack(pop)

#define ITTC_API_SECTION_STRING_HANDLE
#include "ittnotify_api.inc"

/* ---- Timestamps -------------------------------------------------------- */
typedef unsigned long long __itt_timestamp;
#define __itt_timestamp_none ((__itt_timestamp)-1LL)

#define ITTC_API_SECTION_TIMESTAMP
#include "ittnotify_api.inc"

/* ---- Regions, frames, tasks --------------------------------------------- */
#define ITTC_API_SECTION_REGION
#include "ittnotify_api.inc"
#define ITTC_API_SECTION_FRAME
#include "ittnotify_api.inc"
#define ITTC_API_SECTION_TASK
#include "ittnotify_api.inc"

/* ---- Markers ------------------------------------------------------------ */
typedef enum {
  __itt_scope_unknown = 0,
  __itt_scope_global,
  __itt_scope_track_group,
  __itt_scope_track,
  __itt_scope_task,
  __itt_scope_marker
} __itt_scope;

/* Older names of the same values. */
#define __itt_marker_scope_unknown __itt_scope_unknown
#define __itt_marker_scope_global __itt_scope_global
#define __itt_marker_scope_process __itt_scope_track_group
#define __itt_marker_scope_thread __itt_scope_track
#define __itt_marker_scope_task __itt_scope_task

#define ITTC_API_SECTION_MARKER
#include "ittnotify_api.inc"

/* ---- Metadata ----------------------------------------------------------- */
/* Element type of metadata arrays, counters and histogram axes. */
typedef enum {
  __itt_metadata_unknown = 0,
  __itt_metadata_u64,
  __itt_metadata_s64,
  __itt_metadata_u32,
  __itt_metadata_s32,
  __itt_metadata_u16,
  __itt_metadata_s16,
  __itt_metadata_float,
  __itt_metadata_double
} __itt_metadata_type;

#define ITTC_API_SECTION_METADATA
#include "ittnotify_api.inc"

/* ---- Relations ---------------------------------------------------------- */
typedef enum {
  __itt_relation_is_unknown = 0,
  __itt_relation_is_dependent_on,
  __itt_relation_is_sibling_of,
  __itt_relation_is_parent_of,
  __itt_relation_is_continuation_of,
  __itt_relation_is_child_of,
  __itt_relation_is_continued_by,
  __itt_relation_is_predecessor_to
} __itt_relation;

#define ITTC_API_SECTION_RELATION
#include "ittnotify_api.inc"

/* ---- Clock domains ------------------------------------------------------ */
/* A user clock: the collector calls `fn` to learn frequency and base and
 * converts the `timestamp` arguments of the _ex functions with them. */
#pragma pack(push, 8)
typedef struct ___itt_clock_info {
  unsigned long long clock_freq; /* ticks per second */
  unsigned long long clock_base; /* tick count at the reference point */
} __itt_clock_info;
#pragma pack(pop)

typedef void(ITTAPI *__itt_get_clock_info_fn)(__itt_clock_info *clock_info, void *data);

#pragma pack(push, 8)
typedef struct ___itt_clock_domain {
  __itt_clock_info info;
  __itt_get_clock_info_fn fn;
  void *fn_data;
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_clock_domain *next;
} __itt_clock_domain;
#pragma pack(pop)

#define ITTC_API_SECTION_CLOCK_DOMAIN
#include "ittnotify_api.inc"

/* ---- Counters ----------------------------------------------------------- */
/* Opaque to the program; the object behind it belongs to the static part
 * (counters created before a collector loaded) or to the collector. */
typedef struct ___itt_counter *__itt_counter;

#define ITTC_API_SECTION_COUNTER
#include "ittnotify_api.inc"

/* Markers and relations stamped with a clock domain. */
#define ITTC_API_SECTION_CLOCK_DOMAIN_EX
#include "ittnotify_api.inc"

/* ---- Tracks ------------------------------------------------------------- */
typedef enum ___itt_track_group_type { __itt_track_group_type_normal = 0 } __itt_track_group_type;

#pragma pack(push, 8)
typedef struct ___itt_track_group {
  __itt_string_handle *name;
  struct ___itt_track *track; /* first track of the group */
  __itt_track_group_type tgtype;
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_track_group *next;
} __itt_track_group;
#pragma pack(pop)

typedef enum ___itt_track_type {
  __itt_track_type_normal = 0
#ifdef INTEL_ITTNOTIFY_API_PRIVATE
  ,
  __itt_track_type_queue
#endif
} __itt_track_type;

#pragma pack(push, 8)
typedef struct ___itt_track {
  __itt_string_handle *name;
  __itt_track_group *group;
  __itt_track_type ttype;
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_track *next;
} __itt_track;
#pragma pack(pop)

#define ITTC_API_SECTION_TRACK
#include "ittnotify_api.inc"

/* ---- Events ------------------------------------------------------------- */
typedef int __itt_event;

#define ITTC_API_SECTION_EVENT
#include "ittnotify_api.inc"

/* ---- Array dumps (Intel Advisor) ---------------------------------------- */
typedef enum {
  __itt_e_first = 0,
  __itt_e_char = 0,
  __itt_e_uchar,
  __itt_e_int16,
  __itt_e_uint16,
  __itt_e_int32,
  __itt_e_uint32,
  __itt_e_int64,
  __itt_e_uint64,
  __itt_e_float,
  __itt_e_double,
  __itt_e_last = __itt_e_double
} __itt_av_data_type;

#define ITTC_API_SECTION_ARRAYS
#include "ittnotify_api.inc"

/* ---- Attaching ---------------------------------------------------------- */
#define ITTC_API_SECTION_ATTACH
#include "ittnotify_api.inc"

/* ---- Module load / unload ----------------------------------------------- */
typedef enum {
  __itt_module_type_unknown = 0,
  __itt_module_type_elf,
  __itt_module_type_coff
} __itt_module_type;

typedef enum {
  itt_section_type_unknown,
  itt_section_type_bss,
  itt_section_type_data,
  itt_section_type_text
} __itt_section_type;

/* Bits of __itt_section_info::flags. */
#define __itt_section_exec 0x20000000
#define __itt_section_read 0x40000000
#define __itt_section_write 0x80000000

#pragma pack(push, 8)
typedef struct ___itt_section_info {
  const char *name; /* UTF-8 */
  __itt_section_type type;
  size_t flags;
  void *start_addr;
  size_t size;
  size_t file_offset;
} __itt_section_info;
#pragma pack(pop)

#pragma pack(push, 8)
typedef struct ___itt_module_object {
  unsigned int version; /* set by the static part before forwarding */
  __itt_id module_id;
  __itt_module_type module_type;
  const char *module_name; /* UTF-8 name, or path when no buffer is given */
  void *module_buffer;
  size_t module_size;
  __itt_section_info *section_array;
  size_t section_number;
} __itt_module_object;
#pragma pack(pop)

#define ITTC_API_SECTION_MODULE
#include "ittnotify_api.inc"

/* ---- Histograms --------------------------------------------------------- */
#pragma pack(push, 8)
typedef struct ___itt_histogram {
  const __itt_domain *domain;
  const char *nameA;
#if defined(UNICODE) || defined(_UNICODE)
  const wchar_t *nameW;
#else
  void *nameW;
#endif
  __itt_metadata_type x_type;
  __itt_metadata_type y_type;
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_histogram *next;
} __itt_histogram;
#pragma pack(pop)

#define ITTC_API_SECTION_HISTOGRAM
#include "ittnotify_api.inc"

/* ---- Collection state and resources (implemented in the static part) ---- */
/* Loads the collector if that has not happened yet, then reports how it
 * went. Thread-safe. */
__itt_collection_state __itt_get_collection_state(void);

/* Frees the domains, string handles, counters and histograms the static part
 * allocated before a collector loaded; its mutex stays usable. Call it at
 * most once, from a library destructor, when no thread makes ITT calls any
 * more; pointers returned by the create functions become dangling. */
void __itt_release_resources(void);

#if defined(INTEL_NO_ITTNOTIFY_API) && !defined(INTEL_NO_MACRO_BODY)
#define __itt_get_collection_state() __itt_collection_collector_absent
#define __itt_release_resources()
#endif

/* ---- Counter context metadata ------------------------------------------- */
typedef enum {
  __itt_context_unknown = 0,
  __itt_context_nameA,
  __itt_context_nameW,
  __itt_context_deviceA,
  __itt_context_deviceW,
  __itt_context_unitsA,
  __itt_context_unitsW,
  __itt_context_pci_addrA,
  __itt_context_pci_addrW,
  __itt_context_tid,
  __itt_context_max_val,
  __itt_context_bandwidth_flag,
  __itt_context_latency_flag,
  __itt_context_occupancy_flag,
  __itt_context_on_thread_flag,
  __itt_context_is_abs_val_flag,
  __itt_context_cpu_instructions_flag,
  __itt_context_cpu_cycles_flag
} __itt_context_type;

#if defined(UNICODE) || defined(_UNICODE)
#define __itt_context_name __itt_context_nameW
#define __itt_context_device __itt_context_deviceW
#define __itt_context_units __itt_context_unitsW
#define __itt_context_pci_addr __itt_context_pci_addrW
#else
#define __itt_context_name __itt_context_nameA
#define __itt_context_device __itt_context_deviceA
#define __itt_context_units __itt_context_unitsA
#define __itt_context_pci_addr __itt_context_pci_addrA
#endif

#pragma pack(push, 8)
typedef struct ___itt_context_metadata {
  __itt_context_type type;
  /* Points to a string for the name/device/units/pci_addr kinds and to an
   * unsigned long long for the others. */
  void *value;
} __itt_context_metadata;
#pragma pack(pop)

/* One bound metadata item, as kept on __itt_global::counter_metadata_list
 * for counters that exist before a collector loaded. */
#pragma pack(push, 8)
typedef struct ___itt_counter_metadata {
  __itt_counter counter;
  __itt_context_type type;
  const char *str_valueA;
#if defined(UNICODE) || defined(_UNICODE)
  const wchar_t *str_valueW;
#else
  void *str_valueW;
#endif
  unsigned long long value;
  int extra1;   /* reserved for the runtime */
  void *extra2; /* reserved for the runtime */
  struct ___itt_counter_metadata *next;
} __itt_counter_metadata;
#pragma pack(pop)

#define ITTC_API_SECTION_COUNTER_V3
#include "ittnotify_api.inc"

#ifdef __cplusplus
}
#endif

#endif /* _ITTNOTIFY_H_ */

/* The private part may be requested by a later inclusion, hence its own
 * guard outside the main one. */
#ifdef INTEL_ITTNOTIFY_API_PRIVATE
#ifndef _ITTNOTIFY_PRIVATE_
#define _ITTNOTIFY_PRIVATE_

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Overlapped tasks stamped with a clock domain. */
#define ITTC_API_SECTION_PRIVATE_CLOCK_DOMAIN
#include "ittnotify_api.inc"

/* Marks (an older kind of markers). */
typedef int __itt_mark_type;

#define ITTC_API_SECTION_PRIVATE_MARK
#include "ittnotify_api.inc"

/* Stack stitching. */
typedef struct ___itt_caller *__itt_caller;

#define ITTC_API_SECTION_PRIVATE_STITCH
#include "ittnotify_api.inc"

/* Errors the static part reports while loading a collector. */
typedef enum __itt_error_code {
  __itt_error_success = 0,
  __itt_error_no_module = 1,     /* args: library name, dlerror() text */
  __itt_error_no_symbol = 2,     /* args: library name, symbol name */
  __itt_error_unknown_group = 3, /* args: group name */
  __itt_error_cant_read_env = 4, /* args: variable name, errno */
  __itt_error_env_too_long = 5,  /* args: variable name, length, limit */
  __itt_error_system = 6         /* args: function name, error code */
} __itt_error_code;

typedef void(__itt_error_handler_t)(__itt_error_code code, va_list);

/* Installs `handler` (NULL removes it); returns the previous one. */
__itt_error_handler_t *__itt_set_error_handler(__itt_error_handler_t *);
#if defined(INTEL_NO_ITTNOTIFY_API) && !defined(INTEL_NO_MACRO_BODY)
#define __itt_set_error_handler(handler) ((void)(handler), (__itt_error_handler_t *)0)
#endif

#define ITTC_API_SECTION_PRIVATE_VERSION
#include "ittnotify_api.inc"

#ifdef __cplusplus
}
#endif

#endif /* _ITTNOTIFY_PRIVATE_ */
#endif /* INTEL_ITTNOTIFY_API_PRIVATE */
