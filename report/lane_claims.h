// The claims of a lane's upgrade note, decided from its report model: what is validated, which
// workarounds the causes suggest, what is an open risk and where the first failing frontier is.
// The renderers (report/markdown_report.cc) only word them.
#pragma once

#include <cstdint>

#include "report/report_model.h"

namespace rcf::report {

inline constexpr int64_t kWorkaroundsPerRun = 5;  // fix-first remedies suggested per run

LaneClaims decide_lane_claims(const LaneReport& lane);

}  // namespace rcf::report
