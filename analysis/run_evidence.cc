#include "analysis/run_evidence.h"

#include <fmt/format.h>

namespace rcf::analysis {

std::string no_evidence_reason(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT format, count(*) FROM source WHERE run_id = ? GROUP BY format ORDER BY format");
  st.bind(1, run_id);
  int64_t files = 0;
  std::string formats;
  while (st.step()) {
    std::string format = st.str(0);
    if (format != "empty" && format != "unrecognized" && format != "unreadable") return "";
    files += st.int64(1);
    formats += fmt::format("{}{} {}", formats.empty() ? "" : ", ", format, st.int64(1));
  }
  if (files == 0) return "no log was ingested into it";
  return fmt::format("none of its {} file{} is a log in a known format ({})", files,
                     files == 1 ? "" : "s", formats);
}

std::string missing_recompile_record(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT EXISTS (SELECT 1 FROM source WHERE run_id = ?1 AND format = 'dynamo_text'), "
      "EXISTS (SELECT 1 FROM dynamo_compile_raw WHERE run_id = ?1 AND "
      "(frame_compile_id > 0 OR kind = 'recompile_block')) OR "
      "EXISTS (SELECT 1 FROM guard_failure WHERE run_id = ?1) OR "
      "EXISTS (SELECT 1 FROM recompile_limit_hit WHERE run_id = ?1)");
  st.bind(1, run_id);
  if (!st.step() || st.int64(0) == 0 || st.int64(1) != 0) return "";
  return "its Dynamo logs hold no recompile record (guard dumps, bytecode or explain() output "
         "show none): TORCH_LOGS=recompiles would show each recompile and its reason, "
         "recompiles_verbose every failing guard";
}

}  // namespace rcf::analysis
