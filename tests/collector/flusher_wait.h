/* For test programs run under the collector: wait until the collector's
 * flusher has made a round, so what it polls (the module map, the live perf
 * map) has been seen. Shared by maps_program and tests/tools' programs. */
#ifndef TESTS_COLLECTOR_FLUSHER_WAIT_H_
#define TESTS_COLLECTOR_FLUSHER_WAIT_H_

#include <ittnotify.h>

/* Returns once a flusher round that began after this call has written to
 * this process's trace file: two growths of the file, each after a new
 * event of `domain` (the flusher writes once per round, at its end). Exits
 * the process with status 3 if it has no trace file, 4 if the file does
 * not grow before a deadline that only a hang reaches. */
void WaitForFlusherRound(__itt_domain* domain);

#endif /* TESTS_COLLECTOR_FLUSHER_WAIT_H_ */
