/* Values shared by every_api_program.c and every_api_test.cc, so the test
 * can check each recorded argument against what the program passed. */
#ifndef TESTS_COLLECTOR_EVERY_API_CONSTANTS_H_
#define TESTS_COLLECTOR_EVERY_API_CONSTANTS_H_

#define EA_DOMAIN "every.domain"
#define EA_TASK "every.task"
#define EA_KEY "every.key"
#define EA_FORMAT "value=%d name=%s"
#define EA_FORMATTED "value=42 name=x"
#define EA_PAUSED_TASK "every.paused"
#define EA_COUNTER "every.counter"
#define EA_COUNTER_S32 "every.s32"
#define EA_COUNTER_DOUBLE "every.double"
#define EA_COUNTER_V3 "every.v3"
#define EA_HIST "every.hist"
#define EA_EVENT "every.event"
#define EA_HEAP_FN "every_malloc"
#define EA_SYNC_TYPE "Mutex"
#define EA_SYNC_NAME "every.mutex"
#define EA_SYNC_RENAME "every.mutex2"
#define EA_MODULE "/lib/every.so"
#define EA_THREAD "every-main"
#define EA_METHOD "every::jitted"
#define EA_CLASS "Every.class"
#define EA_SOURCE "every.cc"
#define EA_JIT_MODULE "every.jit"
#define EA_STR_META "hello"
#define EA_META_U64 0x0123456789abcdefull
#define EA_META_DOUBLE 0.25
#define EA_META_S16 (-300)

#define EA_ID_ADDR 0x1000
#define EA_ID_EXTRA 7
#define EA_PARENT_ADDR 0x2000
#define EA_PARENT_EXTRA 9
#define EA_DELTA 5
#define EA_DEC_DELTA 3
#define EA_S32_VALUE (-7)
#define EA_DOUBLE_VALUE 2.5
#define EA_U64_VALUE 123456789012ull
#define EA_CLOCK_HZ 1000000ull
#define EA_CLOCK_BASE 5000000ull
#define EA_USER_TS 5000100ull
#define EA_SYNC_ATTR 3
#define EA_ALLOC_SIZE 64
#define EA_REALLOC_SIZE 128
#define EA_HEAP_MASK 0x5
#define EA_MODULE_START 0x400000
#define EA_MODULE_END 0x500000
#define EA_METHOD_ID 77
#define EA_INLINE_ID 78
#define EA_METHOD_ADDR 0x7000
#define EA_METHOD_SIZE 256
#define EA_SUPPRESS_MASK 0x3

#endif /* TESTS_COLLECTOR_EVERY_API_CONSTANTS_H_ */
