#include "analysis/step_curve.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace rcf::analysis {
namespace step_curve_test {

std::vector<std::pair<int64_t, int64_t>> steps_and_programs(
    const std::vector<ConvergencePoint>& c) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& p : c) out.emplace_back(p.step, p.programs_cached);
  return out;
}

// Compiles in step order, then some of earlier steps (a compile placed late): every step's point
// counts its compiles, the programs accumulate by step, and the curve runs from step 1 (or the
// first step with a compile) to the last step.
TEST(StepCurve, CompilesOfEarlierStepsComingLateCountInTheirSteps) {
  StepCurve curve;
  curve.add(2, 1.5);
  curve.add(4, std::nullopt);
  curve.add(4, 2.0);
  curve.add(9, 1.0);
  curve.add(3, 0.5);  // late: a step never seen
  curve.add(4, 1.0);  // late: a step seen in order
  curve.add(3, 0.25);
  curve.add(0, std::nullopt);
  const auto points = curve.finish(12, {{5, 100.0}});
  EXPECT_EQ(steps_and_programs(points),
            (std::vector<std::pair<int64_t, int64_t>>{
                {0, 1}, {2, 2}, {3, 4}, {4, 7}, {5, 7}, {9, 8}, {12, 8}}));
  ASSERT_EQ(points.size(), 7u);
  EXPECT_EQ(points[2].compiles_in_step, 2);
  EXPECT_EQ(points[2].compile_ms, 0.75);
  EXPECT_EQ(points[3].compiles_in_step, 3);
  EXPECT_EQ(points[3].compile_ms, 3.0);
  EXPECT_EQ(points[4].wall_ms, 100.0);
  EXPECT_EQ(points[4].compiles_in_step, 0);
}

// In any order of steps, each step's compile time is the sum of its compiles' in the order they
// came (the same double, bit for bit, as a map of steps gives), and its count is theirs.
TEST(StepCurve, EachStepSumsItsCompilesInTheOrderTheyCame) {
  uint64_t seed = 7;
  auto next = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  StepCurve curve;
  std::map<int64_t, std::pair<int64_t, std::optional<double>>> expected;
  int64_t step = 1;
  for (int i = 0; i < 20000; ++i) {
    step += next(4) == 0 ? 1 : 0;
    const int64_t at =
        next(10) == 0 ? static_cast<int64_t>(next(static_cast<uint64_t>(step))) : step;
    const std::optional<double> ms =
        next(5) == 0 ? std::nullopt : std::optional<double>(0.1 * static_cast<double>(next(1000)));
    curve.add(at, ms);
    auto& [n, sum] = expected[at];
    ++n;
    if (ms) sum = sum.value_or(0) + *ms;
  }
  const auto points = curve.finish(0, {});
  int64_t programs = 0;
  size_t checked = 0;
  for (const auto& p : points) {
    auto it = expected.find(p.step);
    if (it == expected.end()) {
      EXPECT_EQ(p.compiles_in_step, 0);
      continue;
    }
    programs += it->second.first;
    EXPECT_EQ(p.compiles_in_step, it->second.first) << p.step;
    EXPECT_EQ(p.compile_ms, it->second.second) << p.step;
    EXPECT_EQ(p.programs_cached, programs) << p.step;
    ++checked;
  }
  EXPECT_EQ(checked, expected.size());
}

// Timed steps and steps with compiles each give a point once, where they meet too; timed steps
// outside the curve's range (before its first step, after its last) give none.
TEST(StepCurve, TimedStepsJoinTheStepsWithCompilesWithinTheCurve) {
  StepCurve curve;
  curve.add(3, 1.0);
  curve.add(5, std::nullopt);
  const auto points =
      curve.finish(8, {{0, 9.0}, {1, 10.0}, {3, 30.0}, {6, 60.0}, {8, 80.0}, {10, 100.0}});
  EXPECT_EQ(steps_and_programs(points),
            (std::vector<std::pair<int64_t, int64_t>>{{1, 0}, {3, 1}, {5, 2}, {6, 2}, {8, 2}}));
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].wall_ms, 10.0);
  EXPECT_EQ(points[1].wall_ms, 30.0);
  EXPECT_EQ(points[1].compiles_in_step, 1);
  EXPECT_EQ(points[2].wall_ms, std::nullopt);
  EXPECT_EQ(points[3].wall_ms, 60.0);
  EXPECT_EQ(points[4].wall_ms, 80.0);
}

}  // namespace step_curve_test
}  // namespace rcf::analysis
