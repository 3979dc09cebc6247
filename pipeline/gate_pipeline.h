// `rcf gate` as a function (docs/usage.md, gate): pick the lanes of a store, read each lane's
// facts and its baseline's, and evaluate the budgets. The CLI parses the flags into a request
// and writes the result's documents; nothing here prints or writes files.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/gate.h"
#include "analysis/gate_facts.h"
#include "analysis/gate_file.h"

namespace rcf::pipeline {

struct GateRequest {
  std::string db = "rcf.db";
  std::string lane;                 // a name, a glob, or "" for every lane
  std::string run;                  // a run label, or "" for every run of a lane
  std::string gate_file;            // budgets per lane (JSON), or ""
  std::string baseline;             // `DB[:LANE]`, or ""
  analysis::BudgetPatch flags;      // budgets given on the command line (override the file)
  analysis::RestartLabels restart;  // labels of the cold and warm runs of a restart proof
};

struct GateOutcome {
  analysis::GateResult result;
  std::vector<std::string> warnings;  // e.g. a gate-file lane the store has no run of
};

// Throws rcf::Error for usage and input errors: no runs, no lane matching, a baseline without
// the lane, a --run no lane has, --max-growth without a baseline, unreadable stores.
GateOutcome run_gate(const GateRequest& request);

// `--baseline DB[:LANE]`: the whole text when it names a file, else split at the last ':'.
std::pair<std::string, std::string> split_baseline(const std::string& spec);

}  // namespace rcf::pipeline
