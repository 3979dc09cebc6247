// Where the ranks of a run stopped doing the same thing (docs/rank_divergence.md), as `rcf
// explain` text and JSON, and as the Markdown and HTML reports show it. Log text is sanitised
// here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/explain.h"

namespace rcf::report {

// "   Ranks diverge (...):" lines; nothing when the ranks agree.
void render_rank_divergence_text(const RunSummary& run, const ExplainListing& listing,
                                 std::string& out);
nlohmann::json rank_divergence_json(const RunSummary& run);
// A Markdown table of the run's rows ("" when none).
std::string rank_divergence_markdown(const RunSummary& run);
// HTML table rows (run, kind, ranks, first difference, detail) of the run ("" when none).
std::string rank_divergence_html_rows(const RunSummary& run);

}  // namespace rcf::report
