#include "collector/internal/process_maps.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string_view>
#include <vector>

#include "collector/internal/log.h"
#include "collector/internal/raw_record.h"
#include "collector/internal/timebase.h"
#include "format/records.h"

// Present under LeakSanitizer: state abandoned in a fork child is no leak.
extern "C" void __lsan_ignore_object(const void* p) __attribute__((weak));

namespace ittc::collector_internal {
namespace {

// Keeps a definitions chunk well under the format's payload limit.
constexpr size_t kRecordChunkTarget = 512 * 1024;

struct Module {
  uint64_t ticks = 0;  // when a thread met it (modules met only)
  uint64_t load_bias = 0;
  uint64_t start = 0;
  uint64_t size = 0;
  std::string path;
  std::string build_id;

  bool operator<(const Module& o) const {
    if (start != o.start) return start < o.start;
    if (size != o.size) return size < o.size;
    return path < o.path;
  }
  bool operator==(const Module& o) const {
    return start == o.start && size == o.size && path == o.path;
  }
};

// Module map state of the current trace. Flusher thread only (see header).
struct ModuleState {
  bool scanned = false;  // a full list was recorded in this trace
  unsigned long long adds = 0;
  unsigned long long subs = 0;
  std::vector<Module> modules;  // sorted
  format::RecordEncoder records;
};

// Perf map lines waiting for the flusher. `mu` guards `lines`.
struct PerfMapState {
  std::mutex mu;
  std::string lines;
};

// Both are replaced (the old ones leaked) in a fork child, where another
// thread of the parent may have held `mu` or been inside `modules`.
// Release/acquire: ResetProcessMaps publishes a fully built object.
std::atomic<ModuleState*> g_modules{nullptr};
std::atomic<PerfMapState*> g_perf{nullptr};
std::atomic<uint64_t> g_perf_dropped{0};
// Held by the flusher while it is inside dl_iterate_phdr, and by fork().
std::mutex g_loader_mu;

struct LoaderCounts {
  bool known = false;
  unsigned long long adds = 0;
  unsigned long long subs = 0;
};

int ReadCounts(dl_phdr_info* info, size_t size, void* data) {
  auto* c = static_cast<LoaderCounts*>(data);
  // The counters are process-wide, the same in every entry; older loaders
  // pass a shorter struct without them.
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
    c->known = true;
    c->adds = info->dlpi_adds;
    c->subs = info->dlpi_subs;
  }
  return 1;  // one entry is enough
}

// The NT_GNU_BUILD_ID note of the PT_NOTE segment at [p, end), or empty.
std::string_view BuildIdInNotes(const char* p, const char* end, size_t align) {
  auto pad = [align](uint64_t n) { return (n + align - 1) & ~uint64_t{align - 1}; };
  while (end - p >= 12) {
    uint32_t namesz, descsz, type;
    std::memcpy(&namesz, p, 4);
    std::memcpy(&descsz, p + 4, 4);
    std::memcpy(&type, p + 8, 4);
    p += 12;
    if (pad(namesz) > static_cast<uint64_t>(end - p)) break;
    const char* name = p;
    p += pad(namesz);
    if (pad(descsz) > static_cast<uint64_t>(end - p)) break;
    if (type == NT_GNU_BUILD_ID && namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
      return std::string_view(p, descsz);
    }
    p += pad(descsz);
  }
  return {};
}

// The file's virtual addresses [*lo, *hi) its PT_LOAD segments span; false
// when it maps nothing.
bool LoadSpan(const dl_phdr_info& info, uint64_t* lo, uint64_t* hi) {
  *lo = UINT64_MAX;
  *hi = 0;
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    *lo = std::min<uint64_t>(*lo, ph.p_vaddr);
    *hi = std::max<uint64_t>(*hi, ph.p_vaddr + ph.p_memsz);
  }
  return *lo < *hi;
}

// The object's build id, read from its notes in memory (within [lo, hi)),
// or empty. Valid while the object stays loaded.
std::string_view BuildIdOf(const dl_phdr_info& info, uint64_t lo, uint64_t hi) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    // Only notes inside a loaded segment are in memory.
    if (ph.p_type != PT_NOTE || ph.p_vaddr < lo || ph.p_vaddr + ph.p_memsz > hi) continue;
    const char* p = reinterpret_cast<const char*>(info.dlpi_addr + ph.p_vaddr);
    std::string_view id = BuildIdInNotes(p, p + ph.p_memsz, ph.p_align == 8 ? 8 : 4);
    if (!id.empty()) return id;
  }
  return {};
}

// Copies the executable's path into buf (not terminated); its length, or 0.
size_t ReadExecutablePath(char* buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

// The loader names the main program "" (it is always the first entry).
bool IsExecutable(const dl_phdr_info& info, bool first) {
  return first && (info.dlpi_name == nullptr || info.dlpi_name[0] == '\0');
}

int CollectModule(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::vector<Module>*>(data);
  uint64_t lo, hi;
  if (!LoadSpan(*info, &lo, &hi)) return 0;  // maps nothing
  Module m;
  m.load_bias = info->dlpi_addr;
  m.start = info->dlpi_addr + lo;
  m.size = hi - lo;
  if (IsExecutable(*info, out->empty())) {
    char buf[PATH_MAX];
    m.path.assign(buf, ReadExecutablePath(buf, sizeof(buf)));
  } else if (info->dlpi_name != nullptr) {
    m.path = info->dlpi_name;
  }
  m.build_id = std::string(BuildIdOf(*info, lo, hi));
  out->push_back(std::move(m));
  return 0;
}

// ---- Modules threads met between two rounds --------------------------------

// One module a thread met (NoteCodeAddress); its path and build id are in
// ModulesMet::text.
struct ModuleMet {
  uint64_t ticks;
  uint64_t load_bias;
  uint64_t start;
  uint64_t size;
  uint32_t path_at, path_size;
  uint32_t build_id_at, build_id_size;
};

// Fixed storage, so that the cold path allocates nothing. Guarded by
// g_loader_mu; emptied by each flusher round (and each new trace).
struct ModulesMet {
  size_t count;
  size_t text_used;
  ModuleMet modules[kMaxModulesMet];
  char text[kModulesMetTextBytes];
};
ModulesMet g_met;  // zero-initialised: no constructor runs

// NoteCodeAddress's walk: finds the module whose loaded span holds
// `address` and keeps it in g_met (inside the walk, while the loader
// guarantees the module's name and notes stay mapped).
struct AddressQuery {
  uint64_t address;
  uint64_t ticks;
  bool first = true;   // the next entry is the loader's first
  bool found = false;  // a module holds the address
  bool kept = false;   // ... and g_met holds it
  uint64_t start = 0;
  uint64_t size = 0;
};

// Appends n bytes to g_met.text; false when they do not fit.
bool AppendMetText(const char* p, size_t n, uint32_t* at) {
  if (n > kModulesMetTextBytes - g_met.text_used) return false;
  std::memcpy(g_met.text + g_met.text_used, p, n);
  *at = static_cast<uint32_t>(g_met.text_used);
  g_met.text_used += n;
  return true;
}

std::string_view MetText(uint32_t at, uint32_t size) {
  return std::string_view(g_met.text + at, size);
}

// Keeps the module of `info` in g_met unless it is there already. False
// when g_met is full. REQUIRES: g_loader_mu held, inside dl_iterate_phdr.
bool KeepModuleMet(const dl_phdr_info& info, bool executable, uint64_t lo, uint64_t hi,
                   uint64_t ticks) {
  char exe[PATH_MAX];
  std::string_view path;
  if (executable) {
    path = std::string_view(exe, ReadExecutablePath(exe, sizeof(exe)));
  } else if (info.dlpi_name != nullptr) {
    path = info.dlpi_name;
  }
  const uint64_t start = info.dlpi_addr + lo;
  for (size_t i = 0; i < g_met.count; ++i) {
    const ModuleMet& m = g_met.modules[i];
    if (m.start == start && m.size == hi - lo && MetText(m.path_at, m.path_size) == path) {
      return true;
    }
  }
  if (g_met.count == kMaxModulesMet) return false;
  const std::string_view build_id = BuildIdOf(info, lo, hi);
  const size_t text_used = g_met.text_used;
  ModuleMet m{ticks, info.dlpi_addr,
              start, hi - lo,
              0,     static_cast<uint32_t>(path.size()),
              0,     static_cast<uint32_t>(build_id.size())};
  if (!AppendMetText(path.data(), path.size(), &m.path_at) ||
      !AppendMetText(build_id.data(), build_id.size(), &m.build_id_at)) {
    g_met.text_used = text_used;
    return false;
  }
  g_met.modules[g_met.count++] = m;
  return true;
}

int FindModuleOf(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<AddressQuery*>(data);
  const bool first = q->first;
  q->first = false;
  uint64_t lo, hi;
  if (!LoadSpan(*info, &lo, &hi)) return 0;
  const uint64_t start = info->dlpi_addr + lo;
  if (q->address - start >= hi - lo) return 0;
  q->found = true;
  q->start = start;
  q->size = hi - lo;
  q->kept = KeepModuleMet(*info, IsExecutable(*info, first), lo, hi, q->ticks);
  return 1;  // found: stop the walk
}

// Moves the modules met since the last call into `out`.
// REQUIRES: g_loader_mu held.
void TakeModulesMet(std::vector<Module>* out) {
  for (size_t i = 0; i < g_met.count; ++i) {
    const ModuleMet& met = g_met.modules[i];
    Module m;
    m.ticks = met.ticks;
    m.load_bias = met.load_bias;
    m.start = met.start;
    m.size = met.size;
    m.path = std::string(MetText(met.path_at, met.path_size));
    m.build_id = std::string(MetText(met.build_id_at, met.build_id_size));
    out->push_back(std::move(m));
  }
  g_met.count = 0;
  g_met.text_used = 0;
}

void FlushRecords(ModuleState* s, format::ChunkWriter* writer, std::string* out) {
  if (s->records.record_count() == 0) return;
  absl::Status status =
      writer->AppendChunk(format::ChunkType::kDefinitions, s->records.payload(), out);
  if (!status.ok()) {
    static int once = 0;
    LogWarningOnce(&once, "cannot encode the module map: %s",
                   std::string(status.message()).c_str());
  }
  s->records.Clear();
}

void Append(ModuleState* s, const format::Event& record, format::ChunkWriter* writer,
            std::string* out) {
  s->records.Append(record);
  if (s->records.payload().size() >= kRecordChunkTarget) FlushRecords(s, writer, out);
}

void UpdateModules(ModuleState* s, format::ChunkWriter* writer, std::string* out) {
  LoaderCounts counts;
  std::vector<Module> now;
  std::vector<Module> met;
  {
    std::lock_guard<std::mutex> lock(g_loader_mu);
    TakeModulesMet(&met);
    dl_iterate_phdr(&ReadCounts, &counts);
    const bool unchanged =
        s->scanned && counts.known && counts.adds == s->adds && counts.subs == s->subs;
    if (unchanged && met.empty()) return;
    if (unchanged) {
      now = s->modules;
    } else {
      dl_iterate_phdr(&CollectModule, &now);
    }
  }
  std::sort(now.begin(), now.end());
  const uint64_t ticks = ReadTicks();
  bool gone = false;
  // Modules threads met that came and went since the last round: mapped
  // when first met, unmapped now (which orders them before any module
  // loaded in their place, FORMAT.md "Module map").
  for (const Module& m : met) {
    if (std::binary_search(s->modules.begin(), s->modules.end(), m) ||
        std::binary_search(now.begin(), now.end(), m)) {
      continue;  // listed by a round: the merge below records it
    }
    Append(s,
           format::ToRecord(
               format::ModuleMapped{m.ticks, m.load_bias, m.start, m.size, m.path, m.build_id}),
           writer, out);
    Append(s, format::ToRecord(format::ModuleUnmapped{ticks, m.start}), writer, out);
    gone = true;
  }
  // Both lists are sorted: one merge pass finds what left and what came.
  size_t i = 0;
  size_t j = 0;
  while (i < s->modules.size() || j < now.size()) {
    if (j == now.size() || (i < s->modules.size() && s->modules[i] < now[j])) {
      Append(s, format::ToRecord(format::ModuleUnmapped{ticks, s->modules[i].start}), writer, out);
      gone = true;
      ++i;
    } else if (i == s->modules.size() || now[j] < s->modules[i]) {
      const Module& m = now[j];
      Append(s,
             format::ToRecord(
                 format::ModuleMapped{ticks, m.load_bias, m.start, m.size, m.path, m.build_id}),
             writer, out);
      ++j;
    } else {
      ++i;
      ++j;
    }
  }
  FlushRecords(s, writer, out);
  // A range threads cached may hold another module's code from now on.
  if (gone) g_code_range_epoch.fetch_add(1, std::memory_order_relaxed);
  s->modules = std::move(now);
  s->scanned = true;
  s->adds = counts.adds;
  s->subs = counts.subs;
}

void WritePerfMap(PerfMapState* p) {
  std::string lines;
  {
    std::lock_guard<std::mutex> lock(p->mu);
    lines.swap(p->lines);
  }
  if (g_perf_dropped.load(std::memory_order_relaxed) != 0) {
    static int once = 0;
    LogWarningOnce(&once,
                   "JIT methods loaded faster than the perf map buffer holds; lines dropped");
  }
  if (lines.empty()) return;
  // perf reads /tmp/perf-<pid>.map (tools/perf/Documentation/jit-interface.txt).
  char path[64];
  std::snprintf(path, sizeof(path), "/tmp/perf-%d.map", static_cast<int>(getpid()));
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    static int once = 0;
    LogWarningOnce(&once, "cannot open %s: %s; the perf map is incomplete", path,
                   std::strerror(errno));
    return;
  }
  const char* q = lines.data();
  size_t left = lines.size();
  while (left > 0) {
    ssize_t n = write(fd, q, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    q += n;
    left -= static_cast<size_t>(n);
  }
  close(fd);
}

template <typename T>
void Replace(std::atomic<T*>* slot, bool leak_old) {
  T* old = slot->exchange(new T(), std::memory_order_acq_rel);
  if (old == nullptr) return;
  if (leak_old) {
    if (__lsan_ignore_object != nullptr) __lsan_ignore_object(old);
  } else {
    delete old;
  }
}

}  // namespace

void ResetProcessMaps(const Settings& settings, bool in_fork_child) {
  // A new trace (a fork child's, or a restart) starts with a full module
  // list; what threads met belongs to the trace before, and every thread
  // meets its addresses again for this one.
  Replace(&g_modules, in_fork_child);
  {
    std::lock_guard<std::mutex> lock(g_loader_mu);
    std::vector<Module> dropped;
    TakeModulesMet(&dropped);
  }
  g_code_range_epoch.fetch_add(1, std::memory_order_relaxed);
  if (in_fork_child || g_perf.load(std::memory_order_acquire) == nullptr) {
    Replace(&g_perf, in_fork_child);
  }
  g_perf_map_on.store(settings.perf_map, std::memory_order_release);
}

void LockProcessMapsForFork() { g_loader_mu.lock(); }

void UnlockProcessMapsAfterFork() { g_loader_mu.unlock(); }

void UpdateProcessMaps(format::ChunkWriter* writer, std::string* out) {
  if (ModuleState* s = g_modules.load(std::memory_order_acquire); s != nullptr) {
    UpdateModules(s, writer, out);
  }
  if (!g_perf_map_on.load(std::memory_order_acquire)) return;
  if (PerfMapState* p = g_perf.load(std::memory_order_acquire); p != nullptr) WritePerfMap(p);
}

void NoteCodeAddress(CodeRangeCache* cache, uint64_t address, uint64_t ticks) {
  const uint32_t epoch = g_code_range_epoch.load(std::memory_order_relaxed);
  if (cache->epoch != epoch) {
    *cache = CodeRangeCache{};
    cache->epoch = epoch;
  }
  AddressQuery q{address, ticks};
  {
    // The loader lock of fork() (see LockProcessMapsForFork) and of g_met.
    // No signal handler of this thread waits for it while we hold it: we
    // are inside an ITT call, where the handler's calls are dropped.
    std::lock_guard<std::mutex> lock(g_loader_mu);
    dl_iterate_phdr(&FindModuleOf, &q);
  }
  if (q.found && !q.kept) return;  // no room until the next round: try again then
  const int slot = cache->next;
  cache->start[slot] = q.found ? q.start : address;
  // No module: this address alone.
  cache->size[slot] = q.found ? static_cast<uint32_t>(std::min<uint64_t>(q.size, UINT32_MAX)) : 1;
  cache->next = (slot + 1) % CodeRangeCache::kRanges;
}

void PerfMapAddMethod(uint64_t address, uint64_t size, const char* name, uint64_t method_id) {
  // Relaxed is enough for the common "off" answer; the acquire below pairs
  // with ResetProcessMaps' release before the state is used.
  if (!g_perf_map_on.load(std::memory_order_relaxed)) return;
  PerfMapState* p = g_perf.load(std::memory_order_acquire);
  if (p == nullptr) return;
  if (size == 0) return;  // no code: nothing for perf to name (as itt-dump perf-map)
  // The line itt-dump perf-map writes from the trace: the name as recorded
  // (cut at kMaxRawBytesField), else "jit_method_<id>". perf splits a line
  // at its first two spaces; the name is the rest of the line, so only
  // line breaks must go.
  char head[64];
  const int head_len =
      std::snprintf(head, sizeof(head), "%llx %llx ", static_cast<unsigned long long>(address),
                    static_cast<unsigned long long>(size));
  char numbered[32];
  std::string_view text;
  if (name != nullptr && *name != '\0') {
    text = std::string_view(name, strnlen(name, kMaxRawBytesField));
  } else {
    const int n = std::snprintf(numbered, sizeof(numbered), "jit_method_%llu",
                                static_cast<unsigned long long>(method_id));
    text = std::string_view(numbered, static_cast<size_t>(n));
  }
  if (head_len <= 0) return;
  const size_t len = static_cast<size_t>(head_len) + text.size() + 1;
  std::lock_guard<std::mutex> lock(p->mu);
  if (p->lines.size() + len > kPerfMapBufferBytes) {
    g_perf_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  p->lines.append(head, static_cast<size_t>(head_len));
  for (const char c : text) p->lines.push_back(c == '\n' || c == '\r' ? ' ' : c);
  p->lines.push_back('\n');
}

}  // namespace ittc::collector_internal
