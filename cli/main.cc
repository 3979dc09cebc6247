// rcf: recompile forensics. Thin entry point: parse, dispatch, map errors to exit codes.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/print_text.h"
#include "util/error.h"

namespace {

// Anything but rcf::Error reaching main is a bug (or the machine ran out of memory), not bad
// input: its own exit code, and a request for a report.
int internal_error(const std::string& what) {
  rcf::cli::print_text(
      stderr, fmt::format("rcf: internal error: {}\nThis is a bug in rcf (or the machine ran out "
                          "of memory), not a problem with the input: please report it with the "
                          "command line and, if you can, the input files (exit code {}).\n",
                          rcf::util::field_text(what), rcf::cli::kExitInternalError));
  return rcf::cli::kExitInternalError;
}

// Every subcommand, by the name it registers. Ordered as `rcf --help` lists them.
struct CommandEntry {
  const char* name;
  rcf::cli::Command (*add)(CLI::App&);
};
constexpr CommandEntry kCommands[] = {
    {"ingest", rcf::cli::add_ingest_command}, {"explain", rcf::cli::add_explain_command},
    {"demo", rcf::cli::add_demo_command},     {"restart", rcf::cli::add_restart_command},
    {"gate", rcf::cli::add_gate_command},     {"report", rcf::cli::add_report_command},
    {"diff", rcf::cli::add_diff_command},     {"capture", rcf::cli::add_capture_command},
    {"export", rcf::cli::add_export_command}, {"merge", rcf::cli::add_merge_command},
    {"watch", rcf::cli::add_watch_command},   {"query", rcf::cli::add_query_command},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rcf - recompile forensics: why did torch.compile / torch_xla / JAX recompile?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rcf 0.1.0");
  // `rcf COMMAND ...` builds the options of that command alone: building all twelve was a fifth
  // of the instructions of a start (docs/performance.md, "Small logs"). Anything else (--help,
  // --version, no command) gets them all, as the top-level help lists every command.
  std::vector<rcf::cli::Command> commands;
  bool names_agree = true;  // each add function registers the name the table gives it
  auto add = [&](const CommandEntry& entry) {
    commands.push_back(entry.add(app));
    names_agree = names_agree && commands.back().app->get_name() == entry.name;
  };
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    for (const auto& entry : kCommands) {
      if (entry.name == std::string_view(argv[1])) add(entry);
      names += fmt::format("{}{}", names.empty() ? "" : ", ", entry.name);
    }
    if (commands.empty()) {
      rcf::cli::print_text(
          stderr, fmt::format("rcf: error: unknown command '{}' (commands: {}; see rcf --help)\n",
                              rcf::util::field_text(argv[1]), names));
      return rcf::cli::kExitUsageOrInput;
    }
  } else {
    for (const auto& entry : kCommands) add(entry);
  }
  if (!names_agree) return internal_error("cli/main.cc names a command otherwise than it does");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // The parser's message quotes the command line: one line, through the sanitiser.
    rcf::cli::print_text(stderr, fmt::format("rcf: error: {}\nRun with --help for more "
                                             "information.\n",
                                             rcf::util::field_text(e.what())));
    return rcf::cli::kExitUsageOrInput;
  }
  try {
    for (auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const rcf::Error& e) {
    // An error quotes store, log and command-line text: one line, whatever it holds.
    rcf::cli::print_text(stderr, fmt::format("rcf: error: {}\n", rcf::util::field_text(e.what())));
    return rcf::cli::kExitUsageOrInput;
  } catch (const std::bad_alloc&) {
    return internal_error("out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("an exception of unknown type");
  }
  return rcf::cli::kExitUsageOrInput;
}
