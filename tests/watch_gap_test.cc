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

double gap_ms(const WatchRound& b, double cycle_cpu_ms, double cycle_wall_ms) {
  return std::chrono::duration<double, std::milli>(
             batch_gap(b, Seconds(cycle_cpu_ms / 1000), Seconds(cycle_wall_ms / 1000)))
      .count();
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

}  // namespace watch_gap_test
}  // namespace rcf::pipeline
