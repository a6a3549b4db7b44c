// `itt-dump perf-map` and the live perf map (ITTC_PERF_MAP=1) of a real JIT
// client: oneDNN (Debian's libdnnl), whose kernels report through the JIT
// profiling API once INTEL_JIT_PROFILER64 names the collector.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"
#include "tests/tools/dump_runner.h"

namespace ittc::testing {
namespace {

using format::EventKind;
using itt_dump::testing::DumpResult;
using itt_dump::testing::RunDump;

std::string ReadFile(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The method loads of the trace in time order (the order of the calls).
std::vector<const DecodedEvent*> MethodLoads(const LoadedTrace& trace) {
  std::vector<const DecodedEvent*> loads;
  for (EventKind kind :
       {EventKind::kJitMethodLoad, EventKind::kJitMethodLoadV2, EventKind::kJitMethodLoadV3}) {
    for (const DecodedEvent* e : trace.OfKind(kind)) loads.push_back(e);
  }
  std::stable_sort(loads.begin(), loads.end(),
                   [](const DecodedEvent* a, const DecodedEvent* b) { return a->time < b->time; });
  return loads;
}

TEST(PerfMapDnnl, EveryJitKernelOfOneDnnIsALineInLoadOrderAndTheLiveMapAgrees) {
  const std::string dir = MakeTempDir("dnnl");
  const std::string trace_path = dir + "/dnnl.itt";
  const int status = RunProgram({Runfile("tests/tools/dnnl_program")},
                                {"INTEL_JIT_PROFILER64=" + Runfile("collector/libittcollector.so"),
                                 "ITTC_OUTPUT=" + trace_path, "ITTC_PERF_MAP=1"},
                                dir + "/stdout.txt", dir + "/stderr.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << status << " " << ReadFile(dir + "/stderr.txt");
  const int pid = std::stoi(ReadFile(dir + "/stdout.txt"));
  // The collector's live map, by perf's convention in /tmp.
  const std::string live_path = absl::StrCat("/tmp/perf-", pid, ".map");
  const std::string live = ReadFile(live_path);
  std::remove(live_path.c_str());

  absl::StatusOr<LoadedTrace> trace = LoadTrace(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->header.pid, static_cast<uint64_t>(pid));
  const std::vector<const DecodedEvent*> loads = MethodLoads(*trace);
  ASSERT_FALSE(loads.empty()) << "oneDNN reported no JIT kernel";

  DumpResult r = RunDump({"perf-map", "trace.itt", "-o", "maps"}, ReadFile(trace_path));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string map_name = absl::StrCat("maps/perf-", pid, ".map");
  ASSERT_EQ(r.files.count(map_name), 1u) << r.err;
  const std::vector<std::string> lines = Lines(r.files[map_name]);
  ASSERT_EQ(lines.size(), loads.size()) << r.files[map_name];
  for (size_t i = 0; i < lines.size(); ++i) {
    unsigned long long start = 0;
    unsigned long long size = 0;
    int name_at = 0;
    ASSERT_EQ(std::sscanf(lines[i].c_str(), "%llx %llx %n", &start, &size, &name_at), 2)
        << lines[i];
    EXPECT_EQ(lines[i].find("0x"), std::string::npos) << lines[i];
    EXPECT_NE(start, 0u) << lines[i];
    EXPECT_NE(size, 0u) << lines[i];
    EXPECT_LT(static_cast<size_t>(name_at), lines[i].size()) << "no name: " << lines[i];
    EXPECT_EQ(start, loads[i]->U("address")) << lines[i];
    EXPECT_EQ(size, loads[i]->U("size")) << lines[i];
    EXPECT_EQ(lines[i].substr(name_at), loads[i]->Bytes("method_name")) << lines[i];
  }
  EXPECT_EQ(live, r.files[map_name]);
}

}  // namespace
}  // namespace ittc::testing
