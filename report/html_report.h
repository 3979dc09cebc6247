// `rcf report --format html`: one self-contained HTML file that works offline. Charts are inline
// SVG written here (no library, no network fetch); a small inline script links the cursors of
// all convergence charts (hover one chart: every lane shows the same step) and records in the
// DOM that the charts drew (body[data-charts-ready]) or what failed (body[data-chart-errors]).
// Every log-derived string is HTML-escaped, in text, in attributes and in the embedded JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "report/report_model.h"

namespace rcf::report {

std::string render_report_html(const ReportModel& model);

// Text for HTML content and attribute values: util::html_text (the entity table of
// util/safe_text.h): & < > " ' escaped; invalid UTF-8 and control characters other than tab and
// newline become U+FFFD.
std::string html_escape(std::string_view text);

// `text` with every ill-formed UTF-8 byte replaced by U+FFFD (overlongs, surrogates and code
// points above U+10FFFF are ill-formed).
std::string utf8_clean(std::string_view text);

// JSON that is safe inside <script type="application/json">: non-ASCII (U+2028/2029 included)
// and the characters < > & ' are written as \u escapes, so no "</script>" or "<!--" can occur.
std::string script_safe_json(const nlohmann::ordered_json& value);

// The convergence chart of one run as an <svg> element, over the shared step domain
// [first_step, last_step] of the report. `index` is the chart's position in the embedded data.
std::string render_chart_svg(const RunChart& chart, int64_t first_step, int64_t last_step,
                             int index, const std::string& title);

// The colour of a cause in charts and badges (a fixed palette; unknown causes are grey).
const char* cause_colour(std::string_view cause);

}  // namespace rcf::report
