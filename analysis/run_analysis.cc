#include "analysis/run_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "analysis/attribution_checkpoint.h"
#include "analysis/dynamo_attribution.h"
#include "analysis/dynamo_record_cache.h"
#include "analysis/dynamo_run_loader.h"
#include "analysis/rank_divergence.h"
#include "analysis/run_rollup.h"
#include "analysis/same_process_sources.h"
#include "analysis/step_curve.h"
#include "analysis/step_evidence_loader.h"
#include "analysis/training_steps.h"
#include "analysis/xla_compiles.h"
#include "analysis/xla_run_loader.h"
#include "store/compile_result_writer.h"
#include "store/derived_results_writer.h"
#include "store/execute_time_query.h"
#include "store/run_tables.h"
#include "store/string_interner.h"
#include "util/large_array_allocator.h"

namespace rcf::analysis {
namespace {

// The Dynamo side of one run's analysis: its records read here, or kept between analyses by the
// caller's DynamoRecordCache. Lifetime: one run's analysis.
struct DynamoSide {
  RunInputs read_here;              // the records, unless the cache keeps them
  const RunInputs* kept = nullptr;  // the cache's
  CompileIntake intake;             // its merger finished (in `merged`); the step facts and count
  std::optional<MergedCompiles> merged;
  // With kept records: what the last analysis kept of its attribution, and the compiles changed
  // since (analysis/attribution_checkpoint.h).
  AttributionCheckpoint* checkpoint = nullptr;
  std::vector<DynamoKey> changed;
  const KeptStepLines* step_lines = nullptr;  // kept with the records, when they are
  const RunInputs& inputs() const { return kept ? *kept : read_here; }
};

// Each compile record is merged as it is read and never held, and the merge is finished before
// the run's reasons are read, each then attached to its compile as it is read: at a million
// compiles the records were the largest part of the run's memory (docs/performance.md). A text
// log of the same process as a TORCH_TRACE log is read under the trace's keys, and its reasons
// thinned against the whole run's: such a run is read whole every time, never kept.
DynamoSide load_dynamo_side(store::Database& db, int64_t run_id, bool only_run,
                            DynamoRecordCache* records) {
  DynamoSide side;
  SameProcessSources same_process = SameProcessSources::find(db, run_id);
  const bool keep = records && same_process.aliases().empty();
  if (records && !keep) records->forget(run_id);
  if (std::optional<DynamoRecordCache::Taken> taken =
          keep ? records->take(db, run_id, only_run) : std::nullopt) {
    side.kept = taken->inputs;
    side.merged = std::move(taken->merged);
    side.intake.step_facts = std::move(taken->step_facts);
    side.intake.records = taken->records;
    side.checkpoint = taken->checkpoint;
    side.changed = std::move(taken->changed);
    side.step_lines = taken->step_lines;
  } else {
    load_run(db, run_id, only_run, std::move(same_process), side.read_here, side.intake,
             side.merged);
  }
  return side;
}

// The run's convergence facts as its run_convergence row: without a curve, its steps are NULL.
store::RunConvergenceRow run_convergence_row(const RunRollup& r) {
  const ConvergenceSummary& c = r.convergence;
  const bool curve = c.state != SettleState::kNoData;
  auto opt = [curve](int64_t v) { return curve ? std::optional<int64_t>(v) : std::nullopt; };
  store::RunConvergenceRow row;
  row.state = settle_state_name(c.state);
  row.first_step = opt(c.first_step);
  row.last_step = opt(c.last_step);
  row.settle_step = opt(c.settle_step);
  row.programs_at_settle = opt(c.programs_at_settle);
  row.final_programs = opt(c.final_programs);
  row.new_after_growth_step = opt(c.new_after_growth_step);
  row.growth_step = c.growth_step;
  row.compiles = r.compiles;
  row.programs = r.programs;
  row.recompiles = r.recompiles;
  row.compile_ms = r.compile_ms;
  row.wall_ms = r.wall_ms;
  row.execute_ms = r.execute_ms;
  row.compile_share = r.compile_share;
  return row;
}

// Writes the run's cause groups as the builder hands them over (each group's detail is taken),
// then its convergence facts. A builder that goes on from the checkpoint of the analysis that
// wrote the memo's groups hands only those that may have changed. Returns the groups changed
// after this analysis' checkpoint (RunRollup::changed_after_checkpoint).
std::vector<uint32_t> write_rollup(store::Database& db, store::StringInterner& strings,
                                   int64_t run_id, RollupBuilder&& rollup,
                                   store::CompileRowMemo* memo) {
  const bool changed_only = memo && rollup.resumed() && memo->groups_of_last_analysis();
  store::CauseGroupWriter groups(db, strings, run_id, memo, changed_only);
  RunRollup r = std::move(rollup).finish([&groups](CauseGroup&& g) { groups.write(std::move(g)); },
                                         changed_only);
  groups.finish();
  store::write_run_convergence(db, run_id, run_convergence_row(r));
  return std::move(r.changed_after_checkpoint);
}

// What the run's steps count and what decided it (analysis/training_steps.h), on its facts row.
void record_step_axis(store::Database& db, int64_t run_id, const StepAxis& axis) {
  store::write_step_axis(db, run_id, {axis.axis, axis.basis, axis.detail});
}

// The torch_xla compiles take their training steps where the run's evidence decides them (they
// came with the index of their sync); the curve then runs to the last training step.
void place_xla_steps(const TrainingSteps& steps, XlaRunInputs& in) {
  if (!steps.decided()) return;
  for (auto& b : in.blocks) b.step = steps.step_of(b.source_id, b.line, b.syncs_before, {});
  for (auto& c : in.jax_compiles) c.step = steps.step_of(c.source_id, c.line, {}, {});
  for (auto& m : in.jax_misses) m.step = steps.step_of(m.source_id, m.line, {}, {});
  in.steps_seen = steps.last_step().value_or(0);
}

std::map<int64_t, double> wall_ms_by_step(const XlaRunInputs& in) {
  std::map<int64_t, double> out;
  for (const auto& t : in.step_times)
    if (t.wall_ms) out[t.step] = *t.wall_ms;
  return out;
}

// Where a Dynamo compile shows first in a log whose progress lines place it: its own record, or a
// graph break traced under its id before it (with TORCH_LOGS=recompiles a first compile has no
// record of its own), also in a text log read as the same process as a TORCH_TRACE log (the
// compile then carries the trace's key, and that log's records are read from the store). A
// compile that only a later record names is in the first step when it is the run's first (0/0),
// and in none otherwise (docs/training_steps.md). Built only when progress lines decide the steps,
// and only from the logs that have them: memory follows their graph breaks.
class DynamoStepLines {
 public:
  DynamoStepLines(store::Database& db, int64_t run_id, const TrainingSteps& steps,
                  const RunInputs& in) {
    sources_ = steps.line_sources();
    const std::vector<int64_t>& sources = sources_;
    if (sources.empty()) return;
    auto aliased = [&in](int64_t source) {
      return std::any_of(in.merged_sources.begin(), in.merged_sources.end(),
                         [source](const SourceAlias& a) { return a.source_id == source; });
    };
    for (const BreakRecord& b : in.breaks)
      if (std::binary_search(sources.begin(), sources.end(), int64_t{b.key.source_id}))
        first_seen_.push_back({b.key, {b.key.source_id, b.line}});
    // A `referenced` row is where a later record names a compile, not where it happened.
    for (int64_t source : sources) {
      if (!aliased(source)) continue;
      for (DynamoRows::KeyedLines rows :
           {DynamoRows::KeyedLines::kGraphBreaks, DynamoRows::KeyedLines::kOwnCompiles})
        read(db, run_id, rows, source, in.merged_sources, first_seen_);
      read(db, run_id, DynamoRows::KeyedLines::kReferencedCompiles, source, in.merged_sources,
           named_later_);
    }
    keep_first(first_seen_);
    keep_first(named_later_);
  }
  // (source, line) to place `c` at.
  std::pair<int64_t, int64_t> place_of(const AttributedCompile& c) const {
    // A recompile header is printed as the compile starts, before any break traced in it.
    if (c.evidence_kind == "recompile_block" &&
        std::binary_search(sources_.begin(), sources_.end(), int64_t{c.key.source_id}))
      return {c.key.source_id, c.line};
    const int64_t own = c.evidence_kind == "referenced" ? 0 : c.line;
    if (const auto* p = find(first_seen_, c.key)) {
      const auto [source, line] = *p;
      return source == c.key.source_id ? std::make_pair(source, std::min(line, own)) : *p;
    }
    // A fragment no record of its own shows ran in the call whose graph break made it.
    if (c.split_from)
      if (const auto* p = find(first_seen_, *c.split_from)) return *p;
    // Only a later reason names it (in a text log read as the same process as a trace, or in
    // its own log). The run's first compile (0/0) is in the first step; any other compile
    // happened somewhere before that reason, and the log cannot say where.
    if (const auto* p = find(named_later_, c.key))
      return is_run_first(c.key) ? Place{p->first, 0} : kUnplaced;
    if (c.evidence_kind == "referenced")
      return is_run_first(c.key) ? Place{c.key.source_id, 0} : kUnplaced;
    return {c.key.source_id, own};
  }
  // Where place_of puts a compile the logs cannot place in a step.
  static constexpr std::pair<int64_t, int64_t> kUnplaced{-1, -1};

 private:
  using Place = std::pair<int64_t, int64_t>;  // (source, line)
  // Sorted by key, one per key: a place per compile and break (a million of each at most), on
  // huge pages (util/large_array_allocator.h).
  using Places = util::LargeVector<std::pair<DynamoKey, Place>>;

  static bool is_run_first(const DynamoKey& k) {
    return k.epoch == 0 && k.frame_id == 0 && k.frame_compile_id == 0 && k.ca_id < 0;
  }
  static void read(store::Database& db, int64_t run_id, DynamoRows::KeyedLines rows, int64_t source,
                   const std::vector<SourceAlias>& aliases, Places& places) {
    auto place = [&](const DynamoRows::Key& raw, int64_t line) {
      DynamoKey key = dynamo_key_of(raw, line);
      for (const SourceAlias& a : aliases)
        if (a.source_id == key.source_id) key.source_id = a.to_source_id, key.rank = a.to_rank;
      places.push_back({key, {source, line}});
    };
    DynamoRows::each_keyed_line(db, run_id, source, rows, place);
  }

  // Sorted by key, the smallest line of each key kept.
  static void keep_first(Places& places) {
    std::sort(places.begin(), places.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second.second < b.second.second;
    });
    places.erase(std::unique(places.begin(), places.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; }),
                 places.end());
  }
  static const Place* find(const Places& places, const DynamoKey& key) {
    auto it = std::lower_bound(places.begin(), places.end(), key,
                               [](const auto& p, const DynamoKey& k) { return p.first < k; });
    return it != places.end() && it->first == key ? &it->second : nullptr;
  }
  std::vector<int64_t> sources_;  // the logs with progress lines, sorted
  Places first_seen_, named_later_;
};

// Says which logs of the run were read as one process (the merged_sources view).
void record_merged_sources(store::Database& db, int64_t run_id,
                           const std::vector<SourceAlias>& dynamo_merged,
                           const std::vector<SourceAlias>& xla_copies) {
  std::vector<store::SourceMergeRow> merges;
  for (const auto* merged : {&dynamo_merged, &xla_copies})
    for (const SourceAlias& a : *merged)
      merges.push_back({a.source_id, a.to_source_id, a.evidence});
  store::write_source_merges(db, run_id, merges);
}
}  // namespace

namespace {

// Adds the time since its last lap (or its creation) to a phase of AnalysisTimings.
class PhaseClock {
 public:
  void lap(double& phase) {
    auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The run's step axis, saying how many compiles it could not place and what would place them.
// Compiles the trace's clock leaves between steps (docs/training_steps.md, "The trace's clock").
std::string unclocked_detail(int64_t n) {
  const bool one = n == 1;
  return fmt::format(
      "; {} compile{} not placed in a step: the TORCH_TRACE clock puts {} between compiles of "
      "different steps or after the last placed one, and the console's lines carry no times; a "
      "time that opens each progress line, or the line-time sidecar of a console rcf capture "
      "kept (docs/capture.md), would place {}",
      n, one ? " is" : "s are", one ? "it" : "them", one ? "it" : "them");
}

// Gives each attributed Dynamo compile its step and adds it to the run's Dynamo curve, counting
// the compiles that get none: no log line to place them (unplaced), or a trace clock that puts
// them between steps (unclocked). Lifetime: one run's analysis.
struct DynamoStepPlacer {
  const TrainingSteps& steps;
  const DynamoStepLines& lines;
  StepCurve& curve;
  int64_t unplaced = 0, unclocked = 0;

  // Returns where the compile was placed (DynamoStepLines::kUnplaced: nowhere).
  StepPlace place(AttributedCompile& c) {
    const StepPlace where = lines.place_of(c);
    const auto [source, line] = where;
    if (source == DynamoStepLines::kUnplaced.first) {
      ++unplaced;
      return where;
    }
    if (!steps.decided()) return where;
    c.step = steps.step_of(source, line, {}, c.start_us);
    if (c.step)
      curve.add(*c.step, c.compile_ms);
    else if (c.start_us)
      ++unclocked;
    return where;
  }
};

// What the Dynamo attribution of a run reads besides its records, and where each compile goes.
// Lifetime: one run's analysis.
struct RunContext {
  const TrainingSteps& steps;
  const std::vector<ConvergencePoint>& curve;  // the torch_xla / JAX side's
  store::CompileRowMemo* memo;                 // nullptr outside `rcf watch`
  bool xla_compiles;
  std::optional<double> execute_ms;
};
struct CompileSinks {
  RollupBuilder& rollup;
  DynamoStepPlacer& placer;
  store::CompileResultWriter& writer;
};

// Goes on from the run's attribution checkpoint when it is usable (analysis/
// attribution_checkpoint.h): the rollup, the Dynamo curve and the placer's counts become those
// after the kept compiles, and the writer keeps their rows. Plans the next checkpoint: after the
// compiles before the first one changed by this batch's rows, and before the last few (a compile's
// records may still be coming: a recompile block cut by the batch, a TORCH_TRACE compile whose
// metrics come at its end). Returns how many compiles are kept.
size_t resume_attribution(AttributionCheckpoint& checkpoint,
                          const DynamoAttributionRun& attribution, const RunInputs& dynamo,
                          const std::vector<DynamoKey>& changed, const RunContext& run,
                          const CompileSinks& to) {
  const TrainingSteps& steps = run.steps;
  const std::vector<ConvergencePoint>& curve = run.curve;
  const store::CompileRowMemo* memo = run.memo;
  RollupBuilder& rollup = to.rollup;
  DynamoStepPlacer& placer = to.placer;
  RunAttributionFacts facts{.breaks = dynamo.breaks.size(),
                            .source_names = dynamo.source_names,
                            .several_processes = attribution.several_processes(),
                            .steps_decided = steps.decided(),
                            .line_sources = steps.line_sources(),
                            .other_runtimes = run.xla_compiles || !curve.empty()};
  const size_t kept =
      memo->known ? checkpoint.usable(attribution, dynamo, facts, changed, steps, memo->generation)
                  : 0;
  if (kept > 0) {
    AttributionCheckpoint::Resumed resumed = checkpoint.resume();
    rollup = std::move(resumed.rollup);
    rollup.resume_on(curve, run.execute_ms);
    placer.curve = std::move(resumed.curve);
    placer.unplaced = resumed.unplaced;
    placer.unclocked = resumed.unclocked;
    to.writer.keep_unchanged(static_cast<int64_t>(kept));
  }
  constexpr size_t kOpenTail = 16;
  size_t until = attribution.size() > kOpenTail ? attribution.size() - kOpenTail : 0;
  for (size_t i = kept; i < until; ++i)
    if (std::binary_search(changed.begin(), changed.end(), attribution.key_at(i))) until = i;
  if (facts.other_runtimes) until = 0;
  checkpoint.plan(kept, std::max(until, kept), std::move(facts), steps);
  if (kept > 0 && checkpoint.ends_at(static_cast<int64_t>(kept)))
    checkpoint.take(rollup, placer.curve, placer.unplaced, placer.unclocked);
  return kept;
}

// How many Dynamo compiles were taken as kept from the last analysis, and how many the run has.
struct DynamoAttributed {
  size_t kept = 0;
  int64_t compiles = 0;
};

// Attributes the run's Dynamo compiles (going on from `checkpoint` when it is usable), each then
// placed in its step, added to the rollup, kept for the next checkpoint and written.
// `prepared()` runs once the compiles are ordered, before the first is attributed. The merged
// compiles and their order are released on return, before the writes are finished.
DynamoAttributed attribute_dynamo_side(DynamoSide& side, AttributionCheckpoint* checkpoint,
                                       const RunContext& run, const CompileSinks& to,
                                       const std::function<void()>& prepared) {
  DynamoAttributed out;
  DynamoAttributionRun attribution(side.inputs(), std::move(*side.merged));
  if (checkpoint)
    out.kept = resume_attribution(*checkpoint, attribution, side.inputs(), side.changed, run, to);
  prepared();
  out.compiles =
      static_cast<int64_t>(out.kept) + attribution.attribute(out.kept, [&](AttributedCompile&& c) {
        const StepPlace place = to.placer.place(c);
        to.rollup.add(c);
        if (checkpoint && checkpoint->keeps(c.ordinal)) {
          checkpoint->keep(c, place);
          if (checkpoint->ends_at(c.ordinal))
            checkpoint->take(to.rollup, to.placer.curve, to.placer.unplaced, to.placer.unclocked);
        }
        to.writer.write(std::move(c));
      });
  return out;
}

// The torch_xla / JAX compiles, numbered on after the run's `dynamo_compiles` Dynamo ones.
void hand_over_xla_compiles(std::vector<AttributedCompile>& compiles, int64_t dynamo_compiles,
                            const CompileSinks& to) {
  for (auto& c : compiles) {
    c.ordinal += dynamo_compiles;
    to.rollup.add(c);
    to.writer.write(std::move(c));
  }
}

StepAxis axis_of(const TrainingSteps& steps, int64_t unplaced_compiles,
                 int64_t unclocked_compiles) {
  StepAxis axis = steps.axis();
  if (axis.basis == "trace_clock" && unclocked_compiles > 0)
    axis.detail += unclocked_detail(unclocked_compiles);
  if (!steps.decided() || unplaced_compiles <= 0) return axis;
  const bool one = unplaced_compiles == 1;
  axis.detail += fmt::format(
      "; {} compile{} not placed in a step: only a later recompile reason names {} "
      "(TORCH_LOGS=recompiles does not log a first compile), so the log cannot say in which "
      "step {} happened; a record of every compile in the console's order (or timestamps on "
      "both sides) would place {}",
      unplaced_compiles, one ? " is" : "s are", one ? "it" : "them", one ? "it" : "they",
      one ? "it" : "them");
  return axis;
}

// (site number, string id) of each site the writer interned, once it is finished.
std::vector<std::pair<uint32_t, int64_t>> site_sids_of(const store::CompileResultWriter& writer) {
  std::vector<std::pair<uint32_t, int64_t>> sids;
  for (uint32_t n = 1; n <= writer.site_numbers(); ++n) sids.emplace_back(n, writer.site_sid_of(n));
  return sids;
}

// The run's results once its compiles are written: the curve with the Dynamo side's steps
// (`curve` is the one `rollup` reads, replaced in place, then taken), the rollup with the sites'
// string ids the writer interned, the counted compiles, the step axis and the rank divergence.
// Returns the rollup's groups changed after this analysis' checkpoint.
std::vector<uint32_t> write_run_results(
    store::Database& db, store::StringInterner& strings, int64_t run_id,
    const store::CompileResultWriter& writer, RollupBuilder&& rollup,
    std::vector<ConvergencePoint>& curve, StepCurve& dynamo_curve, const TrainingSteps& steps,
    const std::map<int64_t, double>& wall_ms, const std::optional<store::CountedCompiles>& counted,
    const DynamoStepPlacer& placer, store::CompileRowMemo* memo) {
  for (const auto& [number, sid] : site_sids_of(writer)) rollup.set_site_sid(number, sid);
  if (!dynamo_curve.empty()) {
    curve = merge_curves(curve, dynamo_curve.finish(steps.last_step().value_or(0), wall_ms));
    rollup.replace_curve(curve);
  }
  std::vector<uint32_t> changed_after_checkpoint =
      write_rollup(db, strings, run_id, std::move(rollup), memo);
  // Once the rollup, which read the curve in place, is written: the points are taken, not copied.
  store::write_convergence_points(db, run_id, std::move(curve), memo);
  if (counted) store::write_counted_compiles(db, run_id, *counted);
  record_step_axis(db, run_id, axis_of(steps, placer.unplaced, placer.unclocked));
  write_rank_divergence(db, run_id);  // reads the compiles written
  return changed_after_checkpoint;
}

}  // namespace

void analyze_runs(store::Database& db, const std::vector<int64_t>& run_ids,
                  AnalysisTimings* timings, store::AnalysisMemos* memos, DynamoRecordCache* records,
                  bool read_every_table) {
  store::StringInterner strings(db);
  AnalysisTimings unused;
  AnalysisTimings& t = timings ? *timings : unused;
  PhaseClock clock;
  auto lap = [&clock](double& phase) { clock.lap(phase); };
  for (int64_t run_id : run_ids) {
    // The XLA side first: its convergence curve prices the recompiles of the rollup. Dynamo
    // compiles are then written as they are attributed (never all held), and the XLA compiles
    // follow them in ordinal order.
    const bool only_run = store::only_run_in_store(db, run_id);
    DynamoSide dynamo_side = load_dynamo_side(db, run_id, only_run, records);
    const RunInputs& dynamo = dynamo_side.inputs();
    CompileIntake& intake = dynamo_side.intake;
    const size_t dynamo_records = intake.records;
    lap(t.load_dynamo_s);
    // The raw tables the run has rows in: the loaders skip the queries of the others.
    const store::RunTables tables =
        read_every_table ? store::RunTables{} : store::run_tables(db, run_id);
    const TrainingSteps steps = TrainingSteps::decide(load_step_evidence(
        db, run_id, std::move(intake.step_facts).finish(dynamo), tables, dynamo_side.step_lines));
    XlaRunInputs xla_inputs = load_xla_run(db, run_id, dynamo.source_names, tables);
    record_merged_sources(db, run_id, dynamo.merged_sources, xla_inputs.copied_sources);
    place_xla_steps(steps, xla_inputs);
    const std::map<int64_t, double> wall_ms = wall_ms_by_step(xla_inputs);
    XlaRunResult xla = analyze_xla_run(std::move(xla_inputs), 1);
    std::vector<ConvergencePoint> curve = std::move(xla.convergence);  // + the Dynamo side's
    StepCurve dynamo_curve;
    const DynamoStepLines dynamo_lines(db, run_id, steps, dynamo);
    const std::optional<double> execute_ms =
        tables.metric_sample ? store::last_execute_ms(db, run_id) : std::nullopt;
    RollupBuilder rollup(curve, execute_ms, kDefaultGrowthStep,
                         dynamo_records + xla.compiles.size());
    // The run's previous analysis is deleted on the writer thread, while the first compiles
    // are prepared here (nothing reads the derived tables in between). The rollup is built here,
    // as each compile is handed to the writer: at a million compiles the writer's inserts are
    // the longer task (the rollup on the writer thread made attributing 0.3 s longer), and the
    // sites' string ids, which the writer interns, are told to the rollup once it is done.
    store::CompileRowMemo* memo = memos ? &memos->of(run_id) : nullptr;
    const bool keep_compiles = memo && memo->known;
    const bool keep_points = keep_compiles && memo->points_known;
    if (memo && !keep_compiles) memo->forget_groups();     // the run's groups are deleted first
    if (memo && !keep_points) memo->points_known = false;  // and its points
    store::CompileResultWriter writer(
        db, strings, run_id,
        [&db, run_id, only_run, keep_compiles, keep_points] {
          store::clear_derived_results(db, run_id, only_run, keep_compiles, keep_points);
        },
        memo);
    lap(t.xla_s);
    DynamoStepPlacer placer{steps, dynamo_lines, dynamo_curve};
    const CompileSinks sinks{.rollup = rollup, .placer = placer, .writer = writer};
    // A watched run goes on from what its last analysis kept, when nothing that rests on changed.
    AttributionCheckpoint* checkpoint = memo ? dynamo_side.checkpoint : nullptr;
    const DynamoAttributed attributed =
        attribute_dynamo_side(dynamo_side, checkpoint,
                              {.steps = steps,
                               .curve = curve,
                               .memo = memo,
                               .xla_compiles = !xla.compiles.empty(),
                               .execute_ms = execute_ms},
                              sinks, [&] { lap(t.prepare_s); });
    dynamo_side.read_here =
        RunInputs{};  // release the Dynamo records before the XLA side is written
    t.compiles_kept += static_cast<int64_t>(attributed.kept);
    t.compiles_attributed += attributed.compiles - static_cast<int64_t>(attributed.kept) +
                             static_cast<int64_t>(xla.compiles.size());
    hand_over_xla_compiles(xla.compiles, attributed.compiles, sinks);
    lap(t.attribute_s);
    writer.finish();  // the database is the caller's again
    const std::vector<std::pair<uint32_t, int64_t>> site_sids = site_sids_of(writer);
    std::vector<uint32_t> changed_after_checkpoint =
        write_run_results(db, strings, run_id, writer, std::move(rollup), curve, dynamo_curve,
                          steps, wall_ms, xla.counted, placer, memo);
    if (checkpoint) checkpoint->written(memo->generation, site_sids, changed_after_checkpoint);
    lap(t.finish_s);
  }
}

}  // namespace rcf::analysis
