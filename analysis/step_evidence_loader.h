// Reads from the store what analysis/training_steps.h decides a run's training steps from: the
// progress lines, step-end syncs and step records of each source, and where compiles are.
#pragma once

#include <cstdint>

#include "analysis/training_steps.h"
#include "store/database.h"

namespace rcf::analysis {

StepEvidence load_step_evidence(store::Database& db, int64_t run_id);

}  // namespace rcf::analysis
