// Did a run settle? Summarises a run's convergence curve (programs cached vs step) into the facts
// users ask for: the settle step, programs at settle, or "still growing at step N". Pure, so it is
// shared by `rcf explain`, `rcf report` and `rcf gate` and unit-tested on small curves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rcf::analysis {

inline constexpr int64_t kDefaultGrowthStep = 20;  // new programs after this step = instability

struct CurvePoint {
  int64_t step = 0;
  int64_t programs_cached = 0;
  int64_t compiles_in_step = 0;
};

enum class SettleState {
  kNoData,        // the run has no convergence curve (no steps in its logs)
  kSettled,       // a new program appeared last at settle_step, no later step compiled one, and
                  // settle_step <= growth_step
  kNotSettled,    // the last step seen still built a new program (the run may be too short to tell)
  kStillGrowing,  // a new program appeared after growth_step
};

struct ConvergenceSummary {
  SettleState state = SettleState::kNoData;
  int64_t first_step = 0;          // first step of the curve
  int64_t last_step = 0;           // last step of the curve
  int64_t settle_step = 0;         // last step in which programs_cached grew (0 when it never did)
  int64_t programs_at_settle = 0;  // programs_cached at settle_step
  int64_t final_programs = 0;      // programs_cached at last_step
  int64_t compiles = 0;            // sum of compiles_in_step
  int64_t new_after_growth_step = 0;  // programs that appeared after growth_step
  int64_t growth_step = kDefaultGrowthStep;
  // What the steps count: "step" (training steps) or "sync" when the run's evidence could not
  // decide the training step (analysis/training_steps.h); the texts say it.
  std::string unit = "step";
};

// `points` in any order (sorted internally by step).
ConvergenceSummary summarize_convergence(std::vector<CurvePoint> points,
                                         int64_t growth_step = kDefaultGrowthStep);

// "settled", "not_settled", "still_growing", "no_data": the stable names used in JSON and SQL.
const char* settle_state_name(SettleState state);

// One sentence for terminal and Markdown output, stating only what the curve shows, e.g.
// "settled at step 5 with 15 programs; no new program in steps 6..20",
// "still growing: 3 new programs after step 20 (last at step 37, 41 programs)",
// "not settled: a new program appeared at the last step seen (12), 19 programs".
std::string describe_convergence(const ConvergenceSummary& s);

}  // namespace rcf::analysis
