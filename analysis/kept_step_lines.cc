#include "analysis/kept_step_lines.h"

#include <algorithm>

#include "store/raw_row_deletions.h"

namespace rcf::analysis {

void KeptStepLines::read_on(store::Database& db, int64_t run_id) {
  // The rows up to scanned_ were looked at. A row deleted since may have given its rowid to a new
  // one below that: then the rows above the last one kept are looked at again (any new row of
  // the run is above it: that row is still there, or the records were read anew).
  const std::optional<int64_t> deletions = store::step_marker_deletions(db);
  const int64_t from = deletions && *deletions == deletions_ ? scanned_ : after_;
  const int64_t last = store::last_step_marker_rowid(db);
  after_ = std::max(
      after_, store::read_timed_step_lines_after(
                  db, run_id, from, [this](const store::StepLineMarkerRow& row) { keep(row); }));
  scanned_ = last;
  deletions_ = deletions.value_or(-1);
}

void KeptStepLines::for_each(store::Database& db, int64_t run_id, const Visit& visit) const {
  store::for_each_untimed_step_line_marker(db, run_id, visit);
  for_each_kept(visit);
}

void KeptStepLines::keep(const store::StepLineMarkerRow& row) {
  Line& kept = rows_.emplace_back();
  kept.source_id = row.source_id;
  kept.line = row.line;
  kept.step = row.step;
  kept.time_s = row.time_s.value_or(0);
  kept.shape_sid = row.shape_sid.value_or(0);
  kept.flags = (row.time_s ? kHasTime : 0) | (row.shape_sid ? kHasShape : 0) |
               (row.time_zoned ? kZoned : 0) | (row.time_on_arrival ? kOnArrival : 0);
  if (row.repeats != 1 || row.line_stride != 0 || row.step_stride != 0) {
    unusual_.push_back({row.repeats, row.line_stride, row.step_stride});
    kept.unusual = static_cast<uint32_t>(unusual_.size());
  }
}

store::StepLineMarkerRow KeptStepLines::row_of(const Line& kept) const {
  store::StepLineMarkerRow row;
  row.source_id = kept.source_id;
  row.line = kept.line;
  row.step = kept.step;
  if (kept.flags & kHasTime) row.time_s = kept.time_s;
  if (kept.flags & kHasShape) row.shape_sid = kept.shape_sid;
  row.time_zoned = (kept.flags & kZoned) != 0;
  row.time_on_arrival = (kept.flags & kOnArrival) != 0;
  if (kept.unusual != 0) {
    const Repeats& r = unusual_[kept.unusual - 1];
    row.repeats = r.repeats;
    row.line_stride = r.line_stride;
    row.step_stride = r.step_stride;
  }
  return row;
}

void KeptStepLines::for_each_kept(const Visit& visit) const {
  if (base_) base_->for_each_kept(visit);
  for (const Line& kept : rows_) visit(row_of(kept));
}

KeptStepLines KeptStepLines::fork() const {
  KeptStepLines copy;
  copy.base_ = this;
  copy.after_ = after_;
  copy.scanned_ = scanned_;
  copy.deletions_ = deletions_;
  return copy;
}

}  // namespace rcf::analysis
