// When an analysis may go on from what the last one kept (analysis/attribution_checkpoint.h):
// each rule on small hand-made runs, against a checkpoint kept after the first compiles of a run
// of six frames compiled twice each. The watch's tests check the stores it leaves
// (tests/dynamo_record_cache_test.cc).
#include "analysis/attribution_checkpoint.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace rcf::analysis {
namespace attribution_checkpoint_test {

constexpr int64_t kGeneration = 7;

CompileRecord compile(int64_t frame, int64_t c, int64_t line, int64_t source = 1) {
  CompileRecord r;
  r.key.source_id = static_cast<int32_t>(source);
  r.key.frame_id = static_cast<int32_t>(frame);
  r.key.frame_compile_id = static_cast<int32_t>(c);
  r.line = line;
  r.kind = "recompile_block";
  r.co_name = "step";
  r.co_filename = "train.py";
  r.co_firstlineno = 10;
  return r;
}

// Frames 0..frames-1, each compiled twice, one after the other in the log.
RunInputs run_of(int frames) {
  RunInputs in;
  in.source_names = {{1, "train.log"}};
  int64_t line = 1;
  for (int f = 0; f < frames; ++f)
    for (int c = 0; c < 2; ++c) in.compiles.push_back(compile(f, c, line += 10));
  return in;
}

const TrainingSteps kNoSteps = TrainingSteps::decide({});

RunAttributionFacts facts_of(const DynamoAttributionRun& run, const RunInputs& in,
                             const TrainingSteps& steps = kNoSteps) {
  return {.breaks = in.breaks.size(),
          .source_names = in.source_names,
          .several_processes = run.several_processes(),
          .steps_decided = steps.decided(),
          .line_sources = steps.line_sources(),
          .other_runtimes = false};
}

// A checkpoint after the first `kept` compiles of `in`, as an analysis takes it, each compile
// placed by `steps`.
AttributionCheckpoint checkpoint_after(const RunInputs& in, size_t kept,
                                       const TrainingSteps& steps = kNoSteps) {
  DynamoAttributionRun run(in, merge_dynamo_compiles(in));
  AttributionCheckpoint checkpoint;
  checkpoint.plan(0, kept, facts_of(run, in, steps), steps);
  RollupBuilder rollup({}, std::nullopt);
  StepCurve curve;
  run.attribute(0, [&](AttributedCompile&& c) {
    rollup.add(c);
    if (!checkpoint.keeps(c.ordinal)) return;
    c.step = steps.step_of(c.key.source_id, c.line, {}, c.start_us);
    checkpoint.keep(c, {c.key.source_id, c.line});
    if (checkpoint.ends_at(c.ordinal)) checkpoint.take(rollup, curve, 0, 0);
  });
  checkpoint.written(kGeneration, {}, {});
  return checkpoint;
}

// How many compiles an analysis of `in` may take as kept, `changed` having changed.
size_t usable(const AttributionCheckpoint& checkpoint, const RunInputs& in,
              std::vector<DynamoKey> changed = {}, int64_t generation = kGeneration,
              const std::function<void(RunAttributionFacts&)>& edit = nullptr) {
  DynamoAttributionRun run(in, merge_dynamo_compiles(in));
  RunAttributionFacts facts = facts_of(run, in);
  if (edit) edit(facts);
  std::sort(changed.begin(), changed.end());
  return checkpoint.usable(run, in, facts, changed, kNoSteps, generation);
}

// The progress lines (line, step) of train.log, printed after each step: the first compile, at
// line 11, comes before them.
TrainingSteps steps_of(const std::vector<std::pair<int64_t, int64_t>>& lines) {
  StepEvidence ev;
  ev.first_compile[1] = ev.run_first_compile[1] = 11;
  ev.shape_names[1] = "step #";
  for (auto [line, step] : lines) ev.lines.push_back({1, line, step, 1});
  return TrainingSteps::decide(ev);
}

size_t usable_with(const AttributionCheckpoint& checkpoint, const RunInputs& in,
                   const TrainingSteps& steps) {
  DynamoAttributionRun run(in, merge_dynamo_compiles(in));
  return checkpoint.usable(run, in, facts_of(run, in, steps), {}, steps, kGeneration);
}

TEST(AttributionCheckpoint, GoesOnWhenOnlyLaterCompilesCameOrChanged) {
  const AttributionCheckpoint checkpoint = checkpoint_after(run_of(4), 6);
  EXPECT_EQ(checkpoint.kept(), 6u);
  EXPECT_EQ(usable(checkpoint, run_of(4)), 6u);
  EXPECT_EQ(usable(checkpoint, run_of(9)), 6u);  // five frames more
  // A change to a compile after the kept ones: those are still kept.
  EXPECT_EQ(usable(checkpoint, run_of(9), {compile(3, 1, 0).key, compile(8, 0, 0).key}), 6u);
}

TEST(AttributionCheckpoint, AttributesWholeWhenAKeptCompileChanged) {
  const AttributionCheckpoint checkpoint = checkpoint_after(run_of(4), 6);
  EXPECT_EQ(usable(checkpoint, run_of(5), {compile(1, 1, 0).key}), 0u);
  EXPECT_EQ(usable(checkpoint, run_of(5), {compile(2, 1, 0).key}), 0u);  // the last kept
}

TEST(AttributionCheckpoint, AttributesWholeWhenTheOrderOfTheKeptCompilesMoved) {
  const AttributionCheckpoint checkpoint = checkpoint_after(run_of(4), 6);
  RunInputs earlier = run_of(5);
  earlier.compiles.push_back(compile(9, 0, 2));  // a compile placed before every other
  EXPECT_EQ(usable(checkpoint, earlier), 0u);
  EXPECT_EQ(usable(checkpoint, run_of(2)), 0u);  // fewer compiles than were kept
}

// The kept compiles (lines 11-61) stay in the steps they were placed in; below the last progress
// line then (55), a log whose lines only grew places them as before, and those after it are
// asked again.
TEST(AttributionCheckpoint, AttributesWholeWhenTheStepsPlaceAKeptCompileElsewhere) {
  const TrainingSteps then = steps_of({{15, 1}, {35, 2}, {55, 3}});
  ASSERT_TRUE(then.decided());
  const AttributionCheckpoint checkpoint = checkpoint_after(run_of(4), 6, then);
  EXPECT_EQ(usable_with(checkpoint, run_of(4), then), 6u);
  EXPECT_EQ(usable_with(checkpoint, run_of(5), steps_of({{15, 1}, {35, 2}, {55, 3}, {75, 4}})), 6u);
  // Line 75 numbers its step 9: the compile at 61 (after 55, step 4 then) is now in step 9.
  EXPECT_EQ(usable_with(checkpoint, run_of(5), steps_of({{15, 1}, {35, 2}, {55, 3}, {75, 9}})), 0u);
  // Line 15 says step 0: the compile at 11 is now in step 0 (the last kept, at 61, is not moved).
  EXPECT_EQ(usable_with(checkpoint, run_of(5), steps_of({{15, 0}, {35, 2}, {55, 3}, {75, 4}})), 0u);
}

// Four frames, with `breaks` graph breaks traced in the first compile of the last frame (after
// the six compiles kept).
RunInputs run_with_breaks(size_t breaks) {
  RunInputs in = run_of(4);
  BreakRecord brk;
  brk.key = compile(3, 0, 0).key;
  brk.line = 12;
  for (size_t i = 0; i < breaks; ++i) in.breaks.push_back(brk);
  return in;
}

TEST(AttributionCheckpoint, AttributesWholeWhenABreakWasAddedOrItsCompileChanged) {
  const AttributionCheckpoint checkpoint = checkpoint_after(run_with_breaks(1), 6);
  EXPECT_EQ(usable(checkpoint, run_with_breaks(1)), 6u);
  // The compile the break was traced in got a record: the break may now match otherwise.
  EXPECT_EQ(usable(checkpoint, run_with_breaks(1), {compile(3, 0, 0).key}), 0u);
  EXPECT_EQ(usable(checkpoint, run_with_breaks(2)), 0u);
}

TEST(AttributionCheckpoint, AttributesWholeWhenAFactOfTheRunChanged) {
  const AttributionCheckpoint checkpoint = checkpoint_after(run_of(4), 6);
  RunInputs second_process = run_of(4);
  second_process.source_names.push_back({2, "rank1.log"});
  second_process.compiles.push_back(compile(0, 0, 500, 2));
  EXPECT_EQ(usable(checkpoint, second_process), 0u);  // program keys now name the log
  RunInputs renamed = run_of(4);
  renamed.source_names = {{1, "train.log.1"}};
  EXPECT_EQ(usable(checkpoint, renamed), 0u);
  EXPECT_EQ(usable(checkpoint, run_of(4), {}, kGeneration,
                   [](RunAttributionFacts& f) { f.steps_decided = true; }),
            0u);
  EXPECT_EQ(usable(checkpoint, run_of(4), {}, kGeneration,
                   [](RunAttributionFacts& f) { f.line_sources = {1}; }),
            0u);
  // A torch_xla or JAX side prices recompiles by its curve: never gone on from.
  EXPECT_EQ(usable(checkpoint, run_of(4), {}, kGeneration,
                   [](RunAttributionFacts& f) { f.other_runtimes = true; }),
            0u);
}

TEST(AttributionCheckpoint, AttributesWholeWhenTheStoreHoldsOtherRows) {
  const AttributionCheckpoint checkpoint = checkpoint_after(run_of(4), 6);
  EXPECT_EQ(usable(checkpoint, run_of(4), {}, kGeneration + 1), 0u);
}

TEST(AttributionCheckpoint, ResumingGivesTheRollupAfterTheKeptCompiles) {
  AttributionCheckpoint checkpoint = checkpoint_after(run_of(4), 6);
  AttributionCheckpoint::Resumed resumed = checkpoint.resume();
  resumed.rollup.resume_on({}, std::nullopt);
  const RunRollup r = std::move(resumed.rollup).finish();
  EXPECT_EQ(r.compiles, 6);
  EXPECT_EQ(r.recompiles, 3);        // frames 0, 1, 2 compiled twice
  EXPECT_EQ(checkpoint.kept(), 0u);  // given up: not usable again
  EXPECT_EQ(usable(checkpoint, run_of(4)), 0u);
}

// `checkpoint` planned again to keep its first `kept` compiles and go on to `until` in `in`, as
// the next analysis that resumes from it does.
void go_on(AttributionCheckpoint& checkpoint, const RunInputs& in, size_t kept, size_t until) {
  DynamoAttributionRun run(in, merge_dynamo_compiles(in));
  checkpoint.plan(kept, until, facts_of(run, in), kNoSteps);
  RollupBuilder rollup({}, std::nullopt);
  StepCurve curve;
  run.attribute(0, [&](AttributedCompile&& c) {
    rollup.add(c);
    if (!checkpoint.keeps(c.ordinal) || c.ordinal <= static_cast<int64_t>(kept)) return;
    checkpoint.keep(c, {c.key.source_id, c.line});
    if (checkpoint.ends_at(c.ordinal)) checkpoint.take(rollup, curve, 0, 0);
  });
  checkpoint.written(kGeneration, {}, {});
}

// A watch's preview goes on from a fork of the checkpoint, which reads its parent's kept
// compiles in place: what the fork keeps and drops is its own.
TEST(AttributionCheckpoint, AForkGoesOnFromItsParentAndLeavesItAsItWas) {
  const AttributionCheckpoint parent = checkpoint_after(run_of(4), 6);
  AttributionCheckpoint longer = parent.fork();
  EXPECT_EQ(usable(longer, run_of(6)), 6u);
  go_on(longer, run_of(6), 6, 10);  // the parent's six, then four of its own
  EXPECT_EQ(longer.kept(), 10u);
  EXPECT_EQ(usable(longer, run_of(6)), 10u);
  EXPECT_EQ(usable(longer, run_of(6), {compile(4, 1, 0).key}), 0u);  // one of its own changed
  AttributionCheckpoint shorter = parent.fork();
  go_on(shorter, run_of(6), 3, 5);  // three of the parent's, then two of its own
  EXPECT_EQ(shorter.kept(), 5u);
  EXPECT_EQ(usable(shorter, run_of(6)), 5u);
  EXPECT_EQ(usable(shorter, run_of(6), {compile(2, 0, 0).key}), 0u);  // the last it kept
  // The parent still holds its six.
  EXPECT_EQ(parent.kept(), 6u);
  EXPECT_EQ(usable(parent, run_of(6)), 6u);
  EXPECT_EQ(usable(parent, run_of(6), {compile(2, 1, 0).key}), 0u);
  EXPECT_EQ(usable(parent, run_of(6), {compile(3, 0, 0).key}), 6u);
}

// A watch's preview goes on from a trial of the checkpoint: it is dropped after, so it keeps
// nothing of its own (no compile, no copy of the rollup), and the parent is left as it was.
TEST(AttributionCheckpoint, ATrialGoesOnFromItsParentAndKeepsNothing) {
  const AttributionCheckpoint parent = checkpoint_after(run_of(4), 6);
  AttributionCheckpoint trial = parent.trial();
  EXPECT_EQ(usable(trial, run_of(6)), 6u);
  trial.resume();
  go_on(trial, run_of(6), 6, 10);
  EXPECT_EQ(trial.kept(), 0u);
  EXPECT_EQ(usable(trial, run_of(6)), 0u);
  EXPECT_EQ(parent.kept(), 6u);
  EXPECT_EQ(usable(parent, run_of(6)), 6u);
}

}  // namespace attribution_checkpoint_test
}  // namespace rcf::analysis
