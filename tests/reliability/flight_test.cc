// Row 14: the flight recorder (ITTC_FLIGHT_MB). A trigger (the signal, a
// marker, a crash, detach or exit) writes a whole trace file of the last
// events; earlier ones are counted as overwritten; triggers during a dump
// are answered by the next; fork and bad values do no harm. Each test waits
// for files and lines, never for an amount of time.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "collector/internal/flight_recorder.h"
#include "gtest/gtest.h"
#include "tests/reliability/fault_util.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc::testing {
namespace {

using collector_internal::FlightDumpPath;
using format::FlightReason;

constexpr double kHangSeconds = 120;

// Every environment of these tests: a 1 MiB recorder, and producers that
// wait for room rather than drop, so that a dump's events of a thread
// follow each other with nothing missing but what was overwritten.
std::vector<std::string> FlightEnv(const std::string& trace, std::vector<std::string> extra = {}) {
  // Small rings: what the rings and the flushers hold when the workers'
  // last pairs come is far below the recorder's 1 MiB, so those pairs are
  // among the newest chunks whatever the drain order.
  std::vector<std::string> env = {"ITTC_FLIGHT_MB=1", "ITTC_OVERFLOW=block",
                                  "ITTC_BLOCK_TIMEOUT_MS=60000", "ITTC_RING_KB=64"};
  env.insert(env.end(), extra.begin(), extra.end());
  return CollectorEnv(trace, env);
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The task begin numbers (their ids' second part) of each thread, by name,
// in file order: the model's index pass with a visitor.
std::map<std::string, std::vector<uint64_t>> BeginNumbers(const std::string& path) {
  class Visitor : public itt_dump::IndexVisitor {
   public:
    void OnEvent(const format::Event& e, const itt_dump::ThreadRec& thread) override {
      if (e.kind == format::EventKind::kTaskBegin) {
        by_index[thread.index].push_back(e.GetId(format::Field::kId).d2);
      }
    }
    std::map<uint32_t, std::vector<uint64_t>> by_index;
  } visitor;
  itt_dump::IndexOptions options;
  options.visitor = &visitor;
  itt_dump::IndexResult r = itt_dump::BuildIndex(itt_dump::TraceSource::File(path), options);
  std::map<std::string, std::vector<uint64_t>> out;
  if (r.index == nullptr) {
    ADD_FAILURE() << path << ": " << r.status;
    return out;
  }
  for (auto& [index, numbers] : visitor.by_index) {
    const itt_dump::ThreadRec* t = r.index->Thread(index);
    out[t != nullptr ? t->name : "#" + std::to_string(index)] = std::move(numbers);
  }
  return out;
}

uint64_t Overwritten(const ThreadTally& t) {
  auto it = t.lost_by_cause.find(static_cast<int>(format::LossCause::kOverwritten));
  return it == t.lost_by_cause.end() ? 0 : it->second;
}

// A dump read back: a complete trace with its flight record.
TraceSummary LoadDump(const std::string& path) {
  auto loaded = SummarizeTrace(path);
  EXPECT_TRUE(loaded.ok()) << path << ": " << loaded.status();
  if (!loaded.ok()) return {};
  EXPECT_EQ(loaded->corruptions, 0) << path;
  EXPECT_EQ(loaded->truncations, 0) << path;
  EXPECT_EQ(loaded->chunks_missing, 0u) << path;
  EXPECT_TRUE(loaded->has_end) << path;
  EXPECT_TRUE(loaded->has_flight) << path;
  return std::move(*loaded);
}

// For each worker: the dump holds its last events, whole, and the ones
// before them are counted overwritten (or lost otherwise): recorded +
// lost == emitted. `emitted` and `pairs`: the events and the task pairs
// (numbered from 0) each had emitted at the trigger.
void ExpectLastEventsOfEachWorker(const std::string& path,
                                  const std::map<std::string, uint64_t>& emitted,
                                  const std::map<std::string, uint64_t>& pairs,
                                  bool expect_overwritten) {
  const TraceSummary dump = LoadDump(path);
  auto tally = TallyByThreadName(dump);
  const auto numbers = BeginNumbers(path);
  ASSERT_FALSE(emitted.empty());
  for (const auto& [name, n] : emitted) {
    SCOPED_TRACE(name);
    const ThreadTally& t = tally[name];
    EXPECT_EQ(t.events + t.lost, n);
    auto it = numbers.find(name);
    ASSERT_NE(it, numbers.end());
    const std::vector<uint64_t>& begins = it->second;
    ASSERT_FALSE(begins.empty());
    // The last pair is there, and every pair from the first kept one on.
    EXPECT_EQ(begins.back() + 1, pairs.at(name));
    for (size_t k = 1; k < begins.size(); ++k) {
      ASSERT_EQ(begins[k], begins[k - 1] + 1) << "at " << k;
    }
    if (expect_overwritten) {
      // Not the beginning: the first pairs were overwritten, and counted.
      EXPECT_GT(begins.front(), 0u);
      EXPECT_GT(Overwritten(t), 0u);
      EXPECT_EQ(t.lost, Overwritten(t));
    }
  }
}

// What the program said it emitted: (events, pairs) by thread name.
std::pair<std::map<std::string, uint64_t>, std::map<std::string, uint64_t>> Emitted(
    const std::string& out) {
  return {ParseCounts(out, "emitted"), ParseCounts(out, "pairs")};
}

// Runs `itt-dump <verb> <path>`; returns its output (the test fails if it
// did not exit 0).
std::string IttDump(const std::string& verb, const std::string& path, const std::string& dir) {
  const std::string out = dir + "/" + verb + ".out";
  ExitInfo exit = RunFor({Runfile("tools/itt-dump"), verb, path}, {}, out,
                         dir + "/" + verb + ".err", kHangSeconds);
  EXPECT_TRUE(ExitedCleanly(exit)) << verb << " " << path << ": " << Describe(exit) << "\n"
                                   << ReadFileOrEmpty(dir + "/" + verb + ".err");
  return ReadFileOrEmpty(out);
}

uint64_t ValueAfter(const std::string& line, const std::string& prefix) {
  return line.size() > prefix.size() ? std::stoull(line.substr(prefix.size())) : 0;
}

TEST(Flight, SignalDumpHoldsTheLastEventsAndExitWritesAnother) {
  const std::string dir = MakeTempDir("flight_signal");
  const std::string trace = dir + "/app.itt";
  const std::string dump1 = FlightDumpPath(trace, 1);
  const std::string dump2 = FlightDumpPath(trace, 2);
  EXPECT_EQ(dump1, dir + "/app.flight-1.itt");
  pid_t pid = Spawn({Runfile("tests/reliability/flight_program"), "signal", dump1},
                    FlightEnv(trace), dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  const std::string ready = WaitForLine(dir + "/out", "ready ", kHangSeconds);
  if (ready.empty()) {
    kill(pid, SIGKILL);
    WaitFor(pid, kHangSeconds);
    FAIL() << "no ready line\n" << ReadFileOrEmpty(dir + "/err");
  }
  // Nothing is written before a trigger.
  EXPECT_FALSE(Exists(trace));
  EXPECT_FALSE(Exists(dump1));
  ASSERT_EQ(kill(pid, SIGUSR2), 0);
  ExitInfo exit = WaitFor(pid, kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/out");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
  EXPECT_FALSE(Exists(trace));
  EXPECT_FALSE(Exists(dump1 + ".tmp"));

  const auto [emitted, pairs] = Emitted(dir + "/out");
  ASSERT_EQ(emitted.size(), 2u);
  ExpectLastEventsOfEachWorker(dump1, emitted, pairs, /*expect_overwritten=*/true);
  const TraceSummary d1 = LoadDump(dump1);
  EXPECT_EQ(d1.flight.reason, FlightReason::kSignal);
  EXPECT_EQ(d1.flight.signal, static_cast<uint32_t>(SIGUSR2));
  EXPECT_EQ(d1.flight.dump, 1u);
  EXPECT_EQ(d1.flight.triggers, 1u);
  // The window ends at the trigger: after the program's last event before
  // it, before the program saw the dump.
  const std::string after = WaitForLine(dir + "/out", "after ", kHangSeconds);
  EXPECT_GT(d1.flight.window_end, ValueAfter(ready, "ready "));
  EXPECT_LT(d1.flight.window_end, ValueAfter(after, "after "));
  EXPECT_GT(d1.flight.window_begin, d1.header.start_ticks);
  EXPECT_LT(d1.flight.window_begin, d1.flight.window_end);

  // The exit dump: everything the second dump holds is later than the first.
  const TraceSummary d2 = LoadDump(dump2);
  EXPECT_EQ(d2.flight.reason, FlightReason::kExit);
  EXPECT_EQ(d2.flight.dump, 2u);
  EXPECT_GT(d2.flight.window_end, d1.flight.window_end);
  // Phase two: 1000 more pairs, and a thread name, per worker.
  std::map<std::string, uint64_t> emitted_at_exit, pairs_at_exit;
  for (const auto& [name, n] : emitted) emitted_at_exit[name] = n + 2001;
  for (const auto& [name, n] : pairs) pairs_at_exit[name] = n + 1000;
  ExpectLastEventsOfEachWorker(dump2, emitted_at_exit, pairs_at_exit, true);

  // Every verb reads a dump; info shows why it was written and its window.
  const std::string info = IttDump("info", dump1, dir);
  EXPECT_NE(info.find("flight    dump 1 of the flight recorder, written on signal 12 (SIGUSR2)\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("\nwindow    "), std::string::npos) << info;
  EXPECT_NE(info.find(" overwritten\n"), std::string::npos) << info;
  for (const char* verb : {"text", "stats", "verify"}) IttDump(verb, dump1, dir);
  EXPECT_TRUE(
      ExitedCleanly(RunFor({Runfile("tools/itt-dump"), "chrome", dump1, "-o", dir + "/chrome.json"},
                           {}, dir + "/chrome.out", dir + "/chrome.err", kHangSeconds)));
}

TEST(Flight, MarkerWhoseNameMatchesTriggersADumpOthersDoNot) {
  const std::string dir = MakeTempDir("flight_marker");
  const std::string trace = dir + "/app.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/flight_program"), "marker",
                          FlightDumpPath(trace, 1), FlightDumpPath(trace, 2)},
                         FlightEnv(trace, {"ITTC_FLIGHT_MARKER=checkpoint-*"}), dir + "/out",
                         dir + "/err", kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/out");
  for (int n = 1; n <= 2; ++n) {
    SCOPED_TRACE(n);
    const TraceSummary d = LoadDump(FlightDumpPath(trace, static_cast<uint64_t>(n)));
    EXPECT_EQ(d.flight.reason, FlightReason::kMarker);
    EXPECT_EQ(d.strings.at(d.flight.name), "checkpoint-" + std::to_string(n));
    EXPECT_EQ(d.flight.triggers, 1u);  // (one marker each: no other triggered)
    // The marker that triggered the dump is in it, and it is the main
    // thread's last event before the trigger.
    const DecodedEvent* marker = nullptr;
    for (const DecodedEvent& e : d.rare_events) {
      if (e.kind == format::EventKind::kMarker &&
          d.strings.at(e.U("name")) == "checkpoint-" + std::to_string(n)) {
        marker = &e;
      }
    }
    ASSERT_NE(marker, nullptr);
    EXPECT_LE(marker->time, d.flight.window_end);
  }
  // "unrelated", and the ignored thread's "checkpoint-0", did not
  // trigger: the first dump is checkpoint-1's, the third the exit's.
  const TraceSummary d3 = LoadDump(FlightDumpPath(trace, 3));
  EXPECT_EQ(d3.flight.reason, FlightReason::kExit);
  EXPECT_EQ(d3.flight.triggers, 1u);
  EXPECT_FALSE(Exists(FlightDumpPath(trace, 4)));
}

// A trigger posted while the dump of an earlier one waits for its round
// (the flusher held) is the next dump's: the first answers the signal,
// its window ending before the marker (which the round, drained later,
// may have put in it too), and the second the marker, in its window.
TEST(Flight, ATriggerDuringTheRoundOfADumpIsTheNextDumps) {
  const std::string dir = MakeTempDir("flight_overtake");
  const std::string trace = dir + "/app.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/flight_program"), "overtake",
                          FlightDumpPath(trace, 1), FlightDumpPath(trace, 2)},
                         FlightEnv(trace, {"ITTC_FLIGHT_MARKER=checkpoint-*"}), dir + "/out",
                         dir + "/err", kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/out");
  const TraceSummary d1 = LoadDump(FlightDumpPath(trace, 1));
  EXPECT_EQ(d1.flight.reason, FlightReason::kSignal);
  EXPECT_EQ(d1.flight.triggers, 1u);
  const TraceSummary d2 = LoadDump(FlightDumpPath(trace, 2));
  EXPECT_EQ(d2.flight.reason, FlightReason::kMarker);
  EXPECT_EQ(d2.strings.at(d2.flight.name), "checkpoint-2");
  EXPECT_EQ(d2.flight.triggers, 1u);
  const DecodedEvent* marker = nullptr;
  for (const DecodedEvent& e : d2.rare_events) {
    if (e.kind == format::EventKind::kMarker && d2.strings.at(e.U("name")) == "checkpoint-2") {
      marker = &e;
    }
  }
  ASSERT_NE(marker, nullptr);
  EXPECT_LT(d1.flight.window_end, marker->time);
  EXPECT_LE(marker->time, d2.flight.window_end);
}

// A sanitizer's runtime handles the fatal signals itself unless told not
// to (then, their disposition being the default, the collector's handler
// is installed): the options, added to those the test runs with.
std::vector<std::string> SanitizersLeaveFatalSignals() {
  const std::string off =
      "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
  std::vector<std::string> env;
  for (const char* name : {"ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"}) {
    const char* now = std::getenv(name);
    env.push_back(std::string(name) + "=" + (now != nullptr && *now ? std::string(now) + ":" : "") +
                  off);
  }
  return env;
}

class FlightCrash : public ::testing::TestWithParam<const char*> {};

TEST_P(FlightCrash, LeavesAReadableDumpThatEndsJustBeforeTheCrash) {
  const std::string how = GetParam();
  const int signal = how == "abort" ? SIGABRT : SIGSEGV;
  const std::string dir = MakeTempDir("flight_crash_" + how);
  const std::string trace = dir + "/app.itt";
  ExitInfo exit = RunFor({Runfile("tests/reliability/flight_program"), "crash", how},
                         FlightEnv(trace, SanitizersLeaveFatalSignals()), dir + "/out",
                         dir + "/err", kHangSeconds);
  ASSERT_TRUE(exit.finished);
  // The signal's own action went on: the process died of it.
  ASSERT_TRUE(WIFSIGNALED(exit.status)) << Describe(exit);
  EXPECT_EQ(WTERMSIG(exit.status), signal);
  ASSERT_FALSE(WaitForLine(dir + "/out", "crashing", kHangSeconds).empty());
  const auto [emitted, pairs] = Emitted(dir + "/out");
  ExpectLastEventsOfEachWorker(FlightDumpPath(trace, 1), emitted, pairs, true);
  const TraceSummary d = LoadDump(FlightDumpPath(trace, 1));
  EXPECT_EQ(d.flight.reason, FlightReason::kFatalSignal);
  EXPECT_EQ(d.flight.signal, static_cast<uint32_t>(signal));
  // Its main thread's last event is the marker written just before the
  // crash.
  const DecodedEvent* last = nullptr;
  uint32_t main_thread = ~0u;
  for (const DecodedEvent& e : d.rare_events) {
    if (e.kind == format::EventKind::kMarker) main_thread = e.thread;
  }
  // Only the workers emit task pairs, which rare_events leaves out: the
  // main thread's events are all here.
  for (const DecodedEvent& e : d.rare_events) {
    if (e.thread == main_thread) last = &e;
  }
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->kind, format::EventKind::kMarker);
  EXPECT_EQ(d.strings.at(last->U("name")), "before-crash");
  EXPECT_LE(last->time, d.flight.window_end);
  EXPECT_FALSE(Exists(FlightDumpPath(trace, 2)));
  EXPECT_FALSE(Exists(FlightDumpPath(trace, 1) + ".tmp"));
}

INSTANTIATE_TEST_SUITE_P(Signals, FlightCrash, ::testing::Values("segv", "abort"));

// Triggers while a dump is being written: the dump is held by a FIFO at its
// temporary name (open and write block until the test reads), the program
// raises the signal K times meanwhile, and one more dump answers all K.
TEST(Flight, TriggersDuringADumpAreAnsweredByTheNextOne) {
  constexpr int kDuring = 5;
  const std::string dir = MakeTempDir("flight_storm");
  const std::string trace = dir + "/app.itt";
  const std::string dump1 = FlightDumpPath(trace, 1);
  ASSERT_EQ(mkfifo((dump1 + ".tmp").c_str(), 0644), 0);
  const std::string go = dir + "/go";
  pid_t pid = Spawn({Runfile("tests/reliability/flight_program"), "storm", go,
                     std::to_string(kDuring), FlightDumpPath(trace, 2)},
                    FlightEnv(trace), dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  auto give_up = [&](const std::string& why) {
    kill(pid, SIGKILL);
    WaitFor(pid, kHangSeconds);
    ADD_FAILURE() << why << "\n" << ReadFileOrEmpty(dir + "/err");
  };
  if (WaitForLine(dir + "/out", "ready", kHangSeconds).empty()) return give_up("no ready line");
  ASSERT_EQ(kill(pid, SIGUSR2), 0);
  // The dump has begun once its first bytes come through; with the FIFO
  // not read further it cannot end.
  const int fifo = open((dump1 + ".tmp").c_str(), O_RDONLY);
  ASSERT_GE(fifo, 0);
  std::string bytes;
  char buf[65536];
  ssize_t n = read(fifo, buf, 16);
  ASSERT_GT(n, 0);
  bytes.append(buf, static_cast<size_t>(n));
  {
    const int fd = open(go.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    close(fd);
  }
  if (WaitForLine(dir + "/out", "raised", kHangSeconds).empty()) return give_up("no raised line");
  while ((n = read(fifo, buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  close(fifo);
  ExitInfo exit = WaitFor(pid, kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/out");

  // Dump 1, as it came through the FIFO, is whole.
  const std::string copy = dir + "/dump1-copy.itt";
  {
    const int fd = open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fd);
  }
  const TraceSummary d1 = LoadDump(copy);
  EXPECT_EQ(d1.flight.reason, FlightReason::kSignal);
  EXPECT_EQ(d1.flight.triggers, 1u);
  EXPECT_EQ(d1.flight.dump, 1u);
  const TraceSummary d2 = LoadDump(FlightDumpPath(trace, 2));
  EXPECT_EQ(d2.flight.reason, FlightReason::kSignal);
  EXPECT_EQ(d2.flight.triggers, static_cast<uint64_t>(kDuring));
  EXPECT_EQ(d2.flight.dump, 2u);
  const TraceSummary d3 = LoadDump(FlightDumpPath(trace, 3));
  EXPECT_EQ(d3.flight.reason, FlightReason::kExit);
  EXPECT_EQ(d3.flight.triggers, 1u);
  EXPECT_FALSE(Exists(FlightDumpPath(trace, 4)));
  EXPECT_FALSE(Exists(FlightDumpPath(trace, 2) + ".tmp"));
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
}

// fork without exec in flight mode: parent and child each dump their own
// events into their own files (the child's trace path gets its pid).
TEST(Flight, ForkChildDumpsOnlyItsOwnEvents) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // As fork_test (docs/RELIABILITY.md, "Sanitizer caveats"): GCC 12's ASan
  // allocator is not fork-safe, and ThreadSanitizer cannot follow a
  // multi-threaded process's child that starts threads.
  GTEST_SKIP() << "fork under a sanitizer";
#endif
  const std::string dir = MakeTempDir("flight_fork");
  const std::string trace = dir + "/app.itt";
  ExitInfo exit =
      RunFor({Runfile("tests/reliability/flight_program"), "fork", FlightDumpPath(trace, 1)},
             FlightEnv(trace), dir + "/out", dir + "/err", kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/out");
  EXPECT_TRUE(CollectorLines(dir + "/err").empty()) << ReadFileOrEmpty(dir + "/err");
  const auto counts = ParseCounts(dir + "/out", "child");
  ASSERT_EQ(counts.count("pid"), 1u);
  const uint64_t child_pid = counts.at("pid");

  const TraceSummary parent = LoadDump(FlightDumpPath(trace, 1));
  EXPECT_EQ(parent.flight.reason, FlightReason::kSignal);
  const TraceSummary parent_exit = LoadDump(FlightDumpPath(trace, 2));
  EXPECT_EQ(parent_exit.flight.reason, FlightReason::kExit);
  const std::string child_trace = trace + "." + std::to_string(child_pid);
  const TraceSummary child = LoadDump(FlightDumpPath(child_trace, 1));
  EXPECT_EQ(child.flight.reason, FlightReason::kExit);
  EXPECT_EQ(child.header.pid, child_pid);
  EXPECT_NE(parent.header.pid, child_pid);

  const auto [emitted, pairs] = Emitted(dir + "/out");
  for (const auto& [name, n] : emitted) {
    const bool of_child = name.rfind("child-", 0) == 0;
    EXPECT_EQ(TallyByThreadName(of_child ? child : parent)[name].events +
                  TallyByThreadName(of_child ? child : parent)[name].lost,
              n)
        << name;
    EXPECT_EQ(TallyByThreadName(of_child ? parent : child).count(name), 0u) << name;
  }
  ExpectLastEventsOfEachWorker(
      FlightDumpPath(child_trace, 1),
      {{"child-0", emitted.at("child-0")}, {"child-1", emitted.at("child-1")}}, pairs,
      /*expect_overwritten=*/false);
  EXPECT_FALSE(Exists(trace));
  EXPECT_FALSE(Exists(child_trace));
  EXPECT_FALSE(Exists(FlightDumpPath(child_trace, 2)));
}

// A dump whose final name cannot be taken (a directory is there) is
// reported with the reason the rename gave.
TEST(Flight, AFailedRenameSaysWhy) {
  const std::string dir = MakeTempDir("flight_rename");
  const std::string trace = dir + "/app.itt";
  ASSERT_EQ(mkdir(FlightDumpPath(trace, 1).c_str(), 0755), 0);
  ExitInfo exit = RunFor({Runfile("tests/reliability/flight_program"), "plain"},
                         FlightEnv(trace, {}), dir + "/out", dir + "/err", kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  const std::string err = ReadFileOrEmpty(dir + "/err");
  EXPECT_NE(err.find("could not write its dump " + FlightDumpPath(trace, 1) + ": Is a directory"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("Success"), std::string::npos) << err;
}

// A dump that cannot be made is reported once, not at every trigger: the
// signal's dump and the exit's both fail (the directory does not exist),
// and only the first says so.
TEST(Flight, AnOutputThatCannotBeMadeIsReportedOnce) {
  const std::string dir = MakeTempDir("flight_unmade");
  const std::string trace = dir + "/missing/app.itt";
  const std::string go = dir + "/go";
  pid_t pid = Spawn({Runfile("tests/reliability/flight_program"), "signal", go}, FlightEnv(trace),
                    dir + "/out", dir + "/err");
  ASSERT_GT(pid, 0);
  ASSERT_FALSE(WaitForLine(dir + "/out", "ready ", kHangSeconds).empty());
  ASSERT_EQ(kill(pid, SIGUSR2), 0);
  const std::string warning =
      WaitForLine(dir + "/err", "ittcollector: warning: cannot create", kHangSeconds);
  std::ofstream(go) << "go\n";
  ExitInfo exit = WaitFor(pid, kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit);
  ASSERT_FALSE(warning.empty()) << ReadFileOrEmpty(dir + "/err");
  EXPECT_NE(warning.find(FlightDumpPath(trace, 1)), std::string::npos) << warning;
  EXPECT_NE(warning.find("No such file or directory"), std::string::npos) << warning;
  EXPECT_NE(warning.find("further failures are not reported"), std::string::npos) << warning;
  const auto lines = CollectorLines(dir + "/err");
  EXPECT_EQ(lines.size(), 1u) << ReadFileOrEmpty(dir + "/err");
}

// A relative ITTC_OUTPUT counts from the directory the program was in when
// collection started, not from the one it is in at the dump.
TEST(Flight, ARelativePathCountsFromTheDirectoryAtTheStart) {
  const std::string dir = MakeTempDir("flight_chdir");
  const std::string start = dir + "/start";
  const std::string later = dir + "/later";
  ASSERT_EQ(mkdir(start.c_str(), 0755), 0);
  ASSERT_EQ(mkdir(later.c_str(), 0755), 0);
  ExitInfo exit = RunFor({Runfile("tests/reliability/flight_program"), "chdir", start, later},
                         FlightEnv("app.itt"), dir + "/out", dir + "/err", kHangSeconds);
  ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit) << "\n" << ReadFileOrEmpty(dir + "/err");
  EXPECT_EQ(LoadDump(FlightDumpPath(start + "/app.itt", 1)).flight.reason, FlightReason::kExit);
  EXPECT_FALSE(Exists(FlightDumpPath(later + "/app.itt", 1)));
}

// Bad values: one clear warning each, the default, and the program runs
// to its end.
TEST(Flight, BadValuesWarnAndTakeTheDefault) {
  const std::string dir = MakeTempDir("flight_bad");
  {
    // An unreadable size: no flight recorder, the trace is written whole.
    const std::string trace = dir + "/whole.itt";
    ExitInfo exit = RunFor({Runfile("tests/reliability/flight_program"), "plain"},
                           CollectorEnv(trace, {"ITTC_FLIGHT_MB=lots"}), dir + "/out1",
                           dir + "/err1", kHangSeconds);
    ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit);
    const auto lines = CollectorLines(dir + "/err1");
    ASSERT_EQ(lines.size(), 1u) << ReadFileOrEmpty(dir + "/err1");
    EXPECT_NE(lines[0].find("ITTC_FLIGHT_MB=\"lots\""), std::string::npos) << lines[0];
    auto whole = SummarizeTrace(trace);
    ASSERT_TRUE(whole.ok()) << whole.status();
    EXPECT_TRUE(whole->has_end);
    const auto emitted = ParseCounts(dir + "/out1", "emitted");
    ASSERT_EQ(emitted.size(), 2u);
    auto tally = TallyByThreadName(*whole);
    for (const auto& [name, n] : emitted) EXPECT_EQ(tally[name].events + tally[name].lost, n);
    EXPECT_FALSE(Exists(FlightDumpPath(trace, 1)));
  }
  {
    // A signal it cannot take, and a flag it cannot read: SIGUSR2 and
    // crash dumps on, as by default.
    const std::string trace = dir + "/flight.itt";
    pid_t pid =
        Spawn({Runfile("tests/reliability/flight_program"), "signal", FlightDumpPath(trace, 1)},
              FlightEnv(trace, {"ITTC_FLIGHT_SIGNAL=KILL", "ITTC_FLIGHT_FATAL=perhaps"}),
              dir + "/out2", dir + "/err2");
    ASSERT_GT(pid, 0);
    ASSERT_FALSE(WaitForLine(dir + "/out2", "ready ", kHangSeconds).empty());
    ASSERT_EQ(kill(pid, SIGUSR2), 0);
    ExitInfo exit = WaitFor(pid, kHangSeconds);
    ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit);
    const auto lines = CollectorLines(dir + "/err2");
    ASSERT_EQ(lines.size(), 2u) << ReadFileOrEmpty(dir + "/err2");
    EXPECT_NE(lines[0].find("ITTC_FLIGHT_SIGNAL=\"KILL\""), std::string::npos) << lines[0];
    EXPECT_NE(lines[1].find("ITTC_FLIGHT_FATAL=\"perhaps\""), std::string::npos) << lines[1];
    EXPECT_EQ(LoadDump(FlightDumpPath(trace, 1)).flight.reason, FlightReason::kSignal);
    EXPECT_EQ(LoadDump(FlightDumpPath(trace, 2)).flight.reason, FlightReason::kExit);
  }
  {
    // The program's own SIGUSR2 handler keeps the signal (one line says
    // the trigger is off); it still runs, and exit still dumps.
    const std::string trace = dir + "/own.itt";
    ExitInfo exit = RunFor({Runfile("tests/reliability/flight_program"), "own-handler"},
                           FlightEnv(trace), dir + "/out3", dir + "/err3", kHangSeconds);
    ASSERT_TRUE(ExitedCleanly(exit)) << Describe(exit);
    EXPECT_FALSE(WaitForLine(dir + "/out3", "handled 1", kHangSeconds).empty())
        << ReadFileOrEmpty(dir + "/out3");
    const auto lines = CollectorLines(dir + "/err3");
    ASSERT_EQ(lines.size(), 1u) << ReadFileOrEmpty(dir + "/err3");
    EXPECT_NE(lines[0].find("signal trigger is off"), std::string::npos) << lines[0];
    EXPECT_EQ(LoadDump(FlightDumpPath(trace, 1)).flight.reason, FlightReason::kExit);
    EXPECT_FALSE(Exists(FlightDumpPath(trace, 2)));
  }
}

}  // namespace
}  // namespace ittc::testing
