#include "store/source_resume.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

namespace rcf::store {
namespace {

std::string end_rows_json(const std::vector<std::pair<std::string, int64_t>>& end_rows) {
  nlohmann::json rows = nlohmann::json::object();
  for (const auto& [table, count] : end_rows) rows[table] = count;
  return rows.dump();
}

// The end rows of a row's JSON; nullopt when it is not an object of table names to counts >= 0.
std::optional<std::vector<std::pair<std::string, int64_t>>> parse_end_rows(std::string_view text) {
  nlohmann::json rows = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!rows.is_object()) return std::nullopt;
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [table, count] : rows.items()) {
    if (!count.is_number_integer() || count.get<int64_t>() < 0) return std::nullopt;
    out.emplace_back(table, count.get<int64_t>());
  }
  return out;
}

// The series columns (from `first`): all NULL, or a series that a read could have left.
std::optional<std::optional<StepMarkerSeries::Row>> series_of(const Statement& st, int first) {
  bool any = false, all = true;
  for (int c = first; c < first + 6; ++c) {
    const bool integer = st.value_type(c) == SQLITE_INTEGER;
    any = any || integer;
    all = all && integer;
  }
  if (!any) return std::optional<StepMarkerSeries::Row>();
  if (!all) return std::nullopt;
  StepMarkerSeries::Row row{st.int64(first),     st.int64(first + 1), st.int64(first + 2),
                            st.int64(first + 3), st.int64(first + 4), st.int64(first + 5)};
  if (row.line < 1 || row.repeats < 1) return std::nullopt;
  return std::optional<StepMarkerSeries::Row>(row);
}

}  // namespace

void write_source_resume(Database& db, int64_t source_id,
                         const std::optional<SourceResume>& point) {
  auto drop = db.prepare("DELETE FROM source_resume WHERE source_id=?");
  drop.bind(1, source_id).run();
  if (!point) return;
  auto insert = db.prepare(
      "INSERT INTO source_resume(source_id, line, bytes, step_pattern, group_base, series_line, "
      "series_step, series_shape_sid, series_repeats, series_line_stride, series_step_stride, "
      "end_rows) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  insert.bind(1, source_id)
      .bind(2, point->line)
      .bind(3, point->bytes)
      .bind(4, point->step_pattern)
      .bind(5, point->group_base);
  if (const auto& s = point->series) {
    insert.bind(6, s->line)
        .bind(7, s->step)
        .bind(8, s->shape_sid)
        .bind(9, s->repeats)
        .bind(10, s->line_stride)
        .bind(11, s->step_stride);
  }
  insert.bind(12, end_rows_json(point->end_rows));
  insert.run();
}

std::optional<SourceResume> read_source_resume(
    Database& db, int64_t source_id, const std::function<bool(const std::string&)>& takes_back) {
  auto st = db.prepare(
      "SELECT r.line, r.bytes, r.step_pattern, r.group_base, r.series_line, r.series_step, "
      "r.series_shape_sid, r.series_repeats, r.series_line_stride, r.series_step_stride, "
      "r.end_rows, s.content_hash, s.format, s.bytes FROM source_resume r JOIN source s USING "
      "(source_id) WHERE source_id=?");
  st.bind(1, source_id);
  if (!st.step()) return std::nullopt;
  SourceResume point;
  point.source_id = source_id;
  point.line = st.int64(0);
  point.bytes = st.int64(1);
  point.step_pattern = st.str(2);
  point.group_base = st.int64(3);
  auto series = series_of(st, 4);
  auto end_rows = parse_end_rows(st.text(10));
  point.content_hash = st.str(11);
  point.format = st.str(12);
  // The read stopped at the end of what the source row counts: a row that says otherwise was
  // not written by a read that went on to the end.
  if (!series || !end_rows || point.line < 1 || point.bytes != st.int64(13) || point.group_base < 1)
    return std::nullopt;
  point.series = *series;
  point.end_rows = std::move(*end_rows);
  for (const auto& [table, rows] : point.end_rows)
    if (!takes_back(table)) return std::nullopt;
  return point;
}

bool take_back_end_rows(Database& db, const SourceResume& point) {
  for (const auto& [table, rows] : point.end_rows) {
    if (rows == 0) continue;
    auto del = db.prepare(fmt::format(
        "DELETE FROM \"{0}\" WHERE rowid IN (SELECT rowid FROM \"{0}\" WHERE source_id=? ORDER BY "
        "rowid DESC LIMIT ?)",
        table));
    del.bind(1, point.source_id).bind(2, rows).run();
    if (sqlite3_changes64(db.handle()) != rows) return false;
  }
  return true;
}

}  // namespace rcf::store
