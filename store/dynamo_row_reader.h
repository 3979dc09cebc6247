// The raw Dynamo rows of one run (dynamo_compile_raw, guard_failure, graph_break, cache_outcome,
// source) and the texts they name by string id, read for the analysis of the run
// (analysis/dynamo_run_loader.cc) as typed rows handed to a callback one at a time: a run may hold
// a million compiles, and the analysis turns each row into its own record as it is read instead of
// the rows being held. The scans read in row order (no sort, no join) and allocate nothing a row.
//
// A row handed to a callback, and every text view in it, is valid only during that callback: the
// views are into SQLite's buffers of the row being stepped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace rcf::store {

// Whether `run_id` is the store's only run: then every row of every table is its own.
bool only_run_in_store(Database& db, int64_t run_id);

// Reads the Dynamo rows of one run. The rows of a run are written together, so they are read as
// a range scan of the run's rowids, where a search through the run_id index would look each row
// up in the table; unless the range is mostly other runs' rows (a run ingested again after
// others), then through the index. When the run is the store's only one, every row is its own:
// the range is the table's, from two rowid seeks, where counting the run's rows reads its whole
// index. `db` must outlive the reader.
class DynamoRowReader {
 public:
  // The rows handed to the callbacks below. A row, and every view in it, is valid only during
  // the callback it is handed to: the views are into SQLite's buffers of the row being stepped.

  // The columns every Dynamo raw table shares, as stored (-1: not logged).
  struct Key {
    int64_t source_id = 0;
    int64_t rank = -1;
    int64_t epoch = 0;
    int64_t ca_id = -1;
    int64_t frame_id = -1;
    int64_t frame_compile_id = -1;
  };

  struct CompileRow {  // one dynamo_compile_raw row; texts by string id
    Key key;
    int64_t line = 0;
    int64_t attempt = 0;
    std::string_view kind;  // forward, backward, runtime, recompile_block, referenced
    std::optional<int64_t> co_name_sid, co_filename_sid, co_firstlineno, start_us;
    std::optional<double> duration_ms;
    std::optional<int64_t> cache_size, accumulated_cache_size, has_guarded_code;
    std::optional<int64_t> fail_type_sid, recompile_reason_sid;
  };

  struct GuardFailureRow {  // one guard_failure row
    Key key;
    int64_t line = 0;
    int64_t entry_index = 0;
    std::string_view old_compile_id;
    int64_t reason_sid = 0;
    std::string_view origin;
  };

  struct GraphBreakRow {  // one graph_break row; texts by string id
    Key key;
    int64_t line = 0;
    std::optional<int64_t> user_file_sid, user_function_sid, gb_type_sid, reason_sid;
    std::optional<int64_t> user_line;
    bool sync_signature = false;
    std::string_view origin;
    std::optional<std::string_view> user_stack;  // JSON list of frames, outermost first
  };

  struct CacheOutcomeRow {  // one cache_outcome row
    Key key;
    std::string_view cache, state;
  };

  struct SourceRow {  // one source row of the run
    int64_t source_id = 0;
    std::string path;
    std::optional<int64_t> file_rank;  // the rank in the file name
  };

  // The largest rowid of the run's rows in each table that a reader reads: a reader given the
  // marks of an earlier one reads only the rows written since (rows are only ever added with a
  // rowid above the table's largest; analysis/dynamo_record_cache.h checks that none was deleted).
  // 0: none.
  struct RowMarks {
    int64_t compile = 0, guard_failure = 0, graph_break = 0, cache_outcome = 0;
  };

  // `only_run`: only_run_in_store(db, run_id), asked once by the caller. `after`: read only the
  // rows above these marks, else every row of the run.
  DynamoRowReader(Database& db, int64_t run_id, bool only_run, const RowMarks* after = nullptr);
  DynamoRowReader(const DynamoRowReader&) = delete;
  DynamoRowReader& operator=(const DynamoRowReader&) = delete;

  // Up to where this reader reads each table (the rows written after it are not read).
  const RowMarks& marks() const { return marks_; }

  // At least the run's rows in each table that this reader reads (for reserving memory).
  size_t compile_rows() const { return compile_rows_.rows; }
  size_t guard_failure_rows() const { return guard_failure_rows_.rows; }
  size_t graph_break_rows() const { return graph_break_rows_.rows; }

  // The run's sources.
  std::vector<SourceRow> sources();

  // Each compile row that is a compile's own record (kind not runtime, backward or referenced),
  // in row order.
  void each_own_compile(const std::function<void(const CompileRow&)>& visit);
  // Each `referenced` compile row (a later record naming a compile), by raw_id. `wanted` is
  // asked with the row's key and line first, and a row it declines is skipped before its other
  // columns are read: most references name a compile already taken.
  void each_referenced_compile(const std::function<bool(const Key& key, int64_t line)>& wanted,
                               const std::function<void(const CompileRow&)>& visit);
  // Each guard failure, in row order.
  void each_guard_failure(const std::function<void(const GuardFailureRow&)>& visit);
  // Each graph break, in row order (log order unless sources were ingested out of order).
  void each_graph_break(const std::function<void(const GraphBreakRow&)>& visit);
  // Each cache outcome, in row order.
  void each_cache_outcome(const std::function<void(const CacheOutcomeRow&)>& visit);

  // The largest string_id of the store, nullopt when it holds no text.
  std::optional<int64_t> max_string_id();
  // Every text of the store with its id (one scan of the strings table).
  void each_string(const std::function<void(int64_t string_id, std::string_view text)>& visit);
  // The text of `string_id`, empty when there is none, through one reused prepared statement.
  // The view is valid until the next call or the reader's end.
  std::string_view string_text(int64_t string_id);

  // Which rows each_keyed_line reads.
  enum class KeyedLines {
    kGraphBreaks,         // graph_break
    kOwnCompiles,         // dynamo_compile_raw, kind not `referenced`
    kReferencedCompiles,  // dynamo_compile_raw, kind `referenced`
  };

  // The key and line of each row of one source of the run that `which` names (in no particular
  // order): where the analysis places a source's compiles against its progress lines.
  static void each_keyed_line(Database& db, int64_t run_id, int64_t source_id, KeyedLines which,
                              const std::function<void(const Key& key, int64_t line)>& visit);

 private:
  // The rows of the run in one table: the WHERE clause that selects them, at least their count,
  // and the largest rowid it selects (0: none).
  struct RowRange {
    std::string where;
    size_t rows = 0;
    int64_t last = 0;
  };
  RowRange run_rows(const char* table, bool only_run);
  // The rows of the run in one table above rowid `after`.
  RowRange run_rows_after(const char* table, bool only_run, int64_t after);
  RowRange rows_of(const char* table, bool only_run, const int64_t* after) {
    return after ? run_rows_after(table, only_run, *after) : run_rows(table, only_run);
  }

  Database& db_;
  const int64_t run_id_;
  RowRange compile_rows_, guard_failure_rows_, graph_break_rows_, cache_outcome_rows_;
  RowMarks marks_;
  Statement string_text_;
};

}  // namespace rcf::store
