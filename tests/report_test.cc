// `rcf report` and `rcf diff`: the report model on the bundled fixtures (charts, every recompile
// with its evidence, restart proofs, ingest statistics), escaping of log-derived text in HTML,
// Markdown and the embedded JSON, the Markdown upgrade notes against golden files, the size bound
// on a generated store, lane diffs, and the CLI.
//
// Regenerate the golden Markdown after an intended change:
//   RCF_UPDATE_GOLDEN=1 ./rcf_tests --gtest_filter='Report*Golden*'
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "report/explain.h"
#include "report/html_report.h"
#include "report/lane_diff.h"
#include "report/markdown_report.h"
#include "report/report_json.h"
#include "report/report_model.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/golden.h"
#include "tests/support/ingested_store.h"
#include "tests/support/report_store_generator.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "util/error.h"

namespace rcf {
namespace report_test {

using nlohmann::json;
using report::ReportModel;
using testing::expect_golden;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;

void ingest(const std::string& db, const std::string& lane, const std::string& run,
            const std::vector<std::string>& paths) {
  pipeline::IngestRequest req;
  req.db_path = db;
  req.lane = lane;
  req.run = run;
  for (const auto& p : paths) req.paths.push_back(p);
  pipeline::run_ingest(req);
}

using testing::scenario_files;

const report::RunReport* find_run(const ReportModel& m, const std::string& lane,
                                  const std::string& run) {
  for (const auto& l : m.lanes)
    for (const auto& r : l.runs)
      if (l.lane == lane && r.summary.run == run) return &r;
  return nullptr;
}

const report::LaneReport* find_lane(const ReportModel& m, const std::string& lane) {
  for (const auto& l : m.lanes)
    if (l.lane == lane) return &l;
  return nullptr;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Escaping.

TEST(ReportEscaping, HtmlEscapesMarkupQuotesAndBadBytes) {
  EXPECT_EQ(report::html_escape(R"(<script>alert("x") & 'y'</script>)"),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;");
  // Invalid UTF-8 (a lone continuation byte, a truncated sequence, an overlong '/') and NUL become
  // U+FFFD; valid multi-byte text and newlines are kept.
  EXPECT_EQ(report::html_escape(std::string("a\x80z\xE2\x82 \xC0\xAF\0b\n\xC3\xA9", 13)),
            "a\xEF\xBF\xBDz\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\n\xC3\xA9");
}

TEST(ReportEscaping, ScriptJsonCannotCloseTheScriptElement) {
  nlohmann::ordered_json value = {
      {"lane", "</script><script>alert(1)</script><!-- & 'q' \xE2\x80\xA8 \xE2\x80\xA9 \xFF"}};
  std::string text = report::script_safe_json(value);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(text.find('>'), std::string::npos) << text;
  EXPECT_EQ(text.find('&'), std::string::npos) << text;
  EXPECT_EQ(text.find('\''), std::string::npos) << text;
  EXPECT_EQ(text.find("\xE2\x80\xA8"), std::string::npos) << "raw U+2028 ends a JS line";
  EXPECT_NE(text.find("\\u2028"), std::string::npos) << text;
  // It is still the same JSON (the invalid byte replaced).
  json back = json::parse(text);
  EXPECT_EQ(back["lane"].get<std::string>().substr(0, 34), "</script><script>alert(1)</script>");
}

TEST(ReportEscaping, MarkdownKeepsTablesAndHtmlIntact) {
  EXPECT_EQ(report::md_code("a|b", true), "`a\\|b`");
  EXPECT_EQ(report::md_code("a|b", false), "`a|b`");
  EXPECT_EQ(report::md_code("x `y` z", false), "``x `y` z``");
  EXPECT_EQ(report::md_code("`edge`", false), "`` `edge` ``");
  EXPECT_EQ(report::md_text("size <script>| *x* _y_\nline2 ~z~ & [l](u)"),
            "size &lt;script&gt;\\| \\*x\\* \\_y\\_ line2 \\~z\\~ &amp; \\[l\\](u)");
  // Links, autolinks and control characters from logs stay inert text (issue 25 item 4).
  EXPECT_EQ(report::md_text("see http://a.b/c and www.d.e \x1b[2J"),
            "see http:&#47;&#47;a.b/c and www&#46;d.e \\\\x1b\\[2J");
  EXPECT_EQ(report::md_code("a\x1b]0;t\x07", false), "`a\\x1b]0;t\\x07`");
}

// ---------------------------------------------------------------------------------------------
// Pure pieces: cold/warm pairing, lane diffs, the chart.

TEST(ReportRestartPairs, PairsWarmRunsWithTheirColdRun) {
  using P = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(report::restart_pairs({"warm", "cold"}), (P{{"cold", "warm"}}));
  EXPECT_EQ(report::restart_pairs({"cold-2", "warm-1", "cold-1", "warm-2"}),
            (P{{"cold-1", "warm-1"}, {"cold-2", "warm-2"}}));
  // One cold run serves every warm run without a namesake.
  EXPECT_EQ(report::restart_pairs({"cold", "warm", "warm-after-upgrade"}),
            (P{{"cold", "warm"}, {"cold", "warm-after-upgrade"}}));
  EXPECT_TRUE(report::restart_pairs({"run1", "run2"}).empty());
  EXPECT_TRUE(report::restart_pairs({"warm"}).empty());
  // Two cold runs and no namesake: ambiguous, so no pair is made up.
  EXPECT_TRUE(report::restart_pairs({"cold-a", "cold-b", "warm"}).empty());
}

report::LaneFacts lane_facts(const std::string& lane, std::vector<report::LaneRunFacts> runs,
                             std::map<std::string, int64_t> sites,
                             std::map<std::string, int64_t> recompiles,
                             std::map<std::string, int64_t> causes) {
  report::LaneFacts f;
  f.lane = lane;
  f.runs = std::move(runs);
  f.site_compiles = std::move(sites);
  f.site_recompiles = std::move(recompiles);
  f.causes = std::move(causes);
  return f;
}

TEST(ReportLaneDiff, NamesNewAndVanishedSitesAndCauses) {
  report::LaneRunFacts a1, b1;
  a1.run = "r1";
  a1.programs = 15;
  a1.compiles = 15;
  a1.state = "settled";
  a1.settle_step = 5;
  a1.programs_at_settle = 15;
  a1.compile_ms = 1000;
  b1 = a1;
  b1.run = "nightly";  // one run each: paired whatever the labels
  b1.programs = 24;
  b1.compiles = 24;
  b1.recompiles = 9;
  b1.state = "still_growing";
  b1.settle_step = 25;
  b1.compile_ms = 1500;
  auto a = lane_facts("torch2.11", {a1}, {{"train.py:142", 14}, {"router.py:88", 1}},
                      {{"train.py:142", 2}}, {{"shape", 2}, {"sync_fragment", 1}});
  auto b = lane_facts("torch2.12", {b1}, {{"train.py:142", 23}, {"moe.py:212", 1}},
                      {{"train.py:142", 9}}, {{"constant", 8}, {"shape", 1}});
  auto d = report::diff_lanes(a, b);
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.runs[0].a->run, "r1");
  EXPECT_EQ(d.runs[0].b->run, "nightly");
  ASSERT_EQ(d.sites_new.size(), 1u);
  EXPECT_EQ(d.sites_new[0].name, "moe.py:212");
  ASSERT_EQ(d.sites_vanished.size(), 1u);
  EXPECT_EQ(d.sites_vanished[0].name, "router.py:88");
  ASSERT_EQ(d.sites_recompiles_changed.size(), 1u);
  EXPECT_EQ(d.sites_recompiles_changed[0].a, 2);
  EXPECT_EQ(d.sites_recompiles_changed[0].b, 9);
  ASSERT_EQ(d.causes_appeared.size(), 1u);
  EXPECT_EQ(d.causes_appeared[0].name, "constant");
  ASSERT_EQ(d.causes_disappeared.size(), 1u);
  EXPECT_EQ(d.causes_disappeared[0].name, "sync_fragment");
  ASSERT_EQ(d.causes_changed.size(), 1u);
  EXPECT_EQ(d.causes_changed[0].name, "shape");

  std::string text = report::render_diff_text(d);
  EXPECT_NE(text.find("programs:       15 -> 24 (+9)"), std::string::npos) << text;
  EXPECT_NE(text.find("(settled -> still_growing)"), std::string::npos) << text;
  EXPECT_NE(text.find("compile time:   1.0s -> 1.5s (+50%)"), std::string::npos) << text;
  EXPECT_NE(text.find("appeared: constant (8 recompiles in B)"), std::string::npos) << text;
  std::string md = report::render_diff_markdown(d);
  EXPECT_NE(md.find("| programs | 15 | 24 |  (+9) |"), std::string::npos) << md;
  EXPECT_NE(md.find("- `moe.py:212` (1 compiles)"), std::string::npos) << md;
  json j = json::parse(report::render_diff_json(d));
  EXPECT_EQ(j["schema_version"], report::kDiffJsonVersion);
  EXPECT_EQ(j["causes"]["appeared"][0]["name"], "constant");
  EXPECT_EQ(j["runs"][0]["b"]["programs"], 24);
}

TEST(ReportLaneDiff, PairsRunsByLabelWhenLanesHaveSeveral) {
  report::LaneRunFacts cold, warm, extra;
  cold.run = "cold";
  warm.run = "warm";
  extra.run = "extra";
  auto d = report::diff_lanes(lane_facts("a", {cold, warm}, {}, {}, {}),
                              lane_facts("b", {cold, extra}, {}, {}, {}));
  ASSERT_EQ(d.runs.size(), 3u);  // cold/cold, extra only in B, warm only in A (by label)
  EXPECT_TRUE(d.runs[0].a && d.runs[0].b);
  EXPECT_EQ(d.runs[0].a->run, "cold");
  EXPECT_FALSE(d.runs[1].a);
  EXPECT_EQ(d.runs[1].b->run, "extra");
  EXPECT_EQ(d.runs[2].a->run, "warm");
  EXPECT_FALSE(d.runs[2].b);
  EXPECT_NE(report::render_diff_text(d).find("(no run)"), std::string::npos);
}

TEST(ReportChart, StepLineMarksAndBarsFollowTheChangePoints) {
  report::RunChart c;
  c.has_curve = true;
  c.first_step = 1;
  c.last_step = 8;
  c.programs = {{1, 2}, {3, 5}};
  c.compiles = {{1, 2, 1500.0}, {3, 3, 4500.0}};
  c.marks = {{3, "shape", 2, 5}, {3, "constant", 1, 5}};
  c.max_programs = 5;
  c.max_compile_ms = 4500;
  // Shared domain 1..8: 888 user units / 8 columns = 111 per step from x=58.
  std::string svg = report::render_chart_svg(c, 1, 8, 0, "lane <x> / run");
  EXPECT_NE(svg.find(R"(data-chart="0")"), std::string::npos);
  // y: 150 px for 0..6 programs (round ticks of 2) from y=22: 2 -> 122, 5 -> 47.
  EXPECT_NE(svg.find(R"(<path class="programs" d="M58 122H280V47H946"/>)"), std::string::npos)
      << svg;
  EXPECT_EQ(count_of(svg, "<circle"), 2u);
  EXPECT_NE(svg.find(report::cause_colour("shape")), std::string::npos);
  EXPECT_EQ(count_of(svg, R"(<rect class="bar")"), 2u);
  EXPECT_NE(svg.find("compile time per step (max 4.5s)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("lane &lt;x&gt; / run"), std::string::npos);
  EXPECT_EQ(svg.find("<x>"), std::string::npos);
}

TEST(ReportChart, RecompilesAllAlongBecomeAStripUnderTheLine) {
  report::RunChart c;
  c.has_curve = true;
  c.first_step = 1;
  c.last_step = 100;
  c.max_programs = 100;
  for (int64_t s = 1; s <= 100; ++s) {
    c.programs.emplace_back(s, s);
    c.marks.push_back({s, "constant", 3, s});
    if (s % 2 == 0) c.marks.push_back({s, "shape", 1, s});
  }
  std::string svg = report::render_chart_svg(c, 1, 100, 0, "dense");
  EXPECT_EQ(count_of(svg, "<circle"), 0u);
  EXPECT_NE(svg.find("recompiles by cause"), std::string::npos);
  // One strip segment per mark: constant fills 3/4 of an even column, shape the last quarter.
  EXPECT_EQ(count_of(svg, "<title>step "), 150u);
  EXPECT_NE(svg.find(R"(height="7.5" fill="#d62728"><title>step 2: 3 constant recompiles)"),
            std::string::npos)
      << svg.substr(0, 3000);
}

// ---------------------------------------------------------------------------------------------
// The model and the renderers on the bundled fixtures (one database for the suite).

class ReportFixtures : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string db = dir_->file("rcf.db");
    ingest(db, "xla-bundle", "run1", {kFixtures + "/xla_bundle"});
    ingest(db, "constant-counter", "run1", scenario_files("constant_counter"));
    ingest(db, "optional-keys", "run1", scenario_files("optional_keys"));
    ingest(db, "shape-storm", "trace", {kFixtures + "/torch_trace/multi_rank_logs"});
    ingest(db, "moe4b", "cold", {kFixtures + "/restart/proven/cold"});
    ingest(db, "moe4b", "warm", {kFixtures + "/restart/proven/warm"});
    ingest(db, "moe4b-unread", "cold", {kFixtures + "/restart/unread/cold"});
    ingest(db, "moe4b-unread", "warm", {kFixtures + "/restart/unread/warm"});
    auto store = store::open_store(db, store::OpenMode::kRead);
    model_ = new ReportModel(report::build_report(*store, ""));
  }
  static void TearDownTestSuite() {
    delete model_;
    delete dir_;
  }
  static std::string db_path() { return dir_->file("rcf.db"); }
  static const ReportModel& model() { return *model_; }

  static TempDir* dir_;
  static ReportModel* model_;
};
TempDir* ReportFixtures::dir_ = nullptr;
ReportModel* ReportFixtures::model_ = nullptr;

TEST_F(ReportFixtures, ChartOfTheXlaBundleIsItsGroundTruth) {
  // fixtures/xla_bundle/README.md: 4 steps; A at step 1, B and C at step 2, nothing after.
  const auto* run = find_run(model(), "xla-bundle", "run1");
  ASSERT_NE(run, nullptr);
  const auto& c = run->chart;
  ASSERT_TRUE(c.has_curve);
  EXPECT_EQ(c.first_step, 1);
  EXPECT_EQ(c.last_step, 4);
  EXPECT_EQ(c.bucket, 1);
  EXPECT_EQ(c.programs, (std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {2, 3}}));
  ASSERT_EQ(c.marks.size(), 2u);  // B (sync fragment) and C (14 inputs instead of 12)
  EXPECT_EQ(c.marks[0].step, 2);
  EXPECT_EQ(c.marks[0].cause, "key_subset");
  EXPECT_EQ(c.marks[1].cause, "sync_fragment");
  EXPECT_EQ(c.marks[1].programs, 3);
  EXPECT_EQ(run->summary.settle_state, "settled");
  EXPECT_EQ(run->recompiles_after_settle, 0);
  ASSERT_TRUE(run->first_recompile.has_value());
  EXPECT_EQ(run->first_recompile->step, 2);
}

TEST_F(ReportFixtures, ConstantRecompilesShowTheLiteralOldToNewWithItsSourceLine) {
  const auto* run = find_run(model(), "constant-counter", "run1");
  ASSERT_NE(run, nullptr);
  ASSERT_FALSE(run->sites.empty());
  const auto& site = run->sites.front();
  EXPECT_EQ(site.site.find("/work/model/train.py:142"), 0u) << site.site;
  EXPECT_EQ(site.recompiles, 23);
  // 12 first + 4 latest listed, the 7 between counted.
  EXPECT_EQ(site.listed.size(), 16u);
  EXPECT_EQ(site.head, 12);
  EXPECT_EQ(site.not_listed, 7);
  const auto& r = site.listed.front();
  EXPECT_EQ(r.cause, "constant");
  ASSERT_TRUE(r.hlo_compared) << r.detail;
  EXPECT_TRUE(r.params.empty());  // same signature
  ASSERT_FALSE(r.constants.empty());
  EXPECT_NE(r.constants[0].old_value, r.constants[0].new_value);
  EXPECT_EQ(r.constants[0].source, "/work/model/moe.py:212");
  EXPECT_TRUE(r.op_delta.empty());
}

TEST_F(ReportFixtures, KeySubsetRecompilesShowTheParameterTable) {
  const auto* run = find_run(model(), "optional-keys", "run1");
  ASSERT_NE(run, nullptr);
  ASSERT_FALSE(run->sites.empty());
  bool absent_side = false;
  for (const auto& r : run->sites.front().listed) {
    EXPECT_EQ(r.cause, "key_subset");
    ASSERT_TRUE(r.hlo_compared);
    ASSERT_FALSE(r.params.empty());
    EXPECT_NE(r.old_params, r.new_params);
    for (const auto& p : r.params) absent_side = absent_side || !p.old_number || !p.new_number;
  }
  EXPECT_TRUE(absent_side) << "an optional key adds or removes an entry parameter";
}

TEST_F(ReportFixtures, DynamoRecompilesCarryTheGuardText) {
  const auto* run = find_run(model(), "shape-storm", "trace");
  ASSERT_NE(run, nullptr);
  EXPECT_FALSE(run->chart.has_curve);  // Dynamo logs carry no steps
  ASSERT_FALSE(run->sites.empty());
  const auto& r = run->sites.front().listed.front();
  EXPECT_EQ(r.cause, "shape");
  EXPECT_NE(r.guard_text.find("size mismatch"), std::string::npos) << r.guard_text;
  EXPECT_FALSE(r.hlo_compared);
  // Rank 0's only compile raised: the first failure of the run, named with what the runtime said.
  ASSERT_TRUE(run->first_failure.has_value());
  EXPECT_EQ(run->first_failure->program_key, "rank0:0/0");
  EXPECT_EQ(run->first_failure->reason, "BackendCompilerFailed");
}

TEST_F(ReportFixtures, RestartProofsComeFromTheColdWarmPairs) {
  const auto* proven = find_lane(model(), "moe4b");
  ASSERT_NE(proven, nullptr);
  ASSERT_EQ(proven->restarts.size(), 1u);
  EXPECT_EQ(proven->restarts[0].cold_run, "cold");
  EXPECT_EQ(proven->restarts[0].proof.verdict, analysis::RestartVerdict::kProven);
  const auto* unread = find_lane(model(), "moe4b-unread");
  ASSERT_NE(unread, nullptr);
  ASSERT_EQ(unread->restarts.size(), 1u);
  EXPECT_EQ(unread->restarts[0].proof.verdict, analysis::RestartVerdict::kCacheWrittenNotRead);
  EXPECT_TRUE(find_lane(model(), "xla-bundle")->restarts.empty());
}

TEST_F(ReportFixtures, IngestStatisticsArePerRunWithRelativePaths) {
  const auto* run = find_run(model(), "xla-bundle", "run1");
  ASSERT_NE(run, nullptr);
  // The walked directory's README is recorded too, as a file in no known format.
  ASSERT_EQ(run->sources.size(), 5u);
  EXPECT_EQ(run->sources[0].path, "xla_bundle/README.md");
  EXPECT_EQ(run->sources[0].format, "unrecognized");
  EXPECT_EQ(run->sources[1].path, "xla_bundle/metrics.txt");
  EXPECT_EQ(run->sources[1].format, "xla_metrics");
  EXPECT_EQ(run->sources[1].lines, 32);
  EXPECT_EQ(model().source_root, kFixtures + "/");
  EXPECT_EQ(run->formats, (std::vector<std::string>{"pt_xla_debug", "step_timing", "unrecognized",
                                                    "xla_metrics", "xla_saved_graph"}));
}

TEST_F(ReportFixtures, HtmlIsOneSelfContainedFile) {
  std::string html = report::render_report_html(model());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing is fetched: no external scripts, styles, images, fonts or links.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  // One chart per run with a curve: the torch_xla runs that compiled (the proven warm run
  // compiled nothing, so it has none), none for Dynamo.
  int curves = 0;
  for (const auto& l : model().lanes)
    for (const auto& r : l.runs) curves += r.chart.has_curve;
  EXPECT_EQ(curves, 6);
  EXPECT_FALSE(find_run(model(), "moe4b", "warm")->chart.has_curve);
  EXPECT_EQ(count_of(html, "<svg class=\"chart\""), 6u);
  json data = json::parse(html.substr(html.find('>', html.find("id=\"rcf-chart-data\"")) + 1,
                                      html.find("</script>", html.find("id=\"rcf-chart-data\"")) -
                                          html.find('>', html.find("id=\"rcf-chart-data\"")) - 1));
  EXPECT_EQ(data["charts"].size(), 6u);
  EXPECT_EQ(data["geometry"]["first"], 1);
  // Sections the issue asks for.
  for (const char* section : {"Fix first", "Recompiles by site", "Recompile-limit hits",
                              "Restart proofs", "Ingest statistics", "Bundle", "Convergence"})
    EXPECT_NE(html.find(section), std::string::npos) << section;
  EXPECT_NE(html.find("v-proven"), std::string::npos);
  EXPECT_NE(html.find("v-not_proven_cache_unread"), std::string::npos);
  EXPECT_NE(html.find("/work/model/moe.py:212"), std::string::npos);
}

// The stylesheet and the script are the files of report/assets/ byte for byte (embedded at build
// time by cmake/embed_text.cmake), each starting on the line after its opening tag.
TEST_F(ReportFixtures, HtmlEmbedsTheAssetFilesVerbatim) {
  std::string html = report::render_report_html(model());
  const std::string assets = std::string(RCF_FIXTURES_DIR) + "/../report/assets/";
  const std::string css = read_file(assets + "report.css");
  const std::string js = read_file(assets + "report.js");
  EXPECT_NE(html.find("</title><style>\n" + css + "</style></head>\n<body>\n"), std::string::npos);
  EXPECT_NE(html.find("</script>\n<script>\n" + js + "</script>\n</body></html>\n"),
            std::string::npos);
  EXPECT_EQ(count_of(html, "<style>"), 1u);
}

TEST_F(ReportFixtures, JsonCarriesEverythingVersioned) {
  json j = json::parse(report::render_report_json(model()));
  EXPECT_EQ(j["schema_version"], report::kReportJsonVersion);
  EXPECT_EQ(j["tool"], "rcf report");
  ASSERT_EQ(j["lanes"].size(), 6u);
  json xla;
  for (const auto& lane : j["lanes"])
    if (lane["lane"] == "xla-bundle") xla = lane["runs"][0];
  ASSERT_FALSE(xla.is_null());
  EXPECT_EQ(xla["chart"]["programs"], json::parse("[[1,1],[2,3]]"));
  EXPECT_EQ(xla["convergence"]["state"], "settled");
  EXPECT_EQ(xla["first_failing_frontier"]["recompile"]["step"], 2);
  EXPECT_EQ(xla["ingest"]["sources"].size(), 5u);
  json restart;
  for (const auto& lane : j["lanes"])
    if (lane["lane"] == "moe4b") restart = lane["restart_proofs"][0];
  EXPECT_EQ(restart["verdict"], "proven");
  EXPECT_EQ(restart["cold_run"], "cold");
  EXPECT_EQ(restart["warm_run"], "warm");
  // Deterministic: the same database gives the same bytes.
  EXPECT_EQ(report::render_report_json(model()), report::render_report_json(model()));
}

TEST_F(ReportFixtures, MarkdownGoldenXlaAndRestart) {
  auto db = store::open_store(db_path(), store::OpenMode::kRead);
  std::string md;
  for (const char* lane : {"xla-bundle", "constant-counter", "moe4b", "moe4b-unread"})
    md += report::render_report_markdown(report::build_report(*db, lane)) + "\n";
  expect_golden("report_xla_restart.md", md);
}

TEST_F(ReportFixtures, MarkdownGoldenDynamo) {
  auto db = store::open_store(db_path(), store::OpenMode::kRead);
  expect_golden("report_dynamo.md",
                report::render_report_markdown(report::build_report(*db, "shape-storm")));
}

TEST_F(ReportFixtures, MarkdownWordingIsNarrowAndPerLane) {
  auto db = store::open_store(db_path(), store::OpenMode::kRead);
  std::string md = report::render_report_markdown(report::build_report(*db, "xla-bundle"));
  EXPECT_NE(md.find("## Lane `xla-bundle`"), std::string::npos);
  EXPECT_NE(md.find("This lane settled at step 2 with 3 programs and showed no recompiles after "
                    "step 2 in the checked path (steps 1..4)."),
            std::string::npos)
      << md;
  for (const char* heading :
       {"### Validated default", "### Workaround", "### Open risk", "### First failing frontier"})
    EXPECT_NE(md.find(heading), std::string::npos) << heading;
  std::string restart = report::render_report_markdown(report::build_report(*db, "moe4b"));
  EXPECT_NE(restart.find("the restart reused all 15 executables"), std::string::npos) << restart;
}

TEST_F(ReportFixtures, UnknownLaneIsAnErrorNamingTheLanes) {
  auto db = store::open_store(db_path(), store::OpenMode::kRead);
  try {
    report::build_report(*db, "nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no lane named 'nope'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'xla-bundle'"), std::string::npos);
  }
}

TEST_F(ReportFixtures, DiffOfTwoRealLanes) {
  auto db = store::open_store(db_path(), store::OpenMode::kRead);
  auto d = report::diff_lanes(report::load_lane_facts(*db, "moe4b"),
                              report::load_lane_facts(*db, "moe4b-unread"));
  ASSERT_EQ(d.runs.size(), 2u);  // cold/cold, warm/warm
  EXPECT_EQ(d.runs[1].a->programs, 0);
  EXPECT_EQ(d.runs[1].b->programs, 15);
  ASSERT_EQ(d.a.restarts.size(), 1u);
  EXPECT_EQ(d.a.restarts[0].verdict, "proven");
  EXPECT_EQ(d.b.restarts[0].verdict, "not_proven_cache_unread");
  std::string text = report::render_diff_text(d);
  EXPECT_NE(text.find("A cold -> warm: proven"), std::string::npos) << text;
  EXPECT_THROW(report::load_lane_facts(*db, "missing"), Error);
}

// `text` with every inline code span (a backtick run up to the next run of the same length)
// removed.
std::string without_code_spans(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '`') {
      out += text[i++];
      continue;
    }
    size_t n = 0;
    while (i + n < text.size() && text[i + n] == '`') ++n;
    std::string fence(n, '`');
    size_t close = text.find(fence, i + n);
    while (close != std::string::npos && close + n < text.size() && text[close + n] == '`')
      close = text.find(fence, close + n + 1);
    if (close == std::string::npos) {
      out += text.substr(i, n);
      i += n;
      continue;
    }
    i = close + n;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Log-derived text that tries to break out of the HTML, Markdown and JSON.

TEST(ReportHostileInput, EveryLogStringIsEscaped) {
  TempDir dir;
  const std::string log = dir.file("dynamo<b>&'\".log");
  const std::string prefix =
      "V0606 12:51:18.544000 1 torch/_dynamo/guards.py:2610] [0/1] "
      "[__recompiles] ";
  write_file(log, prefix + "Recompiling function forward in /w/<script>alert(1)</script>.py:10\n" +
                      prefix + "    triggered by the following guard failure(s):\n" + prefix +
                      "    - tensor 'L['x']' dtype mismatch. expected </script><img src=x "
                      "onerror=alert(2)>, actual \"Float\" & 'Half' | pipe\n");
  const std::string db = dir.file("rcf.db");
  const std::string lane = "<img src=x onerror=alert(3)>";
  ingest(db, lane, "r\"1", {log});
  auto store = store::open_store(db, store::OpenMode::kRead);
  ReportModel m = report::build_report(*store, "");
  ASSERT_EQ(m.lanes.size(), 1u);
  const auto& run = m.lanes[0].runs[0];
  ASSERT_EQ(run.summary.recompiles, 1) << "the crafted log is a real recompile";
  ASSERT_FALSE(run.sites.empty());
  EXPECT_NE(run.sites[0].listed[0].guard_text.find("</script><img"), std::string::npos);

  std::string html = report::render_report_html(m);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("</script><img"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(3)&gt;"), std::string::npos);
  EXPECT_NE(html.find("/w/&lt;script&gt;alert(1)&lt;/script&gt;.py:10"), std::string::npos);
  EXPECT_NE(html.find("&quot;Float&quot; &amp; &#39;Half&#39;"), std::string::npos);
  EXPECT_NE(html.find("dynamo&lt;b&gt;&amp;&#39;&quot;.log"), std::string::npos);
  // Exactly the two script elements rcf writes, and nothing after the last one but the end.
  EXPECT_EQ(count_of(html, "<script"), 2u);
  EXPECT_EQ(count_of(html, "</script>"), 2u);

  // Markdown: raw '<' only inside code spans (which render literally); prose is escaped.
  std::string md = report::render_report_markdown(m);
  std::string prose = without_code_spans(md);
  EXPECT_EQ(prose.find("<img"), std::string::npos) << prose;
  EXPECT_EQ(prose.find("<script"), std::string::npos) << prose;
  EXPECT_EQ(prose.find("</script"), std::string::npos) << prose;
  EXPECT_NE(md.find("`<img src=x onerror=alert(3)>`"), std::string::npos);
  // Every table row keeps its column count: no unescaped '|' from the log.
  int rows = 0;
  for (size_t pos = 0, end; (end = md.find('\n', pos)) != std::string::npos; pos = end + 1) {
    std::string line = md.substr(pos, end - pos);
    if (line.rfind("| `r\"1` |", 0) == 0) {  // ingest statistics: 6 cells
      ++rows;
      EXPECT_EQ(count_of(line, " | "), 5u) << line;
    }
    if (line.rfind("| 1 | ", 0) == 0) {  // fix first: 7 cells, the detail holds "| pipe"
      ++rows;
      EXPECT_NE(line.find("\\| pipe"), std::string::npos) << line;
      EXPECT_EQ(count_of(line, " | "), 6u) << line;
    }
  }
  EXPECT_EQ(rows, 2);
  json j = json::parse(report::render_report_json(m));
  EXPECT_EQ(j["lanes"][0]["lane"], lane);
}

// ---------------------------------------------------------------------------------------------
// Size: a generated run with many events stays bounded.

// A store of one generated run (tests/support/report_store_generator.h), indexed and opened for
// reading; it lives in `dir`.
std::unique_ptr<store::Database> generated_store(const TempDir& dir, int64_t compiles,
                                                 int64_t steps, int64_t sites) {
  const std::string db_path = dir.file("rcf.db");
  testing::ReportStoreSpec spec;
  spec.compiles = compiles;
  spec.steps = steps;
  spec.sites = sites;
  {
    auto db = store::open_store(db_path, store::OpenMode::kCreateOrWrite);
    testing::generate_report_store(*db, spec);
    store::create_indexes(*db);
  }
  return store::open_store(db_path, store::OpenMode::kRead);
}

TEST(ReportScale, LargeRunStaysSmallAndComplete) {
  TempDir dir;
  auto db = generated_store(dir, 60000, 3000, 120);
  ReportModel m = report::build_report(*db, "");
  const auto& run = m.lanes.at(0).runs.at(0);
  EXPECT_EQ(run.summary.compiles, 60000);
  // 3000 steps in columns of 4 steps: at most 800 columns, and the curve still ends at 60000.
  EXPECT_EQ(run.chart.bucket, 4);
  EXPECT_LE(run.chart.programs.size(), 750u);
  EXPECT_EQ(run.chart.programs.back().second, 60000);
  EXPECT_EQ(run.chart.points, 3000);
  // Listings are bounded and say what they left out.
  EXPECT_EQ(static_cast<int64_t>(run.sites.size()), report::kMaxRecompileSites);
  EXPECT_EQ(run.sites_not_listed, 120 - report::kMaxRecompileSites);
  int64_t listed = 0;
  for (const auto& s : run.sites) {
    listed += static_cast<int64_t>(s.listed.size()) + s.not_listed;
    EXPECT_EQ(s.listed.size(),
              static_cast<size_t>(report::kRecompileHead + report::kRecompileTail));
  }
  EXPECT_EQ(listed, 40 * (500 - 1));  // 500 compiles per site, the first is first_compile
  std::string html = report::render_report_html(m);
  EXPECT_LT(html.size(), 2u * 1024 * 1024) << "HTML of a 60k-event run";
  EXPECT_NE(html.find("each column: 4 steps"), std::string::npos);
  EXPECT_LT(report::render_report_json(m).size(), 3u * 1024 * 1024);
}

// A run with more sites, fix-first rows and distinct graph breaks than any reader scrolls through
// (a million Dynamo compiles had 182 000 sites and 728 000 breaks): explain and the reports list
// the first ones of each and count the rest; `rcf explain --all` lists everything.
TEST(ReportScale, ExplainAndReportListingsAreBoundedAndCountTheRest) {
  TempDir dir;
  auto db = generated_store(dir, 6000, 300, 60);
  report::ExplainModel explain = report::build_explain(*db, "");
  ASSERT_EQ(explain.runs.size(), 1u);
  report::RunSummary& run = explain.runs[0];
  ASSERT_EQ(run.sites.size(), 60u);  // every compile row found its site's one entry
  int64_t compiles = 0;
  for (const auto& site : run.sites) {
    EXPECT_EQ(site.compiles, 100) << site.site;
    compiles += site.compiles;
  }
  EXPECT_EQ(compiles, 6000);
  for (int i = 0; i < 45; ++i)
    run.graph_breaks.push_back({fmt::format("/work/train.py:{}", 100 + i), "Tensor.item", 1, true});
  ASSERT_FALSE(run.fix_first.empty());
  run.fix_first.resize(45, run.fix_first.front());
  run.fix_first_total = 45;

  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string text = report::render_explain_text(explain);
  EXPECT_EQ(count(text, "\n   site "), 40u);
  EXPECT_NE(text.find("... 20 more sites (rcf explain --all"), std::string::npos);
  EXPECT_NE(text.find("... 5 more (rcf explain --all, or the fix_first view)"), std::string::npos);
  EXPECT_NE(text.find("... 5 more (rcf explain --all, or the graph_break table)"),
            std::string::npos);
  EXPECT_EQ(count(text, "Tensor.item"), 40u);
  report::ExplainListing all;
  all.rows = 0;
  const std::string whole = report::render_explain_text(explain, all);
  EXPECT_EQ(count(whole, "\n   site "), 60u);
  EXPECT_EQ(count(whole, "Tensor.item"), 45u);
  EXPECT_EQ(whole.find(" more "), std::string::npos);

  json j = json::parse(report::render_explain_json(explain));
  EXPECT_EQ(j["runs"][0]["sites"].size(), 40u);
  EXPECT_EQ(j["runs"][0]["sites_not_listed"], 20);
  EXPECT_EQ(j["runs"][0]["fix_first_not_listed"], 5);
  EXPECT_EQ(j["runs"][0]["graph_breaks"].size(), 40u);
  EXPECT_EQ(j["runs"][0]["graph_breaks_not_listed"], 5);
  j = json::parse(report::render_explain_json(explain, all));
  EXPECT_EQ(j["runs"][0]["sites"].size(), 60u);
  EXPECT_EQ(j["runs"][0]["graph_breaks_not_listed"], 0);

  ReportModel m = report::build_report(*db, "");
  m.lanes.at(0).runs.at(0).summary.graph_breaks = run.graph_breaks;
  const std::string html = report::render_report_html(m);
  EXPECT_EQ(count(html, "Tensor.item"), 40u);
  EXPECT_NE(html.find("&hellip; 5 more distinct graph breaks"), std::string::npos);
  j = json::parse(report::render_report_json(m));
  EXPECT_EQ(j["lanes"][0]["runs"][0]["graph_breaks"].size(), 40u);
  EXPECT_EQ(j["lanes"][0]["runs"][0]["graph_breaks_not_listed"], 5);
}

// build_explain told what will be listed reads the texts of only that much (the reasons of the
// first sites, the first fix-first rows), and renders exactly what the whole model renders.
TEST(ReportScale, ExplainLoadsOnlyWhatItListsAndRendersTheSame) {
  TempDir dir;
  auto db = generated_store(dir, 6000, 300, 60);
  const report::ExplainModel whole = report::build_explain(*db, "");
  const report::ExplainListing listing;  // the first 40 of each list
  const report::ExplainModel bounded = report::build_explain(*db, "", listing);
  ASSERT_EQ(whole.runs.size(), 1u);
  ASSERT_EQ(bounded.runs.size(), 1u);
  const report::RunSummary& w = whole.runs[0];
  const report::RunSummary& b = bounded.runs[0];
  EXPECT_GT(w.fix_first.size(), 40u);
  EXPECT_EQ(static_cast<int64_t>(w.fix_first.size()), w.fix_first_total);
  EXPECT_EQ(b.fix_first.size(), 40u);
  EXPECT_EQ(b.fix_first_total, w.fix_first_total);
  EXPECT_EQ(b.fix_first_unknown, w.fix_first_unknown);
  ASSERT_EQ(b.sites.size(), w.sites.size());
  for (size_t i = 0; i < b.sites.size(); ++i) {
    EXPECT_EQ(b.sites[i].site, w.sites[i].site);
    EXPECT_EQ(b.sites[i].recompiles, w.sites[i].recompiles);
    EXPECT_EQ(b.sites[i].causes, w.sites[i].causes);
    EXPECT_FALSE(w.sites[i].reasons.empty()) << w.sites[i].site;
    EXPECT_EQ(b.sites[i].reasons.empty(), i >= 40) << i;
  }
  EXPECT_EQ(report::render_explain_text(bounded, listing),
            report::render_explain_text(whole, listing));
  EXPECT_EQ(report::render_explain_json(bounded, listing),
            report::render_explain_json(whole, listing));
}

// ---------------------------------------------------------------------------------------------
// The CLI.

struct CliResult {
  int rc = -1;
  std::string out, err;
};

CliResult run_rcf(const TempDir& dir, const std::string& args) {
  std::string cmd = "cd '" + dir.path() + "' && '" + RCF_BINARY + "' " + args + " >'" +
                    dir.file(".out") + "' 2>'" + dir.file(".err") + "' </dev/null";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(dir.file(".out"));
  r.err = read_file(dir.file(".err"));
  return r;
}

TEST(ReportCli, ReportAndDiffCommands) {
  TempDir dir;
  ingest(dir.file("rcf.db"), "a", "run1", {kFixtures + "/xla_bundle"});
  ingest(dir.file("rcf.db"), "b", "run1", scenario_files("optional_keys"));

  CliResult r = run_rcf(dir, "report -o out.html");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("wrote html report to out.html"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir.file("out.html")).rfind("<!DOCTYPE html>", 0), 0u);
  // The format follows the extension unless --format says otherwise.
  r = run_rcf(dir, "report -o note.md --lane a");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("note.md")).rfind("# Upgrade note", 0), 0u);
  r = run_rcf(dir, "report --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["schema_version"], report::kReportJsonVersion);

  r = run_rcf(dir, "diff a b");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("== diff: lane a (A) -> lane b (B)"), std::string::npos) << r.out;
  r = run_rcf(dir, "diff a b --format md");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("## What changed: lane `a` → lane `b`", 0), 0u) << r.out;
  r = run_rcf(dir, "diff --json a b");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["lane_b"], "b");

  // Errors: exit 2 with a message, never a crash.
  for (const char* bad : {"report --lane nope", "report --format pdf", "diff a nope", "diff a a",
                          "diff a", "report --db missing.db", "report -o /no/such/dir/r.html"}) {
    r = run_rcf(dir, bad);
    EXPECT_EQ(r.rc, 2) << bad << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << bad;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << bad << ": " << r.err;
  }
}

TEST(ReportCli, DemoWritesTheReports) {
  TempDir dir;
  CliResult r = run_rcf(dir, "demo --out demo");
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("demo/report.html"), std::string::npos);
  std::string html = read_file(dir.file("demo/report.html"));
  std::string md = read_file(dir.file("demo/report.md"));
  json j = json::parse(read_file(dir.file("demo/report.json")));
  EXPECT_GE(j["lanes"].size(), 8u);
  // Several lanes with charts and a cold/warm pair with its proof.
  EXPECT_GE(count_of(html, "<svg class=\"chart\""), 5u);
  EXPECT_NE(md.find("## Lane `moe4b-restart`"), std::string::npos);
  EXPECT_NE(md.find("the restart reused all 15 executables"), std::string::npos);
  EXPECT_NE(md.find("## Lane `moe4b-restart-unread`"), std::string::npos);
  EXPECT_NE(md.find("not proven: cache written but not read"), std::string::npos);
}

}  // namespace report_test
}  // namespace rcf
