// `rcf report`: the HTML, Markdown or JSON report of a database (report/report_model.h).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/print_text.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_json.h"
#include "report/report_model.h"
#include "store/store.h"
#include "util/error.h"
#include "util/output_guard.h"
#include "util/safe_text.h"

namespace rcf::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --format when given, else from the output file's extension, else html.
std::string pick_format(const std::string& format, const std::string& out) {
  if (!format.empty()) return format;
  if (ends_with(out, ".md") || ends_with(out, ".markdown")) return "md";
  if (ends_with(out, ".json")) return "json";
  return "html";
}

}  // namespace

Command add_report_command(CLI::App& app) {
  struct Options {
    std::string db = "rcf.db";
    std::string format;
    std::string out = "-";
    std::string lane;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "report", "Write the report: self-contained HTML, a Markdown upgrade note, or JSON");
  cmd->add_option("--db", opt->db, "SQLite database")->capture_default_str();
  cmd->add_option("--format", opt->format,
                  "html, md or json (default: from the -o extension, else html)")
      ->check(CLI::IsMember({"html", "md", "json"}));
  cmd->add_option("-o,--out", opt->out, "Output file ('-' = standard output)")
      ->capture_default_str();
  cmd->add_option("--lane", opt->lane, "Only this lane");
  return {cmd, [opt]() {
            if (opt->out != "-") util::refuse_output_over_store("-o", opt->out, {opt->db});
            auto db = store::open_store(opt->db, store::OpenMode::kRead);
            auto model = report::build_report(*db, opt->lane);
            std::string format = pick_format(opt->format, opt->out);
            std::string text = format == "md"     ? report::render_report_markdown(model)
                               : format == "json" ? report::render_report_json(model)
                                                  : report::render_report_html(model);
            if (opt->out == "-") {
              print_text(text);
              return kExitOk;
            }
            write_output_file(opt->out, text);
            print_text(stderr, fmt::format("wrote {} report to {} ({} bytes)\n", format,
                                           util::field_text(opt->out), text.size()));
            return kExitOk;
          }};
}

}  // namespace rcf::cli
