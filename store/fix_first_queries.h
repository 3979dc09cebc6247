// The fix_first view (sql/schema.sql) as plain structs: recompiles per run, site and cause,
// ranked by compile time lost, with the remedy, for `rcf explain` and the reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

struct FixFirstRow {
  int64_t rank = 0;
  std::string site, cause;
  int64_t recompiles = 0;
  std::optional<double> compile_ms_lost;
  std::string compile_ms_basis;  // measured, step_share, unknown
  std::optional<int64_t> first_step, last_step;
  std::string detail, subject, remedy;  // detail and subject from the logs: sanitise on output
};

// The run's rows with rank <= `rows` (0: all), by rank. Read from the tables in the view's order
// with a limit, so that the first rows are found without sorting the others (the view numbers
// every group of the run first).
std::vector<FixFirstRow> fix_first_of_run(Database& db, int64_t run_id, int64_t rows);

// ORDER BY terms of the fix-first order over cause_group `g` joined with its site's text `site`,
// as the fix_first view (sql/schema.sql) numbers them.
inline constexpr const char* kFixFirstOrder =
    "g.compile_ms_lost IS NULL, g.compile_ms_lost DESC, g.recompiles DESC, site.text, g.cause";

struct FixFirstTotals {
  int64_t rows = 0;     // rows of the run in the view
  int64_t unknown = 0;  // of them, with cause `unknown`
};

FixFirstTotals fix_first_totals(Database& db, int64_t run_id);

}  // namespace rcf::store
