// Per-run rollups of the attributed compiles: recompiles grouped by site x cause and ranked into
// the fix-first list, and the run's convergence facts (settle step, compile share). Pure over the
// analysis results, so it is unit-tested on small inputs; run_analysis.cc writes the result to
// cause_group and run_convergence.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/convergence_summary.h"
#include "analysis/xla_compiles.h"
#include "util/text_table.h"

namespace rcf::analysis {

struct CauseGroup {
  std::string site;
  std::string cause;
  int64_t recompiles = 0;
  std::optional<double> compile_ms_lost;  // NULL when no compile time of the group is known
  std::string compile_ms_basis;           // measured, step_share or unknown
  std::optional<int64_t> first_step, last_step;
  std::string detail;   // detail of the group's latest recompile
  std::string subject;  // most frequent subject (ties: smallest)
  int64_t rank = 0;     // 1 = fix first
};

struct RunRollup {
  ConvergenceSummary convergence;
  int64_t compiles = 0;
  int64_t programs = 0;  // distinct program keys
  int64_t recompiles = 0;
  std::optional<double> compile_ms, wall_ms, execute_ms, compile_share;
  std::vector<CauseGroup> groups;  // in rank order
};

// Builds a RunRollup one compile at a time, so that a run's compiles can be written as they are
// attributed instead of being held: memory follows the distinct programs, sites and causes.
// The compile time a recompile cost: its measured compile_ms, else an even share of its step's
// compile time (from the convergence point) when that is known.
class RollupBuilder {
 public:
  // `curve` must outlive the builder.
  RollupBuilder(const std::vector<ConvergencePoint>& curve, std::optional<double> execute_ms,
                int64_t growth_step = kDefaultGrowthStep);
  void add(const AttributedCompile& c);
  RunRollup finish() &&;

 private:
  struct Group {
    CauseGroup g;
    uint32_t cause = 0;         // ordinal in causes_
    uint32_t next_at_site = 0;  // index + 1 of the site's next group in groups_, 0: none
    int64_t latest_ordinal = -1;
    int measured = 0, shared = 0;
    std::vector<std::pair<uint32_t, int64_t>> subjects;  // (ordinal in subjects_, count): few
  };
  Group& group_of(const AttributedCompile& c);

  RunRollup r_;
  std::map<int64_t, const ConvergencePoint*> point_at_;
  util::TextTable keys_;  // distinct program keys
  std::optional<double> known_ms_;
  // Groups by site x cause without a text copy or an allocation per compile: sites, causes and
  // subjects are numbered, and site_groups_[site - 1] is the index + 1 of the site's first group
  // (a site has a few causes). finish() orders the groups.
  util::TextTable sites_, causes_, subjects_;
  // Ordinal in sites_ by the producer's AttributedCompile::site_number - 1 (0: not seen yet), so
  // that a numbered site's text is hashed once, not once per compile.
  std::vector<uint32_t> site_ordinals_;
  std::vector<std::string> subject_texts_;  // by subject ordinal - 1
  std::vector<uint32_t> site_groups_;
  std::deque<Group> groups_;  // a deque: a new group moves none of the others
};

// The same over a vector of compiles.
RunRollup roll_up_run(const std::vector<AttributedCompile>& compiles,
                      const std::vector<ConvergencePoint>& curve, std::optional<double> execute_ms,
                      int64_t growth_step = kDefaultGrowthStep);

}  // namespace rcf::analysis
