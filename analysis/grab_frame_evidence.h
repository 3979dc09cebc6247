// grab_graphs.py frame groups as compile evidence (docs/causes.md, "torch_xla and JAX"):
// `Frame has <N> graph(s) (<M> unique):` says that M distinct programs were built at one Python
// stack (M - 1 recompiles there) and that N - M of its syncs reused one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/attributed_compile.h"
#include "analysis/xla_compiles.h"

namespace rcf::analysis {

// The evidence kind of a compile known only from a grab_graphs.py summary.
inline constexpr std::string_view kGrabGraphsEvidence = "grab_graphs_frame_summary";

// Where the run already has torch_xla compile records at a group's frame, the group corroborates
// them: each gets an evidence line saying so (and whether the counts agree), and keeps the cause
// its own records decided. Where it has none, the group is the evidence itself: M compiles are
// appended at the frame (the first a `first_compile`, the others `unknown` recompiles that say
// what would decide the cause), numbered from `ordinal`. Summaries of the same stack in several
// sources are one group (the largest M): the script may have been run twice over one file.
void apply_grab_frames(const std::vector<GrabFrameRecord>& groups,
                       const std::map<int64_t, std::string>& source_name, int64_t& ordinal,
                       std::vector<AttributedCompile>& compiles);

}  // namespace rcf::analysis
