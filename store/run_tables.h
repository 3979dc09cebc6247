// Which of the raw tables that a run's analysis reads on the torch_xla and JAX side hold rows of
// the run, read in one statement before the analysis: a small log's run fills one or two of them,
// and the analysis skips the queries of the others (about thirty statements prepared for a run of
// three events; docs/performance.md, "Small logs"). Every skipped query reads rows of one run
// from one of these tables (the others joined to it), so with none there it would return no rows:
// skipping it changes no result.
#pragma once

#include <cstdint>

#include "store/database.h"

namespace rcf::store {

// True: the run may have rows there (the default, which reads everything).
struct RunTables {
  bool step_marker = true;
  bool step_timing = true;
  bool xla_block = true;
  bool xla_vlog = true;
  bool xla_execution_group = true;
  bool xla_execution = true;
  bool xla_profiler_note = true;
  bool metric_sample = true;  // rows of the three fields the analysis reads (kMetricFieldsTerm)
  bool jax_compile = true;
  bool jax_cache_miss = true;
  bool saved_graph = true;
  bool grab_graphs_frame = true;
  bool hlo_module = true;
};

// One EXISTS per table, each answered from the table's run_id index.
RunTables run_tables(Database& db, int64_t run_id);

}  // namespace rcf::store
