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
  after_ = std::max(after_, store::read_timed_step_lines_after(db, run_id, from, rows_));
  scanned_ = last;
  deletions_ = deletions.value_or(-1);
}

void KeptStepLines::for_each(store::Database& db, int64_t run_id, const Visit& visit) const {
  store::for_each_untimed_step_line_marker(db, run_id, visit);
  for_each_kept(visit);
}

void KeptStepLines::for_each_kept(const Visit& visit) const {
  if (base_) base_->for_each_kept(visit);
  for (const store::StepLineMarkerRow& row : rows_) visit(row);
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
