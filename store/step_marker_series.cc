#include "store/step_marker_series.h"

namespace rcf::store {

StepMarkerSeries::StepMarkerSeries(const Row& pending)
    : pending_(pending),
      last_line_(pending.line + (pending.repeats - 1) * pending.line_stride),
      last_step_(pending.step + (pending.repeats - 1) * pending.step_stride) {}

bool StepMarkerSeries::continues(int64_t line, int64_t step, int64_t shape_sid) const {
  const Row& p = *pending_;
  if (shape_sid != p.shape_sid || line <= last_line_) return false;
  if (p.repeats == 1) return true;  // the second line sets the strides
  return line - last_line_ == p.line_stride && step - last_step_ == p.step_stride;
}

std::optional<StepMarkerSeries::Row> StepMarkerSeries::add(int64_t line, int64_t step,
                                                           int64_t shape_sid) {
  std::optional<Row> done;
  if (pending_ && continues(line, step, shape_sid)) {
    if (pending_->repeats == 1) {
      pending_->line_stride = line - last_line_;
      pending_->step_stride = step - last_step_;
    }
    ++pending_->repeats;
  } else {
    done = take();
    pending_ = Row{line, step, shape_sid, 1, 0, 0};
  }
  last_line_ = line;
  last_step_ = step;
  return done;
}

std::optional<StepMarkerSeries::Row> StepMarkerSeries::take() {
  std::optional<Row> done = pending_;
  pending_.reset();
  return done;
}

}  // namespace rcf::store
