// Inductor's reasons for not using CUDA graphs (docs/cudagraph_skips.md): the message parser, the
// Dynamo text importer on the constructed fixtures (fixtures/cudagraph/README.md), the TORCH_TRACE
// compilation_metrics field, the public view, and `rcf explain` end to end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/dynamo/inductor_cudagraph_skip.h"
#include "ingest/importer.h"
#include "pipeline/ingest_pipeline.h"
#include "report/explain.h"
#include "store/store.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace cudagraph_skip_test {

using ingest::CudagraphSkip;
using testing::ingest_logs;
using testing::query_csv;
using testing::read_file;
using testing::read_store;
using testing::scalar;
using testing::TempDir;

const std::string kDir = std::string(RCF_FIXTURES_DIR) + "/cudagraph/";

TEST(CudagraphSkipText, ReasonsOfEveryWording) {
  struct Case {
    const char* text;
    const char* kind;
    const char* reason;
  };
  const Case cases[] = {
      {"skipping cudagraphs due to mutated inputs (2 instances). Found from : ", "skipped",
       "mutated inputs (2 instances)"},
      {"skipping cudagraphs due to skipping cudagraphs due to cpu device (primals_88). Found from "
       ": ",
       "skipped", "cpu device (primals_88)"},
      {"skipping cudagraphs due to multiple devices: device(type='cuda', index=0), "
       "device(type='cuda', index=1)",
       "skipped", "multiple devices: device(type='cuda', index=0), device(type='cuda', index=1)"},
      {"skipping cudagraphs due to disabling cudagraphs due to incompatible op "
       "aten._local_scalar_dense.default",
       "skipped", "incompatible op aten._local_scalar_dense.default"},
      {"skipping cudagraphs due to ['mutated inputs']", "skipped", "mutated inputs"},
      {"skipping cudagraphs due to ['non-cuda device in graph', 'incompatible ops']", "skipped",
       "non-cuda device in graph; incompatible ops"},
      {"skipping cudagraph due to function 0 exceeding max re-recording limit (=0) on cudagraph "
       "node None due to static input data pointer changed.",
       "rerecord_limit",
       "function 0 exceeding max re-recording limit (=0) on cudagraph node None due to static "
       "input data pointer changed"},
      {"cudagraph partition due to DeviceCopy ops", "partitioned", "DeviceCopy ops"},
      {"cudagraph partition due to non gpu ops. Found from : ", "partitioned", "non gpu ops"},
  };
  for (const Case& c : cases) {
    std::optional<CudagraphSkip> skip = ingest::parse_cudagraph_skip_text(c.text);
    ASSERT_TRUE(skip) << c.text;
    EXPECT_EQ(skip->kind, c.kind) << c.text;
    EXPECT_EQ(skip->reason, c.reason) << c.text;
  }
  EXPECT_FALSE(ingest::parse_cudagraph_skip_text("cudagraph partition into 2 partitions"));
  EXPECT_FALSE(ingest::parse_cudagraph_skip_text("skipping cudagraphs due to "));
  EXPECT_FALSE(ingest::parse_cudagraph_skip_text("recording cudagraph tree for (8,)"));
  EXPECT_FALSE(ingest::parse_cudagraph_skip_text(""));
}

TEST(CudagraphSkipText, StackInOneText) {
  // compilation_metrics.cudagraph_skip_reason holds the whole message, stack included.
  auto skip = ingest::parse_cudagraph_skip_text(
      "skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
      "   File \"/w/train.py\", line 12, in outer\n    y = inner(x)\n"
      "  File \"/w/model.py\", line 7, in inner\n    x.add_(1)\n");
  ASSERT_TRUE(skip);
  EXPECT_EQ(skip->reason, "mutated inputs (1 instances)");
  ASSERT_EQ(skip->user_stack.size(), 2u);
  EXPECT_EQ(skip->user_stack[1].file, "/w/model.py");
  EXPECT_EQ(skip->user_stack[1].line, 7);
  EXPECT_EQ(skip->user_stack[1].function, "inner");
  EXPECT_EQ(skip->user_stack[1].code, "x.add_(1)");
}

testing::CollectingSink import_text_log(const std::string& path) {
  return testing::run_importer("dynamo_text", read_file(path));
}

TEST(CudagraphSkipImporter, GlogPerfHintsWithStacks) {
  const std::string path = kDir + "perf_hints_2025_constructed.log";
  EXPECT_EQ(ingest::sniff_importer(read_file(path))->name, "dynamo_text");
  testing::CollectingSink sink = import_text_log(path);
  std::vector<CudagraphSkip> skips = sink.all<CudagraphSkip>();
  ASSERT_EQ(skips.size(), 6u);
  EXPECT_EQ(skips[0].line, 2);
  EXPECT_EQ(skips[0].ref.id.text(), "0/0");
  EXPECT_EQ(skips[0].kind, "skipped");
  EXPECT_EQ(skips[0].reason, "mutated inputs (1 instances)");
  EXPECT_EQ(skips[0].origin, "text_perf_hints");
  ASSERT_EQ(skips[0].user_stack.size(), 1u);
  EXPECT_EQ(skips[0].user_stack[0].file, "/home/dev/proj/train.py");
  EXPECT_EQ(skips[0].user_stack[0].line, 41);
  EXPECT_EQ(skips[0].user_stack[0].code, "self.step_count.add_(1)");
  EXPECT_EQ(skips[1].ref.id.text(), "0/1");
  EXPECT_EQ(skips[2].kind, "partitioned");
  EXPECT_EQ(skips[2].reason, "non gpu ops");
  EXPECT_EQ(skips[2].ref.id.text(), "1/0");
  EXPECT_EQ(skips[2].user_stack.at(0).line, 88);
  EXPECT_EQ(skips[3].reason, "cpu device (arg3_1)");
  EXPECT_EQ(skips[4].reason, "incompatible op aten._local_scalar_dense.default");
  EXPECT_TRUE(skips[4].user_stack.empty());
  EXPECT_EQ(skips[5].kind, "rerecord_limit");
  EXPECT_FALSE(skips[5].ref.id.known());
  // The partition summary is a named skipped line; nothing is rejected or cut off.
  bool summary = false;
  for (const auto& n : sink.notes) {
    EXPECT_NE(n.fate, ingest::LineFate::kRejected) << n.reason;
    EXPECT_NE(n.reason, "truncated_block");
    if (n.reason == "cudagraph_partition_summary") summary = n.line == 19;
  }
  EXPECT_TRUE(summary);
}

TEST(CudagraphSkipImporter, ListFormOf2023) {
  testing::CollectingSink sink = import_text_log(kDir + "perf_hints_2023_constructed.log");
  std::vector<CudagraphSkip> skips = sink.all<CudagraphSkip>();
  ASSERT_EQ(skips.size(), 2u);
  EXPECT_EQ(skips[0].reason, "mutated inputs");
  EXPECT_EQ(skips[1].reason, "non-cuda device in graph; incompatible ops");
  EXPECT_FALSE(skips[1].ref.id.known());
}

TEST(CudagraphSkipImporter, TorchTraceCompilationMetricsField) {
  TempDir dir;
  const std::string log = dir.file("trace.log");
  testing::write_file(
      log,
      "V1126 10:00:00.000000 1 torch/_dynamo/utils.py:1] {\"compilation_metrics\": "
      "{\"compile_id\": \"0/0\", \"co_name\": \"f\", \"co_filename\": \"/w/f.py\", "
      "\"co_firstlineno\": 3, \"cudagraph_skip_reason\": \"skipping cudagraphs due to mutated "
      "inputs (1 instances). Found from : \\n   File \\\"/w/f.py\\\", line 5, in f\\n    "
      "x.add_(1)\\n\"}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n"
      "V1126 10:00:01.000000 1 torch/_dynamo/utils.py:1] {\"compilation_metrics\": "
      "{\"compile_id\": \"1/0\", \"co_name\": \"g\", \"co_filename\": \"/w/f.py\", "
      "\"co_firstlineno\": 9, \"cudagraph_skip_reason\": null}, \"frame_id\": 1, "
      "\"frame_compile_id\": 0, \"attempt\": 0}\n");
  ingest_logs(dir.file("rcf.db"), {log});
  auto db = read_store(dir.file("rcf.db"));
  EXPECT_EQ(query_csv(*db,
                      "SELECT program_key, site, kind, reason, user_file, user_line, "
                      "user_function, origin FROM cudagraph_skips"),
            "program_key,site,kind,reason,user_file,user_line,user_function,origin\n"
            "0/0,/w/f.py:3 (f),skipped,mutated inputs (1 instances),/w/f.py,5,f,"
            "trace_compilation_metrics\n");
}

class CudagraphSkipEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    auto summary = ingest_logs(db_path_, {kDir + "perf_hints_2025_constructed.log"});
    ASSERT_EQ(summary.rejected, 0);
  }
  TempDir dir_;
  std::string db_path_ = dir_.file("rcf.db");
};

TEST_F(CudagraphSkipEndToEnd, ViewLinksTheirCompiles) {
  auto db = store::open_store(db_path_, store::OpenMode::kRead);
  EXPECT_EQ(query_csv(*db,
                      "SELECT line, frame_id, frame_compile_id, program_key, kind, reason, "
                      "user_file, user_line FROM cudagraph_skips ORDER BY line"),
            "line,frame_id,frame_compile_id,program_key,kind,reason,user_file,user_line\n"
            "2,0,0,0/0,skipped,mutated inputs (1 instances),/home/dev/proj/train.py,41\n"
            "11,0,1,0/1,skipped,mutated inputs (1 instances),/home/dev/proj/train.py,41\n"
            "15,1,0,,partitioned,non gpu ops,/home/dev/proj/model.py,88\n"
            "20,2,0,,skipped,cpu device (arg3_1),/home/dev/proj/model.py,120\n"
            "24,3,0,,skipped,incompatible op aten._local_scalar_dense.default,,\n"
            "26,-1,-1,,rerecord_limit,function 0 exceeding max re-recording limit (=8) on "
            "cudagraph node None due to static input data pointer changed,,\n");
  EXPECT_EQ(scalar(*db, "SELECT site FROM cudagraph_skips WHERE line = 11"),
            "/home/dev/proj/train.py:37 (train_step)");
}

TEST_F(CudagraphSkipEndToEnd, ExplainTextAndJsonSayWhy) {
  testing::RcfRun r = testing::run_rcf({"explain", "--db", db_path_});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("CUDA graphs not used"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1x skipped at 0/1: mutated inputs (1 instances)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("from /home/dev/proj/train.py:41 (train_step); site "
                       "/home/dev/proj/train.py:37 (train_step); evidence: "
                       "perf_hints_2025_constructed.log:11"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("partitioned at 1/0: non gpu ops"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rerecord_limit: function 0 exceeding max re-recording limit"),
            std::string::npos)
      << r.out;

  r = testing::run_rcf({"explain", "--db", db_path_, "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& skips = doc["runs"][0]["cudagraph_skips"];
  ASSERT_EQ(skips.size(), 6u);
  EXPECT_EQ(doc["runs"][0]["cudagraph_skips_not_listed"], 0);
  bool cpu = false;
  for (const auto& k : skips)
    if (k["reason"] == "cpu device (arg3_1)")
      cpu = k["program_key"] == "2/0" && k["user_location"] == "/home/dev/proj/model.py:120 (pool)";
  EXPECT_TRUE(cpu) << skips.dump(2);
}

TEST_F(CudagraphSkipEndToEnd, ReportsShowThem) {
  for (const char* format : {"html", "md", "json"}) {
    const std::string out = dir_.file(std::string("report.") + format);
    testing::RcfRun r =
        testing::run_rcf({"report", "--db", db_path_, "--format", format, "-o", out});
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::string text = read_file(out);
    EXPECT_NE(text.find("cpu device (arg3_1)"), std::string::npos) << format;
    EXPECT_NE(text.find("non gpu ops"), std::string::npos) << format;
    if (std::string(format) != "json") {
      EXPECT_NE(text.find("CUDA graphs not used"), std::string::npos) << format;
    }
  }
}

}  // namespace cudagraph_skip_test
}  // namespace rcf
