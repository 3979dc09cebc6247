// The convergence curve of compiles handed over one at a time with their training steps (the
// Dynamo side, whose compiles are streamed to the writer, never all held): programs cached vs
// step, change points only, as analysis/xla_compiles.h builds the torch_xla curve. A Dynamo
// compile is a program of its own (its key is unique in the run: process, epoch, frame,
// compile), so programs cached are the compiles so far; memory follows the steps.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/xla_compiles.h"

namespace rcf::analysis {

class StepCurve {
 public:
  void add(int64_t step, std::optional<double> compile_ms);
  bool empty() const { return in_order_.empty() && late_.empty(); }
  // Change points from the first step with a compile (or 1) to `last_step` (at least the last
  // step with a compile); `wall_ms` per step when timed.
  std::vector<ConvergencePoint> finish(int64_t last_step,
                                       const std::map<int64_t, double>& wall_ms) const;

 private:
  struct Step {
    int64_t step = 0;
    int64_t compiles = 0;
    std::optional<double> compile_ms;
  };
  // The steps with compiles: those that came in step order in a sorted array, the few that came
  // after a later step in a map (a map of every step, 50 000 nodes, was allocated again with each
  // copy a watched run's checkpoint takes at every batch). A step is in one of the two, so that
  // its compile time is summed in the order its compiles came.
  std::vector<Step> in_order_;
  std::map<int64_t, Step> late_;
  // Both, by step.
  std::vector<Step> by_step() const;
};

// Two curves of one run (torch_xla and Dynamo compiles) as one: counts add up per step.
std::vector<ConvergencePoint> merge_curves(const std::vector<ConvergencePoint>& a,
                                           const std::vector<ConvergencePoint>& b);

}  // namespace rcf::analysis
