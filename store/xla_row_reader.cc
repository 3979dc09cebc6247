#include "store/xla_row_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "store/store.h"

namespace rcf::store {
namespace {

// The compile blocks of step-end graphs (docs/pt_xla_debug.md, cause classes).
constexpr const char* kXlaStepEndTerm =
    "cause_class IN ('step_end', 'parallel_loader_step_end', 'profiler_step_end')";

}  // namespace

std::vector<SourcePathRow> source_paths_of_run(Database& db, int64_t run_id) {
  std::vector<SourcePathRow> out;
  auto rows = db.prepare("SELECT source_id, path, file_rank FROM source WHERE run_id = ?");
  rows.bind(1, run_id);
  while (rows.step()) out.push_back({rows.int64(0), rows.str(1), rows.opt_int64(2)});
  return out;
}

std::map<int64_t, int64_t> steplog_markers_per_source(Database& db, int64_t run_id) {
  std::map<int64_t, int64_t> out;
  auto rows =
      db.prepare("SELECT source_id FROM step_marker WHERE run_id = ? AND origin = 'steplog'");
  rows.bind(1, run_id);
  while (rows.step()) ++out[rows.int64(0)];
  return out;
}

std::map<int64_t, int64_t> step_end_executions_per_source(Database& db, int64_t run_id) {
  std::map<int64_t, int64_t> out;
  auto rows = db.prepare(fmt::format(
      "SELECT source_id, executions FROM xla_execution WHERE run_id = ?1 AND group_id IN "
      "(SELECT group_id FROM xla_execution_group WHERE run_id = ?1 AND kind = 'execute' AND {})",
      kXlaStepEndTerm));
  rows.bind(1, run_id);
  while (rows.step()) out[rows.int64(0)] += rows.int64(1);
  return out;
}

std::set<int64_t> executing_sources(Database& db, int64_t run_id) {
  std::set<int64_t> out;
  auto rows = db.prepare(
      "SELECT DISTINCT source_id FROM xla_execution_group WHERE run_id = ? AND kind = 'execute'");
  rows.bind(1, run_id);
  while (rows.step()) out.insert(rows.int64(0));
  return out;
}

void for_each_xla_compile_block(Database& db, int64_t run_id,
                                const std::function<void(const XlaCompileBlockRow&)>& visit) {
  auto blocks = db.prepare(fmt::format(
      "SELECT b.source_id, b.line, c.text, b.cause_class, n.text, b.graph_hash, b.inputs, "
      "b.outputs, f.text, b.markers_before, b.step_ends_before, b.{} FROM xla_block b "
      "LEFT JOIN strings c ON c.string_id = b.cause_sid "
      "LEFT JOIN strings n ON n.string_id = b.graph_name_sid "
      "LEFT JOIN strings f ON f.string_id = b.frames_sid "
      "WHERE b.run_id = ? AND b.kind = 'compile' ORDER BY b.source_id, b.line",
      kXlaStepEndTerm));
  blocks.bind(1, run_id);
  XlaCompileBlockRow r;
  while (blocks.step()) {
    r.source_id = blocks.int64(0);
    r.line = blocks.int64(1);
    r.cause = blocks.text(2);
    r.cause_class = blocks.text(3);
    r.graph_name = blocks.text(4);
    r.graph_hash = blocks.text(5);
    r.inputs = blocks.opt_int64(6);
    r.outputs = blocks.opt_int64(7);
    r.frames_json = blocks.text(8);
    r.markers_before = blocks.int64(9);
    r.step_ends_before = blocks.int64(10);
    r.step_end = blocks.int64(11) != 0;
    visit(r);
  }
}

void for_each_xla_vlog_graph_row(Database& db, int64_t run_id,
                                 const std::function<void(const XlaVlogGraphRow&)>& visit) {
  auto rows = db.prepare(
      "SELECT source_id, line, kind, graph_hash, device, thread, count, compile_ms FROM xla_vlog "
      "WHERE run_id = ? AND kind IN ('compile', 'execute', 'get_tensor') ORDER BY source_id, "
      "line");
  rows.bind(1, run_id);
  while (rows.step())
    visit({rows.int64(0), rows.int64(1), rows.text(2), rows.text(3), rows.text(4),
           rows.opt_int64(5), rows.opt_int64(6), rows.opt_real(7)});
}

void for_each_jax_compile(Database& db, int64_t run_id,
                          const std::function<void(const JaxCompileRow&)>& visit) {
  auto jax = db.prepare(
      "SELECT source_id, line, f.text, phase, s.text, seconds FROM jax_compile j "
      "JOIN strings f ON f.string_id = j.function_sid "
      "LEFT JOIN strings s ON s.string_id = j.signature_sid WHERE run_id=? ORDER BY source_id, "
      "line");
  jax.bind(1, run_id);
  while (jax.step())
    visit({jax.int64(0), jax.int64(1), jax.text(2), jax.text(3), jax.text(4), jax.opt_real(5)});
}

void for_each_jax_cache_miss(Database& db, int64_t run_id,
                             const std::function<void(const JaxCacheMissRow&)>& visit) {
  auto misses = db.prepare(
      "SELECT source_id, line, f.text, cause_class, d.text FROM jax_cache_miss m "
      "LEFT JOIN strings f ON f.string_id = m.function_sid "
      "LEFT JOIN strings d ON d.string_id = m.detail_sid WHERE run_id=? ORDER BY source_id, line");
  misses.bind(1, run_id);
  while (misses.step())
    visit({misses.int64(0), misses.int64(1), misses.text(2), misses.text(3), misses.text(4)});
}

void for_each_saved_graph(Database& db, int64_t run_id,
                          const std::function<void(const SavedGraphRow&)>& visit) {
  auto graphs = db.prepare(
      "SELECT source_id, line, graph_hash FROM saved_graph WHERE run_id=? AND graph_hash IS NOT "
      "NULL "
      "ORDER BY source_id, line");
  graphs.bind(1, run_id);
  while (graphs.step()) visit({graphs.int64(0), graphs.int64(1), graphs.text(2)});
}

void for_each_grab_graphs_frame(Database& db, int64_t run_id,
                                const std::function<void(const GrabGraphsFrameRow&)>& visit) {
  auto groups = db.prepare(
      "SELECT source_id, line, graphs, unique_graphs, coalesce(frames, '') FROM grab_graphs_frame "
      "WHERE run_id=? ORDER BY source_id, line");
  groups.bind(1, run_id);
  while (groups.step())
    visit({groups.int64(0), groups.int64(1), groups.int64(2), groups.int64(3), groups.text(4)});
}

void for_each_hlo_module(Database& db, int64_t run_id,
                         const std::function<void(const HloModuleRow&)>& visit) {
  auto modules = db.prepare(
      "SELECT hlo_module_id, n.text, stage, graph_hash, module_id FROM hlo_module h "
      "JOIN strings n ON n.string_id = h.module_name_sid WHERE run_id=? ORDER BY hlo_module_id");
  modules.bind(1, run_id);
  while (modules.step())
    visit({modules.int64(0), modules.text(1), modules.text(2), modules.text(3),
           modules.opt_int64(4)});
}

void for_each_xla_metric_sample(Database& db, int64_t run_id,
                                const std::function<void(const XlaMetricSampleRow&)>& visit) {
  auto metric_rows = db.prepare(fmt::format(
      "SELECT n.text, source_id, line, step, field, value FROM metric_sample m JOIN strings n ON "
      "n.string_id = m.name_sid WHERE run_id = ? AND n.text IN ('CompileTime', "
      "'aten::_local_scalar_dense', 'UncachedCompile') AND {} ORDER BY source_id, line",
      kMetricFieldsTerm));
  metric_rows.bind(1, run_id);
  while (metric_rows.step())
    visit({metric_rows.text(0), metric_rows.int64(1), metric_rows.int64(2),
           metric_rows.opt_int64(3), metric_rows.text(4), metric_rows.real(5)});
}

std::optional<ProfilerNoteRow> largest_compile_time_note(Database& db, int64_t run_id) {
  auto note = db.prepare(
      "SELECT source_id, line, count FROM xla_profiler_note WHERE run_id = ? AND kind = "
      "'too_frequent' AND metric = 'CompileTime' AND count IS NOT NULL ORDER BY count DESC, "
      "source_id, line LIMIT 1");
  note.bind(1, run_id);
  if (!note.step()) return std::nullopt;
  return ProfilerNoteRow{note.int64(0), note.int64(1), note.int64(2)};
}

void for_each_transfer_note(Database& db, int64_t run_id,
                            const std::function<void(const TransferNoteRow&)>& visit) {
  auto notes = db.prepare(
      "SELECT source_id, line, metric, count, steps FROM xla_profiler_note WHERE run_id = ? AND "
      "kind = "
      "'too_frequent' AND metric IN ('TransferFromDeviceTime', 'TransferFromServerTime') "
      "ORDER BY source_id, line");
  notes.bind(1, run_id);
  while (notes.step())
    visit({notes.int64(0), notes.int64(1), notes.text(2), notes.opt_int64(3), notes.opt_int64(4)});
}

void for_each_value_read_execution(Database& db, int64_t run_id,
                                   const std::function<void(const ValueReadExecutionRow&)>& visit) {
  auto groups = db.prepare(
      "SELECT g.source_id, g.first_line, g.graph_hash, f.text FROM xla_execution_group g "
      "LEFT JOIN strings f ON f.string_id = g.frames_sid WHERE g.run_id = ? AND "
      "g.kind = 'execute' AND g.cause_class = 'tensor_value_access' "
      "ORDER BY g.source_id, g.first_line");
  groups.bind(1, run_id);
  while (groups.step()) visit({groups.int64(0), groups.int64(1), groups.text(2), groups.text(3)});
}

void for_each_step_duration(Database& db, int64_t run_id,
                            const std::function<void(const StepDurationRow&)>& visit) {
  auto step_times = db.prepare(
      "SELECT step, wall_ms, compile_ms FROM step_timing WHERE run_id=? ORDER BY source_id, line");
  step_times.bind(1, run_id);
  while (step_times.step())
    visit({step_times.int64(0), step_times.opt_real(1), step_times.opt_real(2)});
}

void for_each_execute_group(Database& db, int64_t run_id,
                            const std::function<void(const ExecuteGroupRow&)>& visit) {
  auto groups = db.prepare(
      "SELECT group_id, graph_hash, source_id FROM xla_execution_group WHERE run_id = ? AND "
      "kind = 'execute' AND graph_hash IS NOT NULL");
  groups.bind(1, run_id);
  while (groups.step()) visit({groups.int64(0), groups.text(1), groups.int64(2)});
}

void for_each_execution_span(Database& db, int64_t run_id,
                             const std::set<int64_t>& excluded_sources,
                             const std::function<void(const ExecutionSpanRow&)>& visit) {
  auto spans = db.prepare(
      fmt::format("SELECT g.graph_hash, sum(e.executions), count(DISTINCT e.step_ends_before), "
                  "min(e.step_ends_before) + 1, max(e.step_ends_before) + 1 FROM xla_execution e "
                  "JOIN xla_execution_group g ON g.group_id = e.group_id WHERE e.run_id = ? AND "
                  "g.kind = 'execute' AND g.graph_hash IS NOT NULL AND e.source_id NOT IN ({}) "
                  "GROUP BY g.graph_hash",
                  fmt::join(excluded_sources, ",")));
  spans.bind(1, run_id);
  while (spans.step())
    visit({spans.text(0), spans.int64(1), spans.int64(2), spans.int64(3), spans.int64(4)});
}

void for_each_execution_count(Database& db, int64_t run_id,
                              const std::function<void(const ExecutionCountRow&)>& visit) {
  auto counts = db.prepare(
      "SELECT group_id, step_ends_before + 1, executions FROM xla_execution WHERE run_id = ? "
      "ORDER BY rowid");
  counts.bind(1, run_id);
  while (counts.step()) visit({counts.int64(0), counts.int64(1), counts.int64(2)});
}

}  // namespace rcf::store
