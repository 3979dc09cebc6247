// The training step of each compile, decided from the best evidence a run holds, and the name of
// that evidence (docs/training_steps.md). A torch_xla step often has several syncs (the step-end
// sync, an EMA or optimizer sync, a logging sync), so a sync is not a step; when nothing decides,
// the axis is "sync" and every output says so.
//
// Evidence, best first:
//   1. progress lines in the compiles' own stream: `--step-pattern` matches (step_timing rows of
//      that source), else detected `step N` lines (step_marker, origin step_line), one shape per
//      source whose numbers go up (a drop is a new epoch, unrolled);
//   2. step timings of another source (their rows) matched with the sync sites of each compile
//      source: the site that runs once per timed step ends the step; without sites, a sync count
//      that is an exact multiple of the timed steps;
//   3. timed steps with timestamps against compiles with start times (end-of-step times);
//   4. the trace's clock against a console's order: a console of progress lines without times
//      that shares no stream with the compiles places the run's first compile (by the TORCH_TRACE
//      clock) in its first step, a compile its lines name (a Dynamo / Inductor record `[F/C]`)
//      between the progress lines around that line, and a compile between two placed compiles
//      of one step in that step; no other.
// Pure: tests build StepEvidence by hand; analysis/step_evidence_loader.h reads it from a store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/step_runs.h"
#include "analysis/step_series.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {

struct StepLineRow {  // a progress line of a compile source
  int64_t source_id = 0;
  int64_t line = 0;
  int64_t step = 0;
  int64_t shape = 0;  // lines of one shape form one series (0: a --step-pattern match)
  // The row stands for `repeats` lines: line + i * line_stride printing step + i * step_stride
  // (store/step_marker_series.h). The rows of one source and shape never interleave.
  int64_t repeats = 1;
  int64_t line_stride = 0;
  int64_t step_stride = 0;
};

struct SyncRow {  // a step-end sync of a compile source (steplog marker or step-end execution)
  int64_t source_id = 0;
  int64_t line = 0;
  int64_t site = 0;  // call-path id (the execution's frames), 0 when unknown (steplog)
};

struct TimedStepRow {  // a step of a source without compiles, with the time it ended
  int64_t step = 0;
  double timestamp_s = 0;  // epoch s
};

// The steps of sources without compiles (step timings, a console of progress lines): every
// step, as runs (a console's series is one), and those with an end time.
struct TimedSteps {
  StepRuns steps;
  util::LargeVector<TimedStepRow> stamped;  // any order (millions in a long timed console)
  void add(int64_t step, std::optional<double> timestamp_s = std::nullopt) {
    steps.add(step);
    if (timestamp_s) stamped.push_back({step, *timestamp_s});
  }
  bool empty() const { return steps.empty(); }
};

struct ConsoleCompileLine {  // a console line a compile caused (ingest/steps/compile_line.h)
  int64_t line = 0;
  std::string text;                 // where the code printed it, then ` [F/C]` when it names one
  std::optional<int64_t> start_us;  // the start of the compile it names, when the trace has it
};

struct StepEvidence {
  std::vector<StepLineRow> lines;  // any order, as stored (not expanded)
  std::vector<SyncRow> syncs;      // any order
  TimedSteps timed;
  std::map<int64_t, int64_t> first_compile;  // compile source -> line of its first compile
  // Compile source -> line where it shows the run's first compile: every torch_xla / JAX
  // compile is logged, but TORCH_LOGS=recompiles logs no first compile, so a Dynamo text log
  // shows it only through a record under 0/0 (a graph break traced in it). Absent: the source
  // does not show it, and the order of its lines cannot say when progress lines are printed.
  std::map<int64_t, int64_t> run_first_compile;
  std::map<int64_t, std::string> site_names;   // SyncRow::site -> innermost user frame
  std::map<int64_t, std::string> shape_names;  // StepLineRow::shape -> its text
  bool compiles_have_start_times = false;      // some compile carries start_us
  bool metrics_blocks = false;                 // `[MetricsData; step=N]` blocks (one per sync)
  // Progress lines of a console printed times without a zone, and no log of the run shows the
  // writer's clock against UTC, so they cannot be compared with compile start times.
  bool step_times_without_zone = false;
  // Zone-less step times were read with this offset of the writer's clock (local minus UTC,
  // seconds), which the run's TORCH_TRACE log showed.
  std::optional<int64_t> step_times_offset_s;
  // Some step times are when the progress lines reached rcf capture (its line-time sidecar).
  bool step_times_on_arrival = false;
  // The one console of progress lines with no times that shares no stream with the compiles:
  // its series' lines (one shape) and the lines compiles caused in it; empty when there is none.
  std::vector<StepLineRow> console_lines;
  std::vector<ConsoleCompileLine> console_compiles;
  // The start of the first compile (epoch us) of the run's one TORCH_TRACE log, when it has one.
  std::optional<int64_t> first_compile_start_us;
};

struct StepAxis {
  std::string axis = "sync";  // "step" (training steps) or "sync"
  // step_pattern, step_lines, step_timings, step_timestamps, trace_clock, none
  std::string basis = "none";
  std::string detail;  // how it was decided, or what would decide it
};

// The progress-line series that placed a run's compiles, kept to tell a later decision's answers
// apart from these (AttributionCheckpoint): per source, its points and whether a line ends its
// step. Sources placed through their step-end syncs are not kept (their answers are asked again).
class SeriesPlacement {
 private:
  std::map<int64_t, std::pair<StepSeries, bool>> series_;
  friend class TrainingSteps;
};

class TrainingSteps {
 public:
  static TrainingSteps decide(const StepEvidence& evidence);
  const StepAxis& axis() const { return axis_; }
  bool decided() const { return axis_.axis == "step"; }
  // The sources whose own progress lines place their compiles.
  std::vector<int64_t> line_sources() const;
  // The last training step the evidence shows (the curve runs to it), when decided.
  std::optional<int64_t> last_step() const;
  // The training step of a compile at `line` of `source_id`, `syncs_before` step-end syncs of
  // its source having completed before it (when known), started at `start_us` (when known).
  // nullopt when the run's evidence does not place it.
  std::optional<int64_t> step_of(int64_t source_id, int64_t line,
                                 std::optional<int64_t> syncs_before,
                                 std::optional<int64_t> start_us) const;
  // The series that place compiles now, to compare a later decision with (placed_as_before).
  SeriesPlacement series_placement() const;
  // Per source: the line before which step_of(source, line, {}, ...) answers as the decision
  // `then` was taken from did: the source is placed by its progress lines alone now and then,
  // by the same rule, and then's series (two points or more) begins this one's (a run's log
  // grew). A compile at or after that line, or of a source not named, must be asked again.
  std::map<int64_t, int64_t> placed_as_before(const SeriesPlacement& then) const;

 private:
  struct Series {                // the progress lines of one source, unrolled over epochs
    StepSeries points;           // (line, step), held as runs: memory follows the log's rhythm
    bool printed_at_end = true;  // a line ends its step (printed after the step's compiles)
  };
  // The step each sync of a source belongs to; the syncs' lines are the source's sync_lines_
  // (one copy: a 1 GB PT_XLA_DEBUG log has 771,000).
  struct SyncSites {
    std::vector<int64_t> step_of_sync;  // step of the sync that follows i completed syncs
  };
  // `syncs`: the source's step-end sync lines, sorted (nullptr when it has none).
  std::optional<int64_t> from_series(const Series& s, const std::vector<int64_t>* syncs,
                                     int64_t line, int64_t syncs_before) const;

  std::optional<int64_t> from_clock(std::optional<int64_t> start_us) const;

  StepAxis axis_;
  std::map<int64_t, Series> series_;
  std::map<int64_t, std::vector<int64_t>> sync_lines_;  // per source, sorted
  std::map<int64_t, SyncSites> by_syncs_;
  std::vector<std::pair<double, int64_t>> timestamps_;  // (end of step, epoch s; step), sorted
  std::vector<std::pair<int64_t, int64_t>> clock_;  // (compile start, epoch us; its step), sorted
  std::optional<int64_t> clock_last_step_;          // the console's last step
  friend class StepDecision;
};

// The smallest period (2..8) with which a sequence of sync sites repeats (95 % of positions of its
// first kSitePeriodWindow), else 0: a hint of several syncs per step, never a decision.
inline constexpr size_t kSitePeriodWindow = 10000;
int64_t sync_site_period(const std::vector<int64_t>& sites);

}  // namespace rcf::analysis
