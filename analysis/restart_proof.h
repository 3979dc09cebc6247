// The warm-restart proof (`rcf restart`): compares a cold and a warm run of one lane. Cache files
// on disk prove nothing; the proof is that the warm run built no (or almost no) programs and that
// its startup compile time dropped. A cache that was written but not read (the warm run rebuilt
// the same programs) is called out as such, and every program the warm run rebuilt is listed
// with its key, site and, where the logs say it, why.
//
// Two stages: load_restart_facts reads what the logs of one run said (compile events, metrics
// counters, JAX persistent-cache lines, step timings); decide_restart is a pure function of the
// two runs' facts, so every verdict rule is unit-tested on hand-built facts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::analysis {

// One row of the `compiles` view (a compile as ingest saw it), with the raw fields the proof
// needs. A JAX row can still be a persistent-cache load: JAX prints `Finished XLA compilation`
// for loads too (decide_restart pairs it with the hit line).
struct CompileFact {
  std::string program_key;
  std::string site;
  std::string kind;   // xla, jax, dynamo, dynamo_failed
  std::string cache;  // backend cache outcome: hit, miss, bypass, "" unknown
  std::optional<int64_t> step;
  std::optional<double> compile_ms;
  std::optional<int64_t> graph_inputs;  // torch_xla: Number of Graph Inputs of the block
  std::string jax_function;             // JAX: the function (normalised, as in cache lines)
  bool jax_finish_record = false;  // JAX: a `Finished XLA compilation` record (else `Compiling`)
  int64_t source_id = 0;
  std::string source;  // file name of the record
  int64_t line = 0;
};

// A JAX persistent compilation cache line.
struct JaxCacheFact {
  std::string event;  // hit, miss, write, skip
  std::string key;    // jit_<name>-<sha256>, "" when the era printed none
  std::string function;
  std::optional<double> seconds;  // skip: the compile time that was under the minimum
  int64_t source_id = 0;
  std::string source;
  int64_t line = 0;
};

// The last torch_xla metrics report of a run (values are lifetime totals). The runtime prints
// only counters and metrics that have a value, so in a report that is present an absent name
// means zero.
struct MetricsFact {
  std::string source;                    // file of the report (the one with the latest values)
  std::optional<int64_t> step;           // [MetricsData; step=N] of the last report, when per step
  std::map<std::string, double> values;  // "CompileTime.TotalSamples", "PersistentCacheHit.Value",
                                         // "CompileTime.Accumulator" (ns), ...
  // Value of `name.field`: the printed value, 0 when absent from the report.
  double get(const std::string& name, const std::string& field) const;
  bool has(const std::string& name) const;
};

struct StepTimingFact {
  std::string source;
  int64_t steps = 0;                    // distinct steps timed
  int64_t first_step = 0;               // lowest step number
  std::optional<double> first_step_ms;  // its wall time
  std::optional<double> compile_ms;     // sum of the compile column, when the file has one
};

struct RunRestartFacts {
  int64_t run_id = 0;
  std::string lane;
  std::string run;
  std::vector<std::string> formats;      // formats of the run's sources, sorted, unique
  std::vector<std::string> debug_logs;   // PT_XLA_DEBUG sources (a compile log is present)
  int64_t xla_executions = 0;            // Execution Analysis blocks (PT_XLA_DEBUG_LEVEL=2)
  std::vector<CompileFact> compiles;     // in ordinal order
  std::vector<JaxCacheFact> jax_cache;   // in (source, line) order
  std::optional<MetricsFact> metrics;    // absent: no metrics report in the run
  std::optional<StepTimingFact> timing;  // absent: no step timings in the run
};

// ---------------------------------------------------------------------------------------------
// Derived figures and the verdict.

// A count or a time with the evidence it was read from ("CompileTime TotalSamples in
// metrics.txt (step 8)").
struct Figure {
  double value = 0;
  std::string evidence;
};

// A compile that built a program (persistent-cache loads removed).
struct ProgramBuild {
  std::string program_key;
  std::string site;
  std::optional<int64_t> step;
  std::optional<double> compile_ms;
  std::optional<int64_t> graph_inputs;
  std::string jax_function;
  std::string where;  // source:line of the record
};

struct RunFigures {
  std::vector<ProgramBuild> builds;            // from compile logs
  std::optional<Figure> programs_built;        // count; compile log or metrics
  std::optional<Figure> programs_loaded;       // persistent-cache hits (torch_xla, JAX, Dynamo)
  std::optional<Figure> cache_misses;          // persistent-cache misses
  std::optional<Figure> deserialize_failures;  // PersistentCacheDeserializeFailure
  std::optional<Figure> cache_writes;          // JAX `Writing ... to persistent compilation cache`
  std::optional<Figure> compile_ms;            // time spent building programs
  std::optional<Figure> load_ms;               // time spent loading programs from the cache
  std::optional<Figure> first_step_ms;         // wall time of the first timed step
  int64_t activity = 0;  // executions, timed steps, MarkStep or cache lines: the run did run
  std::vector<std::string> notes;  // disagreements between sources, worth a line in the report
  // Startup time: compile + load when the compile time is known.
  std::optional<double> startup_ms() const;
};

RunFigures derive_run_figures(const RunRestartFacts& facts);

enum class RestartVerdict {
  kProven,                // warm built no or almost no programs and startup time dropped
  kCacheWrittenNotRead,   // warm rebuilt the cold run's programs (same keys), nothing loaded
  kPartial,               // some programs loaded, some rebuilt (listed with why), or no speed-up
  kInsufficientEvidence,  // the logs cannot decide; says what to enable
};

// "proven", "not_proven_cache_unread", "partial", "insufficient_evidence": JSON and SQL names.
const char* restart_verdict_name(RestartVerdict verdict);

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

// ---------------------------------------------------------------------------------------------
// Database side.

// Finds the two runs. `lane` may be empty when each label names a run of exactly one lane.
// Throws rcf::Error for an unknown lane or run, an ambiguous label, runs of different lanes, or
// the same run twice.
struct RestartRuns {
  int64_t cold_run_id = 0;
  int64_t warm_run_id = 0;
  std::string lane;
};
RestartRuns resolve_restart_runs(store::Database& db, const std::string& lane,
                                 const std::string& cold_run, const std::string& warm_run);

RunRestartFacts load_restart_facts(store::Database& db, int64_t run_id);

// Durations as the report prints them: 18m02s, 1h04m10s, 41.2s, 850ms.
std::string duration_text(double ms);

}  // namespace rcf::analysis
