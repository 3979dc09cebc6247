// `rcf watch [--db FILE] [--lane L] [--run R] [--json] [--for SECONDS] [--pid PID]
// [--fail-on KIND,...] PATH...`: follow logs while a run writes them and raise alerts
// (pipeline/watch_loop.h, docs/watch.md).
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "cli/watch_printer.h"
#include "pipeline/watch_loop.h"
#include "report/explain.h"
#include "store/store.h"
#include "util/error.h"

namespace rcf::cli {
namespace {

volatile sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int) {
  g_stop_signal = 1;
}

// SIGINT and SIGTERM end the watch (its final round and summary still run); without SA_RESTART
// the wait for a change returns at once.
void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

struct WatchOptions {
  pipeline::WatchRequest request;
  bool json = false;
  double run_for = 0;
  int64_t pid = 0;
  std::string fail_on;
  std::string storm_share = "50%";
};

std::set<analysis::AlertKind> parse_fail_on(const std::string& text) {
  std::set<analysis::AlertKind> kinds;
  std::stringstream in(text);
  for (std::string word; std::getline(in, word, ',');) {
    if (word.empty()) continue;
    auto kind = analysis::alert_kind_named(word);
    if (!kind)
      throw Error(fmt::format("--fail-on: unknown alert kind '{}' (kinds: {})", word,
                              analysis::alert_kind_names()));
    kinds.insert(*kind);
  }
  return kinds;
}

// "50%", "50 %" or "0.5" as a fraction.
double parse_share(const std::string& text) {
  std::string t = text;
  bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || (*end && *end != ' ') || v < 0 || (percent ? v > 100 : v > 1))
    throw Error(fmt::format("--storm-share: '{}' is not a share (e.g. 50% or 0.5)", text));
  return percent ? v / 100 : v;
}

void print_summary(const WatchOptions& o) {
  auto db = store::open_store(o.request.db_path, store::OpenMode::kRead);
  auto model = report::build_explain(*db, o.request.lane, {});
  print_text(o.json ? stderr : stdout, report::render_explain_text(model, {}));
}

int run_watch(WatchOptions& o) {
  o.request.budgets.compile_share = parse_share(o.storm_share);
  WatchPrinter printer(o.json, parse_fail_on(o.fail_on), stdout,
                       /*status_line=*/!o.json && ::isatty(STDOUT_FILENO));
  // Ended before the summary: what it kept for the next batch (its rows, records and alerts'
  // memory) is not held beside the summary's own.
  auto session = std::make_unique<pipeline::WatchSession>(o.request);
  pipeline::WatchLoopOptions loop;
  if (o.run_for > 0) loop.run_for = std::chrono::duration<double>(o.run_for);
  if (o.pid > 0) loop.pid = static_cast<pid_t>(o.pid);
  install_stop_handlers();
  loop.stop_requested = [] { return g_stop_signal != 0; };
  loop.on_round = [&](const pipeline::WatchRound& r, bool final) {
    printer.round(r, session->status(), final);
  };
  pipeline::run_watch_loop(*session, loop);
  session.reset();
  pipeline::WatchSession::give_back_freed_memory();
  if (std::filesystem::exists(o.request.db_path)) print_summary(o);
  return printer.matched() ? kExitGateViolated : kExitOk;
}

}  // namespace

Command add_watch_command(CLI::App& app) {
  auto opt = std::make_shared<WatchOptions>();
  auto* cmd = app.add_subcommand(
      "watch", "Follow logs while a run writes them; alert on recompiles, limit hits, storms");
  auto& q = opt->request;
  cmd->add_option("--db", q.db_path, "SQLite database (created if missing)")->capture_default_str();
  cmd->add_option("--lane", q.lane, "Lane")->capture_default_str();
  cmd->add_option("--run", q.run, "Run label")->capture_default_str();
  cmd->add_option("--format", q.format, "Importer for every file (default: sniff each)");
  cmd->add_option("--step-pattern", q.step_pattern, "As rcf ingest --step-pattern");
  cmd->add_flag("--json", opt->json,
                "One JSON object per alert (kind, lane, run, step, site, cause, detail, source, "
                "line); the summary goes to stderr");
  cmd->add_option("--for", opt->run_for, "End after this many seconds")->check(CLI::PositiveNumber);
  cmd->add_option("--pid", opt->pid, "End when this process exits")->check(CLI::PositiveNumber);
  cmd->add_option("--fail-on", opt->fail_on,
                  "Exit 1 when an alert of these kinds was raised (comma separated: " +
                      analysis::alert_kind_names() + ")");
  cmd->add_option("--storm-recompiles", q.budgets.site_recompiles,
                  "A storm: this many recompiles of one site...")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--storm-steps", q.budgets.site_steps, "...within this many steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--storm-share", opt->storm_share,
                  "A storm: compile time over this share of the wall time of the last "
                  "--storm-share-steps steps")
      ->capture_default_str();
  cmd->add_option("--storm-share-steps", q.budgets.share_steps, "Steps the share is taken over")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("paths", q.paths, "Log files and directories to follow")->required();
  return {cmd, [opt]() { return run_watch(*opt); }};
}

}  // namespace rcf::cli
