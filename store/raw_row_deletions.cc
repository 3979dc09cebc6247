#include "store/raw_row_deletions.h"

#include <fmt/format.h>

namespace rcf::store {
namespace {

constexpr const char* kRawTables[] = {"dynamo_compile_raw", "guard_failure", "graph_break",
                                      "cache_outcome"};

}  // namespace

void count_raw_row_deletions(Database& db) {
  db.exec(
      "CREATE TEMP TABLE IF NOT EXISTS rcf_raw_row_deletions (n INTEGER NOT NULL);"
      "INSERT INTO rcf_raw_row_deletions SELECT 0 WHERE NOT EXISTS "
      "(SELECT 1 FROM rcf_raw_row_deletions)");
  for (const char* table : kRawTables)
    db.exec(fmt::format(
        "CREATE TEMP TRIGGER IF NOT EXISTS rcf_count_deleted_{0} AFTER DELETE ON main.{0} "
        "BEGIN UPDATE rcf_raw_row_deletions SET n = n + 1; END",
        table));
  // A progress line with a time is a row of its own, which a watch keeps between analyses
  // (analysis/kept_step_lines.h); rows without a time are read again at every analysis.
  db.exec(
      "CREATE TEMP TRIGGER IF NOT EXISTS rcf_count_deleted_timed_step_line AFTER DELETE ON "
      "main.step_marker WHEN old.time_s IS NOT NULL "
      "BEGIN UPDATE rcf_raw_row_deletions SET n = n + 1; END");
}

std::optional<int64_t> raw_row_deletions(Database& db) {
  auto exists = db.prepare(
      "SELECT 1 FROM temp.sqlite_master WHERE type = 'table' AND name = 'rcf_raw_row_deletions'");
  if (!exists.step()) return std::nullopt;
  auto n = db.prepare("SELECT n FROM temp.rcf_raw_row_deletions");
  return n.step() ? std::optional<int64_t>(n.int64(0)) : std::nullopt;
}

}  // namespace rcf::store
