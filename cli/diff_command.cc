// `rcf diff LANE_A LANE_B`: what changed between two lanes (report/lane_diff.h).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "report/lane_diff.h"
#include "store/store.h"
#include "util/error.h"

namespace rcf::cli {

Command add_diff_command(CLI::App& app) {
  struct Options {
    std::string db = "rcf.db";
    std::string lane_a, lane_b;
    std::string format = "text";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "diff", "What changed between two lanes: programs, settle steps, sites, causes, restarts");
  cmd->add_option("--db", opt->db, "SQLite database")->capture_default_str();
  cmd->add_option("LANE_A", opt->lane_a, "The baseline lane (e.g. the torch 2.11 lane)")
      ->required();
  cmd->add_option("LANE_B", opt->lane_b, "The lane compared with it (e.g. torch 2.12)")->required();
  cmd->add_option("--format", opt->format, "text, md or json")
      ->check(CLI::IsMember({"text", "md", "json"}))
      ->capture_default_str();
  cmd->add_flag("--json", opt->json, "Same as --format json");
  return {cmd, [opt]() {
            if (opt->lane_a == opt->lane_b)
              throw Error(fmt::format("rcf diff compares two different lanes (got '{}' twice)",
                                      opt->lane_a));
            auto db = store::open_store(opt->db, store::OpenMode::kRead);
            auto diff = report::diff_lanes(report::load_lane_facts(*db, opt->lane_a),
                                           report::load_lane_facts(*db, opt->lane_b));
            std::string format = opt->json ? "json" : opt->format;
            print_text(format == "md"     ? report::render_diff_markdown(diff)
                       : format == "json" ? report::render_diff_json(diff)
                                          : report::render_diff_text(diff));
            return kExitOk;
          }};
}

}  // namespace rcf::cli
