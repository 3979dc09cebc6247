#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "analysis/gate.h"
#include "analysis/gate_file.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/print_text.h"
#include "pipeline/gate_pipeline.h"
#include "report/gate_output.h"
#include "util/error.h"
#include "util/output_guard.h"
#include "util/safe_text.h"

namespace rcf::cli {
namespace {

struct GateOptions {
  std::string db = "rcf.db";
  std::string lane;
  std::string run;
  std::string gate_file;
  // Budgets are read as text and checked by analysis (parse_budget_count, parse_compile_share):
  // CLI11's conversions clamp 2^63 and take nan.
  std::string max_programs;
  std::string settle_by;
  std::string max_recompiles_per_site;
  std::vector<std::string> forbid_causes;
  std::string max_compile_share;
  std::string baseline;
  std::string max_growth;
  bool require_restart_proof = false;
  analysis::RestartLabels restart;
  bool json = false;
  std::string junit;
};

struct Flags {
  CLI::Option* max_programs;
  CLI::Option* settle_by;
  CLI::Option* max_recompiles_per_site;
  CLI::Option* forbid_causes;
  CLI::Option* max_compile_share;
  CLI::Option* max_growth;
};

analysis::BudgetPatch flag_budgets(const GateOptions& o, const Flags& f) {
  analysis::BudgetPatch p;
  if (f.max_programs->count())
    p.max_programs = analysis::parse_budget_count(o.max_programs, "--max-programs");
  if (f.settle_by->count()) p.settle_by = analysis::parse_budget_count(o.settle_by, "--settle-by");
  if (f.max_recompiles_per_site->count())
    p.max_recompiles_per_site =
        analysis::parse_budget_count(o.max_recompiles_per_site, "--max-recompiles-per-site");
  if (f.forbid_causes->count()) {
    const auto& vocabulary = analysis::gate_cause_vocabulary();
    for (const auto& cause : o.forbid_causes)
      if (std::find(vocabulary.begin(), vocabulary.end(), cause) == vocabulary.end())
        throw Error(fmt::format("--forbid-cause: unknown cause '{}' (causes: {})", cause,
                                fmt::join(vocabulary, ", ")));
    p.forbid_causes = o.forbid_causes;
  }
  if (f.max_compile_share->count())
    p.max_compile_share = analysis::parse_compile_share(o.max_compile_share, "--max-compile-share");
  if (f.max_growth->count()) p.max_growth = analysis::parse_growth(o.max_growth, "--max-growth");
  if (o.require_restart_proof) p.require_restart_proof = true;
  return p;
}

// Where the Markdown summary goes on GitHub Actions, or null.
const char* github_summary_path() {
  const char* actions = std::getenv("GITHUB_ACTIONS");
  const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
  bool github = actions && std::string(actions) == "true";
  return github && summary && *summary ? summary : nullptr;
}

// The output files never go over a store: the database, the baseline, or any SQLite file.
void check_outputs(const GateOptions& o) {
  std::vector<std::string> stores = {o.db};
  if (!o.baseline.empty()) stores.push_back(pipeline::split_baseline(o.baseline).first);
  if (!o.junit.empty()) util::refuse_output_over_store("--junit", o.junit, stores);
  if (const char* summary = github_summary_path())
    util::refuse_output_over_store("GITHUB_STEP_SUMMARY", summary, stores);
}

int run_gate(const GateOptions& o, const Flags& f) {
  pipeline::GateRequest request;
  request.flags = flag_budgets(o, f);
  check_outputs(o);
  request.db = o.db;
  request.lane = o.lane;
  request.run = o.run;
  request.gate_file = o.gate_file;
  request.baseline = o.baseline;
  request.restart = o.restart;
  pipeline::GateOutcome outcome = pipeline::run_gate(request);
  for (const auto& warning : outcome.warnings)
    print_text(stderr, "rcf gate: warning: " + warning + "\n");
  const analysis::GateResult& result = outcome.result;

  if (!o.junit.empty()) write_output_file(o.junit, report::render_gate_junit(result), false);
  const char* actions = std::getenv("GITHUB_ACTIONS");
  bool github = actions && std::string(actions) == "true";
  if (const char* summary = github_summary_path())
    write_output_file(summary, report::render_gate_markdown(result), true);
  print_text(o.json ? report::render_gate_json(result) : report::render_gate_text(result));
  // Workflow commands are read from stdout and stderr; keep stdout valid JSON under --json.
  if (github) print_text(o.json ? stderr : stdout, report::render_gate_annotations(result));
  // A run without evidence is an input error, not a pass and not a budget violation.
  if (result.lacks_evidence()) {
    print_text(stderr,
               "rcf gate: error: a run holds no evidence (no log in a known format was ingested "
               "into it); see the evidence check above\n");
    return kExitUsageOrInput;
  }
  return result.passed() ? kExitOk : kExitGateViolated;
}

}  // namespace

Command add_gate_command(CLI::App& app) {
  auto opt = std::make_shared<GateOptions>();
  auto* cmd = app.add_subcommand(
      "gate",
      "CI gate: fail (exit 1) when a lane's program count, settle step, recompiles or "
      "compile share exceed their budgets");
  cmd->add_option("--db", opt->db, "SQLite database")->capture_default_str();
  cmd->add_option("--lane", opt->lane, "Only this lane (a name or a glob)");
  cmd->add_option("--run", opt->run, "Only runs with this label (default: every run of the lane)");
  cmd->add_option("--gate-file", opt->gate_file, "Budgets per lane (JSON); flags override it");
  auto flags = std::make_shared<Flags>();
  flags->max_programs =
      cmd->add_option("--max-programs", opt->max_programs, "Programs cached at the end of the run")
          ->type_name("N");
  flags->settle_by =
      cmd->add_option("--settle-by", opt->settle_by, "No new program after this step (default 20)")
          ->type_name("STEP");
  flags->max_recompiles_per_site =
      cmd->add_option("--max-recompiles-per-site", opt->max_recompiles_per_site,
                      "Recompiles allowed at any one site")
          ->type_name("N");
  flags->forbid_causes = cmd->add_option("--forbid-cause", opt->forbid_causes,
                                         "Causes no recompile may have (e.g. sync_fragment "
                                         "constant)")
                             ->delimiter(',');
  flags->max_compile_share =
      cmd->add_option("--max-compile-share", opt->max_compile_share,
                      "Compile time over wall time, 0..1 (needs step timings)")
          ->type_name("F");
  cmd->add_option("--baseline", opt->baseline,
                  "Compare with a baseline database (lane of the same name, or LANE)")
      ->type_name("DB[:LANE]");
  flags->max_growth = cmd->add_option("--max-growth", opt->max_growth,
                                      "Growth over the baseline allowed: N or P% (default 0)")
                          ->type_name("N|P%");
  cmd->add_flag("--require-restart-proof", opt->require_restart_proof,
                "Each lane needs a cold/warm run pair whose warm run proves the compile cache "
                "works (rcf restart)");
  cmd->add_option("--cold", opt->restart.cold, "Label of the cold run for the restart proof")
      ->capture_default_str();
  cmd->add_option("--warm", opt->restart.warm, "Label of the warm run for the restart proof")
      ->capture_default_str();
  cmd->add_flag("--json", opt->json, "Versioned JSON instead of text");
  cmd->add_option("--junit", opt->junit, "Also write JUnit XML (one testcase per lane x budget)");
  return {cmd, [opt, flags]() { return run_gate(*opt, *flags); }};
}

}  // namespace rcf::cli
