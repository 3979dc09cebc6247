// Printed `torch._dynamo.explain()` output (docs/dynamo_text.md): one GraphBreak
// per `Break Reason <i>:` entry.
#pragma once

#include <string_view>

#include "ingest/dynamo/dynamo_text_block.h"

namespace rcf::ingest {

// True for the lines that start an explain() summary (`Graph Count: `, `Break Reasons:`, or
// the 2022 `Dynamo produced N graphs with M graph break and K ops`).
bool is_explain_header(std::string_view line);

// True for a break of the 2022 summary's numbered list (`3. generic_jump TensorVariable()`).
bool is_explain_2022_item(std::string_view line);

// True for a line that continues an explain() summary: indented text or a section title.
bool continues_explain(std::string_view line);

void parse_explain_block(const DynamoBlock& block, BlockOutput& out);

}  // namespace rcf::ingest
