// What one analysis of a watched run keeps so that the next one attributes only the compiles after
// an unchanged beginning of the run's attribution order (docs/watch.md, "How a batch is read"):
// those first compiles, with where each was placed among the steps, the rollup and the Dynamo
// curve as they stood after them, and the facts of the whole run that a compile's attribution
// reads. The next analysis goes on from there only when nothing these rest on has changed:
//  - the first compiles of its order are the same compiles, and none got a record, a guard
//    failure or a cache outcome since (the records cache says which compiles did);
//  - no graph break was added, nor a record of a compile a break was traced in (a resume
//    fragment is matched against every break);
//  - the run's processes, its logs' names, whether its steps are decided and which logs' progress
//    lines place compiles are the same, and it has no torch_xla or JAX side (whose curve prices
//    the recompiles);
//  - each kept compile is placed in the same step (asked again when the steps are decided, but
//    for a compile its log's progress lines place before their last line at the checkpoint, when
//    those lines only grew since: TrainingSteps::placed_as_before);
//  - the store holds the compile rows of the analysis that kept it (the memo's generation).
// Otherwise the run is attributed whole, as a one-shot ingest does. Lifetime: the records cache's
// entry of the run (analysis/dynamo_record_cache.h), dropped whenever what it read may be gone.
// Memory: about 80 bytes a kept compile, and a copy of the rollup (its groups and program keys).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/dynamo_attribution.h"
#include "analysis/run_rollup.h"
#include "analysis/step_curve.h"
#include "analysis/training_steps.h"

namespace rcf::analysis {

// The facts of a whole run that each compile's attribution or step placement reads.
struct RunAttributionFacts {
  size_t breaks = 0;
  std::vector<std::pair<int64_t, std::string>> source_names;
  bool several_processes = false;
  bool steps_decided = false;
  std::vector<int64_t> line_sources;  // TrainingSteps::line_sources()
  bool other_runtimes = false;        // a torch_xla or JAX side (its compiles or curve)
  bool operator==(const RunAttributionFacts&) const = default;
};

// Where a compile was placed: the (source, line) its step is read at, (-1, -1) for none
// (DynamoStepLines::place_of in analysis/run_analysis.cc).
using StepPlace = std::pair<int64_t, int64_t>;

class AttributionCheckpoint {
 public:
  // What the analysis goes on from: the rollup and the Dynamo curve after the kept compiles, and
  // how many of those no step could take.
  struct Resumed {
    RollupBuilder rollup;
    StepCurve curve;
    int64_t unplaced = 0, unclocked = 0;
  };

  // How many compiles of `run` (in attribution order) the analysis may take as kept: all the kept
  // ones when nothing they rest on changed (above), else 0. `changed`: the keys of the compiles
  // that got a record, a guard failure or a cache outcome since the kept analysis, sorted.
  size_t usable(const DynamoAttributionRun& run, const RunInputs& in,
                const RunAttributionFacts& facts, const std::vector<DynamoKey>& changed,
                const TrainingSteps& steps, int64_t memo_generation) const;

  // Gives up the state after the kept compiles, to go on from (once, after usable() said all).
  Resumed resume();

  // Plans the next checkpoint: after ordinal `until` of this analysis, whose first `kept`
  // compiles were taken as kept (0: attributed whole), with the run's `facts` and the `steps`
  // that placed its compiles. Until it is taken (take()), the checkpoint is not usable.
  void plan(size_t kept, size_t until, RunAttributionFacts facts, const TrainingSteps& steps);
  // Whether the compile of `ordinal` is one the next checkpoint keeps, and its last.
  bool keeps(int64_t ordinal) const {
    return ordinal > 0 && static_cast<size_t>(ordinal) <= until_;
  }
  bool ends_at(int64_t ordinal) const {
    return ordinal > 0 && static_cast<size_t>(ordinal) == until_;
  }
  // The next kept compile, in ordinal order, placed at `place`.
  void keep(const AttributedCompile& c, StepPlace place);
  // The state after the compile ends_at() names (or after the kept compiles, when that is where
  // the plan ends).
  void take(RollupBuilder& rollup, const StepCurve& curve, int64_t unplaced, int64_t unclocked);
  // Once the analysis' writes are done: the memo generation they made, the site ids the compile
  // writer interned (the kept rollup's groups carry them), by the producer's site number, and the
  // rollup's groups that compiles after the checkpoint changed (the next analysis that goes on
  // from here hands them again: RollupBuilder::hand_again).
  void written(int64_t memo_generation, const std::vector<std::pair<uint32_t, int64_t>>& site_sids,
               const std::vector<uint32_t>& groups_changed_after);
  // Forgets everything (the analysis that planned it failed or was not resumable).
  void clear() { *this = AttributionCheckpoint(); }

  size_t kept() const { return state_ ? kept_count() : 0; }

  // A copy, for a trial analysis that goes on from it and is rolled back (a watch's preview). It
  // reads this one's kept compiles in place: this must outlive it and not change meanwhile.
  AttributionCheckpoint fork() const;
  // A fork whose analysis plans no checkpoint of its own (plan() keeps nothing, take() is never
  // due): the trial is dropped with it, and what it would keep, a copy of the rollup among it,
  // would be made for nothing.
  AttributionCheckpoint trial() const;

 private:
  struct Kept {  // one compile of the kept beginning of the order
    DynamoKey key;
    StepPlace place{-1, -1};
    std::optional<int64_t> start_us, step;
  };
  size_t kept_count() const { return borrowed_ + compiles_.size(); }
  const Kept& kept_at(size_t i) const {
    return i < borrowed_ ? (*borrowed_from_)[i] : compiles_[i - borrowed_];
  }
  void keep_first(size_t n);

  // The kept compiles by ordinal - 1: a fork's first `borrowed_` are its parent's (copying them
  // was an eighth of a watch's CPU per recompile at 100 000 compiles, docs/performance.md), then
  // its own.
  const std::vector<Kept>* borrowed_from_ = nullptr;
  size_t borrowed_ = 0;
  std::vector<Kept> compiles_;
  size_t until_ = 0;  // the planned checkpoint's ordinal
  RunAttributionFacts facts_;
  SeriesPlacement placement_;     // of the steps that placed the kept compiles (or checked them)
  std::optional<Resumed> state_;  // after compiles_, once taken
  int64_t memo_generation_ = -1;  // of the rows the store holds after the analysis that took it
  bool plans_ = true;             // false: a trial()'s, which keeps nothing
};

}  // namespace rcf::analysis
