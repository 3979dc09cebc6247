// `rcf gate`: per-lane budgets on program-count growth and their evaluation. The evaluation is a
// pure function of per-run facts (loaded from the database by analysis/gate_facts.h), so every
// budget is unit-tested on small hand-built runs. A violated budget names the cause a developer
// must fix: the top site x cause group behind it, with the site's file and line when known.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/convergence_summary.h"

namespace rcf::analysis {

inline constexpr int64_t kDefaultSettleBy = 20;
// The largest count, step or growth (count or percent) a budget may name. A larger one is a typo
// or does not fit the integer it is checked in (1e30 programs, 2^63): refused, never wrapped.
inline constexpr int64_t kMaxBudgetValue = 1'000'000'000'000;

// A count or step budget as typed on the command line: a whole number from 0 to
// kMaxBudgetValue; throws rcf::Error naming `what` (e.g. "--max-programs") and the text otherwise.
int64_t parse_budget_count(std::string_view text, std::string_view what);
// A compile-share budget: a finite number from 0 to 1; throws rcf::Error like parse_budget_count.
double parse_compile_share(std::string_view text, std::string_view what);

// The recompile causes budgets may name (the vocabulary of sql/schema.sql cause_remedy).
const std::vector<std::string>& gate_cause_vocabulary();

// Allowed growth over a baseline: an absolute count or a percentage of the baseline value.
struct Growth {
  bool percent = false;
  double amount = 0;  // count, or percent when `percent`
};

// "3" or "10%" (at most kMaxBudgetValue); throws rcf::Error naming `what` (e.g. "--max-growth")
// on anything else.
Growth parse_growth(std::string_view text, std::string_view what);
std::string format_growth(const Growth& g);
// The largest value within the budget: baseline + N, or floor(baseline * (1 + P/100)), saturated
// at the largest int64_t.
int64_t allowed_after_growth(int64_t baseline, const Growth& g);

struct Budgets {
  std::optional<int64_t> max_programs;                  // programs cached at the end of the run
  std::optional<int64_t> settle_by = kDefaultSettleBy;  // no new program after this step
  std::optional<int64_t> max_recompiles_per_site;
  std::vector<std::string> forbid_causes;
  std::optional<double> max_compile_share;  // compile time / wall time, 0..1
  Growth max_growth;                        // over the baseline (default: none allowed)
  bool require_restart_proof = false;
};

// Budgets set by one layer (gate file defaults, a gate file entry, command-line flags); unset
// fields leave the lower layer's value.
struct BudgetPatch {
  std::optional<int64_t> max_programs;
  std::optional<int64_t> settle_by;
  bool settle_by_off = false;  // the gate file said "settle_by": null
  std::optional<int64_t> max_recompiles_per_site;
  std::optional<std::vector<std::string>> forbid_causes;
  std::optional<double> max_compile_share;
  std::optional<Growth> max_growth;
  std::optional<bool> require_restart_proof;

  void apply_to(Budgets& budgets) const;
};

// Recompiles at one site with one cause (fix_first when analysis filled it, else grouped from
// the recompiles view). Not named CauseGroup: run_rollup.h has one in this namespace, and two
// types of one name break the one-definition rule (ASan caught vector<CauseGroup> code of one
// layout running on the other).
struct GateCauseGroup {
  std::string site;
  std::string cause;
  int64_t recompiles = 0;
  std::string detail;  // a representative detail (the latest recompile's)
  std::optional<int64_t> first_step;
  std::optional<int64_t> last_step;
};

// The first compile of a program, for compiles whose step is known.
struct ProgramArrival {
  int64_t step = 0;
  std::string site;
  std::string cause;  // first_compile or the recompile's cause
  std::string detail;
};

// What the gate knows about one run.
struct RunFacts {
  int64_t run_id = 0;
  std::string lane;
  std::string run;
  // Why the run holds no evidence (analysis/run_evidence.h), or "" when it does. Budgets are
  // not evaluated on such a run: it fails the lane's `evidence` check instead.
  std::string no_evidence;
  int64_t compiles = 0;
  int64_t programs = 0;  // distinct programs built (the end of the curve when it counts more)
  std::vector<CurvePoint> curve;  // convergence points; empty when the logs give no steps
  // What the curve's steps count: "step" (training steps) or "sync" (undecided), and what
  // decided it or would (analysis/training_steps.h). Step budgets judge training steps only.
  std::string step_axis = "step", step_detail;
  std::optional<double> compile_ms;  // with wall_ms: the compile share's parts, when known
  std::optional<double> wall_ms;
  std::optional<double> compile_share;
  // Evidence the compile share left out (util/plausible.h): times out of range in the store
  // (then compile_share is unset and the check fails, never passes), or rows rejected at ingest.
  std::string implausible_times;
  int64_t implausible_rows = 0;
  std::vector<GateCauseGroup> groups;    // ranked, fix first
  std::vector<ProgramArrival> arrivals;  // ordered by step
};

// Where a violation comes from: the line a developer must fix.
struct Culprit {
  std::string site;
  std::string cause;
  std::string detail;
  int64_t recompiles = 0;  // recompiles in the group (0 for first compiles)
  std::string file;        // parsed from the site, empty when it has no file:line
  int64_t line = 0;
};

// The restart proof (analysis/restart_proof.h) of a lane's cold/warm pair, when it was computed.
struct RestartOutcome {
  bool proven = false;
  std::string summary;             // the proof's headline, with the runs compared
  std::optional<Culprit> culprit;  // the first program the warm run rebuilt, when any
};

struct LaneFacts {
  std::string lane;
  std::vector<RunFacts> runs;
  std::optional<RestartOutcome> restart;
  std::string restart_unavailable;  // why there is no proof, when `restart` is empty
};

// The baseline for one lane: facts of the lane in the baseline database.
struct LaneBaseline {
  std::string description;  // "base.db lane 'x'"
  std::vector<RunFacts> runs;
};

enum class CheckStatus { kPass, kFail, kSkipped };
// kSync: a step budget applied to syncs, where the run's training step is undecided.
enum class ValueKind { kCount, kStep, kSync, kShare };

struct CheckResult {
  std::string budget;  // max_programs, settle_by, forbid_cause:constant, baseline_programs, ...
  CheckStatus status = CheckStatus::kSkipped;
  std::string run;  // the run the observed value comes from (the worst run of the lane)
  ValueKind kind = ValueKind::kCount;
  std::optional<double> observed;
  std::optional<double> allowed;
  std::string summary;  // "programs 41 > 20 allowed", "settled at step 2 <= 20", "no step timings"
  std::optional<Culprit> culprit;  // for violations

  // summary plus, for a violation, ": top cause CAUSE at SITE: DETAIL".
  std::string message() const;
};

struct LaneResult {
  std::string lane;
  std::vector<std::string> runs;
  std::vector<CheckResult> checks;
  bool passed() const;
};

// The check a lane fails when one of its runs holds no evidence.
inline constexpr const char* kEvidenceBudget = "evidence";

struct GateResult {
  std::string db;
  std::string baseline;  // "" without --baseline
  std::vector<LaneResult> lanes;
  bool passed() const;
  // True when a lane failed its `evidence` check: `rcf gate` then exits 2, not 1.
  bool lacks_evidence() const;
  int64_t count(CheckStatus status) const;
};

// Evaluates every budget for the lane. A budget holds for a lane when it holds for each of its
// runs; the result shows the worst run. Runs without evidence are left out of the budgets and
// fail the lane's `evidence` check (first in the list). `baseline` may be null (no baseline
// comparisons).
LaneResult evaluate_lane(const LaneFacts& lane, const Budgets& budgets,
                         const LaneBaseline* baseline);

// "/work/train.py:61 (train_step) [graph]" -> file "/work/train.py", line 61; a site without
// file:line (a JAX function name) gives an empty file.
struct SiteLocation {
  std::string file;
  int64_t line = 0;
};
SiteLocation parse_site(std::string_view site);

const char* check_status_name(CheckStatus status);  // "pass", "fail", "skipped"

// "41", "step 37", "90.4%".
std::string format_value(ValueKind kind, double value);

}  // namespace rcf::analysis
