// The convergence_summary and convergence views (sql/schema.sql) as plain structs: whether a run
// settled, its compile and wall time, and its curve's change points, for `rcf explain`, the
// reports and `rcf diff`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "store/database.h"

namespace rcf::store {

// One convergence_summary row (see run_convergence in sql/schema.sql for each column).
struct ConvergenceSummaryRow {
  std::string state;  // settled, not_settled, still_growing, no_data
  std::optional<int64_t> first_step, last_step, settle_step, programs_at_settle, final_programs,
      new_after_growth_step;
  int64_t growth_step = 0;
  int64_t compiles = 0, programs = 0;
  std::optional<double> compile_ms, wall_ms, compile_share, execute_ms;
  std::optional<int64_t> counted_compiles;
  std::string counted_by;
  std::string step_axis, step_basis, step_detail;
};

// The run's row, nullopt when the run has none (no compiles and no curve).
std::optional<ConvergenceSummaryRow> convergence_summary_of_run(Database& db, int64_t run_id);

// One change point of a run's curve (the convergence view).
struct ConvergencePointRow {
  int64_t step = 0;
  int64_t programs_cached = 0;
  int64_t compiles_in_step = 0;
  std::optional<double> compile_ms;
};

// Calls `visit` with each change point of the run, by step. A callback, not a vector: a run of a
// million steps with a compile in each has a million points, and the chart keeps a few hundred.
void for_each_convergence_point(Database& db, int64_t run_id,
                                const std::function<void(const ConvergencePointRow&)>& visit);

}  // namespace rcf::store
