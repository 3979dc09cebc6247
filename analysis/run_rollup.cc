#include "analysis/run_rollup.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace rcf::analysis {

RollupBuilder::RollupBuilder(const std::vector<ConvergencePoint>& curve,
                             std::optional<double> execute_ms, int64_t growth_step,
                             size_t expected_compiles) {
  groups_.reserve(expected_compiles);
  details_.reserve(expected_compiles);
  program_keys_.reserve(expected_compiles);
  growth_step_ = growth_step;
  replace_curve(curve);
  r_.execute_ms = execute_ms;
}

void RollupBuilder::replace_curve(const std::vector<ConvergencePoint>& curve) {
  std::vector<CurvePoint> points;
  point_at_.clear();
  r_.compile_ms.reset();
  r_.wall_ms.reset();
  point_at_.reserve(curve.size());
  for (const auto& p : curve) {
    points.push_back({p.step, p.programs_cached, p.compiles_in_step});
    point_at_.emplace_back(p.step, &p);
    if (p.compile_ms) r_.compile_ms = r_.compile_ms.value_or(0) + *p.compile_ms;
    if (p.wall_ms) r_.wall_ms = r_.wall_ms.value_or(0) + *p.wall_ms;
  }
  auto by_step = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(point_at_.begin(), point_at_.end(), by_step))
    std::stable_sort(point_at_.begin(), point_at_.end(), by_step);
  r_.convergence = summarize_convergence(std::move(points), growth_step_);
}

const ConvergencePoint* RollupBuilder::point_at(int64_t step) const {
  auto after = std::upper_bound(point_at_.begin(), point_at_.end(), step,
                                [](int64_t s, const auto& p) { return s < p.first; });
  if (after == point_at_.begin() || std::prev(after)->first != step) return nullptr;
  return std::prev(after)->second;
}

RollupBuilder RollupBuilder::checkpoint() {
  program_keys_.count();  // sorted once here: the copy's and this builder's counts sort only
                          // the keys added after
  // The copy's groups get this builder's room (pages not written cost nothing), so that its first
  // new group does not move them all to a larger array; they are copied once, into that room (a
  // copy of exactly their size moved again at once was a sixteenth of a watch's CPU).
  util::LargeVector<Group> groups = std::move(groups_);
  RollupBuilder copy(*this);
  groups_ = std::move(groups);
  copy.groups_.reserve(groups_.capacity());
  copy.groups_.assign(groups_.begin(), groups_.end());
  copy.touched_.clear();
  copy.recheck_.clear();
  checkpointed_at_ = ++gen_;
  return copy;
}

void RollupBuilder::resume_on(const std::vector<ConvergencePoint>& curve,
                              std::optional<double> execute_ms) {
  replace_curve(curve);
  r_.execute_ms = execute_ms;
  site_ordinals_.clear();
  touched_.clear();
  resumed_at_ = ++gen_;
  checkpointed_at_ = 0;
}

void RollupBuilder::hand_again(const std::vector<uint32_t>& groups) {
  recheck_.clear();
  for (uint32_t index : groups)
    if (index < groups_.size()) recheck_.push_back(index);
}

void RollupBuilder::touch(Group& a) {
  if (resumed() && a.touched < resumed_at_)
    touched_.push_back(static_cast<uint32_t>(&a - groups_.data()));
  a.touched = gen_;
}

void RollupBuilder::add(const AttributedCompile& c, int64_t site_sid) {
  ++r_.compiles;
  program_keys_.add(c.program_key);
  if (c.compile_ms) known_ms_ = known_ms_.value_or(0) + *c.compile_ms;
  if (c.cause == "first_compile") return;
  ++r_.recompiles;
  Group& a = group_of(c, site_sid);
  touch(a);
  ++a.recompiles;
  std::optional<double> cost = c.compile_ms;
  if (cost) {
    ++a.measured;
  } else if (c.step) {
    const ConvergencePoint* point = point_at(*c.step);
    if (point && point->compile_ms && point->compiles_in_step > 0) {
      cost = *point->compile_ms / static_cast<double>(point->compiles_in_step);
      ++a.shared;
    }
  }
  if (cost) {
    a.ms_lost += *cost;
    a.has_ms_lost = true;
  }
  if (c.step) {
    a.first_step = a.first_step == kNoStep ? *c.step : std::min(a.first_step, *c.step);
    a.last_step = a.last_step == kNoStep ? *c.step : std::max(a.last_step, *c.step);
  }
  if (c.ordinal > a.latest_ordinal) {
    a.latest_ordinal = c.ordinal;
    details_.mutate(static_cast<size_t>(&a - groups_.data())) = c.detail;
  }
  if (!c.subject.empty()) {
    uint32_t subject = subjects_.ordinal(c.subject);
    if (a.subject == 0 || a.subject == subject) {
      a.subject = subject;
      ++a.subject_count;
    } else {
      auto& others = other_subjects_[static_cast<uint32_t>(&a - groups_.data())];
      auto counted = std::find_if(others.begin(), others.end(),
                                  [subject](const auto& s) { return s.first == subject; });
      if (counted == others.end())
        others.emplace_back(subject, 1);
      else
        ++counted->second;
    }
  }
}

void RollupBuilder::set_site_sid(uint32_t site_number, int64_t site_sid) {
  if (site_number == 0 || site_number > site_ordinals_.size()) return;
  uint32_t site = site_ordinals_[site_number - 1];
  if (site != 0 && site_sid != 0) site_sids_[site - 1] = site_sid;
}

RollupBuilder::Group& RollupBuilder::group_of(const AttributedCompile& c, int64_t site_sid) {
  auto site_ordinal = [&] {
    uint32_t site = sites_.ordinal(c.site);
    if (site > site_sids_.size()) {
      site_sids_.push_back(0);
      site_groups_.push_back(0);
    }
    return site;
  };
  uint32_t site = 0;
  if (c.site_number == 0) {
    site = site_ordinal();
  } else {
    if (c.site_number > site_ordinals_.size()) site_ordinals_.resize(c.site_number, 0);
    uint32_t& known = site_ordinals_[c.site_number - 1];
    if (known == 0) known = site_ordinal();
    site = known;
  }
  if (site_sid != 0) site_sids_[site - 1] = site_sid;
  uint32_t cause = causes_.ordinal(c.cause);
  uint32_t last = 0;  // index + 1 of the site's last group, 0: none yet
  for (uint32_t i = site_groups_[site - 1]; i != 0; i = groups_[i - 1].next_at_site) {
    if (groups_[i - 1].cause == cause) return groups_[i - 1];
    last = i;
  }
  Group& g = groups_.emplace_back();
  details_.push_back({});
  uint32_t index = static_cast<uint32_t>(groups_.size());
  (last != 0 ? groups_[last - 1].next_at_site : site_groups_[site - 1]) = index;
  g.site = site;
  g.cause = cause;
  return g;
}

RunRollup RollupBuilder::finish() && {
  // Fix-first order: compile time lost (unknown last), recompiles, then the texts, as the
  // fix_first view numbers the rows (sql/schema.sql).
  std::vector<uint32_t> order(groups_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [this](uint32_t i, uint32_t j) {
    const Group& x = groups_[i];
    const Group& y = groups_[j];
    if (x.has_ms_lost != y.has_ms_lost) return x.has_ms_lost;
    if (x.has_ms_lost && x.ms_lost != y.ms_lost) return x.ms_lost > y.ms_lost;
    if (x.recompiles != y.recompiles) return x.recompiles > y.recompiles;
    if (x.site != y.site) return sites_.text(x.site) < sites_.text(y.site);
    return causes_.text(x.cause) < causes_.text(y.cause);
  });
  std::vector<CauseGroup> groups(order.size());
  for (size_t rank = 0; rank < order.size(); ++rank) fill(order[rank], groups[rank]);
  RunRollup r = take_totals();
  r.groups = std::move(groups);
  return r;
}

RunRollup RollupBuilder::finish(const std::function<void(CauseGroup&&)>& each,
                                bool changed_only) && {
  RunRollup r = take_totals();
  CauseGroup g;
  auto hand = [&](uint32_t index) {
    fill(index, g);
    if (g.after_checkpoint) r.changed_after_checkpoint.push_back(index);
    each(std::move(g));
  };
  if (changed_only && resumed()) {
    for (uint32_t index : touched_) hand(index);
    for (uint32_t index : recheck_)
      if (groups_[index].touched < resumed_at_) hand(index);  // else handed with touched_
  } else {
    for (uint32_t index = 0; index < groups_.size(); ++index) hand(index);
  }
  return r;
}

RunRollup RollupBuilder::take_totals() {
  RunRollup r = std::move(r_);
  r.programs = static_cast<int64_t>(program_keys_.count());
  if (!r.compile_ms) r.compile_ms = known_ms_;
  if (r.compile_ms && r.wall_ms && *r.wall_ms > 0) r.compile_share = *r.compile_ms / *r.wall_ms;
  return r;
}

void RollupBuilder::fill(uint32_t index, CauseGroup& g) {
  Group& a = groups_[index];
  g.site = sites_.text(a.site);
  g.site_sid = site_sids_[a.site - 1];
  g.cause = causes_.text(a.cause);
  g.recompiles = a.recompiles;
  g.compile_ms_lost = a.has_ms_lost ? std::optional<double>(a.ms_lost) : std::nullopt;
  g.compile_ms_basis = a.shared > 0 ? "step_share" : a.measured > 0 ? "measured" : "unknown";
  g.first_step = a.first_step != kNoStep ? std::optional<int64_t>(a.first_step) : std::nullopt;
  g.last_step = a.last_step != kNoStep ? std::optional<int64_t>(a.last_step) : std::nullopt;
  details_.take_into(index, g.detail);
  // The most frequent subject; ties: the smallest.
  uint32_t best = a.subject;
  int64_t best_n = a.subject_count;
  auto others = other_subjects_.find(index);
  if (others != other_subjects_.end())
    for (const auto& [ordinal, n] : others->second)
      if (n > best_n || (n == best_n && subjects_.text(ordinal) < subjects_.text(best))) {
        best = ordinal;
        best_n = n;
      }
  if (best != 0)
    g.subject = subjects_.text(best);
  else
    g.subject.clear();
  g.remedy_variant = remedy_variant(g.cause, g.subject, g.detail);
  g.after_checkpoint = checkpointed_at_ != 0 && a.touched >= checkpointed_at_;
}

std::string remedy_variant(std::string_view cause, std::string_view subject,
                           std::string_view detail) {
  if (cause == "sync_fragment" && detail.find(kBreakNotAHostSync) != std::string_view::npos)
    return "graph_break";
  if (cause == "graph_structure" && subject != kSubjectAlternatingPrograms) return "ops_changed";
  return "";
}

RunRollup roll_up_run(const std::vector<AttributedCompile>& compiles,
                      const std::vector<ConvergencePoint>& curve, std::optional<double> execute_ms,
                      int64_t growth_step) {
  RollupBuilder builder(curve, execute_ms, growth_step);
  for (const auto& c : compiles) builder.add(c);
  return std::move(builder).finish();
}

}  // namespace rcf::analysis
