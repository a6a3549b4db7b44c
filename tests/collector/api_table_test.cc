// The collector's entry table, which __itt_api_init binds a static part's
// table from, must stay sorted by name (binary search) and agree with the
// API list the stub is generated from (stub/src/itt_api_list.inc): every
// entry is a listed function, and the shared library exports exactly the
// listed functions that the table holds.

#include <dlfcn.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ittc::collector_internal {

bool EntryTableIsSorted();
std::vector<const char*> EntryNames();

namespace {

// Every function of the list, by its own name and by the collector symbol
// it binds to (they differ for aliases such as fsync_* -> sync_*).
std::set<std::string> ListedFunctions() {
  std::set<std::string> names;
#define ITTC_API(rk, ret, name, params, args, dll_name, groups, kind) \
  names.insert("__itt_" #name);                                       \
  names.insert("__itt_" #dll_name);
#include "stub/src/itt_api_list.inc"
#undef ITTC_API
  return names;
}

std::string CollectorPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "collector/libittcollector.so";
  return std::string(srcdir) + "/" + workspace + "/collector/libittcollector.so";
}

TEST(ApiTable, EntryTableIsSortedByName) { EXPECT_TRUE(EntryTableIsSorted()); }

TEST(ApiTable, EveryEntryIsAListedFunction) {
  std::set<std::string> listed = ListedFunctions();
  ASSERT_GT(listed.size(), 100u);
  for (const char* name : EntryNames()) EXPECT_EQ(listed.count(name), 1u) << name;
}

TEST(ApiTable, SharedLibraryExportsExactlyTheListedFunctionsOfTheTable) {
  void* lib = dlopen(CollectorPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  std::set<std::string> entries;
  for (const char* name : EntryNames()) entries.insert(name);
  for (const std::string& name : ListedFunctions()) {
    bool exported = dlsym(lib, name.c_str()) != nullptr;
    EXPECT_EQ(exported, entries.count(name) == 1) << name;
  }
  // Deliberately not dlclose-d: the collector stays loaded once loaded.
}

}  // namespace
}  // namespace ittc::collector_internal
