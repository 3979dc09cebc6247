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
  keys_.ordinal(c.program_key);
  if (c.compile_ms) known_ms_ = known_ms_.value_or(0) + *c.compile_ms;
  if (c.cause == "first_compile") return;
  ++r_.recompiles;
  Group& a = group_of(c);
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
  if (!c.subject.empty()) {
    uint32_t subject = subjects_.ordinal(c.subject);
    if (subject > subject_texts_.size()) subject_texts_.emplace_back(c.subject);
    auto counted = std::find_if(a.subjects.begin(), a.subjects.end(),
                                [subject](const auto& s) { return s.first == subject; });
    if (counted == a.subjects.end())
      a.subjects.emplace_back(subject, 1);
    else
      ++counted->second;
  }
}

RollupBuilder::Group& RollupBuilder::group_of(const AttributedCompile& c) {
  uint32_t site = 0;
  if (c.site_number == 0) {
    site = sites_.ordinal(c.site);
  } else {
    if (c.site_number > site_ordinals_.size()) site_ordinals_.resize(c.site_number, 0);
    uint32_t& known = site_ordinals_[c.site_number - 1];
    if (known == 0) known = sites_.ordinal(c.site);
    site = known;
  }
  uint32_t cause = causes_.ordinal(c.cause);
  if (site > site_groups_.size()) site_groups_.push_back(0);
  uint32_t last = 0;  // index + 1 of the site's last group, 0: none yet
  for (uint32_t i = site_groups_[site - 1]; i != 0; i = groups_[i - 1].next_at_site) {
    if (groups_[i - 1].cause == cause) return groups_[i - 1];
    last = i;
  }
  Group& g = groups_.emplace_back();
  uint32_t index = static_cast<uint32_t>(groups_.size());
  (last != 0 ? groups_[last - 1].next_at_site : site_groups_[site - 1]) = index;
  g.cause = cause;
  g.g.site = c.site;
  g.g.cause = c.cause;
  return g;
}

RunRollup RollupBuilder::finish() && {
  RunRollup r = std::move(r_);
  r.programs = static_cast<int64_t>(keys_.size());
  if (!r.compile_ms) r.compile_ms = known_ms_;
  if (r.compile_ms && r.wall_ms && *r.wall_ms > 0) r.compile_share = *r.compile_ms / *r.wall_ms;

  for (Group& a : groups_) {
    a.g.compile_ms_basis = a.shared > 0 ? "step_share" : a.measured > 0 ? "measured" : "unknown";
    int64_t best = 0;
    for (const auto& [ordinal, n] : a.subjects) {
      const std::string& subject = subject_texts_[ordinal - 1];
      if (n > best || (n == best && subject < a.g.subject)) {  // ties: the smallest subject
        best = n;
        a.g.subject = subject;
      }
    }
  }
  // Fix-first order; the groups are sorted by reference and each moved once (a group is a few
  // hundred bytes of strings).
  std::vector<CauseGroup*> order;
  order.reserve(groups_.size());
  for (Group& a : groups_) order.push_back(&a.g);
  std::sort(order.begin(), order.end(), [](const CauseGroup* x, const CauseGroup* y) {
    double xm = x->compile_ms_lost.value_or(-1), ym = y->compile_ms_lost.value_or(-1);
    return std::tie(ym, y->recompiles, x->site, x->cause) <
           std::tie(xm, x->recompiles, y->site, y->cause);
  });
  r.groups.reserve(order.size());
  for (CauseGroup* g : order) r.groups.push_back(std::move(*g));
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
