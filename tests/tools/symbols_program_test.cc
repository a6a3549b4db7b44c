// Function names of a real program's task_begin_fn tasks, recorded by the
// collector: a static function of the executable and a hidden function of
// a plugin dlclosed before the trace ended, both named by itt-dump from
// their files' symbol tables with the offsets the program saw, also when
// no flusher round ever saw the plugin loaded; and a plugin file deleted
// after the run, said once on itt-dump's stderr.

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/collector/trace_loader.h"
#include "tests/tools/dump_runner.h"
#include "tools/itt_dump/model/trace_index.h"

namespace ittc::testing {
namespace {

using itt_dump::testing::DumpResult;
using itt_dump::testing::RunDump;

std::string ReadFile(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

// One line of the program's output: a function as the program saw it.
struct Seen {
  unsigned long long address = 0;
  unsigned long long load_bias = 0;
  std::string dladdr_name;
  unsigned long long offset() const { return address - load_bias; }
};

struct ProgramRun {
  std::string trace_path;
  Seen static_fn;
  Seen hidden_fn;
};

bool ParseSeen(const std::string& out, const char* what, Seen* seen) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    char tag[16];
    char name[256];
    if (std::sscanf(line.c_str(), "%15s %llx %llx %255s", tag, &seen->address, &seen->load_bias,
                    name) == 4 &&
        std::string(tag) == what) {
      seen->dladdr_name = name;
      return true;
    }
  }
  return false;
}

// `mode`: "" (rounds see the plugin loaded, then gone) or "held" (the
// flusher is held while the plugin is loaded; symbols_program.c).
ProgramRun RunSymbolsProgram(const std::string& dir, const std::string& plugin,
                             const std::string& mode = "") {
  ProgramRun run;
  run.trace_path = dir + "/symbols.itt";
  std::vector<std::string> argv = {Runfile("tests/tools/symbols_program"), plugin};
  if (!mode.empty()) argv.push_back(mode);
  const int status = RunProgram(argv,
                                {"INTEL_LIBITTNOTIFY64=" + Runfile("collector/libittcollector.so"),
                                 "ITTC_OUTPUT=" + run.trace_path},
                                dir + "/stdout.txt", dir + "/stderr.txt");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << status << " " << ReadFile(dir + "/stderr.txt");
  const std::string out = ReadFile(dir + "/stdout.txt");
  EXPECT_TRUE(ParseSeen(out, "static", &run.static_fn)) << out;
  EXPECT_TRUE(ParseSeen(out, "hidden", &run.hidden_fn)) << out;
  return run;
}

TEST(SymbolsProgram, StaticAndHiddenFunctionsAreNamedFromTheSymbolTables) {
  const std::string dir = MakeTempDir("symbols");
  const ProgramRun run = RunSymbolsProgram(dir, Runfile("tests/tools/libsymbols_plugin.so"));
  // Neither is in a dynamic symbol table: dladdr cannot name them.
  EXPECT_NE(run.static_fn.dladdr_name, "static_fn");
  EXPECT_NE(run.hidden_fn.dladdr_name, "hidden_fn");
  const std::string trace = ReadFile(run.trace_path);
  ASSERT_FALSE(trace.empty());

  // The plugin was unmapped before the trace ended.
  itt_dump::IndexResult index = itt_dump::BuildIndex(
      itt_dump::TraceSource::Memory(trace, "symbols.itt"), itt_dump::IndexOptions());
  ASSERT_NE(index.index, nullptr) << index.status;
  bool plugin_unmapped = false;
  for (const itt_dump::ModuleRec& m : index.index->modules) {
    if (m.path.find("libsymbols_plugin.so") != std::string::npos) {
      plugin_unmapped = m.unmapped_ticks != itt_dump::kNoEvents;
    }
  }
  EXPECT_TRUE(plugin_unmapped);

  const std::string static_name =
      absl::StrFormat("static_fn (symbols_program+0x%x)", run.static_fn.offset());
  const std::string hidden_name =
      absl::StrFormat("hidden_fn (libsymbols_plugin.so+0x%x)", run.hidden_fn.offset());
  for (const char* verb : {"text", "stats"}) {
    DumpResult r = RunDump({verb, "trace.itt"}, trace);
    ASSERT_EQ(r.status, 0) << verb << ": " << r.err;
    EXPECT_NE(r.out.find(static_name), std::string::npos) << verb << ": " << r.out;
    EXPECT_NE(r.out.find(hidden_name), std::string::npos) << verb << ": " << r.out;
    EXPECT_EQ(r.out.find("fn@"), std::string::npos) << verb << ": " << r.out;
  }
}

TEST(SymbolsProgram, APluginLoadedAndUnloadedBetweenTwoRoundsIsNamedInEveryVerb) {
  const std::string dir = MakeTempDir("symbols_held");
  const ProgramRun run =
      RunSymbolsProgram(dir, Runfile("tests/tools/libsymbols_plugin.so"), "held");
  const std::string trace = ReadFile(run.trace_path);
  ASSERT_FALSE(trace.empty());

  // The module map has the plugin, mapped and unmapped, though no flusher
  // round listed it: the thread that met hidden_fn recorded it.
  itt_dump::IndexResult index = itt_dump::BuildIndex(
      itt_dump::TraceSource::Memory(trace, "symbols.itt"), itt_dump::IndexOptions());
  ASSERT_NE(index.index, nullptr) << index.status;
  int plugin_modules = 0;
  for (const itt_dump::ModuleRec& m : index.index->modules) {
    if (m.path.find("libsymbols_plugin.so") == std::string::npos) continue;
    ++plugin_modules;
    EXPECT_NE(m.unmapped_ticks, itt_dump::kNoEvents);
    EXPECT_EQ(m.load_bias, run.hidden_fn.load_bias);
  }
  EXPECT_EQ(plugin_modules, 1);

  const std::string hidden_name =
      absl::StrFormat("hidden_fn (libsymbols_plugin.so+0x%x)", run.hidden_fn.offset());
  const std::string static_name =
      absl::StrFormat("static_fn (symbols_program+0x%x)", run.static_fn.offset());
  const std::vector<std::vector<std::string>> verbs = {
      {"text", "trace.itt"},
      {"stats", "trace.itt"},
      {"chrome", "trace.itt"},
      {"perfetto", "--compress=none", "trace.itt", "-o", "-"}};
  for (const std::vector<std::string>& args : verbs) {
    DumpResult r = RunDump(args, trace);
    ASSERT_EQ(r.status, 0) << args[0] << ": " << r.err;
    EXPECT_NE(r.out.find(hidden_name), std::string::npos) << args[0] << ": " << r.out;
    EXPECT_NE(r.out.find(static_name), std::string::npos) << args[0] << ": " << r.out;
    EXPECT_EQ(r.out.find("fn@"), std::string::npos) << args[0] << ": " << r.out;
  }
  // text lists the task_begin_fn and the task_begin_fn_ex of hidden_fn.
  DumpResult text = RunDump({"text", "trace.itt"}, trace);
  const size_t first = text.out.find(hidden_name);
  EXPECT_NE(text.out.find(hidden_name, first + 1), std::string::npos) << text.out;
}

TEST(SymbolsProgram, APluginFileGoneIsSaidOnceAndItsTaskKeepsItsModuleOffset) {
  const std::string dir = MakeTempDir("symbols_gone");
  const std::string plugin = dir + "/libsymbols_plugin.so";
  std::filesystem::copy_file(Runfile("tests/tools/libsymbols_plugin.so"), plugin);
  const ProgramRun run = RunSymbolsProgram(dir, plugin);
  ASSERT_TRUE(std::filesystem::remove(plugin));

  const int status = RunProgram({Runfile("tools/itt-dump"), "text", run.trace_path}, {},
                                dir + "/text.txt", dir + "/text_err.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string out = ReadFile(dir + "/text.txt");
  const std::string err = ReadFile(dir + "/text_err.txt");
  EXPECT_NE(out.find(absl::StrFormat("fn@0x%x (libsymbols_plugin.so+0x%x)", run.hidden_fn.address,
                                     run.hidden_fn.offset())),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(absl::StrFormat("static_fn (symbols_program+0x%x)", run.static_fn.offset())),
            std::string::npos)
      << out;
  const std::string note = "no function names from " + plugin + ": cannot open it";
  const size_t first = err.find(note);
  EXPECT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("no function names", first + 1), std::string::npos) << err;
}

}  // namespace
}  // namespace ittc::testing
