// Progress lines as arithmetic series. A training loop prints `step N` every few lines, a million
// times in a GB of log; one step_marker row per line made them half the cost of ingesting such a
// log. Consecutive progress lines of one source and shape whose lines and steps both advance by
// fixed strides are stored as one row that stands for `repeats` lines (docs/schema.md,
// step_marker). A line with a time, or any other marker, is a row of its own.
#pragma once

#include <cstdint>
#include <optional>

namespace rcf::store {

class StepMarkerSeries {
 public:
  struct Row {
    int64_t line = 0;  // the first line of the series
    int64_t step = 0;  // its step
    int64_t shape_sid = 0;
    int64_t repeats = 1;      // lines the row stands for
    int64_t line_stride = 0;  // line i is line + i * line_stride
    int64_t step_stride = 0;  // its step is step + i * step_stride
  };

  StepMarkerSeries() = default;
  // A series left pending by an earlier read of the source (store: source_resume), which the
  // next progress lines continue as if they had been read with it.
  explicit StepMarkerSeries(const Row& pending);

  // Adds a progress line of the current source. Returns the finished series when the line does
  // not continue the pending one (the line then starts a new one).
  std::optional<Row> add(int64_t line, int64_t step, int64_t shape_sid);
  // The pending series, if any (at the end of a source or of a batch).
  std::optional<Row> take();
  // The pending series, left pending.
  const std::optional<Row>& peek() const { return pending_; }

 private:
  bool continues(int64_t line, int64_t step, int64_t shape_sid) const;

  std::optional<Row> pending_;
  int64_t last_line_ = 0, last_step_ = 0;
};

}  // namespace rcf::store
