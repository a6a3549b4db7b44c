// Tests of function names (model/symbols.h): which module holds an address
// at a time, the names from a real ELF file (this test's own executable),
// and the fallbacks, each reported once per file: a file gone, a file
// rebuilt since the trace, the vDSO (no file, nothing to report).

#include "tools/itt_dump/model/symbols.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/tools/dump_runner.h"
#include "tests/tools/trace_builder.h"

namespace ittc::itt_dump {
namespace {

using format::EventKind;
using testing::DumpResult;
using testing::Ev;
using testing::F;
using testing::RunDump;
using testing::TraceBuilder;
using testing::U;

struct Notes {
  std::vector<std::string> lines;
  SymbolWarningSink Sink() {
    return [this](std::string_view m) { lines.emplace_back(m); };
  }
  int Mentioning(std::string_view text) const {
    int n = 0;
    for (const std::string& l : lines) n += l.find(text) != std::string::npos;
    return n;
  }
};

ModuleRec Module(std::string path, uint64_t start, uint64_t size, uint64_t bias) {
  ModuleRec m;
  m.path = std::move(path);
  m.start_addr = start;
  m.size = size;
  m.load_bias = bias;
  return m;
}

TEST(Symbolizer, TheModuleMappedFirstAndNotYetUnmappedHoldsTheAddress) {
  std::vector<ModuleRec> modules = {Module("/nonexistent/liba.so", 0x10000, 0x1000, 0x10000),
                                    Module("/nonexistent/libb.so", 0x10000, 0x2000, 0xf000)};
  modules[0].mapped_ticks = 10;
  modules[0].unmapped_ticks = 50;
  modules[1].mapped_ticks = 60;  // seen after its first use: still its address from 50 on
  Notes notes;
  Symbolizer s(&modules, notes.Sink());
  EXPECT_EQ(s.Name(0, 0x10100, 40), "fn@0x10100 (liba.so+0x100)");
  EXPECT_EQ(s.Name(0, 0x10100, 50), "fn@0x10100 (libb.so+0x1100)");
  EXPECT_EQ(s.Name(0, 0x10100, 70), "fn@0x10100 (libb.so+0x1100)");
  EXPECT_EQ(s.Name(0, 0x11800, 40), "fn@0x11800 (libb.so+0x2800)");  // past liba's end
  EXPECT_EQ(s.Name(0, 0x20000, 40), "fn@0x20000");
  EXPECT_EQ(s.Name(1, 0x10100, 40), "fn@0x10100");  // another process's map
  EXPECT_EQ(s.Name(0, 0x10200, 40), "fn@0x10200 (liba.so+0x200)");
  // Without the addresses a relink or ASLR moves: the file's offset.
  EXPECT_EQ(s.StableName(0, 0x10100, 40), "liba.so+0x100");
  EXPECT_EQ(s.StableName(0, 0x10100, 50), "libb.so+0x1100");
  EXPECT_EQ(s.StableName(0, 0x20000, 40), "fn@0x20000");
  // Two files gone: said once each, not once per address or per call.
  ASSERT_EQ(notes.lines.size(), 2u);
  EXPECT_EQ(notes.Mentioning("/nonexistent/liba.so: cannot open it"), 1);
  EXPECT_EQ(notes.Mentioning("/nonexistent/libb.so: cannot open it"), 1);
  EXPECT_EQ(s.files_read(), 2u);
}

TEST(Symbolizer, TheVdsoIsNoFileAndNotReported) {
  std::vector<ModuleRec> modules = {Module("linux-vdso.so.1", 0x7000, 0x2000, 0x7000)};
  Notes notes;
  Symbolizer s(&modules, notes.Sink());
  EXPECT_EQ(s.Name(0, 0x7010, 1), "fn@0x7010 (linux-vdso.so.1+0x10)");
  EXPECT_TRUE(notes.lines.empty());
}

// A static function of this executable: only its .symtab names it.
__attribute__((noinline)) int LocalHelper(int x) { return x * 3; }

// This executable as its module_mapped record would list it, without a
// build id.
ModuleRec ThisExecutable() {
  Dl_info info;
  link_map* map = nullptr;
  EXPECT_NE(dladdr1(reinterpret_cast<void*>(&LocalHelper), &info, reinterpret_cast<void**>(&map),
                    RTLD_DL_LINKMAP),
            0);
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  EXPECT_GT(n, 0);
  const uint64_t fn = reinterpret_cast<uintptr_t>(&LocalHelper);
  return Module(std::string(exe, n > 0 ? static_cast<size_t>(n) : 0), fn & ~uint64_t{0xfff},
                0x10000, map != nullptr ? map->l_addr : 0);
}

TEST(Symbolizer, AStaticFunctionIsNamedFromTheSymtabWithItsFileOffset) {
  ASSERT_EQ(LocalHelper(1), 3);
  std::vector<ModuleRec> modules = {ThisExecutable()};
  Notes notes;
  Symbolizer s(&modules, notes.Sink());
  const uint64_t fn = reinterpret_cast<uintptr_t>(&LocalHelper);
  const std::string where = absl::StrFormat("(symbols_test+0x%x)", fn - modules[0].load_bias);
  EXPECT_EQ(s.Name(0, fn, 5), "ittc::itt_dump::(anonymous namespace)::LocalHelper(int) " + where);
  // Inside the function: the same function, the address's own offset.
  EXPECT_EQ(s.Name(0, fn + 1, 5),
            absl::StrFormat("ittc::itt_dump::(anonymous namespace)::LocalHelper(int) "
                            "(symbols_test+0x%x)",
                            fn + 1 - modules[0].load_bias));
  // Without the offset, which a relink moves.
  EXPECT_EQ(s.StableName(0, fn + 1, 5),
            "ittc::itt_dump::(anonymous namespace)::LocalHelper(int) (symbols_test)");
  EXPECT_TRUE(notes.lines.empty()) << notes.lines[0];
  EXPECT_EQ(s.files_read(), 1u);
}

TEST(Symbolizer, ARebuiltFileGivesNoNamesAndIsReportedOnce) {
  // The test is linked with a SHA-1 build id (BUILD): 20 other bytes. The
  // same path listed again with yet another build id (rebuilt twice while
  // the trace ran) is not reported again.
  std::vector<ModuleRec> modules = {ThisExecutable(), ThisExecutable()};
  modules[0].build_id = std::string(20, 'x');
  modules[1].build_id = std::string(20, 'y');
  modules[0].unmapped_ticks = 10;
  Notes notes;
  Symbolizer s(&modules, notes.Sink());
  const uint64_t fn = reinterpret_cast<uintptr_t>(&LocalHelper);
  EXPECT_EQ(s.Name(0, fn, 5),
            absl::StrFormat("fn@0x%x (symbols_test+0x%x)", fn, fn - modules[0].load_bias));
  EXPECT_EQ(s.Name(0, fn + 1, 5).substr(0, 3), "fn@");
  EXPECT_EQ(s.Name(0, fn, 20).substr(0, 3), "fn@");
  EXPECT_EQ(s.files_read(), 2u);
  ASSERT_EQ(notes.lines.size(), 1u);
  EXPECT_EQ(notes.Mentioning("build id differs"), 1) << notes.lines[0];
}

// Module records written by the format library reach the index, and an
// unmap ends the oldest module at its address, even when the scan that
// saw both lists the new module first.
TEST(Symbolizer, TraceModuleRecordsNameTheTasksOfATrace) {
  TraceBuilder b;
  b.Domain(1, "d");
  b.Module(format::ModuleMapped{10, 0x7f0000000000, 0x7f0000001000, 0x3000,
                                "/nonexistent/libgone.so", "\x01\x02"});
  b.Module(format::ModuleMapped{20, 0x7f0000000000, 0x7f0000001000, 0x3000,
                                "/nonexistent/libnew.so", ""});
  b.ModuleGone(20, 0x7f0000001000);
  b.Thread(0, 7, "main");
  std::vector<format::Event> events;
  for (uint64_t t = 12; t < 18; t += 2) {
    events.push_back(
        Ev(EventKind::kTaskBeginFn, t, {{F::kDomain, U(1)}, {F::kFn, U(0x7f0000001100 + t)}}));
    events.push_back(Ev(EventKind::kTaskEnd, t + 1, {{F::kDomain, U(1)}}));
  }
  events.push_back(
      Ev(EventKind::kTaskBeginFn, 30, {{F::kDomain, U(1)}, {F::kFn, U(0x7f0000001100)}}));
  events.push_back(Ev(EventKind::kTaskEnd, 31, {{F::kDomain, U(1)}}));
  b.Events(0, events);
  b.End(100);

  IndexResult r = BuildIndex(TraceSource::Memory(b.bytes(), "t"), IndexOptions());
  ASSERT_NE(r.index, nullptr) << r.status;
  const TraceIndex& x = *r.index;
  ASSERT_EQ(x.modules.size(), 2u);
  EXPECT_EQ(x.modules[0].unmapped_ticks, 20u);
  EXPECT_EQ(x.modules[1].unmapped_ticks, kNoEvents);
  EXPECT_EQ(x.modules[0].build_id, "\x01\x02");
  Notes notes;
  SetSymbolWarnings(x, notes.Sink());
  EXPECT_EQ(FunctionName(x, x.Thread(0), 0x7f000000110c, 12),
            "fn@0x7f000000110c (libgone.so+0x110c)");
  EXPECT_EQ(FunctionName(x, x.Thread(0), 0x7f0000001100, 30),
            "fn@0x7f0000001100 (libnew.so+0x1100)");
  EXPECT_EQ(notes.lines.size(), 2u);

  DumpResult text = RunDump({"text", "trace.itt"}, b.bytes());
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* name :
       {"fn@0x7f000000110c (libgone.so+0x110c)", "fn@0x7f000000110e (libgone.so+0x110e)",
        "fn@0x7f0000001110 (libgone.so+0x1110)", "fn@0x7f0000001100 (libnew.so+0x1100)"}) {
    EXPECT_NE(text.out.find(name), std::string::npos) << name << "\n" << text.out;
  }
}

}  // namespace
}  // namespace ittc::itt_dump
