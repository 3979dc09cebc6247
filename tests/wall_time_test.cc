// Wall-clock times of logs (ingest/reading/wall_time.h): ISO 8601 with and without zones, the glog
// prefix clock, and the writer's zone told from a glog clock and the epoch time of the same moment.
#include "ingest/reading/wall_time.h"

#include <gtest/gtest.h>

namespace rcf::ingest {
namespace wall_time_test {

TEST(WallTime, Iso8601WithAndWithoutZone) {
  auto t = parse_iso8601("2026-11-26T20:42:48.25Z");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->epoch_s, 1795725768.25);
  EXPECT_TRUE(t->zoned);
  t = parse_iso8601("2026-11-26 15:42:48-05:00");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->epoch_s, 1795725768.0);
  t = parse_iso8601("2026-11-26 20:42:48,250");  // Python logging's asctime: no zone
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->epoch_s, 1795725768.25);
  EXPECT_FALSE(t->zoned);
  EXPECT_FALSE(parse_iso8601("2026-13-01"));
  EXPECT_FALSE(parse_iso8601("2026-11-26 25:00:00"));
  EXPECT_FALSE(parse_iso8601("2026-11-26 20:42:48 extra"));
}

TEST(WallTime, LeadingTimeNeedsASeparatorAfterIt) {
  auto t = leading_wall_time("  [2026-11-26 20:42:48] INFO step 3");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->length, 22u);
  EXPECT_FALSE(leading_wall_time("2026-11-26 20:42:48x step 3"));
  EXPECT_FALSE(leading_wall_time("step 3 at 2026-11-26 20:42:48"));
}

TEST(WallTime, GlogClockAndTheWritersZone) {
  auto clock = read_glog_clock("V1126 20:42:46.377000 1003 torch/_dynamo/utils.py:1796] {}");
  ASSERT_TRUE(clock);
  EXPECT_EQ(clock->month, 11);
  EXPECT_EQ(clock->day, 26);
  EXPECT_DOUBLE_EQ(clock->in_year(2026), 1795725766.377);
  // Logged 0.2 s after the compile ended, on a UTC machine and on one at UTC+05:30.
  EXPECT_EQ(clock_offset_s(*clock, 1795725766.177), 0);
  EXPECT_EQ(clock_offset_s(*clock, 1795725766.177 - 5.5 * 3600), 5 * 3600 + 1800);
  // Not the same moment: no zone is told.
  EXPECT_FALSE(clock_offset_s(*clock, 1795725766.177 - 600));
  // The last day of the year in UTC-08:00 is already New Year in UTC.
  auto eve = read_glog_clock("I1231 20:00:00.000000 1 x.py:1] y");
  ASSERT_TRUE(eve);
  EXPECT_EQ(clock_offset_s(*eve, eve->in_year(2026) + 8 * 3600), -8 * 3600);
  EXPECT_FALSE(read_glog_clock("X1126 20:42:46 not glog"));
}

TEST(WallTime, UtcYear) {
  EXPECT_EQ(utc_year(1795725766), 2026);
  EXPECT_EQ(utc_year(0), 1970);
  EXPECT_EQ(utc_year(951782400), 2000);  // 2000-02-29
}

}  // namespace wall_time_test
}  // namespace rcf::ingest
