// PT_XLA_DEBUG Execution blocks are stored as counts per step segment (xla_execution_group,
// xla_execution), not one row each: every block is still counted, the segments follow the step
// boundaries, compile blocks know the boundaries before them, and none of it depends on the read
// buffer size or on gzip.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "tests/support/xla_log_generator.h"

namespace rcf {
namespace xla_execution_counts_test {

using testing::query_csv;
using testing::scalar;
using testing::TempDir;

constexpr const char* kSegments =
    "SELECT e.markers_before, e.step_ends_before, e.first_line, e.last_line, e.executions, "
    "g.kind, g.cause_class, g.graph_hash FROM xla_execution e JOIN xla_execution_group g ON "
    "g.group_id = e.group_id ORDER BY e.source_id, e.first_line";

std::unique_ptr<store::Database> ingest(const TempDir& dir, const std::vector<std::string>& paths,
                                        size_t buffer = size_t{4} << 20) {
  pipeline::IngestRequest req;
  req.db_path = dir.file("rcf.db");
  req.paths = paths;
  req.buffer_size = buffer;
  pipeline::run_ingest(req);
  return store::open_store(req.db_path, store::OpenMode::kRead);
}

int64_t count_lines(const std::string& text, const std::string& line) {
  int64_t n = 0;
  for (size_t at = text.find(line + "\n"); at != std::string::npos;
       at = text.find(line + "\n", at + 1))
    n += at == 0 || text[at - 1] == '\n';
  return n;
}

// fixtures/xla_bundle/pt_xla_debug.log (no steplog markers): seven Execution blocks, each step
// ending with a `user mark_step` one; from step 2 on a `.item()` fragment runs before the sync.
TEST(XlaExecutionCounts, BundleLogIsSegmentedAtEachStepEnd) {
  TempDir dir;
  std::string log = std::string(RCF_FIXTURES_DIR) + "/xla_bundle/pt_xla_debug.log";
  auto db = ingest(dir, {log});
  EXPECT_EQ(
      scalar(*db, "SELECT sum(executions) FROM xla_execution"),
      std::to_string(count_lines(testing::read_file(log), "Execution Analysis: Execution Cause")));
  EXPECT_EQ(query_csv(*db, kSegments),
            "markers_before,step_ends_before,first_line,last_line,executions,kind,cause_class,"
            "graph_hash\n"
            "0,0,16,16,1,execute,step_end,5f0c1b2e3d4a69788796a5b4c3d2e1f0\n"
            "0,1,43,43,1,execute,tensor_value_access,1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6\n"
            "0,1,69,69,1,execute,step_end,9a8b7c6d5e4f30211203f4e5d6c7b8a9\n"
            "0,2,83,83,1,execute,tensor_value_access,1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6\n"
            "0,2,96,96,1,execute,step_end,9a8b7c6d5e4f30211203f4e5d6c7b8a9\n"
            "0,3,110,110,1,execute,tensor_value_access,1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6\n"
            "0,3,123,123,1,execute,step_end,9a8b7c6d5e4f30211203f4e5d6c7b8a9\n");
  // Three distinct blocks, each stored once with its frames.
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM xla_execution_group WHERE frames_sid IS NOT NULL"),
            "3");
  EXPECT_EQ(query_csv(*db,
                      "SELECT line, markers_before, step_ends_before FROM xla_block ORDER "
                      "BY line"),
            "line,markers_before,step_ends_before\n3,0,0\n30,0,1\n56,0,1\n");
  EXPECT_EQ(query_csv(*db, "SELECT ordinal, step FROM compiles ORDER BY ordinal"),
            "ordinal,step\n1,1\n2,2\n3,2\n");
}

// A generated level-2 log (XLA_EMIT_STEPLOG markers after every step end, `.item()` fragments,
// recompiles) read with buffers from 64 bytes to 4 MiB and gzip-compressed.
TEST(XlaExecutionCounts, GeneratedLogCountsEveryExecutionWhateverTheBuffer) {
  testing::XlaLogStats stats;
  std::string text = testing::make_pt_xla_debug_log(size_t{3} << 20, 11, &stats);
  TempDir dir;
  std::string plain = dir.file("debug.log"), gz = dir.file("debug.log.gz");
  testing::write_file(plain, text);
  testing::write_file(gz, testing::gzip_compress(text));

  std::string reference;
  struct Case {
    std::string path;
    size_t buffer;
  };
  for (const Case& c :
       {Case{plain, size_t{4} << 20}, Case{plain, 64}, Case{plain, 4096}, Case{gz, 4096}}) {
    SCOPED_TRACE(c.path + " buffer " + std::to_string(c.buffer));
    TempDir out;
    auto db = ingest(out, {c.path}, c.buffer);
    EXPECT_EQ(scalar(*db, "SELECT sum(executions) FROM xla_execution"),
              std::to_string(stats.execute_blocks));
    // One step end per generated step, in its own segment, right after that step's marker.
    EXPECT_EQ(scalar(*db,
                     "SELECT sum(e.executions) FROM xla_execution e JOIN "
                     "xla_execution_group g ON g.group_id = e.group_id WHERE "
                     "g.cause_class = 'step_end'"),
              std::to_string(stats.step_markers));
    EXPECT_EQ(scalar(*db,
                     "SELECT count(*) FROM xla_execution e JOIN xla_execution_group g ON "
                     "g.group_id = e.group_id WHERE g.cause_class = 'step_end' AND "
                     "(e.executions != 1 OR e.markers_before != e.step_ends_before)"),
              "0");
    EXPECT_EQ(scalar(*db, "SELECT count(DISTINCT step_ends_before) FROM xla_execution"),
              std::to_string(stats.step_markers));
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM xla_block"), std::to_string(stats.compile_blocks));
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM xla_execution_group"), "5");
    // Steps of the convergence curve: every marker.
    EXPECT_EQ(scalar(*db, "SELECT max(step) FROM convergence"), std::to_string(stats.step_markers));
    std::string got = query_csv(*db, kSegments) +
                      query_csv(*db,
                                "SELECT line, markers_before, step_ends_before FROM xla_block "
                                "ORDER BY line") +
                      query_csv(*db,
                                "SELECT ordinal, step, program_key FROM compiles ORDER BY "
                                "ordinal");
    if (reference.empty())
      reference = got;
    else
      EXPECT_EQ(got, reference);
  }
}

}  // namespace xla_execution_counts_test
}  // namespace rcf
