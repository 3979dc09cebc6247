#include "analysis/run_rollup.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace rcf::analysis {

RollupBuilder::RollupBuilder(const std::vector<ConvergencePoint>& curve,
                             std::optional<double> execute_ms, int64_t growth_step) {
  std::vector<CurvePoint> points;
  for (const auto& p : curve) {
    points.push_back({p.step, p.programs_cached, p.compiles_in_step});
    point_at_[p.step] = &p;
    if (p.compile_ms) r_.compile_ms = r_.compile_ms.value_or(0) + *p.compile_ms;
    if (p.wall_ms) r_.wall_ms = r_.wall_ms.value_or(0) + *p.wall_ms;
  }
  r_.convergence = summarize_convergence(std::move(points), growth_step);
  r_.execute_ms = execute_ms;
}

void RollupBuilder::add(const AttributedCompile& c) {
  ++r_.compiles;
  keys_.insert(c.program_key);
  if (c.compile_ms) known_ms_ = known_ms_.value_or(0) + *c.compile_ms;
  if (c.cause == "first_compile") return;
  ++r_.recompiles;
  auto site = groups_.find(c.site);
  if (site == groups_.end())
    site = groups_.emplace(c.site, std::map<std::string, Group, std::less<>>()).first;
  auto group = site->second.find(c.cause);
  if (group == site->second.end()) {
    group = site->second.emplace(c.cause, Group()).first;
    group->second.g.site = c.site;
    group->second.g.cause = c.cause;
  }
  Group& a = group->second;
  ++a.g.recompiles;
  std::optional<double> cost = c.compile_ms;
  if (cost) {
    ++a.measured;
  } else if (c.step) {
    auto it = point_at_.find(*c.step);
    if (it != point_at_.end() && it->second->compile_ms && it->second->compiles_in_step > 0) {
      cost = *it->second->compile_ms / static_cast<double>(it->second->compiles_in_step);
      ++a.shared;
    }
  }
  if (cost) a.g.compile_ms_lost = a.g.compile_ms_lost.value_or(0) + *cost;
  if (c.step) {
    a.g.first_step = a.g.first_step ? std::min(*a.g.first_step, *c.step) : *c.step;
    a.g.last_step = a.g.last_step ? std::max(*a.g.last_step, *c.step) : *c.step;
  }
  if (c.ordinal > a.latest_ordinal) {
    a.latest_ordinal = c.ordinal;
    a.g.detail = c.detail;
  }
  if (!c.subject.empty()) ++a.subjects[c.subject];
}

RunRollup RollupBuilder::finish() && {
  RunRollup r = std::move(r_);
  r.programs = static_cast<int64_t>(keys_.size());
  if (!r.compile_ms) r.compile_ms = known_ms_;
  if (r.compile_ms && r.wall_ms && *r.wall_ms > 0) r.compile_share = *r.compile_ms / *r.wall_ms;

  for (auto& [site, causes] : groups_)
    for (auto& [cause, a] : causes) {
      a.g.compile_ms_basis = a.shared > 0 ? "step_share" : a.measured > 0 ? "measured" : "unknown";
      int64_t best = 0;
      for (const auto& [subject, n] : a.subjects)
        if (n > best) {  // map order: ties keep the smallest subject
          best = n;
          a.g.subject = subject;
        }
      r.groups.push_back(std::move(a.g));
    }
  std::sort(r.groups.begin(), r.groups.end(), [](const CauseGroup& x, const CauseGroup& y) {
    double xm = x.compile_ms_lost.value_or(-1), ym = y.compile_ms_lost.value_or(-1);
    return std::tie(ym, y.recompiles, x.site, x.cause) <
           std::tie(xm, x.recompiles, y.site, y.cause);
  });
  for (size_t i = 0; i < r.groups.size(); ++i) r.groups[i].rank = static_cast<int64_t>(i) + 1;
  return r;
}

RunRollup roll_up_run(const std::vector<AttributedCompile>& compiles,
                      const std::vector<ConvergencePoint>& curve, std::optional<double> execute_ms,
                      int64_t growth_step) {
  RollupBuilder builder(curve, execute_ms, growth_step);
  for (const auto& c : compiles) builder.add(c);
  return std::move(builder).finish();
}

}  // namespace rcf::analysis
