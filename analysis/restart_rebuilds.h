// The programs a warm run built again, each related to the cold run (same program, changed graph
// key, new site) with one sentence from the evidence saying why the cache did not supply it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/restart_facts.h"
#include "analysis/restart_figures.h"

namespace rcf::analysis {

// How a warm-run rebuild relates to the cold run.
enum class RebuildKind {
  kSameProgram,  // the cold run built the same program key: the cache did not supply it
  kKeyChanged,   // the cold run built another key at this site: the graph key changed
  kNewSite,      // the cold run built nothing at this site
};
const char* rebuild_kind_name(RebuildKind kind);  // same_program, key_changed, new_site

struct RebuiltProgram {
  ProgramBuild build;
  RebuildKind kind = RebuildKind::kSameProgram;
  std::string cold_program_key;  // kKeyChanged: the cold program it replaces
  std::string why;               // one sentence from the evidence
};

// Every program the warm run built (`w.builds`), in order, related to the cold run's builds.
std::vector<RebuiltProgram> classify_rebuilds(const RunRestartFacts& cold,
                                              const RunRestartFacts& warm, const RunFigures& c,
                                              const RunFigures& w);

// How many of `rebuilt` no cache could have avoided: the cold run chose not to write the entry
// (JAX's minimum compile time). They do not count against the proof.
int64_t count_uncacheable_rebuilds(const RunRestartFacts& cold,
                                   const std::vector<RebuiltProgram>& rebuilt);

}  // namespace rcf::analysis
