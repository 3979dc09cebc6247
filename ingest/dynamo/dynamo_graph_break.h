// Graph-break records of every era (docs/dynamo_text.md, Graph breaks): the
// `[__graph_breaks]` block, the one-time `Tensor.item()` WARNING, 2022/2023 `Graph break: ...`
// messages and `torch._dynamo.exc.Unsupported` exception text.
#pragma once

#include <optional>
#include <string_view>

#include "ingest/dynamo/dynamo_text_block.h"
#include "ingest/events.h"

namespace rcf::ingest {

// `File "<file>", line <n>, in <fn>` (leading whitespace allowed); nullopt otherwise.
std::optional<StackFrame> parse_traceback_frame(std::string_view line);

// True for a message that starts a graph-break record (`Graph break in user code at`,
// `Graph break (...)`, `Graph break: ...`, `Graph break from \`Tensor.item()\``).
bool is_graph_break_header(std::string_view message);

// True for `Graph break from \`Tensor.item()\`, consider setting:`.
bool is_item_warning_header(std::string_view message);

// True for `Graph break: from user code at:`, which continues an item warning.
bool is_item_warning_frames_marker(std::string_view message);

// True for a line that can continue a block of `kind` (kGraphBreak, kItemWarning, kUnsupported)
// printed without per-line prefixes (2022 logs, exception text).
bool continues_graph_break(DynamoBlockKind kind, std::string_view line);

// True for the `Set TORCHDYNAMO_VERBOSE=1 ...` line that ends an Unsupported exception message.
bool is_verbose_trailer(std::string_view line);

// The registry type of a graph-break reason: the line before its `  Explanation:` line
// (`Unsupported Tensor.item() call with capture_scalar_outputs=False`). PyTorch 2.8+ puts a
// generic `Encountered graph break when attempting to trace CALL: ...` line and a blank line
// before it, which name no type. "" when the reason has no Explanation line (older eras).
std::string_view registry_gb_type(std::string_view reason);

// Emits the GraphBreak of a kGraphBreak, kItemWarning or kUnsupported block.
void parse_graph_break_block(const DynamoBlock& block, BlockOutput& out);

}  // namespace rcf::ingest
