// The HTML report's stylesheet and script: report/assets/report.css and report/assets/report.js,
// compiled into the binary at build time (cmake/embed_text.cmake) so the report stays one offline
// file and rcf needs no data files to write it.
#pragma once

namespace rcf::report {
// Text of report/assets/report.css.
extern const char* const kReportCss;
// Text of report/assets/report.js.
extern const char* const kReportJs;
}  // namespace rcf::report
