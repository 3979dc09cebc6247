#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "ingest/importer.h"
#include "pipeline/bundle_input.h"
#include "pipeline/ingest_pipeline.h"
#include "store/run_bundle.h"
#include "store/store.h"
#include "util/error.h"

namespace rcf::cli {

Command add_ingest_command(CLI::App& app) {
  auto req = std::make_shared<pipeline::IngestRequest>();
  auto bundle_file = std::make_shared<std::string>();
  auto bundle_sets = std::make_shared<std::vector<std::string>>();
  std::string formats;
  for (const auto& info : ingest::importer_registry())
    formats += fmt::format("\n  {}: {}", info.name, info.description);
  auto* cmd = app.add_subcommand(
      "ingest", "Read logs (files, .gz, directories, - for stdin) into the database");
  cmd->add_option("--db", req->db_path, "SQLite database (created if missing)")
      ->capture_default_str();
  cmd->add_option("--lane", req->lane, "Lane: the configuration these logs belong to")
      ->capture_default_str();
  cmd->add_option("--run", req->run, "Run label within the lane (cold, warm, a date)")
      ->capture_default_str();
  cmd->add_option("--host", req->host,
                  "Host the logs come from, recorded on each source (default: this machine's "
                  "hostname); shards of several hosts are folded with rcf merge");
  cmd->add_option("--format", req->format, "Force an importer instead of sniffing:" + formats);
  cmd->add_option("--step-pattern", req->step_pattern,
                  "RE2 pattern with named groups step and optionally ms, compile_ms, ts: every "
                  "matching line of the inputs is a step timing");
  cmd->add_flag("--strict", req->strict, "Fail (exit 2, nothing written) on any rejected line");
  cmd->add_option("--bundle", *bundle_file,
                  "JSON object of stack versions and flags, merged into the run's bundle");
  cmd->add_option("--bundle-set", *bundle_sets,
                  "KEY=VALUE entry of the run's bundle (repeatable; KEY= removes KEY)")
      ->allow_extra_args(false);
  cmd->add_option("paths", req->paths,
                  "Log files, .gz files, directories, or - for stdin (may be left out when only "
                  "recording a bundle for an existing run)");
  return {cmd, [req, bundle_file, bundle_sets]() {
            if (!bundle_file->empty()) req->bundle = pipeline::read_bundle_file(*bundle_file);
            if (!bundle_sets->empty()) pipeline::apply_bundle_sets(*bundle_sets, &req->bundle);
            bool tty = isatty(STDERR_FILENO);
            auto start = std::chrono::steady_clock::now();
            if (tty) {
              req->progress = [start](size_t i, size_t n, const std::string& path, int64_t done,
                                      int64_t total) {
                double secs =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                std::string size = total > 0
                                       ? fmt::format("{:.1f}/{:.1f} MB", done / 1e6, total / 1e6)
                                       : fmt::format("{:.1f} MB", done / 1e6);
                fmt::print(stderr, "\r\033[K[{}/{}] {} {} {:.0f} MB/s", i + 1, n,
                           util::field_text(path), size, secs > 0 ? done / 1e6 / secs : 0.0);
              };
            }
            auto summary = pipeline::run_ingest(*req);
            if (tty) fmt::print(stderr, "\r\033[K");
            if (!req->paths.empty()) print_text(pipeline::render_ingest_summary(summary));
            if (req->bundle.is_object()) {
              auto db = store::open_store(req->db_path, store::OpenMode::kRead);
              auto run_id = store::find_run_id(*db, req->lane, req->run);
              auto bundle = run_id ? store::read_run_bundle(*db, *run_id) : nlohmann::json();
              fmt::print(
                  "bundle of {}/{}: {}\n", util::field_text(req->lane), util::field_text(req->run),
                  bundle.empty()
                      ? std::string("(empty)")
                      : bundle.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
            }
            return kExitOk;
          }};
}

}  // namespace rcf::cli
