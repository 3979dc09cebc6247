// `rcf query` (cli/query_command.cc, store/read_query.h; docs/usage.md): a view by its name or one
// read-only statement, as JSON or NDJSON, over a store holding the real run constant_counter
// (fixtures/real_runs/README.md: four recompiles of cause `constant`, steps 2..5).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace query_command_test {

using nlohmann::ordered_json;
using rcf::testing::run_rcf;
using rcf::testing::TempDir;

const std::string kRun = std::string(RCF_FIXTURES_DIR) + "/real_runs/constant_counter/run1";

class QueryCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = run_rcf({"ingest", "--db", db_, "--lane", "counter", "--run", "r1", kRun + "/logs",
                      kRun + "/stderr.log"});
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  TempDir tmp_;
  std::string db_ = tmp_.file("rcf.db");
};

TEST_F(QueryCommandTest, AViewByItsNameIsEveryRowWithTheColumnsInOrder) {
  auto r = run_rcf({"query", "--db", db_, "recompiles"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto rows = ordered_json::parse(r.out);
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 4u);
  std::vector<std::string> keys;
  for (const auto& [key, value] : rows[0].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"run_id", "lane", "run", "ordinal", "step", "site",
                                            "program_key", "prev_program_key", "cause", "detail",
                                            "confidence", "evidence"}));
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["step"], static_cast<int>(i) + 2);
    EXPECT_EQ(rows[i]["cause"], "constant");
    EXPECT_EQ(rows[i]["lane"], "counter");
  }
  // Names are matched as SQLite matches them, without regard to case.
  EXPECT_EQ(run_rcf({"query", "--db", db_, "RECOMPILES"}).out, r.out);
}

TEST_F(QueryCommandTest, OneSelectAsNdjson) {
  auto r = run_rcf({"query", "--db", db_, "--format", "ndjson",
                    "SELECT step, cause, 0.5 AS half, NULL AS none FROM recompiles "
                    "WHERE step >= 4 ORDER BY step; -- two rows"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"step\":4,\"cause\":\"constant\",\"half\":0.5,\"none\":null}\n"
            "{\"step\":5,\"cause\":\"constant\",\"half\":0.5,\"none\":null}\n");
  auto none = run_rcf({"query", "--db", db_, "SELECT * FROM recompiles WHERE 0"});
  EXPECT_EQ(none.rc, 0) << none.err;
  EXPECT_EQ(none.out, "[]\n");
}

TEST_F(QueryCommandTest, TextIsAsciiJsonWithEveryControlCharacterEscaped) {
  // ESC, DEL and a bidirectional override, as a log could carry them: JSON escapes that a
  // terminal shows as text, and that a JSON reader turns back into the same characters.
  auto r = run_rcf(
      {"query", "--db", db_, "SELECT char(27) || '[2J' || char(127) || char(8238) || 'é' AS t"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "[\n{\"t\":\"\\u001b[2J\\u007f\\u202e\\u00e9\"}\n]\n");
  EXPECT_EQ(ordered_json::parse(r.out)[0]["t"], "\x1b[2J\x7f\u202e\u00e9");
}

TEST_F(QueryCommandTest, RefusesWritesSeveralStatementsAndUnknownNames) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"DELETE FROM source", "only statements that read are run"},
      // A read-only connection may still write a copy elsewhere: refused before it runs.
      {"VACUUM INTO '" + tmp_.file("copy.db") + "'", "only statements that read are run"},
      {"SELECT 1; DELETE FROM source", "more than one SQL statement"},
      {"no_such_view",
       "the store has no view or table named 'no_such_view' (public views: compile_artifacts, "},
      {"SELECT FROM", "SQLite cannot prepare the statement"},
      {"  -- nothing", "no SQL statement given"},
  };
  for (const auto& [sql, message] : refused) {
    auto r = run_rcf({"query", "--db", db_, sql});
    EXPECT_EQ(r.rc, 2) << sql;
    EXPECT_EQ(r.out, "") << sql;
    EXPECT_NE(r.err.find("rcf: error: query: " + message), std::string::npos) << r.err;
  }
  auto sources = run_rcf({"query", "--db", db_, "SELECT count(*) AS n FROM source"});
  EXPECT_EQ(sources.out, "[\n{\"n\":2}\n]\n");
  EXPECT_FALSE(std::filesystem::exists(tmp_.file("copy.db")));
  auto missing = run_rcf({"query", "--db", tmp_.file("none.db"), "runs"});
  EXPECT_EQ(missing.rc, 2);
  EXPECT_FALSE(std::filesystem::exists(tmp_.file("none.db")));
}

}  // namespace query_command_test
}  // namespace rcf
