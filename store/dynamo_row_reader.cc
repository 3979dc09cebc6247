#include "store/dynamo_row_reader.h"

#include <fmt/format.h>

namespace rcf::store {
namespace {

// Columns shared by every raw table: rank, epoch, frame_id, frame_compile_id, ca_id, source_id.
constexpr const char* kDynamoKeyColumns =
    "source_id, rank, epoch, ca_id, frame_id, frame_compile_id";

// The columns of a compile row after the key, up to the WHERE clause's condition.
constexpr const char* kDynamoCompileColumns =
    ", line, attempt, kind, co_name_sid, co_filename_sid, co_firstlineno, start_us, "
    "duration_ms, cache_size, accumulated_cache_size, has_guarded_code, fail_type_sid, "
    "recompile_reason_sid FROM dynamo_compile_raw WHERE ";

DynamoRowReader::Key dynamo_raw_key_at(const Statement& st, int first) {
  DynamoRowReader::Key k;
  k.source_id = st.int64(first);
  k.rank = st.int64(first + 1);
  k.epoch = st.int64(first + 2);
  k.ca_id = st.int64(first + 3);
  k.frame_id = st.int64(first + 4);
  k.frame_compile_id = st.int64(first + 5);
  return k;
}

// Fills `r` from a row of kDynamoKeyColumns + kDynamoCompileColumns (one reused row: nothing
// allocated).
void read_compile_row(const Statement& st, DynamoRowReader::CompileRow& r) {
  r.key = dynamo_raw_key_at(st, 0);
  r.line = st.int64(6);
  r.attempt = st.int64(7);
  r.kind = st.text(8);
  r.co_name_sid = st.opt_int64(9);
  r.co_filename_sid = st.opt_int64(10);
  r.co_firstlineno = st.opt_int64(11);
  r.start_us = st.opt_int64(12);
  r.duration_ms = st.opt_real(13);
  r.cache_size = st.opt_int64(14);
  r.accumulated_cache_size = st.opt_int64(15);
  r.has_guarded_code = st.opt_int64(16);
  r.fail_type_sid = st.opt_int64(17);
  r.recompile_reason_sid = st.opt_int64(18);
}

}  // namespace

bool only_run_in_store(Database& db, int64_t run_id) {
  auto runs = db.prepare("SELECT count(*), min(run_id) FROM run_table");
  return runs.step() && runs.int64(0) == 1 && runs.int64(1) == run_id;
}

DynamoRowReader::DynamoRowReader(Database& db, int64_t run_id, bool only_run, const RowMarks* after)
    : db_(db),
      run_id_(run_id),
      compile_rows_(rows_of("dynamo_compile_raw", only_run, after ? &after->compile : nullptr)),
      guard_failure_rows_(
          rows_of("guard_failure", only_run, after ? &after->guard_failure : nullptr)),
      graph_break_rows_(rows_of("graph_break", only_run, after ? &after->graph_break : nullptr)),
      cache_outcome_rows_(
          rows_of("cache_outcome", only_run, after ? &after->cache_outcome : nullptr)),
      marks_{compile_rows_.last, guard_failure_rows_.last, graph_break_rows_.last,
             cache_outcome_rows_.last},
      string_text_(db.prepare("SELECT text FROM strings WHERE string_id=?")) {}

// `where` is the WHERE clause, `rows` at least the run's row count.
DynamoRowReader::RowRange DynamoRowReader::run_rows(const char* table, bool only_run) {
  if (only_run) {
    auto range = db_.prepare(
        fmt::format("SELECT (SELECT min(rowid) FROM {0}), (SELECT max(rowid) FROM {0})", table));
    if (!range.step() || !range.opt_int64(0)) return {"0", 0, 0};
    int64_t first = range.int64(0), last = range.int64(1);
    return {fmt::format("rowid BETWEEN {} AND {}", first, last),
            static_cast<size_t>(last - first + 1), last};
  }
  auto range = db_.prepare(
      fmt::format("SELECT min(rowid), max(rowid), count(*) FROM {} WHERE run_id=?", table));
  range.bind(1, run_id_);
  if (!range.step() || !range.opt_int64(0)) return {"0", 0, 0};
  int64_t first = range.int64(0), last = range.int64(1), rows = range.int64(2);
  if (rows * 2 < last - first + 1)
    return {fmt::format("run_id = {} AND rowid <= {}", run_id_, last), static_cast<size_t>(rows),
            last};
  return {fmt::format("rowid BETWEEN {} AND {} AND +run_id = {}", first, last, run_id_),
          static_cast<size_t>(rows), last};
}

// The rows written after an earlier reader's marks are the tables' last: a scan of the rowids
// above the mark, not of the run's index.
DynamoRowReader::RowRange DynamoRowReader::run_rows_after(const char* table, bool only_run,
                                                          int64_t after) {
  auto range =
      db_.prepare(only_run ? fmt::format("SELECT max(rowid) FROM {}", table)
                           : fmt::format("SELECT max(rowid) FROM {} WHERE run_id=?", table));
  if (!only_run) range.bind(1, run_id_);
  if (!range.step() || !range.opt_int64(0) || range.int64(0) <= after) return {"0", 0, after};
  const int64_t last = range.int64(0);
  return {fmt::format("rowid BETWEEN {} AND {} AND +run_id = {}", after + 1, last, run_id_), 0,
          last};
}

std::vector<DynamoRowReader::SourceRow> DynamoRowReader::sources() {
  std::vector<SourceRow> out;
  auto sources = db_.prepare("SELECT source_id, path, file_rank FROM source WHERE run_id=?");
  sources.bind(1, run_id_);
  while (sources.step()) out.push_back({sources.int64(0), sources.str(1), sources.opt_int64(2)});
  return out;
}

void DynamoRowReader::each_own_compile(const std::function<void(const CompileRow&)>& visit) {
  auto own =
      db_.prepare(std::string("SELECT ") + kDynamoKeyColumns + kDynamoCompileColumns +
                  compile_rows_.where + " AND kind NOT IN ('runtime', 'backward', 'referenced')");
  CompileRow row;
  while (own.step()) {
    read_compile_row(own, row);
    visit(row);
  }
}

void DynamoRowReader::each_referenced_compile(
    const std::function<bool(const Key& key, int64_t line)>& wanted,
    const std::function<void(const CompileRow&)>& visit) {
  auto refs = db_.prepare(std::string("SELECT ") + kDynamoKeyColumns + kDynamoCompileColumns +
                          compile_rows_.where + " AND kind = 'referenced' ORDER BY raw_id");
  CompileRow row;
  while (refs.step()) {
    if (!wanted(dynamo_raw_key_at(refs, 0), refs.int64(6))) continue;
    read_compile_row(refs, row);
    visit(row);
  }
}

void DynamoRowReader::each_guard_failure(const std::function<void(const GuardFailureRow&)>& visit) {
  auto reasons = db_.prepare(std::string("SELECT ") + kDynamoKeyColumns +
                             ", line, entry_index, old_compile_id, reason_sid, origin "
                             "FROM guard_failure WHERE " +
                             guard_failure_rows_.where);
  GuardFailureRow row;
  while (reasons.step()) {
    row.key = dynamo_raw_key_at(reasons, 0);
    row.line = reasons.int64(6);
    row.entry_index = reasons.int64(7);
    row.old_compile_id = reasons.text(8);
    row.reason_sid = reasons.int64(9);
    row.origin = reasons.text(10);
    visit(row);
  }
}

void DynamoRowReader::each_graph_break(const std::function<void(const GraphBreakRow&)>& visit) {
  auto breaks =
      db_.prepare(std::string("SELECT ") + kDynamoKeyColumns +
                  ", line, user_file_sid, user_function_sid, gb_type_sid, reason_sid, "
                  "user_line, sync_signature, origin, user_stack FROM graph_break WHERE " +
                  graph_break_rows_.where);
  GraphBreakRow row;
  while (breaks.step()) {
    row.key = dynamo_raw_key_at(breaks, 0);
    row.line = breaks.int64(6);
    row.user_file_sid = breaks.opt_int64(7);
    row.user_function_sid = breaks.opt_int64(8);
    row.gb_type_sid = breaks.opt_int64(9);
    row.reason_sid = breaks.opt_int64(10);
    row.user_line = breaks.opt_int64(11);
    row.sync_signature = breaks.int64(12) != 0;
    row.origin = breaks.text(13);
    row.user_stack = breaks.is_null(14) ? std::nullopt : std::optional(breaks.text(14));
    visit(row);
  }
}

void DynamoRowReader::each_cache_outcome(const std::function<void(const CacheOutcomeRow&)>& visit) {
  auto caches = db_.prepare(std::string("SELECT ") + kDynamoKeyColumns +
                            ", cache, state FROM cache_outcome WHERE " + cache_outcome_rows_.where);
  CacheOutcomeRow row;
  while (caches.step()) {
    row.key = dynamo_raw_key_at(caches, 0);
    row.cache = caches.text(6);
    row.state = caches.text(7);
    visit(row);
  }
}

std::optional<int64_t> DynamoRowReader::max_string_id() {
  auto max_id = db_.prepare("SELECT max(string_id) FROM strings");
  return max_id.step() ? max_id.opt_int64(0) : std::nullopt;
}

void DynamoRowReader::each_string(
    const std::function<void(int64_t string_id, std::string_view text)>& visit) {
  auto every = db_.prepare("SELECT string_id, text FROM strings");
  while (every.step()) visit(every.int64(0), every.text(1));
}

std::string_view DynamoRowReader::string_text(int64_t string_id) {
  // Reset here, not after the step: the view returned last time is into this statement's row.
  string_text_.reset();
  string_text_.bind(1, string_id);
  return string_text_.step() ? string_text_.text(0) : std::string_view();
}

void DynamoRowReader::each_keyed_line(
    Database& db, int64_t run_id, int64_t source_id, KeyedLines which,
    const std::function<void(const Key& key, int64_t line)>& visit) {
  const char* rows = which == KeyedLines::kGraphBreaks ? "graph_break WHERE"
                     : which == KeyedLines::kOwnCompiles
                         ? "dynamo_compile_raw WHERE kind <> 'referenced' AND"
                         : "dynamo_compile_raw WHERE kind = 'referenced' AND";
  auto st = db.prepare(
      fmt::format("SELECT {}, line FROM {} run_id = ? AND source_id = ?", kDynamoKeyColumns, rows));
  st.bind(1, run_id).bind(2, source_id);
  while (st.step()) visit(dynamo_raw_key_at(st, 0), st.int64(6));
}

}  // namespace rcf::store
