// The rows of one run's XLA side as analysis/xla_run_loader.h reads them: compile blocks (and VLOG
// compiles), JAX records, saved graphs, HLO modules, metric samples, pt-xla-profiler notes, step
// timings, step counts and Execution counts. Plain rows; what they mean (a compile's step, the
// run's compile count, an execution's span) is decided in analysis/.
//
// Scans whose rows follow the number of compiles, programs or executions call a function with one
// row at a time, so that memory stays that of what the caller keeps. A row's string_views point
// into the statement's current row: valid during the callback only. The tables are internal
// (xla_block, xla_execution, xla_execution_group, xla_vlog, jax_compile, metric_sample, ...): no
// public view carries a compile block's step counters or an execution's step segment.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace rcf::store {

// A source of the run with what tells a copy of a log from another rank's log.
struct SourcePathRow {
  int64_t source_id = 0;
  std::string path;  // as ingested
  std::optional<int64_t> file_rank;
};

std::vector<SourcePathRow> source_paths_of_run(Database& db, int64_t run_id);

// XLA_EMIT_STEPLOG markers per source (source -> count): one row each, counted in one scan
// without a sort.
std::map<int64_t, int64_t> steplog_markers_per_source(Database& db, int64_t run_id);

// Executions of step-end graphs per source (source -> count), summed over the step segments.
std::map<int64_t, int64_t> step_end_executions_per_source(Database& db, int64_t run_id);

// The sources with Execution blocks (PT_XLA_DEBUG_LEVEL=2).
std::set<int64_t> executing_sources(Database& db, int64_t run_id);

// A Compilation Analysis block with the step boundaries the importer counted before it.
struct XlaCompileBlockRow {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string_view cause, cause_class, graph_name, graph_hash;
  std::optional<int64_t> inputs, outputs;
  std::string_view frames_json;  // JSON list of {file, line, function}, innermost first
  int64_t markers_before = 0;    // steplog markers of its source before it
  int64_t step_ends_before = 0;  // step-end executions of its source before it
  bool step_end = false;         // a step-end graph (docs/pt_xla_debug.md, cause classes)
};

// The compile blocks of the run, by (source_id, line).
void for_each_xla_compile_block(Database& db, int64_t run_id,
                                const std::function<void(const XlaCompileBlockRow&)>& visit);

// A `Compiling IR graph hash` record of torch_xla VLOG output.
struct XlaVlogGraphRow {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string_view kind;  // compile, execute, get_tensor
  std::string_view graph_hash, device;
  std::optional<int64_t> thread;     // glog thread id, when printed
  std::optional<int64_t> count;      // get_tensor: tensors read
  std::optional<double> compile_ms;  // compile: start to done
};

// The VLOG compiles, executions and GetTensor reads (`Trying to get the value of N tensor(s)`)
// of the run, by (source_id, line).
void for_each_xla_vlog_graph_row(Database& db, int64_t run_id,
                                 const std::function<void(const XlaVlogGraphRow&)>& visit);

struct JaxCompileRow {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string_view function, phase, signature;
  std::optional<double> seconds;
};

// The JAX compile records of the run, by (source_id, line).
void for_each_jax_compile(Database& db, int64_t run_id,
                          const std::function<void(const JaxCompileRow&)>& visit);

struct JaxCacheMissRow {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string_view function, cause_class, detail;
};

// The JAX tracing cache misses of the run, by (source_id, line).
void for_each_jax_cache_miss(Database& db, int64_t run_id,
                             const std::function<void(const JaxCacheMissRow&)>& visit);

struct SavedGraphRow {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string_view graph_hash;
};

// The saved graphs of the run that carry a graph hash, by (source_id, line).
void for_each_saved_graph(Database& db, int64_t run_id,
                          const std::function<void(const SavedGraphRow&)>& visit);

// A `Frame has N graph(s) (M unique):` group of a grab_graphs.py summary.
struct GrabGraphsFrameRow {
  int64_t source_id = 0;
  int64_t line = 0;
  int64_t graphs = 0, unique = 0;
  std::string_view frames_json;  // JSON list of {file, line, function}, innermost first; "" none
};

// The grab_graphs.py frame groups of the run, by (source_id, line).
void for_each_grab_graphs_frame(Database& db, int64_t run_id,
                                const std::function<void(const GrabGraphsFrameRow&)>& visit);

struct HloModuleRow {
  int64_t hlo_module_id = 0;
  std::string_view module_name, stage, graph_hash;
  std::optional<int64_t> module_id;
};

// The HLO modules of the run, by hlo_module_id.
void for_each_hlo_module(Database& db, int64_t run_id,
                         const std::function<void(const HloModuleRow&)>& visit);

// A metrics-report sample of CompileTime, aten::_local_scalar_dense or UncachedCompile.
struct XlaMetricSampleRow {
  std::string_view name;
  int64_t source_id = 0;
  int64_t line = 0;
  std::optional<int64_t> step;  // [MetricsData; step=N]
  std::string_view field;
  double value = 0;
};

// Those samples of the run, by (source_id, line).
void for_each_xla_metric_sample(Database& db, int64_t run_id,
                                const std::function<void(const XlaMetricSampleRow&)>& visit);

// A pt-xla-profiler `... too frequent` note.
struct ProfilerNoteRow {
  int64_t source_id = 0;
  int64_t line = 0;
  int64_t count = 0;  // the note's `N counts`; 0 where not read
};

// The `CompileTime too frequent` note with the largest count (then the first), if any.
std::optional<ProfilerNoteRow> largest_compile_time_note(Database& db, int64_t run_id);

// A `TransferFromDeviceTime too frequent` note (XRT builds: `TransferFromServerTime`).
struct TransferNoteRow {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string_view metric;              // TransferFromDeviceTime or TransferFromServerTime
  std::optional<int64_t> count, steps;  // `N counts during S steps`; unset where not read
};

// Those notes of the run, by (source_id, line).
void for_each_transfer_note(Database& db, int64_t run_id,
                            const std::function<void(const TransferNoteRow&)>& visit);

// A distinct Execution Analysis block whose cause is a tensor-value access (PT_XLA_DEBUG_LEVEL=2):
// a run of a sync fragment, with the frames of the read that ran it.
struct ValueReadExecutionRow {
  int64_t source_id = 0;
  int64_t first_line = 0;
  std::string_view graph_hash;
  std::string_view frames_json;  // JSON list of {file, line, function}, innermost first
};

// Those blocks of the run, by (source_id, first_line).
void for_each_value_read_execution(Database& db, int64_t run_id,
                                   const std::function<void(const ValueReadExecutionRow&)>& visit);

// One row of a step-timing file.
struct StepDurationRow {
  int64_t step = 0;
  std::optional<double> wall_ms, compile_ms;
};

// The step-timing rows of the run, by (source_id, line).
void for_each_step_duration(Database& db, int64_t run_id,
                            const std::function<void(const StepDurationRow&)>& visit);

// An Execution group of a program (graph hash) in one source.
struct ExecuteGroupRow {
  int64_t group_id = 0;
  std::string_view graph_hash;
  int64_t source_id = 0;
};

// The execute groups of the run that carry a graph hash.
void for_each_execute_group(Database& db, int64_t run_id,
                            const std::function<void(const ExecuteGroupRow&)>& visit);

// Executions of one graph hash over several sources: counted, their distinct steps, first and
// last (a step is the step-end executions before it in its source, plus one).
struct ExecutionSpanRow {
  std::string_view graph_hash;
  int64_t executions = 0, steps = 0, first_step = 0, last_step = 0;
};

// One row per graph hash, over every source but `excluded_sources`; the sources of one run share
// step numbers (ranks), so the distinct steps are their union.
void for_each_execution_span(Database& db, int64_t run_id,
                             const std::set<int64_t>& excluded_sources,
                             const std::function<void(const ExecutionSpanRow&)>& visit);

// Executions of one group in one step segment.
struct ExecutionCountRow {
  int64_t group_id = 0;
  int64_t step = 0;  // step-end executions before the segment, plus one
  int64_t executions = 0;
};

// The run's execution counts in store order (rowid): the importer writes a source's counts in
// segment order, so a program's steps come in order.
void for_each_execution_count(Database& db, int64_t run_id,
                              const std::function<void(const ExecutionCountRow&)>& visit);

}  // namespace rcf::store
