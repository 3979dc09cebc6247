// The figures of one run derived from its restart facts (analysis/restart_facts.h): which
// programs it built, how many it loaded from the persistent cache, its compile and load times,
// each with the evidence it was read from. Pure functions of the facts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/restart_facts.h"

namespace rcf::analysis {

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

// "source:line", where a restart figure's evidence stands.
std::string where_of(const std::string& source, int64_t line);

}  // namespace rcf::analysis
