#include "store/source_pair_reader.h"

namespace rcf::store {

bool has_dynamo_text_and_trace_sources(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT count(DISTINCT format) FROM source WHERE run_id = ? AND format IN ('dynamo_text', "
      "'torch_trace')");
  st.bind(1, run_id);
  return st.step() && st.int64(0) == 2;
}

void for_each_named_compile(Database& db, int64_t run_id,
                            const std::function<void(const NamedCompileRow&)>& visit) {
  auto st = db.prepare(
      "SELECT c.source_id, s.format, c.pid, c.epoch, c.ca_id, c.frame_id, c.frame_compile_id, "
      "c.rank, n.text FROM dynamo_compile_raw c JOIN source s ON s.source_id = c.source_id "
      "LEFT JOIN strings n ON n.string_id = c.co_name_sid "
      "WHERE c.run_id = ? AND c.pid IS NOT NULL AND c.frame_id >= 0 "
      "AND c.kind IN ('forward', 'recompile_block') "
      "UNION ALL SELECT b.source_id, s.format, b.pid, b.epoch, b.ca_id, b.frame_id, "
      "b.frame_compile_id, b.rank, '' FROM graph_break b JOIN source s ON s.source_id = "
      "b.source_id WHERE b.run_id = ? AND b.pid IS NOT NULL AND b.frame_id >= 0 AND s.format = "
      "'dynamo_text'");
  st.bind(1, run_id).bind(2, run_id);
  while (st.step())
    visit({st.int64(0), st.text(1), st.int64(2), st.int64(3), st.int64(4), st.int64(5), st.int64(6),
           st.int64(7), st.text(8)});
}

}  // namespace rcf::store
