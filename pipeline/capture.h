// `rcf capture [options] -- CMD ARGS...`: runs a training command with every compile log rcf reads
// switched on (pipeline/capture_env.h), keeps its console output, records the run's bundle
// (pipeline/capture_bundle.h), then ingests the capture directory as one run, prints the
// explanation and writes the reports next to the logs.
//
// Capture directory (default rcf-capture/<lane>/<run>/):
//   logs/          everything the tools write: pt_xla_debug.log, metrics.txt, torch_trace/,
//                  xla_dump/, and save_tensors.hlo.0 (full level)
//   stdout.log, stderr.log   the command's console output, byte for byte
//   stdout.log.times, stderr.log.times   when each console line arrived
//                  (pipeline/console_line_times.h)
//   bundle.json    the bundle (also stored in the database, runs.bundle)
//   explain.txt, report.html, report.md   what rcf found (written after the command ends)
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pipeline/capture_env.h"
#include "pipeline/capture_watch.h"

namespace rcf::pipeline {

struct CaptureRequest {
  std::string db_path = "rcf.db";
  std::string lane;     // empty: default_capture_lane(command)
  std::string run;      // empty: run1, run2, ...: the first label free in the database and on disk
  std::string out_dir;  // empty: rcf-capture/<lane>/<run>
  CaptureLevel level = CaptureLevel::kLight;
  std::string step_pattern;  // passed to the ingest (rcf ingest --step-pattern)
  std::string host;          // passed to the ingest (rcf ingest --host); empty = this machine's
  std::vector<std::string> command;
  std::chrono::milliseconds probe_timeout{20000};
  size_t explain_lines = 60;  // the explanation printed is cut after this many lines
  // --watch: the command's logs are watched while it runs (pipeline/capture_watch.h) and each
  // round is handed here, on the watch's thread. Empty: no watch.
  WatchRoundHandler on_watch_round;
};

// The lane a command's logs belong to when --lane is not given: the module of `python -m M`, else
// the name of the first .py / .sh argument without its extension, else the command's name.
std::string default_capture_lane(const std::vector<std::string>& command);

// Where in a console log a known log format starts. Sniffing reads the first 64 KiB of a file; a
// training log may print for longer before its first compile line, so the whole file is scanned
// in 64 KiB windows of whole lines. format "" = no window is recognised. Step-timing tables count
// only at the start of the file; a console of progress lines (plain_text) is read whole from the
// start when no compile log starts further on (docs/plain_text.md).
struct ConsoleFormat {
  std::string format;
  int64_t offset = -1;  // byte offset of the first window it was recognised in
};
ConsoleFormat find_console_format(const std::string& path);

// Files under `outputs` (files, or directories walked recursively) last written at or after
// `since`; for a file path also its siblings `<name>.<N>` (torch_xla appends the device ordinal
// or the rank). Sorted.
std::vector<std::string> files_written_since(const std::vector<std::string>& outputs,
                                             std::filesystem::file_time_type since);

// The whole capture. Messages (what is set, how the command ended, the ingest summary, the
// explanation, where the reports are) go to `messages`; the command's own output goes to rcf's
// stdout and stderr unchanged. Returns the command's exit code (a failed ingest or report is
// reported, not returned); kCommandNotFound (127, as a shell) when the command cannot be found or
// run, after saying so. Throws rcf::Error before the command runs for usage problems: no command,
// a --run that exists, a non-empty --out, a database that is not an rcf database.
int run_capture(const CaptureRequest& request, std::FILE* messages);

// Exit code when the command cannot be found (as a shell does).
inline constexpr int kCommandNotFound = 127;

}  // namespace rcf::pipeline
