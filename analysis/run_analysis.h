// Recomputes the derived tables (compile_event, attribution, convergence_point) of runs from
// their raw tables. Called by `rcf ingest` inside its transaction, so readers never see raw rows
// without their analysis.
#pragma once

#include <cstdint>
#include <vector>

#include "store/database.h"

namespace rcf::analysis {

void analyze_runs(store::Database& db, const std::vector<int64_t>& run_ids);

}  // namespace rcf::analysis
