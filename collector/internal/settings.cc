#include "collector/internal/settings.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "collector/internal/log.h"

namespace ittc::collector_internal {
namespace {

// Parses a signed decimal in [lo, hi]; false on anything else.
bool ParseInt(const char* s, int64_t lo, int64_t hi, int64_t* out) {
  if (s == nullptr || *s == '\0') return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Parses an unsigned decimal in [lo, hi] (no sign, not even "-0"); false
// on anything else. REQUIRES: lo <= INT64_MAX (hi is capped there: no
// setting reaches it).
bool ParseUint(const char* s, uint64_t lo, uint64_t hi, uint64_t* out) {
  int64_t v;
  if (s == nullptr || s[0] == '-' ||
      !ParseInt(s, static_cast<int64_t>(lo),
                static_cast<int64_t>(std::min<uint64_t>(hi, INT64_MAX)), &v)) {
    return false;
  }
  *out = static_cast<uint64_t>(v);
  return true;
}

bool ParseBool(const char* s, bool* out) {
  if (!std::strcmp(s, "1") || !std::strcmp(s, "true") || !std::strcmp(s, "yes") ||
      !std::strcmp(s, "on")) {
    *out = true;
    return true;
  }
  if (!std::strcmp(s, "0") || !std::strcmp(s, "false") || !std::strcmp(s, "no") ||
      !std::strcmp(s, "off")) {
    *out = false;
    return true;
  }
  return false;
}

void WarnBadValue(const char* var, const char* value, const char* expected) {
  LogWarning("ignoring %s=\"%s\" (expected %s); using the default", var, value, expected);
}

}  // namespace

Settings ReadSettings() {
  Settings s;
  if (const char* dir = std::getenv("INTEL_LIBITTNOTIFY_LOG_DIR"); dir != nullptr && *dir) {
    s.output = std::string(dir) + "/%e-%p.itt";
  }
  if (const char* v = std::getenv("ITTC_OUTPUT"); v != nullptr) {
    if (*v) {
      s.output = v;
    } else {
      WarnBadValue("ITTC_OUTPUT", v, "a file path");
    }
  }
  if (const char* v = std::getenv("ITTC_RING_KB"); v != nullptr) {
    uint64_t kb;
    // 64 KiB .. 1 GiB, a power of two: the ring index math masks by size.
    if (ParseUint(v, 64, uint64_t{1} << 20, &kb) && (kb & (kb - 1)) == 0) {
      s.ring_bytes = kb << 10;
    } else {
      WarnBadValue("ITTC_RING_KB", v, "a power of two from 64 to 1048576");
    }
  }
  if (const char* v = std::getenv("ITTC_FLUSH_MS"); v != nullptr) {
    uint64_t ms;
    if (ParseUint(v, 1, 60000, &ms)) {
      s.flush_interval_ms = static_cast<uint32_t>(ms);
    } else {
      WarnBadValue("ITTC_FLUSH_MS", v, "milliseconds from 1 to 60000");
    }
  }
  if (const char* v = std::getenv("ITTC_OVERFLOW"); v != nullptr) {
    if (!std::strcmp(v, "drop")) {
      s.overflow = OverflowMode::kDrop;
    } else if (!std::strcmp(v, "block")) {
      s.overflow = OverflowMode::kBlock;
    } else {
      WarnBadValue("ITTC_OVERFLOW", v, "drop or block");
    }
  }
  if (const char* v = std::getenv("ITTC_BLOCK_TIMEOUT_MS"); v != nullptr) {
    uint64_t ms;
    if (ParseUint(v, 1, 60000, &ms)) {
      s.block_timeout_ms = static_cast<uint32_t>(ms);
    } else {
      WarnBadValue("ITTC_BLOCK_TIMEOUT_MS", v, "milliseconds from 1 to 60000");
    }
  }
  if (const char* v = std::getenv("ITTC_EXIT_TIMEOUT_MS"); v != nullptr) {
    uint64_t ms;
    if (ParseUint(v, 1, 3600000, &ms)) {
      s.exit_timeout_ms = static_cast<uint32_t>(ms);
    } else {
      WarnBadValue("ITTC_EXIT_TIMEOUT_MS", v, "milliseconds from 1 to 3600000");
    }
  }
  if (const char* v = std::getenv("ITTC_ZSTD_LEVEL"); v != nullptr) {
    uint64_t level;
    if (ParseUint(v, 1, 19, &level)) {
      s.zstd_level = static_cast<int>(level);
    } else {
      WarnBadValue("ITTC_ZSTD_LEVEL", v, "a level from 1 to 19");
    }
  }
  if (const char* v = std::getenv("ITTC_FLUSHER_NICE"); v != nullptr) {
    int64_t nice;
    if (ParseInt(v, kMinNice, kMaxNice, &nice)) {
      s.flusher_nice = static_cast<int>(nice);
      s.flusher_nice_explicit = true;
    } else {
      WarnBadValue("ITTC_FLUSHER_NICE", v, "a nice value from -20 to 19");
    }
  }
  if (const char* v = std::getenv("ITTC_FLUSHERS"); v != nullptr) {
    uint64_t n;
    if (!std::strcmp(v, "auto")) {
      s.flushers = 0;
    } else if (ParseUint(v, 1, kMaxFlushers, &n)) {
      s.flushers = static_cast<int>(n);
    } else {
      WarnBadValue("ITTC_FLUSHERS", v,
                   ("auto or a count from 1 to " + std::to_string(kMaxFlushers)).c_str());
    }
  }
  if (const char* v = std::getenv("ITTC_START_PAUSED"); v != nullptr) {
    if (!ParseBool(v, &s.start_paused)) WarnBadValue("ITTC_START_PAUSED", v, "0 or 1");
  }
  if (const char* v = std::getenv("ITTC_PERF_MAP"); v != nullptr) {
    if (!ParseBool(v, &s.perf_map)) WarnBadValue("ITTC_PERF_MAP", v, "0 or 1");
  }
  if (const char* v = std::getenv("ITTC_FLIGHT_MB"); v != nullptr) {
    uint64_t mb;
    if (ParseUint(v, 0, kMaxFlightMb, &mb)) {
      s.flight_bytes = static_cast<size_t>(mb) << 20;
    } else {
      LogWarning(
          "ignoring ITTC_FLIGHT_MB=\"%s\" (expected MiB from 1 to 65536, or 0); using the "
          "default: no flight recorder, the trace is written as it is recorded",
          v);
    }
  }
  if (const char* v = std::getenv("ITTC_FLIGHT_SIGNAL"); v != nullptr) {
    if (!ParseFlightSignal(v, &s.flight_signal)) {
      LogWarning(
          "ignoring ITTC_FLIGHT_SIGNAL=\"%s\" (expected a signal name such as USR1 or a number, "
          "not KILL, STOP, SEGV, BUS, ABRT, FPE or ILL; or none); using the default, SIGUSR2",
          v);
    }
  }
  if (const char* v = std::getenv("ITTC_FLIGHT_MARKER"); v != nullptr) s.flight_marker = v;
  if (const char* v = std::getenv("ITTC_FLIGHT_FATAL"); v != nullptr) {
    if (!ParseBool(v, &s.flight_fatal)) WarnBadValue("ITTC_FLIGHT_FATAL", v, "0 or 1");
  }
  s.rank = ReadLauncherRank();
  if (const char* v = std::getenv("ITTC_DOMAINS"); v != nullptr && *v) {
    const char* p = v;
    while (*p) {
      const char* comma = std::strchr(p, ',');
      size_t len = comma ? static_cast<size_t>(comma - p) : std::strlen(p);
      if (len > 0) s.domain_patterns.emplace_back(p, len);
      if (!comma) break;
      p = comma + 1;
    }
  }
  return s;
}

int64_t ReadLauncherRank() {
  for (const char* var : kRankVariables) {
    const char* v = std::getenv(var);
    if (v == nullptr) continue;
    uint64_t rank;
    if (ParseUint(v, 0, INT32_MAX, &rank)) return static_cast<int64_t>(rank);
    WarnBadValue(var, v, "a rank from 0 to 2147483647");
    return kNoRank;
  }
  return kNoRank;
}

bool ParseFlightSignal(const char* text, int* signal) {
  if (!std::strcmp(text, "none") || !std::strcmp(text, "0")) {
    *signal = 0;
    return true;
  }
  const char* name = std::strncmp(text, "SIG", 3) == 0 ? text + 3 : text;
  // Every name the C library knows (sigabbrev_np: "USR2", "VTALRM", ...).
  int number = 0;
  for (int s = 1; s < NSIG && number == 0; ++s) {
    const char* abbrev = sigabbrev_np(s);
    if (abbrev != nullptr && !std::strcmp(name, abbrev)) number = s;
  }
  int64_t parsed;
  if (number == 0 && ParseInt(text, 1, SIGRTMAX, &parsed)) number = static_cast<int>(parsed);
  if (number == 0 || number == SIGKILL || number == SIGSTOP) return false;
  for (int fatal : kFlightFatalSignals) {
    if (number == fatal) return false;
  }
  *signal = number;
  return true;
}

bool IsDirectoryPattern(const std::string& pattern) {
  return !pattern.empty() && pattern.back() == '/';
}

std::string DirectoryFileName(const ProcessNames& names) {
  char prefix[48];
  if (names.rank != kNoRank) {
    std::snprintf(prefix, sizeof(prefix), "r%06lld-p%07d-", static_cast<long long>(names.rank),
                  names.pid);
  } else {
    std::snprintf(prefix, sizeof(prefix), "p%07d-", names.pid);
  }
  return prefix + names.exe_name + ".itt";
}

std::string ExpandOutputPath(const std::string& pattern, const ProcessNames& names) {
  std::string out;
  out.reserve(pattern.size() + 16);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      const char c = pattern[i + 1];
      bool known = true;
      switch (c) {
        case 'p':
          out += std::to_string(names.pid);
          break;
        case 'e':
          out += names.exe_name;
          break;
        case 'r':
          out += names.rank != kNoRank ? std::to_string(names.rank) : "norank";
          break;
        case 'h':
          out += names.host;
          break;
        case '%':
          out += '%';
          break;
        default:
          known = false;
      }
      if (known) {
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  if (IsDirectoryPattern(pattern)) out += DirectoryFileName(names);
  return out;
}

}  // namespace ittc::collector_internal
