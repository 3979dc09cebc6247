// `rcf report`: the model behind the HTML, Markdown and JSON reports. It extends `rcf explain`'s
// model (report/explain.h, reused as is) with what a report shows and explain does not: the
// convergence curve of each run reduced to change points, every recompile per site with its
// evidence (parameter table old vs new, changed constants, op delta, Dynamo guard text), the
// restart proofs of each lane's cold/warm runs, the bundle and the ingest statistics.
//
// Size is bounded whatever the run: curves keep only change points over at most
// kMaxChartColumns step buckets, and listings keep a head and a tail with a count of what was
// left out, so a run with a million compile events still renders in seconds and a few MB.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/explain.h"
#include "report/restart_output.h"
#include "store/source_queries.h"

namespace rcf::report {

inline constexpr int kReportJsonVersion = 1;

// Bounds on what a report holds per run (the rest is counted, never silently dropped).
inline constexpr int64_t kMaxChartColumns = 800;   // step buckets of a convergence chart
inline constexpr int64_t kRecompileHead = 12;      // first recompiles listed per site
inline constexpr int64_t kRecompileTail = 4;       // and the latest ones
inline constexpr int64_t kMaxRecompileSites = 40;  // sites with recompiles listed per run
inline constexpr int64_t kMaxFixFirstRows = 40;    // fix-first rows per run
inline constexpr int64_t kMaxGraphBreakRows = 40;  // distinct graph breaks per run
inline constexpr int64_t kMaxEvidenceRows = 16;    // parameter / constant rows per recompile
inline constexpr int64_t kMaxSourcesListed = 100;  // ingest-statistics rows per run

// A run's convergence curve as the charts draw it. Steps are grouped into buckets of `bucket`
// steps (1 = every step exactly) so that a curve never has more than kMaxChartColumns columns;
// each series keeps only the buckets where something changes or happens.
struct ChartMark {
  int64_t step = 0;  // first step of the bucket
  std::string cause;
  int64_t count = 0;     // recompiles of this cause in the bucket
  int64_t programs = 0;  // programs cached at the end of the bucket (where the mark sits)
};

struct ChartBar {
  int64_t step = 0;  // first step of the bucket
  int64_t compiles = 0;
  std::optional<double> compile_ms;  // null when no compile time is known for the bucket
};

struct RunChart {
  bool has_curve = false;  // false: the logs give no steps (Dynamo-only runs)
  int64_t first_step = 0, last_step = 0;
  int64_t bucket = 1;
  int64_t points = 0;                                 // convergence points read (steps with data)
  std::vector<std::pair<int64_t, int64_t>> programs;  // (step, programs cached) change points
  std::vector<ChartBar> compiles;                     // buckets with compiles or compile time
  std::vector<ChartMark> marks;                       // recompiles by bucket and cause
  int64_t max_programs = 0;
  double max_compile_ms = 0;
};

// One row of the parameter table of an XLA recompile: the parameters that differ between the
// previous program and this one, after the common leading and trailing parameters.
struct ParamRow {
  std::optional<int64_t> old_number, new_number;  // absent: the parameter is not on that side
  std::string old_shape, new_shape;
};

struct ConstantChange {
  std::string name, shape, old_value, new_value, user_op, op_name;
  std::string source;  // file:line from HLO metadata, "" when absent
};

struct RecompileEvidence {
  int64_t ordinal = 0;
  std::optional<int64_t> step;
  std::string program_key, prev_program_key, cause, confidence, detail, evidence;
  std::optional<double> compile_ms;
  std::string guard_text;     // Dynamo: the rejected cache entry's guard failure, verbatim
  int64_t other_reasons = 0;  // further cache entries that also rejected the inputs
  bool hlo_compared = false;  // both programs' HLO was found: the tables below are meaningful
  int64_t old_params = 0, new_params = 0;                 // parameter counts (when hlo_compared)
  int64_t params_same_before = 0, params_same_after = 0;  // identical leading/trailing params
  std::vector<ParamRow> params;                           // at most kMaxEvidenceRows
  int64_t params_not_listed = 0;
  std::vector<ConstantChange> constants;  // at most kMaxEvidenceRows
  int64_t constants_not_listed = 0;
  int64_t old_constants = 0, new_constants = 0;
  std::string op_delta;  // "+1 add, -2 multiply"; "" when the op histograms are equal
};

struct SiteRecompiles {
  std::string site;
  int64_t recompiles = 0;
  std::vector<RecompileEvidence> listed;  // the first kRecompileHead and latest kRecompileTail
  int64_t head = 0;  // how many of `listed` are the first ones; the gap follows them
  int64_t not_listed = 0;
};

// Ingest statistics of one source; path relative to ReportModel::source_root.
using SourceStat = store::SourceRow;

struct BundleEntry {
  std::string key, value;
};

// A compile that raised (Dynamo `dynamo_failed`): it cost time and installed no program.
struct FailedCompile {
  int64_t ordinal = 0;
  std::optional<int64_t> step;
  std::string program_key, site, reason;  // reason: what the runtime reported (fail type)
};

struct RunReport {
  RunSummary summary;               // explain's model of the run
  std::vector<BundleEntry> bundle;  // runs.bundle (stack versions and flags), when recorded
  std::vector<std::string> formats;
  int64_t programs = 0;  // distinct program keys
  std::optional<double> execute_ms;
  int64_t recompiles_after_settle = 0;               // recompiles with a step after the settle step
  std::optional<RecompileEvidence> first_recompile;  // the first failing frontier
  std::string first_recompile_site;
  std::optional<FailedCompile> first_failure;  // the first compile that raised
  RunChart chart;
  std::vector<SiteRecompiles> sites;  // sites with recompiles, in explain's site order
  int64_t sites_not_listed = 0;
  std::vector<SourceStat> sources;
  int64_t sources_not_listed = 0;
};

// What a lane's evidence supports, decided in the model (report/lane_claims.h) so that a renderer
// only words each claim. A claim names its kind and what it is about.
enum class ClaimKind {
  // Validated default: only what held in the checked path.
  kSettledClean,   // the run settled and showed no recompile after its settle step
  kNoRecompiles,   // the run compiled and never recompiled
  kRestartProven,  // restart `item` was proven
  // Workaround, suggested by a cause.
  kRemedy,  // fix-first row `item` of the run, with its remedy
  // Open risk.
  kNoEvidence,         // the run holds no evidence
  kNotSettled,         // the run is still growing or did not settle in its steps
  kNoSteps,            // the run compiled but its logs carry no training steps
  kUnknownCause,       // fix-first row `item` of the run has cause `unknown`
  kMoreUnknownCauses,  // `count` further fix-first rows with cause `unknown`, not loaded
  kLimitHit,           // limit hit `sub` of the run's site `item`
  kFailedCompiles,     // the run has compiles that raised
  kRejectedLines,      // the run has input lines rejected at ingest
  kRestartNotProven,   // restart `item` was not proven
  kRestartToEnable,    // entry `sub` of restart `item`'s to_enable list
  kNoBundle,           // no run of the lane has its stack versions recorded
  // First failing frontier.
  kFirstFailure,    // the run's first compile that raised
  kFirstRecompile,  // the run's first recompile
};

struct LaneClaim {
  ClaimKind kind = ClaimKind::kNoEvidence;
  size_t run = 0;     // index in LaneReport::runs (restart and bundle claims: unused)
  size_t item = 0;    // fix-first row, site or restart, by kind
  size_t sub = 0;     // limit hit of the site, or to_enable entry of the restart
  int64_t count = 0;  // kMoreUnknownCauses
};

struct LaneClaims {
  std::vector<LaneClaim> validated, workaround, risk, frontier;
  bool evidence = false;  // some run of the lane holds evidence
};

struct LaneReport {
  std::string lane;
  std::vector<RunReport> runs;          // by run label
  std::vector<RestartReport> restarts;  // one per cold/warm pair of runs
  LaneClaims claims;
};

struct ReportModel {
  std::string database;     // path of the database the report was built from
  std::string source_root;  // common directory of every source path ("" when none)
  int64_t chart_first_step = 0, chart_last_step = 0;  // shared x domain of all charts
  std::vector<LaneReport> lanes;                      // by lane name
};

// `lane` filters by lane name when non-empty; an unknown lane is an rcf::Error naming the lanes.
ReportModel build_report(store::Database& db, const std::string& lane);

// The cold/warm pairs among a lane's run labels: a label containing "warm" pairs with the label
// that has "cold" in its place (warm-2 with cold-2), else with the lane's only run containing
// "cold". Pairs are (cold, warm), sorted by warm label.
std::vector<std::pair<std::string, std::string>> restart_pairs(
    const std::vector<std::string>& run_labels);

// The restart proofs of one lane (loads both runs' facts; empty when the lane has no pair).
std::vector<RestartReport> lane_restart_proofs(store::Database& db, const std::string& lane);

// "18m02s", "850ms" (analysis::duration_text), or "unknown".
std::string duration_or_unknown(const std::optional<double>& ms);

}  // namespace rcf::report
