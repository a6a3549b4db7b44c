// NameTable (collector/internal/name_table.h): names found by content
// through every growth of the table, and lookups that run while another
// thread inserts (also run under ThreadSanitizer).

#include "collector/internal/name_table.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace ittc::collector_internal {
namespace {

void* Find(const NameTable& table, const std::string& name) {
  return table.Find(name.data(), name.size(), NameTable::Hash(name.data(), name.size()));
}

bool Insert(NameTable* table, const std::string& name, void* value) {
  return table->Insert(name, NameTable::Hash(name.data(), name.size()), value);
}

// Values the tests insert: addresses of the elements of one array.
int g_values[20000];

TEST(NameTable, EmptyTableFindsNothing) {
  NameTable table;
  EXPECT_EQ(Find(table, ""), nullptr);
  EXPECT_EQ(Find(table, "name"), nullptr);
}

TEST(NameTable, NamesAreComparedByEveryByte) {
  NameTable table;
  // Lengths around each load width the hash and compare use, prefixes of
  // one another, and names that differ in one byte only.
  std::vector<std::string> names = {"",
                                    "a",
                                    "ab",
                                    "abc",
                                    "abcd",
                                    "abcde",
                                    "abcdefg",
                                    "abcdefgh",
                                    "abcdefghi",
                                    "abcdefghijklmnop",
                                    "abcdefghijklmnopq"};
  for (size_t i = 0; i < 40; ++i) names.push_back(std::string(i, 'x') + "y");
  for (char c = '0'; c <= '9'; ++c) names.push_back(std::string("op::kernel_000") + c);
  for (size_t i = 0; i < names.size(); ++i) ASSERT_TRUE(Insert(&table, names[i], &g_values[i]));
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(Find(table, names[i]), &g_values[i]) << i;
  for (const char* absent : {"abcdf", "abcdefgi", "ABC", "op::kernel_000a", "xy "}) {
    EXPECT_EQ(Find(table, absent), nullptr) << absent;
  }
  // A name followed by more bytes in memory is found by its size alone.
  const std::string longer = "abcdefghZZZ";
  EXPECT_EQ(table.Find(longer.data(), 8, NameTable::Hash(longer.data(), 8)), &g_values[7]);
}

TEST(NameTable, EveryNameIsFoundThroughEachGrowth) {
  NameTable table;
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(Insert(&table, "name-" + std::to_string(i), &g_values[i]));
    // The names placed before this growth are in the new table too.
    if ((i & (i - 1)) == 0) {
      for (int j = 0; j <= i; ++j) {
        ASSERT_EQ(Find(table, "name-" + std::to_string(j)), &g_values[j]) << i << " " << j;
      }
    }
  }
  EXPECT_EQ(Find(table, "name-20000"), nullptr);
}

TEST(NameTable, LookupsWhileAnotherThreadInsertsSeeWholeEntries) {
  NameTable table;
  std::mutex mu;  // the owner's lock Insert requires
  constexpr int kNames = 5000;
  std::atomic<int> inserted{0};
  std::atomic<int> wrong{0};
  std::thread writer([&] {
    for (int i = 0; i < kNames; ++i) {
      std::lock_guard<std::mutex> lock(mu);
      ASSERT_TRUE(Insert(&table, "name-" + std::to_string(i), &g_values[i]));
      inserted.store(i + 1, std::memory_order_release);
    }
  });
  auto reader = [&] {
    for (int seen = 0; seen < kNames;) {
      seen = inserted.load(std::memory_order_acquire);
      for (int i = seen > 64 ? seen - 64 : 0; i < seen + 64 && i < kNames; ++i) {
        void* v = Find(table, "name-" + std::to_string(i));
        // Inserted before `seen` was read: must be found. Later: found
        // with its own value, or not yet.
        if ((i < seen && v != &g_values[i]) || (v != nullptr && v != &g_values[i])) ++wrong;
      }
    }
  };
  std::thread r1(reader);
  std::thread r2(reader);
  writer.join();
  r1.join();
  r2.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace ittc::collector_internal
