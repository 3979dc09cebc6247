// StepSeries holds (line, step) points as runs of evenly spaced points: every point must read
// back exactly, the count of points at or before any line must be that of the plain arrays, and a
// log that keeps its rhythm must take a few runs, not one entry per line.
#include "analysis/step_series.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace rcf::analysis {
namespace step_series_test {

// Points in stretches of a random rhythm (lines and steps each rising by a fixed stride, steps
// possibly falling back as an epoch restarts), with lone points between stretches.
void make_points(uint32_t seed, std::vector<int64_t>* lines, std::vector<int64_t>* steps) {
  std::mt19937 rng(seed);
  int64_t line = 1 + static_cast<int64_t>(rng() % 5), step = static_cast<int64_t>(rng() % 3);
  for (int stretch = 0; stretch < 200; ++stretch) {
    const int64_t line_stride = 1 + static_cast<int64_t>(rng() % 40);
    const int64_t step_stride = static_cast<int64_t>(rng() % 4) - 1;  // -1..2
    const int length = static_cast<int>(rng() % 30);                  // 0, 1, 2, ... points
    for (int k = 0; k < length; ++k) {
      lines->push_back(line);
      steps->push_back(step);
      line += line_stride;
      step += step_stride;
    }
    line += 1 + static_cast<int64_t>(rng() % 7);  // a jump between stretches
    step = static_cast<int64_t>(rng() % 50);
  }
}

TEST(StepSeries, EveryPointAndEveryCountAsThePlainArrays) {
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    std::vector<int64_t> lines, steps;
    make_points(seed, &lines, &steps);
    StepSeries series;
    for (size_t i = 0; i < lines.size(); ++i) series.push(lines[i], steps[i]);
    ASSERT_EQ(series.size(), lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      ASSERT_EQ(series.line(i), lines[i]) << "seed " << seed << ", point " << i;
      ASSERT_EQ(series.step(i), steps[i]) << "seed " << seed << ", point " << i;
    }
    EXPECT_EQ(series.last_step(), steps.back());
    for (int64_t at = 0; at <= lines.back() + 2; ++at) {
      auto expected = std::upper_bound(lines.begin(), lines.end(), at) - lines.begin();
      ASSERT_EQ(series.count_at_or_before(at), static_cast<size_t>(expected))
          << "seed " << seed << ", line " << at;
    }
    EXPECT_LT(series.runs(), lines.size());
  }
}

TEST(StepSeries, ALogThatKeepsItsRhythmTakesOneRunPerEpoch) {
  StepSeries series;
  // 1,000,000 progress lines, 7 lines apart, steps 1, 2, ... (an epoch that numbers its steps
  // again is unrolled before it gets here: the steps go on rising).
  for (int64_t i = 0; i < 1'000'000; ++i) series.push(10 + 7 * i, 1 + i);
  EXPECT_EQ(series.runs(), 1u);
  StepSeries epochs;  // each epoch's first line comes after a longer gap: a run per epoch
  for (int64_t e = 0; e < 10; ++e)
    for (int64_t i = 0; i < 100'000; ++i) epochs.push(e * 1'000'000 + 5 * i, e * 100'000 + i);
  EXPECT_EQ(epochs.runs(), 10u);
  EXPECT_EQ(epochs.count_at_or_before(3'000'000 - 1), 300'000u);
  EXPECT_EQ(epochs.count_at_or_before(3'000'000), 300'001u);
  EXPECT_EQ(epochs.step(250'000), 250'000);
}

// starts_with says what comparing the plain arrays says: true for every beginning of the series
// (a log that grew), false for a beginning with one point moved or a series that is longer.
TEST(StepSeries, StartsWithEveryBeginningOfItselfAndNothingElse) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    std::vector<int64_t> lines, steps;
    make_points(seed, &lines, &steps);
    StepSeries whole;
    for (size_t i = 0; i < lines.size(); ++i) whole.push(lines[i], steps[i]);
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 200; ++trial) {
      const size_t k = 1 + rng() % lines.size();
      const size_t moved = rng() % k;
      StepSeries prefix, step_moved, line_moved;
      for (size_t i = 0; i < k; ++i) {
        prefix.push(lines[i], steps[i]);
        step_moved.push(lines[i], steps[i] + (i == moved ? 1 : 0));
        // Lines must rise: the last point's line moves up, an earlier one's only into a gap.
        const bool room = i + 1 == k || lines[i] + 1 < lines[i + 1];
        line_moved.push(lines[i] + (i == moved && room ? 1 : 0), steps[i]);
      }
      ASSERT_TRUE(whole.starts_with(prefix)) << "seed " << seed << ", " << k << " points";
      EXPECT_FALSE(whole.starts_with(step_moved)) << "seed " << seed << ", point " << moved;
      const bool line_did_move = moved + 1 == k || lines[moved] + 1 < lines[moved + 1];
      EXPECT_EQ(whole.starts_with(line_moved), !line_did_move) << "seed " << seed;
      EXPECT_EQ(prefix.starts_with(whole), k == lines.size());
    }
  }
  EXPECT_TRUE(StepSeries().starts_with(StepSeries()));
}

TEST(StepSeries, EmptyAndSinglePoint) {
  StepSeries series;
  EXPECT_TRUE(series.empty());
  EXPECT_EQ(series.count_at_or_before(100), 0u);
  series.push(42, 7);
  EXPECT_EQ(series.count_at_or_before(41), 0u);
  EXPECT_EQ(series.count_at_or_before(42), 1u);
  EXPECT_EQ(series.count_at_or_before(1000), 1u);
  EXPECT_EQ(series.line(0), 42);
  EXPECT_EQ(series.last_step(), 7);
}

}  // namespace step_series_test
}  // namespace rcf::analysis
