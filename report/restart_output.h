// `rcf restart` output: the warm-restart proof as terminal text and as versioned JSON. Renders
// analysis::RestartProof only; every listing keeps the proof's order (rebuilt programs in compile
// order), so outputs diff cleanly.
#pragma once

#include <string>

#include "analysis/restart_proof.h"

namespace rcf::report {

inline constexpr int kRestartJsonVersion = 1;
// Programs listed per list (rebuilt, each run's builds); the rest is counted, and the `compiles`
// view has every one. Bounded so that a run of a million compiles still gives a small output.
inline constexpr size_t kRestartListed = 50;

struct RestartReport {
  std::string lane;
  std::string cold_run;
  std::string warm_run;
  analysis::RestartProof proof;
};

std::string render_restart_text(const RestartReport& report);
std::string render_restart_json(const RestartReport& report);

}  // namespace rcf::report
