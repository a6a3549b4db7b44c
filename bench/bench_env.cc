#include "bench/bench_env.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

extern char** environ;

namespace ittc::bench {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string SelfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  buf[n] = '\0';
  return buf;
}

uint64_t NowNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

std::string Runfile(const std::string& workspace_path) {
  const std::string rel = "ittcollector/" + workspace_path;
  if (const char* dir = std::getenv("RUNFILES_DIR"); dir != nullptr) {
    std::string p = std::string(dir) + "/" + rel;
    if (Exists(p)) return p;
  }
  std::string p = SelfExe() + ".runfiles/" + rel;
  if (Exists(p)) return p;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) {
    // bazel run starts in <binary>.runfiles/ittcollector.
    p = std::string(cwd) + "/" + workspace_path;
    if (Exists(p)) return p;
  }
  std::fprintf(stderr, "bench: runfile %s not found\n", workspace_path.c_str());
  std::exit(2);
}

std::string CollectorPath() { return Runfile("collector/libittcollector.so"); }
std::string NaiveCollectorPath() { return Runfile("bench/libnaive_collector.so"); }

void SetEnv(const char* name, const std::string& value) { setenv(name, value.c_str(), 1); }
void UnsetEnv(const char* name) { unsetenv(name); }

std::string MakeTempDir(const char* prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    std::perror("mkdtemp");
    std::exit(2);
  }
  return buf.data();
}

void RemoveTree(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    unlink((dir + "/" + e->d_name).c_str());
  }
  closedir(d);
  rmdir(dir.c_str());
}

int RunSelf(const std::vector<std::string>& args, const std::vector<std::string>& env,
            const std::string& stdout_path) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    // Later NAME=VALUE entries replace earlier ones of the same name.
    std::string kv = *e;
    bool replaced = false;
    for (const std::string& add : env) {
      if (kv.compare(0, add.find('=') + 1, add, 0, add.find('=') + 1) == 0) replaced = true;
    }
    if (!replaced) env_strings.push_back(kv);
  }
  for (const std::string& kv : env) env_strings.push_back(kv);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  std::string exe = SelfExe();
  std::vector<std::string> argv_strings = {exe};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argp;
  for (std::string& s : argv_strings) argp.push_back(s.data());
  argp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stdout_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  std::fflush(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string FlagValue(int argc, char** argv, const char* name) {
  std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return argv[i] + prefix.size();
    }
  }
  return "";
}

std::vector<std::string> ArgsWithout(int argc, char** argv, const std::vector<std::string>& drop) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    bool skip = false;
    for (const std::string& name : drop) {
      std::string prefix = "--" + name + "=";
      if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) skip = true;
    }
    if (!skip) out.emplace_back(argv[i]);
  }
  return out;
}

double TscHz() {
  static const double hz = [] {
    uint64_t t0 = NowNs(CLOCK_MONOTONIC_RAW);
    uint64_t c0 = __rdtsc();
    while (NowNs(CLOCK_MONOTONIC_RAW) - t0 < 20000000) {
    }
    uint64_t t1 = NowNs(CLOCK_MONOTONIC_RAW);
    uint64_t c1 = __rdtsc();
    return static_cast<double>(c1 - c0) * 1e9 / static_cast<double>(t1 - t0);
  }();
  return hz;
}

uint64_t ProcessCpuNs() { return NowNs(CLOCK_PROCESS_CPUTIME_ID); }
uint64_t ThreadCpuNs() { return NowNs(CLOCK_THREAD_CPUTIME_ID); }

std::string FindTask(const char* comm) {
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return "";
  std::string found;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string dir = std::string("/proc/self/task/") + e->d_name;
    FILE* f = std::fopen((dir + "/comm").c_str(), "r");
    if (f == nullptr) continue;
    char buf[64] = {};
    if (std::fgets(buf, sizeof(buf), f) != nullptr &&
        std::strncmp(buf, comm, std::strlen(comm)) == 0) {
      found = dir;
    }
    std::fclose(f);
  }
  closedir(d);
  return found;
}

namespace {

// Field `index` (0: run time, 1: run-queue wait) of a thread's schedstat.
uint64_t SchedStatField(const std::string& task_dir, int index) {
  if (task_dir.empty()) return 0;
  FILE* f = std::fopen((task_dir + "/schedstat").c_str(), "r");
  if (f == nullptr) return 0;
  unsigned long long fields[2] = {0, 0};
  int n = std::fscanf(f, "%llu %llu", &fields[0], &fields[1]);
  std::fclose(f);
  return n == 2 ? fields[index] : 0;
}

}  // namespace

uint64_t TaskRunNs(const std::string& task_dir) { return SchedStatField(task_dir, 0); }
uint64_t RunQueueWaitNs(const std::string& task_dir) { return SchedStatField(task_dir, 1); }

uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

std::string FindTrace(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return "";
  std::string found;
  while (dirent* e = readdir(d)) {
    size_t n = std::strlen(e->d_name);
    if (n > 4 && std::strcmp(e->d_name + n - 4, ".itt") == 0) found = dir + "/" + e->d_name;
  }
  closedir(d);
  return found;
}

}  // namespace ittc::bench
