// The warm-restart proof (`rcf restart`): compares a cold and a warm run of one lane. Cache files
// on disk prove nothing; the proof is that the warm run built no (or almost no) programs and that
// its startup compile time dropped. A cache that was written but not read (the warm run rebuilt
// the same programs) is called out as such, and every program the warm run rebuilt is listed
// with its key, site and, where the logs say it, why.
//
// Two stages: load_restart_facts reads what the logs of one run said (compile events, metrics
// counters, JAX persistent-cache lines, step timings); decide_restart is a pure function of the
// two runs' facts, so every verdict rule is unit-tested on hand-built facts.
//
// The stages live in one file each: restart_facts (the store's rows, read by
// store/restart_fact_reader.h), restart_figures (derivation), restart_rebuilds (why each rebuild
// happened) and this one (the verdict and its headline).
#pragma once

#include <string>
#include <vector>

#include "analysis/restart_facts.h"
#include "analysis/restart_figures.h"
#include "analysis/restart_rebuilds.h"

namespace rcf::analysis {

enum class RestartVerdict {
  kProven,                // warm built no or almost no programs and startup time dropped
  kCacheWrittenNotRead,   // warm rebuilt the cold run's programs (same keys), nothing loaded
  kPartial,               // some programs loaded, some rebuilt (listed with why), or no speed-up
  kInsufficientEvidence,  // the logs cannot decide; says what to enable
};

// "proven", "not_proven_cache_unread", "partial", "insufficient_evidence": JSON and SQL names.
const char* restart_verdict_name(RestartVerdict verdict);

// One compared figure ("compile time: 18m02s -> 1m30s (-91%)") or, with no evidence, a remark.
struct Finding {
  std::string what;  // "programs built", "compile time", ...
  std::string text;  // "15 -> 0", "18m02s -> 1m30s (-91%)", or the remark
  std::string cold_evidence, warm_evidence;
};

struct RestartProof {
  RestartVerdict verdict = RestartVerdict::kInsufficientEvidence;
  std::string headline;                 // the verdict with its figures, one sentence
  std::vector<Finding> findings;        // figures with their evidence, most important first
  std::vector<RebuiltProgram> rebuilt;  // every program the warm run built, in order
  std::vector<std::string> to_enable;   // what to turn on when the evidence is missing
  RunFigures cold, warm;
};

// The proof is "almost no programs" when the warm run built at most this share of the cold
// run's programs, and "startup time dropped" when the warm startup took at most this share of
// the cold one.
inline constexpr double kAlmostNoProgramsShare = 0.10;
inline constexpr double kTimeDroppedShare = 0.50;

RestartProof decide_restart(const RunRestartFacts& cold, const RunRestartFacts& warm);

// Durations as the report prints them: 18m02s, 1h04m10s, 41.2s, 850ms.
std::string duration_text(double ms);

}  // namespace rcf::analysis
