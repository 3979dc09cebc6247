// `compile_times` tables printed by torch/_dynamo/utils.py (docs/dynamo_text.md):
// `TorchDynamo compilation metrics:` then a tabulate table or the comma-joined fallback.
#pragma once

#include <string_view>

#include "ingest/dynamo/dynamo_text_block.h"

namespace rcf::ingest {

bool is_compile_times_title(std::string_view line);
// True for the header row of a compile_times table printed without its title (2022:
// `Function                         Runtimes (s)`, then a rule and rows of Python lists).
bool is_compile_times_header_row(std::string_view line);

// True for a header, rule or row line of the table (used for unprefixed, printed tables).
bool continues_compile_times(std::string_view line);

// One CompileTimesRow per row.
void parse_compile_times_block(const DynamoBlock& block, BlockOutput& out);

}  // namespace rcf::ingest
