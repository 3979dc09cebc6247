// Compiles that no Dynamo frame made (AOT Inductor, torch.export: compilation_metrics with a null
// compile_id and no code object) are compiles, never recompiles (docs/aot_compiles.md). Unit
// rules on hand-made records, then the five AOT logs of tlparse's suite end to end.
#include <gtest/gtest.h>

#include <string>

#include "analysis/dynamo_attribution.h"
#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace aot_compile_test {

using testing::fixture_path;
using testing::ingest_logs;
using testing::read_store;
using testing::scalar;
using testing::TempDir;

// A compilation_metrics record without a compile id; texts are literals the record views.
analysis::CompileRecord idless(int64_t line, std::string_view co_name = "",
                               std::string_view co_filename = "") {
  analysis::CompileRecord r;
  r.key.source_id = 1;
  r.key.line_if_no_id = line;
  r.line = line;
  r.kind = "forward";
  r.co_name = co_name;
  r.co_filename = co_filename;
  return r;
}

TEST(AotCompile, FramelessCompilesAreFirstCompilesOfTheirOwn) {
  analysis::RunInputs in;
  in.source_names = {{1, "aot.log"}};
  in.compiles.push_back(idless(100));
  in.compiles.push_back(idless(900));
  auto out = analysis::attribute_dynamo_run(in);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& a : out) {
    EXPECT_EQ(a.cause, "first_compile");
    EXPECT_EQ(a.confidence, "high");
    EXPECT_EQ(a.site, "(no Dynamo frame: AOT / export compile)");
    EXPECT_NE(a.detail.find("no Dynamo frame"), std::string::npos) << a.detail;
    EXPECT_EQ(a.kind, "dynamo");
  }
  EXPECT_EQ(out[0].program_key, "aot@aot.log:100");
  EXPECT_EQ(out[1].program_key, "aot@aot.log:900");
  EXPECT_EQ(out[0].evidence, "compilation_metrics without a compile id at aot.log:100");
}

TEST(AotCompile, AnIdlessCompileOfANamedFrameIsStillJudgedAsBefore) {
  // 2023-era CompilationMetrics reprs print no compile id but name the code object: a Dynamo
  // frame's compile whose cause the logs do not give.
  analysis::RunInputs in;
  in.source_names = {{1, "old.log"}};
  analysis::CompileRecord r = idless(7, "forward", "model.py");
  r.co_firstlineno = 3;
  in.compiles.push_back(r);
  auto out = analysis::attribute_dynamo_run(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cause, "unknown");
  EXPECT_EQ(out[0].site, "model.py:3 (forward)");
}

class AotLogs : public ::testing::TestWithParam<const char*> {};

TEST_P(AotLogs, OneCompileAndNoRecompile) {
  TempDir dir;
  auto summary =
      ingest_logs(dir.file("rcf.db"), {fixture_path(std::string("torch_trace/") + GetParam())});
  ASSERT_EQ(summary.sources.size(), 1u);
  EXPECT_EQ(summary.sources[0].stats.format, "torch_trace");
  auto db = read_store(dir.file("rcf.db"));
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "1");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "0");
  EXPECT_EQ(scalar(*db, "SELECT site || ' ' || kind FROM compiles"),
            "(no Dynamo frame: AOT / export compile) dynamo");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM fix_first"), "0");
}

INSTANTIATE_TEST_SUITE_P(Tlparse, AotLogs,
                         ::testing::Values("inductor_provenance_aot_log.txt",
                                           "inductor_provenance_aot_log_old.txt",
                                           "inductor_provenance_aot_cuda_log.txt",
                                           "inductor_provenance_aot_debug_handle_log.txt",
                                           "inductor_provenance_extended_log.txt"),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                           std::string name = param_info.param;
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

TEST(AotCompile, AllFiveLogsInOneRunAreFiveCompilesAndNoRecompile) {
  TempDir dir;
  std::vector<std::string> logs;
  for (const char* f :
       {"inductor_provenance_aot_log.txt", "inductor_provenance_aot_log_old.txt",
        "inductor_provenance_aot_cuda_log.txt", "inductor_provenance_aot_debug_handle_log.txt",
        "inductor_provenance_extended_log.txt"})
    logs.push_back(fixture_path(std::string("torch_trace/") + f));
  ingest_logs(dir.file("rcf.db"), logs);
  auto db = read_store(dir.file("rcf.db"));
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "5");
  EXPECT_EQ(scalar(*db, "SELECT count(DISTINCT program_key) FROM compiles"), "5");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "0");
}

}  // namespace aot_compile_test
}  // namespace rcf
