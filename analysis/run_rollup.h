// Per-run rollups of the attributed compiles: recompiles grouped by site x cause and ranked into
// the fix-first list, and the run's convergence facts (settle step, compile share). Pure over the
// analysis results, so it is unit-tested on small inputs; run_analysis.cc hands the result to the
// store's derived-results writer (store/derived_results_writer.h: cause_group, run_convergence).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/convergence_summary.h"
#include "analysis/xla_compiles.h"
#include "store/derived_rows.h"
#include "util/distinct_text_counter.h"
#include "util/large_array_allocator.h"
#include "util/shared_chunks.h"
#include "util/text_table.h"

namespace rcf::analysis {

// A site x cause group of the fix-first list (store/derived_rows.h).
using CauseGroup = store::CauseGroup;

// Which of its cause's remedies (sql/schema.sql cause_remedy) a group shows, from the group's
// representative subject and detail (the fix-first row shows that detail as its example):
// "graph_break" for a sync_fragment made by a graph break that is not a host sync (an unsupported
// call or torch._dynamo.graph_break(): there is no .item() to remove), "ops_changed" for a
// graph_structure change that is not an alternation (no accumulation chain to wrap), else "".
std::string remedy_variant(std::string_view cause, std::string_view subject,
                           std::string_view detail);

struct RunRollup {
  ConvergenceSummary convergence;
  int64_t compiles = 0;
  int64_t programs = 0;  // distinct program keys
  int64_t recompiles = 0;
  std::optional<double> compile_ms, wall_ms, execute_ms, compile_share;
  std::vector<CauseGroup> groups;  // in rank order (finish() without a callback)
  // The groups (by the builder's index) that compiles added after the builder's last checkpoint
  // changed: the next analysis that goes on from that checkpoint hands them again
  // (RollupBuilder::hand_again).
  std::vector<uint32_t> changed_after_checkpoint;
};

// Builds a RunRollup one compile at a time, so that a run's compiles can be written as they are
// attributed instead of being held: memory follows the distinct programs, sites and causes.
// The compile time a recompile cost: its measured compile_ms, else an even share of its step's
// compile time (from the convergence point) when that is known.
class RollupBuilder {
 public:
  // `curve` must outlive the builder.
  // `expected_compiles`: how many compiles add() will see, when known (memory is reserved for
  // them up front), else 0.
  RollupBuilder(const std::vector<ConvergencePoint>& curve, std::optional<double> execute_ms,
                int64_t growth_step = kDefaultGrowthStep, size_t expected_compiles = 0);
  RollupBuilder(RollupBuilder&&) noexcept = default;
  RollupBuilder& operator=(RollupBuilder&&) noexcept = default;
  // A copy of the builder as it stands, kept by an analysis so that the next one goes on from
  // these compiles instead of adding them again (analysis/attribution_checkpoint.h). Until
  // resume_on(), the copy reads the curve this builder was given.
  RollupBuilder checkpoint();
  // A copy of a checkpoint, to go on from in a trial analysis (AttributionCheckpoint::fork).
  RollupBuilder fork() const { return RollupBuilder(*this); }
  // Goes on from a checkpoint in a later analysis, whose `curve` (it must outlive the builder)
  // and `execute_ms` these are. The producer's site numbers are forgotten (a later analysis may
  // number the sites otherwise; a site is found by its text). The compiles added before keep the
  // prices they got: resume only where the curve they were priced on equals `curve`.
  void resume_on(const std::vector<ConvergencePoint>& curve, std::optional<double> execute_ms);
  // `site_sid`, when not 0, is strings.string_id of c.site (the compile writer knows it): the
  // site's groups carry it, so that writing them looks no site up again.
  void add(const AttributedCompile& c, int64_t site_sid = 0);
  // The run's curve, once more of it is known (the Dynamo side's, built as its compiles were
  // added): the convergence facts and the run's times are taken from `curve` instead, which must
  // outlive the builder. Compiles added before keep the prices they got.
  void replace_curve(const std::vector<ConvergencePoint>& curve);
  // strings.string_id of the site the producer numbered `site_number` (AttributedCompile::
  // site_number), told after add() (the writer interns the sites on its own thread); ignored
  // for a number add() never saw.
  void set_site_sid(uint32_t site_number, int64_t site_sid);
  // The rollup, its groups in rank order (compile time lost, unknown last; recompiles; site;
  // cause: the fix_first view's order).
  RunRollup finish() &&;
  // The rollup without its groups: each is handed to `each` instead, in no particular order, in
  // one reused CauseGroup that `each` may take the texts of (hundreds of thousands of groups at a
  // million compiles are then written out without being all held twice). `changed_only`: only
  // the groups that may differ from what the analysis that took the checkpoint this builder
  // resumed from wrote: those a compile added since changed, and those hand_again() named (a
  // watched run of 50 000 groups changes a few a batch). Without a resume, every group.
  RunRollup finish(const std::function<void(CauseGroup&&)>& each, bool changed_only = false) &&;
  // Whether the builder goes on from a checkpoint (resume_on()).
  bool resumed() const { return resumed_at_ != 0; }
  // On a checkpoint: the groups the analysis it was taken in changed after taking it
  // (RunRollup::changed_after_checkpoint, of the builder it was taken from). Those the checkpoint
  // has are handed again by the finish(each, true) of a builder that resumes from it: their rows
  // hold what came after the checkpoint, which the next analysis may not add again.
  void hand_again(const std::vector<uint32_t>& groups);

 private:
  static constexpr int64_t kNoStep = std::numeric_limits<int64_t>::min();
  // A site x cause group. A million compiles make hundreds of thousands of groups, each touched
  // once per recompile in no particular order, so a group is kept small (texts by ordinal, its
  // first subject inline) and the groups sit in one array.
  struct Group {
    uint32_t site = 0;                 // ordinal in sites_
    uint32_t cause = 0;                // ordinal in causes_
    uint32_t next_at_site = 0;         // index + 1 of the site's next group in groups_, 0: none
    int32_t measured = 0, shared = 0;  // recompiles whose cost was measured / a step share
    uint32_t subject = 0;  // ordinal in subjects_ of the first subject seen (0: none yet); the
                           // others, rare, are counted in other_subjects_
    bool has_ms_lost = false;
    double ms_lost = 0;
    int64_t recompiles = 0;
    int64_t subject_count = 0;
    int64_t first_step = kNoStep, last_step = kNoStep;
    int64_t latest_ordinal = -1;  // its detail (details_) is that recompile's
    uint32_t touched = 0;         // the builder's generation (gen_) when a compile last changed it
  };
  Group& group_of(const AttributedCompile& c, int64_t site_sid);
  RollupBuilder(const RollupBuilder&) = default;  // checkpoint()'s: it counts the keys first

  RunRollup r_;
  // The curve's point of each step (the last, where a step has several), by step: a sorted
  // array, not a map (a point per step, 50 000 of them, were 50 000 nodes allocated at every
  // analysis of a watched run, and again at each copy of a checkpoint).
  std::vector<std::pair<int64_t, const ConvergencePoint*>> point_at_;
  const ConvergencePoint* point_at(int64_t step) const;
  int64_t growth_step_ = kDefaultGrowthStep;
  util::DistinctTextCounter program_keys_;  // every compile's, counted distinct by finish()
  std::optional<double> known_ms_;
  // Sites, causes and subjects are numbered (1, 2, ...), and site_groups_[site - 1] is the
  // index + 1 of the site's first group (a site has a few causes). A group holds them by number,
  // so that a copy of the builder (a checkpoint at every batch of a watched run) copies a few
  // arrays for them, not a string per site (half of a watched run's CPU was malloc and free).
  util::TextTable sites_{true}, causes_{true}, subjects_{true};
  // Which groups changed since when, so that a watched run's analysis hands only those
  // (finish(each, true)). Generations: resume_on() and checkpoint() each begin one; a group keeps
  // the generation of its last change. touched_: the groups changed since the resume (or since
  // construction), each once. recheck_: hand_again()'s groups.
  uint32_t gen_ = 1;
  uint32_t resumed_at_ = 0;       // the generation resume_on() began; 0: not resumed
  uint32_t checkpointed_at_ = 0;  // the generation the last checkpoint() began; 0: none taken
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> recheck_;
  void touch(Group& a);
  // The run's totals, moved out (finish's).
  RunRollup take_totals();
  // `a` as a CauseGroup row, into `g` (its detail taken from details_).
  void fill(uint32_t index, CauseGroup& g);
  std::vector<int64_t> site_sids_;  // by site ordinal - 1; 0: not told
  // Ordinal in sites_ by the producer's AttributedCompile::site_number - 1 (0: not seen yet), so
  // that a numbered site's text is hashed once, not once per compile.
  std::vector<uint32_t> site_ordinals_;
  std::vector<uint32_t> site_groups_;
  // Reserved for `expected_compiles` (at most one group each; pages never touched cost nothing),
  // so that a million compiles' groups are neither moved nor faulted in twice as the array grows.
  util::LargeVector<Group> groups_;
  // Each group's detail, by its index in groups_: the detail of its latest recompile. Shared
  // with the builder's checkpoints until a group changes (a batch of a watched run changes a few
  // of 50 000 groups), not copied with them; not interned (the distinct details of a million
  // compiles in one growing arena raised the analysis' peak by 75 MB).
  util::SharedChunks<std::string> details_;
  // (ordinal in subjects_, count) of a group's subjects after its first, by group index.
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, int64_t>>> other_subjects_;
};

// The same over a vector of compiles.
RunRollup roll_up_run(const std::vector<AttributedCompile>& compiles,
                      const std::vector<ConvergencePoint>& curve, std::optional<double> execute_ms,
                      int64_t growth_step = kDefaultGrowthStep);

}  // namespace rcf::analysis
