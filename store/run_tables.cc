#include "store/run_tables.h"

#include <fmt/format.h>

#include "store/store.h"

namespace rcf::store {

RunTables run_tables(Database& db, int64_t run_id) {
  RunTables t;
  struct Table {
    const char* name;
    bool RunTables::*flag;
    const char* term;  // a term of the table's partial run_id index, repeated so that it is used
  };
  static constexpr Table kTables[] = {
      {"step_marker", &RunTables::step_marker, nullptr},
      {"step_timing", &RunTables::step_timing, nullptr},
      {"xla_block", &RunTables::xla_block, nullptr},
      {"xla_vlog", &RunTables::xla_vlog, nullptr},
      {"xla_execution_group", &RunTables::xla_execution_group, nullptr},
      {"xla_execution", &RunTables::xla_execution, nullptr},
      {"xla_profiler_note", &RunTables::xla_profiler_note, nullptr},
      {"metric_sample", &RunTables::metric_sample, kMetricFieldsTerm},
      {"jax_compile", &RunTables::jax_compile, nullptr},
      {"jax_cache_miss", &RunTables::jax_cache_miss, nullptr},
      {"saved_graph", &RunTables::saved_graph, nullptr},
      {"grab_graphs_frame", &RunTables::grab_graphs_frame, nullptr},
      {"hlo_module", &RunTables::hlo_module, nullptr},
  };
  std::string sql = "SELECT ";
  for (const Table& table : kTables)
    sql += fmt::format("{}EXISTS(SELECT 1 FROM {} WHERE run_id = ?1{}{})",
                       &table == kTables ? "" : ", ", table.name, table.term ? " AND " : "",
                       table.term ? table.term : "");
  auto st = db.prepare(sql);
  st.bind(1, run_id);
  if (!st.step()) return t;
  int column = 0;
  for (const Table& table : kTables) t.*table.flag = st.int64(column++) != 0;
  return t;
}

}  // namespace rcf::store
