// Typed events that importers emit. Importers never touch SQL: they fill these structs and hand
// them to an EventSink; the store/ writer turns them into rows.
//
// Every event carries `line`: the 1-based line number in its source where the record starts, so
// that every row in the database can be traced back to its input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ingest/compile_id.h"
#include "ingest/line_reasons.h"

namespace rcf::ingest {

// A compile as identified inside one source: rank (-1 when the log has none), the
// `torch._dynamo.reset()` epoch (0 until the first reset is detected) and the compile id.
struct CompileRef {
  int32_t rank = -1;
  int32_t epoch = 0;
  CompileId id;
};

// One Python frame of a user stack (outermost first when in a list).
struct StackFrame {
  std::string file;
  int64_t line = 0;
  std::string function;
  std::string code;  // source text of the line when the log carries it
};

}  // namespace rcf::ingest

#include "ingest/xla_events.h"  // needs StackFrame, defined above

namespace rcf::ingest {

// One Dynamo compile (frame F, compile C) as reported by the runtime: a TORCH_TRACE
// `compilation_metrics` / `bwd_compilation_metrics` record, or a compile whose existence a text
// log proves (a `Recompiling function` block names the new compile; its reasons name older ones).
struct DynamoCompile {
  int64_t line = 0;
  CompileRef ref;
  // "forward" (compilation_metrics), "backward" (bwd_compilation_metrics), "runtime"
  // (compilation_metrics_runtime), "recompile_block" (text log header), "referenced" (an older
  // compile id named by a guard-failure reason; only its id is known).
  std::string kind;
  std::string co_name;
  std::string co_filename;
  int64_t co_firstlineno = -1;           // -1 when unknown
  std::optional<int64_t> start_time_us;  // epoch microseconds
  std::optional<double> duration_ms;     // wall time of the whole compile
  std::optional<int64_t> cache_size;
  std::optional<int64_t> accumulated_cache_size;
  std::optional<int64_t> guard_count;
  std::optional<int64_t> shape_env_guard_count;
  std::optional<int64_t> graph_op_count;
  std::optional<int64_t> graph_node_count;
  std::optional<int64_t> graph_input_count;
  std::optional<bool> has_guarded_code;
  std::optional<int64_t> recompile_limit;              // from dynamo_config
  std::optional<int64_t> accumulated_recompile_limit;  // from dynamo_config
  std::string fail_type;                               // empty on success
  std::string fail_reason;
  std::string recompile_reason;  // compilation_metrics.recompile_reason (first reason only)
  std::vector<std::string> restart_reasons;
  std::vector<StackFrame> user_stack;  // dynamo_start stack, outermost first, torch frames dropped
  // Process id from the glog prefix of the record (TORCH_TRACE envelope, Dynamo text line); -1
  // when the log printed none. With the compile id it tells whether two logs saw one process.
  int64_t pid = -1;
  // The writer's clock minus UTC in seconds: the record's glog prefix (local time) against the
  // compile's end (epoch); a zone-less time the same machine printed is read with it.
  std::optional<int64_t> clock_offset_s;
};

// One rejected cache entry's reason for a recompile: the `- <old id>: <reason>` line of a
// recompile block, one item of a TORCH_TRACE `recompile_reasons` artifact, or the `last reason`
// of a recompile-limit warning.
struct GuardFailure {
  int64_t line = 0;
  CompileRef ref;              // the NEW compile that the failures caused
  int32_t entry_index = 0;     // position in the list as logged (0 = first listed)
  int32_t verbose_group = -1;  // `guard <i> failures:` index in recompiles_verbose, else -1
  std::string
      old_compile_id;  // "F/C" of the cache entry that rejected the inputs; "" if not logged
  std::string reason;  // raw reason text, right-trimmed, compile id removed
  // "trace_recompile_reasons", "trace_recompile_reason", "text_recompiles",
  // "text_recompiles_verbose", "text_limit_warning", "text_tuple_2023", "text_reasons_2022",
  // "text_compile_profiler", "text_guard_fail_hook"
  std::string origin;
};

// A Dynamo graph break (`[__graph_breaks]` block, `Tensor.item()` warning, 2022 `Graph break:`,
// TORCH_TRACE `dynamo_graph_break_reason`, or a restart reason in compilation_metrics).
struct GraphBreak {
  int64_t line = 0;
  CompileRef ref;         // compile being traced when it broke (id.frame < 0 if unknown)
  std::string user_file;  // `Graph break in user code at <file>:<line>`
  int64_t user_line = -1;
  std::string user_function;
  std::string gb_type;  // first line of the reason block (current format) or ""
  std::string reason;   // full reason text (explanation, hints, context) as logged
  bool suppressed =
      false;  // "user stack suppressed due to duplicate graph break" / "details suppressed"
  bool sync_signature =
      false;  // reason matches a host-sync signature (.item(), data-dependent ...)
  std::vector<StackFrame> user_stack;  // `User code traceback:` / `from user code at:` frames
  std::string origin;  // "text_graph_breaks", "text_item_warning", "text_2022", "trace_artifact",
                       // "trace_restart"
  // Process id from the record's glog prefix, -1 when none: a text log that shows only graph
  // breaks is matched with the TORCH_TRACE log of its process through it.
  int64_t pid = -1;
};

// Dynamo hit its recompile limit for a frame; from now on the frame runs eager.
struct RecompileLimitHit {
  int64_t line = 0;
  CompileRef ref;
  std::string limit_type;  // recompile_limit, accumulated_recompile_limit, cache_size_limit, ...
  int64_t limit_value = -1;
  std::string function;
  std::string file;
  int64_t firstlineno = -1;
  std::string last_reason;    // raw, "" when the era did not print one
  bool hard_failure = false;  // FailOnRecompileLimitHit (fullgraph / fail_on_recompile_limit_hit)
  std::string origin;         // "text_limit_warning", "text_fail_on_recompile_limit"
};

// The guard set installed by one compile (TORCH_TRACE dynamo_guards / dynamo_cpp_guards_str).
struct GuardSet {
  int64_t line = 0;
  CompileRef ref;
  std::string format;               // "dynamo_guards" or "dynamo_cpp_guards_str"
  std::vector<std::string> guards;  // one entry per guard (code part or leaf-guard line)
};

// One timed phase of a compile (paired chromium B/E events).
struct PhaseTiming {
  int64_t line = 0;
  CompileRef ref;
  std::string name;
  int64_t start_us = 0;  // epoch microseconds
  int64_t duration_us = 0;
};

// FX-graph / AOTAutograd cache outcome of a compile.
struct CacheOutcome {
  int64_t line = 0;
  CompileRef ref;
  std::string cache;  // "fx_graph", "aotautograd"
  std::string state;  // "hit", "miss", "bypass"
  std::string key;
  std::string detail;  // bypass reason, when any
};

// One input tensor of a compile (TORCH_TRACE describe_tensor joined with describe_source).
struct InputTensor {
  int64_t line = 0;
  CompileRef ref;
  std::string source;  // "L['x']"
  std::string dtype;
  std::string device;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  std::optional<bool> requires_grad;
};

// A version of the stack that the log itself prints: TORCH_TRACE `# torch version:` lines in the
// fx_graph_runnable artifact, the python / cuda / triton versions of compilation_metrics. Emitted
// once per distinct (key, value) of a source; it fills the run's bundle where nothing was declared.
struct StackVersion {
  int64_t line = 0;
  std::string key;    // "torch", "torch_git", "cuda", "python", "triton"
  std::string value;  // as printed ("2.6.0a0+giteece9ec"); python: the version number only
};

// Inductor did not use CUDA graphs for a compiled graph, or for part of it, and said why
// (`skipping cudagraphs due to ...`, `cudagraph partition due to ...`, TORCH_TRACE
// compilation_metrics.cudagraph_skip_reason; docs/cudagraph_skips.md).
struct CudagraphSkip {
  int64_t line = 0;
  CompileRef ref;  // the compile whose graph it is (id unknown when the line names none)
  // "skipped" (the graph runs without CUDA graphs), "partitioned" (the named ops run outside
  // CUDA graphs, the rest of the graph in them), "rerecord_limit" (CUDA graph trees stopped
  // re-recording a function and run it eagerly).
  std::string kind;
  std::string reason;                  // why, as printed (without the `... due to` lead-in)
  std::vector<StackFrame> user_stack;  // the `Found from :` stack, outermost first
  std::string origin;                  // "text_perf_hints", "trace_compilation_metrics"
};

// What Inductor logged about one compiled graph, or the order in which a process ran its graphs,
// kept to compare the ranks of a run (docs/rank_divergence.md). TORCH_TRACE artifacts
// `inductor_collective_schedule`, `inductor_runtime_and_tensor_meta`, `graph_execution`, and the
// collective calls of `inductor_output_code`.
struct GraphFact {
  int64_t line = 0;
  CompileRef ref;  // the graph's compile; no id for an execution order
  // "collective_schedule" (collective ops in scheduled order), "code_collectives" (the collective
  // calls the generated code makes, in order), "tensor_meta" (one item per op: name and output
  // dtype/shape/stride), "execution_order" (compile ids in the order the graphs ran)
  std::string kind;
  std::vector<std::string> items;
};

// One row of a `compile_times` table (`TorchDynamo compilation metrics:`).
struct CompileTimesRow {
  int64_t line = 0;
  std::string function;
  std::vector<double> seconds;
};

// Not a record of the log: where the read of a plain log stopped for good. Every line up to and
// including `line` (the source's first `bytes` bytes, ending with a newline) was given to the
// importer; what follows it is written by the end of the source (the re-flow's last line, the
// importer's open record). The ingest driver emits it just before it ends such a source, when
// DriverOptions::mark_read_end asks, and never an importer: the store keeps where the read stopped
// and which rows the end wrote, so that an `rcf ingest` of the log once it has grown reads on from
// there (docs/watch.md, "A log that grew, ingested again").
struct SourceReadEnd {
  int64_t line = 0;
  int64_t bytes = 0;
  std::string step_pattern;  // the --step-pattern the lines were read with, empty when none
};

using Event =
    std::variant<DynamoCompile, GuardFailure, GraphBreak, RecompileLimitHit, GuardSet, PhaseTiming,
                 CacheOutcome, InputTensor, CompileTimesRow,
                 // XLA side (ingest/xla_events.h)
                 XlaAnalysisBlock, XlaExecutionGroup, XlaExecutions, XlaPostCompile,
                 XlaProfilerNote, MetricSample, StepMarker, HloModule, SavedGraph, GrabGraphsFrame,
                 JaxCompile, JaxCacheMiss, JaxPersistentCache, StepTiming, StackVersion,
                 CudagraphSkip, XlaVlogRecord, XlaDumpFile, GraphFact, SourceReadEnd>;

// Receives events and line diagnostics from an importer. Implementations own the storage;
// the importer keeps no reference to an event after emit() returns.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(Event&& event) = 0;
  // A run of events in order, as emit() would take them one by one (the default does that).
  virtual void emit_batch(std::vector<Event>&& batch) {
    for (auto& event : batch) emit(std::move(event));
  }
  // `reason` is a short snake_case name of the catalogue (ingest/line_reasons.h); `excerpt` is
  // the start of the offending text (the sink truncates it). For kSkipped/kRejected, call once
  // per line. Importers call the overload below, which takes the fate from the catalogue.
  virtual void note(int64_t line, LineFate fate, std::string_view reason,
                    std::string_view excerpt) = 0;
  // Notes a line under a catalogue entry (`reason::kBlank`), with the entry's fate.
  void note(int64_t line, LineReason reason, std::string_view excerpt) {
    note(line, reason.fate, reason.name, excerpt);
  }
};

}  // namespace rcf::ingest
