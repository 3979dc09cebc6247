#include "store/run_evidence_queries.h"

namespace rcf::store {

std::vector<SourceFormatCount> source_counts_by_format(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT format, count(*) FROM source WHERE run_id = ? GROUP BY format ORDER BY format");
  st.bind(1, run_id);
  std::vector<SourceFormatCount> counts;
  while (st.step()) counts.push_back({st.str(0), st.int64(1)});
  return counts;
}

DynamoRecordPresence dynamo_record_presence(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT EXISTS (SELECT 1 FROM source WHERE run_id = ?1 AND format = 'dynamo_text'), "
      "EXISTS (SELECT 1 FROM dynamo_compile_raw WHERE run_id = ?1 AND "
      "(frame_compile_id > 0 OR kind = 'recompile_block')) OR "
      "EXISTS (SELECT 1 FROM guard_failure WHERE run_id = ?1) OR "
      "EXISTS (SELECT 1 FROM recompile_limit_hit WHERE run_id = ?1)");
  st.bind(1, run_id);
  if (!st.step()) return {};
  return {st.int64(0) != 0, st.int64(1) != 0};
}

}  // namespace rcf::store
