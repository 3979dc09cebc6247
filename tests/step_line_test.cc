// Progress lines of a user's own output (ingest/steps/step_line.h): the forms training loops print,
// and the look-alikes that are not steps.
#include "ingest/steps/step_line.h"

#include <gtest/gtest.h>

#include <string>

#include "ingest/steps/step_pattern_tap.h"
#include "tests/support/collecting_sink.h"

namespace rcf::ingest {
namespace step_line_test {

std::string read(std::string_view text) {
  auto s = read_step_line(text);
  return s ? std::to_string(s->step) + " `" + s->shape + "`" : "-";
}

TEST(StepLine, ReadsTheFormsTrainingLoopsPrint) {
  EXPECT_EQ(read("[train] step   12 | loss 3.1000 | 412.0 ms"), "12 `[train] step #`");
  EXPECT_EQ(read("step    1 | train loss 11.7811 | 52937.4 ms"), "1 `step #`");
  EXPECT_EQ(read("Epoch 2 Step: 40/500 lr=3e-4"), "40 `Epoch # Step: #/#`");
  EXPECT_EQ(read("INFO:train:global_step=1200 loss=2.5"), "1200 `INFO:train:global_step=#`");
  EXPECT_EQ(read("iter #77 done"), "77 `iter #`");
  EXPECT_EQ(read("Iteration 3, loss 0.5"), "3 `Iteration #`");
  EXPECT_EQ(read(" [ 12/500] loss 1.0"), "12 `[ #/#`");
  EXPECT_EQ(read("120/500 [00:10<00:40, 12.0it/s]"), "120 `#/#`");
  // A metric writer's scalars (CLU's LoggingWriter, JAX training loops): `[step] key=value`.
  EXPECT_EQ(read("[1200] learning_rate=0.001, train/loss=2.5"), "1200 `[#]`");
  EXPECT_EQ(read("[40] collection=eval accuracy=0.91"), "40 `[#]`");
  EXPECT_EQ(read("[40] Got images: {'samples': (4, 64, 64, 3)}."), "40 `[#]`");
  EXPECT_EQ(read("train[300] loss=1.25"), "300 `train[#]`");
  EXPECT_EQ(read("2024-07-22 11:56:03,008 [7] loss=0.5"), "7 `[#]`");
}

TEST(StepLine, LooksAlikesAreNotSteps) {
  EXPECT_EQ(read("[MetricsData; step=5]"), "-");  // counts syncs
  EXPECT_EQ(read("pt-xla-profiler: CompileTime too frequent: 12 counts during 10 steps"), "-");
  EXPECT_EQ(read("Compilation Cause:   user mark_step"), "-");
  EXPECT_EQ(read("    ___check_obj_id(L['step'], 140)"), "-");
  EXPECT_EQ(read("    L['self'].step == 3"), "-");
  EXPECT_EQ(read("stepping the scheduler 5 times"), "-");
  EXPECT_EQ(read("step 1.5 of the warmup"), "-");       // not an integer step
  EXPECT_EQ(read("2026/11/26 12:00:00 started"), "-");  // a date, not progress
  EXPECT_EQ(read("11/26/2026 started"), "-");
  EXPECT_EQ(read("500/12 exceeds the total"), "-");
  EXPECT_EQ(read(""), "-");
  // Brackets that are no metric writer's step: a rank prefix, a list, a log level.
  EXPECT_EQ(read("[0]: loss=1.0"), "-");
  EXPECT_EQ(read("[rank0] loss=1.0"), "-");
  EXPECT_EQ(read("[3] 0.5 0.25"), "-");
  EXPECT_EQ(read("got [3] items=4"), "-");  // two words before the bracket
  EXPECT_EQ(read("[3]loss=1"), "-");
  EXPECT_EQ(read("[1.5] loss=1"), "-");
}

// The keyword is searched 16 bytes at a time: found at every offset across block boundaries, in
// either case, after look-alike starts (is, it/s, Steps) in the same block or an earlier one.
TEST(StepLine, KeywordsAreFoundAtEveryOffsetAndCase) {
  for (size_t pad = 0; pad < 40; ++pad) {
    for (std::string_view form : {"step 7", "STEP 7", "Iter 7", "iteration 7", "sTeP=7"}) {
      std::string line = std::string(pad, '-') + " it is " + std::string(form) + " loss 1";
      auto s = read_step_line(line);
      ASSERT_TRUE(s) << line;
      EXPECT_EQ(s->step, 7) << line;
    }
    std::string no_step = std::string(pad, '.') + " this is iS it/s sis Steps stepping 5";
    EXPECT_FALSE(read_step_line(no_step)) << no_step;
  }
}

TEST(StepLine, ShapeKeepsTheEndOfALongPrefix) {
  std::string prefix(100, 'x');
  auto s = read_step_line(prefix + " step 5");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->shape.size(), 64u);
  EXPECT_TRUE(s->shape.ends_with(" step #"));
}

// A time that opens the line (Python logging's asctime, ISO 8601) is the step's end time, and
// not part of the shape: the same loop with and without timestamps prints one series.
TEST(StepLine, ATimeThatOpensTheLineIsReadAndLeftOutOfTheShape) {
  auto s = read_step_line("2026-11-26 20:42:48,656 step 1/7 loss 0.6174");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->step, 1);
  EXPECT_EQ(s->shape, "step #/#");
  ASSERT_TRUE(s->time_s);
  EXPECT_DOUBLE_EQ(*s->time_s, 1795725768.656);  // read as UTC ...
  EXPECT_FALSE(s->time_zoned);                   // ... and said to have no zone
  s = read_step_line("[2026-11-26T21:42:48.5+01:00] step 3 | loss 1.0");
  ASSERT_TRUE(s && s->time_s);
  EXPECT_DOUBLE_EQ(*s->time_s, 1795725768.5);
  EXPECT_TRUE(s->time_zoned);
  EXPECT_EQ(s->shape, "] step #");
  // A date later in the line, or digits that are not a date, are not a time.
  s = read_step_line("step 4 | saved ckpt-2026-11-26 12:00:00");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->time_s);
  s = read_step_line("20261126 step 5");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->time_s);
  EXPECT_EQ(progress_marker(9, std::move(*read_step_line("2026-11-26 20:42:48 step 2"))).time_s,
            1795725768.0);
}

// Issue 47: a progress line opened by a time before 2000 or after 2100 is no step marker; its
// reason says why (util/plausible.h). A step is at most 12 digits, so never past 2^53.
TEST(StepLine, AClockOutOfRangeMakesNoStepMarker) {
  auto at_1970 = read_step_line("1970-01-01 00:00:05 step 3 | loss 1.0");
  ASSERT_TRUE(at_1970.has_value());
  EXPECT_EQ(implausible_progress_reason(*at_1970), &reason::kImplausibleTimestampSkipped);
  auto at_2150 = read_step_line("2150-01-01T00:00:00Z step 4");
  ASSERT_TRUE(at_2150.has_value());
  EXPECT_EQ(implausible_progress_reason(*at_2150), &reason::kImplausibleTimestampSkipped);
  auto fine = read_step_line("2026-11-26 20:42:48,656 step 5");
  ASSERT_TRUE(fine.has_value());
  EXPECT_EQ(implausible_progress_reason(*fine), nullptr);
  EXPECT_EQ(implausible_progress_reason(*read_step_line("step 6")), nullptr);
  EXPECT_EQ(read("step 9007199254740993"), "-");  // 16 digits: no step number
  EXPECT_EQ(read("step -3"), "-");

  rcf::testing::CollectingSink sink;
  emit_progress(sink, 7, std::move(*at_1970), "1970-01-01 00:00:05 step 3 | loss 1.0");
  emit_progress(sink, 8, std::move(*fine), "2026-11-26 20:42:48,656 step 5");
  EXPECT_EQ(sink.note_counts(), (std::map<std::string, int>{{"skipped:implausible_timestamp", 1}}));
  ASSERT_EQ(sink.all<StepMarker>().size(), 1u);
  EXPECT_EQ(sink.all<StepMarker>().at(0).line, 8);
}

// A --step-pattern match with a number out of range is no step timing, and says why.
TEST(StepPatternTap, NumbersOutOfRangeAreNoTiming) {
  std::string error;
  auto tap = StepPatternTap::create(
      R"(step (?P<step>\S+) ms=(?P<ms>\S+) c=(?P<compile_ms>\S+) ts=(?P<ts>\S+))", &error);
  ASSERT_NE(tap, nullptr) << error;
  auto why = [&](std::string_view line) -> std::string {
    const LineReason* reason = nullptr;
    auto t = tap->match(line, 1, &reason);
    if (t) return "timing " + std::to_string(t->step);
    return reason ? std::string(reason->name) : "-";
  };
  EXPECT_EQ(why("step 12 ms=3.5 c=1 ts=1764000000"), "timing 12");
  EXPECT_EQ(why("step -1 ms=3.5 c=1 ts=1764000000"), "implausible_step");
  EXPECT_EQ(why("step 1e30 ms=3.5 c=1 ts=1764000000"), "implausible_step");
  EXPECT_EQ(why("step nan ms=3.5 c=1 ts=1764000000"), "implausible_step");
  EXPECT_EQ(why("step 9007199254740994 ms=3.5 c=1 ts=1764000000"), "implausible_step");
  EXPECT_EQ(why("step 12 ms=-3.5 c=1 ts=1764000000"), "implausible_duration");
  EXPECT_EQ(why("step 12 ms=inf c=1 ts=1764000000"), "implausible_duration");
  EXPECT_EQ(why("step 12 ms=3.5 c=4e13 ts=1764000000"), "implausible_duration");
  EXPECT_EQ(why("step 12 ms=3.5 c=1 ts=5"), "implausible_timestamp");
  EXPECT_EQ(why("step x ms=3.5 c=1 ts=5"), "-");  // not a number: no match, as before
  EXPECT_EQ(why("no step here"), "-");
}

}  // namespace step_line_test
}  // namespace rcf::ingest
