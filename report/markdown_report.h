// `rcf report --format md`: an upgrade note per lane, in the narrow wording of per-lane reporting
// (docs/usage.md, `rcf report`): name the exact lane and bundle, state only what
// the ingested logs support ("this lane settled at step 5 with 15 programs and showed no
// recompiles after step 5 in the checked path"), keep validated default, workaround and open risk
// apart, and name the first failing frontier. GitHub-flavoured Markdown; log-derived text is
// escaped so that it can neither break a table nor inject HTML.
#pragma once

#include <string>
#include <string_view>

#include "report/report_model.h"

namespace rcf::report {

std::string render_report_markdown(const ReportModel& model);

// Inline code for a log-derived identifier (site, program key, cause): util::markdown_code. The
// fence is longer than any backtick run in the text; `in_table` escapes '|' as GitHub tables
// require.
std::string md_code(std::string_view text, bool in_table);

// Prose from the logs (details, reasons): util::markdown_text. Markdown and HTML metacharacters
// escaped, autolinks broken, newlines folded into spaces; '|' escaped too, so the text is safe in
// a table cell.
std::string md_text(std::string_view text);

}  // namespace rcf::report
