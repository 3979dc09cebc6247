// Where the ranks of a multi-rank run stopped doing the same thing (docs/rank_divergence.md): a
// recompile on one rank and not the others, a different collective schedule or graph order, is
// how collectives hang. Computed from the store's rank facts (analysis/rank_facts.h); the store
// writes them into rank_divergence_row (store/derived_results_writer.h), which the
// rank_divergence view reads.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/rank_facts.h"
#include "store/rank_divergence_queries.h"

namespace rcf::analysis {

// kind: compile_ids, cache, collectives, tensor_meta, execution_order, recompiles; rank_groups:
// ranks that agree, groups by first rank ("0,2 | 1"); first_index: the first difference in the
// compared sequence (0-based); detail: what differs, where, and the cause. A row of the
// rank_divergence view as it is written.
using RankDivergence = store::RankDivergenceRow;

// Every divergence between `ranks` (as load_rank_facts orders them), kind by kind.
std::vector<RankDivergence> find_rank_divergence(const std::vector<RankFacts>& ranks);

// Replaces the rank_divergence_row rows of `run_id` with the run's divergences (read, found,
// then written by the store).
void write_rank_divergence(store::Database& db, int64_t run_id);

}  // namespace rcf::analysis
