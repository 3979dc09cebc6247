// StepSeries: the progress lines of one log as (line, training step) points, held as runs of
// evenly spaced points. A training log prints `step N` every so many lines for hours (3.5 M such
// lines in a 1 GB log): one array entry per line grew the step decision's memory with the log
// (56 MB at 1 GB), where the runs of a log that keeps its rhythm are a few hundred.
// Points are added in order of strictly increasing line; any sequence is held exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rcf::analysis {

class StepSeries {
 public:
  // Adds the point after the last one (`line` above the last point's).
  void push(int64_t line, int64_t step);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t line(size_t i) const;
  int64_t step(size_t i) const;
  int64_t last_step() const { return step(size_ - 1); }
  // How many points lie at or before `line` (the index of the first one after it).
  size_t count_at_or_before(int64_t line) const;
  // How many runs hold the points (for tests and memory figures).
  size_t runs() const { return runs_.size(); }
  // Whether this series' first earlier.size() points are `earlier`'s (it grew at its end). Reads
  // the runs, not the points: a run of earlier's that this one holds as it was, or longer.
  bool starts_with(const StepSeries& earlier) const;

 private:
  struct Run {  // points begin, begin + 1, ...: line = first_line + k * line_stride, same for step
    size_t begin = 0;
    int64_t first_line = 0, first_step = 0;
    int64_t line_stride = 0, step_stride = 0;  // 0 while the run holds one point
  };
  // The run holding point `i` (< size_).
  const Run& run_of(size_t i) const;
  size_t count_of(size_t run) const {
    return (run + 1 < runs_.size() ? runs_[run + 1].begin : size_) - runs_[run].begin;
  }

  std::vector<Run> runs_;
  size_t size_ = 0;
};

}  // namespace rcf::analysis
