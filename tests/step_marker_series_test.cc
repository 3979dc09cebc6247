// Progress lines stored as arithmetic series (store/step_marker_series.h, docs/schema.md): the
// coalescing rule on its own, and a training console whose rows, expanded, are exactly the
// progress lines the importer read, one by one.
#include "store/step_marker_series.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "ingest/steps/step_line.h"
#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"

namespace rcf::store {
namespace step_marker_series_test {

using testing::scalar;
using testing::TempDir;
using Row = StepMarkerSeries::Row;

std::vector<Row> coalesce(const std::vector<std::array<int64_t, 3>>& lines) {
  StepMarkerSeries series;
  std::vector<Row> rows;
  for (const auto& [line, step, shape] : lines)
    if (auto done = series.add(line, step, shape)) rows.push_back(*done);
  if (auto done = series.take()) rows.push_back(*done);
  return rows;
}

std::string show(const std::vector<Row>& rows) {
  std::string out;
  for (const Row& r : rows)
    out += std::to_string(r.line) + ":" + std::to_string(r.step) + " x" +
           std::to_string(r.repeats) + " +" + std::to_string(r.line_stride) + "/+" +
           std::to_string(r.step_stride) + " s" + std::to_string(r.shape_sid) + "; ";
  return out;
}

TEST(StepMarkerSeries, LinesAtFixedStridesAreOneRow) {
  EXPECT_EQ(show(coalesce({{10, 0, 7}, {14, 10, 7}, {18, 20, 7}, {22, 30, 7}})),
            "10:0 x4 +4/+10 s7; ");
}

TEST(StepMarkerSeries, AnInterruptionAnEpochAndAnotherShapeStartNewRows) {
  EXPECT_EQ(show(coalesce({{10, 1, 7},
                           {12, 2, 7},
                           {14, 3, 7},
                           {17, 4, 7},  // a warning printed in between: the line stride breaks
                           {19, 5, 7},
                           {21, 1, 7},  // a new epoch numbers again
                           {23, 2, 7},
                           {24, 2, 9}})),  // an eval line
            "10:1 x3 +2/+1 s7; 17:4 x2 +2/+1 s7; 21:1 x2 +2/+1 s7; 24:2 x1 +0/+0 s9; ");
}

TEST(StepMarkerSeries, LinesThatDoNotGoForwardAreNeverJoined) {
  // Line numbers restart only with a new source, where the writer takes the series first; a
  // series must never stand for lines out of order.
  EXPECT_EQ(show(coalesce({{5, 1, 7}, {5, 1, 7}, {3, 2, 7}})),
            "5:1 x1 +0/+0 s7; 5:1 x1 +0/+0 s7; 3:2 x1 +0/+0 s7; ");
}

// A console as training loops print it: a loss line every step, a heartbeat between, a warning
// now and then, an epoch that numbers its steps again, an eval line of its own shape, and a few
// lines with a time (those stay one row each: a series has no times).
std::string training_console(int steps) {
  std::string out;
  for (int epoch = 0; epoch < 2; ++epoch)
    for (int i = 1; i <= steps; ++i) {
      out += "step " + std::to_string(i) + " | loss 2.31 | lr 3.0e-04\n";
      out += "I1122 06:22:06.195000 886349 torch/distributed/elastic/agent.py:151] heartbeat\n";
      if (i % 37 == 0) out += "UserWarning: the dataloader is slow\n";
      if (i % 50 == 0) out += "eval step " + std::to_string(i) + ": accuracy 0.91\n";
      if (i % 61 == 0)
        out += "2026-11-22 06:22:07,001 INFO step " + std::to_string(i) + " checkpoint saved\n";
    }
  return out;
}

TEST(StepMarkerSeries, ExpandedRowsAreEveryProgressLineOfTheConsole) {
  TempDir dir;
  const std::string log = dir.file("console.log");
  const std::string text = training_console(400);
  std::ofstream(log, std::ios::binary) << text;

  // What the importer reads, line by line: (line, step) of every progress line.
  std::string expected;
  int64_t line_no = 0, progress_lines = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    ++line_no;
    if (auto p = ingest::read_step_line(std::string_view(text).substr(at, end - at))) {
      expected += std::to_string(line_no) + ":" + std::to_string(p->step) + " ";
      ++progress_lines;
    }
    at = end + 1;
  }

  pipeline::IngestRequest req;
  req.db_path = dir.file("rcf.db");
  req.paths = {log};
  req.format = "plain_text";
  pipeline::run_ingest(req);
  auto db = open_store(req.db_path, OpenMode::kRead);
  const std::string expanded = scalar(*db,
                                      "WITH RECURSIVE e(line, step, i, n, ls, ss) AS ("
                                      "SELECT line, step, 0, repeats, line_stride, step_stride "
                                      "FROM step_marker WHERE origin = 'step_line' UNION ALL "
                                      "SELECT line + ls, step + ss, i + 1, n, ls, ss FROM e "
                                      "WHERE i + 1 < n) "
                                      "SELECT group_concat(line || ':' || step, ' ') || ' ' FROM "
                                      "(SELECT line, step FROM e ORDER BY line)");
  EXPECT_EQ(expanded, expected);
  EXPECT_EQ(scalar(*db, "SELECT sum(repeats) FROM step_marker"), std::to_string(progress_lines));
  // 800 loss lines, 16 eval lines, 12 timed lines: rows stay a small fraction of the lines.
  EXPECT_EQ(progress_lines, 800 + 16 + 12);
  EXPECT_LT(std::stoll(scalar(*db, "SELECT count(*) FROM step_marker")), 100);
  EXPECT_EQ(
      scalar(*db, "SELECT count(*) FROM step_marker WHERE time_s IS NOT NULL AND repeats = 1"),
      "12");
}

}  // namespace step_marker_series_test
}  // namespace rcf::store
