#include "analysis/xla_run_loader.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "analysis/program_loader.h"

namespace rcf::analysis {
namespace {

std::vector<FrameRecord> parse_frames(std::string_view json_text) {
  std::vector<FrameRecord> frames;
  if (json_text.empty()) return frames;
  auto j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return frames;
  for (const auto& f : j) {
    FrameRecord r;
    r.file = f.value("file", "");
    r.line = f.value("line", int64_t{0});
    r.function = f.value("function", "");
    frames.push_back(std::move(r));
  }
  return frames;
}

// Executions per graph hash with the steps they fall in (step = step-end executions before it in
// its source, plus one), aggregated in SQL: memory follows the number of programs.
void load_execution_spans(store::Database& db, int64_t run_id,
                          std::map<std::string, ExecutionSpan>& out) {
  auto spans = db.prepare(
      "SELECT graph_hash, count(*), count(DISTINCT step), min(step), max(step) FROM (SELECT "
      "graph_hash, kind, sum(is_end) OVER (PARTITION BY source_id ORDER BY line ROWS UNBOUNDED "
      "PRECEDING) - is_end + 1 AS step FROM (SELECT source_id, line, kind, graph_hash, "
      "cause_class IN ('step_end', 'parallel_loader_step_end', 'profiler_step_end') AS is_end "
      "FROM xla_block WHERE run_id = ?)) WHERE kind = 'execute' AND graph_hash IS NOT NULL "
      "GROUP BY graph_hash");
  spans.bind(1, run_id);
  while (spans.step())
    out[spans.str(0)] = {spans.int64(1), spans.int64(2), spans.int64(3), spans.int64(4)};
}

}  // namespace

XlaRunInputs load_xla_run(store::Database& db, int64_t run_id,
                          const std::vector<std::pair<int64_t, std::string>>& source_names) {
  XlaRunInputs in;
  in.source_names = source_names;
  // Steps (precedence in analysis/xla_compiles.h). Executions can number millions in a level-2
  // log: they are counted here in SQL, and only compile blocks are loaded.
  constexpr const char* kStepEnd =
      "cause_class IN ('step_end', 'parallel_loader_step_end', 'profiler_step_end')";
  // One pass over the run's blocks and markers in line order per source: running counts give
  // each compile the markers and step-end executions before it (no per-row subqueries).
  auto blocks = db.prepare(fmt::format(
      "WITH ev AS (SELECT source_id, line, kind, cause_sid, cause_class, graph_name_sid, "
      "graph_hash, inputs, outputs, frames_sid, 0 AS is_marker, "
      "(kind = 'execute' AND {0}) AS is_end FROM xla_block WHERE run_id = ?1 "
      "UNION ALL SELECT source_id, line, 'marker', NULL, '', NULL, NULL, NULL, NULL, NULL, 1, 0 "
      "FROM step_marker WHERE run_id = ?1 AND origin = 'steplog'), "
      "w AS (SELECT *, sum(is_marker) OVER run AS markers_before, "
      "sum(is_end) OVER run - is_end AS ends_before, "
      "sum(is_marker) OVER whole AS markers, max(kind = 'execute') OVER whole AS has_exec "
      "FROM ev WINDOW run AS (PARTITION BY source_id ORDER BY line, is_marker DESC ROWS "
      "UNBOUNDED PRECEDING), whole AS (PARTITION BY source_id)) "
      "SELECT w.source_id, w.line, c.text, w.cause_class, n.text, w.graph_hash, w.inputs, "
      "w.outputs, f.text, w.markers_before, w.markers, w.has_exec, w.ends_before, "
      "w.cause_class IN ('step_end', 'parallel_loader_step_end', 'profiler_step_end') "
      "FROM w LEFT JOIN strings c ON c.string_id = w.cause_sid "
      "LEFT JOIN strings n ON n.string_id = w.graph_name_sid "
      "LEFT JOIN strings f ON f.string_id = w.frames_sid "
      "WHERE w.kind = 'compile' ORDER BY w.source_id, w.line",
      kStepEnd));
  blocks.bind(1, run_id);
  while (blocks.step()) {
    XlaBlockRecord r;
    r.source_id = blocks.int64(0);
    r.line = blocks.int64(1);
    r.kind = "compile";
    r.cause = blocks.str(2);
    r.cause_class = blocks.str(3);
    r.graph_name = blocks.str(4);
    r.graph_hash = blocks.str(5);
    r.inputs = blocks.opt_int64(6);
    r.outputs = blocks.opt_int64(7);
    r.frames = parse_frames(blocks.text(8));
    int64_t markers_before = blocks.int64(9), markers = blocks.int64(10);
    bool has_exec = blocks.int64(11) != 0, step_end = blocks.int64(13) != 0;
    if (markers > 0)  // a marker opens the sync of step N; its step-end graph belongs to N
      r.step = step_end && markers_before >= 1 ? markers_before : markers_before + 1;
    else if (has_exec)
      r.step = blocks.int64(12) + 1;
    in.blocks.push_back(std::move(r));
  }
  auto steps_seen = db.prepare(fmt::format(
      "SELECT max(n) FROM (SELECT count(*) AS n FROM step_marker WHERE run_id = ?1 AND "
      "origin = 'steplog' GROUP BY source_id UNION ALL SELECT count(*) FROM xla_block WHERE "
      "run_id = ?1 AND kind = 'execute' AND {} GROUP BY source_id)",
      kStepEnd));
  steps_seen.bind(1, run_id);
  if (steps_seen.step()) in.steps_seen = steps_seen.opt_int64(0).value_or(0);
  auto jax = db.prepare(
      "SELECT source_id, line, f.text, phase, s.text, seconds FROM jax_compile j "
      "JOIN strings f ON f.string_id = j.function_sid "
      "LEFT JOIN strings s ON s.string_id = j.signature_sid WHERE run_id=? ORDER BY source_id, "
      "line");
  jax.bind(1, run_id);
  while (jax.step())
    in.jax_compiles.push_back(
        {jax.int64(0), jax.int64(1), jax.str(2), jax.str(3), jax.str(4), jax.opt_real(5)});
  auto misses = db.prepare(
      "SELECT source_id, line, f.text, cause_class, d.text FROM jax_cache_miss m "
      "LEFT JOIN strings f ON f.string_id = m.function_sid "
      "LEFT JOIN strings d ON d.string_id = m.detail_sid WHERE run_id=? ORDER BY source_id, line");
  misses.bind(1, run_id);
  while (misses.step())
    in.jax_misses.push_back(
        {misses.int64(0), misses.int64(1), misses.str(2), misses.str(3), misses.str(4)});
  auto graphs = db.prepare(
      "SELECT source_id, line, graph_hash FROM saved_graph WHERE run_id=? AND graph_hash IS NOT "
      "NULL "
      "ORDER BY source_id, line");
  graphs.bind(1, run_id);
  while (graphs.step())
    in.saved_graphs.push_back({graphs.int64(0), graphs.int64(1), graphs.str(2)});
  auto modules = db.prepare(
      "SELECT hlo_module_id, n.text, stage, graph_hash, module_id FROM hlo_module h "
      "JOIN strings n ON n.string_id = h.module_name_sid WHERE run_id=? ORDER BY hlo_module_id");
  modules.bind(1, run_id);
  while (modules.step())
    in.hlo_modules.push_back(
        {modules.int64(0), modules.str(1), modules.str(2), modules.str(3), modules.opt_int64(4)});
  auto compile_time = db.prepare(
      "SELECT step, field, value FROM metric_sample m JOIN strings n ON n.string_id = m.name_sid "
      "WHERE run_id=? AND n.text='CompileTime' AND field IN ('TotalSamples', 'Accumulator') AND "
      "step IS NOT NULL ORDER BY source_id, line");
  compile_time.bind(1, run_id);
  while (compile_time.step()) {
    int64_t step = compile_time.int64(0);
    if (compile_time.text(1) == "TotalSamples")
      in.compile_time_steps.push_back({step, compile_time.real(2), std::nullopt});
    else if (!in.compile_time_steps.empty() && in.compile_time_steps.back().step == step)
      in.compile_time_steps.back().accumulator_ns = compile_time.real(2);
  }
  auto step_times = db.prepare(
      "SELECT step, wall_ms, compile_ms FROM step_timing WHERE run_id=? ORDER BY source_id, line");
  step_times.bind(1, run_id);
  while (step_times.step())
    in.step_times.push_back(
        {step_times.int64(0), step_times.opt_real(1), step_times.opt_real(2)});
  in.hlo_programs = load_hlo_programs(db, run_id);
  load_execution_spans(db, run_id, in.executions_by_hash);
  return in;
}

}  // namespace rcf::analysis
