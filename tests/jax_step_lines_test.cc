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

// The same console with the progress lines written the ways JAX training loops log them through
// absl: CLU's metric writer (`[N] key=value, ...` in Python logging's and absl's own prefix, and
// its earlier `prefix[N] ...`) and a plain `logging.info` step line: each places the compiles in
// the same steps.
TEST(JaxStepLines, StepLinesLoggedThroughAbslPlaceTheSameSteps) {
  const std::string original =
      testing::read_file(fixture_path("steps/jax_train_step_lines_constructed.log"));
  struct Form {
    const char* name;
    std::string (*line)(const std::string& step, const std::string& loss);
  };
  const Form forms[] = {
      {"clu_python_logging",
       [](const std::string& n, const std::string& l) {
         return "INFO:absl:[" + n + "] loss=" + l + ", lr=0.001";
       }},
      {"clu_absl_native",
       [](const std::string& n, const std::string& l) {
         return "I1126 09:15:20.000000 140 train.py:88] [" + n +
                "] learning_rate=0.001, train/loss=" + l;
       }},
      {"clu_2021_prefix",
       [](const std::string& n, const std::string& l) {
         return "INFO:absl:train[" + n + "] loss=" + l;
       }},
      {"absl_logging_info",
       [](const std::string& n, const std::string& l) {
         return "INFO:absl:train step " + n + ": loss " + l;
       }},
  };
  for (const Form& form : forms) {
    std::string text;
    size_t at = 0;
    while (at < original.size()) {
      size_t end = original.find('\n', at);
      std::string line = original.substr(at, end - at);
      at = end == std::string::npos ? original.size() : end + 1;
      if (line.starts_with("step ")) {  // `step   N | loss L | T ms`
        size_t bar = line.find('|');
        std::string n = line.substr(5, bar - 5);
        n.erase(0, n.find_first_not_of(' '));
        n.erase(n.find_last_not_of(' ') + 1);
        std::string loss = line.substr(line.find("loss ") + 5, 5);
        line = form.line(n, loss);
      }
      text += line + "\n";
    }
    TempDir dir;
    testing::write_file(dir.file("train.log"), text);
    ingest_logs(dir.file("rcf.db"), {dir.file("train.log")}, "jax", "r1");
    auto db = read_store(dir.file("rcf.db"));
    EXPECT_EQ(scalar(*db,
                     "SELECT group_concat(step, ' ') FROM (SELECT step FROM compile_event "
                     "ORDER BY ordinal)"),
              "1 4 7 10")
        << form.name;
    EXPECT_EQ(scalar(*db, "SELECT step_basis || ' ' || settle_step FROM convergence_summary"),
              "step_lines 10")
        << form.name;
    EXPECT_EQ(scalar(*db, "SELECT sum(repeats) FROM step_marker WHERE origin = 'step_line'"), "12")
        << form.name;
  }
}

}  // namespace jax_step_lines_test
}  // namespace rcf
