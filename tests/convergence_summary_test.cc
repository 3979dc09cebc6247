#include "analysis/convergence_summary.h"

#include <gtest/gtest.h>

namespace rcf::analysis {
namespace convergence_summary_test {

std::vector<CurvePoint> curve(std::initializer_list<std::pair<int64_t, int64_t>> step_programs) {
  std::vector<CurvePoint> out;
  int64_t before = 0;
  for (auto [step, programs] : step_programs) {
    out.push_back({step, programs, programs - before});
    before = programs;
  }
  return out;
}

TEST(ConvergenceSummary, SettledCleanLane) {
  // ~15 programs by step 5, flat to step 20.
  std::vector<std::pair<int64_t, int64_t>> pts = {{1, 6}, {2, 10}, {3, 12}, {4, 14}, {5, 15}};
  std::vector<CurvePoint> c;
  for (auto [s, p] : pts) c.push_back({s, p, 0});
  for (int64_t s = 6; s <= 20; ++s) c.push_back({s, 15, 0});
  auto sum = summarize_convergence(c);
  EXPECT_EQ(sum.state, SettleState::kSettled);
  EXPECT_EQ(sum.settle_step, 5);
  EXPECT_EQ(sum.programs_at_settle, 15);
  EXPECT_EQ(sum.final_programs, 15);
  EXPECT_EQ(describe_convergence(sum),
            "settled at step 5 with 15 programs; no new program in steps 6..20");
}

TEST(ConvergenceSummary, StillGrowingAfterStep20) {
  std::vector<CurvePoint> c;
  for (int64_t s = 1; s <= 40; ++s) c.push_back({s, 10 + (s > 20 && s % 5 == 0 ? s / 5 : 0), 0});
  // Programs never decrease in a real curve: make it monotone.
  int64_t best = 0;
  for (auto& p : c) p.programs_cached = best = std::max(best, p.programs_cached);
  auto sum = summarize_convergence(c);
  EXPECT_EQ(sum.state, SettleState::kStillGrowing);
  EXPECT_EQ(sum.settle_step, 40);
  EXPECT_EQ(sum.new_after_growth_step, 8);  // 10 -> 15, 16, 17, 18 at steps 25, 30, 35, 40
  EXPECT_EQ(describe_convergence(sum),
            "still growing: 8 programs new after step 20 (last at step 40, 18 programs)");
}

TEST(ConvergenceSummary, NotSettledWhenTheLastStepCompiles) {
  auto sum = summarize_convergence(curve({{1, 3}, {2, 4}, {3, 5}}));
  EXPECT_EQ(sum.state, SettleState::kNotSettled);
  EXPECT_EQ(describe_convergence(sum),
            "not settled: a new program appeared at the last step seen (3), 5 programs");
}

TEST(ConvergenceSummary, EmptyAndUnsortedInput) {
  EXPECT_EQ(summarize_convergence({}).state, SettleState::kNoData);
  EXPECT_STREQ(settle_state_name(SettleState::kNoData), "no_data");
  auto sum = summarize_convergence({{3, 2, 0}, {1, 1, 1}, {2, 2, 1}});
  EXPECT_EQ(sum.first_step, 1);
  EXPECT_EQ(sum.settle_step, 2);
  EXPECT_EQ(sum.state, SettleState::kSettled);
  EXPECT_EQ(sum.compiles, 2);
}

TEST(ConvergenceSummary, CustomGrowthStep) {
  auto sum = summarize_convergence(curve({{1, 1}, {2, 2}, {3, 2}}), /*growth_step=*/1);
  EXPECT_EQ(sum.state, SettleState::kStillGrowing);
  EXPECT_EQ(sum.new_after_growth_step, 1);
}

}  // namespace convergence_summary_test
}  // namespace rcf::analysis
