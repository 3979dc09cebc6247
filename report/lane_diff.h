// `rcf diff LANE_A LANE_B`: what changed between two lanes (e.g. the same model on torch 2.11 and
// on torch 2.12): program counts, settle steps, sites that appeared or vanished, causes that
// appeared or disappeared, compile time and restart verdicts. load_lane_facts reads one lane from
// the analysis results; diff_lanes is a pure comparison, unit-tested on hand-built facts; the
// renderers print terminal text, Markdown (for an upgrade note) and versioned JSON.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/run_queries.h"

namespace rcf::report {

inline constexpr int kDiffJsonVersion = 1;

struct LaneRunFacts {
  std::string run;
  std::string no_evidence;  // why the run holds no evidence, or "" (analysis/run_evidence.h)
  int64_t compiles = 0, programs = 0, recompiles = 0, failed = 0;
  std::string state = "no_data";  // settled, not_settled, still_growing, no_data
  int64_t first_step = 0, last_step = 0, settle_step = 0, programs_at_settle = 0,
          final_programs = 0;
  std::string convergence_text;
  std::string step_axis = "step";  // what its steps count: "step" or "sync" (undecided)
  std::optional<double> compile_ms, wall_ms;
  std::map<std::string, int64_t> causes;
};

struct LaneRestartFacts {
  std::string cold_run, warm_run;
  std::string verdict;  // analysis::restart_verdict_name
  std::string headline;
};

struct LaneFacts {
  std::string lane;
  std::vector<LaneRunFacts> runs;                  // by run label
  std::map<std::string, int64_t> site_compiles;    // every site of the lane (all runs)
  std::map<std::string, int64_t> site_recompiles;  // sites with recompiles
  std::map<std::string, int64_t> causes;           // recompiles by cause (all runs)
  std::vector<LaneRestartFacts> restarts;
  // The lane's bundle (stack versions and flags) over its runs; a key on which the runs disagree
  // holds their values joined with " / " in run order.
  std::map<std::string, std::string> bundle;
};

struct CountChange {
  std::string name;
  int64_t a = 0, b = 0;
};

// A bundle key whose value differs between the lanes (nullopt: not recorded on that side).
struct BundleChange {
  std::string key;
  std::optional<std::string> a, b;
};

// Runs are paired by label (cold with cold); when each lane has one run, those two are paired.
struct RunPair {
  std::optional<LaneRunFacts> a, b;
};

struct LaneDiff {
  LaneFacts a, b;
  std::vector<RunPair> runs;
  std::vector<CountChange> sites_new;                 // compiled in B only (b = compiles)
  std::vector<CountChange> sites_vanished;            // compiled in A only (a = compiles)
  std::vector<CountChange> sites_recompiles_changed;  // in both, recompile count changed
  std::vector<CountChange> causes_appeared, causes_disappeared, causes_changed;
  std::vector<BundleChange> bundle_changes;  // by key
  // Non-empty when a lane has no run with evidence: why sites and causes were not compared.
  std::string not_compared;
};

// Throws rcf::Error naming the lanes of the database when `lane` has no run.
LaneFacts load_lane_facts(store::Database& db, const std::string& lane);

LaneDiff diff_lanes(const LaneFacts& a, const LaneFacts& b);

std::string render_diff_text(const LaneDiff& diff);
std::string render_diff_markdown(const LaneDiff& diff);
std::string render_diff_json(const LaneDiff& diff);

}  // namespace rcf::report
