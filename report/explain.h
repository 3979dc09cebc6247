// `rcf explain`: per run and site, compiles and recompiles by cause, the top reasons with their
// details, recompile-limit hits and graph breaks. Built from analysis results (the public views)
// into a plain model, then rendered as terminal text or versioned JSON. Every listing has a total
// order so that outputs can be diffed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/fix_first_queries.h"
#include "store/rank_divergence_queries.h"
#include "store/source_queries.h"

namespace rcf::report {

inline constexpr int kExplainJsonVersion = 1;

struct ReasonGroup {
  std::string cause;
  std::string subject;  // what changed (tensor, guarded expression), may be empty
  int64_t count = 0;
  std::string confidence;   // of the representative
  std::string detail;       // of the most recent recompile in the group
  std::string program_key;  // that recompile
  std::string prev_program_key;
  std::string evidence;
};

struct LimitHitInfo {
  std::string limit_type;
  std::optional<int64_t> limit_value;
  std::string program_key;  // compile id that was refused ("0/8")
  std::string last_reason;
  std::string last_reason_cause;  // classified
  bool hard_failure = false;
  std::string where;  // source:line
};

struct BreakInfo {
  std::string location;  // user file:line, or "" when the log did not say
  std::string gb_type;   // or first line of the reason
  int64_t count = 0;     // records (restarts and recompiles repeat the same break)
  bool sync_signature = false;
};

// Why Inductor did not use CUDA graphs for a compiled graph or part of it: the messages of one
// kind, reason, compile and user location (docs/cudagraph_skips.md).
struct CudagraphSkipInfo {
  std::string kind;           // skipped, partitioned, rerecord_limit
  std::string reason;         // first line of the reason as printed
  std::string program_key;    // the compile ("0/0"; the run's key when it has the compile), or ""
  std::string site;           // the compile's site when the run has the compile, else ""
  std::string user_location;  // innermost `Found from :` frame ("model.py:31 (forward)"), or ""
  int64_t count = 0;          // messages
  std::string where;          // source:line of the first
};

// A text log that analysis read as the same process as a TORCH_TRACE log of the run, so that its
// compiles were counted once (the merged_sources view, docs/dynamo_text.md).
struct MergedSourceInfo {
  std::string source;           // file name of the text log
  std::string same_process_as;  // file name of the TORCH_TRACE log
  std::string evidence;         // the pid and how many compiles agreed
};

// One row of the fix-first list: recompiles at one site with one cause, ranked by time lost.
using FixFirstItem = store::FixFirstRow;

struct SiteSummary {
  std::string site;
  // Counts and causes are those of every compile at the site; `reasons` is loaded only for the
  // sites build_explain was asked to list (see ExplainListing) and is empty for the others.
  int64_t compiles = 0;
  int64_t recompiles = 0;
  int64_t failed = 0;
  double compile_ms = 0;    // all compiles with a known time
  double recompile_ms = 0;  // recompiles only: the time lost
  std::map<std::string, int64_t> causes;
  std::vector<ReasonGroup> reasons;
  std::vector<LimitHitInfo> limit_hits;
};

struct RunSummary {
  int64_t run_id = 0;
  std::string lane;
  std::string run;
  int64_t sources = 0;
  // Why the run holds no evidence (analysis/run_evidence.h: no log in a known format was
  // ingested into it), or "" when it does. Renderers say "no evidence", never "no recompiles".
  std::string no_evidence;
  // What its Dynamo logs cannot show and which TORCH_LOGS would (analysis/run_evidence.h), or "".
  std::string missing_record;
  int64_t compiles = 0;
  int64_t recompiles = 0;
  int64_t failed = 0;
  double recompile_ms = 0;
  std::map<std::string, int64_t> causes;
  std::vector<SiteSummary> sites;
  std::vector<BreakInfo> graph_breaks;
  std::vector<CudagraphSkipInfo> cudagraph_skips;  // most messages first
  std::vector<MergedSourceInfo> merged_sources;    // logs read as one process
  // The machines its logs came from (after `rcf merge` of several hosts' stores, docs/merge.md).
  std::vector<store::SourceHostRow> hosts;
  // Where the run's ranks stopped doing the same thing (docs/rank_divergence.md).
  std::vector<store::RankDivergenceRow> rank_divergence;
  int64_t rejected_lines = 0;
  // Convergence, when the run's compiles carry steps (or metrics give compiles per step).
  std::string settle_state = "no_data";  // settled, not_settled, still_growing, no_data
  int64_t last_step = 0;                 // last step with a convergence point, 0 = none
  int64_t settle_step = 0;               // last step in which a new program appeared
  int64_t programs_at_settle = 0;
  int64_t final_programs = 0;    // programs cached at the last step
  std::string convergence_text;  // analysis::describe_convergence sentence
  // What `step` counts in this run: "step" (training steps) or "sync" (undecided), the evidence
  // that decided it (step_lines, step_pattern, step_timings, step_timestamps, none) and how, or
  // what would decide it (analysis/training_steps.h).
  std::string step_axis = "sync", step_basis = "none", step_detail;
  std::optional<double> compile_ms, wall_ms, compile_share;
  std::optional<double> execute_ms;  // the XLA metrics' ExecuteTime, when a metrics report exists
  // Compiles a metrics report counts, named by a record or not (docs/xla_formats.md).
  std::optional<int64_t> counted_compiles;
  std::string counted_by;               // where that count was read
  std::vector<FixFirstItem> fix_first;  // rank order: the first ones (see build_explain)
  int64_t fix_first_total = 0;          // rows of the run in the fix_first view
  int64_t fix_first_unknown = 0;        // of them, with cause `unknown`
};

struct ExplainModel {
  std::vector<RunSummary> runs;
};

// "host-a (3 logs), host-b (2 logs)": the run's hosts, "unrecorded" for sources without one.
std::string hosts_text(const RunSummary& run);

// Step wall time spent neither compiling nor executing (host work, input pipeline, syncs):
// wall - compile - execute, when all three are known and that is not negative (ExecuteTime may
// overlap host time when execution runs ahead asynchronously); nullopt otherwise.
std::optional<double> other_step_ms(const RunSummary& run);

// How much of each per-run list (fix-first rows, sites, distinct graph breaks) the renderers
// show: a run of a million compiles may have a hundred thousand sites, which no reader scrolls
// through. What is cut is counted in the output; the SQLite views hold every row.
struct ExplainListing {
  static constexpr int64_t kDefaultRows = 40;
  int64_t rows = kDefaultRows;  // per list; 0 = everything (`rcf explain --all`)
  bool cuts(size_t shown) const { return rows > 0 && static_cast<int64_t>(shown) >= rows; }
};

// `lane` filters by lane name when non-empty. `loaded` bounds what is read in full: the first
// `loaded.rows` fix-first rows, and the reasons of the first `loaded.rows` sites (in the order
// listed) and of every site with a recompile-limit hit; counts, causes and limit hits are those of
// every site. Render with the same listing (or a shorter one). A million compiles at 182 000
// sites then take tens of MB instead of most of a GB. The default loads everything.
ExplainModel build_explain(store::Database& db, const std::string& lane,
                           const ExplainListing& loaded = ExplainListing{0});

std::string render_explain_text(const ExplainModel& model, const ExplainListing& listing = {});
// Lists cut by `listing` carry `<list>_not_listed` counts beside them.
std::string render_explain_json(const ExplainModel& model, const ExplainListing& listing = {});

// One line on what the run's steps count and what decided it, or what would:
// "steps: training steps, decided by step_lines: ..." or "steps: counted in syncs (...): ...".
std::string step_axis_text(const RunSummary& run);

}  // namespace rcf::report
