// Loads what `rcf gate` evaluates (analysis/gate.h) from the rows the store reads through the
// public views (store/gate_fact_reader.h): programs and compiles, the convergence curve, the
// compile share, the recompiles grouped by site x cause (fix_first when analysis filled it) and
// each program's first compile.
#pragma once

#include <string>
#include <vector>

#include "analysis/gate.h"
#include "store/database.h"

namespace rcf::analysis {

// The run labels of a lane's cold/warm pair for the restart proof.
struct RestartLabels {
  std::string cold = "cold";
  std::string warm = "warm";
};

// Facts of every run of `lane` (all runs, or only the run labelled `run` when non-empty), in
// ingest order. A lane with no such run gives no runs. With `restart`, the restart proof of the
// lane's runs labelled restart->cold and restart->warm (analysis/restart_proof.h), or why there
// is none.
LaneFacts load_lane_facts(store::Database& db, const std::string& lane, const std::string& run,
                          const RestartLabels* restart = nullptr);

}  // namespace rcf::analysis
