// A torch_xla run bundle (PT_XLA_DEBUG level-2 log, XLA_SAVE_TENSORS_FILE in hlo format,
// XLA_METRICS_FILE, step-timing CSV; fixtures/xla_bundle/README.md has the ground truth) ingested
// as one run: compiles get steps, sites and program keys, the saved graph and its HLO module are
// joined to the compile by graph hash, and the convergence curve settles after step 2.
#include <gtest/gtest.h>

#include <string>

#include "pipeline/ingest_pipeline.h"
#include "report/explain.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace xla_bundle_test {

using testing::query_csv;
using testing::scalar;
using testing::TempDir;

class XlaBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> logs;
    for (const char* f : {"pt_xla_debug.log", "save_tensors.hlo.0", "metrics.txt", "steps.csv"})
      logs.push_back(testing::fixture_path(std::string("xla_bundle/") + f));
    summary_ = testing::ingest_logs(dir_.file("rcf.db"), logs, "xla", "r1");
    db_ = testing::read_store(dir_.file("rcf.db"));
  }
  TempDir dir_;
  pipeline::IngestSummary summary_;
  std::unique_ptr<store::Database> db_;
};

TEST_F(XlaBundle, EveryFileIsReadByItsImporter) {
  EXPECT_EQ(summary_.rejected, 0);
  EXPECT_EQ(query_csv(*db_, "SELECT format, lines FROM source ORDER BY source_id"),
            "format,lines\npt_xla_debug,134\nxla_saved_graph,26\nxla_metrics,32\nstep_timing,5\n");
}

TEST_F(XlaBundle, CompilesHaveStepsSitesAndKeys) {
  EXPECT_EQ(
      // Line counts as `wc -l` gives them for the four fixture files.
      query_csv(
          *db_,
          "SELECT ordinal, step, site, program_key, kind, cache FROM compiles ORDER BY ordinal"),
      "ordinal,step,site,program_key,kind,cache\n"
      "1,1,/work/train.py:88 (train_loop),5f0c1b2e3d4a69788796a5b4c3d2e1f0,xla,miss\n"
      "2,2,/work/train.py:61 (compute_loss),1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6,xla,miss\n"
      "3,2,/work/train.py:88 (train_loop),9a8b7c6d5e4f30211203f4e5d6c7b8a9,xla,miss\n");
}

TEST_F(XlaBundle, SyncFragmentAndInputCountChangeAreAttributed) {
  EXPECT_EQ(query_csv(*db_,
                      "SELECT ordinal, cause, prev_program_key, confidence FROM recompiles "
                      "ORDER BY ordinal"),
            "ordinal,cause,prev_program_key,confidence\n"
            "2,sync_fragment,,medium\n"
            "3,key_subset,5f0c1b2e3d4a69788796a5b4c3d2e1f0,medium\n");
  // The metrics file has no aten::_local_scalar_dense counter: the cause line of PT_XLA_DEBUG is
  // the only artifact, so the fragment is `medium` and the detail says what would confirm it.
  std::string fragment = scalar(*db_, "SELECT detail FROM recompiles WHERE ordinal = 2");
  EXPECT_NE(fragment.find("/work/train.py:61"), std::string::npos);
  EXPECT_NE(
      fragment.find("seen only in PT_XLA_DEBUG (an XLA_METRICS_FILE report would confirm it)"),
      std::string::npos)
      << fragment;
  EXPECT_NE(scalar(*db_, "SELECT detail FROM recompiles WHERE ordinal = 3").find("12 -> 14"),
            std::string::npos);
}

TEST_F(XlaBundle, ConvergenceSettlesAfterStepTwo) {
  EXPECT_EQ(query_csv(*db_,
                      "SELECT step, programs_cached, compiles_in_step FROM convergence "
                      "ORDER BY step"),
            "step,programs_cached,compiles_in_step\n1,1,1\n2,3,2\n3,3,0\n4,3,0\n");
}

TEST_F(XlaBundle, ExplainSaysWhereTheLaneSettled) {
  auto model = report::build_explain(*db_, "xla");
  ASSERT_EQ(model.runs.size(), 1u);
  EXPECT_EQ(model.runs[0].settle_step, 2);
  EXPECT_EQ(model.runs[0].last_step, 4);
  EXPECT_EQ(model.runs[0].final_programs, 3);
  EXPECT_NE(report::render_explain_text(model).find(
                "convergence: settled at step 2 with 3 programs; no new program in steps 3..4"),
            std::string::npos);
}

TEST_F(XlaBundle, SavedGraphAndHloModuleJoinTheCompileByGraphHash) {
  EXPECT_EQ(query_csv(*db_, "SELECT ordinal, hlo_module, saved_graph_line FROM compile_artifacts"),
            "ordinal,hlo_module,saved_graph_line\n1,SyncTensorsGraph.12,1\n");
  // The constant a Python scalar became, with its source line from XLA_HLO_DEBUG metadata.
  EXPECT_EQ(query_csv(*db_,
                      "SELECT v.text AS value, c.user_op, c.source_line FROM hlo_constant c "
                      "JOIN strings v ON v.string_id = c.value_sid"),
            "value,user_op,source_line\n0.5,broadcast,88\n");
}

TEST_F(XlaBundle, MetricsAndStepTimingsKeepTheirSteps) {
  EXPECT_EQ(query_csv(*db_,
                      "SELECT m.step, m.value FROM metric_sample m JOIN strings n ON "
                      "n.string_id = m.name_sid WHERE n.text = 'CompileTime' AND "
                      "m.field = 'TotalSamples' ORDER BY m.step"),
            "step,value\n1,1.0\n2,3.0\n3,3.0\n4,3.0\n");
  EXPECT_EQ(scalar(*db_, "SELECT count(*) FROM step_timing WHERE compile_ms > 0"), "2");
}

}  // namespace xla_bundle_test
}  // namespace rcf

namespace rcf {
namespace xla_bundle_test {

// The bundle read with tiny and large buffers, and with gzip-compressed copies, gives the same
// tables (timestamps and paths aside).
TEST(XlaBundleInvariance, BufferSizesAndGzipGiveIdenticalTables) {
  const std::vector<std::string> names = {"pt_xla_debug.log", "save_tensors.hlo.0", "metrics.txt",
                                          "steps.csv"};
  auto ingest = [&](const TempDir& dir, size_t buffer, bool gzip) {
    pipeline::IngestRequest req;
    req.db_path = dir.file("rcf.db");
    req.buffer_size = buffer;
    for (const auto& n : names) {
      std::string src = std::string(RCF_FIXTURES_DIR) + "/xla_bundle/" + n;
      if (gzip) {
        std::string copy = dir.file(n);  // same base name: evidence texts stay comparable
        testing::write_file(copy, testing::gzip_compress(testing::read_file(src)));
        src = copy;
      }
      req.paths.push_back(src);
    }
    pipeline::run_ingest(req);
    auto db = store::open_store(req.db_path, store::OpenMode::kRead);
    return testing::dump_tables(*db, {"ingested_at", "created_at", "path", "encoding"});
  };
  TempDir a, b, c;
  std::string reference = ingest(a, size_t{4} << 20, false);
  EXPECT_EQ(ingest(b, 16, false), reference);
  EXPECT_EQ(ingest(c, 4096, true), reference);
}

}  // namespace xla_bundle_test
}  // namespace rcf
