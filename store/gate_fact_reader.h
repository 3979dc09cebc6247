// What `rcf gate` reads of a lane's runs (analysis/gate_facts.h decides on these rows), through
// the public views only: the runs, programs and compiles, the convergence curve, the compile and
// wall time, the recompiles grouped by site x cause and each program's first compile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/run_queries.h"

namespace rcf::store {

// The runs of `lane` in ingest order (run_id): every run, or only those labelled `run` when it
// is not "".
std::vector<RunRef> runs_in_ingest_order(Database& db, const std::string& lane,
                                         const std::string& run);

// The run labels of `lane` in ingest order.
std::vector<std::string> run_labels_in_ingest_order(Database& db, const std::string& lane);

// The first run of `lane` labelled `label`, nullopt when there is none.
std::optional<int64_t> first_run_labelled(Database& db, const std::string& lane,
                                          const std::string& label);

struct CompileCounts {
  int64_t compiles = 0;
  int64_t programs = 0;  // distinct program keys of the compiles that did not fail
};
CompileCounts compile_counts_of_run(Database& db, int64_t run_id);

struct CurveCounts {
  int64_t step = 0;
  int64_t programs_cached = 0;
  int64_t compiles_in_step = 0;
};
// The convergence points of the run, by step.
std::vector<CurveCounts> curve_counts_of_run(Database& db, int64_t run_id);

struct StepAxisText {
  std::string step_axis, step_detail;
};
// convergence_summary's step axis, nullopt when the run has no summary row.
std::optional<StepAxisText> step_axis_of_run(Database& db, int64_t run_id);

// Compile time and wall time, each nullopt where the rows hold none; compile_share only where a
// row records one.
struct CompileTimeRow {
  std::optional<double> compile_share, compile_ms, wall_ms;
};
// As analysis recorded them (convergence_summary).
CompileTimeRow summary_compile_time(Database& db, int64_t run_id);
// Summed over the convergence points that have a wall time.
CompileTimeRow curve_compile_time(Database& db, int64_t run_id);
// Summed over the steps of the raw step timings (each step's largest times) that have a wall time.
CompileTimeRow step_timing_compile_time(Database& db, int64_t run_id);
// The compile time of the timed compiles (the compiles view).
std::optional<double> timed_compile_ms(Database& db, int64_t run_id);

// How many lines of the run's sources the ingest rejected as implausible (line_note reasons
// implausible_*).
int64_t implausible_rows_of_run(Database& db, int64_t run_id);

struct CauseGroupRow {
  std::string site;
  std::string cause;
  int64_t recompiles = 0;
  std::string detail;
  std::optional<int64_t> first_step;
  std::optional<int64_t> last_step;
};
// The run's fix_first rows, by rank.
std::vector<CauseGroupRow> fix_first_groups(Database& db, int64_t run_id);
// The run's recompiles grouped by site x cause, the latest one's detail for each group, the
// largest group first.
std::vector<CauseGroupRow> recompile_groups(Database& db, int64_t run_id);

struct ArrivalRow {
  int64_t step = 0;
  std::string site;
  std::string cause;  // first_compile or the recompile's cause
  std::string detail;
};
// The first compile of each program whose step is known, by step.
std::vector<ArrivalRow> program_arrivals(Database& db, int64_t run_id);

}  // namespace rcf::store
