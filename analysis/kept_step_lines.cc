#include "analysis/kept_step_lines.h"

namespace rcf::analysis {

void KeptStepLines::read_on(store::Database& db, int64_t run_id) {
  after_ = store::read_timed_step_lines_after(db, run_id, after_, rows_);
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
  return copy;
}

}  // namespace rcf::analysis
