// Lanes hands out the first free lane, across its 64-lane words.

#include "tools/itt_dump/perfetto/lanes.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace ittc::itt_dump {
namespace {

TEST(Lanes, FirstFreeLaneIsReusedAndNewLanesAreCreatedInOrder) {
  Lanes lanes;
  bool created = false;
  for (size_t i = 0; i < 130; ++i) {
    EXPECT_EQ(lanes.Acquire(&created), i);
    EXPECT_TRUE(created);
  }
  lanes.Release(100);
  lanes.Release(70);
  EXPECT_EQ(lanes.Acquire(&created), 70u);
  EXPECT_FALSE(created);
  EXPECT_EQ(lanes.Acquire(&created), 100u);
  EXPECT_FALSE(created);
  EXPECT_EQ(lanes.Acquire(&created), 130u);
  EXPECT_TRUE(created);
  EXPECT_EQ(lanes.size(), 131u);
}

// Random acquires and releases against a plain model: a flag per lane, the
// first clear one taken, a new lane when none is.
TEST(Lanes, MatchesFirstFreeModelOnRandomOperations) {
  Lanes lanes;
  std::vector<bool> model;
  std::vector<size_t> open;
  std::mt19937_64 rng(16);
  for (int step = 0; step < 100000; ++step) {
    // Drift between few and ~300 open lanes.
    const bool acquire = open.empty() || rng() % 1000 < (step / 10000 % 2 == 0 ? 520u : 480u);
    if (acquire) {
      size_t want = 0;
      while (want < model.size() && model[want]) ++want;
      const bool want_created = want == model.size();
      if (want_created) model.push_back(false);
      model[want] = true;
      bool created = false;
      ASSERT_EQ(lanes.Acquire(&created), want) << "step " << step;
      ASSERT_EQ(created, want_created) << "step " << step;
      open.push_back(want);
    } else {
      const size_t k = rng() % open.size();
      const size_t lane = open[k];
      open[k] = open.back();
      open.pop_back();
      model[lane] = false;
      lanes.Release(lane);
    }
    ASSERT_EQ(lanes.size(), model.size());
  }
  EXPECT_GT(model.size(), 64u);  // the words past the first were used
}

}  // namespace
}  // namespace ittc::itt_dump
