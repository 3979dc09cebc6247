// How `rcf watch` prints its alerts and its live status (docs/watch.md): one line per alert, as
// text or as a JSON object with the keys kind, lane, run, step, site, cause, detail, source,
// line. Every log-derived field is sanitised here.
#pragma once

#include <string>

#include "analysis/watch_alerts.h"

namespace rcf::report {

// "[recompile] lane/run step 41 at moe.py:212 (forward): shape: ... (train.log:1234)\n"
std::string render_alert_text(const analysis::Alert& alert, const std::string& lane,
                              const std::string& run);
// One JSON object and a newline; ASCII only (the terminal and CI never see a raw byte of a log).
std::string render_alert_json(const analysis::Alert& alert, const std::string& lane,
                              const std::string& run);
// "lane/run: 12 programs, 9 recompiles, compile share 61 % (last 10 steps), last cause shape",
// without a newline: the caller redraws it in place on a terminal.
std::string render_watch_status(const analysis::RunStatus& status, const std::string& lane,
                                const std::string& run);

}  // namespace rcf::report
