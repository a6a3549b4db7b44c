#include "collector/internal/flight_recorder.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "collector/internal/flusher.h"
#include "collector/internal/log.h"
#include "collector/internal/timebase.h"

namespace ittc::collector_internal {
namespace {

using format::FlightReason;

constexpr std::string_view kTraceSuffix = ".itt";
constexpr std::string_view kDumpInfix = ".flight-";
constexpr std::string_view kTempSuffix = ".tmp";
// Ends the warning of a failed dump: the ones that fail after it say nothing.
constexpr char kUntilADumpSucceeds[] = " (further failures are not reported until a dump succeeds)";

// Splits a trace path into what comes before and after a dump's number.
void SplitDumpPath(const std::string& trace_path, std::string* before, std::string* after) {
  const size_t n = trace_path.size();
  const bool itt =
      n >= kTraceSuffix.size() &&
      trace_path.compare(n - kTraceSuffix.size(), kTraceSuffix.size(), kTraceSuffix) == 0;
  *before = trace_path.substr(0, itt ? n - kTraceSuffix.size() : n);
  before->append(kDumpInfix);
  *after = itt ? std::string(kTraceSuffix) : std::string();
}

long Futex(std::atomic<int>* addr, int op, int value, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<int*>(addr), op, value, timeout, nullptr, 0);
}

void WakeAll(std::atomic<int>* addr) { Futex(addr, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr); }

// Waits while *addr == value, until `deadline_ns`; false once it passed.
bool WaitUntil(std::atomic<int>* addr, int value, uint64_t deadline_ns) {
  const uint64_t now = MonotonicRawNs();
  if (now >= deadline_ns) return false;
  const uint64_t left = deadline_ns - now;
  const timespec ts{static_cast<time_t>(left / 1000000000u), static_cast<long>(left % 1000000000u)};
  Futex(addr, FUTEX_WAIT_PRIVATE, value, &ts);
  return true;
}

// A line on stderr from a signal handler, where LogWarning's formatting
// is not allowed.
void SignalSafeWarning(const char* text) {
  const char prefix[] = "ittcollector: warning: ";
  ssize_t ignored = write(STDERR_FILENO, prefix, sizeof prefix - 1);
  ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

// A trigger's reason, signal and marker name in one word, so that one
// store publishes them together.
uint64_t PackTrigger(FlightReason reason, uint32_t signal, uint32_t name) {
  return static_cast<uint64_t>(reason) | uint64_t{signal & 0xffffff} << 8 | uint64_t{name} << 32;
}

void UnpackTrigger(uint64_t word, FlightDumpRequest* request) {
  request->reason = static_cast<FlightReason>(word & 0xff);
  request->signal = static_cast<uint32_t>(word >> 8 & 0xffffff);
  request->marker_name = word >> 32;
}

// Thread safety: fields set by Start before g_recorder publishes the
// object are read-only afterwards. `served` is written by the one that
// writes a dump, holding the store's dump lock.
struct Recorder {
  FlightStore* store = nullptr;
  // The dump's path is before + number + after (+ kTempSuffix while it is
  // written), composed without allocating (a fatal signal's handler).
  char before[PATH_MAX] = {};
  char after[8] = {};
  // The dump's names while it is written (with the store's dump lock): not
  // on the stack of a signal handler, which may be a small one.
  char temp_path[PATH_MAX + 32] = {};
  char final_path[PATH_MAX + 32] = {};
  // Whether the last dump failed (with the dump lock): a failure after a
  // failure is not reported again, so that a trigger that keeps firing
  // at an output that cannot be made does not flood stderr.
  bool failing = false;
  std::atomic<uint64_t> dumps{0};  // numbers given so far
  // Triggers posted so far, and the last one's time and what; `posting`
  // counts the posts begun (before they store trigger_*), so that a reader
  // can tell none was half-way (posting == requested).
  std::atomic<int> posting{0};
  std::atomic<int> requested{0};
  std::atomic<uint64_t> trigger_ticks{0};
  std::atomic<uint64_t> trigger_what{0};
  // Triggers answered by a dump written so far (with the dump lock).
  std::atomic<int> served{0};
  // Bumped by every post and by Finish; the dumper thread sleeps on it.
  std::atomic<int> bell{0};
  std::atomic<int> stop{0};
  std::atomic<int> thread_done{0};
  // Set by the last dump (Finish, or a fatal signal's): nothing after it.
  std::atomic<int> finished{0};
  pthread_t thread{};
};

// Published by Start (release); read by the hooks (acquire).
std::atomic<Recorder*> g_recorder{nullptr};

// The thread writing the dump of a fatal signal (0: none), and whether it
// is done; other threads that crash meanwhile wait for it.
std::atomic<int> g_fatal_thread{0};
std::atomic<int> g_fatal_done{0};

bool g_handlers_installed = false;  // under the session lock

// Writes "<before><n><after>[.tmp]" into out[PATH_MAX + 32]; false if it
// does not fit.
bool ComposePath(const Recorder& r, uint64_t n, bool temp, char* out, size_t size) {
  char digits[24];
  int d = 0;
  do {
    digits[d++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  const size_t before = std::strlen(r.before);
  const size_t after = std::strlen(r.after);
  const size_t total = before + static_cast<size_t>(d) + after + (temp ? kTempSuffix.size() : 0);
  if (total + 1 > size) return false;
  char* p = out;
  std::memcpy(p, r.before, before);
  p += before;
  while (d > 0) *p++ = digits[--d];
  std::memcpy(p, r.after, after);
  p += after;
  if (temp) {
    std::memcpy(p, kTempSuffix.data(), kTempSuffix.size());
    p += kTempSuffix.size();
  }
  *p = '\0';
  return true;
}

// Writes dump `request.dump` under its temporary name and renames it.
// REQUIRES: the store's dump lock. Async-signal-safe when `in_handler`
// (its only report is then a fixed line).
bool WriteDumpFile(Recorder* r, const FlightDumpRequest& request, uint64_t deadline_ns,
                   bool in_handler) {
  char* const temp = r->temp_path;
  char* const final_path = r->final_path;
  if (!ComposePath(*r, request.dump, true, temp, sizeof r->temp_path) ||
      !ComposePath(*r, request.dump, false, final_path, sizeof r->final_path)) {
    return false;
  }
  const int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (r->failing) return false;
    r->failing = true;
    if (in_handler) {
      SignalSafeWarning("cannot create the flight recorder's dump file\n");
    } else {
      LogWarning("cannot create the flight recorder's dump %s: %s%s", temp, std::strerror(errno),
                 kUntilADumpSucceeds);
    }
    return false;
  }
  FlightDumpResult result;
  // The reason of the step that failed: the write, the close or the rename.
  bool ok = r->store->WriteDump(fd, request, deadline_ns, &result);
  int error = ok ? 0 : errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok) {
    if (rename(temp, final_path) == 0) {
      r->failing = false;
      return true;
    }
    error = errno;
  }
  unlink(temp);
  if (r->failing) return false;
  r->failing = true;
  if (in_handler) {
    SignalSafeWarning("the flight recorder could not write its dump\n");
  } else {
    LogWarning("the flight recorder could not write its dump %s: %s%s", final_path,
               std::strerror(error), kUntilADumpSucceeds);
  }
  return false;
}

// Dump number `n`, answering the triggers posted so far (`requested` of
// them): the caller says what it is for (its reason and time).
FlightDumpRequest PendingRequest(Recorder* r, int requested, uint64_t n) {
  FlightDumpRequest request;
  request.dump = n;
  request.triggers = static_cast<uint64_t>(requested - r->served.load(std::memory_order_relaxed));
  return request;
}

// The triggers posted so far and the last one's what and time, read
// together: again while a post was half-way (a few times at most; two
// posts at once can still mix their what and time).
int ReadTriggers(Recorder* r, uint64_t* what, uint64_t* ticks) {
  int requested = 0;
  for (int tries = 0; tries < 100; ++tries) {
    // Acquire: pairs with the post's release; its trigger_* are visible.
    requested = r->requested.load(std::memory_order_acquire);
    // Acquire: a post whose stores these read began (posting) before them.
    *what = r->trigger_what.load(std::memory_order_acquire);
    *ticks = r->trigger_ticks.load(std::memory_order_acquire);
    if (r->posting.load(std::memory_order_relaxed) == requested) break;
  }
  return requested;
}

void* DumperMain(void* arg) {
  pthread_setname_np(pthread_self(), "ittc-flight");
  Recorder* r = static_cast<Recorder*>(arg);
  for (;;) {
    const int bell = r->bell.load(std::memory_order_acquire);
    if (r->stop.load(std::memory_order_acquire) != 0) break;
    // The trigger this dump answers, read now: one posted while the round
    // below runs is the next dump's (its window may end after what the
    // round drained).
    uint64_t what = 0;
    uint64_t ticks = 0;
    const int requested = ReadTriggers(r, &what, &ticks);
    if (requested == r->served.load(std::memory_order_relaxed)) {
      Futex(&r->bell, FUTEX_WAIT_PRIVATE, bell, nullptr);
      continue;
    }
    // What the rings hold at the trigger goes into the dump.
    Flusher::WaitForRound(Flusher::RequestFullRound(), DeadlineAfterMs(kFlightRoundWaitMs));
    r->store->BeginDump(UINT64_MAX);
    if (r->finished.load(std::memory_order_acquire) == 0) {
      FlightDumpRequest request =
          PendingRequest(r, requested, r->dumps.fetch_add(1, std::memory_order_relaxed) + 1);
      UnpackTrigger(what, &request);
      request.trigger_ticks = ticks;
      WriteDumpFile(r, request, UINT64_MAX, /*in_handler=*/false);
      r->served.store(requested, std::memory_order_relaxed);
    }
    r->store->EndDump();
  }
  r->thread_done.store(1, std::memory_order_release);
  WakeAll(&r->thread_done);
  return nullptr;
}

void Post(FlightReason reason, uint32_t signal, uint32_t name, uint64_t ticks) {
  Recorder* r = g_recorder.load(std::memory_order_acquire);
  if (r == nullptr || r->finished.load(std::memory_order_relaxed) != 0) return;
  r->posting.fetch_add(1, std::memory_order_relaxed);
  // Release: a reader of these sees the posting count above (ReadTriggers).
  r->trigger_ticks.store(ticks, std::memory_order_release);
  r->trigger_what.store(PackTrigger(reason, signal, name), std::memory_order_release);
  r->requested.fetch_add(1, std::memory_order_release);
  r->bell.fetch_add(1, std::memory_order_release);
  WakeAll(&r->bell);
}

void OnTriggerSignal(int signal, siginfo_t*, void*) {
  const int saved_errno = errno;
  Post(FlightReason::kSignal, static_cast<uint32_t>(signal), 0, ReadTicks());
  errno = saved_errno;
}

// The dump of a fatal signal, on the thread that got it.
void DumpOnFatal(Recorder* r, int signal) {
  const uint64_t ticks = ReadTicks();
  const uint64_t deadline = DeadlineAfterMs(kFlightFatalWaitMs);
  // The flusher is usually alive: what the rings hold goes in too. Not
  // from the flusher itself, and bounded: the crashed thread may hold
  // something the flusher's round needs (the registry's lock, malloc's).
  if (!Flusher::OnFlusherThread()) {
    const uint64_t round_deadline = DeadlineAfterMs(kFlightRoundWaitMs);
    Flusher::WaitForRound(Flusher::RequestFullRound(), round_deadline);
  }
  if (!r->store->BeginDump(deadline)) {
    SignalSafeWarning("the flight recorder's dump in progress did not end; no crash dump\n");
    return;
  }
  if (r->finished.load(std::memory_order_acquire) == 0) {
    FlightDumpRequest request =
        PendingRequest(r, r->requested.load(std::memory_order_acquire),
                       r->dumps.fetch_add(1, std::memory_order_relaxed) + 1);
    request.triggers += 1;
    request.reason = FlightReason::kFatalSignal;
    request.signal = static_cast<uint32_t>(signal);
    request.marker_name = 0;
    request.trigger_ticks = ticks;
    r->finished.store(1, std::memory_order_release);
    WriteDumpFile(r, request, deadline, /*in_handler=*/true);
  }
  r->store->EndDump();
}

void OnFatalSignal(int signal, siginfo_t* info, void*) {
  const int saved_errno = errno;
  Recorder* r = g_recorder.load(std::memory_order_acquire);
  const int me = static_cast<int>(syscall(SYS_gettid));
  int owner = 0;
  if (r != nullptr && g_fatal_thread.compare_exchange_strong(owner, me)) {
    DumpOnFatal(r, signal);
    g_fatal_done.store(1, std::memory_order_release);
    WakeAll(&g_fatal_done);
  } else if (owner != 0 && owner != me) {
    // Another thread writes the crash dump: the process must not end before.
    const uint64_t deadline = DeadlineAfterMs(kFlightFatalWaitMs);
    while (g_fatal_done.load(std::memory_order_acquire) == 0 &&
           WaitUntil(&g_fatal_done, 0, deadline)) {
    }
  }
  // The signal's own action now: the default one, which was in place
  // before ours. A fault comes back as the instruction runs again; a
  // signal sent by kill, raise or abort is sent again, and delivered when
  // this handler returns.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(signal, &dfl, nullptr);
  if (info == nullptr || info->si_code <= 0) raise(signal);
  errno = saved_errno;
}

// Installs `handler` on `signal` if the signal has its default disposition;
// true if ours is installed (now or before).
bool InstallIfDefault(int signal, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction old {};
  if (sigaction(signal, nullptr, &old) != 0) return false;
  if ((old.sa_flags & SA_SIGINFO) != 0) return old.sa_sigaction == handler;
  if (old.sa_handler != SIG_DFL) return false;
  struct sigaction ours {};
  ours.sa_sigaction = handler;
  ours.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  return sigaction(signal, &ours, nullptr) == 0;
}

void InstallHandlers(const Settings& settings) {
  if (g_handlers_installed) return;
  g_handlers_installed = true;
  if (settings.flight_signal != 0 && !InstallIfDefault(settings.flight_signal, &OnTriggerSignal)) {
    LogWarning(
        "signal %d already has a handler of the program; the flight recorder's signal trigger "
        "is off (ITTC_FLIGHT_SIGNAL chooses another)",
        settings.flight_signal);
  }
  if (!settings.flight_fatal) return;
  // A handler of the program's own keeps its signal: it may recover (a
  // JVM's null checks) or report the crash itself.
  for (int signal : kFlightFatalSignals) InstallIfDefault(signal, &OnFatalSignal);
}

}  // namespace

std::string FlightDumpPath(const std::string& trace_path, uint64_t n) {
  std::string before, after;
  SplitDumpPath(trace_path, &before, &after);
  return before + std::to_string(n) + after;
}

namespace flight {

bool Start(const Settings& settings, FlightStore* store, const std::string& trace_path) {
  auto* r = new (std::nothrow) Recorder();
  if (r == nullptr) return false;
  r->store = store;
  // Dumps are written later, perhaps after the program changed its
  // directory: a relative path counts from the directory at the start.
  std::string path = trace_path;
  if (!path.empty() && path[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) != nullptr) path = std::string(cwd) + "/" + path;
  }
  std::string before, after;
  SplitDumpPath(path, &before, &after);
  if (before.size() >= sizeof r->before) {
    LogWarning("the trace path %s is too long for the flight recorder's dumps; collection is off",
               trace_path.c_str());
    delete r;
    return false;
  }
  std::memcpy(r->before, before.c_str(), before.size() + 1);
  std::memcpy(r->after, after.c_str(), after.size() + 1);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  // The dumper must not see the host's signals.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const int rc = pthread_create(&r->thread, &attr, &DumperMain, r);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    LogWarning("cannot start the flight recorder's thread: %s; collection is off",
               std::strerror(rc));
    delete r;
    return false;
  }
  g_fatal_thread.store(0, std::memory_order_relaxed);
  g_fatal_done.store(0, std::memory_order_relaxed);
  g_recorder.store(r, std::memory_order_release);
  InstallHandlers(settings);
  return true;
}

void Finish(FlightReason reason, uint32_t timeout_ms) {
  Recorder* r = g_recorder.load(std::memory_order_acquire);
  if (r == nullptr) return;
  const uint64_t ticks = ReadTicks();
  const uint64_t deadline = DeadlineAfterMs(timeout_ms);
  r->stop.store(1, std::memory_order_release);
  r->bell.fetch_add(1, std::memory_order_release);
  WakeAll(&r->bell);
  while (r->thread_done.load(std::memory_order_acquire) == 0 &&
         WaitUntil(&r->thread_done, 0, deadline)) {
  }
  if (r->thread_done.load(std::memory_order_acquire) != 0) {
    pthread_join(r->thread, nullptr);
  } else {
    pthread_detach(r->thread);
  }
  if (!r->store->BeginDump(deadline)) {
    LogWarning("the flight recorder's dump in progress did not end within %u ms; no %s dump",
               timeout_ms, format::FlightReasonName(static_cast<uint64_t>(reason)));
    r->finished.store(1, std::memory_order_release);
    return;
  }
  if (r->finished.load(std::memory_order_acquire) == 0) {
    FlightDumpRequest request =
        PendingRequest(r, r->requested.load(std::memory_order_acquire),
                       r->dumps.fetch_add(1, std::memory_order_relaxed) + 1);
    request.triggers += 1;
    request.reason = reason;
    request.signal = 0;
    request.marker_name = 0;
    request.trigger_ticks = ticks;
    r->finished.store(1, std::memory_order_release);
    WriteDumpFile(r, request, deadline, /*in_handler=*/false);
  }
  r->store->EndDump();
}

void AbandonInChild() {
  // The recorder is the parent's, and so is its store (leaked on purpose:
  // its pages are shared copy-on-write with the parent until written).
  g_recorder.store(nullptr, std::memory_order_relaxed);
  g_fatal_thread.store(0, std::memory_order_relaxed);
  g_fatal_done.store(0, std::memory_order_relaxed);
}

void PostMarker(uint32_t name, uint64_t ticks) { Post(FlightReason::kMarker, 0, name, ticks); }

}  // namespace flight
}  // namespace ittc::collector_internal
