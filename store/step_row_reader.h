// The rows a run's training steps are decided from (docs/training_steps.md), as
// analysis/step_evidence_loader.h reads them: where compiles start, progress lines, step-timing
// rows and step-end syncs. Plain rows; which evidence places a compile is decided in analysis/.
//
// Scans that can be a million rows long (progress lines, syncs of a 1 GB PT_XLA_DEBUG log) call a
// function with one row at a time; a row's string_views are valid during that call only. The
// tables are internal (step_marker, step_timing, xla_block, xla_execution, jax_compile,
// dynamo_compile_raw, graph_break): no public view carries a step marker's series or an
// execution's lines.
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

// Compile source -> line of its first torch_xla compile block or JAX compile record.
std::map<int64_t, int64_t> first_xla_and_jax_compile_lines(Database& db, int64_t run_id);

// The first lines of one source's Dynamo records: compile records and graph breaks (a graph
// break is traced inside a compile), nullopt where it has none.
struct DynamoRecordLines {
  std::optional<int64_t> first_record;
  // The first record of the run's first compile (0/0, or a frame id below 0). A 'referenced'
  // record does not count: it stands at the later recompile block that names the compile.
  std::optional<int64_t> first_compile_record;
};

DynamoRecordLines dynamo_record_lines(Database& db, int64_t run_id, int64_t source_id);

// Whether the run holds `[MetricsData; step=N]` markers read from a metrics file.
bool has_metrics_file_markers(Database& db, int64_t run_id);

// The clock offset (local minus UTC, seconds) most compiles of the run were logged with, where a
// TORCH_TRACE log shows it. Scans every compile row of the run (0.2 s at a million compiles).
std::optional<int64_t> most_common_clock_offset(Database& db, int64_t run_id);

// Shape string id -> text, for the shapes of progress lines `shape_sids` (those a reader of the
// run's progress lines saw: a scan for them cost a row per line).
std::map<int64_t, std::string> step_line_shape_names(Database& db,
                                                     const std::set<int64_t>& shape_sids);

// A progress line with a step, or a series of them (store/step_marker_series.h).
struct StepLineMarkerRow {
  int64_t source_id = 0;
  int64_t line = 0;
  int64_t step = 0;
  std::optional<int64_t> shape_sid;
  std::optional<double> time_s;  // the time the line opened with, when it has one
  bool time_zoned = false;       // that time was printed with its zone (so is in UTC)
  bool time_on_arrival = false;  // that time is when the line reached rcf capture
  int64_t repeats = 1;
  int64_t line_stride = 0;
  int64_t step_stride = 0;
};

// The run's progress lines with a step, in store order.
void for_each_step_line_marker(Database& db, int64_t run_id,
                               const std::function<void(const StepLineMarkerRow&)>& visit);
// Those without a time (a console's series rows), through their own index.
void for_each_untimed_step_line_marker(Database& db, int64_t run_id,
                                       const std::function<void(const StepLineMarkerRow&)>& visit);
// Those with a time (a row each, never extended) whose rowid is above `after`, visited in rowid
// order, scanning only the rows of every table above it. Returns the largest rowid read, `after`
// when none.
int64_t read_timed_step_lines_after(Database& db, int64_t run_id, int64_t after,
                                    const std::function<void(const StepLineMarkerRow&)>& visit);
// The largest rowid of step_marker (0 when empty).
int64_t last_step_marker_rowid(Database& db);

// A step-timing row (a step-timing file, or a --step-pattern match).
struct StepTimingRow {
  int64_t source_id = 0;
  int64_t line = 0;
  int64_t step = 0;
  std::optional<double> timestamp_s;
};

// The run's step-timing rows, in store order.
void for_each_step_timing(Database& db, int64_t run_id,
                          const std::function<void(const StepTimingRow&)>& visit);

// The run's XLA_EMIT_STEPLOG markers as (source, line), in store order.
void for_each_steplog_marker(Database& db, int64_t run_id,
                             const std::function<void(int64_t source_id, int64_t line)>& visit);

// The Execution blocks of a step-end graph in one step segment of a source.
// A console line a compile caused (step_marker origin 'compile_line', ingest/steps/compile_line.h):
// its source, line and text (the location, then ` [F/C]` when it names its compile).
struct CompileLineRow {
  int64_t source_id = 0;
  int64_t line = 0;
  std::string text;
};
std::vector<CompileLineRow> compile_lines(Database& db, int64_t run_id);

// The start time (epoch us) of Dynamo compile frame/compile of `source_id`, when exactly one reset
// epoch of the source has it and a record carries its start.
std::optional<int64_t> dynamo_compile_start_us(Database& db, int64_t run_id, int64_t source_id,
                                               int64_t frame_id, int64_t frame_compile_id);

// Each source of the run whose Dynamo compiles carry start times (TORCH_TRACE logs) -> the
// earliest start (epoch us).
std::map<int64_t, int64_t> first_dynamo_compile_starts(Database& db, int64_t run_id);

struct StepEndExecutionRow {
  int64_t source_id = 0;
  int64_t first_line = 0, last_line = 0;
  int64_t executions = 0;
  std::optional<int64_t> frames_sid;  // the call path, which tells sync sites apart
  std::string_view frames_json;       // its frames: JSON list of {file, line, function}
};

// The run's step-end executions, in store order.
void for_each_step_end_execution(Database& db, int64_t run_id,
                                 const std::function<void(const StepEndExecutionRow&)>& visit);

}  // namespace rcf::store
