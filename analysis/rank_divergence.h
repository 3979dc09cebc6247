// Where the ranks of a multi-rank run stopped doing the same thing (docs/rank_divergence.md): a
// recompile on one rank and not the others, a different collective schedule or graph order, is
// how collectives hang. Computed from the store (analysis/rank_facts.h) and written into
// rank_divergence_row, which the rank_divergence view reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/rank_facts.h"
#include "store/database.h"

namespace rcf::analysis {

struct RankDivergence {
  // compile_ids, cache, collectives, tensor_meta, execution_order, recompiles
  std::string kind;
  std::string rank_groups;             // ranks that agree, groups by first rank: "0,2 | 1"
  std::optional<int64_t> first_index;  // first difference in the compared sequence (0-based)
  std::string detail;                  // what differs, where, and the cause
};

// Every divergence between `ranks` (as load_rank_facts orders them), kind by kind.
std::vector<RankDivergence> find_rank_divergence(const std::vector<RankFacts>& ranks);

// Replaces the rank_divergence_row rows of `run_id` with the run's divergences.
void write_rank_divergence(store::Database& db, int64_t run_id);

}  // namespace rcf::analysis
