#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>

#include "cli/commands.h"
#include "ingest/importer.h"
#include "pipeline/ingest_pipeline.h"
#include "util/error.h"

namespace rcf::cli {

Command add_ingest_command(CLI::App& app) {
  auto req = std::make_shared<pipeline::IngestRequest>();
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
  cmd->add_option("--format", req->format, "Force an importer instead of sniffing:" + formats);
  cmd->add_option("--step-pattern", req->step_pattern,
                  "RE2 pattern with named groups step and optionally ms, compile_ms, ts: every "
                  "matching line of the inputs is a step timing");
  cmd->add_flag("--strict", req->strict, "Fail (exit 2, nothing written) on any rejected line");
  cmd->add_option("paths", req->paths, "Log files, .gz files, directories, or - for stdin")
      ->required();
  return {cmd, [req]() {
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
                fmt::print(stderr, "\r\033[K[{}/{}] {} {} {:.0f} MB/s", i + 1, n, path, size,
                           secs > 0 ? done / 1e6 / secs : 0.0);
              };
            }
            auto summary = pipeline::run_ingest(*req);
            if (tty) fmt::print(stderr, "\r\033[K");
            fmt::print("{}", pipeline::render_ingest_summary(summary));
            return kExitOk;
          }};
}

}  // namespace rcf::cli
