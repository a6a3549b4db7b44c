// What a trace says about its process, written by the collector: file
// names and header fields under a launcher's rank (ITTC_OUTPUT=dir/), the
// module map kept current across dlopen/dlclose, and the live perf map of
// ITTC_PERF_MAP=1.

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"

namespace ittc::testing {
namespace {

using K = format::EventKind;

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct RunResult {
  int status = -1;
  std::string stdout_text;
};

RunResult RunMaps(const std::string& dir, const std::vector<std::string>& env, bool fork_child) {
  const std::string lib = Runfile("collector/libittcollector.so");
  std::vector<std::string> full_env = {"INTEL_LIBITTNOTIFY64=" + lib, "INTEL_JIT_PROFILER64=" + lib,
                                       "ITTC_FLUSH_MS=5"};
  full_env.insert(full_env.end(), env.begin(), env.end());
  std::vector<std::string> argv = {Runfile("tests/collector/maps_program"),
                                   Runfile("tests/collector/libmaps_plugin.so")};
  if (fork_child) argv.push_back("fork");
  RunResult r;
  r.status = RunProgram(argv, full_env, dir + "/stdout.txt", dir + "/stderr.txt");
  r.stdout_text = ReadFile(dir + "/stdout.txt");
  return r;
}

TEST(ProcessIdentity, RankedProcessWritesIntoTheDirectoryWithRankInTheHeader) {
  const std::string dir = MakeTempDir("ranked");
  // The directory and its parents do not exist yet.
  RunResult r = RunMaps(dir, {"OMPI_COMM_WORLD_RANK=3", "ITTC_OUTPUT=" + dir + "/out/job/"}, false);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  const std::vector<std::string> files = ListDir(dir + "/out/job");
  ASSERT_EQ(files.size(), 1u);
  int pid = 0;
  std::sscanf(r.stdout_text.c_str(), "%d", &pid);
  char expected[64];
  std::snprintf(expected, sizeof expected, "r000003-p%07d-maps_program.itt", pid);
  EXPECT_EQ(files[0], expected);

  auto t = LoadTrace(dir + "/out/job/" + files[0]);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->header.rank, 3);
  EXPECT_EQ(t->header.pid, static_cast<uint32_t>(pid));
  EXPECT_EQ(t->header.ppid, static_cast<uint32_t>(getpid()));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(t->header.host_name, host);
  std::array<uint8_t, 16> boot{};
  ASSERT_TRUE(format::ParseBootId(ReadFile("/proc/sys/kernel/random/boot_id"), &boot));
  EXPECT_EQ(t->header.boot_id, boot);
  EXPECT_TRUE(t->has_end);
}

TEST(ProcessIdentity, WithoutALauncherTheFileHasNoRank) {
  const std::string dir = MakeTempDir("unranked");
  RunResult r = RunMaps(dir, {"ITTC_OUTPUT=" + dir + "/out/"}, false);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  const std::vector<std::string> files = ListDir(dir + "/out");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].substr(0, 1), "p");
  auto t = LoadTrace(dir + "/out/" + files[0]);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->header.rank, format::kNoRank);
}

TEST(ProcessIdentity, ForkChildGetsItsOwnFileInTheDirectory) {
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's ASan allocator is not fork-safe: a child of a threaded parent
  // can hang in malloc (tests/reliability/BUILD excludes fork_test alike).
  GTEST_SKIP() << "fork children under ASan";
#endif
  const std::string dir = MakeTempDir("forked");
  RunResult r = RunMaps(dir, {"PMI_RANK=1", "ITTC_OUTPUT=" + dir + "/out/"}, true);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  const std::vector<std::string> files = ListDir(dir + "/out");
  ASSERT_EQ(files.size(), 2u);
  auto a = LoadTrace(dir + "/out/" + files[0]);
  auto b = LoadTrace(dir + "/out/" + files[1]);
  ASSERT_TRUE(a.ok() && b.ok());
  // Same rank; sorted by pid; one is the other's parent.
  EXPECT_EQ(a->header.rank, 1);
  EXPECT_EQ(b->header.rank, 1);
  EXPECT_LT(a->header.pid, b->header.pid);
  EXPECT_TRUE(a->header.ppid == b->header.pid || b->header.ppid == a->header.pid);
  EXPECT_TRUE(a->has_end);
  EXPECT_TRUE(b->has_end);
}

struct ModuleView {
  uint64_t start = 0;
  uint64_t size = 0;
  std::string path;
  std::string build_id;
  bool unmapped = false;
};

std::vector<ModuleView> Modules(const LoadedTrace& t) {
  std::vector<ModuleView> out;
  for (const DecodedEvent& d : t.definitions) {
    if (d.kind == K::kModuleMapped) {
      out.push_back({d.U("start_addr"), d.U("size"), d.Bytes("path"), d.Bytes("build_id"), false});
    } else if (d.kind == K::kModuleUnmapped) {
      for (ModuleView& m : out) {
        if (m.start == d.U("start_addr") && !m.unmapped) m.unmapped = true;
      }
    }
  }
  return out;
}

const ModuleView* Containing(const std::vector<ModuleView>& modules, uint64_t addr) {
  for (const ModuleView& m : modules) {
    if (addr >= m.start && addr - m.start < m.size) return &m;
  }
  return nullptr;
}

std::string RealPath(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) != nullptr ? std::string(buf) : p;
}

TEST(ModuleMap, RecordsTheExecutableAndAPluginLoadedAndUnloaded) {
  const std::string dir = MakeTempDir("modules");
  const std::string trace = dir + "/t.itt";
  RunResult r = RunMaps(dir, {"ITTC_OUTPUT=" + trace}, false);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  unsigned long long plugin_fn = 0;
  int pid = 0, value = 0;
  ASSERT_EQ(std::sscanf(r.stdout_text.c_str(), "%d %llx %d", &pid, &plugin_fn, &value), 3);
  auto t = LoadTrace(trace);
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<ModuleView> modules = Modules(*t);

  auto fns = t->OfKind(K::kTaskBeginFn);
  ASSERT_EQ(fns.size(), 2u);
  // The static function lies in the executable, named by its real path.
  const ModuleView* exe = Containing(modules, fns[0]->U("fn"));
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(RealPath(exe->path), RealPath(Runfile("tests/collector/maps_program")));
  EXPECT_FALSE(exe->unmapped);
  // The plugin's function lies in the plugin, which was unmapped later;
  // its build id is the 20-byte SHA-1 it was linked with.
  EXPECT_EQ(fns[1]->U("fn"), plugin_fn);
  const ModuleView* plugin = Containing(modules, plugin_fn);
  ASSERT_NE(plugin, nullptr);
  EXPECT_NE(plugin->path.find("libmaps_plugin.so"), std::string::npos) << plugin->path;
  EXPECT_EQ(plugin->build_id.size(), 20u);
  EXPECT_TRUE(plugin->unmapped);
  // The C library is there too, from the first round.
  bool libc = false;
  for (const ModuleView& m : modules) libc |= m.path.find("libc.so") != std::string::npos;
  EXPECT_TRUE(libc);
}

TEST(PerfMap, JitMethodLoadsAreAppendedToTheLiveMap) {
  const std::string dir = MakeTempDir("perfmap");
  RunResult r = RunMaps(dir, {"ITTC_OUTPUT=" + dir + "/t.itt", "ITTC_PERF_MAP=1"}, false);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  int pid = 0;
  ASSERT_EQ(std::sscanf(r.stdout_text.c_str(), "%d", &pid), 1);
  const std::string map_path = "/tmp/perf-" + std::to_string(pid) + ".map";
  const std::string map = ReadFile(map_path);
  std::remove(map_path.c_str());
  auto t = LoadTrace(dir + "/t.itt");
  ASSERT_TRUE(t.ok()) << t.status();
  // The lines itt-dump perf-map writes from the trace: the load, its update
  // (the code moved), nothing for the load without code, the long name
  // whole.
  std::string lines;
  int methods = 0;
  for (const DecodedEvent& e : t->events) {
    if (e.kind != K::kJitMethodLoad && e.kind != K::kJitMethodUpdate) continue;
    ++methods;
    if (e.U("size") == 0) continue;
    char head[64];
    std::snprintf(head, sizeof head, "%llx %llx ", static_cast<unsigned long long>(e.U("address")),
                  static_cast<unsigned long long>(e.U("size")));
    lines += head + e.Bytes("method_name") + "\n";
  }
  EXPECT_EQ(methods, 4);
  EXPECT_NE(lines.find(" jitted_kernel_one\n"), lines.rfind(" jitted_kernel_one\n")) << lines;
  EXPECT_NE(lines.find(std::string(699, 'n') + "\n"), std::string::npos) << lines;
  // The method loaded while paused is named too (the trace has no event of
  // it): the JIT static part must not skip that call (ittc_recording_gate).
  const size_t at = r.stdout_text.find("paused_method ");
  ASSERT_NE(at, std::string::npos) << r.stdout_text;
  unsigned long long paused_address = 0, paused_size = 0;
  ASSERT_EQ(std::sscanf(r.stdout_text.c_str() + at, "paused_method %llx %llx", &paused_address,
                        &paused_size),
            2);
  char paused_line[128];
  std::snprintf(paused_line, sizeof paused_line, "%llx %llx jitted_while_paused\n", paused_address,
                paused_size);
  EXPECT_EQ(map, lines + paused_line);
}

TEST(PerfMap, OffByDefault) {
  const std::string dir = MakeTempDir("noperfmap");
  RunResult r = RunMaps(dir, {"ITTC_OUTPUT=" + dir + "/t.itt"}, false);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  int pid = 0;
  ASSERT_EQ(std::sscanf(r.stdout_text.c_str(), "%d", &pid), 1);
  EXPECT_NE(access(("/tmp/perf-" + std::to_string(pid) + ".map").c_str(), F_OK), 0);
}

}  // namespace
}  // namespace ittc::testing
