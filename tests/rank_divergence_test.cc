// Rank divergence (docs/rank_divergence.md) on the multi-rank logs of tlparse's test suite
// (fixtures/torch_trace/*/README.md say what tlparse reports on each): rcf must find the same
// divergences, with their cause, and none between identical ranks.
//
// Regenerate the golden files after an intended change:
//   RCF_UPDATE_GOLDEN=1 ./rcf_tests --gtest_filter='RankDivergence*Golden*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/torch_trace/inductor_graph_facts.h"
#include "pipeline/ingest_pipeline.h"
#include "report/explain.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_model.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace rank_divergence_test {

using testing::column;
using testing::query_csv;
using testing::read_file;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kTrace = std::string(RCF_FIXTURES_DIR) + "/torch_trace/";

std::vector<std::string> logs(const std::string& folder, const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const std::string& name : names)
    paths.push_back(kTrace + folder + "/dedicated_log_torch_trace_rank_" + name + ".log");
  return paths;
}

class RankDivergenceTest : public ::testing::Test {
 protected:
  // Ingests `paths` as one run and returns the rank_divergence view as text.
  std::string divergence(const std::vector<std::string>& paths) {
    const std::string db_path = tmp_.file("rcf" + std::to_string(++stores_) + ".db");
    testing::ingest_logs(db_path, paths);
    db_ = testing::read_store(db_path);
    return query_csv(*db_,
                     "SELECT * FROM rank_divergence ORDER BY run_id, kind, first_index, "
                     "rank_groups, detail");
  }
  std::vector<std::string> groups(const std::string& kind) {
    return column(*db_, "SELECT rank_groups FROM rank_divergence WHERE kind = '" + kind +
                            "' ORDER BY first_index, detail");
  }
  std::string details(const std::string& kind) {
    std::string all;
    for (const std::string& d :
         column(*db_, "SELECT detail FROM rank_divergence WHERE kind = '" + kind + "'"))
      all += d + "\n";
    return all;
  }
  void check_golden(const std::string& name, const std::string& actual) {
    const std::string path = std::string(RCF_GOLDEN_DIR) + "/" + name;
    const char* update = std::getenv("RCF_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") return write_file(path, actual);
    ASSERT_TRUE(std::filesystem::exists(path)) << path << ": generate with RCF_UPDATE_GOLDEN=1";
    EXPECT_EQ(read_file(path), actual) << "golden file " << path << " differs";
  }

  TempDir tmp_;
  int stores_ = 0;
  std::unique_ptr<store::Database> db_;
};

// tlparse: "Diverging Compilation IDs detected", "Diverging Cache hit/miss patterns detected".
TEST_F(RankDivergenceTest, GoldenMultiRankLogs) {
  std::vector<std::string> paths = logs("multi_rank_logs", {"0", "1", "3"});
  paths.push_back(logs("multi_rank_logs_rest", {"2"})[0]);
  check_golden("rank_divergence_multi_rank_logs.txt", divergence(paths));
  // Ranks 0 and 2 compiled 0/0 only (and it failed), rank 1 0/0..0/14, rank 3 0/0..0/6.
  EXPECT_EQ(groups("compile_ids"), std::vector<std::string>{"0,2 | 1 | 3"});
  EXPECT_NE(details("compile_ids").find("BackendCompilerFailed"), std::string::npos);
  EXPECT_NE(details("compile_ids").find("First difference: 0/1, compiled by ranks 1,3 only"),
            std::string::npos);
  // On 0/0, the compile all made, ranks 1 and 3 hit the cache and 0, 2 failed before it.
  EXPECT_EQ(groups("cache"), std::vector<std::string>{"0,2 | 1,3"});
  // Rank 1 went on recompiling kernel() after rank 3 stopped: the first such recompile is 0/7.
  EXPECT_EQ(groups("recompiles"), std::vector<std::string>{"1 | 3"});
  EXPECT_NE(details("recompiles").find("then 0/7"), std::string::npos);
}

// tlparse: "Diverging collective operation sequences", "Ranks: 0, 2" and "Ranks: 1".
TEST_F(RankDivergenceTest, GoldenMultiRankSchedule) {
  check_golden("rank_divergence_multi_rank_schedule.txt",
               divergence(logs("multi_rank_schedule", {"0_6u3fubwl", "1_n8zycf07", "2"})));
  EXPECT_EQ(groups("collectives").front(), "0,2 | 1");
  EXPECT_NE(details("collectives").find("graph 0/0: ranks 0,2 6 collectives; rank 1 4"),
            std::string::npos);
  EXPECT_EQ(scalar(*db_, "SELECT count(*) FROM rank_divergence WHERE kind = 'compile_ids'"), "0");
}

// tlparse: "Ranks exhibit divergent inductor tensor meta", "Ranks: 5, 6".
TEST_F(RankDivergenceTest, GoldenMultiRankRuntime) {
  std::vector<std::string> paths = logs("multi_rank_runtime", {"0", "5"});
  for (const std::string& p : logs("multi_rank_runtime_rest", {"1", "2", "3", "4", "6"}))
    paths.push_back(p);
  check_golden("rank_divergence_multi_rank_runtime.txt", divergence(paths));
  // Graph 0/1: ranks 5 and 6 differ from 0-4 at op 1; graph 0/0: rank 4 logged no tensor
  // metadata, ranks 5 and 6 log outputs for wait_tensor where 0-3 log none (tlparse's groups).
  EXPECT_EQ(groups("tensor_meta"),
            (std::vector<std::string>{"0,1,2,3,4 | 5,6", "0,1,2,3 | 4 | 5,6"}));
  EXPECT_NE(details("tensor_meta").find("rank 4 logged no tensor metadata"), std::string::npos);
  EXPECT_EQ(groups("compile_ids"), std::vector<std::string>{"0,1,2,3,4 | 5,6"});
}

// tlparse: "Graph execution order differs across ranks"; the cache sequence is consistent.
TEST_F(RankDivergenceTest, GoldenGraphExecOrder) {
  check_golden("rank_divergence_graph_exec_order_tests.txt",
               divergence(logs("graph_exec_order_tests", {"0_a74od7a1", "1_fglwclht"})));
  EXPECT_EQ(groups("execution_order"), std::vector<std::string>{"0 | 1"});
  EXPECT_NE(details("execution_order").find("rank 0 ran 0/1; rank 1 ran 0/0"), std::string::npos);
  EXPECT_EQ(scalar(*db_, "SELECT count(*) FROM rank_divergence WHERE kind = 'cache'"), "0");
}

// tlparse: graph -_0_0_0 misses 1 wait, -_0_1_0 misses 3.
TEST_F(RankDivergenceTest, GoldenCollectivesParity) {
  check_golden("rank_divergence_collectives_parity.txt",
               divergence(logs("collectives_parity", {"0"})));
  const std::string text = details("collectives");
  EXPECT_NE(text.find("graph 0/0: rank 0: the generated code makes 1 of the 2 scheduled "
                      "collective calls (missing: 1 wait_tensor.default)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("graph 0/1: rank 0: the generated code makes 3 of the 6 scheduled "
                      "collective calls (missing: 3 wait_tensor.default)"),
            std::string::npos)
      << text;
  EXPECT_EQ(groups("collectives").size(), 2u);  // graphs 0/2 and 0/3 make every call
}

// Byte-identical logs of two ranks are two ranks that did the same thing: no divergence (as
// tlparse's test_no_compile_id_divergence / test_no_cache_event_divergence /
// test_collective_schedule_no_divergence).
TEST_F(RankDivergenceTest, IdenticalRanksDoNotDiverge) {
  for (const std::string& log :
       {std::string("simple.log"), std::string("cache_hit_miss.log"),
        std::string("multi_rank_schedule/dedicated_log_torch_trace_rank_2.log")}) {
    SCOPED_TRACE(log);
    TempDir in;
    const std::string content = read_file(kTrace + log);
    std::vector<std::string> paths;
    for (const char* rank : {"0", "1"}) {
      paths.push_back(in.file(std::string("dedicated_log_torch_trace_rank_") + rank + ".log"));
      write_file(paths.back(), content);
    }
    EXPECT_EQ(divergence(paths), "run_id,lane,run,kind,rank_groups,first_index,detail\n");
    EXPECT_EQ(scalar(*db_, "SELECT count(*) FROM source"), "2");  // both ranks were read
    EXPECT_NE(scalar(*db_, "SELECT count(*) FROM compiles"), "0");
  }
}

// rcf explain (text and JSON), the Markdown and the HTML report show the rows, log text
// sanitised; a run whose ranks agree shows no such section.
TEST_F(RankDivergenceTest, ExplainAndReportsShowWhereRanksDiverge) {
  divergence(logs("multi_rank_schedule", {"0_6u3fubwl", "1_n8zycf07", "2"}));
  const report::ExplainModel model = report::build_explain(*db_, "");
  ASSERT_EQ(model.runs.size(), 1u);
  ASSERT_EQ(model.runs[0].rank_divergence.size(), 2u);
  const std::string text = report::render_explain_text(model);
  EXPECT_NE(text.find("Ranks diverge"), std::string::npos) << text;
  EXPECT_NE(text.find("collectives [0,2 | 1] first difference at 3"), std::string::npos) << text;
  const nlohmann::json json = nlohmann::json::parse(report::render_explain_json(model));
  const nlohmann::json& rows = json["runs"][0]["rank_divergence"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["kind"], "collectives");
  EXPECT_EQ(rows[0]["rank_groups"], "0,2 | 1");
  EXPECT_EQ(rows[0]["first_index"], 3);
  const report::ReportModel reports = report::build_report(*db_, "");
  const std::string markdown = report::render_report_markdown(reports);
  EXPECT_NE(markdown.find("### Ranks diverge (run `default`)"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| collectives | 0,2 \\| 1 | 3 |"), std::string::npos) << markdown;
  const std::string html = report::render_report_html(reports);
  EXPECT_NE(html.find("<h3>Ranks diverge</h3>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"key\">0,2 | 1</td>"), std::string::npos);

  divergence(logs("multi_rank_schedule", {"0_6u3fubwl", "2"}));  // identical ranks
  const report::ExplainModel agreeing = report::build_explain(*db_, "");
  EXPECT_EQ(report::render_explain_text(agreeing).find("Ranks diverge"), std::string::npos);
  EXPECT_EQ(report::render_report_markdown(report::build_report(*db_, "")).find("Ranks diverge"),
            std::string::npos);
}

TEST(InductorGraphFacts, CodeCollectivesAreTheCallsTheCodeMakes) {
  const std::string code =
      "    # Topologically Sorted Source Nodes: [h_3], Original ATen: [_c10d_functional.wait]\n"
      "    torch.ops._c10d_functional.all_reduce_.default(buf4, 'sum', '0')\n"
      "    #torch.ops._c10d_functional.wait_tensor.default(buf4)\n"
      "    buf11 = torch.ops._c10d_functional.all_gather_into_tensor.default(buf10, 2, '0')\n"
      "    assert_size_stride(buf11, (2048, 1024), (1024, 1), "
      "'torch.ops._c10d_functional.all_gather_into_tensor.default')\n"
      "    torch.ops._c10d_functional.wait_tensor.default(buf11)";
  EXPECT_EQ(ingest::code_collective_items(code),
            (std::vector<std::string>{"torch.ops._c10d_functional.all_reduce_.default",
                                      "torch.ops._c10d_functional.all_gather_into_tensor.default",
                                      "torch.ops._c10d_functional.wait_tensor.default"}));
  EXPECT_EQ(ingest::code_collective_items("def call(args):\n    return buf0"), std::nullopt);
}

TEST(InductorGraphFacts, MalformedPayloadsAreNotFacts) {
  EXPECT_EQ(ingest::collective_schedule_items("[\"a\", "), std::nullopt);
  EXPECT_EQ(ingest::tensor_meta_items("{\"ops\": 3}"), std::nullopt);
  EXPECT_EQ(ingest::execution_order_items("[]"), std::nullopt);
  EXPECT_EQ(ingest::tensor_meta_items(
                "{\"ops\": [{\"name\": \"mm\", \"outputs\": [{\"shape\": [2, 3], \"stride\": [3, "
                "1], \"dtype\": \"float16\"}], \"estimated_runtime_ns\": 5.0}]}"),
            std::vector<std::string>{"mm -> float16[2, 3] stride [3, 1]"});
}

}  // namespace rank_divergence_test
}  // namespace rcf
