// Training-progress lines in a log's own output: `step 12 | loss 3.1`, `Step: 12/500`,
// `iter 40`, `global_step=12`, `[ 12/500]`. Importers that see a user's output (PT_XLA_DEBUG,
// Dynamo text, plain text) turn such a line into a StepMarker (origin "step_line") with its
// shape, so that analysis can tell the training step from the sync (docs/training_steps.md).
// The detector is deliberately loose: analysis keeps only a shape whose numbers go up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/events.h"
#include "ingest/xla_events.h"

namespace rcf::ingest {

struct StepLine {
  int64_t step = 0;
  // The line up to and including the step number, digit runs written `#` and spaces squeezed:
  // `[train] step #`. Lines of one shape are one progress series. A time that opens the line is
  // not part of it.
  std::string shape;
  // The time that opens the line (`2026-11-26 20:42:48,656 step 3 ...`, Python logging's
  // asctime), when it does: a progress line printed as its step ends gives the step's end time.
  std::optional<double> time_s;  // epoch seconds; the printed clock itself when !time_zoned
  bool time_zoned = false;       // the line named its zone
};

// The step of a progress line, or nullopt. A keyword (`step`, `iter`, `iteration`, any case,
// a whole word or after `_`) followed by an optional `:`, `=` or `#` and a number; or a line
// that opens with `N/M` or `[N/M]` (M >= N > 0); or a metric writer's line that opens with
// `[N] key=value` or `[N] Got ...` (JAX's CLU LoggingWriter, also `prefix[N] ...`).
std::optional<StepLine> read_step_line(std::string_view text);

// The step marker (origin "step_line") of progress line `line_no`.
StepMarker progress_marker(int64_t line_no, StepLine&& progress);

// Why progress line `progress` is no step marker, or nullptr: the time that opens it lies before
// 2000 or after 2100 (util/plausible.h; `1970-01-01 00:00:05 step 3`, a clock never set), so
// the step's end time it gives would be wrong (`reason::kImplausibleTimestampSkipped`).
const LineReason* implausible_progress_reason(const StepLine& progress);

// Emits progress line `line_no` (`line` as read) as a step marker, or skips it under its
// implausible_progress_reason, as a line that is no progress line is skipped
// (docs/reasons.md, `implausible_timestamp`).
void emit_progress(EventSink& sink, int64_t line_no, StepLine&& progress, std::string_view line);

}  // namespace rcf::ingest
