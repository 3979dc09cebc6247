// What each rank of a run did, for comparing ranks (docs/rank_divergence.md). The store reads it
// (store/rank_fact_reader.h); the types are its rows.
#pragma once

#include <cstdint>
#include <vector>

#include "store/rank_fact_reader.h"

namespace rcf::analysis {

using store::graph_key_text;
using store::GraphItems;
using store::GraphKey;
using store::RankCompile;
using store::RankFacts;

// The ranks of `run_id`'s TORCH_TRACE logs, ordered by rank (store::rank_facts_of_run).
inline std::vector<RankFacts> load_rank_facts(store::Database& db, int64_t run_id) {
  return store::rank_facts_of_run(db, run_id);
}

}  // namespace rcf::analysis
