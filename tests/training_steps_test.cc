// Deciding the training step (analysis/training_steps.h) from hand-built evidence: progress lines
// printed after or before a step, logged every few steps, numbered again each epoch; timed steps
// matched with sync sites or a sync count; timestamps; and the undecided run, called "sync".
#include "analysis/training_steps.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace rcf::analysis {
namespace training_steps_test {

constexpr int64_t kSource = 7;
constexpr int64_t kConsole = 8;

// A source whose compile sits at `compile_line` (the run's first, a log that shows it: torch_xla,
// JAX), with progress lines (line, step) of one shape.
StepEvidence with_lines(int64_t compile_line,
                        const std::vector<std::pair<int64_t, int64_t>>& lines) {
  StepEvidence ev;
  ev.first_compile[kSource] = compile_line;
  ev.run_first_compile[kSource] = compile_line;
  ev.shape_names[1] = "[train] step #";
  for (auto [line, step] : lines) ev.lines.push_back({kSource, line, step, 1});
  return ev;
}

std::string steps_at(const TrainingSteps& t, const std::vector<int64_t>& lines) {
  std::string out;
  for (int64_t line : lines) {
    auto s = t.step_of(kSource, line, std::nullopt, std::nullopt);
    out += (out.empty() ? "" : " ") + (s ? std::to_string(*s) : std::string("-"));
  }
  return out;
}

TEST(TrainingSteps, LinesPrintedAfterEachStepEndIt) {
  auto t = TrainingSteps::decide(with_lines(5, {{10, 1}, {20, 2}, {30, 3}}));
  ASSERT_TRUE(t.decided());
  EXPECT_EQ(t.axis().basis, "step_lines");
  EXPECT_NE(t.axis().detail.find("`[train] step #`"), std::string::npos) << t.axis().detail;
  EXPECT_EQ(steps_at(t, {5, 15, 25, 35}), "1 2 3 4");
  EXPECT_EQ(t.last_step(), 3);
}

TEST(TrainingSteps, LinesPrintedBeforeEachStepOpenIt) {
  auto t = TrainingSteps::decide(with_lines(12, {{10, 1}, {20, 2}, {30, 3}}));
  EXPECT_EQ(steps_at(t, {12, 25, 35}), "1 2 3");
  EXPECT_NE(t.axis().detail.find("printed before"), std::string::npos);
}

// A Dynamo recompile log (TORCH_LOGS=recompiles) logs no first compile: its first record is a
// recompile, so a line before it says nothing about when lines are printed. Lines that report
// the step's loss are printed when it ends (fixtures/real_runs: every zoo run prints so).
TEST(TrainingSteps, ALogThatDoesNotShowTheRunsFirstCompileTakesLinesAsPrintedAtTheEnd) {
  StepEvidence ev = with_lines(12, {{10, 1}, {20, 2}, {30, 3}});
  ev.run_first_compile.clear();
  auto t = TrainingSteps::decide(ev);
  EXPECT_EQ(steps_at(t, {12, 25, 35}), "2 3 4");
  EXPECT_NE(t.axis().detail.find("printed after"), std::string::npos) << t.axis().detail;
  // A record of the run's first compile (a graph break traced under 0/0) before the first line
  // shows the lines close their steps; after it, that they open them.
  ev.run_first_compile[kSource] = 5;
  EXPECT_EQ(steps_at(TrainingSteps::decide(ev), {12}), "2");
  ev.run_first_compile[kSource] = 11;
  EXPECT_EQ(steps_at(TrainingSteps::decide(ev), {12}), "1");
}

TEST(TrainingSteps, AnEpochThatNumbersItsStepsAgainIsUnrolled) {
  auto t = TrainingSteps::decide(with_lines(5, {{10, 1}, {20, 2}, {30, 1}, {40, 2}}));
  EXPECT_EQ(steps_at(t, {5, 25, 35}), "1 3 4");
}

// Logged every 10 steps with two syncs per step: the syncs between two lines place the compile.
TEST(TrainingSteps, SyncsPlaceACompileBetweenSparseLines) {
  StepEvidence ev = with_lines(1, {{1000, 10}, {2000, 20}});
  for (int64_t i = 0; i < 40; ++i) ev.syncs.push_back({kSource, 50 * (i + 1) - 10, 0});
  auto t = TrainingSteps::decide(ev);
  // 19 syncs before line 1000 (the 20th at 990 is also before: 50*20-10 = 990).
  EXPECT_EQ(t.step_of(kSource, 1, 0, std::nullopt), 1);
  EXPECT_EQ(t.step_of(kSource, 600, 11, std::nullopt), 6);    // the 12th sync: step 6
  EXPECT_EQ(t.step_of(kSource, 1500, 29, std::nullopt), 15);  // 10 syncs after step 10's end
}

// A watch keeps the steps of the compiles it attributed and asks again only for those a log's
// later progress lines may place otherwise (analysis/attribution_checkpoint.h).
TEST(TrainingSteps, CompilesBeforeTheLastLineOfASeriesThatOnlyGrewArePlacedAsBefore) {
  const auto lines = with_lines(5, {{10, 1}, {20, 2}, {30, 3}});
  const SeriesPlacement then = TrainingSteps::decide(lines).series_placement();
  auto grown = with_lines(5, {{10, 1}, {20, 2}, {30, 3}, {40, 4}, {50, 9}});
  const auto now = TrainingSteps::decide(grown);
  EXPECT_EQ(now.placed_as_before(then), (std::map<int64_t, int64_t>{{kSource, 30}}));
  // What the bound claims: below it every line's step is then's; at and after it, not all.
  const auto before = TrainingSteps::decide(lines);
  for (int64_t line = 0; line < 30; ++line)
    EXPECT_EQ(now.step_of(kSource, line, {}, {}), before.step_of(kSource, line, {}, {})) << line;
  EXPECT_NE(now.step_of(kSource, 45, {}, {}), before.step_of(kSource, 45, {}, {}));
  // Not when an earlier line says otherwise, a line is printed before its step instead of
  // after, or the source has step-end syncs.
  EXPECT_TRUE(TrainingSteps::decide(with_lines(5, {{10, 1}, {20, 7}, {30, 8}, {40, 9}}))
                  .placed_as_before(then)
                  .empty());
  EXPECT_TRUE(TrainingSteps::decide(with_lines(12, {{10, 1}, {20, 2}, {30, 3}, {40, 4}}))
                  .placed_as_before(then)
                  .empty());
  grown.syncs.push_back({kSource, 15, 0});
  EXPECT_TRUE(TrainingSteps::decide(grown).placed_as_before(then).empty());
  // From a shorter beginning, the bound is that beginning's last line.
  const SeriesPlacement two =
      TrainingSteps::decide(with_lines(5, {{10, 1}, {20, 2}})).series_placement();
  EXPECT_EQ(now.placed_as_before(two), (std::map<int64_t, int64_t>{{kSource, 20}}));
}

TEST(TrainingSteps, APatternMatchInTheStreamOutranksDetectedLines) {
  StepEvidence ev = with_lines(5, {{10, 1}, {20, 2}, {30, 3}});
  for (auto [line, step] : std::vector<std::pair<int64_t, int64_t>>{{12, 100}, {22, 200}})
    ev.lines.push_back({kSource, line, step, 0});
  auto t = TrainingSteps::decide(ev);
  EXPECT_EQ(t.axis().basis, "step_pattern");
  EXPECT_EQ(steps_at(t, {5, 15}), "100 200");
}

TEST(TrainingSteps, NumbersThatNeverGoUpAreNoSeries) {
  auto t = TrainingSteps::decide(with_lines(5, {{10, 4}, {20, 4}}));
  EXPECT_FALSE(t.decided());
  auto noise = TrainingSteps::decide(with_lines(5, {{10, 9}, {20, 3}, {30, 7}, {40, 1}, {50, 8}}));
  EXPECT_FALSE(noise.decided());
}

// Three step-end syncs per step (train, EMA, logging): the timed steps' count finds the site
// that runs once per step.
TEST(TrainingSteps, TimedStepsFindTheSyncThatEndsTheStep) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  ev.site_names = {
      {1, "train.py:142 (train_step)"}, {2, "ema.py:51 (update_ema)"}, {3, "train.py:250 (log)"}};
  int64_t line = 10;
  for (int step = 1; step <= 6; ++step)
    for (int64_t site : {1, 2, 3}) ev.syncs.push_back({kSource, line += 10, site});
  for (int step = 1; step <= 6; ++step) ev.timed.add(step);
  auto t = TrainingSteps::decide(ev);
  ASSERT_TRUE(t.decided());
  EXPECT_EQ(t.axis().basis, "step_timings");
  EXPECT_NE(t.axis().detail.find("train.py:250 (log)"), std::string::npos) << t.axis().detail;
  std::string got;
  for (int64_t done : {0, 1, 2, 3, 5, 17})
    got += std::to_string(*t.step_of(kSource, 0, done, std::nullopt)) + " ";
  EXPECT_EQ(got, "1 1 1 2 2 6 ");
}

TEST(TrainingSteps, WithoutSitesASyncCountThatDividesDecides) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  for (int64_t i = 0; i < 12; ++i) ev.syncs.push_back({kSource, 10 + i, 0});
  for (int step = 0; step < 4; ++step) ev.timed.add(step);
  auto t = TrainingSteps::decide(ev);
  EXPECT_EQ(t.axis().basis, "step_timings");
  EXPECT_EQ(t.step_of(kSource, 0, 0, std::nullopt), 0);  // numbered as the timings number them
  EXPECT_EQ(t.step_of(kSource, 0, 5, std::nullopt), 1);
  ev.syncs.pop_back();  // 11 syncs over 4 steps: nothing decides
  EXPECT_FALSE(TrainingSteps::decide(ev).decided());
}

TEST(TrainingSteps, TimestampsPlaceCompilesWithStartTimes) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  ev.compiles_have_start_times = true;
  for (int step = 1; step <= 3; ++step) ev.timed.add(step, 100.0 * step);
  auto t = TrainingSteps::decide(ev);
  EXPECT_EQ(t.axis().basis, "step_timestamps");
  EXPECT_EQ(t.step_of(kSource, 1, std::nullopt, int64_t{150'000'000}), 2);
  EXPECT_EQ(t.step_of(kSource, 1, std::nullopt, int64_t{50'000'000}), 1);
  EXPECT_EQ(t.step_of(kSource, 1, std::nullopt, std::nullopt), std::nullopt);
}

// A console of progress lines with no times (steps 1..4 at lines 10, 20, 30, 40) beside a
// TORCH_TRACE log whose compiles start at the times given (epoch us); `compiles`: the lines
// compiles caused in the console (line, text, the start of the compile it names).
StepEvidence console_beside_trace(std::vector<ConsoleCompileLine> compiles) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  ev.compiles_have_start_times = true;
  ev.shape_names[3] = "step #/#";
  for (int64_t i = 1; i <= 4; ++i) ev.console_lines.push_back({kConsole, 10 * i, i, 3});
  ev.timed.steps.add(1, 1, 4);
  ev.first_compile_start_us = 1000;
  ev.console_compiles = std::move(compiles);
  return ev;
}

std::string clock_steps(const TrainingSteps& t, const std::vector<int64_t>& starts) {
  std::string out;
  for (int64_t start : starts) {
    auto s = t.step_of(kSource, 1, std::nullopt, start);
    out += (out.empty() ? "" : " ") + (s ? std::to_string(*s) : std::string("-"));
  }
  return out;
}

TEST(TrainingSteps, TheTraceClockPutsTheRunsFirstCompileInTheFirstStep) {
  // No line of the console shows a compile (a warm cache): only the first compile is placed.
  auto t = TrainingSteps::decide(console_beside_trace({}));
  EXPECT_EQ(t.axis().basis, "trace_clock");
  EXPECT_EQ(clock_steps(t, {1000, 2000}), "1 -");
  EXPECT_EQ(t.last_step(), 4);
  EXPECT_EQ(t.step_of(kSource, 1, std::nullopt, std::nullopt), std::nullopt);
  // Inductor's warning before the first progress line shows the lines end their steps.
  auto warned = TrainingSteps::decide(
      console_beside_trace({{5, "torch/_inductor/compile_fx.py:322", std::nullopt}}));
  EXPECT_NE(warned.axis().detail.find("`torch/_inductor/compile_fx.py:322`, printed by a compile"),
            std::string::npos)
      << warned.axis().detail;
  EXPECT_EQ(clock_steps(warned, {1000, 1500}), "1 -");
}

TEST(TrainingSteps, ARecordNamingItsCompilePlacesItAndTheCompilesBetween) {
  // `[0/1]` between `step 2` and `step 3` (printed at step end: step 3); `[1/0]` before `step 1`.
  auto t = TrainingSteps::decide(console_beside_trace({
      {5, "torch/_dynamo/convert_frame.py:900 [1/0]", 1200},
      {25, "torch/_inductor/utils.py:1250 [0/1]", 5000},
  }));
  ASSERT_EQ(t.axis().basis, "trace_clock");
  // 1100 lies between two step-1 compiles; 3000 between steps 1 and 3; 9000 after the last.
  EXPECT_EQ(clock_steps(t, {1000, 1100, 1200, 3000, 5000, 9000}), "1 1 1 - 3 -");
  EXPECT_NE(t.axis().detail.find("2 compiles named by the console's Dynamo / Inductor records"),
            std::string::npos)
      << t.axis().detail;
}

TEST(TrainingSteps, AConsoleOrderThatContradictsTheTraceClockDecidesNothing) {
  // The record of the later compile comes before the record of the earlier one.
  StepEvidence ev = console_beside_trace({
      {15, "torch/_dynamo/guards.py:10 [0/2]", 9000},
      {35, "torch/_dynamo/guards.py:10 [0/1]", 5000},
  });
  EXPECT_FALSE(TrainingSteps::decide(ev).decided());
  // The run's first compile named after the first progress line: lines open their step.
  ev.console_compiles = {{15, "torch/_dynamo/convert_frame.py:900 [0/0]", 1000},
                         {35, "torch/_dynamo/convert_frame.py:900 [0/1]", 5000}};
  auto t = TrainingSteps::decide(ev);
  EXPECT_NE(t.axis().detail.find("printed before the step's compiles"), std::string::npos);
  EXPECT_EQ(clock_steps(t, {1000, 5000}), "1 3");
}

TEST(TrainingSteps, NothingDecidesSoTheAxisIsSyncAndSaysWhatWould) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  for (int64_t i = 0; i < 30; ++i) ev.syncs.push_back({kSource, 10 + i, 1 + i % 3});
  auto t = TrainingSteps::decide(ev);
  EXPECT_FALSE(t.decided());
  EXPECT_EQ(t.axis().axis, "sync");
  EXPECT_EQ(t.axis().basis, "none");
  EXPECT_NE(t.axis().detail.find("repeat every 3 syncs"), std::string::npos) << t.axis().detail;
  EXPECT_NE(t.axis().detail.find("--step-pattern"), std::string::npos);
  EXPECT_EQ(t.step_of(kSource, 20, 3, std::nullopt), std::nullopt);
}

// The hint reads each source's syncs in line order, however the rows are stored, and only its
// first kSitePeriodWindow syncs: a pattern that starts after them is not seen.
TEST(TrainingSteps, TheSitePeriodHintReadsSyncsInLineOrderWithinItsWindow) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  for (int64_t parity : {1, 0})  // stored as all odd lines, then all even ones
    for (int64_t i = parity; i < 30; i += 2) ev.syncs.push_back({kSource, 10 + i, 1 + i % 2});
  ev.syncs.push_back({kSource + 1, 5, 7});  // another source, one site: no period of its own
  auto t = TrainingSteps::decide(ev);
  EXPECT_NE(t.axis().detail.find("repeat every 2 syncs"), std::string::npos) << t.axis().detail;

  StepEvidence late;
  late.first_compile[kSource] = 1;
  const int64_t window = static_cast<int64_t>(kSitePeriodWindow);
  uint32_t random = 12345;  // sites without a period (a linear congruential sequence)
  for (int64_t i = 0; i < window; ++i) {
    random = random * 1664525u + 1013904223u;
    late.syncs.push_back({kSource, 10 + i, 1 + (random >> 16) % 5});
  }
  for (int64_t i = 0; i < 300; ++i) late.syncs.push_back({kSource, 10 + window + i, 1 + i % 2});
  t = TrainingSteps::decide(late);
  EXPECT_EQ(t.axis().detail.find("repeat every"), std::string::npos) << t.axis().detail;
}

// A console of progress lines in a file of its own, next to a Dynamo text log: the steps are
// counted, nothing places the compiles in them, and the detail says what would.
TEST(TrainingSteps, StepsCountedElsewhereButNotPlacedSayWhatWouldPlaceThem) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  ev.timed.steps.add(1, 1, 25);
  auto t = TrainingSteps::decide(ev);
  EXPECT_FALSE(t.decided());
  EXPECT_EQ(t.axis().axis, "sync");
  EXPECT_NE(t.axis().detail.find("25 training steps are counted in a file of their own, but "
                                 "nothing places the compiles in them"),
            std::string::npos)
      << t.axis().detail;
  EXPECT_NE(t.axis().detail.find("neither the steps nor the compiles carry times"),
            std::string::npos);
  ev.compiles_have_start_times = true;  // TORCH_TRACE compiles, steps without times
  EXPECT_NE(TrainingSteps::decide(ev).axis().detail.find("the steps carry no times"),
            std::string::npos);
  // Times printed without a zone, and no TORCH_TRACE clock to read them in: said so.
  ev.step_times_without_zone = true;
  EXPECT_NE(TrainingSteps::decide(ev).axis().detail.find(
                "the steps' times name no time zone and no log of the run shows the writer's "
                "clock against UTC"),
            std::string::npos);
}

TEST(TrainingSteps, MetricsBlocksAreSyncsAndTheDetailSaysSo) {
  StepEvidence ev;
  ev.first_compile[kSource] = 1;
  ev.metrics_blocks = true;
  auto t = TrainingSteps::decide(ev);
  EXPECT_FALSE(t.decided());
  EXPECT_NE(t.axis().detail.find("`[MetricsData; step=N]` blocks count syncs"), std::string::npos)
      << t.axis().detail;
}

TEST(TrainingSteps, SyncSitePeriod) {
  EXPECT_EQ(sync_site_period({1, 2, 1, 2, 1, 2, 1, 2}), 2);
  EXPECT_EQ(sync_site_period({1, 1, 1, 1, 1, 1, 1}), 0);  // one site: one sync per step, maybe
  EXPECT_EQ(sync_site_period({1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}), 4);
  EXPECT_EQ(sync_site_period({1, 2}), 0);
}

}  // namespace training_steps_test
}  // namespace rcf::analysis
