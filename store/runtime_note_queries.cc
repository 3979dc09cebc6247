#include "store/runtime_note_queries.h"

namespace rcf::store {

std::vector<LimitHitRow> limit_hits_of_run(Database& db, int64_t run_id) {
  // The internal table, not the recompile_limit_hits view: the rows are listed in source_id
  // order (the order the logs were ingested), and the view carries the source's path only.
  auto st = db.prepare(
      "SELECT fn.text, f.text, h.firstlineno, h.limit_type, h.limit_value, lr.text, "
      "h.hard_failure, h.frame_id, h.frame_compile_id, s.path, h.line "
      "FROM recompile_limit_hit h JOIN source s ON s.source_id = h.source_id "
      "LEFT JOIN strings fn ON fn.string_id = h.function_sid "
      "LEFT JOIN strings f ON f.string_id = h.file_sid "
      "LEFT JOIN strings lr ON lr.string_id = h.last_reason_sid "
      "WHERE h.run_id = ? ORDER BY h.source_id, h.line");
  st.bind(1, run_id);
  std::vector<LimitHitRow> out;
  while (st.step()) {
    LimitHitRow h;
    h.function = st.str(0);
    h.file = st.str(1);
    h.firstlineno = st.opt_int64(2);
    h.limit_type = st.str(3);
    h.limit_value = st.opt_int64(4);
    h.last_reason = st.str(5);
    h.hard_failure = st.int64(6) != 0;
    h.frame_id = st.int64(7);
    h.frame_compile_id = st.int64(8);
    h.source = st.str(9);
    h.line = st.int64(10);
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<GraphBreakGroupRow> graph_break_groups_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT user_file, user_line, gb_type, reason, max(sync_signature), count(*) "
      "FROM graph_breaks WHERE run_id = ? "
      "GROUP BY user_file, user_line, coalesce(gb_type, reason)");
  st.bind(1, run_id);
  std::vector<GraphBreakGroupRow> out;
  while (st.step()) {
    GraphBreakGroupRow g;
    g.user_file = st.opt_str(0);
    g.user_line = st.opt_int64(1);
    g.gb_type = st.str(2);
    g.reason = st.str(3);
    g.sync_signature = st.int64(4) != 0;
    g.count = st.int64(5);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<CudagraphSkipRow> cudagraph_skips_of_run(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT kind, reason, coalesce(program_key, CASE WHEN frame_id >= 0 THEN frame_id || '/' "
      "|| frame_compile_id END, ''), coalesce(site, ''), coalesce(user_file, ''), user_line, "
      "coalesce(user_function, ''), source, line "
      "FROM cudagraph_skips WHERE run_id = ? ORDER BY source, line");
  st.bind(1, run_id);
  std::vector<CudagraphSkipRow> out;
  while (st.step()) {
    CudagraphSkipRow k;
    k.kind = st.str(0);
    k.reason = st.str(1);
    k.program_key = st.str(2);
    k.site = st.str(3);
    k.user_file = st.str(4);
    k.user_line = st.opt_int64(5);
    k.user_function = st.str(6);
    k.source = st.str(7);
    k.line = st.int64(8);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rcf::store
