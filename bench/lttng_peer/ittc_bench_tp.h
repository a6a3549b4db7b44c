/* The LTTng-UST tracepoint provider of the peer benchmark: task begin and
 * end with the fields ittcollector records for them (a domain id and a name
 * id; the end only the domain), so both tracers store the same information
 * per event (LTTng adds its own timestamp and event header). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ittc_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ittc_bench_tp.h"

#if !defined(BENCH_LTTNG_PEER_ITTC_BENCH_TP_H_) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_LTTNG_PEER_ITTC_BENCH_TP_H_

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(ittc_bench, task_begin,
                           LTTNG_UST_TP_ARGS(uint64_t, domain, uint64_t, name),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, domain, domain)
                                                   lttng_ust_field_integer(uint64_t, name, name)))

LTTNG_UST_TRACEPOINT_EVENT(ittc_bench, task_end, LTTNG_UST_TP_ARGS(uint64_t, domain),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, domain, domain)))

#endif /* BENCH_LTTNG_PEER_ITTC_BENCH_TP_H_ */

#include <lttng/tracepoint-event.h>
