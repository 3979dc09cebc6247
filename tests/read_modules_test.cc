// The store's read modules (store/*_queries.h) on real fixture ingests: the rows the report and
// explain models are built from, and the lane claims the Markdown note words.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "report/lane_claims.h"
#include "report/report_model.h"
#include "store/compile_queries.h"
#include "store/convergence_queries.h"
#include "store/fix_first_queries.h"
#include "store/run_queries.h"
#include "store/source_queries.h"
#include "store/store.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace read_modules_test {

const std::string kFixtures = RCF_FIXTURES_DIR;

using testing::scenario_files;

class ReadModules : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    ingest("constant-counter", "run1", scenario_files("constant_counter"));
    ingest("xla-bundle", "run1", {kFixtures + "/xla_bundle"});
    ingest("shape-storm", "trace", {kFixtures + "/torch_trace/multi_rank_logs"});
    ingest("moe4b", "cold", {kFixtures + "/restart/proven/cold"});
    ingest("moe4b", "warm", {kFixtures + "/restart/proven/warm"});
    ingest("moe4b-unread", "cold", {kFixtures + "/restart/unread/cold"});
    ingest("moe4b-unread", "warm", {kFixtures + "/restart/unread/warm"});
    db_ = store::open_store(dir_->file("rcf.db"), store::OpenMode::kRead).release();
  }
  static void TearDownTestSuite() {
    delete db_;
    delete dir_;
  }
  static void ingest(const std::string& lane, const std::string& run,
                     const std::vector<std::string>& paths) {
    pipeline::IngestRequest req;
    req.db_path = dir_->file("rcf.db");
    req.lane = lane;
    req.run = run;
    for (const auto& p : paths) req.paths.push_back(p);
    pipeline::run_ingest(req);
  }
  static int64_t run_id(const std::string& lane) {
    const auto runs = store::runs_of_lane(*db_, lane);
    EXPECT_FALSE(runs.empty()) << lane;
    return runs.empty() ? -1 : runs.front().run_id;
  }

  static testing::TempDir* dir_;
  static store::Database* db_;
};
testing::TempDir* ReadModules::dir_ = nullptr;
store::Database* ReadModules::db_ = nullptr;

TEST_F(ReadModules, RecompileScanCountsTheConstantCounterSite) {
  // fixtures/scenarios/constant_counter: 23 constant recompiles at train.py:142.
  const int64_t run = run_id("constant-counter");
  std::vector<int64_t> sids, rows;
  std::vector<std::string> causes;
  store::for_each_recompile(*db_, run, [&](const store::RecompileScanRow& c) {
    sids.push_back(c.site_sid);
    rows.push_back(c.compile_row);
    causes.emplace_back(c.cause);
  });
  ASSERT_EQ(sids.size(), 23u);
  EXPECT_EQ(std::count(causes.begin(), causes.end(), "constant"), 23);
  const auto texts = store::string_texts(*db_, {sids.front()});
  ASSERT_EQ(texts.count(sids.front()), 1u);
  EXPECT_EQ(texts.at(sids.front()).find("/work/model/train.py:142"), 0u) << texts.at(sids.front());
  EXPECT_EQ(std::count(sids.begin(), sids.end(), sids.front()), 23);

  std::vector<int64_t> ordinals;  // every compile: the first one and the 23 recompiles
  store::for_each_compile(*db_, run,
                          [&](const store::CompileCauseRow& c) { ordinals.push_back(c.ordinal); });
  ASSERT_EQ(ordinals.size(), 24u);
  EXPECT_TRUE(std::is_sorted(ordinals.begin(), ordinals.end()));

  const auto fetched = store::recompiles_by_row(*db_, {rows.front(), rows.back()});
  ASSERT_EQ(fetched.size(), 2u);
  const store::RecompileRow& first = fetched.at(rows.front());
  EXPECT_EQ(first.ordinal, ordinals[1]);  // the first recompile follows the first compile
  EXPECT_EQ(first.cause, "constant");
  EXPECT_TRUE(first.has_prev);
  EXPECT_TRUE(first.hlo_module_id.has_value());

  store::RecompileTextReader reader(*db_);
  const auto latest = reader.at(run, ordinals.back());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->program_key, fetched.at(rows.back()).program_key);
  EXPECT_FALSE(reader.at(run, ordinals.back() + 1000).has_value());
}

TEST_F(ReadModules, FixFirstRowsAndTotalsOfTheConstantCounter) {
  const int64_t run = run_id("constant-counter");
  const auto rows = store::fix_first_of_run(*db_, run, 0);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].rank, 1);
  EXPECT_EQ(rows[0].cause, "constant");
  EXPECT_EQ(rows[0].recompiles, 23);
  EXPECT_FALSE(rows[0].remedy.empty());
  const store::FixFirstTotals totals = store::fix_first_totals(*db_, run);
  EXPECT_EQ(totals.rows, static_cast<int64_t>(rows.size()));
  EXPECT_EQ(totals.unknown, 0);
  EXPECT_EQ(store::fix_first_of_run(*db_, run, 1).size(), 1u);
}

TEST_F(ReadModules, ConvergenceOfTheXlaBundleIsItsGroundTruth) {
  // fixtures/xla_bundle/README.md: 4 steps; A at step 1, B and C at step 2, nothing after.
  const int64_t run = run_id("xla-bundle");
  const auto summary = store::convergence_summary_of_run(*db_, run);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->state, "settled");
  EXPECT_EQ(summary->first_step, 1);
  EXPECT_EQ(summary->last_step, 4);
  EXPECT_EQ(summary->settle_step, 2);
  EXPECT_EQ(summary->programs, 3);
  std::vector<store::ConvergencePointRow> points;
  store::for_each_convergence_point(
      *db_, run, [&](const store::ConvergencePointRow& p) { points.push_back(p); });
  ASSERT_GE(points.size(), 2u);
  EXPECT_EQ(points.front().step, 1);
  EXPECT_EQ(points.front().programs_cached, 1);
  EXPECT_EQ(points.back().step, 4);
  EXPECT_EQ(points.back().programs_cached, 3);
}

TEST_F(ReadModules, SourcesAndFirstFailedCompileOfTheMultiRankLogs) {
  const int64_t run = run_id("shape-storm");
  const store::RunSources sources = store::sources_of_run(*db_, run, 100);
  EXPECT_GE(sources.total, 2);  // one log per rank
  EXPECT_EQ(static_cast<int64_t>(sources.listed.size()), sources.total);
  EXPECT_TRUE(std::is_sorted(
      sources.listed.begin(), sources.listed.end(),
      [](const store::SourceRow& a, const store::SourceRow& b) { return a.path < b.path; }));
  EXPECT_EQ(store::sources_of_run(*db_, run, 1).listed.size(), 1u);
  EXPECT_EQ(store::formats_of_run(*db_, run), std::vector<std::string>{"torch_trace"});
  // Rank 0's only compile raised.
  const auto failed = store::first_failed_compile(*db_, run);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->program_key, "rank0:0/0");
  EXPECT_EQ(failed->reason, "BackendCompilerFailed");
}

TEST_F(ReadModules, LaneClaimsFollowTheRestartVerdicts) {
  const report::ReportModel model = report::build_report(*db_, "");
  auto claims_of = [&](const std::string& lane) {
    for (const auto& l : model.lanes)
      if (l.lane == lane) return l.claims;
    ADD_FAILURE() << "no lane " << lane;
    return report::LaneClaims{};
  };
  auto has = [](const std::vector<report::LaneClaim>& v, report::ClaimKind kind) {
    return std::any_of(v.begin(), v.end(),
                       [&](const report::LaneClaim& c) { return c.kind == kind; });
  };
  const report::LaneClaims proven = claims_of("moe4b");
  EXPECT_TRUE(has(proven.validated, report::ClaimKind::kRestartProven));
  EXPECT_FALSE(has(proven.risk, report::ClaimKind::kRestartNotProven));
  const report::LaneClaims unread = claims_of("moe4b-unread");
  EXPECT_TRUE(has(unread.risk, report::ClaimKind::kRestartNotProven));
  EXPECT_FALSE(has(unread.validated, report::ClaimKind::kRestartProven));
  // The constant counter recompiles: its fix-first row is a workaround, and its first recompile
  // is the frontier; the shape storm's failed compile is a risk and a frontier.
  const report::LaneClaims counter = claims_of("constant-counter");
  EXPECT_TRUE(has(counter.workaround, report::ClaimKind::kRemedy));
  EXPECT_TRUE(has(counter.frontier, report::ClaimKind::kFirstRecompile));
  EXPECT_TRUE(counter.evidence);
  const report::LaneClaims storm = claims_of("shape-storm");
  EXPECT_TRUE(has(storm.risk, report::ClaimKind::kFailedCompiles));
  EXPECT_TRUE(has(storm.frontier, report::ClaimKind::kFirstFailure));
}

}  // namespace read_modules_test
}  // namespace rcf
