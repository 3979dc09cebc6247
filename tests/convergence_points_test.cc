// The convergence curve is stored as change points: a run of a million steps that compiled in a
// few of them keeps a few rows, and the rows kept still give the settle step, the compile time
// and the wall time of the run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/run_rollup.h"
#include "analysis/xla_compiles.h"

namespace rcf::analysis {
namespace convergence_points_test {

XlaBlockRecord compile_at(int64_t line, int64_t step, const std::string& hash) {
  XlaBlockRecord b;
  b.source_id = 1;
  b.line = line;
  b.step = step;
  b.kind = "compile";
  b.cause = "user mark_step";
  b.cause_class = "step_end";
  b.graph_hash = hash;
  b.inputs = 3;
  b.outputs = 1;
  b.frames = {{"/work/train.py", 40, "train_step"}};
  return b;
}

std::string points_text(const std::vector<ConvergencePoint>& points) {
  std::string out;
  for (const auto& p : points) {
    out += std::to_string(p.step) + ":" + std::to_string(p.programs_cached) + "/" +
           std::to_string(p.compiles_in_step);
    if (p.compile_ms) out += " c" + std::to_string(static_cast<int64_t>(*p.compile_ms));
    if (p.wall_ms) out += " w" + std::to_string(static_cast<int64_t>(*p.wall_ms));
    out += "\n";
  }
  return out;
}

TEST(ConvergencePoints, AMillionStepsThatCompiledThriceKeepFiveRows) {
  XlaRunInputs in;
  in.source_names = {{1, "debug.log"}};
  in.steps_seen = 1'000'000;
  in.blocks = {compile_at(10, 1, "aa01"), compile_at(20, 2, "bb02"), compile_at(30, 2, "cc03"),
               compile_at(40, 7, "aa01")};
  XlaRunResult r = analyze_xla_run(in, 1);
  // First step, the steps with compiles, the last step: nothing in between.
  EXPECT_EQ(points_text(r.convergence), "1:1/1\n2:3/2\n7:3/1\n1000000:3/0\n");

  RunRollup rollup = roll_up_run(r.compiles, r.convergence, std::nullopt);
  EXPECT_EQ(rollup.convergence.settle_step, 2);
  EXPECT_EQ(rollup.convergence.programs_at_settle, 3);
  EXPECT_EQ(rollup.convergence.last_step, 1'000'000);
  EXPECT_EQ(rollup.convergence.compiles, 4);
  EXPECT_EQ(settle_state_name(rollup.convergence.state), std::string("settled"));
}

TEST(ConvergencePoints, StepsWithTimesAreKeptAndSummed) {
  XlaRunInputs in;
  in.source_names = {{1, "debug.log"}};
  in.steps_seen = 6;
  in.blocks = {compile_at(10, 1, "aa01")};
  // Wall times for steps 1..3 only (a step file cut short); a compile time at step 4 without a
  // compile block (the step file saw one the debug log did not).
  in.step_times = {
      {1, 900.0, 800.0}, {2, 100.0, std::nullopt}, {3, 110.0, 0.0}, {4, std::nullopt, 50.0}};
  XlaRunResult r = analyze_xla_run(in, 1);
  EXPECT_EQ(points_text(r.convergence),
            "1:1/1 c800 w900\n2:1/0 w100\n3:1/0 c0 w110\n4:1/0 c50\n6:1/0\n");
  RunRollup rollup = roll_up_run(r.compiles, r.convergence, std::nullopt);
  ASSERT_TRUE(rollup.compile_ms.has_value());
  EXPECT_DOUBLE_EQ(*rollup.compile_ms, 850.0);
  ASSERT_TRUE(rollup.wall_ms.has_value());
  EXPECT_DOUBLE_EQ(*rollup.wall_ms, 1110.0);
}

TEST(ConvergencePoints, MetricsOnlyRunsKeepTheStepsWhereCompilesGrew) {
  XlaRunInputs in;
  in.source_names = {{1, "metrics.txt"}};
  // CompileTime TotalSamples per [MetricsData; step=N] block, no accumulator.
  for (int64_t step = 1; step <= 1000; ++step)
    in.compile_time_steps.push_back({step, step < 3 ? double(step * 2) : 4.0, std::nullopt});
  in.compile_time_steps[499].total_samples = 5;  // one late compile at step 500
  for (int64_t step = 501; step <= 1000; ++step) in.compile_time_steps[step - 1].total_samples = 5;
  XlaRunResult r = analyze_xla_run(in, 1);
  EXPECT_EQ(points_text(r.convergence), "1:2/2\n2:4/2\n500:5/1\n1000:5/0\n");
}

}  // namespace convergence_points_test
}  // namespace rcf::analysis
