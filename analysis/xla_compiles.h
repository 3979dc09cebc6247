// The XLA side of a run as canonical compiles: every PT_XLA_DEBUG `Compilation Analysis` block
// (exactly one real XLA compile) and every JAX XLA compilation, each with its program key, site,
// step and links to its saved graph / HLO module; plus the run's convergence curve.
//
// Steps (precedence, per source file, since debug blocks carry no timestamps):
//   1. XLA_EMIT_STEPLOG markers in the same file: a marker opens the sync of step N (N = markers
//      so far); the step-end graph after it belongs to step N, any other graph to step N + 1;
//   2. otherwise, with PT_XLA_DEBUG_LEVEL=2 (Execution blocks present): every step-end Execution
//      block (user mark_step / torch_xla.sync, parallel loader, profiler StepTrace) ends a step;
//   3. otherwise the step is unknown (NULL): a level-1 log shows only compiles, so the steps
//      that compiled nothing are invisible.
// Convergence comes from compiles with steps; failing that, from `[MetricsData; step=N]`
// CompileTime TotalSamples (compiles, not distinct programs, are counted then).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/op_attribute_diff.h"
#include "analysis/program_diff.h"
#include "analysis/source_alias.h"
#include "store/derived_rows.h"

namespace rcf::analysis {

struct FrameRecord {
  std::string file;
  int64_t line = 0;
  std::string function;
};

// A Compilation Analysis block, with its step already computed by the loader (see the header
// comment for the precedence): executions are only counted, never loaded. A run without such
// blocks takes its compiles from VLOG `Compiling IR graph hash` lines instead (origin "vlog"):
// no cause, no frames, no step; the site is the device (docs/xla_formats.md).
struct XlaBlockRecord {
  int64_t source_id = 0;
  int64_t line = 0;
  std::optional<int64_t> step;          // the sync's index (1-based) until training steps decide
  std::optional<int64_t> syncs_before;  // step-end syncs of its source completed before it
  std::string kind;                     // compile
  std::string origin = "pt_xla_debug";  // "pt_xla_debug" or "vlog"
  std::string device;                   // vlog: the device it compiled for
  std::optional<double> compile_ms;     // vlog: from the start and done timestamps
  std::string cause, cause_class, graph_name, graph_hash;
  std::optional<int64_t> inputs, outputs;
  std::vector<FrameRecord> frames;  // innermost first
  // vlog: the GetTensor line whose value this graph was compiled for (0: none) and how many
  // tensors it read.
  int64_t value_read_line = 0;
  std::optional<int64_t> value_read_tensors;
};

struct JaxCompileRecord {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string function, phase, signature;
  std::optional<double> seconds;
  std::optional<int64_t> step;  // the training step, when progress lines place it
};

struct JaxMissRecord {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string function, cause_class, detail;
  std::optional<int64_t> step;  // the training step, when progress lines place it
};

struct SavedGraphRecord {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string graph_hash;
};

// A grab_graphs.py `Frame has N graph(s) (M unique):` group (docs/causes.md): M programs at
// one Python stack, the evidence itself when the run has no compile record at that frame.
struct GrabFrameRecord {
  int64_t source_id = 0;
  int64_t line = 0;
  int64_t graphs = 0, unique = 0;
  std::vector<FrameRecord> frames;  // innermost first; empty when the output was cut
};

struct HloModuleRecord {
  int64_t hlo_module_id = 0;
  std::string module_name, stage, graph_hash;
  std::optional<int64_t> module_id;
};

struct MetricStepRecord {  // CompileTime of a [MetricsData; step=N] block
  int64_t step = 0;
  double total_samples = 0;
  std::optional<double> accumulator_ns;  // CompileTime Accumulator (total compile time so far)
};

struct StepTimeRecord {  // one row of a step-timing file
  int64_t step = 0;
  std::optional<double> wall_ms, compile_ms;
};

using ConvergencePoint = store::ConvergencePoint;  // a convergence_point row

// pt-xla-profiler's `TransferFromDeviceTime too frequent: N counts during S steps` (XRT builds:
// `TransferFromServerTime`), printed at a step-end sync: N device-to-host transfers so far.
struct TransferNote {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string metric;
  std::optional<int64_t> count, steps;
};

// A distinct Execution Analysis block whose cause is a tensor-value access (PT_XLA_DEBUG_LEVEL=2):
// a later run of a sync fragment, with the frames of the read that ran it.
struct ValueReadExecution {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string graph_hash;
  std::vector<FrameRecord> frames;  // innermost first
};

// Runtime counts that a host sync happened, independent of the compile block's own cause line:
// the metrics report's `aten::_local_scalar_dense` counter (one per `.item()`) and
// pt-xla-profiler's "TransferFromDeviceTime too frequent". A sync fragment seen only in
// PT_XLA_DEBUG is `medium`; one of these makes it `high`.
struct HostSyncCounts {
  // Counter value of the last metrics block of each step ([MetricsData; step=N]).
  std::map<int64_t, double> scalar_dense_by_step;
  double scalar_dense_max = 0;               // largest value in any block, with or without a step
  std::string scalar_dense_where;            // "file:line" of the block holding that value
  std::vector<TransferNote> transfer_notes;  // in (source_id, line) order
};

// Executions of one program (graph hash) over a run: how many, in how many steps, first and last.
struct ExecutionSpan {
  int64_t executions = 0;
  int64_t steps = 0;  // distinct steps with at least one execution
  int64_t first_step = 0, last_step = 0;
};

// How many compiles a runtime counter says the run did (store/derived_rows.h).
using CountedCompiles = store::CountedCompiles;

struct XlaRunInputs {
  std::vector<XlaBlockRecord> blocks;  // compile blocks in (source_id, line) order
  int64_t steps_seen = 0;              // most steps any source shows (markers or step ends)
  std::vector<JaxCompileRecord> jax_compiles;
  std::vector<JaxMissRecord> jax_misses;
  std::vector<SavedGraphRecord> saved_graphs;
  std::vector<GrabFrameRecord> grab_frames;
  std::vector<HloModuleRecord> hlo_modules;
  std::vector<MetricStepRecord> compile_time_steps;
  std::vector<StepTimeRecord> step_times;
  std::vector<std::pair<int64_t, std::string>> source_names;
  // hlo_module_id -> what the program diff compares (analysis/program_loader.h).
  std::map<int64_t, ProgramView> hlo_programs;
  // Graph hash -> where its Execution blocks fall (PT_XLA_DEBUG_LEVEL=2); empty without them.
  std::map<std::string, ExecutionSpan> executions_by_hash;
  HostSyncCounts host_syncs;
  std::vector<ValueReadExecution> value_read_executions;  // in (source_id, line) order
  std::optional<CountedCompiles> counted;  // from the metrics reports, when one counts compiles
  // Sources whose compile records repeat another's (analysis/xla_same_process.h): not read.
  std::vector<SourceAlias> copied_sources;
  // Names the instructions behind an op-attribute-only change (program_diff rule 4a) by reading
  // the two modules again; unset, such a change is said without them.
  OpAttributeDescriber describe_op_attributes;
};

struct XlaRunResult {
  std::vector<AttributedCompile> compiles;  // ordinals start at 1
  std::vector<ConvergencePoint> convergence;
  std::optional<CountedCompiles> counted;  // XlaRunInputs::counted, passed on
};

// `first_ordinal` lets the caller append these after the run's Dynamo compiles. Takes the inputs
// (pass an rvalue): the HLO views are moved into the programs that use them, not copied.
XlaRunResult analyze_xla_run(XlaRunInputs inputs, int64_t first_ordinal);

// `file:line (function)`: a frame as sites and evidence name it.
std::string frame_text(const FrameRecord& f);

// Innermost user frame: the first frame not inside torch_xla, torch or the Python stdlib.
std::optional<FrameRecord> innermost_user_frame(const std::vector<FrameRecord>& frames);

}  // namespace rcf::analysis
