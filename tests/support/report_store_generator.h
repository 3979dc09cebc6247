// Writes a large analysed run straight into the derived tables of an rcf store (compile_event,
// attribution, convergence_point, run_convergence, cause_group, source), as analysis would have
// left them after ingesting a long torch_xla run, so report rendering can be tested and
// benchmarked at a million compile events without generating and ingesting gigabytes of logs.
#pragma once

#include <cstdint>
#include <string>

#include "store/database.h"

namespace rcf::testing {

struct ReportStoreSpec {
  std::string lane = "big-lane";
  std::string run = "run1";
  int64_t compiles = 1000000;  // compile events (each a new program)
  int64_t steps = 20000;       // training steps they are spread over
  int64_t sites = 200;         // user sites; the first compile of each is first_compile
};

// Adds one run to `db` (an rcf store of the current schema), in one transaction.
void generate_report_store(store::Database& db, const ReportStoreSpec& spec);

}  // namespace rcf::testing
