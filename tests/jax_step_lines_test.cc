// A JAX console's own progress lines place its compiles in training steps (docs/training_steps.md):
// the constructed fixture fixtures/steps/jax_train_step_lines_constructed.log (README there) has
// JAX_LOG_COMPILES records between the script's `step N` prints.
#include <gtest/gtest.h>

#include <string>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace jax_step_lines_test {

using testing::fixture_path;
using testing::ingest_logs;
using testing::read_store;
using testing::scalar;
using testing::TempDir;

TEST(JaxStepLines, CompilesArePlacedInTheirTrainingSteps) {
  TempDir dir;
  ingest_logs(dir.file("rcf.db"), {fixture_path("steps/jax_train_step_lines_constructed.log")},
              "jax", "r1");
  auto db = read_store(dir.file("rcf.db"));
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

}  // namespace jax_step_lines_test
}  // namespace rcf
