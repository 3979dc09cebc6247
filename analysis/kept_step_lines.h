// The progress lines with a time of one run, kept between the analyses of a watch (docs/watch.md,
// "How a batch is read"). A line that opens with a time (Python's logging: `2026-12-07
// 10:00:01,234 INFO step 5 ...`) is a step_marker row of its own, so a console of them holds a
// row per step, and reading every row at every batch took a third of a core at 300 000 steps.
// Each analysis reads only the rows with a time above the last one read (such a row is never
// changed once written); the rows without a time (a console's series rows: few, and the last of a
// source is written again by every batch) are read whole, through their own index.
// Lifetime: with the run's Dynamo records (analysis/dynamo_record_cache.h), read anew with them
// when a row read may be gone (a row with a time deleted on the connection:
// store/raw_row_deletions.h; another connection committed). Memory: 48 bytes a line kept (a
// step_marker row read is 88).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "store/database.h"
#include "store/step_row_reader.h"

namespace rcf::analysis {

class KeptStepLines {
 public:
  using Visit = std::function<void(const store::StepLineMarkerRow&)>;
  // Reads the run's rows with a time written since the last call (every one at the first).
  void read_on(store::Database& db, int64_t run_id);
  // Every progress line of the run, as store::for_each_step_line_marker gives them (in another
  // order): those without a time from the store, then those kept.
  void for_each(store::Database& db, int64_t run_id, const Visit& visit) const;
  // A copy that reads on from the same mark, for a trial that is rolled back (a watch's preview):
  // it views this one's rows, so this must outlive it and not read on meanwhile.
  KeptStepLines fork() const;

 private:
  // A row kept: its values, those a line with a time seldom has apart (a repeat count and
  // strides other than 1, 0 and 0: a row of a store written otherwise) in `unusual_`.
  struct Line {
    int64_t source_id = 0, line = 0, step = 0;
    double time_s = 0;
    int64_t shape_sid = 0;
    uint32_t unusual = 0;  // 1 + its index in unusual_, 0 for none
    uint8_t flags = 0;     // kHasTime, kHasShape, kZoned, kOnArrival
  };
  struct Repeats {
    int64_t repeats, line_stride, step_stride;
  };
  static constexpr uint8_t kHasTime = 1, kHasShape = 2, kZoned = 4, kOnArrival = 8;

  void keep(const store::StepLineMarkerRow& row);
  store::StepLineMarkerRow row_of(const Line& kept) const;
  void for_each_kept(const Visit& visit) const;

  const KeptStepLines* base_ = nullptr;  // a fork's: its rows come first
  std::vector<Line> rows_;
  std::vector<Repeats> unusual_;
  int64_t after_ = 0;       // the largest rowid of a row kept
  int64_t scanned_ = 0;     // the largest rowid of step_marker at the last read
  int64_t deletions_ = -1;  // store::step_marker_deletions then
};

}  // namespace rcf::analysis
