#include "analysis/gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/restart_proof.h"
#include "util/error.h"

namespace rcf::analysis {

const std::vector<std::string>& gate_cause_vocabulary() {
  static const std::vector<std::string> kCauses = {
      "backend",    "constant",        "dtype", "global_state",  "graph_structure",
      "key_subset", "object_identity", "shape", "sync_fragment", "tensor_meta",
      "type",       "unknown"};
  return kCauses;
}

Growth parse_growth(std::string_view text, std::string_view what) {
  Growth g;
  std::string_view number = text;
  if (!number.empty() && number.back() == '%') {
    g.percent = true;
    number.remove_suffix(1);
  }
  const char* end = number.data() + number.size();
  auto [ptr, ec] = std::from_chars(number.data(), end, g.amount);
  bool whole = g.percent || g.amount == std::floor(g.amount);
  if (number.empty() || ec != std::errc() || ptr != end || g.amount < 0 || !whole ||
      !std::isfinite(g.amount) || g.amount > static_cast<double>(kMaxBudgetValue))
    throw Error(
        fmt::format("{}: '{}' is not a growth allowance (a count such as 3 or a "
                    "percentage such as 10%, from 0 to {})",
                    what, text, kMaxBudgetValue));
  return g;
}

int64_t parse_budget_count(std::string_view text, std::string_view what) {
  int64_t n = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end || n < 0 || n > kMaxBudgetValue)
    throw Error(fmt::format("{}: '{}' is not a budget (a whole number from 0 to {})", what, text,
                            kMaxBudgetValue));
  return n;
}

double parse_compile_share(std::string_view text, std::string_view what) {
  double share = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, share);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(share) || share < 0 ||
      share > 1)
    throw Error(fmt::format(
        "{}: '{}' is not a compile share (a number from 0 to 1, e.g. 0.25 for 25%)", what, text));
  return share;
}

std::string format_growth(const Growth& g) {
  return g.percent ? fmt::format("{:g}%", g.amount) : fmt::format("{:g}", g.amount);
}

int64_t allowed_after_growth(int64_t baseline, const Growth& g) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (!g.percent) {
    int64_t amount = static_cast<int64_t>(std::min(g.amount, static_cast<double>(kMaxBudgetValue)));
    return baseline > kMax - amount ? kMax : baseline + amount;
  }
  // A small epsilon so that 20 * 1.1 is 22, not 21.999...
  double allowed = std::floor(static_cast<double>(baseline) * (1 + g.amount / 100) + 1e-9);
  // 2^63 is the first double past the largest int64_t: converting it or more is undefined.
  return allowed >= 9223372036854775808.0 ? kMax : static_cast<int64_t>(allowed);
}

void BudgetPatch::apply_to(Budgets& b) const {
  if (max_programs) b.max_programs = max_programs;
  if (settle_by_off) b.settle_by.reset();
  if (settle_by) b.settle_by = settle_by;
  if (max_recompiles_per_site) b.max_recompiles_per_site = max_recompiles_per_site;
  if (forbid_causes) b.forbid_causes = *forbid_causes;
  if (max_compile_share) b.max_compile_share = max_compile_share;
  if (max_growth) b.max_growth = *max_growth;
  if (require_restart_proof) b.require_restart_proof = *require_restart_proof;
}

SiteLocation parse_site(std::string_view site) {
  std::string_view s = site;
  // Optional " [graph name]", then " (function)".
  if (!s.empty() && s.back() == ']') {
    size_t open = s.rfind(" [");
    if (open != std::string_view::npos) s = s.substr(0, open);
  }
  if (!s.empty() && s.back() == ')') {
    size_t open = s.rfind(" (");
    if (open != std::string_view::npos) s = s.substr(0, open);
  }
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == s.size()) return {};
  int64_t line = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data() + colon + 1, end, line);
  if (ec != std::errc() || ptr != end || line <= 0) return {};
  return {std::string(s.substr(0, colon)), line};
}

const char* check_status_name(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kSkipped:
      return "skipped";
  }
  return "skipped";
}

std::string format_value(ValueKind kind, double value) {
  switch (kind) {
    case ValueKind::kCount:
      return fmt::format("{}", static_cast<int64_t>(value));
    case ValueKind::kStep:
      return fmt::format("step {}", static_cast<int64_t>(value));
    case ValueKind::kSync:
      return fmt::format("sync {}", static_cast<int64_t>(value));
    case ValueKind::kShare:
      return fmt::format("{:.1f}%", value * 100);
  }
  return "";
}

std::string CheckResult::message() const {
  if (status != CheckStatus::kFail || !culprit) return summary;
  std::string text = fmt::format("{}: top cause {} at {}", summary, culprit->cause, culprit->site);
  if (!culprit->detail.empty()) text += ": " + culprit->detail;
  return text;
}

bool LaneResult::passed() const {
  return std::none_of(checks.begin(), checks.end(),
                      [](const CheckResult& c) { return c.status == CheckStatus::kFail; });
}

bool GateResult::passed() const {
  return std::all_of(lanes.begin(), lanes.end(), [](const LaneResult& l) { return l.passed(); });
}

bool GateResult::lacks_evidence() const {
  for (const auto& lane : lanes)
    for (const auto& c : lane.checks)
      if (c.budget == kEvidenceBudget && c.status == CheckStatus::kFail) return true;
  return false;
}

int64_t GateResult::count(CheckStatus status) const {
  int64_t n = 0;
  for (const auto& lane : lanes)
    for (const auto& check : lane.checks) n += check.status == status;
  return n;
}

namespace {

std::string plural(int64_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

Culprit culprit_of(const GateCauseGroup& g) {
  SiteLocation where = parse_site(g.site);
  return {g.site, g.cause, g.detail, g.recompiles, where.file, where.line};
}

// The site x cause group that explains most of `arrivals` (programs that appeared late).
std::optional<Culprit> culprit_of_arrivals(const std::vector<const ProgramArrival*>& arrivals) {
  if (arrivals.empty()) return std::nullopt;
  struct Group {
    int64_t count = 0;
    int64_t first_step = 0;
    const ProgramArrival* latest = nullptr;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const ProgramArrival* a : arrivals) {
    Group& g = groups[{a->site, a->cause}];
    if (g.count++ == 0) g.first_step = a->step;
    g.latest = a;
  }
  const std::pair<const std::pair<std::string, std::string>, Group>* best = nullptr;
  for (const auto& entry : groups)
    if (!best || entry.second.count > best->second.count ||
        (entry.second.count == best->second.count &&
         entry.second.first_step < best->second.first_step))
      best = &entry;
  const ProgramArrival& a = *best->second.latest;
  Culprit c;
  c.site = a.site;
  c.cause = a.cause;
  c.recompiles = a.cause == "first_compile" ? 0 : best->second.count;
  c.detail = a.cause == "first_compile"
                 ? fmt::format("{} first compiled here", plural(best->second.count, "program"))
                 : a.detail;
  SiteLocation where = parse_site(a.site);
  c.file = where.file;
  c.line = where.line;
  return c;
}

// The cause to fix first in the run: the top-ranked group, else the site with most programs.
std::optional<Culprit> top_culprit(const RunFacts& run) {
  if (!run.groups.empty()) return culprit_of(run.groups.front());
  std::vector<const ProgramArrival*> all;
  for (const auto& a : run.arrivals) all.push_back(&a);
  return culprit_of_arrivals(all);
}

std::optional<Culprit> top_culprit_with_cause(const RunFacts& run, const std::string& cause) {
  for (const auto& g : run.groups)
    if (g.cause == cause) return culprit_of(g);
  return std::nullopt;
}

// Programs that appeared after `step`, explained; the run's top cause when steps are unknown.
std::optional<Culprit> late_culprit(const RunFacts& run, int64_t step) {
  std::vector<const ProgramArrival*> late;
  for (const auto& a : run.arrivals)
    if (a.step > step) late.push_back(&a);
  if (auto c = culprit_of_arrivals(late)) return c;
  return top_culprit(run);
}

CheckResult check(std::string budget, ValueKind kind, double observed, double allowed) {
  CheckResult c;
  c.budget = std::move(budget);
  c.kind = kind;
  c.observed = observed;
  c.allowed = allowed;
  c.status = observed <= allowed ? CheckStatus::kPass : CheckStatus::kFail;
  return c;
}

CheckResult skipped(std::string budget, ValueKind kind, std::string why) {
  CheckResult c;
  c.budget = std::move(budget);
  c.kind = kind;
  c.summary = std::move(why);
  return c;
}

const char* compare(const CheckResult& c) {
  return c.status == CheckStatus::kFail ? ">" : "<=";
}

// The baseline numbers a run is compared with: the baseline run of the same label, else the
// largest value over the baseline lane's runs.
struct BaselineNumbers {
  std::string description;
  int64_t programs = 0;
  std::map<std::string, int64_t> recompiles_by_cause;
  std::optional<int64_t> settle_step;  // empty when no baseline run has a curve
};

BaselineNumbers baseline_numbers(const LaneBaseline& baseline, const std::string& run_label) {
  std::vector<const RunFacts*> runs;
  for (const auto& r : baseline.runs)
    if (r.run == run_label) runs.push_back(&r);
  BaselineNumbers b;
  if (runs.empty()) {
    for (const auto& r : baseline.runs) runs.push_back(&r);
    b.description =
        runs.size() == 1
            ? fmt::format("{} run '{}'", baseline.description, runs.front()->run)
            : fmt::format("{} (largest over its {} runs)", baseline.description, runs.size());
  } else {
    b.description = fmt::format("{} run '{}'", baseline.description, run_label);
  }
  for (const RunFacts* r : runs) {
    b.programs = std::max(b.programs, r->programs);
    std::map<std::string, int64_t> by_cause;
    for (const auto& g : r->groups) by_cause[g.cause] += g.recompiles;
    for (const auto& [cause, n] : by_cause)
      b.recompiles_by_cause[cause] = std::max(b.recompiles_by_cause[cause], n);
    if (!r->curve.empty()) {
      int64_t settle = summarize_convergence(r->curve).settle_step;
      b.settle_step = std::max(b.settle_step.value_or(settle), settle);
    }
  }
  return b;
}

std::string growth_note(int64_t baseline, const Growth& g) {
  return fmt::format("baseline {} + {}", baseline, format_growth(g));
}

void evaluate_baseline(const RunFacts& run, const Budgets& budgets, const LaneBaseline& baseline,
                       std::vector<CheckResult>& out) {
  BaselineNumbers base = baseline_numbers(baseline, run.run);
  const Growth& g = budgets.max_growth;

  int64_t allowed = allowed_after_growth(base.programs, g);
  CheckResult programs = check("baseline_programs", ValueKind::kCount,
                               static_cast<double>(run.programs), static_cast<double>(allowed));
  programs.summary =
      fmt::format("programs {} {} {} allowed ({} in {})", run.programs, compare(programs), allowed,
                  growth_note(base.programs, g), base.description);
  if (programs.status == CheckStatus::kFail) programs.culprit = top_culprit(run);
  out.push_back(std::move(programs));

  if (run.curve.empty() || !base.settle_step) {
    out.push_back(skipped("baseline_settle_step", ValueKind::kStep,
                          run.curve.empty()
                              ? "no convergence curve: the logs give no steps"
                              : fmt::format("no convergence curve in {}", base.description)));
  } else {
    int64_t settle = summarize_convergence(run.curve).settle_step;
    int64_t allowed_step = allowed_after_growth(*base.settle_step, g);
    CheckResult c = check("baseline_settle_step", ValueKind::kStep, static_cast<double>(settle),
                          static_cast<double>(allowed_step));
    c.summary = fmt::format("settle step {} {} {} allowed ({} in {})", settle, compare(c),
                            allowed_step, growth_note(*base.settle_step, g), base.description);
    if (c.status == CheckStatus::kFail) c.culprit = late_culprit(run, allowed_step);
    out.push_back(std::move(c));
  }

  std::map<std::string, int64_t> by_cause;
  for (const auto& [cause, n] : base.recompiles_by_cause) by_cause[cause] = 0;
  for (const auto& grp : run.groups) by_cause[grp.cause] += grp.recompiles;
  for (const auto& [cause, n] : by_cause) {
    int64_t base_n = base.recompiles_by_cause.count(cause) ? base.recompiles_by_cause.at(cause) : 0;
    int64_t allowed_n = allowed_after_growth(base_n, g);
    CheckResult c = check("baseline_recompiles:" + cause, ValueKind::kCount, static_cast<double>(n),
                          static_cast<double>(allowed_n));
    c.summary = fmt::format("{} recompiles {} {} {} allowed ({} in {})", cause, n, compare(c),
                            allowed_n, growth_note(base_n, g), base.description);
    if (c.status == CheckStatus::kFail) c.culprit = top_culprit_with_cause(run, cause);
    out.push_back(std::move(c));
  }
}

// settle_by judges training steps. Where the run's evidence could not decide them, its curve
// counts syncs and the budget is applied to syncs: a pass is sound (a training step holds at
// least one sync, so settling by sync N is settling by step N), a fail may be a false alarm and
// says so, with what would decide the step (docs/training_steps.md).
CheckResult settle_by_check(const RunFacts& run, int64_t by) {
  ConvergenceSummary s = summarize_convergence(run.curve, by);
  s.unit = run.step_axis;
  const std::string& u = s.unit;
  CheckResult c = check("settle_by", u == "step" ? ValueKind::kStep : ValueKind::kSync,
                        static_cast<double>(s.settle_step), static_cast<double>(by));
  if (s.new_after_growth_step > 0) {
    c.status = CheckStatus::kFail;
    c.summary = fmt::format("new program at {} {} > {} {} allowed ({} after {} {}, {})", u,
                            s.settle_step, u, by, plural(s.new_after_growth_step, "new program"), u,
                            by, plural(s.final_programs, "program"));
    c.culprit = late_culprit(run, by);
  } else {
    ConvergenceSummary whole = summarize_convergence(run.curve);
    whole.unit = u;
    c.status = CheckStatus::kPass;
    c.summary =
        fmt::format("{}; new programs allowed until {} {}", describe_convergence(whole), u, by);
  }
  if (u != "step")
    c.summary +=
        fmt::format(" (counted in syncs, the training step is undecided: {})", run.step_detail);
  return c;
}

// max_recompiles_per_site: the site with the most recompiles against the budget.
CheckResult per_site_check(const RunFacts& run, int64_t allowed) {
  std::map<std::string, int64_t> per_site;
  for (const auto& g : run.groups) per_site[g.site] += g.recompiles;
  const std::pair<const std::string, int64_t>* worst = nullptr;
  for (const auto& entry : per_site)
    if (!worst || entry.second > worst->second) worst = &entry;
  int64_t observed = worst ? worst->second : 0;
  CheckResult c = check("max_recompiles_per_site", ValueKind::kCount, static_cast<double>(observed),
                        static_cast<double>(allowed));
  c.summary = worst ? fmt::format("{} at one site {} {} allowed", plural(observed, "recompile"),
                                  compare(c), allowed)
                    : fmt::format("no recompiles (<= {} allowed per site)", allowed);
  if (c.status == CheckStatus::kFail) {
    for (const auto& g : run.groups)  // the site's largest group; groups are ranked
      if (g.site == worst->first && (!c.culprit || g.recompiles > c.culprit->recompiles))
        c.culprit = culprit_of(g);
  }
  return c;
}

// max_compile_share: never a pass on evidence rcf rejected.
CheckResult compile_share_check(const RunFacts& run, double allowed) {
  if (!run.implausible_times.empty()) {
    // The check fails and says what it dropped.
    CheckResult c;
    c.budget = "max_compile_share";
    c.kind = ValueKind::kShare;
    c.status = CheckStatus::kFail;
    c.allowed = allowed;
    c.summary = "compile share not measurable: the store's step times are out of range (" +
                run.implausible_times + "); dropped";
    return c;
  }
  if (!run.compile_share)
    return skipped("max_compile_share", ValueKind::kShare,
                   "no compile share: needs step timings with wall time and compile time (or "
                   "timed compiles)");
  CheckResult c = check("max_compile_share", ValueKind::kShare, *run.compile_share, allowed);
  c.summary = fmt::format("compile share {} {} {} allowed", format_value(c.kind, *c.observed),
                          compare(c), format_value(c.kind, *c.allowed));
  if (run.compile_ms && run.wall_ms)
    c.summary += fmt::format(" ({} compiling of {} wall)", duration_text(*run.compile_ms),
                             duration_text(*run.wall_ms));
  if (run.implausible_rows > 0)
    c.summary += fmt::format("; {} with out-of-range numbers rejected at ingest, not counted",
                             plural(run.implausible_rows, "line"));
  if (c.status == CheckStatus::kFail) c.culprit = top_culprit(run);
  return c;
}

std::vector<CheckResult> evaluate_run(const RunFacts& run, const Budgets& budgets,
                                      const LaneBaseline* baseline) {
  std::vector<CheckResult> out;
  if (budgets.max_programs) {
    CheckResult c = check("max_programs", ValueKind::kCount, static_cast<double>(run.programs),
                          static_cast<double>(*budgets.max_programs));
    c.summary =
        fmt::format("programs {} {} {} allowed", run.programs, compare(c), *budgets.max_programs);
    if (c.status == CheckStatus::kFail) c.culprit = top_culprit(run);
    out.push_back(std::move(c));
  }

  if (budgets.settle_by) {
    if (run.curve.empty())
      out.push_back(
          skipped("settle_by", ValueKind::kStep, "no convergence curve: the logs give no steps"));
    else
      out.push_back(settle_by_check(run, *budgets.settle_by));
  }

  if (budgets.max_recompiles_per_site)
    out.push_back(per_site_check(run, *budgets.max_recompiles_per_site));

  for (const auto& cause : budgets.forbid_causes) {
    int64_t n = 0;
    for (const auto& g : run.groups) n += g.cause == cause ? g.recompiles : 0;
    CheckResult c = check("forbid_cause:" + cause, ValueKind::kCount, static_cast<double>(n), 0);
    c.summary = n == 0 ? fmt::format("no recompile with cause {}", cause)
                       : fmt::format("{} with forbidden cause {}", plural(n, "recompile"), cause);
    if (c.status == CheckStatus::kFail) c.culprit = top_culprit_with_cause(run, cause);
    out.push_back(std::move(c));
  }

  if (budgets.max_compile_share)
    out.push_back(compile_share_check(run, *budgets.max_compile_share));

  if (baseline) evaluate_baseline(run, budgets, *baseline, out);
  return out;
}

// Budgets in the order they are listed; several checks of one family sort by name.
int family_rank(const std::string& budget) {
  static const char* kFamilies[] = {
      kEvidenceBudget,       "max_programs",      "settle_by",         "max_recompiles_per_site",
      "forbid_cause",        "max_compile_share", "baseline_programs", "baseline_settle_step",
      "baseline_recompiles", "restart_proof"};
  std::string family = budget.substr(0, budget.find(':'));
  for (int i = 0; i < static_cast<int>(std::size(kFamilies)); ++i)
    if (family == kFamilies[i]) return i;
  return static_cast<int>(std::size(kFamilies));
}

// The lane's runs that hold no evidence: a failed check that names them and why, never a pass.
CheckResult evidence_check(const std::vector<const RunFacts*>& runs) {
  CheckResult c;
  c.budget = kEvidenceBudget;
  c.status = CheckStatus::kFail;
  c.run = runs.front()->run;
  std::string which;
  for (const RunFacts* r : runs)
    which += fmt::format("{}run '{}' ({})", which.empty() ? "" : "; ", r->run, r->no_evidence);
  c.summary = fmt::format(
      "no evidence: {}; a run without ingested logs says nothing about recompiles (ingest its "
      "logs; files already in the store under another lane add nothing)",
      which);
  return c;
}

// The result shown for a lane: the worst failing run, else the worst passing one.
const CheckResult& worst_of(const std::vector<const CheckResult*>& results) {
  const CheckResult* best = results.front();
  auto rank = [](const CheckResult* c) {
    return c->status == CheckStatus::kFail ? 2 : c->status == CheckStatus::kPass ? 1 : 0;
  };
  for (const CheckResult* c : results) {
    if (rank(c) > rank(best) ||
        (rank(c) == rank(best) && c->observed.value_or(0) > best->observed.value_or(0)))
      best = c;
  }
  return *best;
}

CheckResult restart_check(const LaneFacts& lane) {
  CheckResult c;
  c.budget = "restart_proof";
  c.kind = ValueKind::kCount;
  if (lane.restart) {
    c.status = lane.restart->proven ? CheckStatus::kPass : CheckStatus::kFail;
    c.summary = lane.restart->summary;
    if (c.status == CheckStatus::kFail) c.culprit = lane.restart->culprit;
  } else {
    // A required proof that cannot be established is a violation: CI must not pass on it.
    c.status = CheckStatus::kFail;
    c.summary = "insufficient evidence for a restart proof: " + lane.restart_unavailable;
  }
  return c;
}

}  // namespace

LaneResult evaluate_lane(const LaneFacts& lane, const Budgets& budgets,
                         const LaneBaseline* baseline) {
  LaneResult result;
  result.lane = lane.lane;
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<const RunFacts*, CheckResult>>> by_budget;
  std::vector<const RunFacts*> without_evidence;
  for (const RunFacts& run : lane.runs) {
    result.runs.push_back(run.run);
    if (!run.no_evidence.empty()) {
      without_evidence.push_back(&run);
      continue;
    }
    for (CheckResult& c : evaluate_run(run, budgets, baseline)) {
      c.run = run.run;
      auto& slot = by_budget[c.budget];
      if (slot.empty()) order.push_back(c.budget);
      slot.emplace_back(&run, std::move(c));
    }
  }
  for (const std::string& budget : order) {
    const auto& slot = by_budget[budget];
    std::vector<const CheckResult*> results;
    for (const auto& entry : slot) results.push_back(&entry.second);
    CheckResult chosen = worst_of(results);
    if (lane.runs.size() > 1)
      chosen.summary = fmt::format("run {}: {}", chosen.run, chosen.summary);
    result.checks.push_back(std::move(chosen));
  }
  if (!without_evidence.empty()) result.checks.push_back(evidence_check(without_evidence));
  if (budgets.require_restart_proof) result.checks.push_back(restart_check(lane));
  std::stable_sort(
      result.checks.begin(), result.checks.end(), [](const CheckResult& a, const CheckResult& b) {
        int fa = family_rank(a.budget), fb = family_rank(b.budget);
        return fa != fb ? fa < fb
                        : (fa == family_rank("forbid_cause") ? false : a.budget < b.budget);
      });
  return result;
}

}  // namespace rcf::analysis
