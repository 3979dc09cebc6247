#include "analysis/convergence_summary.h"

#include <fmt/format.h>

#include <algorithm>

namespace rcf::analysis {

ConvergenceSummary summarize_convergence(std::vector<CurvePoint> points, int64_t growth_step) {
  ConvergenceSummary s;
  s.growth_step = growth_step;
  if (points.empty()) return s;
  std::sort(points.begin(), points.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.step < b.step; });
  s.first_step = points.front().step;
  s.last_step = points.back().step;
  s.final_programs = points.back().programs_cached;
  int64_t before = 0;  // programs cached before the current point
  for (const CurvePoint& p : points) {
    s.compiles += p.compiles_in_step;
    if (p.programs_cached > before) {
      s.settle_step = p.step;
      s.programs_at_settle = p.programs_cached;
      if (p.step > growth_step) s.new_after_growth_step += p.programs_cached - before;
    }
    before = std::max(before, p.programs_cached);
  }
  if (s.new_after_growth_step > 0)
    s.state = SettleState::kStillGrowing;
  else if (s.settle_step == s.last_step)
    s.state = SettleState::kNotSettled;
  else
    s.state = SettleState::kSettled;
  return s;
}

const char* settle_state_name(SettleState state) {
  switch (state) {
    case SettleState::kNoData:
      return "no_data";
    case SettleState::kSettled:
      return "settled";
    case SettleState::kNotSettled:
      return "not_settled";
    case SettleState::kStillGrowing:
      return "still_growing";
  }
  return "no_data";
}

std::string describe_convergence(const ConvergenceSummary& s) {
  auto programs = [](int64_t n) { return fmt::format("{} program{}", n, n == 1 ? "" : "s"); };
  const std::string& u = s.unit;
  switch (s.state) {
    case SettleState::kNoData:
      return "no convergence curve: the logs give no steps";
    case SettleState::kSettled:
      if (s.settle_step == 0)
        return fmt::format("no program built in {}s {}..{}", u, s.first_step, s.last_step);
      return fmt::format("settled at {} {} with {}; no new program in {}s {}..{}", u, s.settle_step,
                         programs(s.programs_at_settle), u, s.settle_step + 1, s.last_step);
    case SettleState::kNotSettled:
      return fmt::format("not settled: a new program appeared at the last {} seen ({}), {}", u,
                         s.last_step, programs(s.final_programs));
    case SettleState::kStillGrowing:
      return fmt::format("still growing: {} new after {} {} (last at {} {}, {})",
                         programs(s.new_after_growth_step), u, s.growth_step, u, s.settle_step,
                         programs(s.programs_at_settle));
  }
  return "";
}

}  // namespace rcf::analysis
