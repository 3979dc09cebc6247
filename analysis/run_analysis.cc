#include "analysis/run_analysis.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "analysis/dynamo_attribution.h"
#include "analysis/xla_compiles.h"
#include "store/string_interner.h"

namespace rcf::analysis {
namespace {

// Columns shared by every raw table: rank, epoch, frame_id, frame_compile_id, ca_id, source_id.
constexpr const char* kKeyColumns = "source_id, rank, epoch, ca_id, frame_id, frame_compile_id";

DynamoKey read_key(const store::Statement& st, int first, int64_t line) {
  DynamoKey k;
  k.source_id = st.int64(first);
  k.rank = st.int64(first + 1);
  k.epoch = st.int64(first + 2);
  k.ca_id = st.int64(first + 3);
  k.frame_id = st.int64(first + 4);
  k.frame_compile_id = st.int64(first + 5);
  if (k.frame_id < 0 && k.ca_id < 0) k.line_if_no_id = line;
  return k;
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

RunInputs load_run(store::Database& db, int64_t run_id) {
  RunInputs in;
  std::map<int64_t, std::optional<int64_t>> file_rank;
  auto sources = db.prepare("SELECT source_id, path, file_rank FROM source WHERE run_id=?");
  sources.bind(1, run_id);
  while (sources.step()) {
    in.source_names.emplace_back(sources.int64(0), base_name(sources.str(1)));
    file_rank[sources.int64(0)] = sources.opt_int64(2);
  }

  // Compiles known only by reference are listed once per block that names them: fold them per
  // compile in SQL so that memory follows the number of compiles, not of log lines.
  auto compiles =
      db.prepare(std::string("SELECT ") + kKeyColumns +
                 ", line, attempt, kind, n.text, f.text, co_firstlineno, start_us, "
                 "duration_ms, cache_size, accumulated_cache_size, has_guarded_code, "
                 "ft.text, fr.text, rr.text "
                 "FROM (SELECT * FROM dynamo_compile_raw WHERE run_id=?1 AND kind NOT IN "
                 "('referenced', 'runtime', 'backward') "
                 "UNION ALL SELECT * FROM dynamo_compile_raw WHERE raw_id IN "
                 "(SELECT min(raw_id) FROM dynamo_compile_raw WHERE run_id=?1 AND "
                 "kind='referenced' GROUP BY " +
                 kKeyColumns +
                 ")) c "
                 "LEFT JOIN strings n ON n.string_id = c.co_name_sid "
                 "LEFT JOIN strings f ON f.string_id = c.co_filename_sid "
                 "LEFT JOIN strings ft ON ft.string_id = c.fail_type_sid "
                 "LEFT JOIN strings fr ON fr.string_id = c.fail_reason_sid "
                 "LEFT JOIN strings rr ON rr.string_id = c.recompile_reason_sid "
                 "ORDER BY raw_id");
  compiles.bind(1, run_id);
  while (compiles.step()) {
    CompileRecord r;
    r.line = compiles.int64(6);
    r.key = read_key(compiles, 0, r.line);
    r.attempt = compiles.int64(7);
    r.kind = compiles.str(8);
    r.co_name = compiles.str(9);
    r.co_filename = compiles.str(10);
    r.co_firstlineno = compiles.opt_int64(11);
    r.start_us = compiles.opt_int64(12);
    r.duration_ms = compiles.opt_real(13);
    r.cache_size = compiles.opt_int64(14);
    r.accumulated_cache_size = compiles.opt_int64(15);
    r.has_guarded_code = compiles.opt_int64(16);
    r.fail_type = compiles.str(17);
    r.fail_reason = compiles.str(18);
    r.recompile_reason = compiles.str(19);
    r.display_rank = r.key.rank >= 0 ? r.key.rank : file_rank[r.key.source_id].value_or(-1);
    in.compiles.push_back(std::move(r));
  }

  auto reasons =
      db.prepare(std::string("SELECT ") + kKeyColumns +
                 ", line, entry_index, old_compile_id, reason_sid, origin "
                 "FROM guard_failure g WHERE run_id=? ORDER BY source_id, line, entry_index");
  auto text = db.prepare("SELECT text FROM strings WHERE string_id=?");
  reasons.bind(1, run_id);
  while (reasons.step()) {
    ReasonRecord r;
    r.line = reasons.int64(6);
    r.key = read_key(reasons, 0, r.line);
    r.key.line_if_no_id = 0;  // resolved by attribute_dynamo_run
    r.entry_index = reasons.int64(7);
    r.old_compile_id = reasons.str(8);
    int64_t sid = reasons.int64(9);
    auto it = in.texts.find(sid);
    if (it == in.texts.end()) {
      text.bind(1, sid);
      it = in.texts.emplace(sid, text.step() ? text.str(0) : std::string()).first;
      text.reset();
    }
    r.reason = it->second;
    r.origin = reasons.str(10);
    in.reasons.push_back(std::move(r));
  }

  auto breaks = db.prepare(std::string("SELECT ") + kKeyColumns +
                           ", line, f.text, fn.text, gt.text, rs.text, user_line, sync_signature, "
                           "origin FROM graph_break g "
                           "LEFT JOIN strings f ON f.string_id = g.user_file_sid "
                           "LEFT JOIN strings fn ON fn.string_id = g.user_function_sid "
                           "LEFT JOIN strings gt ON gt.string_id = g.gb_type_sid "
                           "LEFT JOIN strings rs ON rs.string_id = g.reason_sid "
                           "WHERE run_id=? ORDER BY source_id, line");
  breaks.bind(1, run_id);
  while (breaks.step()) {
    BreakRecord b;
    b.line = breaks.int64(6);
    b.key = read_key(breaks, 0, 0);
    b.user_file = breaks.str(7);
    b.user_function = breaks.str(8);
    b.gb_type = breaks.str(9);
    b.reason = breaks.str(10);
    b.user_line = breaks.opt_int64(11).value_or(-1);
    b.sync_signature = breaks.int64(12) != 0;
    b.origin = breaks.str(13);
    in.breaks.push_back(std::move(b));
  }

  auto caches = db.prepare(std::string("SELECT ") + kKeyColumns +
                           ", cache, state FROM cache_outcome WHERE run_id=?");
  caches.bind(1, run_id);
  while (caches.step()) {
    CacheRecord c;
    c.key = read_key(caches, 0, 0);
    c.cache = caches.str(6);
    c.state = caches.str(7);
    in.caches.push_back(std::move(c));
  }
  return in;
}

void write_run(store::Database& db, store::StringInterner& strings, int64_t run_id,
               const std::vector<AttributedCompile>& compiles,
               const std::vector<ConvergencePoint>& convergence) {
  auto insert_compile = db.prepare(
      "INSERT INTO compile_event(run_id, ordinal, step, site_sid, program_key_sid, kind, "
      "cause_reported_sid, compile_ms, cache, rank, epoch, frame_id, frame_compile_id, attempt, "
      "ca_id, source_id, line, evidence, hlo_module_id, saved_graph_source_id, saved_graph_line) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  auto insert_attr = db.prepare(
      "INSERT INTO attribution(compile_row, cause, prev_program_key_sid, detail_sid, confidence, "
      "evidence_sid, subject_sid, reason_sid, other_reasons) VALUES (?,?,?,?,?,?,?,?,?)");
  for (const auto& c : compiles) {
    insert_compile.bind(1, run_id)
        .bind(2, c.ordinal)
        .bind(3, c.step)
        .bind(4, strings.id(c.site))
        .bind(5, strings.id(c.program_key))
        .bind(6, c.kind)
        .bind(7, strings.id_or_null(c.cause_reported))
        .bind(8, c.compile_ms);
    if (c.cache.empty())
      insert_compile.bind_null(9);
    else
      insert_compile.bind(9, c.cache);
    insert_compile.bind(10, c.key.rank)
        .bind(11, c.key.epoch)
        .bind(12, c.key.frame_id)
        .bind(13, c.key.frame_compile_id)
        .bind(14, c.attempt)
        .bind(15, c.key.ca_id)
        .bind(16, c.key.source_id)
        .bind(17, c.line)
        .bind(18, c.evidence_kind)
        .bind(19, c.hlo_module_id)
        .bind(20, c.saved_graph_source_id)
        .bind(21, c.saved_graph_line);
    insert_compile.run();
    int64_t row = db.last_insert_rowid();
    insert_attr.bind(1, row)
        .bind(2, c.cause)
        .bind(3, strings.id_or_null(c.prev_program_key))
        .bind(4, strings.id_or_null(c.detail))
        .bind(5, c.confidence)
        .bind(6, strings.id_or_null(c.evidence))
        .bind(7, strings.id_or_null(c.subject))
        .bind(8, strings.id_or_null(c.primary_reason))
        .bind(9, c.other_reasons);
    insert_attr.run();
  }
  auto insert_point = db.prepare(
      "INSERT INTO convergence_point(run_id, step, programs_cached, compiles_in_step) "
      "VALUES (?,?,?,?)");
  for (const auto& p : convergence) {
    insert_point.bind(1, run_id)
        .bind(2, p.step)
        .bind(3, p.programs_cached)
        .bind(4, p.compiles_in_step);
    insert_point.run();
  }
}

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
      "SELECT step, value FROM metric_sample m JOIN strings n ON n.string_id = m.name_sid "
      "WHERE run_id=? AND n.text='CompileTime' AND field='TotalSamples' AND step IS NOT NULL "
      "ORDER BY source_id, line");
  compile_time.bind(1, run_id);
  while (compile_time.step())
    in.compile_time_steps.push_back({compile_time.int64(0), compile_time.real(1)});
  return in;
}

}  // namespace

void analyze_runs(store::Database& db, const std::vector<int64_t>& run_ids) {
  store::StringInterner strings(db);
  for (int64_t run_id : run_ids) {
    for (const char* sql :
         {"DELETE FROM attribution WHERE compile_row IN (SELECT compile_row FROM compile_event "
          "WHERE run_id=?)",
          "DELETE FROM compile_event WHERE run_id=?",
          "DELETE FROM convergence_point WHERE run_id=?"}) {
      auto st = db.prepare(sql);
      st.bind(1, run_id);
      st.run();
    }
    RunInputs dynamo = load_run(db, run_id);
    std::vector<AttributedCompile> compiles = attribute_dynamo_run(dynamo);
    XlaRunResult xla = analyze_xla_run(load_xla_run(db, run_id, dynamo.source_names),
                                       static_cast<int64_t>(compiles.size()) + 1);
    compiles.insert(compiles.end(), std::make_move_iterator(xla.compiles.begin()),
                    std::make_move_iterator(xla.compiles.end()));
    write_run(db, strings, run_id, compiles, xla.convergence);
  }
}

}  // namespace rcf::analysis
