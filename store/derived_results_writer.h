// The one writer of the derived tables (sql/schema.sql, "Derived tables"): analysis computes the
// rows from what it read and hands them here, so that it runs no SQL (docs/architecture.md).
#pragma once

#include <cstdint>
#include <vector>

#include "store/database.h"
#include "store/rank_divergence_queries.h"

namespace rcf::store {

// Replaces the rank_divergence_row rows of `run_id` with `rows`, in their order.
void write_rank_divergence_rows(Database& db, int64_t run_id,
                                const std::vector<RankDivergenceRow>& rows);

}  // namespace rcf::store
