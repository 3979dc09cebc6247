// Importer "step_timing" (see ingest/importer.h). Format reference: docs/step_timing.md.
#pragma once

#include "ingest/importer.h"
#include "ingest/xla_events.h"

namespace rcf::ingest {
ImporterInfo step_timing_importer_info();  // name "step_timing"

// Why step-timing row `t` cannot be evidence (util/plausible.h), or nullptr: its step outside
// 0..2^53, a time negative, not finite or longer than a year, a timestamp before 2000 or after
// 2100 (the `implausible_*` reasons, rejected). Rows of step-timing files and of `--step-pattern`
// matches are judged alike.
const LineReason* implausible_step_timing_reason(const StepTiming& t);
}  // namespace rcf::ingest
