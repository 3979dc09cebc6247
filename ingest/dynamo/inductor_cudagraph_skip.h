// Inductor's reasons for not using CUDA graphs (docs/cudagraph_skips.md): the perf-hint lines
// `skipping cudagraphs due to <reason>` (2023 list form `['mutated inputs']` too),
// `skipping cudagraph due to function N exceeding max re-recording limit ...` (CUDA graph trees)
// and `cudagraph partition due to <reason>` (graph partitioning), each optionally followed by
// `Found from :` and the stack of the user code that caused it. Logged by
// torch/_inductor/cudagraph_utils.py, cudagraph_trees.py, compile_fx.py and utils.py.
#pragma once

#include <optional>
#include <string_view>

#include "ingest/dynamo/dynamo_text_block.h"
#include "ingest/events.h"

namespace rcf::ingest {

// True for a message that starts such a record, or the `cudagraph partition into N partitions`
// summary that follows partition reasons (kept as a named skipped line).
bool is_cudagraph_skip_header(std::string_view message);

// True for a header that is the whole record: no `Found from :` stack follows it.
bool is_whole_cudagraph_skip(std::string_view message);

// True for an unprefixed line that continues a record (the indented `Found from :` stack).
bool continues_cudagraph_skip(std::string_view line);

// The event of one message text (first line of the record, or a whole reason such as TORCH_TRACE
// compilation_metrics.cudagraph_skip_reason); nullopt when the text is no such reason. `kind`,
// `reason` and a `Found from :` stack in the text are filled; line, ref and origin are not.
std::optional<CudagraphSkip> parse_cudagraph_skip_text(std::string_view text);

// Emits the CudagraphSkip of a kCudagraphSkip block (origin "text_perf_hints"); the partition
// summary line is noted skipped as "cudagraph_partition_summary".
void parse_cudagraph_skip_block(const DynamoBlock& block, BlockOutput& out);

}  // namespace rcf::ingest
