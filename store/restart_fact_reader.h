// What the logs of one run say for the warm-restart proof (analysis/restart_proof.h, which decides
// on these rows): compile events, metrics counters, JAX persistent-cache lines, step timings; and
// the runs a proof's run labels name. It reads the tables behind the views: the compiles view has
// no source and line, which pair a compile with its XLA block and JAX record, and no view holds
// metric samples, JAX cache lines or step timings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/run_queries.h"

namespace rcf::store {

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

// The facts of run `run_id`; throws rcf::Error when the store has no such run.
RunRestartFacts restart_facts_of_run(Database& db, int64_t run_id);

// How many runs `lane` has (run_table, so a run without sources counts).
int64_t run_count_of_lane(Database& db, const std::string& lane);

// The runs labelled `run`, in `lane` or, when `lane` is "", in any lane; ordered by lane.
std::vector<RunRef> runs_labelled(Database& db, const std::string& lane, const std::string& run);

}  // namespace rcf::store
