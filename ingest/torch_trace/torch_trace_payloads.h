// TORCH_TRACE payload readers that need no importer state (docs/torch_trace.md): recompile
// reasons, graph-break reports, Python tracebacks, dynamo_start stacks, the dynamo_config dump
// and the C++ guard tree. Used by ingest/torch_trace/torch_trace_importer.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/events.h"

namespace rcf::ingest::torch_trace {

// Splits a recompile reason `"<old compile id>: <reason>"`; old id "" when it does not start with
// a compile id. The reason is right-trimmed (the runtime pads some with spaces).
std::pair<std::string, std::string> split_reason(std::string_view item);

// A user-stack frame inside PyTorch itself (eval_frame / convert_frame wrappers, nn.Module call
// plumbing): trailing ones are dropped from dynamo_start stacks, as tlparse does.
bool is_torch_internal_file(std::string_view file);

// Parses the text of a graph-break report (`dynamo_graph_break_reason` artifact; same text as the
// `graph_breaks` log, docs/dynamo_text.md). Falls back to the whole text as the reason.
void parse_graph_break_text(std::string_view text, GraphBreak* out);

// The exception lines at the end of a Python traceback (after the last indented line, up to the
// first blank line): "torch._dynamo.exc.BackendCompilerFailed: ...\nRuntimeError: ...".
std::string traceback_summary(std::string_view text);

// dynamo_config is a JSON object serialized into a string: decoded, then skimmed for the
// recompile limits.
void read_dynamo_config(std::string_view raw, DynamoCompile* compile);

// Text tree of the C++ guard manager: one guard per leaf line `| | +- KIND: code  # comment`;
// manager (structure) lines are skipped and the source comment is dropped.
std::vector<std::string> cpp_guard_lines(std::string_view payload);

// The fields of a chromium_event the importer uses.
struct ChromiumEvent {
  std::string name, phase, args_compile_id, cache_key, bypass_reason;
  std::optional<double> ts, duration;
};
// Skims `event` (a chromium trace event object) into `out`; false when it is not valid JSON.
bool read_chromium_event(std::string_view event, ChromiumEvent* out);
// The cache of a chromium `<cache>_cache_<state>` instant: fx_graph, aotautograd, or the prefix.
std::string chromium_cache_name(std::string_view name, std::string_view state);

}  // namespace rcf::ingest::torch_trace
