// __itt_api_init binds a static part's table by binary search over the
// collector's entry table, which must therefore stay sorted by name.

#include "gtest/gtest.h"

namespace ittc::collector_internal {
bool EntryTableIsSorted();
}  // namespace ittc::collector_internal

namespace {

TEST(ApiTable, EntryTableIsSortedByName) {
  EXPECT_TRUE(ittc::collector_internal::EntryTableIsSorted());
}

}  // namespace
