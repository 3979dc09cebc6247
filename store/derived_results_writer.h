// The one writer of the derived tables: what the analysis of a run (analysis/run_analysis.cc)
// derives from its raw rows goes to the store through here and through the compile writer
// (store/compile_result_writer.h: compile_event and attribution, on a thread of its own), so that
// analysis/ runs no SQL (docs/architecture.md).
//
// Every function writes inside the caller's transaction, and none begins or commits one:
// `rcf ingest` and `rcf merge` analyse the runs they touched inside the transaction that wrote
// their raw rows, and commit both together, so that readers never see raw rows without their
// analysis (docs/schema.md, "Writes: one transaction per ingest").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "store/batch_insert.h"
#include "store/compile_row_memo.h"
#include "store/database.h"
#include "store/derived_rows.h"
#include "store/rank_divergence_queries.h"
#include "store/string_interner.h"

namespace rcf::store {

// ---- analyze_runs' derived results: begin ----

// Deletes the derived rows of `run_id` (compile_event, attribution, convergence_point,
// run_convergence, cause_group). `only_run`: only_run_in_store(db, run_id)
// (store/dynamo_row_reader.h); then the tables are emptied whole, which SQLite does by dropping
// their pages instead of deleting a million rows one by one from each table and index (a store
// of one run is analysed again by each `rcf ingest` of more of its logs).
// `keep_compiles`: compile_event, attribution and cause_group are left to a CompileResultWriter
// and a CauseGroupWriter with a known memo (store/compile_row_memo.h), which rewrite only what
// changed; `keep_points`: convergence_point is left to write_convergence_points with a memo that
// knows the run's points.
void clear_derived_results(Database& db, int64_t run_id, bool only_run, bool keep_compiles = false,
                           bool keep_points = false);

// One log of a run read as the same process as another (a source_merge row).
struct SourceMergeRow {
  int64_t source_id = 0;
  int64_t same_process_as = 0;
  std::string_view evidence;  // valid during write_source_merges
};

// Replaces the run's source_merge rows (the merged_sources view) with `merges`, in their order.
void write_source_merges(Database& db, int64_t run_id, const std::vector<SourceMergeRow>& merges);

// The run's convergence curve, one convergence_point row per point (`points` by step). With a
// `memo` that knows the points the store holds (clear_derived_results kept them), only the
// points that changed are deleted or written; either way the memo then holds `points` (taken,
// not copied: a watched run's 100 000 points at every analysis).
void write_convergence_points(Database& db, int64_t run_id, std::vector<ConvergencePoint> points,
                              CompileRowMemo* memo = nullptr);

// Inserts a run's cause groups as the rollup hands them over, 32 rows a statement (hundreds of
// thousands of groups at a million compiles). `db` and `strings` must outlive the writer.
// With `memo` (whose `groups` describe the run's cause_group rows: the caller cleared them and the
// memo's groups when it was not known), a group whose row holds the same values is not written
// again, a changed one replaces its row, and finish() deletes the groups the run no longer has
// and leaves the new digests in the memo (docs/watch.md). `changed_only` (with a memo whose
// groups_of_last_analysis()): the caller hands only the groups that may have changed since the
// analysis the memo's groups describe, and those that analysis changed after its checkpoint
// (RollupBuilder::finish(each, true)); the groups not handed keep their rows, and of the memo's
// groups_after_checkpoint those not handed are gone.
class CauseGroupWriter {
 public:
  CauseGroupWriter(Database& db, StringInterner& strings, int64_t run_id,
                   CompileRowMemo* memo = nullptr, bool changed_only = false);
  // Takes the group's detail; its other texts are interned (site, subject) or copied.
  void write(CauseGroup&& g);
  // Writes the groups still buffered (and, with a memo, deletes the groups gone).
  void finish();

 private:
  void delete_row(const CauseGroupKey& key);
  // The memo's groups after this analysis: without those gone (by their place), with those added.
  void update_memo(const std::vector<bool>& gone);

  Database& db_;
  StringInterner& strings_;
  int64_t run_id_;
  CompileRowMemo* memo_;
  bool changed_only_;
  std::optional<Statement> delete_;
  BatchInsert groups_;
  // Which of the memo's groups (by place, as at construction) were handed, the groups new to
  // it, and the keys of those handed that changed after the analysis' checkpoint.
  std::vector<bool> handed_;
  std::vector<CompileRowMemo::GroupRow> added_;
  std::vector<CauseGroupKey> after_checkpoint_;
};

// The run's convergence facts: its run_convergence row (sql/schema.sql documents each column).
struct RunConvergenceRow {
  std::string_view state;  // settled, not_settled, still_growing, no_data
  std::optional<int64_t> first_step, last_step, settle_step, programs_at_settle, final_programs,
      new_after_growth_step;  // NULL without a curve
  int64_t growth_step = 0;
  int64_t compiles = 0, programs = 0, recompiles = 0;
  std::optional<double> compile_ms, wall_ms, execute_ms, compile_share;
};
void write_run_convergence(Database& db, int64_t run_id, const RunConvergenceRow& row);

// The compile count a metrics report gives (docs/xla_formats.md), on the run's facts row.
void write_counted_compiles(Database& db, int64_t run_id, const CountedCompiles& counted);

// What the run's steps count and what decided it (docs/training_steps.md), on its facts row.
struct StepAxisRow {
  std::string_view axis, basis, detail;  // valid during write_step_axis
};
void write_step_axis(Database& db, int64_t run_id, const StepAxisRow& axis);

// ---- analyze_runs' derived results: end ----

// Replaces the rank_divergence_row rows of `run_id` with `rows`, in their order.
void write_rank_divergence_rows(Database& db, int64_t run_id,
                                const std::vector<RankDivergenceRow>& rows);

}  // namespace rcf::store
