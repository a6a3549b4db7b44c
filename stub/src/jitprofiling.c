/* ittcollector: the JIT profiling static part (libjitprofiling.a).
 *
 * On the first iJIT_NotifyEvent or iJIT_IsProfilingActive call, loads the
 * agent named by INTEL_JIT_PROFILER64 (INTEL_JIT_PROFILER32 on IA-32) and
 * binds its two entry points by Intel's protocol:
 *   unsigned int NotifyEvent(unsigned int event_type, void *data);
 *   unsigned int Initialize(void);   -> iJIT_IsProfilingActiveFlags
 * An agent lacking either is not used. Unlike Intel's, a failed or skipped
 * load is final: the variable is read once. One more, optional entry point
 * of our own agent,
 *   const int *ittc_recording_gate(void);
 * gives an int that is negative while the agent records nothing: calls are
 * then not made (a paused collector costs two loads, not a call).
 *
 * Thread safety: the load runs under pthread_once. iJIT_NotifyEvent reads
 * `notify_event` after an acquire load of `gate` that saw LoadAgent's
 * release store; a reader of `execution_mode` goes through EnsureLoaded
 * first: an acquire load of `loaded` (pairing with LoadAgent's release
 * store) and, until it is set, pthread_once, which orders them too.
 * `next_method_id` is atomic.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <jitprofiling.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* As Intel's jitprofiling.c: the 32-bit name on IA-32 only (its ITT part
 * uses the 32-bit name on 32-bit ARM too; its JIT part does not). */
#if defined(__i386__) || defined(_M_IX86)
#define ITTC_JIT_LIB_VAR "INTEL_JIT_PROFILER32"
#else
#define ITTC_JIT_LIB_VAR "INTEL_JIT_PROFILER64"
#endif

typedef unsigned int(JITAPI *NotifyEventFn)(unsigned int, void *);
typedef unsigned int(JITAPI *InitializeFn)(void);
typedef const int *(*RecordingGateFn)(void);

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static NotifyEventFn notify_event;
/* What iJIT_NotifyEvent reads first: an int that is negative when the call
 * goes no further. Until the agent is loaded, kNotLoaded (the first call
 * loads it); then kNoAgent without a usable agent, else the int of the
 * agent's optional gate, ours only (collector/jit_api.cc), which it keeps
 * negative while its NotifyEvent would record nothing and return 0
 * (paused), or kAlwaysOpen for an agent without one. Set (release) once, by
 * LoadAgent: a paused collector costs two loads, not a call. */
static const int kNotLoaded = -1;
static const int kNoAgent = -1;
static const int kAlwaysOpen = 0;
static const int *gate = &kNotLoaded;
static iJIT_IsProfilingActiveFlags execution_mode = iJIT_NOTHING_RUNNING;
static unsigned int next_method_id = 1;
/* Set (release) when LoadAgent has run: after that EnsureLoaded costs one
 * load, not a call into pthread_once. */
static int loaded;
/* Whether the agent checks every event itself and counts a malformed one
 * as an invalid argument (ours: it exports ittc_jit_checks_events), so it
 * gets those too. Written before the release store of `gate`. */
static int agent_checks_events;

/* Binds the agent; returns what `gate` is to be. */
static const int *BindAgent(void) {
  const char *path = getenv(ITTC_JIT_LIB_VAR);
  if (path == NULL) return &kNoAgent;
  void *lib = dlopen(path, RTLD_LAZY);
  if (lib == NULL) return &kNoAgent;
  NotifyEventFn notify = (NotifyEventFn)(uintptr_t)dlsym(lib, "NotifyEvent");
  InitializeFn initialize = (InitializeFn)(uintptr_t)dlsym(lib, "Initialize");
  if (notify == NULL || initialize == NULL) {
    /* Unusable; the handle stays open, as a library may not be unloadable. */
    return &kNoAgent;
  }
  RecordingGateFn agent_gate = (RecordingGateFn)(uintptr_t)dlsym(lib, "ittc_recording_gate");
  execution_mode = (iJIT_IsProfilingActiveFlags)initialize();
  /* After Initialize, as the agent asks. */
  const int *g = agent_gate != NULL ? agent_gate() : NULL;
  agent_checks_events = dlsym(lib, "ittc_jit_checks_events") != NULL;
  notify_event = notify;
  return g != NULL ? g : &kAlwaysOpen;
}

static void LoadAgent(void) {
  const int *g = BindAgent();
  __atomic_store_n(&gate, g, __ATOMIC_RELEASE);
  __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

static void EnsureLoaded(void) {
  if (__builtin_expect(__atomic_load_n(&loaded, __ATOMIC_ACQUIRE), 1)) return;
  pthread_once(&load_once, LoadAgent);
}

/* Intel's agents expect the ids of load events to be non-zero; events that
 * break that (or carry no data at all) are dropped here, not passed on,
 * except to our own agent, which counts them (agent_checks_events). */
static int IsWellFormed(iJIT_JVM_EVENT event_type, const void *data) {
  switch (event_type) {
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED:
    case iJVM_EVENT_TYPE_METHOD_UPDATE:
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2:
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3:
    case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED:
      if (data == NULL) return 0;
      break;
    default:
      return 1;
  }
  switch (event_type) {
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED:
    case iJVM_EVENT_TYPE_METHOD_UPDATE:
      return ((const iJIT_Method_Load *)data)->method_id != 0;
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2:
      return ((const iJIT_Method_Load_V2 *)data)->method_id != 0;
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3:
      return ((const iJIT_Method_Load_V3 *)data)->method_id != 0;
    case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED: {
      const iJIT_Method_Inline_Load *m = (const iJIT_Method_Inline_Load *)data;
      return m->method_id != 0 && m->parent_method_id != 0;
    }
    default:
      return 1;
  }
}

/* The first call: loads the agent, then notifies. Out of line so that the
 * fast path below makes no call but the tail call to the agent. */
static __attribute__((noinline)) int NotifyFirst(iJIT_JVM_EVENT event_type,
                                                 void *EventSpecificData) {
  EnsureLoaded();
  return iJIT_NotifyEvent(event_type, EventSpecificData);
}

int JITAPI iJIT_NotifyEvent(iJIT_JVM_EVENT event_type, void *EventSpecificData) {
  /* Acquire: pairs with LoadAgent's store, after which notify_event is set. */
  const int *g = __atomic_load_n(&gate, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(g, __ATOMIC_RELAXED) < 0) {
    if (__builtin_expect(g == &kNotLoaded, 0)) return NotifyFirst(event_type, EventSpecificData);
    return 0;
  }
  if (!IsWellFormed(event_type, EventSpecificData) && !agent_checks_events) return 0;
  return (int)notify_event((unsigned int)event_type, EventSpecificData);
}

iJIT_IsProfilingActiveFlags JITAPI iJIT_IsProfilingActive(void) {
  EnsureLoaded();
  return execution_mode;
}

unsigned int JITAPI iJIT_GetNewMethodID(void) {
  unsigned int id = __atomic_load_n(&next_method_id, __ATOMIC_RELAXED);
  /* Relaxed is enough: ids carry no data, only uniqueness, which the CAS
   * alone guarantees. 0 means exhausted and stays. */
  while (id != 0 && !__atomic_compare_exchange_n(&next_method_id, &id, id + 1, 1, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED)) {
  }
  return id;
}
