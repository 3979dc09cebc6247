// What the logs of one run say for the warm-restart proof (analysis/restart_proof.h): compile
// events, metrics counters, JAX persistent-cache lines, step timings. The store reads them
// (store/restart_fact_reader.h); the types are its rows.
#pragma once

#include <cstdint>
#include <string>

#include "store/restart_fact_reader.h"

namespace rcf::analysis {

using store::CompileFact;
using store::JaxCacheFact;
using store::MetricsFact;
using store::RunRestartFacts;
using store::StepTimingFact;

// Finds the two runs. `lane` may be empty when each label names a run of exactly one lane.
// Throws rcf::Error for an unknown lane or run, an ambiguous label, runs of different lanes, or
// the same run twice.
struct RestartRuns {
  int64_t cold_run_id = 0;
  int64_t warm_run_id = 0;
  std::string lane;
};
RestartRuns resolve_restart_runs(store::Database& db, const std::string& lane,
                                 const std::string& cold_run, const std::string& warm_run);

// The facts of run `run_id` (store::restart_facts_of_run).
RunRestartFacts load_restart_facts(store::Database& db, int64_t run_id);

}  // namespace rcf::analysis
