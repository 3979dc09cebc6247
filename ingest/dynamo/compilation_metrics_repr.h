// The `CompilationMetrics(...)` dataclass repr printed by torch/_dynamo/utils.py
// (docs/dynamo_text.md, CompilationMetrics reprs), read into a DynamoCompile.
#pragma once

#include <optional>
#include <string_view>

#include "ingest/events.h"

namespace rcf::ingest {

struct ParsedCompilationMetrics {
  DynamoCompile compile;  // kind "forward" or "backward" (is_fwd / is_forward False)
  bool complete = false;  // the closing ')' was seen (false: the line was cut; fields kept so far)
};

// True when `line` carries a CompilationMetrics repr (cheap substring test).
bool has_compilation_metrics(std::string_view line);

// Reads the repr in `line` (any text may precede it). `rank` goes into the ref. nullopt when the
// repr has no readable compile_id.
std::optional<ParsedCompilationMetrics> parse_compilation_metrics(std::string_view line,
                                                                  int32_t rank);

}  // namespace rcf::ingest
