// The warm-restart proof: the verdict rules on hand-built facts (decide_restart is pure), the
// five cold/warm bundles of fixtures/restart/ (README.md there has their ground truth) ingested
// and judged end to end, and `rcf restart` exit codes, text and JSON.
#include "analysis/restart_proof.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "report/restart_output.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace restart_proof_test {

using analysis::CompileFact;
using analysis::decide_restart;
using analysis::JaxCacheFact;
using analysis::MetricsFact;
using analysis::RebuildKind;
using analysis::RestartProof;
using analysis::RestartVerdict;
using analysis::RunRestartFacts;
using testing::TempDir;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Hand-built facts.

struct XlaProgram {
  std::string key;
  std::string site;
  int64_t step;
  int64_t inputs;
};

// A torch_xla run: one Compilation Analysis block per program in pt_xla_debug.log.
RunRestartFacts xla_run(const std::string& label, const std::vector<XlaProgram>& programs,
                        int64_t executions = 0) {
  RunRestartFacts f;
  f.lane = "moe";
  f.run = label;
  f.formats = {"pt_xla_debug"};
  f.debug_logs = {"pt_xla_debug.log"};
  f.xla_executions = executions;
  int64_t line = 3;
  for (const auto& p : programs) {
    CompileFact c;
    c.program_key = p.key;
    c.site = p.site;
    c.kind = "xla";
    c.cache = "miss";
    c.step = p.step;
    c.graph_inputs = p.inputs;
    c.source_id = 1;
    c.source = "pt_xla_debug.log";
    c.line = line;
    line += 40;
    f.compiles.push_back(c);
  }
  return f;
}

// The last report of an XLA_METRICS_FILE: names as printed, times in ns.
void add_metrics(RunRestartFacts& f, std::map<std::string, double> values, int64_t step = 8) {
  MetricsFact m;
  m.source = "metrics.txt";
  m.step = step;
  m.values = std::move(values);
  f.formats.push_back("xla_metrics");
  f.metrics = std::move(m);
}

constexpr double kNsPerS = 1e9;
const std::string kStepSite = "/work/moe/train.py:212 (train_loop)";
const std::string kRouterSite = "/work/moe/router.py:88 (route_tokens)";

// Fifteen programs over two sites, steps 1..5 (three per step).
std::vector<XlaProgram> fifteen_programs() {
  std::vector<XlaProgram> v;
  for (int i = 0; i < 15; ++i)
    v.push_back({fmt::format("{:x}a{:030x}", i + 1, i * 7919 + 13),
                 i % 3 == 2 ? kStepSite : kRouterSite, i / 3 + 1, i % 3 == 2 ? 3626 : 64});
  return v;
}

RunRestartFacts cold_fifteen() {
  RunRestartFacts cold = xla_run("cold", fifteen_programs(), 27);
  add_metrics(cold, {{"CompileTime.TotalSamples", 15},
                     {"CompileTime.Accumulator", 1082.155 * kNsPerS},
                     {"UncachedCompile.Value", 15},
                     {"PersistentCacheMiss.Value", 15},
                     {"MarkStep.Value", 8}});
  return cold;
}

TEST(RestartVerdict, ProvenWhenNothingIsBuiltAndStartupDrops) {
  RunRestartFacts warm = xla_run("warm", {}, 27);
  add_metrics(warm, {{"PersistentCacheHit.Value", 15},
                     {"PersistentCacheLoad.TotalSamples", 15},
                     {"PersistentCacheLoad.Accumulator", 90.209 * kNsPerS},
                     {"CachedCompile.Value", 27},
                     {"MarkStep.Value", 8}});
  RestartProof p = decide_restart(cold_fifteen(), warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kProven);
  EXPECT_TRUE(contains(p.headline, "compile + cache-load time 18m02s -> 1m30s")) << p.headline;
  EXPECT_TRUE(contains(p.headline, "15 -> 0 programs built")) << p.headline;
  EXPECT_TRUE(contains(p.headline, "15 persistent-cache hits")) << p.headline;
  EXPECT_TRUE(p.rebuilt.empty());
  EXPECT_TRUE(p.to_enable.empty());
  ASSERT_FALSE(p.findings.empty());
  EXPECT_EQ(p.findings[0].what, "programs built");
  EXPECT_EQ(p.findings[0].text, "15 -> 0");
  EXPECT_TRUE(contains(p.findings[0].cold_evidence,
                       "15 PT_XLA_DEBUG Compilation Analysis blocks in pt_xla_debug.log"));
  EXPECT_TRUE(contains(p.findings[0].warm_evidence,
                       "no PT_XLA_DEBUG Compilation Analysis block in pt_xla_debug.log (27 "
                       "executions logged)"));
  // An absent CompileTime metric in a printed report means no compile.
  EXPECT_TRUE(contains(p.findings[0].warm_evidence, "CompileTime TotalSamples 0 in metrics.txt"));
}

TEST(RestartVerdict, AlmostNoProgramsIsAtMostATenthOfTheColdOnes) {
  auto warm_with = [](size_t rebuilt) {
    auto programs = fifteen_programs();
    std::vector<XlaProgram> warm_programs;
    for (size_t i = 0; i < rebuilt; ++i)
      warm_programs.push_back({"ff" + programs[i].key, programs[i].site, programs[i].step, 64});
    RunRestartFacts warm = xla_run("warm", warm_programs, 27);
    add_metrics(warm, {{"CompileTime.TotalSamples", static_cast<double>(rebuilt)},
                       {"CompileTime.Accumulator", 12.0 * kNsPerS * rebuilt},
                       {"PersistentCacheHit.Value", 15.0 - rebuilt},
                       {"PersistentCacheLoad.Accumulator", 80 * kNsPerS}});
    return warm;
  };
  EXPECT_EQ(decide_restart(cold_fifteen(), warm_with(1)).verdict, RestartVerdict::kProven);
  RestartProof p = decide_restart(cold_fifteen(), warm_with(2));
  EXPECT_EQ(p.verdict, RestartVerdict::kPartial) << p.headline;
  EXPECT_EQ(p.rebuilt.size(), 2u);
}

TEST(RestartVerdict, SameProgramsRebuiltAfterDeserializeFailuresIsCacheWrittenNotRead) {
  RunRestartFacts warm = xla_run("warm", fifteen_programs(), 27);
  add_metrics(warm, {{"CompileTime.TotalSamples", 15},
                     {"CompileTime.Accumulator", 1079.702 * kNsPerS},
                     {"PersistentCacheDeserializeFailure.Value", 15},
                     {"PersistentCacheLoad.Accumulator", 1.878 * kNsPerS},
                     {"UncachedCompile.Value", 15}});
  RestartProof p = decide_restart(cold_fifteen(), warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kCacheWrittenNotRead);
  EXPECT_TRUE(contains(p.headline,
                       "not proven: cache written but not read: the warm run rebuilt "
                       "15 of the cold run's 15 programs with the same keys; 0 "
                       "persistent-cache hits"))
      << p.headline;
  EXPECT_TRUE(contains(p.headline, "15 entries were found but failed to deserialize"));
  EXPECT_EQ(p.findings[0].what, "cache written");
  EXPECT_TRUE(contains(p.findings[0].cold_evidence, "PersistentCacheMiss"));
  ASSERT_EQ(p.rebuilt.size(), 15u);
  for (const auto& r : p.rebuilt) {
    EXPECT_EQ(r.kind, RebuildKind::kSameProgram);
    EXPECT_TRUE(contains(r.why, "could not deserialize it (PersistentCacheDeserializeFailure 15)"));
  }
}

TEST(RestartVerdict, SameProgramsRebuiltWithoutCacheCountersSaysWhatToEnable) {
  RestartProof p =
      decide_restart(xla_run("cold", fifteen_programs(), 27), xla_run("warm", fifteen_programs()));
  EXPECT_EQ(p.verdict, RestartVerdict::kCacheWrittenNotRead);
  EXPECT_TRUE(contains(p.headline, "not proven: the cache was not read")) << p.headline;
  EXPECT_TRUE(contains(p.headline, "persistent-cache hits not in the logs")) << p.headline;
  EXPECT_TRUE(contains(p.headline, "no time figure in the logs")) << p.headline;
  ASSERT_EQ(p.to_enable.size(), 1u);
  EXPECT_TRUE(contains(p.to_enable[0], "XLA_METRICS_FILE"));
}

TEST(RestartVerdict, ChangedGraphKeysAreListedWithTheProgramTheyReplace) {
  auto cold_programs = fifteen_programs();
  RunRestartFacts warm =
      xla_run("warm", {{"beef01", kRouterSite, 5, 64}, {"beef02", kStepSite, 5, 3628}}, 27);
  add_metrics(warm, {{"CompileTime.TotalSamples", 2},
                     {"CompileTime.Accumulator", 171.657 * kNsPerS},
                     {"PersistentCacheHit.Value", 13},
                     {"PersistentCacheMiss.Value", 2},
                     {"PersistentCacheLoad.Accumulator", 77.149 * kNsPerS}});
  RestartProof p = decide_restart(cold_fifteen(), warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kPartial);
  EXPECT_TRUE(contains(p.headline,
                       "partial: 15 -> 2 programs built; 13 persistent-cache hits: 2 "
                       "with a changed graph key; compile + cache-load time 18m02s "
                       "-> 4m08s"))
      << p.headline;
  ASSERT_EQ(p.rebuilt.size(), 2u);
  // Step 5 of the cold run built programs 13 (router) and 15 (step end) at these sites.
  EXPECT_EQ(p.rebuilt[0].kind, RebuildKind::kKeyChanged);
  EXPECT_EQ(p.rebuilt[0].cold_program_key, cold_programs[12].key);
  EXPECT_TRUE(contains(p.rebuilt[0].why, "same number of graph inputs (64)")) << p.rebuilt[0].why;
  EXPECT_EQ(p.rebuilt[1].cold_program_key, cold_programs[14].key);
  EXPECT_TRUE(contains(p.rebuilt[1].why, "graph key changed at this site: the cold run built " +
                                             cold_programs[14].key +
                                             " (step 5), the warm run "
                                             "beef02; graph inputs "
                                             "3626 -> 3628"))
      << p.rebuilt[1].why;
}

TEST(RestartVerdict, EveryKeyChangedWithNothingLoadedPointsAtTheCompileEnvironment) {
  std::vector<XlaProgram> renamed;
  for (auto p : fifteen_programs()) renamed.push_back({"e" + p.key, p.site, p.step, p.inputs});
  RestartProof p = decide_restart(xla_run("cold", fifteen_programs()), xla_run("warm", renamed));
  EXPECT_EQ(p.verdict, RestartVerdict::kPartial);
  ASSERT_FALSE(p.findings.empty());
  EXPECT_EQ(p.findings[0].what, "graph keys");
  EXPECT_TRUE(contains(p.findings[0].text, "the compile environment changed between the runs"));
}

TEST(RestartVerdict, AProgramAtANewSiteSaysSo) {
  RunRestartFacts warm = xla_run("warm", {{"abc1", "/work/moe/eval.py:41 (evaluate)", 6, 900},
                                          {"abc2", "/work/moe/eval.py:41 (evaluate)", 7, 900}});
  RestartProof p = decide_restart(xla_run("cold", fifteen_programs()), warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kPartial);
  ASSERT_EQ(p.rebuilt.size(), 2u);
  EXPECT_EQ(p.rebuilt[0].kind, RebuildKind::kNewSite);
  EXPECT_TRUE(contains(p.headline, "2 at a site the cold run never compiled")) << p.headline;
}

TEST(RestartVerdict, TimingsAloneAreInsufficientEvidence) {
  RunRestartFacts cold, warm;
  cold.formats = warm.formats = {"step_timing"};
  cold.timing = {"steps.csv", 8, 1, 371900.0, std::nullopt};
  warm.timing = {"steps.csv", 8, 1, 58300.0, std::nullopt};
  RestartProof p = decide_restart(cold, warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kInsufficientEvidence);
  EXPECT_TRUE(contains(p.headline, "neither run's logs show which programs were compiled"));
  EXPECT_TRUE(contains(p.headline, "the first step went 6m11s -> 58.3s")) << p.headline;
  ASSERT_EQ(p.to_enable.size(), 2u);  // no framework in the logs: torch_xla and JAX advice
  EXPECT_TRUE(contains(p.to_enable[0], "PT_XLA_DEBUG_LEVEL=1"));
  EXPECT_TRUE(contains(p.to_enable[1], "jax_log_compiles=True"));
  ASSERT_EQ(p.findings.size(), 1u);
  EXPECT_EQ(p.findings[0].text, "6m11s -> 58.3s (-84%)");
}

TEST(RestartVerdict, AColdRunThatBuiltNothingIsNotCold) {
  RestartProof p = decide_restart(xla_run("cold", {}, 27), xla_run("warm", {}, 27));
  EXPECT_EQ(p.verdict, RestartVerdict::kInsufficientEvidence);
  EXPECT_TRUE(contains(p.headline, "the cold run built no program")) << p.headline;
}

TEST(RestartVerdict, AWarmRunWithNoActivityMayNotHaveRun) {
  RestartProof p = decide_restart(xla_run("cold", fifteen_programs()), xla_run("warm", {}, 0));
  EXPECT_EQ(p.verdict, RestartVerdict::kInsufficientEvidence);
  EXPECT_TRUE(contains(p.headline, "no compile and also no execution")) << p.headline;
  // With executions logged the same warm run is judged on its figures (no time: insufficient,
  // asking for times).
  p = decide_restart(xla_run("cold", fifteen_programs()), xla_run("warm", {}, 27));
  EXPECT_EQ(p.verdict, RestartVerdict::kInsufficientEvidence);
  EXPECT_TRUE(contains(p.headline, "15 -> 0 programs built")) << p.headline;
  ASSERT_EQ(p.to_enable.size(), 1u);
  EXPECT_TRUE(contains(p.to_enable[0], "step timings"));
}

TEST(RestartVerdict, FirstStepTimeDecidesWhenNoCompileTimeIsLogged) {
  RunRestartFacts cold = xla_run("cold", fifteen_programs()), warm = xla_run("warm", {}, 27);
  cold.timing = {"steps.csv", 8, 1, 166030.6, std::nullopt};
  warm.timing = {"steps.csv", 8, 1, 15949.6, std::nullopt};
  RestartProof p = decide_restart(cold, warm);
  // The warm run built nothing: its compile time is known (zero), the cold one's is not.
  EXPECT_EQ(p.verdict, RestartVerdict::kProven) << p.headline;
  EXPECT_TRUE(contains(p.headline, "first step 2m46s -> 15.9s")) << p.headline;
}

TEST(RestartVerdict, NoRebuildsButNoSpeedUpIsPartial) {
  RunRestartFacts warm = xla_run("warm", {}, 27);
  add_metrics(
      warm, {{"PersistentCacheHit.Value", 15}, {"PersistentCacheLoad.Accumulator", 700 * kNsPerS}});
  RestartProof p = decide_restart(cold_fifteen(), warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kPartial);
  EXPECT_TRUE(contains(p.headline,
                       "did not start faster: compile + cache-load time 18m02s -> "
                       "11m40s"))
      << p.headline;
  EXPECT_TRUE(contains(p.headline, "loading from the cache costs about as much as compiling"));
}

TEST(RestartVerdict, CompileTimeSamplesBeyondTheBlocksCountAndAreNoted) {
  RunRestartFacts cold = cold_fifteen();
  cold.metrics->values["CompileTime.TotalSamples"] = 17;
  RunRestartFacts warm = xla_run("warm", {}, 27);
  add_metrics(warm, {{"PersistentCacheHit.Value", 15}});
  RestartProof p = decide_restart(cold, warm);
  EXPECT_EQ(p.cold.programs_built->value, 17);
  EXPECT_TRUE(contains(p.cold.notes.at(0), "the compile log shows 15 compiles, CompileTime 17"));
}

TEST(RestartVerdict, MetricsAloneGiveTheCounts) {
  RunRestartFacts cold, warm;
  add_metrics(cold, {{"CompileTime.TotalSamples", 4},
                     {"CompileTime.Accumulator", 8.849 * kNsPerS},
                     {"MarkStep.Value", 4}});
  add_metrics(warm, {{"PersistentCacheHit.Value", 4},
                     {"PersistentCacheLoad.Accumulator", 0.4 * kNsPerS},
                     {"MarkStep.Value", 4}});
  RestartProof p = decide_restart(cold, warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kProven) << p.headline;
  EXPECT_TRUE(contains(p.headline, "8.8s -> 400ms")) << p.headline;
  EXPECT_EQ(p.findings[0].cold_evidence,
            "CompileTime TotalSamples 4 in metrics.txt (last report, step 8)");
}

// JAX: a `Finished XLA compilation` record after a persistent-cache hit is a load.
RunRestartFacts jax_run(const std::string& label) {
  RunRestartFacts f;
  f.lane = "jax";
  f.run = label;
  f.formats = {"jax_log"};
  return f;
}
void jax_compile(RunRestartFacts& f, const std::string& fn, int64_t line, double ms,
                 bool finish = true) {
  CompileFact c;
  c.program_key = fn + " [ShapedArray(float32[8])]";
  c.site = fn;
  c.kind = "jax";
  c.jax_function = fn;
  c.jax_finish_record = finish;
  c.compile_ms = ms;
  c.source_id = 1;
  c.source = "jax.log";
  c.line = line;
  f.compiles.push_back(c);
}
void jax_cache(RunRestartFacts& f, const std::string& event, const std::string& fn, int64_t line,
               std::string key = "") {
  if (key.empty()) key = "jit_" + fn + "-" + std::string(64, 'a');
  f.jax_cache.push_back({event, key, fn, std::nullopt, 1, "jax.log", line});
}

TEST(RestartVerdict, JaxLoadsAreNotBuilds) {
  RunRestartFacts cold = jax_run("cold"), warm = jax_run("warm");
  int64_t line = 1;
  for (const char* fn : {"train_step", "eval_step", "init_params"}) {
    jax_cache(cold, "miss", fn, line++);
    jax_cache(cold, "write", fn, line++);
    jax_compile(cold, fn, line++, 200000);
  }
  line = 1;
  for (const char* fn : {"train_step", "eval_step", "init_params"}) {
    jax_cache(warm, "hit", fn, line++);
    jax_compile(warm, fn, line++, 2000);
  }
  RestartProof p = decide_restart(cold, warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kProven) << p.headline;
  EXPECT_TRUE(p.warm.builds.empty());
  EXPECT_EQ(p.warm.load_ms->value, 6000);
  EXPECT_TRUE(contains(p.headline, "compile + cache-load time 10m00s -> 6.0s")) << p.headline;
  EXPECT_TRUE(contains(p.findings[0].warm_evidence,
                       "3 JAX compile records in jax.log, 3 of them persistent-cache loads"));
  EXPECT_EQ(p.findings[3].what, "persistent-cache writes");
  EXPECT_EQ(p.findings[3].text, "3 -> 0");
}

TEST(RestartVerdict, JaxHitPairsWithTheCompilingRecordWhenTheLogHasNoFinishLines) {
  RunRestartFacts warm = jax_run("warm");
  jax_compile(warm, "train_step", 10, 0, /*finish=*/false);
  warm.compiles.back().compile_ms.reset();
  jax_cache(warm, "hit", "train_step", 12);
  jax_compile(warm, "eval_step", 20, 0, /*finish=*/false);
  warm.compiles.back().compile_ms.reset();
  auto figures = analysis::derive_run_figures(warm);
  ASSERT_EQ(figures.builds.size(), 1u);
  EXPECT_EQ(figures.builds[0].site, "eval_step");
}

TEST(RestartVerdict, JaxProgramsTheColdRunDidNotWriteDoNotCountAgainstTheProof) {
  RunRestartFacts cold = jax_run("cold"), warm = jax_run("warm");
  jax_cache(cold, "miss", "train_step", 1);
  jax_cache(cold, "write", "train_step", 2);
  jax_compile(cold, "train_step", 3, 512000);
  jax_cache(cold, "miss", "lr_schedule", 4);
  cold.jax_cache.push_back({"skip", "", "lr_schedule", 0.34, 1, "jax.log", 5});
  jax_compile(cold, "lr_schedule", 6, 341);
  jax_cache(warm, "hit", "train_step", 1);
  jax_compile(warm, "train_step", 2, 6800);
  jax_cache(warm, "miss", "lr_schedule", 3);
  jax_compile(warm, "lr_schedule", 4, 344);
  RestartProof p = decide_restart(cold, warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kProven) << p.headline;
  EXPECT_TRUE(contains(p.headline,
                       "2 -> 1 programs built (1 not cacheable: the cold run did not "
                       "write it)"))
      << p.headline;
  ASSERT_EQ(p.rebuilt.size(), 1u);
  EXPECT_TRUE(contains(p.rebuilt[0].why,
                       "the cold run did not write it to the persistent cache "
                       "(compile took 0.34s, jax.log:5)"))
      << p.rebuilt[0].why;
}

TEST(RestartVerdict, JaxEntryWrittenThenMissedIsGone) {
  RunRestartFacts cold = jax_run("cold"), warm = jax_run("warm");
  jax_cache(cold, "miss", "train_step", 1);
  jax_cache(cold, "write", "train_step", 2);
  jax_compile(cold, "train_step", 3, 512000);
  jax_cache(warm, "miss", "train_step", 1);
  jax_compile(warm, "train_step", 2, 510000);
  RestartProof p = decide_restart(cold, warm);
  EXPECT_EQ(p.verdict, RestartVerdict::kCacheWrittenNotRead) << p.headline;
  EXPECT_TRUE(contains(p.headline, "not proven: cache written but not read")) << p.headline;
  ASSERT_EQ(p.rebuilt.size(), 1u);
  EXPECT_TRUE(contains(p.rebuilt[0].why, "the entry is gone")) << p.rebuilt[0].why;
  // The same function looked up under another key: the key inputs changed.
  warm.jax_cache[0].key = "jit_train_step-" + std::string(64, 'b');
  p = decide_restart(cold, warm);
  EXPECT_TRUE(contains(p.rebuilt[0].why, "the persistent-cache key changed")) << p.rebuilt[0].why;
}

TEST(RestartVerdict, JaxMissLinesCountCompilesWithoutCompileRecords) {
  RunRestartFacts cold = jax_run("cold");
  jax_cache(cold, "miss", "train_step", 1);
  jax_cache(cold, "miss", "eval_step", 2);
  auto figures = analysis::derive_run_figures(cold);
  ASSERT_TRUE(figures.programs_built);
  EXPECT_EQ(figures.programs_built->value, 2);
  EXPECT_TRUE(contains(figures.programs_built->evidence, "2 PERSISTENT COMPILATION CACHE MISS"));
}

TEST(RestartVerdict, DurationText) {
  EXPECT_EQ(analysis::duration_text(0), "0s");
  EXPECT_EQ(analysis::duration_text(850.4), "850ms");
  EXPECT_EQ(analysis::duration_text(41249), "41.2s");
  EXPECT_EQ(analysis::duration_text(90209.46), "1m30s");
  EXPECT_EQ(analysis::duration_text(1082154.88), "18m02s");
  EXPECT_EQ(analysis::duration_text(3850000), "1h04m10s");
}

// ---------------------------------------------------------------------------------------------
// The fixture bundles, ingested into one database (one lane per scenario).

class RestartFixtures : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    for (const char* scenario : {"proven", "unread", "partial", "jax", "no_evidence"})
      for (const char* run : {"cold", "warm"}) {
        auto summary = testing::ingest_logs(
            dir_->file("rcf.db"),
            {testing::fixture_path(std::string("restart/") + scenario + "/" + run)}, scenario, run);
        ASSERT_EQ(summary.rejected, 0) << scenario << "/" << run;
        ASSERT_EQ(summary.duplicates, 0) << scenario << "/" << run;
      }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string db_path() { return dir_->file("rcf.db"); }
  static RestartProof prove(const std::string& lane) {
    auto db = store::open_store(db_path(), store::OpenMode::kRead);
    auto runs = analysis::resolve_restart_runs(*db, lane, "cold", "warm");
    return decide_restart(analysis::load_restart_facts(*db, runs.cold_run_id),
                          analysis::load_restart_facts(*db, runs.warm_run_id));
  }
  static TempDir* dir_;
};
TempDir* RestartFixtures::dir_ = nullptr;

TEST_F(RestartFixtures, ProvenPairShowsTheDropWithItsEvidence) {
  RestartProof p = prove("proven");
  EXPECT_EQ(p.verdict, RestartVerdict::kProven);
  EXPECT_EQ(p.headline,
            "proven: the warm run reused the compiled programs: compile + cache-load time 18m02s "
            "-> 1m30s (warm: 0s compiling, 1m30s loading); 15 -> 0 programs built; 15 "
            "persistent-cache hits");
  EXPECT_EQ(p.cold.programs_built->evidence,
            "15 PT_XLA_DEBUG Compilation Analysis blocks in pt_xla_debug.log; CompileTime "
            "TotalSamples 15 in metrics.txt (last report, step 8)");
  EXPECT_EQ(p.warm.compile_ms->evidence,
            "no CompileTime sample in metrics.txt (last report, step 8)");
  EXPECT_EQ(p.warm.load_ms->evidence,
            "PersistentCacheLoad Accumulator (15 samples) in metrics.txt (last report, step 8)");
  EXPECT_EQ(p.warm.first_step_ms->evidence, "wall time of step 1 in steps.csv");
  bool first_step = false;
  for (const auto& f : p.findings)
    if (f.what == "first step") {
      first_step = true;
      EXPECT_EQ(f.text, "2m46s -> 15.9s (-90%)");
    }
  EXPECT_TRUE(first_step);
}

TEST_F(RestartFixtures, UnreadPairIsTheExecutableCacheBug) {
  RestartProof p = prove("unread");
  EXPECT_EQ(p.verdict, RestartVerdict::kCacheWrittenNotRead);
  EXPECT_EQ(p.headline,
            "not proven: cache written but not read: the warm run rebuilt 15 of the cold run's 15 "
            "programs with the same keys; 0 persistent-cache hits; compile + cache-load time "
            "18m02s -> 18m01s (warm: 17m59s compiling, 1.9s loading); 15 entries were found but "
            "failed to deserialize (PersistentCacheDeserializeFailure): the executable-cache load "
            "path is broken in this stack (pytorch/xla#9094)");
  ASSERT_EQ(p.rebuilt.size(), 15u);
  // Named by graph hash and site, in compile order: the router fragment of step 1 first.
  EXPECT_EQ(p.rebuilt[0].build.site, "/work/moe/router.py:88 (route_tokens)");
  EXPECT_EQ(p.rebuilt[0].build.step, 1);
  EXPECT_EQ(p.rebuilt[0].build.program_key, p.cold.builds[0].program_key);
  EXPECT_EQ(p.rebuilt[0].build.where, "pt_xla_debug.log:3");
}

TEST_F(RestartFixtures, PartialPairNamesTheTwoChangedGraphs) {
  RestartProof p = prove("partial");
  EXPECT_EQ(p.verdict, RestartVerdict::kPartial);
  EXPECT_EQ(p.headline,
            "partial: 15 -> 2 programs built; 13 persistent-cache hits: 2 with a changed graph "
            "key; compile + cache-load time 18m02s -> 4m08s (warm: 2m51s compiling, 1m17s "
            "loading)");
  ASSERT_EQ(p.rebuilt.size(), 2u);
  // generate.py: P13 (router, step 5) got another capacity constant, P14 (step end, step 5) two
  // more inputs; graph hashes are md5("moe4b-torch2.12/<name><variant>").
  EXPECT_EQ(p.rebuilt[0].build.site, "/work/moe/router.py:88 (route_tokens)");
  EXPECT_EQ(p.rebuilt[0].build.program_key, "b2615714b148df1e13291c7ad5bb9a6d");
  EXPECT_EQ(p.rebuilt[0].cold_program_key, "b820df0d169cdab1ee1902cdf931993d");
  EXPECT_TRUE(contains(p.rebuilt[0].why, "same number of graph inputs (64)"));
  EXPECT_EQ(p.rebuilt[1].build.site, "/work/moe/train.py:212 (train_loop)");
  EXPECT_EQ(p.rebuilt[1].build.program_key, "89e0da69e31fb74933b978f25c5e01c6");
  EXPECT_EQ(p.rebuilt[1].cold_program_key, "341eead001b13fde8182151f01a82dd5");
  EXPECT_TRUE(contains(p.rebuilt[1].why, "graph inputs 3626 -> 3628")) << p.rebuilt[1].why;
  for (const auto& r : p.rebuilt) {
    EXPECT_EQ(r.kind, RebuildKind::kKeyChanged);
    EXPECT_EQ(r.build.step, 5);
  }
}

TEST_F(RestartFixtures, JaxPairIsProvenAndNamesTheUncacheableFunction) {
  RestartProof p = prove("jax");
  EXPECT_EQ(p.verdict, RestartVerdict::kProven) << p.headline;
  EXPECT_TRUE(contains(p.headline, "compile + cache-load time 13m25s -> ")) << p.headline;
  EXPECT_TRUE(contains(p.headline,
                       "12 -> 1 programs built (1 not cacheable: the cold run did "
                       "not write it); 11 persistent-cache hits"))
      << p.headline;
  ASSERT_EQ(p.rebuilt.size(), 1u);
  EXPECT_EQ(p.rebuilt[0].build.site, "lr_schedule");
  EXPECT_TRUE(contains(p.rebuilt[0].why, "compile took 0.34s, jax.log:47")) << p.rebuilt[0].why;
}

TEST_F(RestartFixtures, TimingsOnlyPairIsInsufficientEvidence) {
  RestartProof p = prove("no_evidence");
  EXPECT_EQ(p.verdict, RestartVerdict::kInsufficientEvidence);
  EXPECT_TRUE(contains(p.headline, "the first step went 6m11s -> 58.3s")) << p.headline;
  EXPECT_FALSE(p.to_enable.empty());
}

// ---------------------------------------------------------------------------------------------
// The CLI.

struct CliResult {
  int rc = -1;
  std::string out, err;
};

CliResult run_rcf(const TempDir& tmp, const std::string& args) {
  std::string cmd = std::string("'") + RCF_BINARY + "' " + args + " >'" + tmp.file("out") +
                    "' 2>'" + tmp.file("err") + "' </dev/null";
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, testing::read_file(tmp.file("out")),
          testing::read_file(tmp.file("err"))};
}

TEST_F(RestartFixtures, CliExitCodesFollowTheVerdict) {
  TempDir tmp;
  const std::string db = "--db '" + db_path() + "' ";
  CliResult r = run_rcf(tmp, "restart " + db + "--lane proven --cold cold --warm warm");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "== restart proof: lane proven, cold run 'cold' -> warm run 'warm'"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\n   PROVEN: the warm run reused")) << r.out;
  for (const char* lane : {"unread", "partial", "no_evidence"}) {
    r = run_rcf(tmp, "restart " + db + "--lane " + lane + " --cold cold --warm warm");
    EXPECT_EQ(r.rc, 1) << lane << r.err;
    EXPECT_EQ(r.err, "");
  }
  r = run_rcf(tmp, "restart " + db + "--lane partial --cold cold --warm warm");
  EXPECT_TRUE(contains(r.out, "programs rebuilt in the warm run (2)")) << r.out;
  EXPECT_TRUE(contains(r.out, "why: graph key changed at this site")) << r.out;
}

TEST_F(RestartFixtures, CliJsonIsVersioned) {
  TempDir tmp;
  CliResult r = run_rcf(
      tmp, "restart --db '" + db_path() + "' --lane partial --cold cold --warm warm --json");
  ASSERT_EQ(r.rc, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["verdict"], "partial");
  EXPECT_EQ(j["proven"], false);
  EXPECT_EQ(j["cold"]["programs_built"]["value"], 15);
  EXPECT_EQ(j["warm"]["programs_loaded"]["value"], 13);
  ASSERT_EQ(j["rebuilt"].size(), 2u);
  EXPECT_EQ(j["rebuilt"][1]["kind"], "key_changed");
  EXPECT_EQ(j["rebuilt"][1]["site"], "/work/moe/train.py:212 (train_loop)");
}

TEST_F(RestartFixtures, CliInputErrorsExitTwo) {
  TempDir tmp;
  const std::string db = "--db '" + db_path() + "' ";
  auto expect_error = [&](const std::string& args, const std::string& message) {
    CliResult r = run_rcf(tmp, args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, message)) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "");
  };
  expect_error("restart " + db + "--lane nosuch --cold cold --warm warm", "no lane named 'nosuch'");
  expect_error("restart " + db + "--lane proven --cold cold --warm later",
               "lane 'proven' has no run named 'later' (the --warm run; its runs: 'cold', "
               "'warm')");
  expect_error("restart " + db + "--cold cold --warm warm",
               "run 'cold' exists in lanes 'jax', 'no_evidence', 'partial', 'proven', 'unread': "
               "choose one with --lane");
  expect_error("restart " + db + "--lane proven --cold warm --warm warm",
               "--cold and --warm name the same run");
  expect_error("restart --db '" + tmp.file("absent.db") + "' --cold cold --warm warm", "absent.db");
  expect_error("restart " + db + "--lane proven --cold cold", "--warm");
}

TEST(RestartCli, RunsOfDifferentLanesAreRefused) {
  TempDir tmp;
  for (const auto& [lane, run] :
       std::vector<std::pair<std::string, std::string>>{{"a", "cold"}, {"b", "warm"}}) {
    testing::ingest_logs(tmp.file("rcf.db"), {testing::fixture_path("restart/no_evidence/" + run)},
                         lane, run);
  }
  CliResult r = run_rcf(tmp, "restart --db '" + tmp.file("rcf.db") + "' --cold cold --warm warm");
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err,
                       "the cold run 'cold' is in lane 'a' and the warm run 'warm' in lane "
                       "'b': a restart proof compares two runs of the same lane"))
      << r.err;
}

}  // namespace restart_proof_test
}  // namespace rcf
