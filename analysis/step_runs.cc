#include "analysis/step_runs.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace rcf::analysis {
namespace {

// x mod m in [0, m), for negative x too.
int64_t remainder_of(int64_t x, int64_t m) {
  const int64_t r = x % m;
  return r < 0 ? r + m : r;
}

}  // namespace

void StepRuns::add(int64_t first, int64_t stride, int64_t count) {
  if (count <= 0) return;
  if (count == 1 || stride == 0) {
    // A step that goes on from the last run, rising by its stride (steps listed one by one, in
    // order: a console's timed lines), extends it.
    if (!runs_.empty()) {
      Run& last = runs_.back();
      if (first > last.high && (last.stride == 0 || first - last.high == last.stride)) {
        last.stride = first - last.high;  // its stride, or the first gap after a single step
        last.high = first;
        return;
      }
    }
    runs_.push_back({first, first, 0});
    return;
  }
  const int64_t last = first + (count - 1) * stride;
  runs_.push_back({std::min(first, last), std::max(first, last), stride < 0 ? -stride : stride});
}

StepRuns::Distinct StepRuns::distinct() const {
  if (runs_.empty()) return {};
  int64_t stride = 0;  // the one stride of the runs of two steps or more
  for (const Run& r : runs_) {
    if (r.stride == 0) continue;
    if (stride != 0 && r.stride != stride) return listed();
    stride = r.stride;
  }
  if (stride == 0) return listed();  // single steps only: as many entries as steps anyway
  const int64_t remainder = remainder_of(runs_.front().low, stride);
  for (const Run& r : runs_)
    if (remainder_of(r.low, stride) != remainder) return listed();
  return on_lattice(stride);
}

// Every run is an interval of lattice points (low - remainder) / stride: merged, counted.
StepRuns::Distinct StepRuns::on_lattice(int64_t stride) const {
  std::vector<std::pair<int64_t, int64_t>> spans;  // (first, last) as lattice points
  spans.reserve(runs_.size());
  const int64_t base = runs_.front().low;
  for (const Run& r : runs_) spans.emplace_back((r.low - base) / stride, (r.high - base) / stride);
  std::sort(spans.begin(), spans.end());
  Distinct out{0, base + spans.front().first * stride};
  int64_t covered = spans.front().first - 1;  // the last lattice point counted
  for (const auto& [first, last] : spans) {
    if (last <= covered) continue;
    out.count += last - std::max(first, covered + 1) + 1;
    covered = last;
  }
  return out;
}

// Every step listed, sorted, counted once.
StepRuns::Distinct StepRuns::listed() const {
  util::LargeVector<int64_t> steps;
  for (const Run& r : runs_)
    for (int64_t s = r.low;; s += r.stride) {
      steps.push_back(s);
      if (r.stride == 0 || s >= r.high) break;
    }
  if (!std::is_sorted(steps.begin(), steps.end())) std::sort(steps.begin(), steps.end());
  const int64_t count = std::unique(steps.begin(), steps.end()) - steps.begin();
  return {count, steps.front()};
}

}  // namespace rcf::analysis
