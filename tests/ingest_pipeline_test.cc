// End-to-end tests of pipeline::run_ingest on real fixtures, through the public SQLite views:
// golden files, independence from the read buffer size, idempotence, atomicity of failed
// ingests, directories with decoy files and schema-version checks.
//
// Golden files: tests/golden/<name>.csv hold the `compiles`, `recompiles` and `ingest_stats` views
// after ingesting one fixture, with the fixtures directory written as $FIXTURES (ingest_stats
// without `events`, an importer-internal count). After an
// intended change of the output, regenerate them with
//   RCF_UPDATE_GOLDEN=1 ./rcf_tests --gtest_filter='IngestPipeline*Golden*'
// (the files are rewritten instead of compared) and review `git diff tests/golden` against the
// raw logs before committing. Every number asserted explicitly below was checked against the raw
// logs with an independent script (compilation_metrics, recompile_reasons and cache artifacts).
#include "pipeline/ingest_pipeline.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/schema.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/golden.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "util/error.h"

namespace rcf::pipeline {
namespace ingest_pipeline_test {

using rcf::testing::column;
using rcf::testing::dump_tables;
using rcf::testing::expect_golden;
using rcf::testing::query_csv;
using rcf::testing::read_file;
using rcf::testing::replace_all;
using rcf::testing::scalar;
using rcf::testing::TempDir;
using rcf::testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
const std::string kRank1 = "torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log";
const std::string kRank3 = "torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log";
const std::string kMultiRankLogs = "torch_trace/multi_rank_logs";
const std::string kMultiRankRuntime = "torch_trace/multi_rank_runtime";
const std::string kCompMetrics = "torch_trace/comp_metrics.log";
const std::string kCompFailure = "torch_trace/comp_failure.log";
const std::string kCorruptedJson = "torch_trace/simple_corrupted_json.log";
const std::string kKernelSite =
    "/Users/skarjala/Desktop/tlparse/tests/gen_many_frames.py:6 (kernel)";

std::string fixture(const std::string& relative) {
  return kFixtures + "/" + relative;
}

// The public views as CSV, with machine-specific paths normalised.
std::string views_csv(store::Database& db) {
  std::string out =
      "# compiles\n" + query_csv(db, "SELECT * FROM compiles ORDER BY run_id, ordinal") +
      "\n# recompiles\n" + query_csv(db, "SELECT * FROM recompiles ORDER BY run_id, ordinal") +
      "\n# ingest_stats\n" +
      query_csv(db,
                "SELECT source, format, lines, bytes, rejected, first_error "
                "FROM ingest_stats ORDER BY source");
  return replace_all(out, kFixtures, "$FIXTURES");
}

class IngestPipelineTest : public ::testing::Test {
 protected:
  std::string db_path(const std::string& name = "rcf.db") const { return tmp_.file(name); }

  IngestSummary ingest(const std::vector<std::string>& paths, const std::string& db,
                       const std::function<void(IngestRequest&)>& tweak = nullptr) {
    IngestRequest request;
    request.db_path = db;
    request.paths = paths;
    if (tweak) tweak(request);
    return run_ingest(request);
  }
  IngestSummary ingest_fixture(const std::string& relative) {
    return ingest({fixture(relative)}, db_path());
  }

  std::unique_ptr<store::Database> open(const std::string& db) const {
    return store::open_store(db, store::OpenMode::kRead);
  }
  std::string dump(const std::string& db) const {
    auto handle = open(db);
    return dump_tables(*handle);
  }
  // Runs `sql` on the database file directly (outside rcf).
  static void raw_exec(const std::string& db, const std::string& sql) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err;
    sqlite3_free(err);
    sqlite3_close(h);
  }

  TempDir tmp_;
};

// ---- (a) golden tests ------------------------------------------------------------------------

TEST_F(IngestPipelineTest, GoldenRank1ShapeRecompiles) {
  IngestSummary summary = ingest_fixture(kRank1);
  ASSERT_EQ(summary.sources.size(), 1u);
  EXPECT_EQ(summary.duplicates, 0);
  EXPECT_EQ(summary.rejected, 0);
  EXPECT_EQ(summary.lines, 25720);    // wc -l
  EXPECT_EQ(summary.bytes, 3563492);  // file size
  EXPECT_EQ(summary.formats, (std::map<std::string, int64_t>{{"torch_trace", 1}}));

  auto db = open(db_path());
  // 15 compilation_metrics records, compile ids 0/0 .. 0/14 of `kernel`.
  std::vector<std::string> keys;
  for (int i = 0; i < 15; ++i) keys.push_back("0/" + std::to_string(i));
  EXPECT_EQ(column(*db, "SELECT program_key FROM compiles ORDER BY ordinal"), keys);
  EXPECT_EQ(column(*db, "SELECT DISTINCT site FROM compiles"),
            std::vector<std::string>{kKernelSite});
  EXPECT_EQ(column(*db, "SELECT DISTINCT kind FROM compiles"), std::vector<std::string>{"dynamo"});
  // fx_graph_cache_hit on 0/0..0/9, fx_graph_cache_miss on 0/10..0/14.
  EXPECT_EQ(column(*db, "SELECT cache || ':' || count(*) FROM compiles GROUP BY cache ORDER BY 1"),
            (std::vector<std::string>{"hit:10", "miss:5"}));
  EXPECT_EQ(scalar(*db, "SELECT cache FROM compiles WHERE program_key='0/9'"), "hit");
  EXPECT_EQ(scalar(*db, "SELECT cache FROM compiles WHERE program_key='0/10'"), "miss");
  // entire_frame_compile_time_s * 1000.
  EXPECT_EQ(scalar(*db, "SELECT compile_ms FROM compiles WHERE program_key='0/0'"), "1334.062");
  EXPECT_EQ(scalar(*db, "SELECT compile_ms FROM compiles WHERE program_key='0/14'"), "370.803");
  EXPECT_EQ(scalar(*db, "SELECT cause_reported FROM compiles WHERE program_key='0/0'"), "<NULL>");
  EXPECT_EQ(scalar(*db, "SELECT cause_reported FROM compiles WHERE program_key='0/14'"),
            "0/13: tensor 'x' size mismatch at index 0. expected 15, actual 16");

  // 14 recompiles, all `shape`, each compared with the compile just before it.
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "14");
  EXPECT_EQ(column(*db, "SELECT DISTINCT cause FROM recompiles"),
            std::vector<std::string>{"shape"});
  EXPECT_EQ(scalar(*db,
                   "SELECT count(*) FROM recompiles r JOIN compiles c USING (run_id, ordinal)"
                   " WHERE c.program_key = r.program_key AND r.prev_program_key = '0/' ||"
                   " (CAST(substr(r.program_key, 3) AS INTEGER) - 1)"),
            "14");
  EXPECT_EQ(scalar(*db, "SELECT prev_program_key FROM recompiles WHERE program_key='0/14'"),
            "0/13");
  const std::string detail = scalar(*db, "SELECT detail FROM recompiles WHERE program_key='0/14'");
  EXPECT_EQ(detail.rfind("tensor 'x' dim 0: 15 -> 16", 0), 0u) << detail;
  EXPECT_EQ(scalar(*db, "SELECT confidence FROM recompiles WHERE program_key='0/14'"), "high");
  // The recompile_reasons artifact of 0/14 starts at line 23246.
  EXPECT_EQ(scalar(*db, "SELECT evidence FROM recompiles WHERE program_key='0/14'"),
            "TORCH_TRACE recompile_reasons artifact at dedicated_log_torch_trace_rank_1.log:23246");

  EXPECT_EQ(query_csv(*db, "SELECT format, lines, bytes, rejected, first_error FROM ingest_stats"),
            "format,lines,bytes,rejected,first_error\ntorch_trace,25720,3563492,0,\n");
  expect_golden("torch_trace_rank_1.csv", views_csv(*db));
}

TEST_F(IngestPipelineTest, GoldenRank3ShapeRecompiles) {
  ingest_fixture(kRank3);
  auto db = open(db_path());
  EXPECT_EQ(column(*db, "SELECT program_key FROM compiles ORDER BY ordinal"),
            (std::vector<std::string>{"0/0", "0/1", "0/2", "0/3", "0/4", "0/5", "0/6"}));
  EXPECT_EQ(column(*db, "SELECT DISTINCT site FROM compiles"),
            std::vector<std::string>{kKernelSite});
  EXPECT_EQ(column(*db, "SELECT DISTINCT cache FROM compiles"), std::vector<std::string>{"hit"});
  EXPECT_EQ(scalar(*db, "SELECT compile_ms FROM compiles WHERE program_key='0/0'"), "10283.392");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles WHERE cause='shape'"), "6");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "6");
  EXPECT_EQ(scalar(*db, "SELECT prev_program_key FROM recompiles WHERE program_key='0/6'"), "0/5");
  const std::string detail = scalar(*db, "SELECT detail FROM recompiles WHERE program_key='0/6'");
  EXPECT_EQ(detail.rfind("tensor 'x' dim 0: 7 -> 8", 0), 0u) << detail;
  EXPECT_EQ(query_csv(*db, "SELECT format, lines, bytes, rejected, first_error FROM ingest_stats"),
            "format,lines,bytes,rejected,first_error\ntorch_trace,9257,1434274,0,\n");
  expect_golden("torch_trace_rank_3.csv", views_csv(*db));
}

TEST_F(IngestPipelineTest, GoldenMultiRankRuntimeObjectIdentity) {
  IngestSummary summary = ingest_fixture(kMultiRankRuntime);
  EXPECT_EQ(summary.sources.size(), 2u);
  auto db = open(db_path());
  // rank_0.log (envelope rank 0) compiles 0/0..0/3; rank_5.log carries envelope rank 1 and
  // compiles 0/0, 0/1 later (start_time 1755272918 vs 1754336052). Two processes: keys prefixed.
  EXPECT_EQ(column(*db, "SELECT program_key FROM compiles ORDER BY ordinal"),
            (std::vector<std::string>{"rank0:0/0", "rank0:0/1", "rank0:0/2", "rank0:0/3",
                                      "rank1:0/0", "rank1:0/1"}));
  EXPECT_EQ(column(*db, "SELECT DISTINCT site FROM compiles"),
            std::vector<std::string>{
                "/home/skarjala/pytorch/torch/_dynamo/external_utils.py:66 (inner)"});
  EXPECT_EQ(scalar(*db, "SELECT compile_ms FROM compiles WHERE program_key='rank0:0/0'"),
            "2708.391");
  EXPECT_EQ(scalar(*db, "SELECT compile_ms FROM compiles WHERE program_key='rank1:0/1'"),
            "644.935");
  EXPECT_EQ(
      column(*db,
             "SELECT program_key || ' <- ' || prev_program_key || ' ' || cause"
             " FROM recompiles ORDER BY ordinal"),
      (std::vector<std::string>{
          "rank0:0/1 <- rank0:0/0 object_identity", "rank0:0/2 <- rank0:0/0 object_identity",
          "rank0:0/3 <- rank0:0/0 object_identity", "rank1:0/1 <- rank1:0/0 object_identity"}));
  // The reason as logged (trailing padding included) is kept in cause_reported.
  EXPECT_EQ(scalar(*db, "SELECT cause_reported FROM compiles WHERE program_key='rank0:0/1'"),
            "0/0: ___check_obj_id(fn, 140439264606080)                   ");
  EXPECT_EQ(scalar(*db, "SELECT cause_reported FROM compiles WHERE program_key='rank1:0/1'"),
            "0/0: ___check_obj_id(fn, 140251457884928)                   ");
  for (const std::string& d : column(*db, "SELECT detail FROM recompiles"))
    EXPECT_NE(d.find("'fn'"), std::string::npos) << d;
  EXPECT_EQ(column(*db, "SELECT lines FROM ingest_stats ORDER BY source"),
            (std::vector<std::string>{"15159", "7193"}));
  expect_golden("torch_trace_multi_rank_runtime.csv", views_csv(*db));
}

TEST_F(IngestPipelineTest, GoldenCompMetricsResumeFramesAreSyncFragments) {
  ingest_fixture(kCompMetrics);
  auto db = open(db_path());
  // Compile ids [0/0_1], [1/0_1], [2/0]: fn, then the two resume functions.
  EXPECT_EQ(
      column(*db, "SELECT program_key || ' ' || site FROM compiles ORDER BY ordinal"),
      (std::vector<std::string>{"0/0 /data/users/jjwu/a/pytorch/test/dynamo/test_misc.py:9549 (fn)",
                                "1/0 /data/users/jjwu/a/pytorch/test/dynamo/test_misc.py:9551 "
                                "(torch_dynamo_resume_in_fn_at_9551)",
                                "2/0 /data/users/jjwu/a/pytorch/test/dynamo/test_misc.py:9553 "
                                "(torch_dynamo_resume_in_fn_at_9553)"}));
  EXPECT_EQ(scalar(*db, "SELECT compile_ms FROM compiles WHERE program_key='0/0'"),
            "12.439489364624");  // 0.012439489364624023 s
  // Both resume frames count as recompiles (sync fragments), fn itself does not.
  EXPECT_EQ(column(*db, "SELECT program_key || ' ' || cause FROM recompiles ORDER BY ordinal"),
            (std::vector<std::string>{"1/0 sync_fragment", "2/0 sync_fragment"}));
  // The restart reason of the broken frame (compilation_metrics.restart_reasons of 0/0 and of
  // 1/0) explains each resume function.
  const std::string restart =
      "skip function graph_break in file /data/users/jjwu/a/pytorch/torch/_dynamo/decorators.py";
  for (const std::string& d : column(*db, "SELECT detail FROM recompiles ORDER BY ordinal"))
    EXPECT_NE(d.find(restart), std::string::npos) << d;
  EXPECT_NE(scalar(*db, "SELECT detail FROM recompiles WHERE program_key='1/0'")
                .find("graph break in fn at line 9551"),
            std::string::npos);
  EXPECT_NE(scalar(*db, "SELECT detail FROM recompiles WHERE program_key='2/0'")
                .find("graph break in fn at line 9553"),
            std::string::npos);
  expect_golden("torch_trace_comp_metrics.csv", views_csv(*db));
}

TEST_F(IngestPipelineTest, GoldenCompFailure) {
  ingest_fixture(kCompFailure);
  auto db = open(db_path());
  EXPECT_EQ(query_csv(*db, "SELECT ordinal, site, program_key, kind, cause_reported FROM compiles"),
            "ordinal,site,program_key,kind,cause_reported\n"
            "1,/data/users/xmfan/a/pytorch/test/dynamo/test_misc.py:10755 (fn),0/0,dynamo_failed,"
            "BackendCompilerFailed\n");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "0");
  EXPECT_EQ(query_csv(*db, "SELECT format, lines, bytes, rejected, first_error FROM ingest_stats"),
            "format,lines,bytes,rejected,first_error\ntorch_trace,178,17068,0,\n");
  expect_golden("torch_trace_comp_failure.csv", views_csv(*db));
}

// Newer PyTorch writes the compile time only as dynamo_cumulative_compile_time_us (the legacy
// entire_frame_compile_time_s is that value / 1e6, docs/torch_trace.md); the compile
// time is then known and must not be NULL.
TEST_F(IngestPipelineTest, CompileTimeFromCumulativeMicroseconds) {
  ingest_fixture(kCompFailure);  // "dynamo_cumulative_compile_time_us": 157247
  auto db = open(db_path());
  EXPECT_EQ(scalar(*db, "SELECT compile_ms FROM compiles"), "157.247");
}

TEST_F(IngestPipelineTest, GoldenCorruptedJsonKeepsTheCompile) {
  IngestSummary summary = ingest_fixture(kCorruptedJson);
  EXPECT_EQ(summary.rejected, 1);
  auto db = open(db_path());
  // Line 18 lost its "}," so the payload of the envelope at line 13 is not JSON.
  EXPECT_EQ(query_csv(*db, "SELECT format, lines, bytes, rejected, first_error FROM ingest_stats"),
            "format,lines,bytes,rejected,first_error\ntorch_trace,2223,249453,1," +
                fixture(kCorruptedJson) + ":13: bad_payload_json\n");
  // The one compile of the file is still there.
  EXPECT_EQ(column(*db, "SELECT program_key || ' ' || site || ' ' || kind FROM compiles"),
            std::vector<std::string>{
                "0/0 /data/users/xmfan/a/pytorch/test/inductor/test_torchinductor.py:11123 "
                "(forward) dynamo"});
  expect_golden("torch_trace_simple_corrupted_json.csv", views_csv(*db));
}

// ---- (b) the read buffer size changes nothing -----------------------------------------------

TEST_F(IngestPipelineTest, BufferSizeDoesNotChangeAnyRow) {
  std::vector<std::string> dumps;
  for (size_t buffer : {size_t{64} << 10, size_t{4} << 20, size_t{1} << 20, size_t{4096}}) {
    const std::string db = db_path("buf" + std::to_string(buffer) + ".db");
    ingest({fixture(kMultiRankLogs)}, db, [&](IngestRequest& r) { r.buffer_size = buffer; });
    dumps.push_back(dump(db));
  }
  // The dump covers raw, derived and string tables; rank_1 alone has 15 compiles.
  EXPECT_NE(dumps[0].find("# table compile_event"), std::string::npos);
  EXPECT_GT(dumps[0].size(), 10000u);
  for (size_t i = 1; i < dumps.size(); ++i) EXPECT_EQ(dumps[0], dumps[i]) << "buffer size #" << i;
}

// ---- (c) idempotence ------------------------------------------------------------------------

// A run ingested in two parts with another lane in between has its rows in two distant rowid
// ranges: the analysis must read exactly its rows, as when both parts came in one ingest.
TEST_F(IngestPipelineTest, ARunIngestedAgainAfterAnotherLaneIsAnalysedTheSame) {
  auto lane = [](const char* name) { return [name](IngestRequest& r) { r.lane = name; }; };
  const std::string together = db_path("together.db"), apart = db_path("apart.db");
  ingest({fixture(kRank1), fixture(kRank3)}, together, lane("a"));
  ingest({fixture(kRank1)}, apart, lane("a"));
  ingest({fixture("scenarios/dynamo_lane/train.log"), fixture("torch_trace/cache_hit_miss.log"),
          fixture("torch_trace/multi_rank_runtime/dedicated_log_torch_trace_rank_0.log")},
         apart, lane("b"));
  ingest({fixture(kRank3)}, apart, lane("a"));
  const char* kLaneA =
      "SELECT ordinal, step, site, program_key, prev_program_key, cause, detail, confidence "
      "FROM recompiles WHERE lane = 'a' ORDER BY ordinal";
  auto one = open(together), two = open(apart);
  // Lane a's compile records are then sparse in their rowid range (read through the index), its
  // guard failures dense (read as a range): both ways are taken.
  EXPECT_EQ(scalar(*two,
                   "SELECT 2 * count(*) < max(rowid) - min(rowid) + 1 FROM dynamo_compile_raw "
                   "WHERE run_id = (SELECT run_id FROM runs WHERE lane = 'a')"),
            "1");
  EXPECT_EQ(scalar(*two,
                   "SELECT 2 * count(*) >= max(rowid) - min(rowid) + 1 FROM guard_failure "
                   "WHERE run_id = (SELECT run_id FROM runs WHERE lane = 'a')"),
            "1");
  const std::string expected = query_csv(*one, kLaneA);
  EXPECT_GT(std::count(expected.begin(), expected.end(), '\n'), 5);
  // Evidence names files and lines only; source ids differ between the two stores.
  EXPECT_EQ(query_csv(*two, kLaneA), expected);
  EXPECT_EQ(scalar(*two, "SELECT count(*) FROM compiles WHERE lane = 'a'"),
            scalar(*one, "SELECT count(*) FROM compiles WHERE lane = 'a'"));
  EXPECT_NE(scalar(*two, "SELECT count(*) FROM compiles WHERE lane = 'b'"), "0");
}

// The store's only run, ingested in two parts: its second analysis empties the derived tables
// whole (analysis/run_analysis.cc, clear_analysis) and must leave exactly what one ingest of both
// parts leaves, with no compile row of the first analysis left over.
TEST_F(IngestPipelineTest, TheOnlyRunIngestedInTwoPartsIsAnalysedAsInOne) {
  const std::string together = db_path("together.db"), apart = db_path("apart.db");
  ingest({fixture(kRank1), fixture(kRank3)}, together);
  ingest({fixture(kRank1)}, apart);
  ingest({fixture(kRank3)}, apart);
  auto one = open(together), two = open(apart);
  EXPECT_EQ(scalar(*two, "SELECT count(*) FROM runs"), "1");
  const char* kAll =
      "SELECT ordinal, step, site, program_key, prev_program_key, cause, detail, confidence "
      "FROM recompiles ORDER BY ordinal";
  const std::string expected = query_csv(*one, kAll);
  EXPECT_GT(std::count(expected.begin(), expected.end(), '\n'), 5);
  EXPECT_EQ(query_csv(*two, kAll), expected);
  for (const char* table : {"compile_event", "attribution", "cause_group", "convergence_point"})
    EXPECT_EQ(scalar(*two, std::string("SELECT count(*) FROM ") + table),
              scalar(*one, std::string("SELECT count(*) FROM ") + table))
        << table;
  EXPECT_EQ(scalar(*two,
                   "SELECT count(*) FROM attribution WHERE compile_row NOT IN "
                   "(SELECT compile_row FROM compile_event)"),
            "0");
}

// The analysis reads the texts its rows name one at a time when the store holds many more texts
// than the run has rows (run_analysis.cc, load_run), else the strings table whole: both ways
// give the same analysis.
TEST_F(IngestPipelineTest, TextsLookedUpOneByOneGiveTheSameAnalysis) {
  const std::string whole = db_path("whole.db"), one_by_one = db_path("one_by_one.db");
  ingest({fixture(kRank1)}, whole);
  ingest({fixture(kRank1)}, one_by_one);
  // 100 000 texts no row names, ahead of the texts the second part adds.
  raw_exec(one_by_one,
           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
           "INSERT INTO strings(text) SELECT 'filler ' || i FROM n");
  ingest({fixture(kRank3)}, whole);
  ingest({fixture(kRank3)}, one_by_one);
  auto a = open(whole), b = open(one_by_one);
  const char* kManyTexts =
      "SELECT (SELECT max(string_id) FROM strings) > 4096 + 2 * ((SELECT count(*) FROM "
      "dynamo_compile_raw) + (SELECT count(*) FROM guard_failure) + (SELECT count(*) FROM "
      "graph_break))";
  EXPECT_EQ(scalar(*b, kManyTexts), "1");
  EXPECT_EQ(scalar(*a, kManyTexts), "0");
  const char* kAll =
      "SELECT ordinal, step, site, program_key, prev_program_key, cause, detail, confidence, "
      "evidence FROM recompiles ORDER BY ordinal";
  const std::string expected = query_csv(*a, kAll);
  EXPECT_GT(std::count(expected.begin(), expected.end(), '\n'), 5);
  EXPECT_EQ(query_csv(*b, kAll), expected);
  const char* kGroups = "SELECT rank, site, cause, recompiles, detail FROM fix_first ORDER BY rank";
  EXPECT_EQ(query_csv(*b, kGroups), query_csv(*a, kGroups));
}

TEST_F(IngestPipelineTest, SameFileTwiceAddsNothing) {
  ingest_fixture(kRank1);
  const std::string before_all = [&] {
    auto db = open(db_path());
    return dump_tables(*db, {});  // time columns included: nothing may be touched
  }();

  IngestSummary again = ingest_fixture(kRank1);
  EXPECT_EQ(again.duplicates, 1);
  ASSERT_EQ(again.sources.size(), 1u);
  EXPECT_EQ(again.sources[0].duplicate_of, fixture(kRank1));
  EXPECT_EQ(again.events, 0);
  EXPECT_NE(render_ingest_summary(again).find("1 already ingested"), std::string::npos);
  auto db = open(db_path());
  EXPECT_EQ(dump_tables(*db, {}), before_all);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "15");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM ingest_stats"), "1");

  // The same file named twice in one ingest: the second is a duplicate of the first.
  IngestSummary twice = ingest({fixture(kRank3), fixture(kRank3)}, db_path("twice.db"));
  EXPECT_EQ(twice.duplicates, 1);
  auto db2 = open(db_path("twice.db"));
  EXPECT_EQ(scalar(*db2, "SELECT count(*) FROM compiles"), "7");
  EXPECT_EQ(scalar(*db2, "SELECT count(*) FROM ingest_stats"), "1");
}

TEST_F(IngestPipelineTest, GzipCopyIsTheSameContent) {
  const std::string plain = read_file(fixture(kRank1));
  std::filesystem::create_directories(tmp_.file("gz"));
  // Same base name (the evidence texts name the file), gzip content, no .gz suffix.
  const std::string gz_same_name = tmp_.file("gz/dedicated_log_torch_trace_rank_1.log");
  const std::string gz_suffix = tmp_.file("gz/dedicated_log_torch_trace_rank_1.log.gz");
  write_file(gz_same_name, rcf::testing::gzip_compress(plain));
  write_file(gz_suffix, rcf::testing::gzip_compress(plain, 1));

  // Into the database that already has the plain file: nothing added.
  ingest_fixture(kRank1);
  const std::string before = dump(db_path());
  IngestSummary summary = ingest({gz_same_name, gz_suffix}, db_path());
  EXPECT_EQ(summary.duplicates, 2);
  EXPECT_EQ(summary.sources[0].stats.encoding, "gzip");
  EXPECT_EQ(dump(db_path()), before);

  // A gzip-only ingest gives the same compiles and recompiles as the plain file.
  const std::string views = "SELECT * FROM compiles ORDER BY ordinal";
  const std::string recompiles = "SELECT * FROM recompiles ORDER BY ordinal";
  ingest({gz_same_name}, db_path("gz.db"));
  auto plain_db = open(db_path());
  auto gz_db = open(db_path("gz.db"));
  EXPECT_EQ(query_csv(*gz_db, views), query_csv(*plain_db, views));
  EXPECT_EQ(query_csv(*gz_db, recompiles), query_csv(*plain_db, recompiles));
  EXPECT_EQ(scalar(*gz_db, "SELECT encoding || ' ' || bytes || ' ' || lines FROM source"),
            "gzip 3563492 25720");
  EXPECT_EQ(scalar(*gz_db, "SELECT content_hash FROM source"),
            scalar(*plain_db, "SELECT content_hash FROM source"));

  // Under a .gz name only the file name in the evidence texts differs.
  ingest({gz_suffix}, db_path("gz2.db"));
  auto gz2_db = open(db_path("gz2.db"));
  const std::string no_evidence =
      "SELECT run_id, lane, run, ordinal, step, site, program_key, prev_program_key, cause, "
      "detail, confidence FROM recompiles ORDER BY ordinal";
  EXPECT_EQ(query_csv(*gz2_db, no_evidence), query_csv(*plain_db, no_evidence));
  EXPECT_EQ(query_csv(*gz2_db, views), query_csv(*plain_db, views));
}

// ---- (d) a failed ingest changes nothing ------------------------------------------------------

TEST_F(IngestPipelineTest, FailedIngestLeavesTheDatabaseUnchanged) {
  ingest_fixture(kRank3);
  auto dump_all = [&] {
    auto db = open(db_path());
    return dump_tables(*db, {});
  };
  const std::string before = dump_all();

  // A second path that does not exist.
  const std::string missing = tmp_.file("no_such_dir/missing.log");
  try {
    ingest({fixture(kRank1), missing}, db_path());
    ADD_FAILURE() << "expected an error for " << missing;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dump_all(), before);

  // --strict with a rejected line in the second file: the first was already written inside the
  // transaction and must be rolled back with it.
  try {
    ingest({fixture(kRank1), fixture(kCorruptedJson)}, db_path(),
           [](IngestRequest& r) { r.strict = true; });
    ADD_FAILURE() << "expected --strict to fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fixture(kCorruptedJson) + ":13"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(dump_all(), before);

  // A named file in no known format, after a good one.
  const std::string words = tmp_.file("notes.txt");
  write_file(words, "lorem ipsum dolor sit amet\nconsectetur adipiscing elit\n");
  try {
    ingest({fixture(kRank1), words}, db_path());
    ADD_FAILURE() << "expected an unrecognised-format error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
  EXPECT_EQ(dump_all(), before);

  // Unknown --format.
  EXPECT_THROW(ingest({fixture(kRank1)}, db_path(), [](IngestRequest& r) { r.format = "nosuch"; }),
               Error);
  EXPECT_EQ(dump_all(), before);

  // And the same ingests without the bad part do add rows (the failures were not vacuous).
  ingest({fixture(kRank1)}, db_path());
  EXPECT_NE(dump_all(), before);
}

TEST_F(IngestPipelineTest, FailedFirstIngestLeavesNoData) {
  EXPECT_THROW(ingest({fixture(kRank1), fixture(kCorruptedJson)}, db_path(),
                      [](IngestRequest& r) { r.strict = true; }),
               Error);
  if (std::filesystem::exists(db_path())) {
    auto db = open(db_path());
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM runs"), "0");
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM ingest_stats"), "0");
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "0");
  }
}

// ---- (e) directories with decoys ------------------------------------------------------------

std::string random_words(uint32_t seed, int lines) {
  static const char* const kWords[] = {"apple", "river",  "stone", "cloud",  "paper", "quiet",
                                       "mango", "violet", "north", "pencil", "ember", "harbor"};
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < lines; ++i) {
    int n = 1 + static_cast<int>(rng() % 12);
    for (int w = 0; w < n; ++w) out += std::string(w ? " " : "") + kWords[rng() % 12];
    out += "\n";
  }
  return out;
}

// Counts lines the way the reader does: '\n'-terminated lines plus a non-empty unterminated tail.
int64_t count_lines(const std::string& bytes) {
  int64_t n = std::count(bytes.begin(), bytes.end(), '\n');
  return n + (!bytes.empty() && bytes.back() != '\n' ? 1 : 0);
}

TEST_F(IngestPipelineTest, DirectoryWithDecoys) {
  const std::string dir = tmp_.file("bundle");
  std::filesystem::create_directories(dir + "/nested");
  std::filesystem::copy_file(fixture(kCompFailure), dir + "/comp_failure.log");
  std::filesystem::copy_file(fixture(kCompMetrics), dir + "/nested/comp_metrics.log");
  write_file(dir + "/empty.log", "");
  const std::string words = random_words(17, 300);
  write_file(dir + "/words.txt", words);
  std::string junk;
  std::mt19937 rng(5);
  for (int i = 0; i < 5000; ++i) junk.push_back(static_cast<char>(rng() & 0xff));
  junk[0] = '\0';  // not the gzip magic
  write_file(dir + "/junk.bin", junk);
  // Starts with the gzip magic, then is not gzip: nothing can be read from it.
  write_file(dir + "/corrupt.gz", std::string("\x1f\x8b") + "this is not deflate data");
  std::filesystem::create_directory_symlink("..", dir + "/nested/loop");      // a symlink loop
  std::filesystem::create_symlink(dir + "/gone.log", dir + "/dangling.log");  // dangling

  IngestSummary summary = ingest({dir}, db_path());
  EXPECT_EQ(summary.sources.size(), 6u);
  EXPECT_EQ(summary.duplicates, 0);  // the unreadable file is not "the same" as the empty one
  EXPECT_EQ(summary.formats,
            (std::map<std::string, int64_t>{
                {"empty", 1}, {"torch_trace", 2}, {"unreadable", 1}, {"unrecognized", 2}}));
  auto warned = [&](const std::string& what) {
    for (const auto& w : summary.warnings)
      if (w.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(warned(dir + "/words.txt")) << ::testing::PrintToString(summary.warnings);
  EXPECT_TRUE(warned(dir + "/junk.bin")) << ::testing::PrintToString(summary.warnings);
  EXPECT_TRUE(warned(dir + "/corrupt.gz: corrupt gzip data"))
      << ::testing::PrintToString(summary.warnings);
  EXPECT_TRUE(warned(dir + "/dangling.log: No such file or directory"))
      << ::testing::PrintToString(summary.warnings);
  EXPECT_FALSE(warned("loop")) << ::testing::PrintToString(summary.warnings);
  EXPECT_NE(render_ingest_summary(summary).find("warning: " + dir + "/words.txt"),
            std::string::npos);

  auto db = open(db_path());
  // The directory is walked in sorted order; the loop is not entered again.
  EXPECT_EQ(replace_all(query_csv(*db,
                                  "SELECT source, format, lines, bytes, events, rejected "
                                  "FROM ingest_stats ORDER BY rowid"),
                        dir, "$DIR"),
            "source,format,lines,bytes,events,rejected\n"
            "$DIR/comp_failure.log,torch_trace,178,17068,5,0\n"
            "$DIR/corrupt.gz,unreadable,0,0,0,0\n"
            "$DIR/empty.log,empty,0,0,0,0\n"
            "$DIR/junk.bin,unrecognized," +
                std::to_string(count_lines(junk)) +
                ",5000,0,0\n"
                "$DIR/nested/comp_metrics.log,torch_trace,65,16714,8,0\n"
                "$DIR/words.txt,unrecognized,300," +
                std::to_string(words.size()) + ",0,0\n");
  // The unreadable file says why, with its path.
  EXPECT_EQ(scalar(*db, "SELECT first_error FROM ingest_stats WHERE format='unreadable'")
                .rfind(dir + "/corrupt.gz: corrupt gzip data", 0),
            0u);
  // Unrecognised lines are counted as skipped, not lost.
  EXPECT_EQ(scalar(*db, "SELECT skipped FROM source WHERE path LIKE '%words.txt'"), "300");
  // The real logs were read as usual: 1 compile + 3 compiles, 2 resume frames.
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "4");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "2");
}

TEST_F(IngestPipelineTest, NamedCorruptGzipIsAnError) {
  ingest_fixture(kRank3);
  const std::string before = dump(db_path());
  const std::string corrupt = tmp_.file("corrupt.log.gz");
  write_file(corrupt, std::string("\x1f\x8b") + "this is not deflate data");
  try {
    ingest({fixture(kCompFailure), corrupt}, db_path());
    ADD_FAILURE() << "expected a named unreadable gzip to fail the ingest";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(corrupt), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("corrupt gzip"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dump(db_path()), before);
}

// A gzip cut short: BadInputCatalogue.TruncatedGzip.

// Every line is parsed or counted under a named reason; a missing final newline is noted.
TEST_F(IngestPipelineTest, LineNotesOfTheCorruptedFixture) {
  ingest_fixture(kCorruptedJson);
  auto db = open(db_path());
  EXPECT_EQ(query_csv(*db,
                      "SELECT fate, reason, count, first_line FROM line_note "
                      "WHERE reason IN ('bad_payload_json', 'no_final_newline') ORDER BY 1, 2"),
            "fate,reason,count,first_line\n"
            "rejected,bad_payload_json,1,13\n"
            "warning,no_final_newline,1,2223\n");
  EXPECT_EQ(query_csv(*db, "SELECT line, reason FROM rejected_line"),
            "line,reason\n13,bad_payload_json\n");
  // comp_metrics.log ends with a newline: no such note.
  ingest({fixture(kCompMetrics)}, db_path("b.db"));
  auto b = open(db_path("b.db"));
  EXPECT_EQ(scalar(*b, "SELECT count(*) FROM line_note WHERE reason='no_final_newline'"), "0");
}

// ---- (f) schema version -----------------------------------------------------------------------

TEST_F(IngestPipelineTest, OtherSchemaVersionIsRefused) {
  ingest_fixture(kCompFailure);
  raw_exec(db_path(), "UPDATE schema_info SET value='99' WHERE key='schema_version'");
  for (auto mode : {store::OpenMode::kRead, store::OpenMode::kCreateOrWrite}) {
    try {
      store::open_store(db_path(), mode);
      ADD_FAILURE() << "expected the version-99 database to be refused";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(db_path()), std::string::npos) << message;
      EXPECT_NE(message.find("99"), std::string::npos) << message;
    }
  }
  try {
    ingest_fixture(kCompMetrics);
    ADD_FAILURE() << "expected ingest into a version-99 database to fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(db_path()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
  // Nothing was written into it.
  raw_exec(db_path(), "UPDATE schema_info SET value='" + std::to_string(store::kSchemaVersion) +
                          "' WHERE key='schema_version'");
  auto db = open(db_path());
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM ingest_stats"), "1");
}

TEST_F(IngestPipelineTest, NotAnRcfDatabaseIsRefused) {
  write_file(db_path(), "this is not sqlite at all, just text\n");
  try {
    ingest_fixture(kCompFailure);
    ADD_FAILURE() << "expected a non-database file to be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(db_path()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(db_path()), "this is not sqlite at all, just text\n");
}

}  // namespace ingest_pipeline_test
}  // namespace rcf::pipeline
