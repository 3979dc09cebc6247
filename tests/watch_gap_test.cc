// The gap between a watch's batches (pipeline/watch_loop.h, batch_gap; docs/watch.md "Budgets"):
// the batches take a twentieth of a core where the latency allows it, what a batch spends
// reading (paid per byte whatever the gap) is not waited away, and a line's alert stays within
// the latency bound.
#include <gtest/gtest.h>

#include <chrono>

#include "pipeline/watch_loop.h"

namespace rcf::pipeline {
namespace watch_gap_test {

using Seconds = std::chrono::duration<double>;
using std::chrono::milliseconds;

WatchRound batch(double ingest_ms, double analysis_ms, double alerts_ms) {
  WatchRound r;
  r.ingest_seconds = Seconds(ingest_ms / 1000);
  r.analysis_seconds = Seconds(analysis_ms / 1000);
  r.alerts_seconds = Seconds(alerts_ms / 1000);
  return r;
}

double ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double gap_ms(const WatchRound& b, double cycle_cpu_ms, double cycle_wall_ms) {
  return ms(batch_gap(b, Seconds(cycle_cpu_ms / 1000), Seconds(cycle_wall_ms / 1000)));
}

// A cheap batch: a quarter second apart.
TEST(WatchBatchGap, ACheapBatchWaitsTheLeast) {
  EXPECT_DOUBLE_EQ(gap_ms(batch(2, 1, 0.5), 3, 250), 250);
}

// A run of 100 000 compiles: 22 ms of CPU a cycle, 3 ms of it reading a 450 ms cycle's bytes.
// The next cycle, batch included, takes 5 % of a core: the reading's share (0.67 %) and the
// per-batch 19 ms spread over it.
TEST(WatchBatchGap, TheBatchesTakeATwentiethOfACore) {
  const WatchRound b = batch(20, 17, 3);
  const double gap = gap_ms(b, 22, 450);
  const double reading_share = 3.0 / 450;
  const double cycle = gap + 23;  // the gap, then the next batch and its alerts
  EXPECT_NEAR(19 / cycle + reading_share, 0.05, 1e-3) << gap;
  EXPECT_GT(gap, 19 * 19.0);  // more than the per-batch CPU alone would ask for
}

// CPU on the batch's other threads counts: the same wall times with twice the CPU wait longer.
TEST(WatchBatchGap, CpuOnOtherThreadsCounts) {
  const WatchRound b = batch(12, 10, 1);
  EXPECT_GT(gap_ms(b, 24, 400), gap_ms(b, 12, 400) + 100);
}

// A chatty log whose reading alone takes more than the budget: waiting would not make the reading
// cheaper, so the gap follows the per-batch CPU only (here, the least gap), not the latency bound.
TEST(WatchBatchGap, AChattyLogIsNotWaitedFor) {
  EXPECT_DOUBLE_EQ(gap_ms(batch(30, 4, 1), 33, 290), 250);
}

// However costly the batch, a line written just after it is read is alerted within 0.8 s: the
// gap leaves room for two batches; never under the least gap.
TEST(WatchBatchGap, TheLatencyBoundsTheGap) {
  EXPECT_NEAR(gap_ms(batch(100, 90, 10), 200, 500), 800 - 2 * 110, 1e-6);
  EXPECT_DOUBLE_EQ(gap_ms(batch(400, 350, 50), 600, 900), 250);
}

// A cycle that cost more than the one before (a preview, a larger batch) took more than the
// budget: the overrun it leaves makes the next gap that much longer, so that the two cycles
// together take 5 % of a core; a cheaper cycle pays it back; a chatty log owes nothing.
TEST(WatchBatchGap, ACycleOverTheBudgetIsRepaidByTheNext) {
  const WatchRound b = batch(20, 17, 3);
  const Seconds owed = budget_overrun(Seconds{}, b, Seconds(0.040), Seconds(0.500));
  EXPECT_NEAR(owed.count(), 0.040 - 0.05 * 0.500, 1e-9);
  const double plain = gap_ms(b, 22, 450);
  const double repaid = ms(batch_gap(b, Seconds(0.022), Seconds(0.450), owed));
  EXPECT_NEAR(repaid - plain, owed.count() / 0.05 * 1000, 1e-6);
  // The next cycle, at the budget over its longer gap, leaves nothing owed.
  const double next_wall = (repaid + 23) / 1000;
  const double next_cpu = 0.05 * next_wall - owed.count();
  EXPECT_NEAR(budget_overrun(owed, b, Seconds(next_cpu), Seconds(next_wall)).count(), 0, 1e-9);
  EXPECT_EQ(budget_overrun(owed, b, Seconds(0.001), Seconds(0.500)).count(), 0);  // no credit
  EXPECT_EQ(budget_overrun(Seconds(0.1), batch(30, 4, 1), Seconds(0.033), Seconds(0.290)).count(),
            0);  // a chatty log: its reading is 9 % of the cycle
  // What is owed is bounded: a run whose batches the latency bounds owes no more for longer.
  EXPECT_LE(budget_overrun(Seconds{}, b, Seconds(5), Seconds(1)).count(), 0.25);
  // The latency bound still holds.
  EXPECT_NEAR(ms(batch_gap(batch(100, 90, 10), Seconds(0.2), Seconds(0.5), Seconds(0.25))),
              800 - 2 * 110, 1e-6);
}

}  // namespace watch_gap_test
}  // namespace rcf::pipeline
