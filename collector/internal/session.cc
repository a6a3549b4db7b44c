#include "collector/internal/session.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "collector/internal/flight_recorder.h"
#include "collector/internal/flight_store.h"
#include "collector/internal/flusher.h"
#include "collector/internal/log.h"
#include "collector/internal/output_file.h"
#include "collector/internal/process_maps.h"
#include "collector/internal/registry.h"
#include "collector/internal/thread_state.h"
#include "collector/internal/timebase.h"
#include "format/format.h"

// Present under LeakSanitizer: objects left behind on purpose are not leaks.
extern "C" void __lsan_ignore_object(const void* p) __attribute__((weak));

namespace ittc::collector_internal {
namespace {

enum class State : int { kNotStarted, kRunning, kOff, kForkChild };

// How long exit() waits for the last round and the end record.

std::mutex g_mu;
std::atomic<State> g_state{State::kNotStarted};
std::atomic<bool> g_failed{false};
bool g_paused = false;           // guarded by g_mu
bool g_hooks_installed = false;  // guarded by g_mu
Settings* g_settings = nullptr;  // set once, then immutable
OutputFile* g_file = nullptr;    // guarded by g_mu
Flusher* g_flusher = nullptr;    // guarded by g_mu
// Flight recorder mode (ITTC_FLIGHT_MB): where the flusher's chunks go
// instead of g_file; each process's store lives until it ends.
FlightStore* g_flight = nullptr;  // guarded by g_mu
// The output pattern as this process, or the one it was forked from,
// expanded it (before a fork child's ".<pid>"): a fork child, or its own
// fork child, whose expansion is the same never writes into that file.
std::string g_expanded_path;  // guarded by g_mu

std::string ReadSmallFile(const char* path) {
  std::string out;
  FILE* f = std::fopen(path, "re");
  if (f == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0 && out.size() < 65536) out.append(buf, n);
  std::fclose(f);
  return out;
}

std::string ExecutablePath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "unknown";
  return std::string(buf, static_cast<size_t>(n));
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// This process's start, in nanoseconds since boot (/proc/self/stat's
// starttime, which exec keeps); 0 if unknown.
uint64_t ProcessStartBootNs() {
  const std::string stat = ReadSmallFile("/proc/self/stat");
  // The fields after the command's ")": state is the 3rd field, starttime
  // the 22nd.
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  const char* p = stat.c_str() + paren + 1;
  for (int field = 3; field < 22 && *p != '\0'; ++field) {
    while (*p == ' ') ++p;
    while (*p != ' ' && *p != '\0') ++p;
  }
  const long hz = sysconf(_SC_CLK_TCK);
  const unsigned long long ticks = std::strtoull(p, nullptr, 10);
  return hz > 0 ? ticks * (1000000000ull / static_cast<unsigned long long>(hz)) : 0;
}

// Whether the trace at `path` is one that writing over would destroy: a
// trace of this boot begun by a process that still runs, or by this one
// before it exec'd the image now running (exec keeps the pid and the
// start time: the trace began after the process did). Its header tells;
// a file that is not a trace, or of another boot, or of a process gone, is
// not. (A process whose pid was reused since can look alive: its trace is
// then kept too, and the new one written beside it.)
bool TraceInUse(const std::string& path, const std::array<uint8_t, 16>& boot_id) {
  FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return false;
  std::string head(256 << 10, '\0');  // a header's strings are short
  head.resize(std::fread(head.data(), 1, head.size(), f));
  std::fclose(f);
  format::FileHeader h;
  size_t size = 0;
  if (!format::DecodeFileHeader(head, &h, &size).ok() || h.boot_id != boot_id ||
      h.boot_id == std::array<uint8_t, 16>{}) {
    return false;
  }
  const auto pid = static_cast<pid_t>(h.pid);
  if (pid != getpid()) return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
  // Its start on the boot clock (the header's is CLOCK_MONOTONIC_RAW's; a
  // second of slack covers starttime's ticks and the clocks' drift).
  const uint64_t offset = ClockNs(CLOCK_BOOTTIME) - MonotonicRawNs();
  return h.start_monotonic_raw_ns + offset + 1000000000ull >= ProcessStartBootNs();
}

// `path`, or where TraceInUse says a trace there (in flight mode, its
// first dump) must be kept, `path`.<pid> (then `path`.<pid>-2, ...).
std::string PathBesideTracesInUse(const std::string& path, bool flight,
                                  const std::array<uint8_t, 16>& boot_id) {
  const auto in_use = [&](const std::string& p) {
    return TraceInUse(flight ? FlightDumpPath(p, 1) : p, boot_id);
  };
  if (!in_use(path)) return path;
  const std::string beside = path + "." + std::to_string(getpid());
  for (int k = 1; k < 100; ++k) {
    const std::string p = k == 1 ? beside : beside + "-" + std::to_string(k);
    if (!in_use(p)) {
      LogWarning(
          "%s holds a trace still in use (of a process that runs, or of this one before "
          "it called exec): this process's trace is that path with \"%s\" added",
          path.c_str(), p.c_str() + path.size());
      return p;
    }
  }
  return beside;
}

// REQUIRES: g_mu held.
void ApplyRecordingLocked() {
  bool on = g_state.load(std::memory_order_relaxed) == State::kRunning && !g_paused &&
            !g_failed.load(std::memory_order_acquire);
  Registry::Get().SetRecording(on);
  g_recording.store(on ? kGateOpen : kGateClosed, std::memory_order_release);
}

void ShutdownAtExit();
void ForkPrepare();
void ForkParent();
void ForkChild();

// REQUIRES: g_mu held. Opens the file and starts the flusher.
void StartLocked(bool in_fork_child) {
  if (g_settings == nullptr) {
    g_settings = new Settings(ReadSettings());
    InitTimebase();
    Registry::Get().SetDomainPatterns(g_settings->domain_patterns);
    if (g_settings->flight_bytes != 0) {
      Registry::Get().SetMarkerTriggerPattern(g_settings->flight_marker);
    }
    g_paused = g_settings->start_paused;
  }
  const std::string exe = ExecutablePath();
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  ProcessNames names;
  names.pid = getpid();
  names.exe_name = BaseName(exe);
  names.rank = g_settings->rank;
  names.host = host;
  const std::string expanded = ExpandOutputPath(g_settings->output, names);
  std::string path = expanded;
  if (in_fork_child && expanded == g_expanded_path) {
    // The pattern has no %p: never write into an ancestor's file.
    path += "." + std::to_string(getpid());
  }
  g_expanded_path = expanded;

  const bool flight = g_settings->flight_bytes != 0;
  std::array<uint8_t, 16> boot_id{};
  format::ParseBootId(ReadSmallFile("/proc/sys/kernel/random/boot_id"), &boot_id);
  path = PathBesideTracesInUse(path, flight, boot_id);
  const bool dir_ok = !IsDirectoryPattern(g_settings->output) ||
                      MakeDirectories(path.substr(0, std::max<size_t>(path.rfind('/'), 1)));
  // In flight mode nothing is written until a dump: no trace file.
  if (flight) {
    g_flight = dir_ok ? FlightStore::Create(g_settings->flight_bytes) : nullptr;
  } else {
    g_file = new OutputFile();
  }
  if (!dir_ok || (flight ? g_flight == nullptr : !g_file->Open(path))) {
    g_state.store(State::kOff, std::memory_order_relaxed);
    ApplyRecordingLocked();
    return;
  }

  format::FileHeader header;
  header.pid = static_cast<uint32_t>(getpid());
  header.ppid = static_cast<uint32_t>(getppid());
  header.rank = g_settings->rank;
  header.boot_id = boot_id;
  header.timebase = g_timebase.use_tsc ? format::Timebase::kTsc : format::Timebase::kMonotonicRawNs;
  header.timebase_hz = g_timebase.hz;
  SyncPoint start = TakeSyncPoint();
  header.start_ticks = start.ticks;
  header.start_realtime_ns = static_cast<int64_t>(start.realtime_ns);
  header.start_monotonic_raw_ns = start.monotonic_raw_ns;
  header.host_name = host;
  header.executable_path = exe;
  header.command_line = ReadSmallFile("/proc/self/cmdline");
  header.writer = std::string("ittcollector 0.1 (tsc hz from ") + g_timebase.hz_source + ")";

  ResetProcessMaps(*g_settings, in_fork_child);
  g_flusher = new Flusher(*g_settings, g_file, g_flight);
  if (!g_flusher->Start(header) || (flight && !flight::Start(*g_settings, g_flight, path))) {
    g_state.store(State::kOff, std::memory_order_relaxed);
    ApplyRecordingLocked();
    return;
  }
  if (!g_hooks_installed) {
    g_hooks_installed = true;
    pthread_atfork(&ForkPrepare, &ForkParent, &ForkChild);
    std::atexit(&ShutdownAtExit);
  }
  g_state.store(State::kRunning, std::memory_order_release);
  ApplyRecordingLocked();
}

// REQUIRES: g_mu held. Ends collection for good and closes the trace (in
// flight mode, writes the last dump, for `reason`).
void StopLocked(format::FlightReason reason) {
  if (g_state.load(std::memory_order_relaxed) != State::kRunning) {
    g_state.store(State::kOff, std::memory_order_relaxed);
    ApplyRecordingLocked();
    return;
  }
  g_state.store(State::kOff, std::memory_order_relaxed);
  ApplyRecordingLocked();
  const uint32_t timeout_ms = g_settings != nullptr ? g_settings->exit_timeout_ms : 5000;
  if (g_flusher != nullptr && !g_flusher->Stop(timeout_ms)) {
    LogWarning(
        "the flusher threads did not finish within %u ms (ITTC_EXIT_TIMEOUT_MS); the trace %s ends "
        "without its end record",
        timeout_ms, g_file != nullptr ? g_file->path().c_str() : "");
  }
  if (g_flight != nullptr) flight::Finish(reason, timeout_ms);
}

void ShutdownAtExit() {
  std::lock_guard<std::mutex> lock(g_mu);
  StopLocked(format::FlightReason::kExit);
}

// fork(): no transition and no registration may be half-done in the child.
void ForkPrepare() {
  g_mu.lock();
  Registry::Get().LockForFork();
  LockProcessMapsForFork();
}

void ForkParent() {
  UnlockProcessMapsAfterFork();
  Registry::Get().UnlockAfterFork();
  g_mu.unlock();
}

void ForkChild() {
  UnlockProcessMapsAfterFork();
  Registry::Get().UnlockAfterFork();
  if (g_state.load(std::memory_order_relaxed) == State::kRunning) {
    // The parent's flusher thread does not exist here; its file is the
    // parent's. Start afresh on this process's first call.
    if (g_flusher != nullptr) g_flusher->AbandonInChild();
    if (g_flight != nullptr) flight::AbandonInChild();
    if (__lsan_ignore_object != nullptr) {
      __lsan_ignore_object(g_flusher);
      __lsan_ignore_object(g_file);
      __lsan_ignore_object(g_flight);
    }
    g_flusher = nullptr;
    g_file = nullptr;
    g_flight = nullptr;
    g_recording.store(kGateSlow, std::memory_order_relaxed);
    // The parent's trace failed: the child's is another, and the domains'
    // flags, cleared by the failure, must let its first call reach us.
    if (g_failed.exchange(false, std::memory_order_relaxed)) {
      Registry::Get().SetRecording(!g_paused);
    }
    ResetThreadsInForkChild();
    g_state.store(State::kForkChild, std::memory_order_release);
  } else if (g_state.load(std::memory_order_relaxed) == State::kForkChild) {
    // Forked again before its first call: the thread that forked is this
    // process's, under its own tid.
    ResetThreadsInForkChild();
  }
  g_mu.unlock();
}

template <typename... Args>
void EmitControl(format::EventKind kind, const Args&... args) {
  CallScope call(CallScope::kControl);
  if (!call.ok()) return;
  Emit(call.thread(), kind, ReadTicks(), args...);
}

}  // namespace

bool SessionStartIfNeeded() {
  State s = g_state.load(std::memory_order_acquire);
  if (s == State::kRunning) return true;
  if (s == State::kOff) return false;
  std::lock_guard<std::mutex> lock(g_mu);
  s = g_state.load(std::memory_order_relaxed);
  if (s == State::kNotStarted) StartLocked(false);
  if (s == State::kForkChild) StartLocked(true);
  return g_state.load(std::memory_order_relaxed) == State::kRunning;
}

bool SessionRunning() {
  return g_state.load(std::memory_order_acquire) == State::kRunning &&
         !g_failed.load(std::memory_order_relaxed);
}

const Settings& SessionSettings() { return *g_settings; }

namespace {

// The host's bit of __itt_collection_scope.
constexpr uint32_t kHostScope = 1;

// REQUIRES: g_mu held. Pauses (pause true) or resumes recording, recording
// the call as `kind` with `args` (while recording is on: before a pause,
// after a resume); nothing if it is so already.
template <typename... Args>
void SetPausedLocked(bool pause, format::EventKind kind, const Args&... args) {
  if (g_paused == pause || g_state.load(std::memory_order_relaxed) != State::kRunning) return;
  if (pause) EmitControl(kind, args...);
  g_paused = pause;
  ApplyRecordingLocked();
  if (!pause) EmitControl(kind, args...);
}

// A scoped pause or resume (kind kPauseScoped or kResumeScoped).
void ScopedLocked(bool pause, format::EventKind kind, uint32_t scope) {
  if ((scope & kHostScope) != 0) return SetPausedLocked(pause, kind, uint64_t{scope});
  // Only another scope's (offload): recorded, and the host's goes on.
  if (!g_paused && g_state.load(std::memory_order_relaxed) == State::kRunning) {
    EmitControl(kind, uint64_t{scope});
  }
}

}  // namespace

void SessionPause() {
  if (!SessionStartIfNeeded()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  SetPausedLocked(true, format::EventKind::kPause);
}

void SessionResume() {
  if (!SessionStartIfNeeded()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  SetPausedLocked(false, format::EventKind::kResume);
}

void SessionPauseScoped(uint32_t scope) {
  if (!SessionStartIfNeeded()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  ScopedLocked(true, format::EventKind::kPauseScoped, scope);
}

void SessionResumeScoped(uint32_t scope) {
  if (!SessionStartIfNeeded()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  ScopedLocked(false, format::EventKind::kResumeScoped, scope);
}

void SessionDetach() {
  if (!SessionStartIfNeeded()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  EmitControl(format::EventKind::kDetach);
  StopLocked(format::FlightReason::kDetach);
}

Flusher* SessionFlushersForTest() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_state.load(std::memory_order_relaxed) == State::kRunning ? g_flusher : nullptr;
}

void OnFlusherFailed() {
  g_failed.store(true, std::memory_order_release);
  g_recording.store(kGateClosed, std::memory_order_release);
  Registry::Get().SetRecording(false);
}

}  // namespace ittc::collector_internal
