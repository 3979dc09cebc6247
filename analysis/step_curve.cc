#include "analysis/step_curve.h"

#include <algorithm>
#include <vector>

namespace rcf::analysis {

void StepCurve::add(int64_t step, std::optional<double> compile_ms) {
  Step* s = nullptr;
  if (in_order_.empty() || in_order_.back().step < step) {
    s = &in_order_.emplace_back();
    s->step = step;
  } else {
    auto at = std::lower_bound(in_order_.begin(), in_order_.end(), step,
                               [](const Step& a, int64_t b) { return a.step < b; });
    if (at != in_order_.end() && at->step == step) {
      s = &*at;
    } else {
      s = &late_[step];
      s->step = step;
    }
  }
  ++s->compiles;
  if (compile_ms) s->compile_ms = s->compile_ms.value_or(0) + *compile_ms;
}

std::vector<StepCurve::Step> StepCurve::by_step() const {
  std::vector<Step> all;
  all.reserve(in_order_.size() + late_.size());
  auto late = late_.begin();
  for (const Step& s : in_order_) {
    for (; late != late_.end() && late->first < s.step; ++late) all.push_back(late->second);
    all.push_back(s);
  }
  for (; late != late_.end(); ++late) all.push_back(late->second);
  return all;
}

std::vector<ConvergencePoint> StepCurve::finish(int64_t last_step,
                                                const std::map<int64_t, double>& wall_ms) const {
  std::vector<ConvergencePoint> out;
  if (empty()) return out;
  const std::vector<Step> in_step = by_step();
  const int64_t first = std::min<int64_t>(1, in_step.front().step);
  last_step = std::max(last_step, in_step.back().step);
  // The steps of the points, as a sorted array (a set of a point per step allocated a node each
  // at every analysis of a watched run): the steps with compiles and the timed steps are each in
  // order already, so they are merged, not sorted (100 000 steps at every analysis).
  std::vector<int64_t> steps;
  steps.reserve(in_step.size() + wall_ms.size() + 2);
  steps.push_back(first);  // at or before every step with a compile
  auto compiled = in_step.begin();
  auto timed = wall_ms.lower_bound(first);
  const auto timed_end = wall_ms.upper_bound(last_step);
  while (compiled != in_step.end() || timed != timed_end) {
    const bool take_compiled =
        timed == timed_end || (compiled != in_step.end() && compiled->step <= timed->first);
    const int64_t step = take_compiled ? (compiled++)->step : (timed++)->first;
    if (step != steps.back()) steps.push_back(step);
  }
  if (steps.back() != last_step) steps.push_back(last_step);
  out.reserve(steps.size());  // a watched run's 100 000 points, copied as they grew otherwise
  int64_t programs = 0;
  auto next = in_step.begin();
  for (int64_t step : steps) {
    ConvergencePoint p;
    p.step = step;
    for (; next != in_step.end() && next->step <= step; ++next) {
      programs += next->compiles;
      if (next->step == step) {
        p.compiles_in_step = next->compiles;
        p.compile_ms = next->compile_ms;
      }
    }
    p.programs_cached = programs;
    if (auto w = wall_ms.find(step); w != wall_ms.end()) p.wall_ms = w->second;
    out.push_back(p);
  }
  return out;
}

namespace {
// programs_cached at `step` of a change-point curve: the last row at or before it.
int64_t programs_at(const std::vector<ConvergencePoint>& curve, int64_t step) {
  auto it = std::upper_bound(curve.begin(), curve.end(), step,
                             [](int64_t s, const ConvergencePoint& p) { return s < p.step; });
  return it == curve.begin() ? 0 : std::prev(it)->programs_cached;
}
}  // namespace

std::vector<ConvergencePoint> merge_curves(const std::vector<ConvergencePoint>& a,
                                           const std::vector<ConvergencePoint>& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  std::map<int64_t, ConvergencePoint> by_step;
  for (const auto* curve : {&a, &b})
    for (const ConvergencePoint& p : *curve) {
      ConvergencePoint& m = by_step[p.step];
      m.step = p.step;
      m.compiles_in_step += p.compiles_in_step;
      if (p.compile_ms) m.compile_ms = m.compile_ms.value_or(0) + *p.compile_ms;
      if (p.wall_ms) m.wall_ms = p.wall_ms;  // one step timing for the run
    }
  std::vector<ConvergencePoint> out;
  for (auto& [step, p] : by_step) {
    p.programs_cached = programs_at(a, step) + programs_at(b, step);
    out.push_back(p);
  }
  return out;
}

}  // namespace rcf::analysis
