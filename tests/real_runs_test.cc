// The recompile zoo's real runs (fixtures/real_runs: real torch.compile and jax.jit runs on an
// H100, README.md there): each capture directory is ingested as one run, as `rcf capture` would
// (logs/, stderr.log, stdout.log), and rcf's answers are compared with the truth each run wrote
// as it ran (truth.json: what the scenario did on purpose, and what the runtime reported in
// process). Checked: every intended compile with its function, step and cause, and no compile
// the runtime did not report (one compile counted once, also where a text log and a TORCH_TRACE
// log saw the same process); the recompile-limit hit; the epochs and training steps; the restart
// verdicts. Where the logs cannot place a compile in a step, rcf must say so and what would
// place it; where only the TORCH_TRACE clock places them, rcf must say so (kTraceClockSteps).
// examples/recompile_zoo/check.py is
// the same comparison for a user's own zoo run.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/restart_facts.h"
#include "analysis/restart_proof.h"
#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace real_runs_test {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

const fs::path kRealRuns = fs::path(RCF_FIXTURES_DIR) / "real_runs";

// Runs whose console shows no Dynamo record and no times (progress lines, and Inductor's TF32
// UserWarning in a cold run): their steps come from the TORCH_TRACE clock against the console's
// order (docs/training_steps.md, "The trace's clock"). -> whether the console shows the compile.
const std::map<std::string, bool> kTraceClockSteps = {
    {"inductor_cache/cold", true},
    {"inductor_cache/warm", false},  // a warm cache: Inductor warns of nothing
    {"inductor_cache/broken", true},
    {"new_module_each_step/run1", true},
};

// Runs whose steps come from the times their progress lines open with (another stream than the
// compile log), against the TORCH_TRACE compile start times.
const std::set<std::string> kTimestampSteps = {"multi_sync_steps/run1"};

struct Compile {
  std::optional<int64_t> step;
  std::string function, program_key, cause, kind;
};

struct ZooRun {
  json truth;
  std::string lane, run, name;  // name: lane/run
  int64_t run_id = 0;
  std::vector<Compile> compiles;  // rcf's, in order
};

std::string function_of(const std::string& site) {
  size_t open = site.rfind('(');
  if (open == std::string::npos || site.back() != ')') return site;
  return site.substr(open + 1, site.size() - open - 2);
}

// Every run of the zoo ingested once into one store, as the zoo's lanes and runs.
class RealRuns : public ::testing::Test {
 protected:
  // A failure here would only skip the tests (gtest), which CTest counts as passed: it is kept
  // and every test fails with it instead.
  static void SetUpTestSuite() {
    try {
      ingest_all();
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  void SetUp() override { ASSERT_EQ(setup_error_, "") << "ingesting fixtures/real_runs failed"; }

  static void ingest_all() {
    dir_ = new TempDir();
    runs_ = new std::vector<ZooRun>();
    for (const auto& lane : fs::directory_iterator(kRealRuns)) {
      if (!lane.is_directory()) continue;
      for (const auto& run : fs::directory_iterator(lane.path())) {
        fs::path truth = run.path() / "truth.json";
        if (!fs::exists(truth)) continue;
        ZooRun r;
        r.truth = json::parse(testing::read_file(truth.string()));
        r.lane = r.truth.at("lane").get<std::string>();
        r.run = r.truth.at("run").get<std::string>();
        r.name = r.lane + "/" + r.run;
        ingest(run.path(), r);
        runs_->push_back(std::move(r));
      }
    }
    std::sort(runs_->begin(), runs_->end(),
              [](const ZooRun& a, const ZooRun& b) { return a.name < b.name; });
    auto db = open();
    for (ZooRun& r : *runs_) load(*db, r);
  }
  static void TearDownTestSuite() {
    delete runs_;
    delete dir_;
  }

  static void ingest(const fs::path& capture, const ZooRun& r) {
    pipeline::IngestRequest req;
    req.db_path = dir_->file("rcf.db");
    req.lane = r.lane;
    req.run = r.run;
    // A JAX run writes no TORCH_TRACE: its empty logs/ directory is not in a clone.
    if (fs::exists(capture / "logs")) req.paths.push_back((capture / "logs").string());
    for (const char* console : {"stderr.log", "stdout.log"})
      if (fs::file_size(capture / console) > 0) req.paths.push_back((capture / console).string());
    pipeline::run_ingest(req);
  }

  static void load(store::Database& db, ZooRun& r) {
    auto id = db.prepare("SELECT run_id FROM runs WHERE lane = ? AND run = ?");
    id.bind(1, r.lane).bind(2, r.run);
    if (!id.step()) throw std::runtime_error(r.name + " was not ingested");
    r.run_id = id.int64(0);
    auto st = db.prepare(
        "SELECT c.step, c.site, c.program_key, coalesce(x.cause, 'first_compile'), c.kind "
        "FROM compiles c LEFT JOIN recompiles x ON x.run_id = c.run_id AND x.ordinal = c.ordinal "
        "WHERE c.run_id = ? ORDER BY c.ordinal");
    st.bind(1, r.run_id);
    while (st.step())
      r.compiles.push_back(
          {st.opt_int64(0), function_of(st.str(1)), st.str(2), st.str(3), st.str(4)});
  }

  static std::unique_ptr<store::Database> open() {
    return store::open_store(dir_->file("rcf.db"), store::OpenMode::kRead);
  }
  static const ZooRun& run(const std::string& name) {
    for (const ZooRun& r : *runs_)
      if (r.name == name) return r;
    ADD_FAILURE() << "no run " << name;
    static ZooRun none;
    return none;
  }
  static std::string step_detail(const ZooRun& r) {
    auto db = open();
    auto st = db->prepare("SELECT step_axis, step_detail FROM run_convergence WHERE run_id = ?");
    st.bind(1, r.run_id);
    return st.step() ? st.str(0) + ": " + st.str(1) : "";
  }

  static TempDir* dir_;
  static std::vector<ZooRun>* runs_;
  static std::string setup_error_;
};
TempDir* RealRuns::dir_ = nullptr;
std::vector<ZooRun>* RealRuns::runs_ = nullptr;
std::string RealRuns::setup_error_;

// The compiles rcf lists that the truth speaks of: JAX also compiles its own helpers (random
// numbers, casts), and a compile that hit the recompile limit built no program.
std::vector<const Compile*> programs_of(const ZooRun& r) {
  std::set<std::string> functions;
  for (const json& want : r.truth.at("intended")) functions.insert(want.at("function"));
  std::vector<const Compile*> out;
  for (const Compile& c : r.compiles) {
    if (c.kind == "dynamo_failed") continue;
    if (r.truth.at("framework") == "jax" && !functions.count(c.function)) continue;
    out.push_back(&c);
  }
  return out;
}

bool same_function(const Compile& c, const json& want) {
  const std::string& f = want.at("function").get_ref<const std::string&>();
  return want.value("prefix", false) ? c.function.rfind(f, 0) == 0 : c.function == f;
}

TEST_F(RealRuns, EveryScenarioRanAndRecordedItsTruth) {
  ASSERT_EQ(runs_->size(), 21u);
  for (const ZooRun& r : *runs_) {
    EXPECT_EQ(r.truth.at("status"), "ok") << r.name;
    EXPECT_EQ(r.truth.at("device"), "cuda") << r.name;
    EXPECT_FALSE(r.truth.at("intended").empty()) << r.name;
  }
  EXPECT_EQ(run("dtype_flip/run1").truth.at("versions").at("torch"), "2.11.0");
  EXPECT_EQ(run("jax_shape_change/run1").truth.at("versions").at("jax"), "0.11.2");
}

// The heart of it: per run, every intended compile is one rcf compile with the same function,
// step and cause, and rcf lists no other.
TEST_F(RealRuns, EveryCompileHasTheTruthsFunctionStepAndCause) {
  for (const ZooRun& r : *runs_) {
    SCOPED_TRACE(r.name);
    std::vector<const Compile*> left = programs_of(r);
    std::vector<std::string> problems;
    for (const json& want : r.truth.at("intended")) {
      if (want.value("if_observed", false)) continue;
      int64_t step = want.at("step");
      auto hit = std::find_if(left.begin(), left.end(), [&](const Compile* c) {
        return same_function(*c, want) && c->cause == want.at("cause") && c->step == step;
      });
      // A compile the console names only in a later reason: rcf must leave its step open.
      if (hit == left.end() && r.name == "reset_between_experiments/run1" &&
          want.at("function") == "score_b" && want.at("cause") == "first_compile")
        hit = std::find_if(left.begin(), left.end(), [&](const Compile* c) {
          return same_function(*c, want) && c->cause == "first_compile" && !c->step;
        });
      if (hit != left.end()) {
        left.erase(hit);
        continue;
      }
      problems.push_back(fmt::format("missing {} step {} {}", want.at("function").dump(), step,
                                     want.at("cause").dump()));
    }
    for (const Compile* c : left)
      problems.push_back(fmt::format("extra {} {} step {} {}", c->function, c->program_key,
                                     c->step ? std::to_string(*c->step) : "none", c->cause));
    EXPECT_TRUE(problems.empty()) << fmt::format("{}", fmt::join(problems, "\n"));
  }
}

// One compile counted once: rcf's Dynamo programs are exactly the compiles the runtime reported
// in process (a text log and a TORCH_TRACE log of one process are read as one).
TEST_F(RealRuns, DynamoCompilesAreCountedOnceAsTheRuntimeReported) {
  auto db = open();
  for (const ZooRun& r : *runs_) {
    if (r.truth.at("framework") != "torch") continue;
    SCOPED_TRACE(r.name);
    std::multiset<std::string> observed;
    for (const json& c : r.truth.at("observed_compiles"))
      if (c.at("fail_type").is_null()) observed.insert(c.at("compile_id").get<std::string>());
    std::multiset<std::string> listed;
    for (const Compile& c : r.compiles)
      if (c.kind == "dynamo") listed.insert(c.program_key.substr(c.program_key.rfind(':') + 1));
    EXPECT_EQ(listed.size(), observed.size());
    // Compile ids repeat after torch._dynamo.reset(); rcf keeps them apart as epochs.
    if (r.name != "reset_between_experiments/run1") {
      EXPECT_EQ(listed, observed);
    }
  }
  // Every console with Dynamo records was read as the process of its TORCH_TRACE log.
  auto merged = db->prepare(
      "SELECT count(*) FROM merged_sources m JOIN runs r USING (run_id) WHERE r.lane = ?");
  for (const char* lane : {"constant_counter", "item_sync", "item_sync_list_append",
                           "recompile_limit", "reset_between_experiments"}) {
    merged.reset();
    merged.bind(1, lane);
    ASSERT_TRUE(merged.step());
    EXPECT_EQ(merged.int64(0), 1) << lane;
  }
}

// `norms.append(loss.item())` breaks twice at one line: at .item() in train_step (frame 0), then
// at list.append in the first resume function (frame 1), which makes the second resume function
// (frame 2). Each fragment names the break of the frame just before it, by its registry type.
TEST_F(RealRuns, EachFragmentNamesTheBreakThatMadeIt) {
  const ZooRun& r = run("item_sync_list_append/run1");
  auto db = open();
  auto detail = db->prepare(
      "SELECT program_key, confidence, detail FROM recompiles WHERE run_id = ? AND cause = "
      "'sync_fragment' ORDER BY ordinal");
  detail.bind(1, r.run_id);
  std::vector<std::string> got;
  while (detail.step()) {
    std::string d = detail.str(2);
    std::string which =
        d.find("Tensor.item()") != std::string::npos ? "item"
        : d.find("Attempted to call function marked as skipped") != std::string::npos
            ? "skipped call"
            : "?";
    got.push_back(detail.str(0).substr(detail.str(0).rfind(':') + 1) + " " + which + " " +
                  detail.str(1));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"1/0 item high", "2/0 skipped call medium"}));
}

TEST_F(RealRuns, RecompileLimitHitIsAnEventNotAProgram) {
  const ZooRun& r = run("recompile_limit/run1");
  const json& want = r.truth.at("intended_limit_hit");
  ASSERT_EQ(r.truth.at("observed_limit_hits").size(), 1u);
  auto db = open();
  auto hit = db->prepare(
      "SELECT function, limit_value, limit_type, frame_compile_id FROM recompile_limit_hits "
      "WHERE run_id = ?");
  hit.bind(1, r.run_id);
  ASSERT_TRUE(hit.step());
  EXPECT_EQ(hit.str(0), want.at("function"));
  EXPECT_EQ(hit.int64(1), want.at("limit"));
  EXPECT_EQ(hit.str(2), "recompile_limit");
  // The attempt that hit the limit built nothing: a failed compile, in the step the truth says.
  auto failed = std::find_if(r.compiles.begin(), r.compiles.end(),
                             [](const Compile& c) { return c.kind == "dynamo_failed"; });
  ASSERT_NE(failed, r.compiles.end());
  EXPECT_EQ(failed->step, int64_t{want.at("step")} + 1);
  EXPECT_EQ(programs_of(r).size(), 4u);
}

TEST_F(RealRuns, TrainingStepsAndEpochsComeFromTheProgressLines) {
  auto db = open();
  auto conv = db->prepare(
      "SELECT step_axis, step_basis, step_detail, last_step FROM run_convergence WHERE run_id = "
      "?");
  for (const ZooRun& r : *runs_) {
    SCOPED_TRACE(r.name);
    conv.reset();
    conv.bind(1, r.run_id);
    ASSERT_TRUE(conv.step());
    EXPECT_EQ(conv.str(0), "step") << conv.str(2);
    EXPECT_EQ(conv.opt_int64(3), static_cast<int64_t>(r.truth.at("steps").size()));
    if (auto clock = kTraceClockSteps.find(r.name); clock != kTraceClockSteps.end()) {
      EXPECT_EQ(conv.str(1), "trace_clock");
      EXPECT_NE(conv.str(2).find("a run's first step always compiles"), std::string::npos);
      EXPECT_EQ(conv.str(2).find("`torch/_inductor/compile_fx.py:322`") != std::string::npos,
                clock->second)
          << conv.str(2);
      continue;
    }
    if (kTimestampSteps.count(r.name)) {
      EXPECT_EQ(conv.str(1), "step_timestamps");
      EXPECT_NE(conv.str(2).find("read as UTC+00:00, the clock the TORCH_TRACE log shows"),
                std::string::npos)
          << conv.str(2);
      continue;
    }
    EXPECT_EQ(conv.str(1), "step_lines");
    // Lines that report a step's loss are printed once the step is done.
    EXPECT_NE(conv.str(2).find("printed after the step's compiles"), std::string::npos);
  }
  // Two epochs of 4 steps (`epoch E step S/4`) unrolled into steps 1..8.
  const ZooRun& epochs = run("growing_seq_len/run1");
  EXPECT_EQ(epochs.truth.at("steps").back().at("epoch"), 1);
  EXPECT_NE(step_detail(epochs).find("steps 1..8"), std::string::npos) << step_detail(epochs);
  // A first compile the console names only in a later reason is left unplaced, and said so.
  EXPECT_NE(step_detail(run("reset_between_experiments/run1")).find("1 compile is not placed"),
            std::string::npos);
}

// The same console read alone (no TORCH_TRACE log beside it): `TORCH_LOGS=recompiles` logs no
// first compile, so after torch._dynamo.reset() the new epoch's first compile (e1:0/0, which the
// run did in step 5) is known only from the reason of its recompile. Its step is left open, not
// put in the first step; the run's own first compile (0/0) is in step 1.
TEST(RealRunConsole, AFirstCompileOnlyALaterReasonNamesIsNotPlacedInTheFirstStep) {
  TempDir dir;
  const std::string db = dir.file("t.db");
  testing::ingest_logs(db, {testing::fixture_path("real_runs/reset_between_experiments/run1/"
                                                  "stderr.log")});
  auto store = testing::read_store(db);
  auto st = store->prepare("SELECT program_key, step FROM compiles ORDER BY ordinal");
  std::vector<std::string> steps;
  while (st.step())
    steps.push_back(st.str(0) + " " + (st.is_null(1) ? "-" : std::to_string(st.int64(1))));
  EXPECT_EQ(steps, (std::vector<std::string>{"0/0 1", "0/1 2", "e1:0/0 -", "e1:0/1 5"}));
  auto detail = store->prepare("SELECT step_detail FROM run_convergence");
  ASSERT_TRUE(detail.step());
  EXPECT_NE(detail.str(0).find("1 compile is not placed in a step: only a later recompile reason "
                               "names it"),
            std::string::npos)
      << detail.str(0);
}

std::string gunzip(const fs::path& path) {
  gzFile f = gzopen(path.string().c_str(), "rb");
  std::string out;
  char buf[1 << 16];
  for (int n; f && (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  if (f) gzclose(f);
  return out;
}

// The same clocks one hour later, as a machine at UTC+01:00 prints them: glog prefixes
// (`V1126 20:42:46`) and Python logging's asctime (`2026-11-26 20:42:48,656`). Epoch times
// (compilation_metrics start times) stay. The zoo's clocks are all between 20:00 and 22:00.
std::string one_hour_east(const std::string& text) {
  std::string out = text;
  auto bump = [&out](size_t at) {
    int hour = (out[at] - '0') * 10 + (out[at + 1] - '0') + 1;
    out[at] = static_cast<char>('0' + hour / 10);
    out[at + 1] = static_cast<char>('0' + hour % 10);
  };
  auto digits = [&out](size_t at, size_t n) {
    for (size_t i = at; i < at + n; ++i)
      if (i >= out.size() || out[i] < '0' || out[i] > '9') return false;
    return true;
  };
  for (size_t line = 0; line < out.size(); line = out.find('\n', line) + 1) {
    if (std::string_view("IWEFV").find(out[line]) != std::string_view::npos &&
        digits(line + 1, 4) && out[line + 5] == ' ' && digits(line + 6, 2) && out[line + 8] == ':')
      bump(line + 6);
    else if (digits(line, 4) && out[line + 4] == '-' && digits(line + 11, 2) &&
             out[line + 13] == ':')
      bump(line + 11);
    if (out.find('\n', line) == std::string::npos) break;
  }
  return out;
}

// A console whose progress lines print local times without a zone is read in the zone the
// TORCH_TRACE log's own clock shows (its glog prefixes against its epoch start times): the same
// run on a machine one hour east of UTC places every compile in the same step.
TEST_F(RealRuns, ZoneLessStepTimesAreReadInTheZoneTheTraceClockShows) {
  const fs::path dir = kRealRuns / "multi_sync_steps" / "run1";
  TempDir east;
  fs::path trace;
  for (const auto& f : fs::directory_iterator(dir / "logs" / "torch_trace")) trace = f.path();
  testing::write_file(east.file("trace.log"), one_hour_east(gunzip(trace)));
  testing::write_file(east.file("stdout.log"),
                      one_hour_east(testing::read_file((dir / "stdout.log").string())));
  testing::write_file(east.file("stderr.log"),
                      one_hour_east(testing::read_file((dir / "stderr.log").string())));
  testing::ingest_logs(east.file("rcf.db"),
                       {east.file("trace.log"), east.file("stdout.log"), east.file("stderr.log")});
  auto db = testing::read_store(east.file("rcf.db"));
  auto steps = db->prepare("SELECT program_key, step FROM compiles ORDER BY ordinal");
  std::vector<std::string> got, want;
  while (steps.step()) got.push_back(steps.str(0) + "@" + steps.str(1));
  for (const Compile& c : run("multi_sync_steps/run1").compiles)
    want.push_back(c.program_key.substr(c.program_key.rfind(':') + 1) + "@" +
                   std::to_string(c.step.value_or(-1)));
  EXPECT_EQ(got, want);
  auto detail = db->prepare("SELECT step_detail FROM convergence_summary");
  ASSERT_TRUE(detail.step());
  EXPECT_NE(detail.str(0).find("read as UTC+01:00"), std::string::npos) << detail.str(0);
}

TEST_F(RealRuns, RestartVerdictsAreTheTruths) {
  auto db = open();
  auto prove = [&](const std::string& lane, const std::string& warm) {
    auto runs = analysis::resolve_restart_runs(*db, lane, "cold", warm);
    return analysis::decide_restart(analysis::load_restart_facts(*db, runs.cold_run_id),
                                    analysis::load_restart_facts(*db, runs.warm_run_id));
  };
  for (const ZooRun& r : *runs_) {
    if (!r.truth.contains("restart") || r.truth.at("restart").at("role") != "warm") continue;
    SCOPED_TRACE(r.name);
    analysis::RestartProof proof = prove(r.lane, r.run);
    const std::string expected = r.truth.at("restart").at("expected");
    if (expected == "proven")
      EXPECT_EQ(proof.verdict, analysis::RestartVerdict::kProven) << proof.headline;
    else
      EXPECT_NE(proof.verdict, analysis::RestartVerdict::kProven) << proof.headline;
  }
}

}  // namespace real_runs_test
}  // namespace rcf
