// `rcf capture [--lane L] [--run R] [--out DIR] [--level light|full] -- CMD ARGS...`: run a
// training command with every compile log switched on, then ingest and explain it
// (pipeline/capture.h).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/watch_printer.h"
#include "pipeline/capture.h"
#include "util/error.h"

namespace rcf::cli {
namespace {

// The managed variables as the command would get them, without running it: for scripts that set
// up the same environment themselves (examples/recompile_zoo reads it from a file).
int print_capture_env(const pipeline::CaptureRequest& req, std::FILE* out) {
  if (req.out_dir.empty())
    throw Error("--print-env needs --out DIR: the paths it prints are under the capture directory");
  pipeline::CaptureLayout layout{req.out_dir};
  pipeline::CaptureEnv plan =
      pipeline::plan_capture_env(pipeline::current_environment(), layout, req.level);
  for (const pipeline::EnvSetting& s : plan.settings) fmt::print(out, "{}={}\n", s.name, s.value);
  return 0;
}

}  // namespace

Command add_capture_command(CLI::App& app) {
  auto req = std::make_shared<pipeline::CaptureRequest>();
  auto level = std::make_shared<std::string>("light");
  auto print_env = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "capture",
      "Run CMD with the torch_xla / torch.compile / JAX compile logs switched on, then ingest "
      "them as one run and explain it: rcf capture [options] -- CMD ARGS...");
  cmd->add_option("--db", req->db_path, "SQLite database (created if missing)")
      ->capture_default_str();
  cmd->add_option("--lane", req->lane, "Lane (default: the script's name)");
  cmd->add_option("--run", req->run, "Run label, new in the lane (default: run1, run2, ...)");
  cmd->add_option("--out", req->out_dir,
                  "Capture directory, empty or new (default: rcf-capture/<lane>/<run>)");
  cmd->add_option("--level", *level,
                  "light: compile records, metrics and XLA's module dump; full: also every "
                  "execution and saved graphs as HLO (large logs)")
      ->check(CLI::IsMember({"light", "full"}))
      ->capture_default_str();
  cmd->add_option("--step-pattern", req->step_pattern,
                  "RE2 pattern with named group step (and ms, compile_ms, ts) for the step lines "
                  "the command prints (as rcf ingest --step-pattern)");
  cmd->add_option("--host", req->host,
                  "Host recorded on the ingested sources (as rcf ingest --host; default: this "
                  "machine's hostname)");
  cmd->add_flag("--print-env", *print_env,
                "Print the variables capture would set (NAME=VALUE, one per line, for --out and "
                "--level and this environment) and exit without running anything");
  auto watch = std::make_shared<bool>(false);
  cmd->add_flag("--watch", *watch,
                "Watch the command's logs while it runs and print alerts (recompiles, limit "
                "hits, storms) to stderr as they happen, as rcf watch does");
  cmd->add_option("command", req->command, "The command to run, after --");
  // With prefix_command, CLI11 leaves the "--" separator in remaining(): it tells a command given
  // after "--" from words it would otherwise have parsed as rcf's own options.
  cmd->prefix_command();
  return {cmd, [cmd, req, level, print_env, watch]() {
            req->level = *pipeline::parse_capture_level(*level);
            if (*print_env) return print_capture_env(*req, stdout);
            std::vector<std::string> rest = cmd->remaining();
            if (req->command.empty() || rest != std::vector<std::string>{"--"})
              throw Error(
                  "give the command after --: rcf capture [options] -- CMD ARGS... (e.g. rcf "
                  "capture --lane mtp1 -- python train.py --steps 40)");
            std::shared_ptr<WatchPrinter> printer;
            if (*watch) {
              // Alerts go to stderr with capture's messages: the command's stdout stays its own.
              printer = std::make_shared<WatchPrinter>(false, std::set<analysis::AlertKind>{},
                                                       stderr, /*status_line=*/false);
              req->on_watch_round = [printer](const pipeline::WatchRound& r,
                                              const analysis::RunStatus& status,
                                              bool final) { printer->round(r, status, final); };
            }
            return pipeline::run_capture(*req, stderr);
          }};
}

}  // namespace rcf::cli
