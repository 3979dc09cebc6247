// Counting distinct training steps held as runs (analysis/step_runs.h): a console's series merged
// as intervals, epochs that number their steps again, steps logged every few, single steps among
// series, and runs on no common lattice, each against the steps listed one by one.
#include "analysis/step_runs.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>
#include <vector>

namespace rcf::analysis {
namespace step_runs_test {

using StepRun = std::tuple<int64_t, int64_t, int64_t>;  // first, stride, count

// The distinct steps of `runs`, listed one by one: (count, smallest).
std::pair<int64_t, int64_t> by_listing(const std::vector<StepRun>& runs) {
  std::set<int64_t> steps;
  for (auto [first, stride, count] : runs)
    for (int64_t i = 0; i < count; ++i) steps.insert(first + i * stride);
  return {static_cast<int64_t>(steps.size()), steps.empty() ? 0 : *steps.begin()};
}

std::pair<int64_t, int64_t> by_runs(const std::vector<StepRun>& runs) {
  StepRuns steps;
  for (auto [first, stride, count] : runs) steps.add(first, stride, count);
  StepRuns::Distinct d = steps.distinct();
  return {d.count, d.first};
}

TEST(StepRuns, ASeriesAndTheEpochsThatNumberItAgain) {
  // Three epochs of 1000 steps, each a series of two rows (a warning line broke the first).
  const std::vector<StepRun> epochs = {{1, 1, 400}, {401, 1, 600}, {1, 1, 1000}, {1, 1, 1000}};
  EXPECT_EQ(by_runs(epochs), std::make_pair(int64_t{1000}, int64_t{1}));
  EXPECT_EQ(by_runs({}), std::make_pair(int64_t{0}, int64_t{0}));
}

TEST(StepRuns, StepsLoggedEveryFewAndSingleStepsAmongThem) {
  // Every 10th step, in overlapping series, a lone step on the lattice and one off it.
  EXPECT_EQ(by_runs({{10, 10, 10}, {50, 10, 16}, {200, 0, 1}}),
            std::make_pair(int64_t{20}, int64_t{10}));
  EXPECT_EQ(by_runs({{10, 10, 10}, {50, 10, 16}, {305, 0, 1}}),
            std::make_pair(int64_t{21}, int64_t{10}));
  // Falling steps (a countdown) and a stride of 0 (one step printed on several lines).
  EXPECT_EQ(by_runs({{100, -2, 20}, {40, 2, 5}, {7, 0, 30}}),
            std::make_pair(int64_t{26}, int64_t{7}));
}

TEST(StepRuns, RunsOnNoCommonLatticeAreListed) {
  EXPECT_EQ(by_runs({{1, 1, 10}, {0, 5, 5}}), by_listing({{1, 1, 10}, {0, 5, 5}}));
  EXPECT_EQ(by_runs({{1, 2, 10}, {2, 2, 10}}), std::make_pair(int64_t{20}, int64_t{1}));
}

// Steps added one by one (a console's lines with times, a row each) join the run they go on:
// in order, with a gap that changes, going back, repeated.
TEST(StepRuns, StepsAddedOneByOneAreCountedAsTheyWereListed) {
  std::vector<StepRun> singles;
  for (int64_t s = 1; s <= 50; ++s) singles.emplace_back(s, 0, 1);
  for (int64_t s = 52; s <= 60; s += 2) singles.emplace_back(s, 0, 1);
  for (int64_t s : {61, 63, 40, 100, 99, 100, 101, 105, 109, 110}) singles.emplace_back(s, 0, 1);
  EXPECT_EQ(by_runs(singles), by_listing(singles));
  EXPECT_EQ(by_runs(singles), std::make_pair(int64_t{63}, int64_t{1}));
}

// Random runs of a few strides, offsets and directions: the same count and first step as listing.
TEST(StepRuns, AgreesWithListingEveryStep) {
  std::mt19937 random(20261207);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<StepRun> runs;
    const int64_t stride = 1 + static_cast<int64_t>(random() % 3);
    const int n = 1 + static_cast<int>(random() % 6);
    for (int i = 0; i < n; ++i) {
      int64_t s = random() % 4 == 0 ? 1 + static_cast<int64_t>(random() % 4) : stride;
      if (random() % 5 == 0) s = -s;
      const int64_t first = static_cast<int64_t>(random() % 60) - 20;
      const int64_t count = 1 + static_cast<int64_t>(random() % 25);
      runs.emplace_back(first, random() % 7 == 0 ? 0 : s, random() % 3 == 0 ? 1 : count);
    }
    ASSERT_EQ(by_runs(runs), by_listing(runs)) << "trial " << trial;
  }
}

}  // namespace step_runs_test
}  // namespace rcf::analysis
