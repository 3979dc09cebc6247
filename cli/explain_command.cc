#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "report/explain.h"
#include "store/store.h"
#include "util/error.h"

namespace rcf::cli {

Command add_explain_command(CLI::App& app) {
  struct Options {
    std::string db = "rcf.db";
    std::string lane;
    bool json = false;
    bool all = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "explain", "Why each recompile happened: causes per site, top reasons, limit hits");
  cmd->add_option("--db", opt->db, "SQLite database")->capture_default_str();
  cmd->add_option("--lane", opt->lane, "Only this lane");
  cmd->add_flag("--json", opt->json, "Versioned JSON instead of text");
  cmd->add_flag("--all", opt->all,
                fmt::format("List every site, fix-first row and graph break (default: the first "
                            "{} of each per run, the rest counted)",
                            report::ExplainListing::kDefaultRows));
  return {cmd, [opt]() {
            auto db = store::open_store(opt->db, store::OpenMode::kRead);
            report::ExplainListing listing;
            if (opt->all) listing.rows = 0;
            auto model = report::build_explain(*db, opt->lane, listing);
            if (!opt->lane.empty() && model.runs.empty())
              throw Error(fmt::format("no lane named '{}' in {}", opt->lane, opt->db));
            print_text(opt->json ? report::render_explain_json(model, listing)
                                 : report::render_explain_text(model, listing));
            return kExitOk;
          }};
}

}  // namespace rcf::cli
