// Console lines that a compile itself caused: a Python warning issued from Dynamo's or Inductor's
// code (`.../torch/_inductor/compile_fx.py:322: UserWarning: ...`) or a log record of their
// loggers (`W1126 20:43:00.123000 71 torch/_inductor/utils.py:1250] [0/0] ...`). In a console
// that rcf did not capture (no line times), such a line is where a compile happened between the
// progress lines around it, which the TORCH_TRACE clock then ties to compiles
// (docs/training_steps.md, "The trace's clock").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/xla_events.h"

namespace rcf::ingest {

struct CompileLine {
  // The code that printed it, from `torch/` on: `torch/_inductor/compile_fx.py:322`.
  std::string location;
  // The compile id a log record carries (`0/1`), "" when none (warnings never carry one).
  std::string compile_id;
};

// The compile-caused line `text` is (after an optional `[rankN]:`), or nullopt.
std::optional<CompileLine> read_compile_line(std::string_view text);

// The step marker (origin "compile_line", no step) of compile-caused line `line_no`: its shape is
// the location, followed by ` [F/C]` when the record names its compile.
StepMarker compile_line_marker(int64_t line_no, const CompileLine& c);

}  // namespace rcf::ingest
