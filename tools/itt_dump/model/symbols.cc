#include "tools/itt_dump/model/symbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ittc {
namespace itt_dump {

namespace {

struct Symbol {
  uint64_t value = 0;
  uint64_t size = 0;
  int rank = 0;  // among symbols at one address, the lowest is shown
  std::string name;
};

// Global names before weak ones before local ones: at an address with an
// alias, the exported name is the one a reader knows.
int Rank(unsigned char binding) {
  switch (binding) {
    case STB_GLOBAL:
      return 0;
    case STB_WEAK:
      return 1;
    default:
      return 2;
  }
}

std::string Demangled(const char* name) {
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (d == nullptr) return name;
  std::string s = status == 0 ? std::string(d) : std::string(name);
  std::free(d);
  return s;
}

// The base name: what the module is called in a name.
std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The loader names objects that are not files without a '/' (the vDSO,
// "linux-vdso.so.1"); the executable and every dlopen'ed or needed library
// has a path with one.
bool IsFile(std::string_view path) { return path.find('/') != std::string_view::npos; }

}  // namespace

struct Symbolizer::FileSymbols {
  bool usable = false;
  // Sorted by value, then rank. symtab first when looking up, then dynsym.
  std::vector<Symbol> symtab;
  std::vector<Symbol> dynsym;

  const Symbol* Find(uint64_t vaddr) const {
    for (const std::vector<Symbol>* table : {&symtab, &dynsym}) {
      if (const Symbol* s = FindIn(*table, vaddr)) return s;
    }
    return nullptr;
  }

 private:
  static const Symbol* FindIn(const std::vector<Symbol>& table, uint64_t vaddr) {
    auto it = std::upper_bound(table.begin(), table.end(), vaddr,
                               [](uint64_t v, const Symbol& s) { return v < s.value; });
    if (it == table.begin()) return nullptr;
    const uint64_t value = std::prev(it)->value;
    // The best-ranked symbol at that address: the first of its run.
    while (it != table.begin() && std::prev(it)->value == value) --it;
    const Symbol& s = *it;
    // A symbol without a size (an assembler label) names its address only.
    const uint64_t size = s.size == 0 ? 1 : s.size;
    return vaddr - s.value < size ? &s : nullptr;
  }
};

namespace {

using FileSymbols = Symbolizer::FileSymbols;

// The descriptor of the file's NT_GNU_BUILD_ID note, empty if it has none.
std::string BuildIdOf(Elf* elf) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    GElf_Nhdr nhdr;
    size_t name_at = 0;
    size_t desc_at = 0;
    for (size_t at = 0; (at = gelf_getnote(data, at, &nhdr, &name_at, &desc_at)) != 0;) {
      const char* base = static_cast<const char*>(data->d_buf);
      if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
          std::memcmp(base + name_at, "GNU", 4) == 0) {
        return std::string(base + desc_at, nhdr.n_descsz);
      }
    }
  }
  return {};
}

// Function symbols of the first section of `type` (SHT_SYMTAB, SHT_DYNSYM).
std::vector<Symbol> FunctionsOf(Elf* elf, uint32_t type) {
  std::vector<Symbol> out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != type || shdr.sh_entsize == 0) {
      continue;
    }
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    const size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
      const unsigned char kind = GELF_ST_TYPE(sym.st_info);
      if ((kind != STT_FUNC && kind != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
          sym.st_value == 0) {
        continue;
      }
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      out.push_back(
          Symbol{sym.st_value, sym.st_size, Rank(GELF_ST_BIND(sym.st_info)), Demangled(name)});
    }
    break;
  }
  std::sort(out.begin(), out.end(), [](const Symbol& a, const Symbol& b) {
    return a.value != b.value ? a.value < b.value : a.rank < b.rank;
  });
  return out;
}

// Reads the symbols of the module's file. On failure returns why, for the
// one warning about the file.
std::string ReadFileSymbols(const ModuleRec& m, FileSymbols* out) {
  // O_NONBLOCK: a path that is now a FIFO must not hang the reader; only a
  // regular file is read.
  const int fd = open(m.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return absl::StrCat("cannot open it: ", std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return "not a regular file";
  }
  std::string why;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF) {
    why = absl::StrCat("not an ELF file (", elf_errmsg(-1), ")");
  } else {
    const std::string build_id = BuildIdOf(elf);
    if (!m.build_id.empty() && !build_id.empty() && build_id != m.build_id) {
      why = "its build id differs from the traced module's (rebuilt since the trace?)";
    } else {
      out->symtab = FunctionsOf(elf, SHT_SYMTAB);
      out->dynsym = FunctionsOf(elf, SHT_DYNSYM);
      out->usable = true;
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return why;
}

}  // namespace

Symbolizer::Symbolizer(const std::vector<ModuleRec>* modules, SymbolWarningSink warn)
    : modules_(modules), warn_(std::move(warn)) {}

Symbolizer::~Symbolizer() = default;

const Symbolizer::Candidate* Symbolizer::Chosen(uint32_t process, uint64_t fn, uint64_t ticks) {
  for (const Candidate& c : CandidatesFor(process, fn)) {
    if ((*modules_)[c.module].unmapped_ticks > ticks) return &c;
  }
  return nullptr;
}

std::string Symbolizer::Name(uint32_t process, uint64_t fn, uint64_t ticks) {
  std::lock_guard<std::mutex> lock(mu_);
  const Candidate* c = Chosen(process, fn, ticks);
  return c != nullptr ? c->name : absl::StrFormat("fn@0x%x", fn);
}

std::string Symbolizer::StableName(uint32_t process, uint64_t fn, uint64_t ticks) {
  std::lock_guard<std::mutex> lock(mu_);
  const Candidate* c = Chosen(process, fn, ticks);
  return c != nullptr ? c->stable_name : absl::StrFormat("fn@0x%x", fn);
}

const std::vector<Symbolizer::Candidate>& Symbolizer::CandidatesFor(uint32_t process, uint64_t fn) {
  auto [it, added] = addresses_.try_emplace({process, fn});
  if (!added) return it->second;
  for (size_t i = 0; i < modules_->size(); ++i) {
    const ModuleRec& m = (*modules_)[i];
    if (m.process != process || fn < m.start_addr || fn - m.start_addr >= m.size) continue;
    it->second.push_back(NamesIn(i, fn));
  }
  return it->second;
}

Symbolizer::Candidate Symbolizer::NamesIn(size_t module, uint64_t fn) {
  const ModuleRec& m = (*modules_)[module];
  const uint64_t vaddr = fn - m.load_bias;
  const std::string offset = absl::StrFormat("%s+0x%x", BaseName(m.path), vaddr);
  if (const Symbol* s = SymbolsOf(m).Find(vaddr)) {
    return Candidate{module, absl::StrCat(s->name, " (", offset, ")"),
                     absl::StrFormat("%s (%s)", s->name, BaseName(m.path))};
  }
  return Candidate{module, absl::StrFormat("fn@0x%x (%s)", fn, offset), offset};
}

const FileSymbols& Symbolizer::SymbolsOf(const ModuleRec& m) {
  std::unique_ptr<FileSymbols>& file = files_[{m.path, m.build_id}];
  if (file != nullptr) return *file;
  file = std::make_unique<FileSymbols>();
  if (!IsFile(m.path)) return *file;
  static const bool libelf_ok = elf_version(EV_CURRENT) != EV_NONE;
  ++files_read_;
  const std::string why = libelf_ok ? ReadFileSymbols(m, file.get()) : "libelf did not initialize";
  // A path listed with two build ids (rebuilt while the trace ran) is
  // reported once.
  if (!why.empty() && reported_.insert(m.path).second && warn_) {
    warn_(absl::StrCat("no function names from ", m.path, ": ", why,
                       "; its addresses are shown as fn@0x... (module+0x...)"));
  }
  return *file;
}

void PrepareFunctionNames(const TraceIndex& index) {
  if (index.symbolizer != nullptr) return;
  const std::string trace = index.name;
  SetSymbolWarnings(index, [trace](std::string_view message) {
    std::fprintf(stderr, "itt-dump: %s: %.*s\n", trace.c_str(), static_cast<int>(message.size()),
                 message.data());
  });
}

std::string FunctionName(const TraceIndex& index, const ThreadRec* thread, uint64_t fn,
                         uint64_t ticks) {
  PrepareFunctionNames(index);
  // A merged index (trace_set.h) holds every file's modules, by process.
  const uint32_t process = thread != nullptr ? thread->process : 0;
  return index.symbolizer->Name(process, fn, ticks);
}

std::string StableFunctionName(const TraceIndex& index, const ThreadRec* thread, uint64_t fn,
                               uint64_t ticks) {
  PrepareFunctionNames(index);
  return index.symbolizer->StableName(thread != nullptr ? thread->process : 0, fn, ticks);
}

void SetSymbolWarnings(const TraceIndex& index, SymbolWarningSink sink) {
  index.symbolizer = std::make_shared<Symbolizer>(&index.modules, std::move(sink));
}

}  // namespace itt_dump
}  // namespace ittc
