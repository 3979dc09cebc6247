// The indexes of a store (created with it, and by store::create_indexes after each ingest): every
// table the analysis reads per run is found by run_id, so that analysing one run of a store of many
// does not scan the others; a store built before the Dynamo tables' indexes were narrowed to run_id
// gets the new ones instead of the old (run_id, rank, epoch, frame_id, frame_compile_id) ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/source_versions.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"

namespace rcf::store {
namespace store_indexes_test {

// The plan SQLite picks for a count of one run's rows, as its detail lines.
std::string plan_of_run_count(Database& db, const std::string& table) {
  auto st = db.prepare("EXPLAIN QUERY PLAN SELECT count(*) FROM " + table + " WHERE run_id = 2");
  std::string plan;
  while (st.step()) plan += st.str(3) + "\n";
  return plan;
}

// The tables the analysis reads per run.
const std::vector<std::string> kPerRunTables = {"source",
                                                "dynamo_compile_raw",
                                                "guard_failure",
                                                "graph_break",
                                                "recompile_limit_hit",
                                                "guard",
                                                "phase_timing",
                                                "cache_outcome",
                                                "input_tensor",
                                                "compile_event",
                                                "xla_block",
                                                "xla_execution_group",
                                                "xla_execution",
                                                "hlo_module",
                                                "step_timing",
                                                "step_marker",
                                                "saved_graph",
                                                "jax_compile",
                                                "jax_cache_miss",
                                                "xla_profiler_note",
                                                "graph_fact",
                                                "rank_divergence_row",
                                                "grab_graphs_frame"};

void expect_found_by_run_id(Database& db) {
  for (const std::string& table : kPerRunTables) {
    const std::string plan = plan_of_run_count(db, table);
    EXPECT_NE(plan.find("USING COVERING INDEX " + table + "_run"), std::string::npos)
        << table << ":\n"
        << plan;
  }
}

// A new store has its indexes before its first load, which then maintains them as it appends
// (cheaper than building them afterwards, docs/performance.md).
TEST(StoreIndexes, ACreatedStoreHasItsIndexesBeforeTheFirstLoad) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  expect_found_by_run_id(*db);
}

// A store of an older rcf that lacks them gets them from create_indexes (after each ingest).
TEST(StoreIndexes, EveryPerRunTableIsFoundByRunId) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  for (const std::string& table : kPerRunTables) db->exec("DROP INDEX IF EXISTS " + table + "_run");
  // Before 2026-12-07 step_marker's was by run_id alone: a watch looked up a run's syncs and
  // untimed progress lines among its millions of timed ones (docs/watch.md).
  db->exec(
      "DROP INDEX step_marker_run_origin; CREATE INDEX step_marker_run ON step_marker(run_id)");
  EXPECT_EQ(plan_of_run_count(*db, "compile_event").find("INDEX"), std::string::npos);
  create_indexes(*db);
  expect_found_by_run_id(*db);
  EXPECT_EQ(testing::query_csv(*db,
                               "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = "
                               "'step_marker' ORDER BY name"),
            "name\nstep_marker_run_origin\n");
  auto plan = db->prepare(
      "EXPLAIN QUERY PLAN SELECT line FROM step_marker WHERE run_id = 2 AND origin = 'step_line' "
      "AND time_s IS NULL");
  ASSERT_TRUE(plan.step());
  EXPECT_NE(plan.str(3).find("step_marker_run_origin (run_id=? AND origin=? AND time_s=?)"),
            std::string::npos)
      << plan.str(3);
}

// The metric samples the analysis reads (timers and counter values) are found through the partial
// index metric_fields when a query repeats its term; the old two-field metric_timer is dropped.
// rcf merge looks up each shard source's path in its run: one index step, not a scan of the
// run's sources (a dump directory's run holds thousands).
TEST(StoreIndexes, TheMergesLookupOfAPathInARunUsesTheSourceRunIndex) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  auto st = db->prepare(std::string("EXPLAIN QUERY PLAN ") + kSourcesAtPathSql);
  std::string plan;
  while (st.step()) plan += st.str(3) + "\n";
  EXPECT_NE(plan.find("USING INDEX source_run (run_id=? AND path=?)"), std::string::npos) << plan;
}

TEST(StoreIndexes, MetricQueriesThatRepeatTheTermUseTheMetricFieldsIndex) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  db->exec(
      "CREATE INDEX metric_timer ON metric_sample(run_id, name_sid) WHERE field IN "
      "('TotalSamples', 'Accumulator')");
  create_indexes(*db);
  auto st = db->prepare(std::string("EXPLAIN QUERY PLAN SELECT value FROM metric_sample WHERE "
                                    "run_id = 2 AND name_sid = 7 AND ") +
                        kMetricFieldsTerm + " AND field = 'Value'");
  std::string plan;
  while (st.step()) plan += st.str(3) + "\n";
  EXPECT_NE(plan.find("USING INDEX metric_fields"), std::string::npos) << plan;
  EXPECT_EQ(testing::scalar(*db,
                            "SELECT group_concat(name, ' ') FROM sqlite_master WHERE type = "
                            "'index' AND tbl_name = 'metric_sample'"),
            "metric_fields");
}

TEST(StoreIndexes, AnOldStoresFrameIndexesAreReplaced) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  db->exec(
      "CREATE INDEX guard_failure_ref ON guard_failure(run_id, rank, epoch, frame_id, "
      "frame_compile_id)");
  db->exec(
      "CREATE INDEX graph_break_ref ON graph_break(run_id, rank, epoch, frame_id, "
      "frame_compile_id)");
  create_indexes(*db);
  EXPECT_EQ(testing::scalar(*db,
                            "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master "
                            "WHERE type = 'index' AND tbl_name IN ('guard_failure', "
                            "'graph_break') ORDER BY name)"),
            "graph_break_run guard_failure_run");
  create_indexes(*db);  // again: nothing to do
  EXPECT_EQ(testing::scalar(*db,
                            "SELECT count(*) FROM sqlite_master WHERE name LIKE '%\\_ref' "
                            "ESCAPE '\\'"),
            "0");
}

}  // namespace store_indexes_test
}  // namespace rcf::store
