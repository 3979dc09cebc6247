#include "report/rank_divergence_output.h"

#include <fmt/format.h>

#include "report/summary_json.h"
#include "util/safe_text.h"

namespace rcf::report {
namespace {

std::string index_text(const store::RankDivergenceRow& d) {
  return d.first_index ? std::to_string(*d.first_index) : std::string();
}

}  // namespace

void render_rank_divergence_text(const RunSummary& run, const ExplainListing& listing,
                                 std::string& out) {
  if (run.rank_divergence.empty()) return;
  out += "\n   Ranks diverge (ranks that agree grouped, '|' between groups):\n";
  for (size_t i = 0; i < run.rank_divergence.size(); ++i) {
    if (listing.cuts(i)) {
      out += fmt::format("     ... {} more (rcf explain --all, or the rank_divergence view)\n",
                         run.rank_divergence.size() - i);
      break;
    }
    const store::RankDivergenceRow& d = run.rank_divergence[i];
    out += fmt::format("     {} [{}]{}:\n       {}\n", util::field_text(d.kind),
                       util::field_text(d.rank_groups),
                       d.first_index ? fmt::format(" first difference at {}", *d.first_index) : "",
                       util::field_text(d.detail));
  }
}

nlohmann::json rank_divergence_json(const RunSummary& run) {
  nlohmann::json rows = nlohmann::json::array();
  for (const store::RankDivergenceRow& d : run.rank_divergence)
    rows.push_back(rank_divergence_row_json<nlohmann::json>(d));
  return rows;
}

std::string rank_divergence_markdown(const RunSummary& run) {
  if (run.rank_divergence.empty()) return "";
  std::string out =
      "| kind | ranks that agree | first difference | what differs and why |\n"
      "|---|---|---:|---|\n";
  for (const store::RankDivergenceRow& d : run.rank_divergence)
    out += fmt::format("| {} | {} | {} | {} |\n", util::markdown_text(d.kind),
                       util::markdown_text(d.rank_groups), index_text(d),
                       util::markdown_text(d.detail));
  return out;
}

std::string rank_divergence_html_rows(const RunSummary& run) {
  std::string rows;
  for (const store::RankDivergenceRow& d : run.rank_divergence)
    rows += fmt::format(
        R"(<tr><td>{}</td><td>{}</td><td class="key">{}</td><td class="n">{}</td><td>{}</td></tr>)",
        util::html_text(run.run), util::html_text(d.kind), util::html_text(d.rank_groups),
        index_text(d), util::html_text(d.detail));
  return rows;
}

}  // namespace rcf::report
