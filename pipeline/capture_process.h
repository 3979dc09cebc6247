// Running the captured command: its stdout and stderr pass through to rcf's unchanged and are
// also written to two files (PT_XLA_DEBUG, Dynamo and JAX lines go there), its exit status
// becomes rcf's, and signals reach it. Also a short helper run with a deadline (the stack-version
// probe).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace rcf::pipeline {

struct CommandOutcome {
  bool started = false;
  int spawn_error = 0;  // errno when the command could not be started (ENOENT, EACCES, ...)
  // Shell convention: the exit code; 128 + N when killed by signal N; 127 when not found and
  // 126 when not executable.
  int exit_code = 0;
  int signal = 0;                 // the signal that killed it, else 0
  int stopped_by = 0;             // the signal that last stopped it while it ran, else 0
  bool output_held_open = false;  // a process it left running still held its stdout/stderr
};

// Runs `argv` (argv[0] looked up in PATH) with `env` (NAME=VALUE strings) in a process group of
// its own. While it runs rcf forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to that group (a second
// one kills the group) and ignores SIGPIPE; the command starts with default signal handling. When
// rcf owns its terminal, the command's group gets it (Ctrl-C and Ctrl-Z reach the command
// directly) until it ends. Its output is copied byte for byte to `out_fd` / `err_fd` (errors
// writing there, e.g. a closed pipe, stop the copy but not the logging) and to `stdout_log` /
// `stderr_log` (created or truncated). Returns once the command has ended and its output is
// drained: output that processes it left running still write is copied for at most 2 s more (less
// when rcf gets a signal), then the pipes are closed (output_held_open). Never throws on the
// command's behaviour; throws rcf::Error only when a log file cannot be created.
CommandOutcome run_teed(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                        const std::string& stdout_log, const std::string& stderr_log,
                        int out_fd = 1, int err_fd = 2);

struct HelperOutcome {
  bool ok = false;     // exited 0 within the deadline
  std::string output;  // its stdout (at most max_output bytes)
  std::string error;   // why not ok: "not found", "timed out after 20 s", "exit status 1", ...
};

// Runs a short helper with stdin and stderr on /dev/null; kills it at the deadline.
HelperOutcome run_helper(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         std::chrono::milliseconds timeout, size_t max_output = 64 << 10);

}  // namespace rcf::pipeline
