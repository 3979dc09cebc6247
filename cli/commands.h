// Subcommands of the `rcf` binary. Each registers its options on the CLI11 app and returns the
// function that runs it (exit code). Only argument parsing and wiring live in cli/.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace rcf::cli {

using Runner = std::function<int()>;
struct Command {
  CLI::App* app;  // owned by the parent app
  Runner run;
};

Command add_ingest_command(CLI::App& app);
Command add_explain_command(CLI::App& app);
Command add_demo_command(CLI::App& app);
Command add_restart_command(CLI::App& app);
Command add_gate_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_diff_command(CLI::App& app);
Command add_capture_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_merge_command(CLI::App& app);
Command add_watch_command(CLI::App& app);
Command add_query_command(CLI::App& app);

// Exit codes of the public contract.
inline constexpr int kExitOk = 0;
inline constexpr int kExitGateViolated = 1;
inline constexpr int kExitUsageOrInput = 2;
// A bug in rcf (an exception other than rcf::Error), never bad input: CI can tell them apart.
inline constexpr int kExitInternalError = 3;

}  // namespace rcf::cli
