// Lanes hands out the first free lane, across its 64-lane words: free
// when no slice is open on it and its last one ended by the new begin.

#include "tools/itt_dump/model/lanes.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace ittc::itt_dump {
namespace {

TEST(Lanes, FirstFreeLaneIsReusedAndNewLanesAreCreatedInOrder) {
  Lanes lanes;
  bool created = false;
  for (size_t i = 0; i < 130; ++i) {
    EXPECT_EQ(lanes.Acquire(0, &created), i);
    EXPECT_TRUE(created);
  }
  lanes.Release(100, 0);
  lanes.Release(70, 0);
  EXPECT_EQ(lanes.Acquire(0, &created), 70u);
  EXPECT_FALSE(created);
  EXPECT_EQ(lanes.Acquire(0, &created), 100u);
  EXPECT_FALSE(created);
  EXPECT_EQ(lanes.Acquire(0, &created), 130u);
  EXPECT_TRUE(created);
  EXPECT_EQ(lanes.size(), 131u);
}

// A slice that began before another's end, handed out after that one was
// released (a frame_submit after another, overlapping it), takes another
// lane; one that begins at or after the end takes the lane again.
TEST(Lanes, ALaneIsFreeOnlyFromItsLastSlicesEnd) {
  Lanes lanes;
  bool created = false;
  EXPECT_EQ(lanes.Acquire(100, &created), 0u);
  lanes.Release(0, 300);
  EXPECT_EQ(lanes.Acquire(200, &created), 1u);
  EXPECT_TRUE(created);
  lanes.Release(1, 250);
  EXPECT_EQ(lanes.Acquire(260, &created), 1u);
  EXPECT_FALSE(created);
  EXPECT_EQ(lanes.Acquire(300, &created), 0u);
  EXPECT_FALSE(created);
  // An earlier end does not make a lane's last end earlier.
  lanes.Release(0, 50);
  EXPECT_EQ(lanes.Acquire(299, &created), 2u);
  EXPECT_TRUE(created);
}

// Random acquires and releases against a plain model: a flag and an end
// per lane, the first clear one whose end is at most the begin taken, a
// new lane when none is. Begins and ends wander, as slices with times of
// their own do.
TEST(Lanes, MatchesFirstFreeModelOnRandomOperations) {
  Lanes lanes;
  std::vector<bool> model;
  std::vector<uint64_t> ends;
  std::vector<size_t> open;
  std::mt19937_64 rng(16);
  for (int step = 0; step < 100000; ++step) {
    const uint64_t now = static_cast<uint64_t>(step) * 10;
    // Drift between few and ~300 open lanes.
    const bool acquire = open.empty() || rng() % 1000 < (step / 10000 % 2 == 0 ? 520u : 480u);
    if (acquire) {
      const uint64_t begin = now + 50 - rng() % 50;
      size_t want = 0;
      while (want < model.size() && (model[want] || ends[want] > begin)) ++want;
      const bool want_created = want == model.size();
      if (want_created) {
        model.push_back(false);
        ends.push_back(0);
      }
      model[want] = true;
      bool created = false;
      ASSERT_EQ(lanes.Acquire(begin, &created), want) << "step " << step;
      ASSERT_EQ(created, want_created) << "step " << step;
      open.push_back(want);
    } else {
      const size_t k = rng() % open.size();
      const size_t lane = open[k];
      open[k] = open.back();
      open.pop_back();
      model[lane] = false;
      const uint64_t end = now + rng() % 50;
      ends[lane] = std::max(ends[lane], end);
      lanes.Release(lane, end);
    }
    ASSERT_EQ(lanes.size(), model.size());
  }
  EXPECT_GT(model.size(), 64u);  // the words past the first were used
}

}  // namespace
}  // namespace ittc::itt_dump
