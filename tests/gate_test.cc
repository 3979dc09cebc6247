// `rcf gate`: the budget evaluation on small hand-built runs, the gate file, the output escapes,
// and the binary end to end on the settled xla_bundle fixture, a generated PT_XLA_DEBUG log whose
// program count still grows after step 20 (a `.item()` fragment first compiled at step 97), and
// Dynamo logs.
#include "analysis/gate.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/gate_file.h"
#include "report/gate_output.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "tests/support/xla_log_generator.h"
#include "util/error.h"

namespace rcf {
namespace gate_test {

using analysis::Budgets;
using analysis::CheckResult;
using analysis::CheckStatus;
using analysis::LaneFacts;
using analysis::LaneResult;
using analysis::RunFacts;

const std::string kMoeSite = "/work/model/moe.py:88 (forward)";
const std::string kLossSite = "/work/train.py:61 (compute_loss)";

const CheckResult* find_check(const LaneResult& lane, const std::string& budget) {
  for (const auto& c : lane.checks)
    if (c.budget == budget) return &c;
  return nullptr;
}

// A run that settles at step 5 with 15 programs over 30 steps.
RunFacts settled_run(const std::string& run = "r1") {
  RunFacts r;
  r.lane = "lane";
  r.run = run;
  for (int64_t step = 1; step <= 30; ++step)
    r.curve.push_back({step, step <= 5 ? step * 3 : 15, step <= 5 ? 3 : 0});
  r.programs = 15;
  r.compiles = 15;
  r.groups = {{kLossSite, "sync_fragment", 4,
               "user code accessed a tensor value at "
               "/work/train.py:61 (compute_loss)",
               2, 5}};
  return r;
}

// A run whose program count still grows: a constant flips at step 37.
RunFacts growing_run() {
  RunFacts r = settled_run();
  r.curve.push_back({37, 16, 1});
  r.curve.push_back({40, 16, 0});
  r.programs = 16;
  r.compiles = 16;
  // The most recompiles are shape recompiles early on; the late program is a constant.
  r.groups = {{"/work/data.py:12 (collate)", "shape", 9, "tensor 'x' dim 0: 15 -> 16", 1, 5},
              {kMoeSite, "constant", 1, "constant.12 s64[]: 3 -> 4", 37, 37}};
  r.groups.push_back(settled_run().groups.front());  // the sync fragments are unchanged
  r.arrivals = {{1, "/work/data.py:12 (collate)", "first_compile", ""},
                {37, kMoeSite, "constant", "constant.12 s64[]: 3 -> 4"}};
  return r;
}

LaneFacts lane_of(std::vector<RunFacts> runs) {
  LaneFacts lane;
  lane.lane = "lane";
  lane.runs = std::move(runs);
  lane.restart_unavailable =
      "a restart proof needs a cold and a warm run of the lane; it has 1 run";
  return lane;
}

TEST(GateSite, ParsesFileAndLineOfEachSiteForm) {
  auto torch_xla = analysis::parse_site("/work/train.py:61 (train_step)");
  EXPECT_EQ(torch_xla.file, "/work/train.py");
  EXPECT_EQ(torch_xla.line, 61);
  auto graph = analysis::parse_site("/work/train.py:61 (train_step) [fwd_bwd]");
  EXPECT_EQ(graph.file, "/work/train.py");
  EXPECT_EQ(graph.line, 61);
  auto windows = analysis::parse_site("C:\\proj\\train.py:7 (<lambda>)");
  EXPECT_EQ(windows.file, "C:\\proj\\train.py");
  EXPECT_EQ(windows.line, 7);
  // A JAX site is the traced function only; no line, no file.
  EXPECT_EQ(analysis::parse_site("jit_train_step").file, "");
  EXPECT_EQ(analysis::parse_site("/work/x.py:abc (f)").file, "");
  EXPECT_EQ(analysis::parse_site("/work/x.py: (f)").file, "");
  EXPECT_EQ(analysis::parse_site("").file, "");
}

TEST(GateGrowth, CountsAndPercentages) {
  auto p = analysis::parse_growth("10%", "--max-growth");
  EXPECT_TRUE(p.percent);
  EXPECT_EQ(analysis::allowed_after_growth(20, p), 22);
  EXPECT_EQ(analysis::allowed_after_growth(0, p), 0);
  EXPECT_EQ(analysis::allowed_after_growth(7, analysis::parse_growth("3", "x")), 10);
  EXPECT_EQ(analysis::allowed_after_growth(3, analysis::parse_growth("50%", "x")), 4);
  for (const char* bad : {"", "%", "-1", "abc", "1.5", "10%%", "3 "}) {
    try {
      analysis::parse_growth(bad, "--max-growth");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--max-growth: '"), std::string::npos) << e.what();
    }
  }
}

TEST(GateEvaluate, SettledRunPassesEveryBudget) {
  Budgets b;
  b.max_programs = 15;
  b.max_recompiles_per_site = 4;
  LaneResult r = analysis::evaluate_lane(lane_of({settled_run()}), b, nullptr);
  EXPECT_TRUE(r.passed());
  ASSERT_EQ(r.checks.size(), 3u);
  EXPECT_EQ(r.checks[0].message(), "programs 15 <= 15 allowed");
  EXPECT_EQ(r.checks[1].budget, "settle_by");
  EXPECT_EQ(r.checks[1].message(),
            "settled at step 5 with 15 programs; no new program in steps 6..30; new programs "
            "allowed until step 20");
  EXPECT_EQ(r.checks[2].message(), "4 recompiles at one site <= 4 allowed");
}

TEST(GateEvaluate, ProgramsOverBudgetNameTheTopCauseAndItsLine) {
  RunFacts run = growing_run();
  run.programs = 41;
  run.groups = {{kMoeSite, "constant", 3, "constant.12 s64[]: 3 -> 4", 2, 9}};
  Budgets b;
  b.max_programs = 20;
  b.settle_by.reset();
  LaneResult r = analysis::evaluate_lane(lane_of({run}), b, nullptr);
  ASSERT_EQ(r.checks.size(), 1u);
  const CheckResult& c = r.checks[0];
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.message(),
            "programs 41 > 20 allowed: top cause constant at /work/model/moe.py:88 (forward): "
            "constant.12 s64[]: 3 -> 4");
  ASSERT_TRUE(c.culprit);
  EXPECT_EQ(c.culprit->file, "/work/model/moe.py");
  EXPECT_EQ(c.culprit->line, 88);
  EXPECT_EQ(c.culprit->recompiles, 3);
  EXPECT_FALSE(r.passed());
}

TEST(GateEvaluate, LateProgramIsBlamedOnWhatArrivedLateNotOnTheBiggestGroup) {
  LaneResult r = analysis::evaluate_lane(lane_of({growing_run()}), Budgets{}, nullptr);
  const CheckResult* c = find_check(r, "settle_by");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kFail);
  EXPECT_EQ(*c->observed, 37);
  EXPECT_EQ(*c->allowed, 20);
  EXPECT_EQ(c->message(),
            "new program at step 37 > step 20 allowed (1 new program after step 20, 16 "
            "programs): top cause constant at /work/model/moe.py:88 (forward): constant.12 "
            "s64[]: 3 -> 4");
  // A later settle budget holds.
  Budgets late;
  late.settle_by = 40;
  EXPECT_TRUE(analysis::evaluate_lane(lane_of({growing_run()}), late, nullptr).passed());
}

TEST(GateEvaluate, NoCurveSkipsSettleAndNoTimingsSkipCompileShare) {
  RunFacts dynamo = settled_run();
  dynamo.curve.clear();
  Budgets b;
  b.max_compile_share = 0.5;
  LaneResult r = analysis::evaluate_lane(lane_of({dynamo}), b, nullptr);
  EXPECT_TRUE(r.passed());
  ASSERT_EQ(r.checks.size(), 2u);
  EXPECT_EQ(r.checks[0].status, CheckStatus::kSkipped);
  EXPECT_EQ(r.checks[0].summary, "no convergence curve: the logs give no steps");
  EXPECT_EQ(r.checks[1].budget, "max_compile_share");
  EXPECT_EQ(r.checks[1].status, CheckStatus::kSkipped);
}

TEST(GateEvaluate, CompileShareOverBudget) {
  RunFacts run = settled_run();
  run.compile_ms = 4150;
  run.wall_ms = 4590.5;
  run.compile_share = 4150 / 4590.5;
  Budgets b;
  b.max_compile_share = 0.5;
  LaneResult r = analysis::evaluate_lane(lane_of({run}), b, nullptr);
  const CheckResult* c = find_check(r, "max_compile_share");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kFail);
  EXPECT_EQ(c->message(),
            "compile share 90.4% > 50.0% allowed (4.2s compiling of 4.6s wall): top cause "
            "sync_fragment at /work/train.py:61 (compute_loss): user code accessed a tensor value "
            "at /work/train.py:61 (compute_loss)");
}

TEST(GateEvaluate, ForbiddenCausesAndRecompilesPerSite) {
  Budgets b;
  b.settle_by.reset();
  b.forbid_causes = {"constant", "dtype"};
  b.max_recompiles_per_site = 5;
  LaneResult r = analysis::evaluate_lane(lane_of({growing_run()}), b, nullptr);
  ASSERT_EQ(r.checks.size(), 3u);
  EXPECT_EQ(r.checks[0].budget, "max_recompiles_per_site");
  EXPECT_EQ(r.checks[0].message(),
            "9 recompiles at one site > 5 allowed: top cause shape at /work/data.py:12 (collate): "
            "tensor 'x' dim 0: 15 -> 16");
  // Forbidden causes keep the order they were given in.
  EXPECT_EQ(r.checks[1].budget, "forbid_cause:constant");
  EXPECT_EQ(r.checks[1].message(),
            "1 recompile with forbidden cause constant: top cause constant at "
            "/work/model/moe.py:88 (forward): constant.12 s64[]: 3 -> 4");
  EXPECT_EQ(r.checks[2].budget, "forbid_cause:dtype");
  EXPECT_EQ(r.checks[2].status, CheckStatus::kPass);
  EXPECT_EQ(r.checks[2].summary, "no recompile with cause dtype");
}

TEST(GateEvaluate, SeveralRunsShowTheWorstRun) {
  RunFacts cold = growing_run();
  cold.run = "cold";
  RunFacts warm = settled_run("warm");
  warm.programs = 0;
  Budgets b;
  b.max_programs = 10;
  LaneResult r = analysis::evaluate_lane(lane_of({cold, warm}), b, nullptr);
  EXPECT_EQ(r.runs, (std::vector<std::string>{"cold", "warm"}));
  const CheckResult* c = find_check(r, "max_programs");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CheckStatus::kFail);
  EXPECT_EQ(c->run, "cold");
  EXPECT_EQ(c->summary, "run cold: programs 16 > 10 allowed");
  const CheckResult* settle = find_check(r, "settle_by");
  ASSERT_NE(settle, nullptr);
  EXPECT_EQ(settle->run, "cold");
  EXPECT_EQ(settle->status, CheckStatus::kFail);
}

TEST(GateEvaluate, BaselineComparisonsInBothDirections) {
  analysis::LaneBaseline base{"base.db lane 'lane'", {settled_run()}};
  Budgets b;
  b.settle_by.reset();
  // Growing vs settled: more programs, a new cause, a later settle step.
  LaneResult worse = analysis::evaluate_lane(lane_of({growing_run()}), b, &base);
  EXPECT_FALSE(worse.passed());
  std::vector<std::string> failed;
  for (const auto& c : worse.checks)
    if (c.status == CheckStatus::kFail) failed.push_back(c.budget);
  EXPECT_EQ(failed, (std::vector<std::string>{"baseline_programs", "baseline_settle_step",
                                              "baseline_recompiles:constant",
                                              "baseline_recompiles:shape"}));
  EXPECT_EQ(find_check(worse, "baseline_programs")->summary,
            "programs 16 > 15 allowed (baseline 15 + 0 in base.db lane 'lane' run 'r1')");
  EXPECT_EQ(find_check(worse, "baseline_settle_step")->culprit->cause, "constant");
  // As many sync fragments as the baseline: within budget.
  EXPECT_EQ(find_check(worse, "baseline_recompiles:sync_fragment")->status, CheckStatus::kPass);
  // Fewer recompiles of a cause than the baseline is fine.
  RunFacts fewer = growing_run();
  fewer.groups.back().recompiles = 1;
  analysis::LaneBaseline grown_base{"base.db lane 'lane'", {growing_run()}};
  EXPECT_EQ(find_check(analysis::evaluate_lane(lane_of({fewer}), b, &grown_base),
                       "baseline_recompiles:sync_fragment")
                ->summary,
            "sync_fragment recompiles 1 <= 4 allowed (baseline 4 + 0 in base.db lane 'lane' run "
            "'r1')");

  // Settled vs growing: everything is at or below the baseline.
  analysis::LaneBaseline grown{"base.db lane 'lane'", {growing_run()}};
  LaneResult better = analysis::evaluate_lane(lane_of({settled_run()}), b, &grown);
  EXPECT_TRUE(better.passed());
  EXPECT_EQ(find_check(better, "baseline_settle_step")->summary,
            "settle step 5 <= 37 allowed (baseline 37 + 0 in base.db lane 'lane' run 'r1')");

  // A growth allowance: 15 programs + 10% allows 16.
  b.max_growth = analysis::parse_growth("10%", "x");
  LaneResult allowed = analysis::evaluate_lane(lane_of({growing_run()}), b, &base);
  EXPECT_EQ(find_check(allowed, "baseline_programs")->status, CheckStatus::kPass);
}

TEST(GateEvaluate, BaselineRunOfTheSameLabelIsPreferred) {
  RunFacts base_cold = growing_run();
  base_cold.run = "cold";
  RunFacts base_warm = settled_run("warm");
  base_warm.programs = 2;
  analysis::LaneBaseline base{"b.db lane 'lane'", {base_cold, base_warm}};
  RunFacts warm = settled_run("warm");
  warm.programs = 3;
  Budgets b;
  LaneResult r = analysis::evaluate_lane(lane_of({warm}), b, &base);
  EXPECT_EQ(find_check(r, "baseline_programs")->summary,
            "programs 3 > 2 allowed (baseline 2 + 0 in b.db lane 'lane' run 'warm')");
  // No run of that label: the largest value over the baseline's runs.
  warm.run = "nightly";
  r = analysis::evaluate_lane(lane_of({warm}), b, &base);
  EXPECT_EQ(find_check(r, "baseline_programs")->summary,
            "programs 3 <= 16 allowed (baseline 16 + 0 in b.db lane 'lane' (largest over its 2 "
            "runs))");
}

TEST(GateEvaluate, RequiredRestartProofWithoutEvidenceFails) {
  Budgets b;
  b.settle_by.reset();
  b.require_restart_proof = true;
  LaneResult r = analysis::evaluate_lane(lane_of({settled_run()}), b, nullptr);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].status, CheckStatus::kFail);
  EXPECT_EQ(r.checks[0].summary,
            "insufficient evidence for a restart proof: a restart proof needs a cold and a warm "
            "run of the lane; it has 1 run");
  LaneFacts proven = lane_of({settled_run("cold"), settled_run("warm")});
  proven.restart = analysis::RestartOutcome{true, "proven: warm run built 0 programs", {}};
  EXPECT_TRUE(analysis::evaluate_lane(proven, b, nullptr).passed());
}

// --- gate file ------------------------------------------------------------------------------

const char* kGateFile = R"({
  "schema_version": 1,
  "defaults": {"settle_by": 30, "forbid_cause": "sync_fragment"},
  "lanes": [
    {"lane": "mtp1-*", "max_programs": 20},
    {"lane": "mtp1-torch2.12", "settle_by": null, "max_growth": "10%"},
    {"lane": "*", "max_compile_share": 0.25, "max_recompiles_per_site": 3,
     "require_restart_proof": true}
  ]
})";

TEST(GateFile, LanesMatchByNameThenFirstGlob) {
  auto file = analysis::parse_gate_file(kGateFile, "gate.json");
  ASSERT_EQ(file.lanes.size(), 3u);
  EXPECT_EQ(analysis::match_gate_entry(file, "mtp1-torch2.12")->lane, "mtp1-torch2.12");
  EXPECT_EQ(analysis::match_gate_entry(file, "mtp1-torch2.11")->lane, "mtp1-*");
  EXPECT_EQ(analysis::match_gate_entry(file, "jax")->lane, "*");

  analysis::BudgetPatch flags;
  Budgets exact = analysis::budgets_for_lane(&file, flags, "mtp1-torch2.12");
  EXPECT_FALSE(exact.settle_by);     // null turns the settle check off
  EXPECT_FALSE(exact.max_programs);  // the exact entry wins; globs are not merged
  EXPECT_TRUE(exact.max_growth.percent);
  EXPECT_EQ(exact.forbid_causes, std::vector<std::string>{"sync_fragment"});

  Budgets glob = analysis::budgets_for_lane(&file, flags, "mtp1-torch2.11");
  EXPECT_EQ(glob.max_programs, 20);
  EXPECT_EQ(glob.settle_by, 30);

  // Flags override the file.
  flags.max_programs = 5;
  flags.forbid_causes = std::vector<std::string>{"constant", "shape"};
  Budgets flagged = analysis::budgets_for_lane(&file, flags, "mtp1-torch2.11");
  EXPECT_EQ(flagged.max_programs, 5);
  EXPECT_EQ(flagged.forbid_causes, (std::vector<std::string>{"constant", "shape"}));

  Budgets any = analysis::budgets_for_lane(&file, {}, "jax");
  EXPECT_EQ(any.max_compile_share, 0.25);
  EXPECT_EQ(any.max_recompiles_per_site, 3);
  EXPECT_TRUE(any.require_restart_proof);
  // Without a file: the built-in default settle budget only.
  Budgets none = analysis::budgets_for_lane(nullptr, {}, "jax");
  EXPECT_EQ(none.settle_by, analysis::kDefaultSettleBy);
  EXPECT_FALSE(none.max_programs);
}

std::string gate_file_error(const std::string& text) {
  try {
    analysis::parse_gate_file(text, "ci/gate.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(GateFile, MalformedFilesSayWhereAndWhat) {
  EXPECT_EQ(gate_file_error("{\n  \"lanes\": [\n    {\"lane\": \"a\",}\n  ]\n}"),
            "gate file ci/gate.json: not valid JSON: parse error at line 3, column 18: syntax "
            "error while parsing object key - unexpected '}'; expected string literal");
  EXPECT_EQ(gate_file_error(R"({"lanes": [{"lane": "a", "max_program": 3}]})"),
            "gate file ci/gate.json: lanes[0] (lane 'a'): unknown key 'max_program' (budgets: "
            "max_programs, settle_by, max_recompiles_per_site, forbid_cause, max_compile_share, "
            "max_growth, require_restart_proof; and lane)");
  EXPECT_EQ(gate_file_error(R"({"lanes": [{"lane": "a", "max_programs": "20"}]})"),
            "gate file ci/gate.json: lanes[0] (lane 'a'): max_programs must be a whole number "
            "from 0 to 1000000000000, got \"20\"");
  EXPECT_EQ(gate_file_error(R"({"lanes": [{"lane": "a", "max_programs": -1}]})"),
            "gate file ci/gate.json: lanes[0] (lane 'a'): max_programs must be a whole number "
            "from 0 to 1000000000000, got -1");
  EXPECT_EQ(gate_file_error(R"({"defaults": {"forbid_cause": ["constnat"]}})"),
            "gate file ci/gate.json: defaults: forbid_cause: unknown cause 'constnat' (causes: "
            "backend, constant, dtype, global_state, graph_structure, key_subset, "
            "object_identity, shape, sync_fragment, tensor_meta, type, unknown)");
  EXPECT_EQ(gate_file_error(R"({"lanes": [{"lane": "a"}, {"lane": "a"}]})"),
            "gate file ci/gate.json: lanes[1]: lane 'a' already has an entry (lanes[0])");
  EXPECT_EQ(gate_file_error(R"({"lanes": [{"max_programs": 1}]})"),
            "gate file ci/gate.json: lanes[0]: each entry needs \"lane\": a lane name or glob");
  EXPECT_EQ(gate_file_error(R"({"lanes": {"a": {}}})"),
            "gate file ci/gate.json: lanes: must be a list of entries {\"lane\": NAME_OR_GLOB, "
            "budgets...}");
  EXPECT_EQ(
      gate_file_error(R"({"schema_version": 2})"),
      "gate file ci/gate.json: schema_version: this rcf reads gate files of version 1, got 2");
  EXPECT_EQ(gate_file_error(R"({"defaults": {"max_compile_share": 25}})"),
            "gate file ci/gate.json: defaults: max_compile_share must be a number from 0 to 1 "
            "(0.25 = 25%), got 25");
  EXPECT_EQ(gate_file_error(R"({"defaults": {"max_growth": "ten"}})"),
            "gate file ci/gate.json: defaults: max_growth: 'ten' is not a growth allowance (a "
            "count such as 3 or a percentage such as 10%, from 0 to 1000000000000)");
  EXPECT_EQ(gate_file_error("[1, 2]"),
            "gate file ci/gate.json: top level: must be a JSON object with \"lanes\" (and "
            "optional \"defaults\")");
  EXPECT_EQ(gate_file_error(""),
            "gate file ci/gate.json: not valid JSON: parse error at line 1, column 1: syntax "
            "error while parsing value - unexpected end of input; expected '[', '{', or a "
            "literal");
}

TEST(GateFile, UnreadableAndTomlFilesAreRefused) {
  try {
    analysis::read_gate_file("/nonexistent/gate.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "gate file /nonexistent/gate.json: cannot read: No such file or directory");
  }
  try {
    analysis::read_gate_file("gate.toml");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TOML gate files are not supported"), std::string::npos);
  }
}

// --- escapes --------------------------------------------------------------------------------

TEST(GateOutput, EscapesForXmlAndWorkflowCommands) {
  EXPECT_EQ(report::xml_escape("a<b> & \"c\" 'd'\n\x01\xff\xc3\xa9"),
            "a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;&#10;\xEF\xBF\xBD\xEF\xBF\xBD\xc3\xa9");
  // Overlong and surrogate encodings are invalid UTF-8, U+FFFE is not an XML character.
  EXPECT_EQ(report::xml_escape("\xc0\xaf|\xed\xa0\x80|\xef\xbf\xbe"),
            "\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD");
  EXPECT_EQ(report::github_escape_data("50%: a, b\r\nnext"), "50%25: a, b%0D%0Anext");
  EXPECT_EQ(report::github_escape_property("C:\\x,y%\n"), "C%3A\\x%2Cy%25%0A");
}

TEST(GateOutput, AnnotationsOnlyForViolationsWithFileAndLine) {
  analysis::GateResult result;
  result.db = "rcf.db";
  Budgets b;
  b.max_programs = 10;
  b.forbid_causes = {"dtype"};
  result.lanes.push_back(analysis::evaluate_lane(lane_of({growing_run()}), b, nullptr));
  EXPECT_EQ(report::render_gate_annotations(result),
            "::error file=/work/data.py,line=12,title=rcf gate lane%3A max_programs::programs 16 > "
            "10 allowed: top cause shape at /work/data.py:12 (collate): tensor 'x' dim 0: 15 -> "
            "16\n"
            "::error file=/work/model/moe.py,line=88,title=rcf gate lane%3A settle_by::new program "
            "at step 37 > step 20 allowed (1 new program after step 20, 16 programs): top cause "
            "constant at /work/model/moe.py:88 (forward): constant.12 s64[]: 3 -> 4\n");
}

// --- end to end ------------------------------------------------------------------------------

std::string shell_quote(const std::string& s) {
  return "'" + testing::replace_all(s, "'", "'\\''") + "'";
}

struct CliRun {
  int rc = -1;
  std::string out;
  std::string err;
};

// A small, minimal XML reader for checking the JUnit output's shape: elements, attributes, text,
// the five entities and character references. Throws std::runtime_error on malformed XML.
struct XmlNode {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<XmlNode> children;
  std::string text;
  const XmlNode* child(const std::string& n) const {
    for (const auto& c : children)
      if (c.name == n) return &c;
    return nullptr;
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string s) : s_(std::move(s)) {}
  XmlNode document() {
    if (s_.compare(0, 5, "<?xml") == 0) pos_ = s_.find("?>") + 2;
    skip_space();
    XmlNode root = element();
    skip_space();
    if (pos_ != s_.size()) throw std::runtime_error("content after the root element");
    return root;
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    if (pos_ >= s_.size() || s_[pos_] != c)
      throw std::runtime_error(std::string("expected '") + c + "' at " + std::to_string(pos_));
    ++pos_;
  }
  std::string name() {
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '-' || s_[pos_] == '_' || s_[pos_] == ':'))
      ++pos_;
    if (start == pos_) throw std::runtime_error("expected a name at " + std::to_string(pos_));
    return s_.substr(start, pos_ - start);
  }
  std::string decode(const std::string& raw) {
    std::string out;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '<') throw std::runtime_error("raw '<' in text");
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      size_t semi = raw.find(';', i);
      if (semi == std::string::npos) throw std::runtime_error("unterminated entity");
      std::string ent = raw.substr(i + 1, semi - i - 1);
      static const std::map<std::string, std::string> kEntities = {
          {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
      if (kEntities.count(ent)) {
        out += kEntities.at(ent);
      } else if (ent.size() > 1 && ent[0] == '#') {
        int cp = std::stoi(ent.substr(1));
        if (cp != 9 && cp != 10 && cp != 13 && cp < 32)
          throw std::runtime_error("forbidden character reference");
        out += static_cast<char>(cp);
      } else {
        throw std::runtime_error("unknown entity &" + ent + ";");
      }
      i = semi;
    }
    return out;
  }
  XmlNode element() {
    expect('<');
    XmlNode node;
    node.name = name();
    for (;;) {
      skip_space();
      if (s_.compare(pos_, 2, "/>") == 0) {
        pos_ += 2;
        return node;
      }
      if (pos_ < s_.size() && s_[pos_] == '>') break;
      std::string key = name();
      expect('=');
      expect('"');
      size_t end = s_.find('"', pos_);
      if (end == std::string::npos) throw std::runtime_error("unterminated attribute");
      if (node.attrs.count(key)) throw std::runtime_error("duplicate attribute " + key);
      node.attrs[key] = decode(s_.substr(pos_, end - pos_));
      pos_ = end + 1;
    }
    expect('>');
    for (;;) {
      size_t lt = s_.find('<', pos_);
      if (lt == std::string::npos) throw std::runtime_error("unclosed <" + node.name + ">");
      node.text += decode(s_.substr(pos_, lt - pos_));
      pos_ = lt;
      if (s_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        if (name() != node.name) throw std::runtime_error("mismatched </...> for " + node.name);
        expect('>');
        return node;
      }
      node.children.push_back(element());
    }
  }
  std::string s_;
  size_t pos_ = 0;
};

class GateCli : public ::testing::Test {
 protected:
  // Runs `rcf ARGS...` in the temp directory with GITHUB_ACTIONS and GITHUB_STEP_SUMMARY unset
  // (the suite itself may run under GitHub Actions), plus `env` assignments.
  CliRun rcf(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    std::string cmd =
        "cd " + shell_quote(tmp_.path()) + " && env -u GITHUB_ACTIONS -u " + "GITHUB_STEP_SUMMARY";
    for (const auto& e : env) cmd += " " + shell_quote(e);
    cmd += " " + shell_quote(RCF_BINARY);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    cmd += " >" + shell_quote(tmp_.file(".stdout")) + " 2>" + shell_quote(tmp_.file(".stderr")) +
           " </dev/null";
    int status = std::system(cmd.c_str());
    CliRun r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = testing::read_file(tmp_.file(".stdout"));
    r.err = testing::read_file(tmp_.file(".stderr"));
    return r;
  }
  std::string path(const std::string& name) const { return tmp_.file(name); }

  void ingest_bundle(const std::string& db, const std::string& lane) {
    std::vector<std::string> args = {"ingest", "--db", db, "--lane", lane, "--run", "r1"};
    for (const char* f : {"pt_xla_debug.log", "save_tensors.hlo.0", "metrics.txt", "steps.csv"})
      args.push_back(std::string(RCF_FIXTURES_DIR) + "/xla_bundle/" + f);
    CliRun r = rcf(args);
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  // A PT_XLA_DEBUG_LEVEL=2 log with XLA_EMIT_STEPLOG markers over ~200 steps: four step graphs
  // early on, then a `.item()` fragment first compiled at step 97.
  void ingest_growing(const std::string& db, const std::string& lane) {
    testing::write_file(path("grow.log"), testing::make_pt_xla_debug_log(300000, 1));
    CliRun r = rcf({"ingest", "--db", db, "--lane", lane, "--run", "r1", path("grow.log")});
    ASSERT_EQ(r.rc, 0) << r.err;
  }

  testing::TempDir tmp_;
};

const std::string kFragmentSite = "/home/user/project/model/losses.py:77 (compute_loss)";

void expect_input_error(const CliRun& r, const std::string& message) {
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST_F(GateCli, SettledLanePasses) {
  ingest_bundle("t.db", "xla");
  CliRun r = rcf({"gate", "--db", "t.db", "--max-programs", "5", "--max-recompiles-per-site", "1"});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "rcf gate: t.db\n"
            "lane xla (run r1): ok\n"
            "  ok    max_programs                 programs 3 <= 5 allowed\n"
            "  ok    settle_by                    settled at step 2 with 3 programs; no new "
            "program in steps 3..4; new programs allowed until step 20\n"
            "  ok    max_recompiles_per_site      1 recompile at one site <= 1 allowed\n"
            "gate PASSED: 0 of 3 checks violated in 0 of 1 lane\n");
}

TEST_F(GateCli, GrowingLaneFailsNamingTheCauseAndSite) {
  ingest_bundle("t.db", "xla");
  ingest_growing("t.db", "grow");
  CliRun r = rcf({"gate", "--db", "t.db"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  // The growing log prints no training step (no step lines, no timings): its curve counts
  // syncs, the budget is applied to syncs and the verdict says so (docs/training_steps.md).
  EXPECT_NE(r.out.find("lane grow (run r1): FAIL\n  FAIL  settle_by                    new "
                       "program at sync 97 > sync 20 allowed (1 new program after sync 20, 5 "
                       "programs) (counted in syncs, the training step is undecided: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("or ingest a step-timing file (CSV or JSONL)): top cause sync_fragment at " +
                       kFragmentSite),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("lane xla (run r1): ok\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gate FAILED: 1 of 2 checks violated in 1 of 2 lanes\n"), std::string::npos)
      << r.out;

  CliRun json = rcf({"gate", "--db", "t.db", "--lane", "grow", "--json"});
  EXPECT_EQ(json.rc, 1);
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["passed"], false);
  const auto& check = doc["lanes"][0]["checks"][0];
  EXPECT_EQ(check["budget"], "settle_by");
  EXPECT_EQ(check["status"], "fail");
  EXPECT_EQ(check["observed"], 97);
  EXPECT_EQ(check["allowed"], 20);
  EXPECT_EQ(check["top_cause"]["cause"], "sync_fragment");
  EXPECT_EQ(check["top_cause"]["site"], kFragmentSite);
  EXPECT_EQ(check["top_cause"]["file"], "/home/user/project/model/losses.py");
  EXPECT_EQ(check["top_cause"]["line"], 77);

  // A settle budget past the fragment holds.
  EXPECT_EQ(rcf({"gate", "--db", "t.db", "--lane", "grow", "--settle-by", "100"}).rc, 0);
}

TEST_F(GateCli, BaselineComparisonsInBothDirections) {
  ingest_bundle("base.db", "ci");
  ingest_growing("grown.db", "ci");
  // The lane grew against its baseline: more programs, recompiles of a cause it did not have, a
  // later settle step; one more of each is allowed.
  CliRun worse = rcf({"gate", "--db", "grown.db", "--baseline", "base.db", "--max-growth", "1",
                      "--settle-by", "1000"});
  EXPECT_EQ(worse.rc, 1) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("FAIL  baseline_programs            programs 5 > 4 allowed (baseline "
                           "3 + 1 in base.db lane 'ci' run 'r1')"),
            std::string::npos)
      << worse.out;
  EXPECT_NE(worse.out.find("FAIL  baseline_settle_step         settle step 97 > 3 allowed"),
            std::string::npos)
      << worse.out;
  // The other direction: the settled bundle against the grown lane as baseline, named DB:LANE.
  ingest_growing("base2.db", "nightly");
  CliRun better =
      rcf({"gate", "--db", "base.db", "--baseline", "base2.db:nightly", "--max-growth", "1"});
  EXPECT_EQ(better.rc, 0) << better.out << better.err;
  EXPECT_NE(better.out.find("(baseline base2.db lane 'nightly')"), std::string::npos) << better.out;
  EXPECT_NE(better.out.find("ok    baseline_programs            programs 3 <= 6 allowed"),
            std::string::npos)
      << better.out;
  // Without the allowance, the bundle's one key_subset recompile (none in the baseline) fails.
  CliRun strict = rcf({"gate", "--db", "base.db", "--baseline", "base2.db:nightly", "--json"});
  EXPECT_EQ(strict.rc, 1);
  std::vector<std::string> failed;
  auto strict_doc = nlohmann::json::parse(strict.out);
  for (const auto& c : strict_doc["lanes"][0]["checks"])
    if (c["status"] == "fail") failed.push_back(c["budget"]);
  EXPECT_EQ(failed, std::vector<std::string>{"baseline_recompiles:key_subset"});

  expect_input_error(rcf({"gate", "--db", "base.db", "--baseline", "base2.db"}),
                     "baseline base2.db has no lane 'ci' (lanes: nightly)");
  expect_input_error(rcf({"gate", "--db", "base.db", "--baseline", "missing.db"}), "missing.db");
  expect_input_error(rcf({"gate", "--db", "base.db", "--max-growth", "10%"}),
                     "--max-growth compares with a baseline");
}

TEST_F(GateCli, MalformedGateFileIsAnInputErrorNamingFileAndProblem) {
  ingest_bundle("t.db", "xla");
  testing::write_file(path("gate.json"),
                      "{\"lanes\": [{\"lane\": \"xla\", \"max_programs\": "
                      "\"many\"}]}");
  expect_input_error(rcf({"gate", "--db", "t.db", "--gate-file", "gate.json"}),
                     "rcf: error: gate file gate.json: lanes[0] (lane 'xla'): max_programs must "
                     "be a whole number from 0 to 1000000000000, got \"many\"");
  testing::write_file(path("gate.json"), "{\"lanes\": [\n  {\"lane\": \"xla\" \"x\": 1}]}");
  expect_input_error(rcf({"gate", "--db", "t.db", "--gate-file", "gate.json"}),
                     "rcf: error: gate file gate.json: not valid JSON: parse error at line 2, "
                     "column 20");
  expect_input_error(rcf({"gate", "--db", "t.db", "--gate-file", "nope.json"}),
                     "gate file nope.json: cannot read");
}

TEST_F(GateCli, GateFileBudgetsApplyPerLane) {
  ingest_bundle("t.db", "xla");
  ingest_growing("t.db", "grow");
  testing::write_file(path("gate.json"), R"({
    "schema_version": 1,
    "defaults": {"settle_by": 150},
    "lanes": [{"lane": "gr*", "max_programs": 4, "forbid_cause": ["sync_fragment"]},
              {"lane": "xla", "max_compile_share": 0.95}]
  })");
  CliRun r = rcf({"gate", "--db", "t.db", "--gate-file", "gate.json", "--json"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, std::string> status;
  for (const auto& lane : doc["lanes"])
    for (const auto& c : lane["checks"])
      status[lane["lane"].get<std::string>() + " " + c["budget"].get<std::string>()] = c["status"];
  EXPECT_EQ(status, (std::map<std::string, std::string>{{"grow max_programs", "fail"},
                                                        {"grow settle_by", "pass"},
                                                        {"grow forbid_cause:sync_fragment", "fail"},
                                                        {"xla settle_by", "pass"},
                                                        {"xla max_compile_share", "pass"}}));
}

TEST_F(GateCli, CompileShareFromStepTimings) {
  ingest_bundle("t.db", "xla");
  // steps.csv: 4150 ms compiling of 4590.5 ms wall.
  CliRun r = rcf({"gate", "--db", "t.db", "--max-compile-share", "0.5"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL  max_compile_share            compile share 90.4% > 50.0% allowed"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(rcf({"gate", "--db", "t.db", "--max-compile-share", "0.95"}).rc, 0);
}

TEST_F(GateCli, DynamoLogsForbiddenCauseAndRecompilesPerSite) {
  CliRun in = rcf({"ingest", "--db", "t.db", "--lane", "trace",
                   std::string(RCF_FIXTURES_DIR) +
                       "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log"});
  ASSERT_EQ(in.rc, 0) << in.err;
  CliRun r = rcf(
      {"gate", "--db", "t.db", "--max-recompiles-per-site", "10", "--forbid-cause", "shape,dtype"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("skip  settle_by                    no convergence curve"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL  max_recompiles_per_site      14 recompiles at one site > 10 "
                       "allowed: top cause shape at "
                       "/Users/skarjala/Desktop/tlparse/tests/gen_many_frames.py:6 (kernel): "
                       "tensor 'x' dim 0: 15 -> 16"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL  forbid_cause:shape           14 recompiles with forbidden cause "
                       "shape"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ok    forbid_cause:dtype           no recompile with cause dtype"),
            std::string::npos)
      << r.out;
  expect_input_error(rcf({"gate", "--db", "t.db", "--forbid-cause", "shapes"}),
                     "--forbid-cause: unknown cause 'shapes'");
}

TEST_F(GateCli, JunitHasOneTestcasePerLaneAndBudget) {
  ingest_bundle("t.db", "xla");
  ingest_growing("t.db", "grow");
  CliRun r = rcf({"gate", "--db", "t.db", "--junit", "gate.xml", "--max-compile-share", "0.5",
                  "--forbid-cause", "sync_fragment", "constant"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  XmlNode root;
  ASSERT_NO_THROW(root = XmlReader(testing::read_file(path("gate.xml"))).document());
  EXPECT_EQ(root.name, "testsuites");
  int64_t tests = 0, failures = 0, skipped = 0;
  std::vector<std::string> cases;
  for (const auto& suite : root.children) {
    if (suite.name != "testsuite") continue;
    for (const char* attr : {"name", "tests", "failures", "errors"})
      EXPECT_TRUE(suite.attrs.count(attr)) << attr;
    int64_t suite_tests = 0, suite_failures = 0, suite_skipped = 0;
    for (const auto& tc : suite.children) {
      if (tc.name == "system-out") continue;
      ASSERT_EQ(tc.name, "testcase");
      EXPECT_EQ(tc.attrs.at("classname"), "rcf.gate." + suite.attrs.at("name"));
      cases.push_back(suite.attrs.at("name") + " " + tc.attrs.at("name"));
      ++suite_tests;
      if (const XmlNode* f = tc.child("failure")) {
        ++suite_failures;
        EXPECT_FALSE(f->attrs.at("message").empty());
        EXPECT_NE(f->text.find("top cause:"), std::string::npos) << f->text;
      }
      if (tc.child("skipped")) ++suite_skipped;
    }
    EXPECT_EQ(std::stoll(suite.attrs.at("tests")), suite_tests);
    EXPECT_EQ(std::stoll(suite.attrs.at("failures")), suite_failures);
    EXPECT_EQ(std::stoll(suite.attrs.at("skipped")), suite_skipped);
    tests += suite_tests;
    failures += suite_failures;
    skipped += suite_skipped;
  }
  EXPECT_EQ(std::stoll(root.attrs.at("tests")), tests);
  EXPECT_EQ(std::stoll(root.attrs.at("failures")), failures);
  EXPECT_EQ(std::stoll(root.attrs.at("skipped")), skipped);
  EXPECT_EQ(cases,
            (std::vector<std::string>{"grow settle_by", "grow forbid_cause:sync_fragment",
                                      "grow forbid_cause:constant", "grow max_compile_share",
                                      "xla settle_by", "xla forbid_cause:sync_fragment",
                                      "xla forbid_cause:constant", "xla max_compile_share"}));
  EXPECT_EQ(failures, 4);  // grow: settle, sync_fragment; xla: sync_fragment, compile share
  EXPECT_EQ(skipped, 1);   // grow has no step timings
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    EXPECT_EQ(std::system(("xmllint --noout " + shell_quote(path("gate.xml"))).c_str()), 0);
  }
  expect_input_error(rcf({"gate", "--db", "t.db", "--junit", "no/such/dir/gate.xml"}),
                     "cannot write no/such/dir/gate.xml");
}

TEST_F(GateCli, AnnotationsAndJobSummaryOnlyUnderGithubActions) {
  ingest_growing("t.db", "grow");
  testing::write_file(path("summary.md"), "# earlier step\n");
  std::vector<std::string> args = {"gate", "--db", "t.db", "--max-programs", "3"};
  CliRun plain = rcf(args, {"GITHUB_STEP_SUMMARY=" + path("summary.md")});
  EXPECT_EQ(plain.rc, 1);
  EXPECT_EQ(plain.out.find("::error"), std::string::npos) << plain.out;
  EXPECT_EQ(testing::read_file(path("summary.md")), "# earlier step\n");
  CliRun other = rcf(args, {"GITHUB_ACTIONS=false"});
  EXPECT_EQ(other.out.find("::error"), std::string::npos) << other.out;

  CliRun gh = rcf(args, {"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + path("summary.md")});
  EXPECT_EQ(gh.rc, 1);
  std::vector<std::string> annotations;
  size_t pos = 0;
  while ((pos = gh.out.find("::error ", pos)) != std::string::npos) {
    size_t end = gh.out.find('\n', pos);
    annotations.push_back(gh.out.substr(pos, end - pos));
    pos = end;
  }
  ASSERT_EQ(annotations.size(), 2u) << gh.out;  // max_programs and settle_by: one each
  EXPECT_EQ(annotations[0].rfind("::error file=/home/user/project/train.py,line=142,title=rcf "
                                 "gate grow%3A max_programs::programs 5 > 3 allowed: top cause "
                                 "unknown at /home/user/project/train.py:142 (train_step)",
                                 0),
            0u)
      << annotations[0];
  EXPECT_EQ(annotations[1].rfind("::error file=/home/user/project/model/losses.py,line=77,"
                                 "title=rcf gate grow%3A settle_by::new program at sync 97",
                                 0),
            0u)
      << annotations[1];
  std::string summary = testing::read_file(path("summary.md"));
  EXPECT_EQ(summary.rfind("# earlier step\n## rcf gate: FAILED\n", 0), 0u) << summary;
  EXPECT_NE(summary.find("| grow | settle_by | **FAIL** | sync 97 | sync 20 | new program at "
                         "sync 97"),
            std::string::npos)
      << summary;

  // Under --json the annotations go to stderr and stdout stays one JSON document.
  CliRun json =
      rcf({"gate", "--db", "t.db", "--max-programs", "3", "--json"}, {"GITHUB_ACTIONS=true"});
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
  EXPECT_NE(json.err.find("::error file="), std::string::npos) << json.err;
}

TEST_F(GateCli, RestartProofForColdWarmPairs) {
  // fixtures/restart: `proven` reuses its 15 programs, `unread` rebuilds them all.
  for (const char* lane : {"proven", "unread"})
    for (const char* run : {"cold", "warm"}) {
      CliRun r = rcf({"ingest", "--db", "t.db", "--lane", lane, "--run", run,
                      std::string(RCF_FIXTURES_DIR) + "/restart/" + lane + "/" + run});
      ASSERT_EQ(r.rc, 0) << r.err;
    }
  CliRun proven = rcf({"gate", "--db", "t.db", "--lane", "proven", "--require-restart-proof"});
  EXPECT_EQ(proven.rc, 0) << proven.out << proven.err;
  EXPECT_NE(proven.out.find("ok    restart_proof                cold -> warm: proven: "),
            std::string::npos)
      << proven.out;
  CliRun unread = rcf({"gate", "--db", "t.db", "--lane", "unread", "--require-restart-proof"},
                      {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(unread.rc, 1) << unread.out << unread.err;
  EXPECT_NE(unread.out.find("FAIL  restart_proof                cold -> warm: not proven: cache "
                            "written but not read"),
            std::string::npos)
      << unread.out;
  EXPECT_NE(unread.out.find("::error file=/work/moe/router.py,line=88,title=rcf gate unread%3A "
                            "restart_proof::"),
            std::string::npos)
      << unread.out;
  // Other labels for the pair; a lane without them has insufficient evidence.
  CliRun labels = rcf({"gate", "--db", "t.db", "--lane", "proven", "--require-restart-proof",
                       "--cold", "warm", "--warm", "nightly"});
  EXPECT_EQ(labels.rc, 1);
  EXPECT_NE(labels.out.find("FAIL  restart_proof                insufficient evidence for a "
                            "restart proof: the lane has no warm run 'nightly' (its runs: cold, "
                            "warm); ingest the cold and the warm run with --run warm and --run "
                            "nightly"),
            std::string::npos)
      << labels.out;
}

TEST_F(GateCli, UsageAndInputErrors) {
  ingest_bundle("t.db", "xla");
  expect_input_error(rcf({"gate", "--db", "t.db", "--lane", "nope"}),
                     "no lane named 'nope' in t.db (lanes: xla)");
  expect_input_error(rcf({"gate", "--db", "t.db", "--lane", "n*"}),
                     "no lane matches 'n*' in t.db (lanes: xla)");
  expect_input_error(rcf({"gate", "--db", "t.db", "--run", "warm"}),
                     "no run labelled 'warm' in t.db");
  expect_input_error(rcf({"gate", "--db", "missing.db"}), "missing.db");
  testing::write_file(path("junk.db"), "this is not a database\n");
  expect_input_error(rcf({"gate", "--db", "junk.db"}), "junk.db");
  store::open_store(path("empty.db"), store::OpenMode::kCreateOrWrite);
  expect_input_error(rcf({"gate", "--db", "empty.db"}), "no runs in empty.db");
  EXPECT_EQ(rcf({"gate", "--db", "t.db", "--max-programs", "-1"}).rc, 2);
  EXPECT_EQ(rcf({"gate", "--db", "t.db", "--max-compile-share", "1.5"}).rc, 2);
  EXPECT_EQ(rcf({"gate", "--db", "t.db", "--max-programs", "many"}).rc, 2);
  expect_input_error(rcf({"gate", "--db", "t.db", "--baseline", "t.db", "--max-growth", "lots"}),
                     "--max-growth: 'lots' is not a growth allowance");
}

// Log-derived text with markup, control characters and invalid UTF-8 stays well-formed XML and
// one Markdown table row.
TEST(GateOutputEscaping, HostileDetailsInJunitAndMarkdown) {
  RunFacts run = growing_run();
  run.groups = {{"/work/a<b>.py:3 (f|g)", "constant", 2,
                 "value <script>alert(1)</script> & \"q\" |x| \x01\x1b[31m \xff\nnext line", 1, 2}};
  Budgets b;
  b.settle_by.reset();
  b.max_programs = 1;
  analysis::GateResult result;
  result.db = "r&d.db";
  result.lanes.push_back(analysis::evaluate_lane(lane_of({run}), b, nullptr));
  result.lanes.back().lane = "lane<1>";

  XmlNode root = XmlReader(report::render_gate_junit(result)).document();
  const XmlNode& suite = root.children.at(0);
  EXPECT_EQ(suite.attrs.at("name"), "lane<1>");
  const XmlNode* failure = suite.children.at(0).child("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(
      failure->attrs.at("message"),
      "programs 16 > 1 allowed: top cause constant at /work/a<b>.py:3 (f|g): value "
      "<script>alert(1)</script> & \"q\" |x| \xEF\xBF\xBD\xEF\xBF\xBD[31m \xEF\xBF\xBD\nnext line");

  std::string md = report::render_gate_markdown(result);
  EXPECT_NE(
      md.find("| lane&lt;1&gt; | max_programs | **FAIL** | 16 | 1 | programs 16 &gt; 1 allowed: "
              "top cause constant at /work/a&lt;b&gt;.py:3 (f\\|g): value "
              "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"q\" \\|x\\| \\\\x01\\\\x1b\\[31m "
              "\xEF\xBF\xBD next line |\n"),
      std::string::npos)
      << md;
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_EQ(md.find('\x01'), std::string::npos);
}

}  // namespace gate_test
}  // namespace rcf
