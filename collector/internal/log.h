// One-line diagnostics on stderr. The collector never writes to stdout and
// never stops its host; every message is prefixed with "ittcollector:".
//
// Thread safety: any thread may call these; each message is one write(2).

#ifndef COLLECTOR_INTERNAL_LOG_H_
#define COLLECTOR_INTERNAL_LOG_H_

namespace ittc::collector_internal {

// Writes "ittcollector: warning: <message>\n" to stderr. Allocates nothing.
void LogWarning(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Like LogWarning, but only the first call with the same `once_flag` prints.
void LogWarningOnce(int* once_flag, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace ittc::collector_internal

#endif  // COLLECTOR_INTERNAL_LOG_H_
