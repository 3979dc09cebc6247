// Training steps counted as runs (first, first + stride, ...), not one entry a step: a console of
// progress lines in a file of its own is stored as a few series (store/step_marker_series.h), and
// a watched run gathers its steps again at every batch (docs/training_steps.md). A run of a
// million steps is one entry here, so that gathering costs the rows, not the steps.
#pragma once

#include <cstdint>

#include "util/large_array_allocator.h"

namespace rcf::analysis {

class StepRuns {
 public:
  // The steps first, first + stride, ..., `count` of them (count >= 1; stride may be 0 or below).
  void add(int64_t first, int64_t stride, int64_t count);
  void add(int64_t step) { add(step, 0, 1); }
  bool empty() const { return runs_.empty(); }

  // How many distinct steps the runs hold, and the smallest (0 when there is none).
  struct Distinct {
    int64_t count = 0;
    int64_t first = 0;
  };
  // Runs on one lattice (every run of two steps or more has the same stride, every step the same
  // remainder by it: a console's series, single steps among them) are counted as merged
  // intervals, in the number of runs; others by listing every step.
  Distinct distinct() const;

 private:
  struct Run {
    int64_t low = 0, high = 0;  // the smallest and largest step
    int64_t stride = 0;         // > 0 when the run holds two steps or more
  };
  Distinct on_lattice(int64_t stride) const;
  Distinct listed() const;

  util::LargeVector<Run> runs_;
};

}  // namespace rcf::analysis
