// Events of the XLA side: torch_xla debug output, metrics, saved graphs, HLO modules, JAX logs
// and step timings. Same rules as ingest/events.h: `line` is the 1-based line where the record
// starts; importers fill these and never touch SQL.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rcf::ingest {

struct StackFrame;  // ingest/events.h

// One PT_XLA_DEBUG analysis block: `Compilation Analysis` (exactly one real XLA compile),
// `Execution Analysis` (every execution, cache hits too) or `Unexpected Execution Analysis`. The
// importer emits compile blocks one by one and execution blocks grouped (XlaExecutions).
struct XlaAnalysisBlock {
  int64_t line = 0;
  std::string kind;   // "compile", "execute", "unexpected_execute"
  std::string cause;  // cause text as printed, trimmed ("user mark_step", ...)
  // Normalised cause (eras unified, mark_step == torch_xla.sync): "step_end",
  // "parallel_loader_step_end", "profiler_step_end", "dynamo_input_sync", "torch_xla_compile",
  // "torch_xla_compile_clear_pending", "dynamo_compile", "dynamo_execute", "tensor_value_access"
  // (a sync fragment: .item(), print, .cpu(), data-dependent if), "unknown".
  std::string cause_class;
  std::string graph_name;  // `Graph Name:` (torch_xla.compile(name=...)), "" if absent
  std::string graph_hash;  // `Graph Hash:` lowercase hex as printed (17-32 digits), "" if absent
  std::optional<int64_t> inputs;   // Number of Graph Inputs (also the pre-release `Input` wording)
  std::optional<int64_t> outputs;  // Number of Graph Outputs
  std::vector<StackFrame> frames;  // innermost first, as printed
  bool frames_cut = false;         // `..........` line: more frames existed
  bool truncated = false;          // the block was cut off (crash, end of file)
  // Step boundaries of the same source before the block's first line, from which analysis derives
  // its step (analysis/xla_compiles.h): XLA_EMIT_STEPLOG markers, and `execute` blocks whose cause
  // class is step_end, parallel_loader_step_end or profiler_step_end.
  int64_t markers_before = 0;
  int64_t step_ends_before = 0;
};

// Execution blocks (kinds execute and unexpected_execute) are counted, not listed: a level-2 log
// prints one per graph run, which is most of the file, and repeats the same few blocks. The
// importer emits each distinct block of a source once (XlaExecutionGroup) and, when a step
// segment ends (the blocks between two step boundaries), one XlaExecutions per group that ran in
// it. Every block is counted in exactly one XlaExecutions.
struct XlaExecutionGroup {
  int64_t group = 0;       // number of the group within the source (0, 1, ...)
  XlaAnalysisBlock block;  // what the blocks printed; line = the first block's line
};

struct XlaExecutions {
  int64_t group = 0;  // XlaExecutionGroup::group, emitted earlier by the same source
  // The step segment: step boundaries of the source before it (see XlaAnalysisBlock).
  int64_t markers_before = 0;
  int64_t step_ends_before = 0;
  int64_t first_line = 0;  // first line of the group's first block in the segment
  int64_t last_line = 0;   // first line of its last block in the segment
  int64_t count = 0;       // blocks of the group in the segment, >= 1
};

// `Post Compilation Analysis` sizes (and the `Computation hash:` line before it, v2.7+). Belongs
// to the closest preceding compile block of the same source.
struct XlaPostCompile {
  int64_t line = 0;
  std::string computation_hash;  // "" if not printed
  std::optional<double> input_gb, output_gb, aliased_gb, intermediate_gb, program_gb;
};

// A `pt-xla-profiler:` line (step analysis or the exit-time unlowered-op summary).
struct XlaProfilerNote {
  int64_t line = 0;
  // "too_frequent", "too_slow", "not_lowered", "unlowered_summary_frame"
  std::string kind;
  std::string metric;             // CompileTime, TransferFromDeviceTime, ... ("" for op lists)
  std::optional<int64_t> count;   // too frequent: counts; summary frame: count
  std::optional<int64_t> steps;   // too frequent: during N steps
  std::optional<double> seconds;  // too slow: longest instance
  std::string text;               // op list, frame text or the raw message
};

// One torch_xla VLOG line about a graph (TF_CPP_VMODULE=tensor=5 before 2023,
// xla_graph_executor=5 after; docs/xla_formats.md). A compile is one `Compiling IR graph hash`
// record: its `... done!` line, when seen, gives compile_ms (from the two timestamps) and is not
// a record of its own. `line` is the start line (the done line when the start was not seen).
struct XlaVlogRecord {
  int64_t line = 0;
  // "compile", "execute" (Executing IR graph hash), "tensors_graph" (Tensors graph hash),
  // "parameter_sequence", "cache_hit" (Graph hash: <h>), "get_tensor" (Trying to get the value of
  // N tensor(s): user code read tensor values, a host sync), "graph_size" (SyncTensorsGraphSize=N).
  std::string kind;
  std::string graph_hash;        // as printed: hex (17-32 digits) or 2019-era decimal; "" when none
  std::string device;            // "TPU:0", "CPU:0"; "" when the line names none
  int64_t thread = -1;           // glog thread id when printed, else -1
  std::optional<int64_t> count;  // get_tensor: tensors; graph_size: IR nodes
  std::optional<double> compile_ms;  // compile: start to `done!` when both carry a timestamp
  bool finished = false;             // compile: its `done!` line was seen
};

// One value of a metrics report. A `[MetricsData; step=N]` block gives the step.
struct MetricSample {
  int64_t line = 0;
  std::optional<int64_t> step;
  int64_t report_index = 0;  // n-th report in the source (0-based), for reports without steps
  std::string name;          // CompileTime, UncachedCompile, aten::_local_scalar_dense, ...
  std::string kind;          // "metric" or "counter"
  // "TotalSamples", "Accumulator", "ValueRate", "Rate", "Mean", "StdDev", "Value",
  // or "P<percent>" for percentiles ("P50", "P99", "P99.9").
  std::string field;
  double value = 0;  // times in ns, bytes in bytes, rates per second, plain values as printed
  std::string unit;  // "ns", "bytes", "ns/s", "bytes/s", "1/s", "" (plain)
};

// A step boundary seen in a log (XLA_EMIT_STEPLOG marker, metrics-file header, user pattern).
struct StepMarker {
  int64_t line = 0;
  std::optional<int64_t> step;  // explicit step number when printed, else counted by analysis
  std::string origin;           // "steplog", "metrics_file", "step_line"
  std::string shape;  // step_line: the line's shape (ingest/steps/step_line.h), else empty
  // step_line: the time that opened the line (ingest/steps/step_line.h), else nullopt.
  std::optional<double> time_s;
  bool time_zoned = false;
  // time_s is when the line reached rcf capture (pipeline/line_time_stamper.h), not printed in it.
  bool time_on_arrival = false;
};

// One parameter of an HLO module's entry computation.
struct HloParameter {
  int64_t number = 0;
  std::string name;
  std::string dtype;  // f32, bf16, s32, pred, tuple, ...
  std::vector<int64_t> dims;
  std::string layout;      // "{1,0}" or with tiling "{0,1:T(2,128)S(1)}", "" when not printed
  std::string shape_text;  // the whole shape as printed, e.g. "f32[8,128]{1,0}" or a tuple
};

// One constant instruction of an HLO module.
struct HloConstant {
  std::string name;
  std::string shape_text;
  std::string value_text;   // as printed; "{...}" for large elided constants
  bool elided = false;      // value hidden by the printer (constant({...}))
  std::string user_op;      // opcode of the first instruction that uses it, "" if none seen
  std::string op_name;      // metadata op_name / op_type
  std::string source_file;  // metadata source_file ("fn@file.py" in old torch_xla, "" if none)
  int64_t source_line = -1;
};

// One instruction of an HLO module (HloModule::instruction_text, decoded): what an attribute diff
// of two modules with the same skeleton compares (analysis/op_attribute_diff.h).
struct HloInstructionText {
  int32_t ordinal = 0;  // of its name within the module (names are not compared)
  std::string name, opcode;
  std::string shape;        // canonical: comments and blanks removed
  std::string shown_shape;  // as printed, comments removed
  struct Attribute {
    std::string key;
    std::string canonical;  // blanks removed, referenced computations as name ordinals
    std::string shown;      // as printed, comments removed
    bool calls = false;     // names computations (calls=, to_apply=, body=, ...)
  };
  std::vector<Attribute> attributes;  // in printed order, metadata left out
  std::vector<int32_t> operands;      // operand name ordinals
  std::string op_name, source_file;   // metadata, "" if none
  int64_t source_line = -1;
};

// One HLO module, from a --xla_dump_to file or embedded in a saved graph.
struct HloModule {
  int64_t line = 0;                  // line of `HloModule`
  std::string module_name;           // "SyncTensorsGraph.68", "jit_f", ...
  std::optional<int64_t> module_id;  // from the dump file name module_NNNN, when known
  std::string stage;         // "before_optimizations", "after_optimizations", pass name, "" unknown
  std::string file_name;     // dump file name (no directory) when from a dump, else ""
  std::string entry_layout;  // entry_computation_layout={...} text
  std::vector<HloParameter> parameters;  // of the ENTRY computation, by number
  std::vector<HloConstant> constants;
  std::map<std::string, int64_t> op_histogram;  // opcode -> count over all computations
  int64_t instruction_count = 0;
  std::string structure_fingerprint;  // hex; ignores instruction names/ids and constant values
  std::string full_fingerprint;       // hex; ignores only instruction names/ids
  // hex; the structure without instruction shapes and attribute values: which ops, wired how.
  // Two modules with the same inputs and skeleton differ only in op attributes and the shapes
  // those give (a Python int baked in as a slice bound, a pad size, a reshape).
  std::string skeleton_fingerprint;
  bool truncated = false;  // cut off before its closing brace
  std::string graph_hash;  // set by the saved-graph importer for embedded modules, else ""
  // Every instruction in printed order, encoded as the store keeps it (hlo_instruction_text;
  // ingest/xla/hlo_instruction_encoding.h), so that analysis can name the op attributes two
  // programs differ in without reading the input again.
  std::string instruction_text;
};

// One graph of an XLA_SAVE_TENSORS_FILE (between `## BEGIN_GRAPH` and `## END_GRAPH`).
struct SavedGraph {
  int64_t line = 0;
  std::string format;       // "text", "hlo", "dot", "stablehlo"
  std::string header_kind;  // "old" (Hashes:) or "new" (Root Hashes: + Graph Hash:)
  std::string graph_hash;   // "" when the old header has none
  std::vector<std::string> root_hashes;
  std::string graph_name;
  bool dynamo = false;             // a [dynamo] block
  std::vector<StackFrame> frames;  // `TensorsGraphInfo:` Python frames, innermost first
  int64_t ir_node_count = 0;       // text format: IR lines
  bool truncated = false;
};

// One frame group of a `scripts/grab_graphs.py` summary (docs/xla_saved_graph.md):
// `Frame has <N> graph(s) (<M> unique):` and the frame lines after it. The script groups the
// saved graphs of an XLA_SAVE_TENSORS_FILE by their Python stack and counts distinct graph texts.
struct GrabGraphsFrame {
  int64_t line = 0;                // the `Frame has` line
  int64_t graphs = 0;              // N: saved graphs (syncs) with this stack
  int64_t unique = 0;              // M: distinct graphs among them
  std::vector<StackFrame> frames;  // innermost first; empty when the output was cut
  bool frames_cut = false;         // the input ended before the frame lines
};

// A JAX compile-log record (jax_log_compiles).
struct JaxCompile {
  int64_t line = 0;
  std::string function;  // fun name as logged ("f", "jit(f)" normalised to "f")
  std::string phase;     // "trace", "lower" (jaxpr -> MLIR), "compile" (XLA), "compiling" (start)
  std::optional<double> seconds;
  std::string signature;  // "global shapes and types [...]" text when printed
  std::string raw;        // the message
};

// A JAX tracing-cache miss explanation (jax_explain_cache_misses), all eras.
struct JaxCacheMiss {
  int64_t line = 0;
  std::string function;
  std::string location;  // "file.py:12" of the function when printed
  // "never_seen", "shape", "dtype", "weak_type", "static_arg", "pytree", "context", "other"
  std::string cause_class;
  std::string detail;  // the explanation lines joined with '\n'
};

// One file name of an `--xla_dump_to` directory listing (`ls` output pasted into a report):
// which modules and stages a dump holds. A listing holds no module text, so it decides no
// compile of its own.
struct XlaDumpFile {
  int64_t line = 0;
  std::optional<int64_t> module_id;  // module_NNNN
  std::string module_name;           // "SyncTensorsGraph.68", "jit_train_step"
  std::string stage;                 // as ingest/xla/hlo_dump_file_name.h names it, "" when none
  std::string file_name;             // the name as listed
};

// JAX persistent compilation cache line.
struct JaxPersistentCache {
  int64_t line = 0;
  std::string event;  // "hit", "miss", "write", "skip"
  std::string key;    // jit_<name>-<sha256hex>
  std::string function;
  std::optional<double> seconds;
};

// One row of a step-timing file (CSV, JSONL) or a line matched by --step-pattern.
struct StepTiming {
  int64_t line = 0;
  int64_t step = 0;
  std::optional<double> wall_ms;
  std::optional<double> compile_ms;
  std::optional<double> timestamp_s;  // epoch seconds
};

}  // namespace rcf::ingest
