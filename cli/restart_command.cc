// `rcf restart`: the warm-restart proof of one lane (analysis/restart_proof.h). Exit 0 when the
// restart is proven, 1 when it is not (cache unread, partial, insufficient evidence), 2 for usage
// and input errors.
#include <fmt/format.h>

#include <memory>

#include "analysis/restart_proof.h"
#include "cli/commands.h"
#include "cli/print_text.h"
#include "report/restart_output.h"
#include "store/store.h"

namespace rcf::cli {

namespace {
constexpr int kExitRestartNotProven = 1;
}  // namespace

Command add_restart_command(CLI::App& app) {
  struct Options {
    std::string db = "rcf.db";
    std::string lane;
    std::string cold;
    std::string warm;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "restart", "Warm-restart proof: did the warm run reuse the cold run's compiled programs?");
  cmd->add_option("--db", opt->db, "SQLite database")->capture_default_str();
  cmd->add_option("--lane", opt->lane,
                  "Lane of the two runs (optional when the labels are unique)");
  cmd->add_option("--cold", opt->cold, "Run label of the cold run (empty cache)")->required();
  cmd->add_option("--warm", opt->warm, "Run label of the warm run (restarted on the cache)")
      ->required();
  cmd->add_flag("--json", opt->json, "Versioned JSON instead of text");
  return {cmd, [opt]() {
            auto db = store::open_store(opt->db, store::OpenMode::kRead);
            auto runs = analysis::resolve_restart_runs(*db, opt->lane, opt->cold, opt->warm);
            report::RestartReport report{
                runs.lane, opt->cold, opt->warm,
                analysis::decide_restart(analysis::load_restart_facts(*db, runs.cold_run_id),
                                         analysis::load_restart_facts(*db, runs.warm_run_id))};
            print_text(opt->json ? report::render_restart_json(report)
                                 : report::render_restart_text(report));
            return report.proof.verdict == analysis::RestartVerdict::kProven
                       ? kExitOk
                       : kExitRestartNotProven;
          }};
}

}  // namespace rcf::cli
