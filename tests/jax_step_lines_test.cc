// A JAX console's own progress lines place its compiles in training steps (docs/training_steps.md):
// the constructed fixture fixtures/steps/jax_train_step_lines_constructed.log (README there) has
// JAX_LOG_COMPILES records between the script's `step N` prints.
#include <gtest/gtest.h>

#include <string>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace {

using testing::scalar;
using testing::TempDir;

TEST(JaxStepLines, CompilesArePlacedInTheirTrainingSteps) {
  TempDir dir;
  pipeline::IngestRequest req;
  req.db_path = dir.file("rcf.db");
  req.lane = "jax";
  req.run = "r1";
  req.paths = {std::string(RCF_FIXTURES_DIR) + "/steps/jax_train_step_lines_constructed.log"};
  pipeline::run_ingest(req);
  auto db = store::open_store(req.db_path, store::OpenMode::kRead);
  EXPECT_EQ(scalar(*db,
                   "SELECT group_concat(step || ' ' || program_key, ', ') FROM (SELECT step, "
                   "program_key FROM compile_event ORDER BY ordinal)"),
            "1 train_step (ShapedArray(int32[8,512]),), 4 train_step (ShapedArray(int32[8,640]),), "
            "7 train_step (ShapedArray(int32[8,768]),), 10 eval_step (ShapedArray(int32[8,768]),)");
  EXPECT_EQ(scalar(*db,
                   "SELECT state || ' ' || settle_step || ' ' || programs_at_settle || ' ' || "
                   "step_axis || ' ' || step_basis FROM convergence_summary"),
            "settled 10 4 step step_lines");
  // The progress lines are parsed, not skipped as other output.
  EXPECT_EQ(scalar(*db, "SELECT sum(repeats) FROM step_marker WHERE origin = 'step_line'"), "12");
}

}  // namespace
}  // namespace rcf
