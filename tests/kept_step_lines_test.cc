// The progress lines with a time a watch keeps between analyses (analysis/kept_step_lines.h):
// each read takes only the rows added since, also where a new row took the rowid of a deleted
// one (SQLite numbers a new row after the largest rowid there is: a console's open series row,
// taken back and written again at every batch, is often the last), and a fork for a preview
// reads on without changing what the kept lines hold.
#include "analysis/kept_step_lines.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store/raw_row_deletions.h"
#include "store/store.h"
#include "tests/support/temp_files.h"

namespace rcf::analysis {
namespace kept_step_lines_test {

// Adds a progress line of run 1, source 2 at `line` printing `step`, with a time or not.
void add_line(store::Database& db, int64_t line, bool timed) {
  db.exec(
      "INSERT INTO step_marker (run_id, source_id, line, step, origin, shape_sid, time_s) "
      "VALUES (1, 2, " +
      std::to_string(line) + ", " + std::to_string(line) + ", 'step_line', 7, " +
      (timed ? std::to_string(1.8e9 + line) : std::string("NULL")) + ")");
}

// The lines `kept` gives, as "line:timed" in the order given.
std::string lines_of(const KeptStepLines& kept, store::Database& db) {
  std::string out;
  kept.for_each(db, 1, [&](const store::StepLineMarkerRow& r) {
    out += std::to_string(r.line) + (r.time_s ? "t " : " ");
  });
  return out;
}

TEST(KeptStepLines, EachReadTakesTheRowsAddedSinceEvenUnderAReusedRowid) {
  testing::TempDir dir;
  auto db = store::open_store(dir.file("rcf.db"), store::OpenMode::kCreateOrWrite);
  store::count_raw_row_deletions(*db);
  KeptStepLines kept;
  add_line(*db, 1, true);
  add_line(*db, 2, false);  // the last row: an open series
  kept.read_on(*db, 1);
  EXPECT_EQ(lines_of(kept, *db), "2 1t ");
  // The series is taken back; the next line with a time takes its rowid.
  db->exec("DELETE FROM step_marker WHERE line = 2");
  add_line(*db, 3, true);
  add_line(*db, 4, false);
  kept.read_on(*db, 1);
  EXPECT_EQ(lines_of(kept, *db), "4 1t 3t ");
  // Nothing deleted since: only the rows above the last read are looked at.
  add_line(*db, 5, true);
  kept.read_on(*db, 1);
  EXPECT_EQ(lines_of(kept, *db), "4 1t 3t 5t ");

  // A fork reads on from the same mark and leaves the kept lines as they were.
  add_line(*db, 6, true);
  {
    KeptStepLines fork = kept.fork();
    fork.read_on(*db, 1);
    EXPECT_EQ(lines_of(fork, *db), "4 1t 3t 5t 6t ");
  }
  EXPECT_EQ(lines_of(kept, *db), "4 1t 3t 5t ");
}

// A kept line gives back the row it was read from, value for value: its time and how it was
// taken, its shape or none, and a repeat count with strides (which rcf writes only on rows
// without a time, but a store written otherwise may hold).
TEST(KeptStepLines, AKeptLineGivesBackEveryValueOfItsRow) {
  testing::TempDir dir;
  auto db = store::open_store(dir.file("rcf.db"), store::OpenMode::kCreateOrWrite);
  store::count_raw_row_deletions(*db);
  db->exec(
      "INSERT INTO step_marker (run_id, source_id, line, step, origin, shape_sid, time_s, "
      "time_zoned, time_on_arrival, repeats, line_stride, step_stride) VALUES "
      "(1, 9, 40, 12, 'step_line', NULL, 1800000000.125, 1, 0, 3, 2, 1), "
      "(1, 2, 41, 13, 'step_line', 7, 1800000001.5, 0, 1, 1, 0, 0)");
  KeptStepLines kept;
  kept.read_on(*db, 1);
  std::vector<store::StepLineMarkerRow> rows;
  kept.for_each(*db, 1, [&](const store::StepLineMarkerRow& r) { rows.push_back(r); });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].source_id, 9);
  EXPECT_EQ(rows[0].line, 40);
  EXPECT_EQ(rows[0].step, 12);
  EXPECT_FALSE(rows[0].shape_sid.has_value());
  EXPECT_EQ(rows[0].time_s, std::optional<double>(1800000000.125));
  EXPECT_TRUE(rows[0].time_zoned);
  EXPECT_FALSE(rows[0].time_on_arrival);
  EXPECT_EQ(rows[0].repeats, 3);
  EXPECT_EQ(rows[0].line_stride, 2);
  EXPECT_EQ(rows[0].step_stride, 1);
  EXPECT_EQ(rows[1].shape_sid, std::optional<int64_t>(7));
  EXPECT_EQ(rows[1].time_s, std::optional<double>(1800000001.5));
  EXPECT_FALSE(rows[1].time_zoned);
  EXPECT_TRUE(rows[1].time_on_arrival);
  EXPECT_EQ(rows[1].repeats, 1);
  EXPECT_EQ(rows[1].line_stride, 0);
  EXPECT_EQ(rows[1].step_stride, 0);
}

}  // namespace kept_step_lines_test
}  // namespace rcf::analysis
