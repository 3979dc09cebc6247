// Console lines a compile caused (ingest/steps/compile_line.h) and the trace's clock that places
// compiles with them (docs/training_steps.md, "The trace's clock"): warnings issued from Dynamo's
// and Inductor's code in every form a console prints them (rank prefixes, other categories,
// indentation), their log records with and without a compile id, and the lines that are not one;
// then a real TORCH_TRACE log (fixtures/real_runs/constant_counter: 0/0..0/4 in steps 1..5)
// beside consoles that never saw rcf capture.
#include "ingest/steps/compile_line.h"

#include <gtest/gtest.h>

#include <string>

#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace compile_line_test {

using ingest::read_compile_line;
using testing::query_csv;
using testing::run_rcf;
using testing::TempDir;

std::string read(std::string_view text) {
  auto c = read_compile_line(text);
  if (!c) return "-";
  return c->compile_id.empty() ? c->location : c->location + " [" + c->compile_id + "]";
}

TEST(CompileLine, WarningsIssuedFromDynamoAndInductorCode) {
  // fixtures/real_runs/inductor_cache/cold/stderr.log, line 1.
  EXPECT_EQ(read("/opt/torch/.venv/lib/python3.12/site-packages/torch/_inductor/compile_fx.py:322: "
                 "UserWarning: TensorFloat32 tensor cores for float32 matrix multiplication "
                 "available but not enabled."),
            "torch/_inductor/compile_fx.py:322");
  EXPECT_EQ(read("[rank1]: /usr/lib/python3/dist-packages/torch/_dynamo/variables/functions.py:"
                 "1481: UserWarning: Dynamo does not know how to trace the builtin `time.time.`"),
            "torch/_dynamo/variables/functions.py:1481");
  EXPECT_EQ(read("  C:\\py\\Lib\\site-packages\\torch/_inductor/lowering.py:1904: FutureWarning: "
                 "`torch._prims_common.check` is deprecated"),
            "torch/_inductor/lowering.py:1904");
  EXPECT_EQ(read("torch/_dynamo/eval_frame.py:839: RuntimeWarning: cudagraphs skipped"),
            "torch/_dynamo/eval_frame.py:839");
}

TEST(CompileLine, LogRecordsOfDynamoAndInductorLoggers) {
  EXPECT_EQ(read("[rank0]:W1126 20:43:00.123000 71 torch/_inductor/utils.py:1250] [0/3] Not "
                 "enough SMs to use max_autotune_gemm mode"),
            "torch/_inductor/utils.py:1250 [0/3]");
  EXPECT_EQ(read("W1126 20:43:00.123000 71 /x/site-packages/torch/_dynamo/convert_frame.py:964] "
                 "torch._dynamo hit config.recompile_limit (8)"),
            "torch/_dynamo/convert_frame.py:964");
  EXPECT_EQ(read("WARNING:torch._inductor.utils:[0/1] not enough SMs"),
            "torch._inductor.utils [0/1]");
}

TEST(CompileLine, OtherLinesAreNotOne) {
  EXPECT_EQ(read("step 1/3 loss 0.7610"), "-");
  EXPECT_EQ(read("  warnings.warn("), "-");
  // The user's own warning, and torch code outside the compiler.
  EXPECT_EQ(read("/work/train.py:12: UserWarning: torch/_inductor/ is slow today"), "-");
  EXPECT_EQ(read("/x/torch/nn/modules/module.py:1747: UserWarning: Using a target size"), "-");
  EXPECT_EQ(read("W1126 20:43:00.123000 71 torch/distributed/run.py:793] OMP_NUM_THREADS"), "-");
  EXPECT_EQ(read("torch/_inductor/compile_fx.py:322 said hello"), "-");
}

// The constant_counter run's TORCH_TRACE log (compiles 0/0..0/4, one per step 1..5) beside a
// console of progress lines with no times that rcf did not capture, holding `lines`.
std::string steps_with_console(const std::string& console, std::string* detail) {
  TempDir dir;
  testing::write_file(dir.file("stderr.log"), console);
  const std::string run = std::string(RCF_FIXTURES_DIR) + "/real_runs/constant_counter/run1";
  const std::string db = dir.file("t.db");
  testing::RcfRun r = run_rcf({"ingest", "--db", db, run + "/logs", dir.file("stderr.log")});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  auto store = store::open_store(db, store::OpenMode::kRead);
  *detail =
      testing::scalar(*store, "SELECT step_basis || ': ' || step_detail FROM run_convergence");
  return query_csv(*store,
                   "SELECT program_key, coalesce(step, '-') FROM compiles ORDER BY program_key");
}

std::string progress(int from, int to, const std::string& prefix = "") {
  std::string out;
  for (int i = from; i <= to; ++i) out += prefix + "step " + std::to_string(i) + "/5 loss 1.0\n";
  return out;
}

TEST(CompileLine, TheTraceClockPlacesTheFirstCompileAndTheCompilesARecordNames) {
  std::string detail;
  // Only progress lines: the run's first compile is in the first step, nothing else is placed.
  std::string steps = steps_with_console(progress(1, 5), &detail);
  EXPECT_NE(steps.find("0/0,1\n"), std::string::npos) << steps;
  EXPECT_NE(steps.find("0/1,-\n"), std::string::npos) << steps;
  EXPECT_NE(detail.find("trace_clock: 5 progress lines `step #/#`"), std::string::npos) << detail;
  EXPECT_NE(detail.find("4 compiles are not placed in a step: the TORCH_TRACE clock"),
            std::string::npos)
      << detail;
  // Rank prefixes, an Inductor warning before the first line and a Dynamo record naming 0/3
  // between steps 3 and 4: 0/3 is in step 4 (the truth), 0/1 and 0/2 in 1..4 stay open.
  const std::string console =
      "[rank0]: /venv/torch/_inductor/compile_fx.py:322: UserWarning: TF32 not enabled\n"
      "[rank0]:   warnings.warn(\n" +
      progress(1, 3, "[rank0]: ") +
      "[rank0]:W1126 20:43:05.000000 71 torch/_inductor/utils.py:1250] [0/3] Not enough SMs to "
      "use max_autotune_gemm mode\n" +
      progress(4, 5, "[rank0]: ");
  steps = steps_with_console(console, &detail);
  EXPECT_NE(steps.find("0/0,1\n0/1,-\n0/2,-\n0/3,4\n0/4,-\n"), std::string::npos) << steps;
  EXPECT_NE(detail.find("1 compile named by the console's Dynamo / Inductor records"),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("`torch/_inductor/compile_fx.py:322`, printed by a compile"),
            std::string::npos)
      << detail;
}

TEST(CompileLine, RecordsOfOneStepPlaceTheCompilesBetweenThem) {
  // 0/1 and 0/3 both named before `step 2` (not the truth, but what this console says): 0/2,
  // which the trace's clock puts between them, is in step 2 as well.
  std::string detail;
  const std::string console = progress(1, 1) +
                              "WARNING:torch._inductor.utils:[0/1] not enough SMs\n"
                              "WARNING:torch._inductor.utils:[0/3] not enough SMs\n" +
                              progress(2, 5);
  std::string steps = steps_with_console(console, &detail);
  EXPECT_NE(steps.find("0/0,1\n0/1,2\n0/2,2\n0/3,2\n0/4,-\n"), std::string::npos)
      << steps << detail;
}

}  // namespace compile_line_test
}  // namespace rcf
