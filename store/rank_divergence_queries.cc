#include "store/rank_divergence_queries.h"

namespace rcf::store {

std::vector<RankDivergenceRow> rank_divergence_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT kind, rank_groups, first_index, detail FROM rank_divergence WHERE run_id = ? "
      "ORDER BY CASE kind WHEN 'compile_ids' THEN 0 WHEN 'recompiles' THEN 1 WHEN 'cache' THEN 2 "
      "WHEN 'collectives' THEN 3 WHEN 'tensor_meta' THEN 4 WHEN 'execution_order' THEN 5 ELSE 6 "
      "END, kind, first_index, rank_groups, detail");
  st.bind(1, run_id);
  std::vector<RankDivergenceRow> rows;
  while (st.step()) rows.push_back({st.str(0), st.str(1), st.opt_int64(2), st.str(3)});
  return rows;
}

}  // namespace rcf::store
