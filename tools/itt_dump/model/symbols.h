// Function names for code addresses (a task_begin_fn's `fn`): the module
// map the trace recorded (TraceIndex::modules) says which ELF file held the
// address when it was used, and that file's symbol tables name it.
//
// A name reads "function (module+0xOFFSET)": the module is the file's base
// name and OFFSET the address in the file's own terms (the runtime address
// minus the module's load bias, what `nm` and `addr2line` show). The
// symbols come from the file's .symtab, which also lists static functions
// and hidden functions of libraries, and then from its .dynsym (all a
// stripped file keeps), read with elfutils' libelf. When the module is
// known but no symbol covers the address, or the file is gone, unreadable,
// or was rebuilt since the trace (its build id differs), the name is
// "fn@0xADDRESS (module+0xOFFSET)"; when no module held the address,
// "fn@0xADDRESS".
//
// Each file is read once; each distinct address of a process is named
// once. A file that cannot be used is reported once, through the warning
// sink.
//
// Thread safety: a Symbolizer's Name() may be called from several threads
// (it locks); FunctionName on one index from several threads once
// PrepareFunctionNames made the index's symbolizer.

#ifndef TOOLS_ITT_DUMP_MODEL_SYMBOLS_H_
#define TOOLS_ITT_DUMP_MODEL_SYMBOLS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/itt_dump/model/trace_index.h"

namespace ittc {
namespace itt_dump {

// The name of `fn` as used by `thread` at trace time `ticks`, made with the
// index's Symbolizer (created on first use, warning on stderr as
// "itt-dump: TRACE: message" unless SetSymbolWarnings said otherwise).
// `thread` may be null (process 0).
std::string FunctionName(const TraceIndex& index, const ThreadRec* thread, uint64_t fn,
                         uint64_t ticks);

// FunctionName without the addresses a relink or another load address
// moves, for matching a function across runs: "name (module)" for a
// symbol, "module+0xOFFSET" without one (an offset in the file's own
// terms, which holds while the file does), "fn@0xADDR" without a module.
std::string StableFunctionName(const TraceIndex& index, const ThreadRec* thread, uint64_t fn,
                               uint64_t ticks);

// Makes the index's Symbolizer now if FunctionName has not yet: before
// threads call FunctionName at once.
void PrepareFunctionNames(const TraceIndex& index);

using SymbolWarningSink = std::function<void(std::string_view message)>;

// Sends the notes of FunctionName on `index` (a module file gone, rebuilt,
// unreadable) to `sink` instead of stderr. Call before the first
// FunctionName on it.
void SetSymbolWarnings(const TraceIndex& index, SymbolWarningSink sink);

class Symbolizer {
 public:
  // `modules` must outlive the symbolizer and not change while it lives.
  Symbolizer(const std::vector<ModuleRec>* modules, SymbolWarningSink warn);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // The name of `fn` in `process` at `ticks`: of the modules of `process`
  // whose range holds `fn` and that were not reported unmapped at or before
  // `ticks`, the one mapped first (FORMAT.md, "Module map").
  std::string Name(uint32_t process, uint64_t fn, uint64_t ticks);
  // The same module's StableFunctionName.
  std::string StableName(uint32_t process, uint64_t fn, uint64_t ticks);

  // Files read so far (for tests: each file is read once).
  size_t files_read() const {
    std::lock_guard<std::mutex> lock(mu_);
    return files_read_;
  }

  struct FileSymbols;  // symbols.cc

 private:
  // One module that held an address, with the address's name in it.
  struct Candidate {
    size_t module = 0;  // index in *modules_
    std::string name;
    std::string stable_name;  // StableFunctionName's
  };
  // The candidate Name takes, or null (then "fn@0xADDR"). REQUIRES: mu_.
  const Candidate* Chosen(uint32_t process, uint64_t fn, uint64_t ticks);
  const std::vector<Candidate>& CandidatesFor(uint32_t process, uint64_t fn);
  // The names of `fn` in module m.
  Candidate NamesIn(size_t module, uint64_t fn);
  const FileSymbols& SymbolsOf(const ModuleRec& m);

  const std::vector<ModuleRec>* modules_;
  // Held by Name() and files_read(): guards everything below, and the
  // warnings (one thread warns at a time).
  mutable std::mutex mu_;
  SymbolWarningSink warn_;
  // By (path, build id): a path rebuilt during the trace is two files.
  std::map<std::pair<std::string, std::string>, std::unique_ptr<FileSymbols>> files_;
  std::map<std::pair<uint32_t, uint64_t>, std::vector<Candidate>> addresses_;
  std::set<std::string> reported_;  // paths warned about
  size_t files_read_ = 0;
};

}  // namespace itt_dump
}  // namespace ittc

#endif  // TOOLS_ITT_DUMP_MODEL_SYMBOLS_H_
