#include "store/derived_results_writer.h"

namespace rcf::store {

void write_rank_divergence_rows(Database& db, int64_t run_id,
                                const std::vector<RankDivergenceRow>& rows) {
  auto clear = db.prepare("DELETE FROM rank_divergence_row WHERE run_id = ?");
  clear.bind(1, run_id);
  clear.run();
  auto insert = db.prepare(
      "INSERT INTO rank_divergence_row(run_id, kind, rank_groups, first_index, detail) "
      "VALUES (?,?,?,?,?)");
  for (const RankDivergenceRow& d : rows) {
    insert.bind(1, run_id).bind(2, d.kind).bind(3, d.rank_groups).bind(4, d.first_index);
    insert.bind(5, d.detail);
    insert.run();
  }
}

}  // namespace rcf::store
