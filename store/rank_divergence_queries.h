// The rank_divergence view (sql/schema.sql, docs/rank_divergence.md) as plain structs, for
// `rcf explain` and the reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

struct RankDivergenceRow {
  std::string kind;         // compile_ids, recompiles, cache, collectives, tensor_meta, ...
  std::string rank_groups;  // "0,2 | 1"
  std::optional<int64_t> first_index;
  std::string detail;  // from the logs: sanitise before output
};

// The divergences of a run, the kinds nearest the cause first (compile ids and recompiles, then
// cache, collectives, tensor metadata, execution order), each by first difference.
std::vector<RankDivergenceRow> rank_divergence_of_run(Database& db, int64_t run_id);

}  // namespace rcf::store
