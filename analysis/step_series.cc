#include "analysis/step_series.h"

#include <algorithm>

namespace rcf::analysis {

void StepSeries::push(int64_t line, int64_t step) {
  if (!runs_.empty()) {
    Run& run = runs_.back();
    const auto count = static_cast<int64_t>(size_ - run.begin);
    if (count == 1) {  // a second point sets the run's strides
      run.line_stride = line - run.first_line;
      run.step_stride = step - run.first_step;
      ++size_;
      return;
    }
    if (line == run.first_line + count * run.line_stride &&
        step == run.first_step + count * run.step_stride) {
      ++size_;
      return;
    }
  }
  runs_.push_back({size_, line, step, 0, 0});
  ++size_;
}

bool StepSeries::starts_with(const StepSeries& earlier) const {
  const std::vector<Run>& then = earlier.runs_;
  if (earlier.size_ > size_ || then.size() > runs_.size()) return false;
  for (size_t r = 0; r < then.size(); ++r) {
    const Run &a = then[r], &b = runs_[r];
    if (a.begin != b.begin || a.first_line != b.first_line || a.first_step != b.first_step)
      return false;
    const size_t count = earlier.count_of(r);
    // A run of one point has no strides yet; a last run may have grown since.
    if (count > 1 && (a.line_stride != b.line_stride || a.step_stride != b.step_stride))
      return false;
    if (r + 1 < then.size() ? count != count_of(r) : count > count_of(r)) return false;
  }
  return true;
}

const StepSeries::Run& StepSeries::run_of(size_t i) const {
  auto after = std::upper_bound(runs_.begin(), runs_.end(), i,
                                [](size_t index, const Run& r) { return index < r.begin; });
  return *(after - 1);
}

int64_t StepSeries::line(size_t i) const {
  const Run& r = run_of(i);
  return r.first_line + static_cast<int64_t>(i - r.begin) * r.line_stride;
}

int64_t StepSeries::step(size_t i) const {
  const Run& r = run_of(i);
  return r.first_step + static_cast<int64_t>(i - r.begin) * r.step_stride;
}

size_t StepSeries::count_at_or_before(int64_t line) const {
  // The last run starting at or before `line` (runs start at increasing lines).
  auto after = std::upper_bound(runs_.begin(), runs_.end(), line,
                                [](int64_t l, const Run& r) { return l < r.first_line; });
  if (after == runs_.begin()) return 0;
  const size_t run = static_cast<size_t>(after - runs_.begin()) - 1;
  const Run& r = runs_[run];
  const size_t count = count_of(run);
  if (count == 1) return r.begin + 1;
  // Lines in a run of two or more points rise by line_stride > 0 (lines strictly increase).
  const auto within = static_cast<size_t>((line - r.first_line) / r.line_stride) + 1;
  return r.begin + std::min(within, count);
}

}  // namespace rcf::analysis
