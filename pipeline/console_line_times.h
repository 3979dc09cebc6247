// The line-time sidecar of a console log (docs/capture.md, "Console line times"): `rcf capture`
// notes when each line of the command's stdout and stderr arrived, in `<log>.times` next to the
// log, so that progress lines printed without a time still place compiles by the clock (the
// TORCH_TRACE compile start times, docs/training_steps.md). The console log itself stays byte
// for byte what the command wrote.
//
// Format: a header line `# rcf console line times v1: lines<TAB>unix_ms`, then one row per read
// that completed lines: the number of lines completed so far and the wall-clock time (Unix
// epoch, milliseconds) at which they arrived. Line L (from 1) arrived at the time of the first
// row whose count is at least L.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ingest/input_walker.h"

namespace rcf::pipeline {

// `<log>.times`.
std::string line_times_path(const std::string& log_path);

// Creates (truncates) a sidecar and writes its header; -1 when it cannot be created.
int open_line_times(const std::string& path);

// The wall clock now, in Unix milliseconds.
int64_t wall_clock_ms();

// One row: "<lines>\t<unix_ms>\n".
std::string format_line_time(int64_t lines, int64_t unix_ms);

// Takes the sidecars out of `inputs` (they are not logs) and returns log path -> sidecar path: a
// walked file that opens with the sidecar header belongs to the log it names by its path; a named
// log's sidecar is `<log>.times` beside it, when there is one.
std::map<std::string, std::string> take_line_time_sidecars(std::vector<ingest::InputFile>& inputs);

// A sidecar as read back.
class ConsoleLineTimes {
 public:
  // Reads `path`; nullopt with `*error` set when it is missing, not a sidecar, or its rows are not
  // increasing counts with times that never go back more than a second.
  static std::optional<ConsoleLineTimes> read(const std::string& path, std::string* error);

  // When line `line` (from 1) arrived, in epoch seconds; nullopt past the last row.
  std::optional<double> time_of(int64_t line) const;

 private:
  std::vector<std::pair<int64_t, int64_t>> rows_;  // (lines completed, unix ms), increasing
};

}  // namespace rcf::pipeline
