// The recompilation table of `CompileProfiler.report()` (docs/dynamo_text.md):
// `Function  Recompiles  Recompile Reasons`, a dash rule, then rows; further reasons of a function
// sit on continuation rows with empty first columns.
#pragma once

#include <string_view>

#include "ingest/dynamo/dynamo_text_block.h"

namespace rcf::ingest {

bool is_compile_profiler_header(std::string_view line);

// True when `line` can be the next line of `block` (a kProfilerTable block): the rule after the
// header, then rows that fit the rule's columns.
bool continues_compile_profiler(const DynamoBlock& block, std::string_view line);

// One GuardFailure (origin "text_compile_profiler") per reason cell.
void parse_compile_profiler_block(const DynamoBlock& block, BlockOutput& out);

}  // namespace rcf::ingest
