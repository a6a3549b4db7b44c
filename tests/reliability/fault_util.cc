#include "tests/reliability/fault_util.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

extern char** environ;

namespace ittc::testing {
namespace {

double NowSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

std::vector<std::string> CollectorEnv(const std::string& trace_path,
                                      const std::vector<std::string>& extra) {
  std::string lib = Runfile("collector/libittcollector.so");
  // The exit bound is the collector's promise not to hang a process; on a
  // busy machine the last flush can take longer than its 5 s default, so
  // the tests give it a bound only a real hang reaches.
  std::vector<std::string> env = {"INTEL_LIBITTNOTIFY64=" + lib, "INTEL_JIT_PROFILER64=" + lib,
                                  "ITTC_OUTPUT=" + trace_path, "ITTC_EXIT_TIMEOUT_MS=600000"};
  // A variable of `extra` replaces the default of the same name (the
  // environment would hold both, and getenv finds the first).
  auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  for (const std::string& mine : extra) {
    for (std::string& kv : env) {
      if (name_of(kv) == name_of(mine)) kv.clear();
    }
  }
  env.erase(std::remove(env.begin(), env.end(), std::string()), env.end());
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& stdout_path, const std::string& stderr_path) {
  // `env` overrides inherited variables of the same name.
  auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    bool overridden = false;
    for (const std::string& mine : env) overridden |= name_of(mine) == name_of(kv);
    if (!overridden) env_strings.push_back(kv);
  }
  env_strings.insert(env_strings.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& s : args) argp.push_back(s.data());
  argp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

namespace {

// Reaps `pid` once it ends; kills it with SIGKILL (and reaps it) as soon as
// `give_up()` returns true, then returns finished = false.
ExitInfo WaitUntilGiveUp(pid_t pid, const std::function<bool()>& give_up) {
  ExitInfo info;
  double start = NowSeconds();
  rusage usage{};
  for (;;) {
    int status = 0;
    pid_t r = wait4(pid, &status, WNOHANG, &usage);
    if (r == pid) {
      info.finished = true;
      info.status = status;
      break;
    }
    if (r < 0) {
      info.finished = false;
      return info;
    }
    if (give_up()) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      info.finished = false;
      info.status = status;
      break;
    }
    usleep(2000);
  }
  info.seconds = NowSeconds() - start;
  info.max_rss_kb = usage.ru_maxrss;
  return info;
}

}  // namespace

ExitInfo WaitFor(pid_t pid, double timeout_s) {
  double start = NowSeconds();
  return WaitUntilGiveUp(pid, [&] { return NowSeconds() - start > timeout_s; });
}

ExitInfo WaitWhileProgressing(pid_t pid, const std::vector<std::string>& watched, double stall_s) {
  auto total_size = [&watched] {
    off_t total = 0;
    struct stat st;
    for (const std::string& path : watched) {
      if (stat(path.c_str(), &st) == 0) total += st.st_size;
    }
    return total;
  };
  off_t last_size = total_size();
  double last_change = NowSeconds();
  return WaitUntilGiveUp(pid, [&] {
    off_t size = total_size();
    if (size != last_size) {
      last_size = size;
      last_change = NowSeconds();
    }
    return NowSeconds() - last_change > stall_s;
  });
}

ExitInfo RunFor(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                const std::string& stdout_path, const std::string& stderr_path, double timeout_s) {
  pid_t pid = Spawn(argv, env, stdout_path, stderr_path);
  if (pid < 0) return ExitInfo{};
  return WaitFor(pid, timeout_s);
}

bool ExitedCleanly(const ExitInfo& info) {
  return info.finished && WIFEXITED(info.status) && WEXITSTATUS(info.status) == 0;
}

std::string Describe(const ExitInfo& info) {
  std::ostringstream out;
  if (!info.finished) {
    out << "still running at the deadline (killed)";
  } else if (WIFEXITED(info.status)) {
    out << "exit code " << WEXITSTATUS(info.status);
  } else if (WIFSIGNALED(info.status)) {
    out << "killed by signal " << WTERMSIG(info.status);
  } else {
    out << "wait status " << info.status;
  }
  out << " after " << info.seconds << " s";
  return out.str();
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(ReadFileOrEmpty(path));
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> CollectorLines(const std::string& stderr_path) {
  std::vector<std::string> out;
  for (const std::string& line : ReadLines(stderr_path)) {
    if (line.rfind("ittcollector", 0) == 0) out.push_back(line);
  }
  return out;
}

std::map<std::string, uint64_t> ParseCounts(const std::string& path, const std::string& prefix) {
  std::map<std::string, uint64_t> counts;
  for (const std::string& line : ReadLines(path)) {
    std::istringstream in(line);
    std::string word, key;
    uint64_t value;
    if (in >> word >> key >> value && word == prefix) counts[key] = value;
  }
  return counts;
}

namespace {

std::map<std::string, ThreadTally> ByName(
    const std::map<uint32_t, uint64_t>& events,
    const std::map<std::pair<uint32_t, int>, uint64_t>& losses,
    const std::map<uint32_t, std::string>& names) {
  std::map<uint32_t, ThreadTally> by_index;
  for (const auto& [thread, n] : events) by_index[thread].events += n;
  for (const auto& [key, count] : losses) {
    by_index[key.first].lost += count;
    by_index[key.first].lost_by_cause[key.second] += count;
  }
  std::map<std::string, ThreadTally> by_name;
  for (const auto& [index, tally] : by_index) {
    auto it = names.find(index);
    std::string name = it != names.end() ? it->second : "#" + std::to_string(index);
    ThreadTally& t = by_name[name];
    t.events += tally.events;
    t.lost += tally.lost;
    for (const auto& [cause, n] : tally.lost_by_cause) t.lost_by_cause[cause] += n;
  }
  return by_name;
}

}  // namespace

uint64_t TraceSummary::TotalLoss() const {
  uint64_t total = 0;
  for (const auto& [key, n] : losses) total += n;
  return total;
}

int TraceSummary::CountNamed(format::EventKind kind, const char* field,
                             const std::string& text) const {
  int n = 0;
  for (const DecodedEvent& e : rare_events) {
    if (e.kind != kind) continue;
    auto it = strings.find(e.U(field));
    if (it != strings.end() && it->second == text) ++n;
  }
  return n;
}

absl::StatusOr<TraceSummary> SummarizeTrace(const std::string& path) {
  auto loaded = LoadTrace(path, KeepEvents::kAllButTaskPairs);
  if (!loaded.ok()) return loaded.status();
  TraceSummary trace;
  trace.header = std::move(loaded->header);
  trace.events_per_thread = std::move(loaded->event_counts);
  for (const auto& [thread, n] : trace.events_per_thread) trace.total_events += n;
  trace.thread_names = std::move(loaded->thread_names);
  trace.losses = std::move(loaded->losses);
  trace.strings = std::move(loaded->strings);
  trace.domains = std::move(loaded->domains);
  trace.rare_events = std::move(loaded->events);
  trace.has_end = loaded->has_end;
  trace.end = loaded->end;
  trace.has_flight = loaded->has_flight;
  trace.flight = loaded->flight;
  trace.chunks_missing = loaded->stats.chunks_missing;
  trace.corruptions = loaded->corruptions;
  trace.truncations = loaded->truncations;
  return trace;
}

std::map<std::string, ThreadTally> TallyByThreadName(const TraceSummary& trace) {
  return ByName(trace.events_per_thread, trace.losses, trace.thread_names);
}

std::map<std::string, ThreadTally> TallyByThreadName(const LoadedTrace& trace) {
  std::map<uint32_t, uint64_t> events;
  for (const DecodedEvent& e : trace.events) ++events[e.thread];
  return ByName(events, trace.losses, trace.thread_names);
}

absl::StatusOr<TraceSummary> WaitForTrace(const std::string& path,
                                          const std::function<bool(const TraceSummary&)>& done,
                                          double timeout_s) {
  double start = NowSeconds();
  for (;;) {
    absl::StatusOr<TraceSummary> trace = SummarizeTrace(path);
    if (trace.ok() && done(*trace)) return trace;
    if (NowSeconds() - start > timeout_s) return trace;
    usleep(20 * 1000);
  }
}

std::string WaitForLine(const std::string& path, const std::string& prefix, double timeout_s) {
  double start = NowSeconds();
  while (NowSeconds() - start < timeout_s) {
    // Only whole lines: the program may be in the middle of writing one.
    std::string text = ReadFileOrEmpty(path);
    size_t at = 0;
    for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
      std::string line = text.substr(at, nl - at);
      if (line.rfind(prefix, 0) == 0) return line;
    }
    usleep(5000);
  }
  return {};
}

}  // namespace ittc::testing
