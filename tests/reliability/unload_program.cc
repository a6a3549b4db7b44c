// Row 12: the collector is dlopen-ed again by other paths (a symlink, a hard
// link, a path through "..") and dlclose-d, repeatedly, while threads keep
// calling into it through our static part. Prints:
//   "mapped <n>"         how many copies of the library are mapped
//   "still-loaded <0|1>" RTLD_NOLOAD finds it after every dlclose
// usage: unload_program <scratch dir>

#include <dlfcn.h>
#include <ittnotify.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_stop{false};
std::atomic<long> g_pairs[3];  // task pairs each worker has recorded

struct stat g_collector;  // the library's file

// Counts loaded objects that are the collector's file, whatever path
// (real, symlink, hard link) they were first loaded by.
int CountMappings(dl_phdr_info* info, size_t, void* data) {
  struct stat st;
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' && stat(info->dlpi_name, &st) == 0 &&
      st.st_dev == g_collector.st_dev && st.st_ino == g_collector.st_ino) {
    ++*static_cast<int*>(data);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* real = std::getenv("INTEL_LIBITTNOTIFY64");
  if (real == nullptr || stat(real, &g_collector) != 0) return 3;
  const std::string dir = argv[1];
  const std::string symlinked = dir + "/symlinked.so";
  const std::string hardlinked = dir + "/hardlinked.so";
  const std::string dotted = dir + "/../" + dir.substr(dir.rfind('/') + 1) + "/symlinked.so";
  if (symlink(real, symlinked.c_str()) != 0) return 4;
  // A hard link needs the same file system; fall back to the symlink.
  std::string hard = link(real, hardlinked.c_str()) == 0 ? hardlinked : symlinked;

  __itt_domain* domain = __itt_domain_create("reliability.unload");
  __itt_string_handle* name = __itt_string_handle_create("work");
  constexpr int kWorkers = 3;
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) {
    workers.emplace_back([=] {
      while (!g_stop.load(std::memory_order_relaxed)) {
        __itt_task_begin(domain, __itt_null, __itt_null, name);
        __itt_task_end(domain);
        g_pairs[i].fetch_add(1, std::memory_order_relaxed);
      }
    });
  }

  const std::string paths[] = {symlinked, hard, dotted, real};
  for (int round = 0; round < 200; ++round) {
    const std::string& path = paths[round % 4];
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      std::printf("dlopen %s: %s\n", path.c_str(), dlerror());
      return 5;
    }
    using DomainCreate = __itt_domain* (*)(const char*);
    using HandleCreate = __itt_string_handle* (*)(const char*);
    using Marker = void (*)(const __itt_domain*, __itt_id, __itt_string_handle*, __itt_scope);
    auto create = reinterpret_cast<DomainCreate>(dlsym(handle, "__itt_domain_create"));
    auto create_handle =
        reinterpret_cast<HandleCreate>(dlsym(handle, "__itt_string_handle_create"));
    auto marker = reinterpret_cast<Marker>(dlsym(handle, "__itt_marker"));
    if (create == nullptr || create_handle == nullptr || marker == nullptr) return 6;
    // Per-symbol use through this path reaches the same registry: the
    // trace shows one definition of the domain, used by both.
    marker(create("reliability.unload"), __itt_null, create_handle("per-symbol"),
           __itt_scope_global);
    dlclose(handle);
    dlclose(handle);  // one more than opened: must stay harmless
  }
  // Every worker keeps calling into the "closed" library for a while: its
  // progress is what we wait for, not an amount of time.
  for (int i = 0; i < kWorkers; ++i) {
    long after_close = g_pairs[i].load(std::memory_order_relaxed) + 1000;
    while (g_pairs[i].load(std::memory_order_relaxed) < after_close) usleep(1000);
  }
  g_stop.store(true);
  for (std::thread& t : workers) t.join();

  int mapped = 0;
  dl_iterate_phdr(&CountMappings, &mapped);
  void* still = dlopen(real, RTLD_NOW | RTLD_NOLOAD);
  std::printf("mapped %d\nstill-loaded %d\n", mapped, still != nullptr);
  return 0;
}
