// `rcf export` end to end (store/export_views.h, docs/export.md): a store of three realistic
// lanes (torch_xla scenario, Dynamo text log, multi-rank TORCH_TRACE) exported, then every view's
// rows over its partitions against the SQLite view, one row's values, the partition directory
// names, the refusals, CSV quoting, and DuckDB reading the dataset (tests/duckdb).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace export_test {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RcfRun;
using testing::run_rcf;
using testing::TempDir;

const std::string kFixtures = RCF_FIXTURES_DIR;
// A lane whose name holds the characters Hive escapes in a directory name.
const std::string kOddLane = "dynamo/lane=1%";

using testing::scenario_files;

void ingest(const std::string& db, const std::string& lane, const std::string& run,
            const std::vector<std::string>& paths) {
  std::vector<std::string> args = {"ingest", "--db", db, "--lane", lane, "--run", run};
  args.insert(args.end(), paths.begin(), paths.end());
  RcfRun r = run_rcf(args);
  ASSERT_EQ(r.rc, 0) << r.err;
}

std::string gunzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr) << path;
  if (file == nullptr) return "";
  std::string out;
  std::array<char, 65536> buffer;
  int n = 0;
  while ((n = gzread(file, buffer.data(), buffer.size())) > 0) out.append(buffer.data(), n);
  EXPECT_EQ(n, 0) << path;
  gzclose(file);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Part files under `dir`, sorted, as paths relative to it.
std::vector<std::string> part_files(const fs::path& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> view_names(store::Database& db) {
  return testing::column(db, "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name");
}

int64_t view_count(store::Database& db, const std::string& view) {
  return std::stoll(testing::scalar(db, "SELECT count(*) FROM \"" + view + "\""));
}

// One store and one NDJSON export of it for the suite.
class ExportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = dir_->file("rcf.db");
    ingest(db_, "xla-counter", "r1", scenario_files("constant_counter"));
    ingest(db_, kOddLane, "cold 1", {kFixtures + "/scenarios/dynamo_lane/train.log"});
    ingest(db_, "trace", "ranks", {kFixtures + "/torch_trace/multi_rank_logs"});
    out_ = dir_->file("export");
    export_run_ = new RcfRun(run_rcf({"export", "--db", db_, "--out", out_}));
  }
  static void TearDownTestSuite() {
    delete export_run_;
    delete dir_;
  }
  void SetUp() override { ASSERT_EQ(export_run_->rc, 0) << export_run_->err; }

  static TempDir* dir_;
  static std::string db_;
  static std::string out_;
  static RcfRun* export_run_;
};
TempDir* ExportTest::dir_ = nullptr;
std::string ExportTest::db_;
std::string ExportTest::out_;
RcfRun* ExportTest::export_run_ = nullptr;

TEST_F(ExportTest, EveryViewsRowsOverItsPartitionsEqualTheSqliteView) {
  auto db = store::open_store(db_, store::OpenMode::kRead);
  json schema = json::parse(testing::read_file(out_ + "/schema.json"));
  std::map<std::string, json> schema_views;
  for (const auto& v : schema["views"]) schema_views[v["name"]] = v;
  const auto views = view_names(*db);
  ASSERT_GE(views.size(), 14u);
  EXPECT_EQ(schema_views.size(), views.size());
  int64_t rows_in_all = 0;
  for (const auto& view : views) {
    SCOPED_TRACE(view);
    int64_t rows = 0;
    const fs::path view_dir = out_ + "/view=" + view;
    for (const auto& file : part_files(view_dir)) {
      ASSERT_TRUE(file.ends_with(".ndjson.gz")) << file;
      for (const auto& line : lines_of(gunzip((view_dir / file).string()))) {
        json row = json::parse(line);
        ASSERT_TRUE(row.is_object());
        EXPECT_FALSE(row.contains("lane") && row.contains("run")) << line;
        ++rows;
      }
    }
    EXPECT_EQ(rows, view_count(*db, view));
    EXPECT_EQ(schema_views[view]["rows"], rows);
    rows_in_all += rows;
  }
  EXPECT_GT(rows_in_all, 100);
  EXPECT_NE(export_run_->out.find("exported " + std::to_string(views.size()) + " views"),
            std::string::npos)
      << export_run_->out;
}

TEST_F(ExportTest, PartitionsAreHiveDirectoriesWithEscapedValues) {
  EXPECT_EQ(part_files(out_ + "/view=ingest_stats"), std::vector<std::string>{"part-0.ndjson.gz"});
  EXPECT_EQ(part_files(out_ + "/view=runs"),
            (std::vector<std::string>{"lane=dynamo%2Flane%3D1%25/run=cold 1/part-0.ndjson.gz",
                                      "lane=trace/run=ranks/part-0.ndjson.gz",
                                      "lane=xla-counter/run=r1/part-0.ndjson.gz"}));
  json schema = json::parse(testing::read_file(out_ + "/schema.json"));
  for (const auto& v : schema["views"]) {
    if (v["name"] == "compiles") {
      EXPECT_EQ(v["partition_keys"], json::array({"lane", "run"}));
      EXPECT_EQ(v["partitions"], 3);
      EXPECT_EQ(v["columns"][0]["name"], "run_id");
      EXPECT_EQ(v["columns"][0]["sqlite_type"], "INTEGER");
      EXPECT_EQ(v["columns"][0]["json_type"], "integer");
      EXPECT_EQ(v["columns"][1]["name"], "lane");
      EXPECT_EQ(v["columns"][1]["partition_key"], true);
    }
    if (v["name"] == "ingest_stats") {
      EXPECT_EQ(v["partition_keys"], json::array());
    }
  }
  EXPECT_NE(testing::read_file(out_ + "/README.md").find("view=NAME/lane=L/run=R"),
            std::string::npos);
}

// Two exports of one store are byte-identical: fixed row order, gzip headers without a time.
TEST_F(ExportTest, TwoExportsOfOneStoreAreByteIdentical) {
  TempDir dir;
  RcfRun again = run_rcf({"export", "--db", db_, "--out", dir.file("again")});
  ASSERT_EQ(again.rc, 0) << again.err;
  const auto files = part_files(out_);
  ASSERT_EQ(part_files(dir.file("again")), files);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    EXPECT_EQ(testing::read_file(dir.file("again/" + file)), testing::read_file(out_ + "/" + file));
  }
}

// The first compile of the torch_xla lane, column by column against the SQLite view.
TEST_F(ExportTest, OneRowHoldsTheViewsValues) {
  auto db = store::open_store(db_, store::OpenMode::kRead);
  auto stmt = db->prepare(
      "SELECT * FROM compiles WHERE lane = 'xla-counter' AND run = 'r1' ORDER BY 1, 2, 3, 4, 5, "
      "6, 7, 8, 9, 10, 11 LIMIT 1");
  ASSERT_TRUE(stmt.step());
  const std::string text = gunzip(out_ + "/view=compiles/lane=xla-counter/run=r1/part-0.ndjson.gz");
  json row = json::parse(lines_of(text).at(0));
  EXPECT_EQ(row.size(), static_cast<size_t>(stmt.column_count() - 2));
  for (int i = 0; i < stmt.column_count(); ++i) {
    const std::string name = stmt.column_name(i);
    SCOPED_TRACE(name);
    if (name == "lane" || name == "run") {
      EXPECT_FALSE(row.contains(name));
    } else if (stmt.is_null(i)) {
      EXPECT_TRUE(row.at(name).is_null());
    } else if (stmt.value_type(i) == SQLITE_INTEGER) {
      EXPECT_EQ(row.at(name).get<int64_t>(), stmt.int64(i));
    } else if (stmt.value_type(i) == SQLITE_FLOAT) {
      EXPECT_DOUBLE_EQ(row.at(name).get<double>(), stmt.real(i));
    } else {
      EXPECT_EQ(row.at(name).get<std::string>(), stmt.str(i));
    }
  }
  EXPECT_EQ(row.at("site").get<std::string>().empty(), false);
}

TEST_F(ExportTest, RefusesAnOutThatHoldsSomethingAndLeavesItAsItWas) {
  TempDir dir;
  // A directory with a file in it.
  fs::create_directories(dir.file("full"));
  testing::write_file(dir.file("full/keep.txt"), "keep");
  RcfRun full = run_rcf({"export", "--db", db_, "--out", dir.file("full")});
  EXPECT_EQ(full.rc, 2);
  EXPECT_NE(full.err.find("exists and is not empty"), std::string::npos) << full.err;
  EXPECT_EQ(testing::read_file(dir.file("full/keep.txt")), "keep");
  // The store itself.
  const std::string store_bytes = testing::read_file(db_);
  RcfRun over_store = run_rcf({"export", "--db", db_, "--out", db_});
  EXPECT_EQ(over_store.rc, 2);
  EXPECT_NE(over_store.err.find("is not a directory"), std::string::npos) << over_store.err;
  EXPECT_EQ(testing::read_file(db_), store_bytes);
  // A parent that does not exist, and a format rcf does not write.
  RcfRun no_parent = run_rcf({"export", "--db", db_, "--out", dir.file("missing/out")});
  EXPECT_EQ(no_parent.rc, 2);
  EXPECT_NE(no_parent.err.find("does not exist"), std::string::npos) << no_parent.err;
  RcfRun bad_format =
      run_rcf({"export", "--db", db_, "--out", dir.file("x"), "--format", "parquet"});
  EXPECT_EQ(bad_format.rc, 2);
  // Nothing was left behind: no temporary sibling, no partial dataset.
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.path()))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, std::vector<std::string>{"full"});
  // An empty directory is taken.
  fs::create_directories(dir.file("empty"));
  RcfRun empty = run_rcf({"export", "--db", db_, "--out", dir.file("empty")});
  EXPECT_EQ(empty.rc, 0) << empty.err;
  EXPECT_TRUE(fs::exists(dir.file("empty/schema.json")));
}

// RFC 4180 CSV: one record, fields split at commas outside quotes, quotes doubled.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        records.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        records.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      records.emplace_back(1);
      ++i;
    } else {
      records.back().back() += c;
    }
  }
  if (records.back().size() == 1 && records.back()[0].empty()) records.pop_back();
  return records;
}

TEST(ExportCsvTest, QuotesATextWithACommaAndAQuoteAndEscapesANewline) {
  TempDir dir;
  const std::string odd_path = dir.file("train, \"odd\"\nname.log");
  testing::write_file(odd_path, testing::read_file(kFixtures + "/scenarios/dynamo_lane/train.log"));
  const std::string db = dir.file("rcf.db");
  ingest(db, "dynamo", "cold", {odd_path});
  RcfRun r = run_rcf({"export", "--db", db, "--out", dir.file("csv"), "--format", "csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string text = gunzip(dir.file("csv/view=ingest_stats/part-0.csv.gz"));
  // The newline is written as NDJSON writes it (`\n`, docs/export.md): a record is one line.
  const std::string as_written = testing::replace_all(odd_path, "\n", "\\n");
  EXPECT_NE(text.find("\"" + testing::replace_all(as_written, "\"", "\"\"") + "\""),
            std::string::npos)
      << text;
  auto records = parse_csv(text);
  ASSERT_EQ(records.size(), 2u) << text;
  EXPECT_EQ(records[0], (std::vector<std::string>{"source", "format", "lines", "bytes", "events",
                                                  "rejected", "first_error", "host"}));
  EXPECT_EQ(records[1][0], as_written);
  auto store = store::open_store(db, store::OpenMode::kRead);
  EXPECT_EQ(records[1][2], testing::scalar(*store, "SELECT lines FROM ingest_stats"));
  // A partitioned view: lane and run in the directory names, not in the header.
  const std::string compiles =
      gunzip(dir.file("csv/view=compiles/lane=dynamo/run=cold/part-0.csv.gz"));
  auto compile_records = parse_csv(compiles);
  ASSERT_GE(compile_records.size(), 2u);
  EXPECT_EQ(compile_records[0].front(), "run_id");
  EXPECT_EQ(std::count(compile_records[0].begin(), compile_records[0].end(), "lane"), 0);
  EXPECT_EQ(static_cast<int64_t>(compile_records.size() - 1),
            std::stoll(testing::scalar(*store, "SELECT count(*) FROM compiles")));
}

// ---------------------------------------------------------------------------------------------
// DuckDB reads the export (tests/duckdb/load_export.mjs with the npm package @duckdb/node-api,
// installed by scripts/install_duckdb_test.sh). Skips when node or the package is missing.

const std::string kDuckDbDir = kFixtures + "/../tests/duckdb";

std::string run_and_capture(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return out;
  }
  std::array<char, 4096> buffer;
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  status = pclose(pipe);
  return out;
}

std::string shell_quote(const std::string& s) {
  return "'" + testing::replace_all(s, "'", "'\\''") + "'";
}

TEST_F(ExportTest, DuckDbCountsPerViewEqualTheSqliteViews) {
  int status = 0;
  const std::string version = run_and_capture("node --version 2>/dev/null", status);
  if (status != 0 || version.empty())
    GTEST_SKIP() << "node is not installed (apt-get install nodejs npm): the DuckDB load test "
                    "needs it";
  if (!fs::exists(kDuckDbDir + "/node_modules/@duckdb/node-api/package.json"))
    GTEST_SKIP() << "@duckdb/node-api is not installed in tests/duckdb (run "
                    "scripts/install_duckdb_test.sh; it needs the npm registry)";
  const std::string out = run_and_capture(
      "node " + shell_quote(kDuckDbDir + "/load_export.mjs") + " " + shell_quote(out_) + " 2>&1",
      status);
  ASSERT_EQ(status, 0) << out;
  json counts = json::parse(out);
  auto db = store::open_store(db_, store::OpenMode::kRead);
  const auto views = view_names(*db);
  EXPECT_EQ(counts.size(), views.size()) << out;
  for (const auto& view : views) {
    SCOPED_TRACE(view);
    ASSERT_TRUE(counts.contains(view)) << out;
    EXPECT_EQ(counts[view]["rows"].get<int64_t>(), view_count(*db, view));
  }
  // DuckDB read the lanes back from the escaped directory names.
  EXPECT_EQ(counts["runs"]["lanes"], json::array({kOddLane, "trace", "xla-counter"})) << out;
}

}  // namespace export_test
}  // namespace rcf
