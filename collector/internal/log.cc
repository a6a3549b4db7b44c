#include "collector/internal/log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace ittc::collector_internal {
namespace {

void VLog(const char* format, va_list args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof(buf), "ittcollector: warning: ");
  int m = std::vsnprintf(buf + n, sizeof(buf) - n - 1, format, args);
  size_t len = static_cast<size_t>(n) + (m < 0 ? 0 : static_cast<size_t>(m));
  if (len > sizeof(buf) - 2) len = sizeof(buf) - 2;
  buf[len++] = '\n';
  // One write keeps the line whole when several threads warn at once.
  ssize_t ignored = ::write(STDERR_FILENO, buf, len);
  (void)ignored;
}

}  // namespace

void LogWarning(const char* format, ...) {
  va_list args;
  va_start(args, format);
  VLog(format, args);
  va_end(args);
}

void LogWarningOnce(int* once_flag, const char* format, ...) {
  if (__atomic_exchange_n(once_flag, 1, __ATOMIC_RELAXED) != 0) return;
  va_list args;
  va_start(args, format);
  VLog(format, args);
  va_end(args);
}

}  // namespace ittc::collector_internal
