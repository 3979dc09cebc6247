#include "store/step_row_reader.h"

#include <fmt/format.h>

#include <algorithm>

namespace rcf::store {
namespace {

void keep_first_line(std::optional<int64_t>& first, std::optional<int64_t> line) {
  if (line) first = first ? std::min(*first, *line) : *line;
}

// The min(line) that `sql` gives for one source (?1 the run, ?2 the source), nullopt for none.
std::optional<int64_t> first_line_in(Database& db, int64_t run_id, int64_t source_id,
                                     std::string_view sql) {
  auto rows = db.prepare(sql);
  rows.bind(1, run_id).bind(2, source_id);
  if (rows.step()) return rows.opt_int64(0);
  return std::nullopt;
}

}  // namespace

std::map<int64_t, int64_t> first_xla_and_jax_compile_lines(Database& db, int64_t run_id) {
  std::map<int64_t, int64_t> out;
  for (const char* sql :
       {"SELECT source_id, min(line) FROM xla_block WHERE run_id = ? AND kind = 'compile' "
        "GROUP BY source_id",
        "SELECT source_id, min(line) FROM jax_compile WHERE run_id = ? GROUP BY source_id"}) {
    auto rows = db.prepare(sql);
    rows.bind(1, run_id);
    while (rows.step()) {
      auto [it, fresh] = out.emplace(rows.int64(0), rows.int64(1));
      if (!fresh) it->second = std::min(it->second, rows.int64(1));
    }
  }
  return out;
}

DynamoRecordLines dynamo_record_lines(Database& db, int64_t run_id, int64_t source_id) {
  DynamoRecordLines out;
  for (std::string_view table : {"dynamo_compile_raw", "graph_break"}) {
    const std::string any =
        fmt::format("SELECT min(line) FROM {} WHERE run_id = ? AND source_id = ?", table);
    const std::string first_compile = fmt::format(
        "SELECT min(line) FROM {} WHERE run_id = ? AND source_id = ? AND ((epoch = 0 AND "
        "frame_id = 0 AND frame_compile_id = 0) OR frame_id < 0){}",
        table, table == "graph_break" ? "" : " AND kind != 'referenced'");
    keep_first_line(out.first_record, first_line_in(db, run_id, source_id, any));
    keep_first_line(out.first_compile_record, first_line_in(db, run_id, source_id, first_compile));
  }
  return out;
}

bool has_metrics_file_markers(Database& db, int64_t run_id) {
  auto metrics =
      db.prepare("SELECT 1 FROM step_marker WHERE run_id = ? AND origin = 'metrics_file' LIMIT 1");
  metrics.bind(1, run_id);
  return metrics.step();
}

std::optional<int64_t> most_common_clock_offset(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT clock_offset_s FROM dynamo_compile_raw WHERE run_id = ? AND clock_offset_s IS NOT "
      "NULL GROUP BY clock_offset_s ORDER BY count(*) DESC, clock_offset_s LIMIT 1");
  st.bind(1, run_id);
  if (st.step()) return st.int64(0);
  return std::nullopt;
}

std::map<int64_t, std::string> step_line_shape_names(Database& db,
                                                     const std::set<int64_t>& shape_sids) {
  std::map<int64_t, std::string> out;
  auto name = db.prepare("SELECT text FROM strings WHERE string_id = ?");
  for (int64_t sid : shape_sids) {
    name.bind(1, sid);
    if (name.step()) out.emplace(sid, name.str(0));
    name.reset();
  }
  return out;
}

namespace {

constexpr const char* kStepLineColumns =
    "SELECT source_id, line, step, shape_sid, time_s, time_zoned, time_on_arrival, repeats, "
    "line_stride, step_stride, rowid FROM step_marker ";

StepLineMarkerRow step_line_of(Statement& rows) {
  return {rows.int64(0),    rows.int64(1),      rows.int64(2),      rows.opt_int64(3),
          rows.opt_real(4), rows.int64(5) != 0, rows.int64(6) != 0, rows.int64(7),
          rows.int64(8),    rows.int64(9)};
}

}  // namespace

void for_each_step_line_marker(Database& db, int64_t run_id,
                               const std::function<void(const StepLineMarkerRow&)>& visit) {
  auto rows = db.prepare(std::string(kStepLineColumns) +
                         "WHERE run_id = ? AND origin = 'step_line' AND step IS NOT NULL");
  rows.bind(1, run_id);
  while (rows.step()) visit(step_line_of(rows));
}

void for_each_untimed_step_line_marker(Database& db, int64_t run_id,
                                       const std::function<void(const StepLineMarkerRow&)>& visit) {
  auto rows = db.prepare(std::string(kStepLineColumns) +
                         "WHERE run_id = ? AND origin = 'step_line' AND time_s IS NULL AND step IS "
                         "NOT NULL");
  rows.bind(1, run_id);
  while (rows.step()) visit(step_line_of(rows));
}

int64_t read_timed_step_lines_after(Database& db, int64_t run_id, int64_t after,
                                    const std::function<void(const StepLineMarkerRow&)>& visit) {
  // NOT INDEXED: the rowid range, not the run's index (which would visit every row of the run).
  auto rows = db.prepare(std::string(kStepLineColumns) +
                         "NOT INDEXED WHERE rowid > ? AND run_id = ? AND origin = 'step_line' AND "
                         "time_s IS NOT NULL AND step IS NOT NULL ORDER BY rowid");
  rows.bind(1, after).bind(2, run_id);
  int64_t last = after;
  while (rows.step()) {
    visit(step_line_of(rows));
    last = rows.int64(10);
  }
  return last;
}

int64_t last_step_marker_rowid(Database& db) {
  auto last = db.prepare("SELECT coalesce(max(rowid), 0) FROM step_marker");
  return last.step() ? last.int64(0) : 0;
}

void for_each_step_timing(Database& db, int64_t run_id,
                          const std::function<void(const StepTimingRow&)>& visit) {
  auto rows =
      db.prepare("SELECT source_id, line, step, timestamp_s FROM step_timing WHERE run_id = ?");
  rows.bind(1, run_id);
  while (rows.step()) visit({rows.int64(0), rows.int64(1), rows.int64(2), rows.opt_real(3)});
}

void for_each_steplog_marker(Database& db, int64_t run_id,
                             const std::function<void(int64_t source_id, int64_t line)>& visit) {
  auto markers =
      db.prepare("SELECT source_id, line FROM step_marker WHERE run_id = ? AND origin = 'steplog'");
  markers.bind(1, run_id);
  while (markers.step()) visit(markers.int64(0), markers.int64(1));
}

std::vector<CompileLineRow> compile_lines(Database& db, int64_t run_id) {
  auto rows = db.prepare(
      "SELECT m.source_id, m.line, s.text FROM step_marker m JOIN strings s "
      "ON s.string_id = m.shape_sid WHERE m.run_id = ? AND m.origin = 'compile_line' "
      "ORDER BY m.source_id, m.line");
  rows.bind(1, run_id);
  std::vector<CompileLineRow> out;
  while (rows.step()) out.push_back({rows.int64(0), rows.int64(1), rows.str(2)});
  return out;
}

std::optional<int64_t> dynamo_compile_start_us(Database& db, int64_t run_id, int64_t source_id,
                                               int64_t frame_id, int64_t frame_compile_id) {
  auto st = db.prepare(
      "SELECT min(start_us), count(DISTINCT epoch) FROM dynamo_compile_raw WHERE run_id = ? AND "
      "source_id = ? AND frame_id = ? AND frame_compile_id = ? AND start_us IS NOT NULL");
  st.bind(1, run_id);
  st.bind(2, source_id);
  st.bind(3, frame_id);
  st.bind(4, frame_compile_id);
  if (st.step() && st.int64(1) == 1) return st.int64(0);
  return std::nullopt;
}

std::map<int64_t, int64_t> first_dynamo_compile_starts(Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT source_id, min(start_us) FROM dynamo_compile_raw WHERE run_id = ? AND start_us IS "
      "NOT NULL GROUP BY source_id");
  st.bind(1, run_id);
  std::map<int64_t, int64_t> out;
  while (st.step()) out.emplace(st.int64(0), st.int64(1));
  return out;
}

void for_each_step_end_execution(Database& db, int64_t run_id,
                                 const std::function<void(const StepEndExecutionRow&)>& visit) {
  auto ends = db.prepare(
      "SELECT e.source_id, e.first_line, e.last_line, e.executions, g.frames_sid, f.text "
      "FROM xla_execution e JOIN xla_execution_group g ON g.group_id = e.group_id "
      "LEFT JOIN strings f ON f.string_id = g.frames_sid "
      "WHERE e.run_id = ? AND g.kind = 'execute' AND g.cause_class IN "
      "('step_end', 'parallel_loader_step_end', 'profiler_step_end')");
  ends.bind(1, run_id);
  while (ends.step())
    visit({ends.int64(0), ends.int64(1), ends.int64(2), ends.int64(3), ends.opt_int64(4),
           ends.text(5)});
}

}  // namespace rcf::store
