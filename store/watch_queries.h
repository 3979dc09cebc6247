// What `rcf watch` reads back after each batch it ingests (docs/watch.md): a run's compiles with
// their causes, its recompile-limit hits, its graph breaks and its curve, as plain rows. Read
// whole after every batch: the alerts are the rows not seen before.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/compile_row_memo.h"
#include "store/database.h"

namespace rcf::store {

// One compile (compile_event + attribution), by ordinal. `source` and `line` name the record the
// compile was read from: with the program key they identify it across batches.
struct WatchCompileRow {
  int64_t ordinal = 0;
  std::optional<int64_t> step;
  std::string site, program_key, kind;
  std::string cause;  // first_compile or a cause of the vocabulary; "" before attribution
  std::string detail;
  std::optional<double> compile_ms;
  std::string source;
  int64_t line = 0;
  // The Dynamo compile id (frame_id < 0: the compile has none, as torch_xla's and JAX's).
  int64_t rank = -1, epoch = 0, ca_id = -1, frame_id = -1, frame_compile_id = -1;
  // Which read of the store made this row: a number no other read in this process gave, so that
  // a row with the version a reader saw before holds what it held then (the alerts go on from
  // the first row whose version moved). 0 for a row made otherwise, compared by its values. Code
  // that changes a read row in place sets it to 0.
  uint64_t version = 0;
};

// One recompile-limit warning: the frame runs without compiling from here on.
struct WatchLimitRow {
  std::string source;
  int64_t line = 0;
  std::string limit_type;
  std::optional<int64_t> limit_value;
  std::string function, file;
  std::optional<int64_t> firstlineno;
  std::string last_reason;
  bool hard_failure = false;
};

// One graph break, by source and line.
struct WatchBreakRow {
  std::string source;
  int64_t line = 0;
  std::string gb_type, reason, user_file, user_function;
  std::optional<int64_t> user_line;
};

// A training step with its wall time (from step timings) and its compile time (from the curve)
// when known.
struct WatchStepRow {
  int64_t step = 0;
  std::optional<double> compile_ms, wall_ms;
};

// The run as watch sees it after a batch.
struct WatchRunRows {
  std::vector<WatchCompileRow> compiles;  // by ordinal
  std::vector<WatchLimitRow> limit_hits;  // by source, line
  std::vector<WatchBreakRow> breaks;      // by source, line
  // The steps with a wall time (step timings), by step; none unless the axis is training steps.
  std::vector<WatchStepRow> steps;
  std::string convergence_state;  // run_convergence.state, "" when not analysed
  std::optional<int64_t> settle_step;
  // The compile rows before this index are those of the last time it was set (by the reader of
  // the rows, after it looked at them: WatchSession): update_watch_rows and put_back_watch_rows
  // lower it to the first row they replace, so that the reader need not compare every row (a
  // cache line a row, a twentieth of a watch's CPU at 100 000 compiles). 0: any may differ.
  size_t unchanged_before = 0;
};

// The run `run_id` of `db`, read through the public views where they hold the columns.
WatchRunRows read_watch_rows(Database& db, int64_t run_id);

// `rows` (read_watch_rows of the run before its last analysis) brought up to date after an
// analysis through `memo` (store/compile_row_memo.h): only the compiles it wrote are read again,
// unless it wrote the run whole or many of them; the rest of the rows is read whole.
void update_watch_rows(Database& db, int64_t run_id, const CompileRowMemo& memo,
                       WatchRunRows& rows);

// What update_watch_rows through `memo` replaces in `rows`, kept to be put back: a transaction
// rolled back (a preview of the logs' ends) leaves the rows it did not write as they were, so
// that they need not be read whole again. `memo` must be the analysis just after `rows`' (its
// `written` says every row it changed) and not `whole`.
struct KeptWatchRows {
  size_t compiles = 0;                                      // how many there were
  std::vector<std::pair<size_t, WatchCompileRow>> written;  // by index, as they were
  WatchRunRows rest;                                        // all but the compiles
};
KeptWatchRows keep_watch_rows(const WatchRunRows& rows, const CompileRowMemo& memo);
// `rows` as they were when `kept` was taken.
void put_back_watch_rows(KeptWatchRows kept, WatchRunRows& rows);

}  // namespace rcf::store
