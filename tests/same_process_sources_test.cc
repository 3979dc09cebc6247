// One process seen through a TORCH_LOGS text log and a TORCH_TRACE file (analysis/
// same_process_sources.h): each compile is counted once when the evidence (pid, compile ids,
// functions) says the logs are of one process, and twice when it does not.
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
namespace same_process_sources_test {

using testing::scalar;
using testing::TempDir;

const std::string kTrace = std::string(RCF_FIXTURES_DIR) +
                           "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log";

// The text log the same process would have written with TORCH_LOGS=recompiles: one block per
// recompile of the trace, with the trace's function and reasons, under glog pid `pid`. With
// `step_lines`, the training loop prints `step N | loss` as each step ends: `step 1` (its first
// compiles are not in this log), then the N-th recompile and `step N+1` (each recompile in a step
// of its own).
std::string text_log_of_trace(const std::string& trace_db, int64_t pid, bool step_lines = false) {
  auto db = store::open_store(trace_db, store::OpenMode::kRead);
  auto st = db->prepare(
      "SELECT c.frame_id, c.frame_compile_id, n.text, f.text, c.co_firstlineno, g.old_compile_id, "
      "g.reason FROM dynamo_compile_raw c JOIN strings n ON n.string_id = c.co_name_sid "
      "JOIN strings f ON f.string_id = c.co_filename_sid JOIN guard_failures g ON "
      "g.frame_id = c.frame_id AND g.frame_compile_id = c.frame_compile_id "
      "WHERE c.kind = 'forward' AND c.frame_compile_id > 0 ORDER BY c.raw_id, g.entry_index");
  std::string out = step_lines ? "step 1 | loss 3.2\n" : "", last_id;
  int64_t blocks = 0;
  while (st.step()) {
    std::string id = std::to_string(st.int64(0)) + "/" + std::to_string(st.int64(1));
    std::string prefix = "V1126 10:00:00.000000 " + std::to_string(pid) +
                         " torch/_dynamo/guards.py:2940] [" + id + "] [__recompiles] ";
    if (id != last_id) {
      if (step_lines && blocks++ > 0) out += "step " + std::to_string(blocks) + " | loss 3.2\n";
      out += prefix + "Recompiling function " + st.str(2) + " in " + st.str(3) + ":" +
             std::to_string(st.int64(4)) + "\n";
      out += prefix + "    triggered by the following guard failure(s):\n";
      last_id = id;
    }
    out += prefix + "    - " + st.str(5) + ": " + st.str(6) + "\n";
  }
  if (step_lines && blocks > 0) out += "step " + std::to_string(blocks + 1) + " | loss 3.2\n";
  return out;
}

struct Counts {
  std::string compiles, recompiles, merged;
};

Counts ingest_both(const TempDir& dir, int64_t text_pid, bool step_lines = false) {
  const std::string alone = dir.file("trace.db");
  testing::ingest_logs(alone, {kTrace});
  const std::string text = dir.file("stderr_" + std::to_string(text_pid) + ".log");
  testing::write_file(text, text_log_of_trace(alone, text_pid, step_lines));

  const std::string both = dir.file("both_" + std::to_string(text_pid) + ".db");
  testing::ingest_logs(both, {kTrace, text});
  auto db = testing::read_store(both);
  return {scalar(*db, "SELECT count(*) FROM compiles"),
          scalar(*db, "SELECT count(*) FROM recompiles"),
          scalar(*db, "SELECT count(*) FROM merged_sources")};
}

TEST(SameProcessSources, TextLogAndTraceOfOneProcessCountEachCompileOnce) {
  TempDir dir;
  Counts c = ingest_both(dir, 1337);  // the trace's own pid
  EXPECT_EQ(c.compiles, "15");
  EXPECT_EQ(c.recompiles, "14");
  EXPECT_EQ(c.merged, "1");
}

TEST(SameProcessSources, AnotherPidIsAnotherProcess) {
  TempDir dir;
  // Same ids and functions (another rank of the same job prints exactly these), another pid.
  Counts c = ingest_both(dir, 4242);
  EXPECT_EQ(c.merged, "0");
  EXPECT_EQ(c.recompiles, "28");
}

TEST(SameProcessSources, TheMergedRecompilesKeepTheTraceCauses) {
  TempDir dir;
  ingest_both(dir, 1337);
  auto db = store::open_store(dir.file("both_1337.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*db, "SELECT group_concat(DISTINCT cause) FROM recompiles"), "shape");
  EXPECT_NE(scalar(*db, "SELECT evidence FROM merged_sources").find("pid 1337, 14 compile(s)"),
            std::string::npos);
}

// The text log's `step N` lines place the trace's compiles too (they are one set of compiles):
// the first compiles in step 1, the N-th recompile in step N+1.
TEST(SameProcessSources, TheTextLogsStepLinesPlaceTheMergedCompiles) {
  TempDir dir;
  Counts c = ingest_both(dir, 1337, /*step_lines=*/true);
  EXPECT_EQ(c.compiles, "15");
  auto db = store::open_store(dir.file("both_1337.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles WHERE step IS NULL"), "0");
  EXPECT_EQ(scalar(*db,
                   "SELECT group_concat(step, ' ') FROM (SELECT step FROM recompiles "
                   "ORDER BY step)"),
            "2 3 4 5 6 7 8 9 10 11 12 13 14 15");
  EXPECT_EQ(scalar(*db,
                   "SELECT step FROM compiles WHERE program_key NOT IN "
                   "(SELECT program_key FROM recompiles)"),
            "1");
  EXPECT_EQ(scalar(*db,
                   "SELECT state || ' ' || settle_step || ' ' || step_axis || ' ' || "
                   "step_basis FROM convergence_summary"),
            "not_settled 15 step step_lines");
}

TEST(SameProcessSources, ExplainSaysWhichLogsWereReadAsOne) {
  TempDir dir;
  ingest_both(dir, 1337);
  auto db = store::open_store(dir.file("both_1337.db"), store::OpenMode::kRead);
  const report::ExplainListing listing;
  const report::ExplainModel model = report::build_explain(*db, "", listing);
  EXPECT_NE(report::render_explain_text(model, listing)
                .find("   one process, two logs: stderr_1337.log read with "
                      "dedicated_log_torch_trace_rank_1.log (pid 1337, 14 compile(s) with the same "
                      "id and function)\n"),
            std::string::npos);
}

}  // namespace same_process_sources_test
}  // namespace rcf
