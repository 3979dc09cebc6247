// The analysis skips the queries of the raw tables a run has no rows in (store/run_tables.h). Runs
// of different logs fill different tables; for each, run_tables must say exactly which hold its
// rows, and the analysis must write the same store as one that reads every table.
#include "store/run_tables.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analysis/run_analysis.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf::store {
namespace run_tables_test {

using testing::fixture_path;

// A run per lane, each from logs that fill other raw tables.
const std::map<std::string, std::vector<std::string>>& lanes() {
  static const std::map<std::string, std::vector<std::string>> kLanes = {
      {"torch_trace", {"torch_trace/comp_metrics.log"}},
      {"xla_bundle",
       {"xla_bundle/pt_xla_debug.log", "xla_bundle/metrics.txt", "xla_bundle/save_tensors.hlo.0",
        "xla_bundle/steps.csv"}},
      {"jax", {"xla/jax_log_compiles_issue25768.txt", "xla/jax_explain_issue22281.txt"}},
      {"steps", {"steps/steps_run.csv"}},
      {"plain_text", {"plain_text/plain_training.log"}},
      {"vlog", {"xla/vlog_recompile_constructed.txt"}},
      {"profiler", {"xla/pt_xla_profiler_pr5000.txt", "xla/metrics_file_issue2511.txt"}},
      {"grab_graphs", {"xla/grab_graphs_issue1368.txt", "xla/hlo_pr3920_hlo_debug.txt"}},
      {"dynamo_text", {"real_runs/item_sync/run1/stderr.log"}},
  };
  return kLanes;
}

std::vector<std::string> paths_of(const std::vector<std::string>& relative) {
  std::vector<std::string> out;
  for (const auto& r : relative) out.push_back(fixture_path(r));
  return out;
}

std::vector<int64_t> run_ids(Database& db) {
  std::vector<int64_t> out;
  for (const auto& id : testing::column(db, "SELECT run_id FROM run_table ORDER BY run_id"))
    out.push_back(std::stoll(id));
  return out;
}

// Each run's flags against a count of its rows in each table.
TEST(RunTables, SayWhichTablesHoldRowsOfTheRun) {
  testing::TempDir dir;
  const std::string db_path = dir.file("rcf.db");
  for (const auto& [lane, logs] : lanes()) testing::ingest_logs(db_path, paths_of(logs), lane);
  auto db = testing::read_store(db_path);
  const std::vector<std::pair<const char*, bool RunTables::*>> tables = {
      {"step_marker", &RunTables::step_marker},
      {"step_timing", &RunTables::step_timing},
      {"xla_block", &RunTables::xla_block},
      {"xla_vlog", &RunTables::xla_vlog},
      {"xla_execution_group", &RunTables::xla_execution_group},
      {"xla_execution", &RunTables::xla_execution},
      {"xla_profiler_note", &RunTables::xla_profiler_note},
      {"metric_sample", &RunTables::metric_sample},
      {"jax_compile", &RunTables::jax_compile},
      {"jax_cache_miss", &RunTables::jax_cache_miss},
      {"saved_graph", &RunTables::saved_graph},
      {"grab_graphs_frame", &RunTables::grab_graphs_frame},
      {"hlo_module", &RunTables::hlo_module},
  };
  std::map<std::string, int> runs_with_rows;  // table -> runs that have rows there
  int runs_with_none = 0;
  for (int64_t run : run_ids(*db)) {
    const RunTables flags = run_tables(*db, run);
    bool any = false;
    for (const auto& [table, flag] : tables) {
      const std::string term =
          std::string(table) == "metric_sample" ? std::string(" AND ") + kMetricFieldsTerm : "";
      const bool rows =
          testing::scalar(*db, "SELECT count(*) FROM " + std::string(table) +
                                   " WHERE run_id = " + std::to_string(run) + term) != "0";
      EXPECT_EQ(flags.*flag, rows) << "run " << run << ", table " << table;
      runs_with_rows[table] += rows;
      any = any || rows;
    }
    runs_with_none += !any;
  }
  // The lanes fill every table, and no run fills them all.
  for (const auto& [table, flag] : tables) EXPECT_GT(runs_with_rows[table], 0) << table;
  EXPECT_GT(runs_with_none, 0);
}

// Every run analysed again on a copy of the store, once skipping and once reading every table.
std::string analysed_again(const std::string& db_path, const std::string& copy,
                           bool read_every_table) {
  std::filesystem::copy_file(db_path, copy);
  auto db = open_store(copy, OpenMode::kCreateOrWrite);
  db->exec("BEGIN");
  analysis::analyze_runs(*db, run_ids(*db), nullptr, nullptr, nullptr, read_every_table);
  db->exec("COMMIT");
  return testing::dump_tables(*db);
}

TEST(RunTables, AnalysisWritesWhatReadingEveryTableWrites) {
  testing::TempDir dir;
  // All the lanes in one store, and each alone (the analysis of a store's only run differs).
  std::map<std::string, std::vector<std::string>> stores = {{"all", {}}};
  for (const auto& [lane, logs] : lanes()) {
    stores[lane] = logs;
    stores["all"].insert(stores["all"].end(), logs.begin(), logs.end());
  }
  for (const auto& [name, logs] : stores) {
    const std::string db_path = dir.file(name + ".db");
    if (name == "all") {
      for (const auto& [lane, lane_logs] : lanes())
        testing::ingest_logs(db_path, paths_of(lane_logs), lane);
    } else {
      testing::ingest_logs(db_path, paths_of(logs));
    }
    const std::string skipping = analysed_again(db_path, dir.file(name + "-skipping.db"), false);
    const std::string reading = analysed_again(db_path, dir.file(name + "-reading.db"), true);
    EXPECT_EQ(skipping, reading) << name;
    EXPECT_NE(skipping.find("# table compile_event"), std::string::npos) << name;
  }
}

}  // namespace run_tables_test
}  // namespace rcf::store
