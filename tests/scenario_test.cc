// The scenario bundles of fixtures/scenarios (synthetic runs with ground truth, written by
// generate.py; README.md there says what each one contains) ingested one lane each and compared
// with their truth.json: the compiles, per-recompile cause accuracy >= 95 %, the convergence
// summary, and the fix-first order. Failures list every mismatch: they tell the attribution
// engine what to fix. The generator must reproduce the checked-in files byte for byte.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "report/explain.h"
#include "store/store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace scenario_test {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

const std::string kScenarios = std::string(RCF_FIXTURES_DIR) + "/scenarios";
constexpr double kMinAccuracy = 0.95;

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kScenarios, ec))
    if (entry.is_directory() && fs::exists(entry.path() / "truth.json"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string text_or_null(const store::Statement& st, int col) {
  return st.is_null(col) ? "NULL" : st.str(col);
}

std::string json_text(const json& v) {
  if (v.is_null()) return "NULL";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// One bundle ingested as one run of its lane, with its truth.
struct IngestedScenario {
  std::string name;
  json truth;
  std::unique_ptr<TempDir> dir;
  pipeline::IngestSummary summary;
  std::unique_ptr<store::Database> db;
  std::string lane;
};

// Each bundle is ingested once and shared by the tests of its scenario.
const IngestedScenario& ingested(const std::string& name) {
  static std::map<std::string, std::unique_ptr<IngestedScenario>> cache;
  auto& slot = cache[name];
  if (slot) return *slot;
  slot = std::make_unique<IngestedScenario>();
  IngestedScenario& s = *slot;
  s.name = name;
  fs::path bundle = fs::path(kScenarios) / name;
  s.truth = json::parse(testing::read_file((bundle / "truth.json").string()));
  s.lane = s.truth.at("lane").get<std::string>();
  s.dir = std::make_unique<TempDir>();
  pipeline::IngestRequest req;
  req.db_path = s.dir->file("rcf.db");
  req.lane = s.lane;
  req.run = "r1";
  for (const auto& entry : fs::directory_iterator(bundle))
    if (entry.path().filename() != "truth.json") req.paths.push_back(entry.path().string());
  std::sort(req.paths.begin(), req.paths.end());
  s.summary = pipeline::run_ingest(req);
  s.db = store::open_store(req.db_path, store::OpenMode::kRead);
  return s;
}

class Scenario : public ::testing::TestWithParam<std::string> {
 protected:
  const IngestedScenario& s() { return ingested(GetParam()); }
  store::Statement query(const std::string& sql) {
    auto st = s().db->prepare(sql);
    st.bind(1, s().lane);
    return st;
  }
  // Steps may be off by this much where the truth says the logs cannot place them exactly.
  int64_t step_tolerance() { return s().truth.value("step_tolerance", int64_t{0}); }
  bool same_step(const std::string& got, const std::string& want) {
    if (got == want) return true;
    if (got == "NULL" || want == "NULL") return false;
    return std::llabs(std::stoll(got) - std::stoll(want)) <= step_tolerance();
  }
};

TEST(ScenarioBundles, EveryScenarioOfTheIssueIsCheckedIn) {
  EXPECT_EQ(scenario_names(),
            (std::vector<std::string>{"capacity_shape", "clean_settle", "constant_counter",
                                      "dynamo_lane", "dynamo_trace_lane", "grad_alternation",
                                      "item_sync", "mixed_causes", "multi_sync", "multi_sync_timed",
                                      "optional_keys"}));
}

// Every file is recognised by its importer and no line is rejected. Warnings (e.g. a Dynamo
// record still open at the end of the log, which an excerpt cut mid-record also looks like) are
// printed, not failed on.
TEST_P(Scenario, EveryFileIsReadWithoutRejects) {
  EXPECT_TRUE(s().summary.warnings.empty()) << s().summary.warnings.front();
  std::string bad;
  auto st = s().db->prepare(
      "SELECT path, format, rejected, first_error FROM source "
      "WHERE rejected > 0 OR format IN ('unrecognized', 'empty', 'plain_text')");
  while (st.step())
    bad += st.str(0) + ": format " + st.str(1) + ", " + st.str(2) + " rejected, first " +
           text_or_null(st, 3) + "\n";
  EXPECT_EQ(bad, "");
  auto notes = s().db->prepare(
      "SELECT s.path, n.reason, n.count, n.first_line FROM line_note n JOIN source s "
      "ON s.source_id = n.source_id WHERE n.fate = 'warning'");
  while (notes.step())
    std::printf("[ scenario ] %s: warning %s x%lld, first at line %lld\n", notes.str(0).c_str(),
                notes.str(1).c_str(), static_cast<long long>(notes.int64(2)),
                static_cast<long long>(notes.int64(3)));
}

// Compiles are facts of the logs (one per Compilation Analysis block / Dynamo compile id), not
// of attribution: the same program keys, sites and (where the logs have steps) steps.
TEST_P(Scenario, CompilesMatchTruth) {
  std::map<std::string, std::pair<std::string, std::string>> engine;  // key -> (step, site)
  auto st = query("SELECT program_key, step, site FROM compiles WHERE lane = ?1");
  while (st.step()) engine[st.str(0)] = {text_or_null(st, 1), st.str(2)};
  std::string diff;
  std::set<std::string> truth_keys;
  for (const auto& c : s().truth.at("compiles")) {
    std::string key = c.at("program_key"), site = c.at("site");
    std::string step = json_text(c.at("step"));
    truth_keys.insert(key);
    auto it = engine.find(key);
    if (it == engine.end()) {
      diff += "  missing compile " + key + " (step " + step + ", " + site + ")\n";
      continue;
    }
    if (it->second.second != site)
      diff += "  " + key + ": site " + it->second.second + ", truth " + site + "\n";
    if (!same_step(it->second.first, step))
      diff += "  " + key + ": step " + it->second.first + ", truth " + step + "\n";
  }
  for (const auto& [key, row] : engine)
    if (!truth_keys.count(key))
      diff += "  extra compile " + key + " (step " + row.first + ", " + row.second + ")\n";
  EXPECT_EQ(diff, "") << s().name << ": compiles differ from truth.json:\n" << diff;
}

// Per recompile (joined by program key; a sync fragment counts as a recompile): the cause must
// match. Compiles the engine calls recompiles but the truth does not count as misses too.
TEST_P(Scenario, RecompileCausesMatchTruth) {
  std::set<std::string> compiled;
  auto all = query("SELECT program_key FROM compiles WHERE lane = ?1");
  while (all.step()) compiled.insert(all.str(0));
  std::map<std::string, std::pair<std::string, std::string>> engine;  // key -> (cause, detail)
  auto st = query("SELECT program_key, cause, detail FROM recompiles WHERE lane = ?1");
  while (st.step()) engine[st.str(0)] = {st.str(1), text_or_null(st, 2)};
  std::map<std::string, std::string> truth;  // key -> cause
  std::set<std::string> scored;
  for (const auto& c : s().truth.at("compiles")) {
    truth[c.at("program_key")] = c.at("cause");
    if (c.at("cause") != "first_compile") scored.insert(c.at("program_key"));
  }
  for (const auto& [key, row] : engine) scored.insert(key);
  int correct = 0;
  std::string diff;
  for (const auto& key : scored) {
    std::string want = truth.count(key) ? truth[key] : "(no such compile)";
    auto it = engine.find(key);
    std::string got = it != engine.end()    ? it->second.first
                      : compiled.count(key) ? "first_compile"
                                            : "(not compiled)";
    if (got == want) {
      ++correct;
      continue;
    }
    diff += "  " + key + ": " + got + ", truth " + want;
    if (it != engine.end()) diff += "  [detail: " + it->second.second + "]";
    diff += "\n";
  }
  double accuracy = scored.empty() ? 1.0 : double(correct) / double(scored.size());
  std::printf("[ scenario ] %-16s %d/%zu recompiles attributed as in truth.json (%.1f %%)\n",
              s().name.c_str(), correct, scored.size(), 100 * accuracy);
  EXPECT_GE(accuracy, kMinAccuracy) << s().name << ": " << correct << " of " << scored.size()
                                    << " recompiles right; mismatches (engine, truth):\n"
                                    << diff;
}

// The settle step within the truth's step tolerance, and the evidence that decided the training
// step (docs/training_steps.md).
TEST_P(Scenario, ConvergenceSummaryMatchesTruth) {
  const json& want = s().truth.at("convergence");
  std::string expected = json_text(want.at("state")) + " programs_at_settle " +
                         json_text(want.at("programs_at_settle")) + " axis step " +
                         s().truth.at("step_basis").get<std::string>();
  std::string got, settle;
  auto st = query(
      "SELECT state, settle_step, programs_at_settle, step_axis, step_basis "
      "FROM convergence_summary WHERE lane = ?1");
  while (st.step()) {
    got += (got.empty() ? "" : " | ") + st.str(0) + " programs_at_settle " + text_or_null(st, 2) +
           " axis " + st.str(3) + " " + st.str(4);
    settle = text_or_null(st, 1);
  }
  EXPECT_EQ(got, expected) << s().name << ": convergence_summary (got) vs truth.json (expected)";
  EXPECT_TRUE(same_step(settle, json_text(want.at("settle_step"))))
      << s().name << ": settle step " << settle << ", truth " << want.at("settle_step");
}

TEST_P(Scenario, FixFirstOrderMatchesTruth) {
  const json& want = s().truth.at("fix_first");
  std::string expected, got, rows;
  for (const auto& g : want)
    expected += g.at("site").get<std::string>() + " / " + g.at("cause").get<std::string>() + "\n";
  auto st = query(
      "SELECT site, cause, recompiles, compile_ms_lost, compile_ms_basis FROM fix_first "
      "WHERE lane = ?1 ORDER BY rank");
  for (size_t n = 0; st.step(); ++n) {
    if (n < want.size()) got += st.str(0) + " / " + st.str(1) + "\n";
    rows += "  " + st.str(0) + " / " + st.str(1) + ": " + st.str(2) + " recompiles, " +
            text_or_null(st, 3) + " ms lost (" + st.str(4) + ")\n";
  }
  EXPECT_EQ(got, expected) << s().name << ": the first " << want.size()
                           << " fix_first rows differ from truth.json; the view holds:\n"
                           << rows;
}

// `rcf explain` shows the fix-first list first: right after the run's header lines (counts,
// causes, convergence, compile time), before any site, in the order of truth.json.
TEST_P(Scenario, ExplainShowsFixFirstRightAfterTheRunHeader) {
  const std::string text = report::render_explain_text(report::build_explain(*s().db, s().lane));
  const size_t fix = text.find("\n   fix first (by compile time lost):\n");
  ASSERT_NE(fix, std::string::npos) << text;
  const size_t first_site = text.find("\n   site ");
  ASSERT_NE(first_site, std::string::npos) << text;
  EXPECT_LT(fix, first_site) << text;
  // Everything before the list is the header: lines that start "== lane" or three spaces and a
  // header word.
  size_t pos = 0;
  for (size_t end; (end = text.find('\n', pos)) < fix; pos = end + 1) {
    std::string_view line(text.data() + pos, end - pos);
    bool header =
        line.starts_with("== lane ") ||
        (line.starts_with("   ") && !line.starts_with("   site ") && !line.starts_with("    "));
    EXPECT_TRUE(header) << "not a header line before the fix-first list: " << line << "\n" << text;
  }
  size_t at = fix;
  int rank = 0;
  for (const auto& g : s().truth.at("fix_first")) {
    const std::string item =
        fmt::format("   {:>3}. {} at {}: ", ++rank, g.at("cause").get<std::string>(),
                    g.at("site").get<std::string>());
    size_t found = text.find(item, at);
    EXPECT_NE(found, std::string::npos) << item << "\n" << text;
    EXPECT_LT(found, first_site) << item;
    if (found != std::string::npos) at = found;
  }
}

// The details the issue asks for beyond the cause: grad-create vs grad-accumulate is named as an
// alternation with both programs, and a dim that takes several values at a site lists them.
std::vector<std::string> details(const IngestedScenario& s, const std::string& cause) {
  auto st = s.db->prepare(
      "SELECT detail FROM recompiles WHERE lane = ?1 AND cause = ?2 ORDER BY program_key");
  st.bind(1, s.lane);
  st.bind(2, cause);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.str(0));
  return out;
}

// The TORCH_LOGS text log and the TORCH_TRACE log of one process are one process: the text log is
// read with the trace (CompilesMatchTruth checks each compile is counted once).
TEST(ScenarioDetails, TextLogAndTraceOfOneProcessAreReadAsOne) {
  const IngestedScenario& s = ingested("dynamo_trace_lane");
  auto st = s.db->prepare("SELECT source, same_process_as, evidence FROM merged_sources");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(fs::path(st.str(0)).filename(), "train.log");
  EXPECT_EQ(fs::path(st.str(1)).filename(), "dedicated_log_torch_trace_k3n9x2qa.log");
  EXPECT_NE(st.str(2).find("pid 48211"), std::string::npos) << st.str(2);
  EXPECT_FALSE(st.step());
}

TEST(ScenarioDetails, GradAlternationIsSaidToFlipBetweenTwoPrograms) {
  std::vector<std::string> got = details(ingested("grad_alternation"), "graph_structure");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rfind("alternation: this site flips between two programs forever", 0), 0u)
      << got[0];
  EXPECT_NE(got[0].find("in 13 steps (1..25)"), std::string::npos) << got[0];
  EXPECT_NE(got[0].find("in 12 steps (2..24)"), std::string::npos) << got[0];
  EXPECT_NE(got[0].find("grad-create vs grad-accumulate"), std::string::npos) << got[0];
}

TEST(ScenarioDetails, CapacityShapeListsEveryValueTheDimTook) {
  std::vector<std::string> got = details(ingested("capacity_shape"), "shape");
  ASSERT_EQ(got.size(), 2u);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got[0],
            "param 0 dim 1: 2048 -> 2056; param 1 dim 1: 2048 -> 2056; param 0 dim 1 took 3 "
            "values at this site: 2048, 2056, 2064");
  EXPECT_EQ(got[1],
            "param 0 dim 1: 2056 -> 2064; param 1 dim 1: 2056 -> 2064; param 0 dim 1 took 3 "
            "values at this site: 2048, 2056, 2064");
}

// A fragment is `high` only when a second artifact agrees with PT_XLA_DEBUG's cause line: here
// the metrics report's aten::_local_scalar_dense counter grows in the fragment's step (by 4: the
// lane calls .item() four times a step).
TEST(ScenarioDetails, ItemSyncFragmentsAreConfirmedByTheMetricsCounter) {
  const IngestedScenario& s = ingested("item_sync");
  auto st = s.db->prepare(
      "SELECT step, confidence, evidence FROM recompiles WHERE lane = ?1 AND "
      "cause = 'sync_fragment' ORDER BY ordinal");
  st.bind(1, s.lane);
  int fragments = 0;
  while (st.step()) {
    ++fragments;
    std::string evidence = st.str(2);
    EXPECT_EQ(st.str(1), "high") << evidence;
    EXPECT_NE(
        evidence.find(fmt::format(
            "the metrics counter aten::_local_scalar_dense grew by 4 in step {}", st.int64(0))),
        std::string::npos)
        << evidence;
  }
  EXPECT_GT(fragments, 0);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Scenario, ::testing::ValuesIn(scenario_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param;
                         });

// Every file under `root`, by path relative to it (generate.py itself and Python caches aside).
std::map<std::string, fs::path> tree(const fs::path& root) {
  std::map<std::string, fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string rel = fs::relative(entry.path(), root).generic_string();
    if (!entry.is_regular_file() || rel == "generate.py" ||
        rel.find("__pycache__") != std::string::npos)
      continue;
    files[rel] = entry.path();
  }
  return files;
}

TEST(ScenarioGenerator, RegeneratesTheCheckedInBundlesByteForByte) {
  if (std::system("command -v python3 > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 is not on PATH";
  TempDir out;
  std::string cmd = "python3 -B '" + kScenarios + "/generate.py' --out '" + out.path() + "' > '" +
                    out.file("generate.out") + "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << testing::read_file(out.file("generate.out"));
  fs::remove(out.file("generate.out"));
  auto fresh = tree(out.path());
  auto checked_in = tree(kScenarios);
  std::string diff;
  for (const auto& [rel, path] : fresh) {
    auto it = checked_in.find(rel);
    if (it == checked_in.end())
      diff += "  not checked in: " + rel + "\n";
    else if (testing::read_file(path.string()) != testing::read_file(it->second.string()))
      diff += "  differs: " + rel + "\n";
  }
  for (const auto& [rel, path] : checked_in)
    if (!fresh.count(rel)) diff += "  not generated: " + rel + "\n";
  EXPECT_EQ(diff, "") << "fixtures/scenarios differs from a fresh `python3 generate.py` "
                         "(re-run it and commit the result):\n"
                      << diff;
}

}  // namespace scenario_test
}  // namespace rcf
