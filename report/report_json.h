// `rcf report --format json`: everything the HTML report shows, as versioned JSON
// ("schema_version": kReportJsonVersion). Listings keep the model's total order, so two reports
// of the same database are byte-identical and reports of two databases diff cleanly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report_model.h"

namespace rcf::report {

std::string render_report_json(const ReportModel& model);

// One recompile with its evidence (shared with the HTML report's embedded data).
nlohmann::ordered_json recompile_json(const RecompileEvidence& r);

}  // namespace rcf::report
