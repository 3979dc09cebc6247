#include "store/raw_row_deletions.h"

#include <fmt/format.h>

#include <string>

namespace rcf::store {
namespace {

constexpr const char* kRawTables[] = {"dynamo_compile_raw", "guard_failure", "graph_break",
                                      "cache_outcome"};

}  // namespace

void count_raw_row_deletions(Database& db) {
  db.exec(
      "CREATE TEMP TABLE IF NOT EXISTS rcf_raw_row_deletions (n INTEGER NOT NULL, "
      "step_markers INTEGER NOT NULL);"
      "INSERT INTO rcf_raw_row_deletions SELECT 0, 0 WHERE NOT EXISTS "
      "(SELECT 1 FROM rcf_raw_row_deletions)");
  for (const char* table : kRawTables)
    db.exec(fmt::format(
        "CREATE TEMP TRIGGER IF NOT EXISTS rcf_count_deleted_{0} AFTER DELETE ON main.{0} "
        "BEGIN UPDATE rcf_raw_row_deletions SET n = n + 1; END",
        table));
  // A progress line with a time is a row of its own, which a watch keeps between analyses
  // (analysis/kept_step_lines.h); rows without a time are read again at every analysis. Every
  // step_marker deletion is counted apart: a new row may take the rowid of a deleted one.
  db.exec(
      "CREATE TEMP TRIGGER IF NOT EXISTS rcf_count_deleted_step_marker AFTER DELETE ON "
      "main.step_marker BEGIN UPDATE rcf_raw_row_deletions SET step_markers = step_markers + 1, "
      "n = n + (old.time_s IS NOT NULL); END");
}

namespace {

std::optional<int64_t> counted(Database& db, const char* column) {
  auto exists = db.prepare(
      "SELECT 1 FROM temp.sqlite_master WHERE type = 'table' AND name = 'rcf_raw_row_deletions'");
  if (!exists.step()) return std::nullopt;
  auto n = db.prepare(std::string("SELECT ") + column + " FROM temp.rcf_raw_row_deletions");
  return n.step() ? std::optional<int64_t>(n.int64(0)) : std::nullopt;
}

}  // namespace

std::optional<int64_t> raw_row_deletions(Database& db) {
  return counted(db, "n");
}

std::optional<int64_t> step_marker_deletions(Database& db) {
  return counted(db, "step_markers");
}

}  // namespace rcf::store
