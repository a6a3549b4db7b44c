/* ittcollector: the JIT profiling API.
 *
 * Source- and binary-compatible replacement for Intel's ittapi
 * include/jitprofiling.h: a JIT compiler reports the code it generates
 * (name, address range, line table, module) so that a profiler can attribute
 * samples in that code. The calls go to libjitprofiling.a, which loads the
 * agent named by INTEL_JIT_PROFILER64 (INTEL_JIT_PROFILER32 on IA-32) on
 * first use and forwards to its `NotifyEvent`. Without the variable every
 * call returns 0 at the cost of a test.
 *
 * Threads: all three functions may be called from any thread, also
 * concurrently; the agent is loaded once.
 */
#ifndef __JITPROFILING_H__
#define __JITPROFILING_H__

/* Events of iJIT_NotifyEvent; the comment names the structure
 * EventSpecificData points to. */
typedef enum iJIT_jvm_event {
  iJVM_EVENT_TYPE_SHUTDOWN = 2,                 /* NULL: profiling ends */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED = 13,    /* iJIT_Method_Load */
  iJVM_EVENT_TYPE_METHOD_UNLOAD_START,          /* iJIT_Method_Load (id) */
  iJVM_EVENT_TYPE_METHOD_UPDATE,                /* iJIT_Method_Load */
  iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED,  /* iJIT_Method_Inline_Load */
  iJVM_EVENT_TYPE_METHOD_UPDATE_V2,             /* iJIT_Method_Update */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2 = 21, /* iJIT_Method_Load_V2 */
  iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3       /* iJIT_Method_Load_V3 */
} iJIT_JVM_EVENT;

/* Returned by iJIT_IsProfilingActive. */
typedef enum _iJIT_IsProfilingActiveFlags {
  iJIT_NOTHING_RUNNING = 0x0000,
  iJIT_SAMPLING_ON = 0x0001,
} iJIT_IsProfilingActiveFlags;

/* Maps a byte offset from the method start to a source line. */
typedef struct _LineNumberInfo {
  unsigned int Offset;
  unsigned int LineNumber;
} * pLineNumberInfo, LineNumberInfo;

typedef enum _iJIT_CodeArchitecture {
  iJIT_CA_NATIVE = 0, /* same as the process */
  iJIT_CA_32,
  iJIT_CA_64
} iJIT_CodeArchitecture;

#pragma pack(push, 8)

/* METHOD_LOAD_FINISHED and METHOD_UPDATE. method_id must be non-zero (use
 * iJIT_GetNewMethodID); events with id 0 are dropped. */
typedef struct _iJIT_Method_Load {
  unsigned int method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size; /* entries in line_number_table */
  pLineNumberInfo line_number_table;
  unsigned int class_id; /* reserved, 0 */
  char *class_file_name;
  char *source_file_name;
} * piJIT_Method_Load, iJIT_Method_Load;

/* METHOD_LOAD_FINISHED_V2: as above plus the module the method belongs to. */
typedef struct _iJIT_Method_Load_V2 {
  unsigned int method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char *class_file_name;
  char *source_file_name;
  char *module_name;
} * piJIT_Method_Load_V2, iJIT_Method_Load_V2;

/* METHOD_LOAD_FINISHED_V3: as V2 plus the code's architecture. */
typedef struct _iJIT_Method_Load_V3 {
  unsigned int method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char *class_file_name;
  char *source_file_name;
  char *module_name;
  iJIT_CodeArchitecture module_arch;
} * piJIT_Method_Load_V3, iJIT_Method_Load_V3;

/* METHOD_INLINE_LOAD_FINISHED: a method inlined into parent_method_id; both
 * ids must be non-zero. */
typedef struct _iJIT_Method_Inline_Load {
  unsigned int method_id;
  unsigned int parent_method_id;
  char *method_name;
  void *method_load_address;
  unsigned int method_size;
  unsigned int line_number_size;
  pLineNumberInfo line_number_table;
  char *class_file_name;
  char *source_file_name;
} * piJIT_Method_Inline_Load, iJIT_Method_Inline_Load;

typedef enum _iJIT_SegmentType {
  iJIT_CT_UNKNOWN = 0,
  iJIT_CT_CODE, /* executable code */
  iJIT_CT_DATA, /* data, not executed */
  iJIT_CT_KEEP, /* keep the previous type */
  iJIT_CT_EOF
} iJIT_SegmentType;

/* METHOD_UPDATE_V2: marks a part of a method as code or data. */
typedef struct _iJIT_Method_Update {
  void *load_address;
  unsigned int size;
  iJIT_SegmentType type;
  const char *data_format;
} * piJIT_Method_Update, iJIT_Method_Update;

#pragma pack(pop)

#ifdef __cplusplus
extern "C" {
#endif

#ifndef JITAPI_CDECL
#if defined(_M_IX86) || defined(__i386__)
#define JITAPI_CDECL __attribute__((cdecl))
#else
#define JITAPI_CDECL
#endif
#endif
#define JITAPI JITAPI_CDECL

/* A fresh non-zero method id per call; 0 once the ids are exhausted. */
unsigned int JITAPI iJIT_GetNewMethodID(void);

/* Loads the agent if needed and reports whether it samples. */
iJIT_IsProfilingActiveFlags JITAPI iJIT_IsProfilingActive(void);

/* Reports one event. EventSpecificData must stay valid for the call only.
 * Returns the agent's result, or 0 when no agent is loaded or the event is
 * malformed (zero method id). */
int JITAPI iJIT_NotifyEvent(iJIT_JVM_EVENT event_type, void *EventSpecificData);

#ifdef __cplusplus
}
#endif

#endif /* __JITPROFILING_H__ */
