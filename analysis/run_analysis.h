// Recomputes the derived tables (compile_event, attribution, convergence_point) of runs from
// their raw tables. Called by `rcf ingest` inside its transaction, so readers never see raw rows
// without their analysis.
#pragma once

#include <cstdint>
#include <vector>

#include "store/compile_row_memo.h"
#include "store/database.h"

namespace rcf::analysis {

class DynamoRecordCache;  // analysis/dynamo_record_cache.h

// Seconds spent in each phase, summed over the runs analysed (for benchmarks).
struct AnalysisTimings {
  double load_dynamo_s = 0;  // reading the Dynamo raw rows
  double xla_s = 0;          // reading and attributing the torch_xla side
  double prepare_s = 0;      // merging, attaching and ordering the Dynamo records, while the
                             // writer thread deletes the runs' previous analysis
  double attribute_s = 0;    // attributing and handing over compiles (writes overlap on a thread)
  double finish_s = 0;       // waiting for the writes, convergence and rollup rows
  // Compiles attributed, and those taken as kept from an earlier analysis instead
  // (analysis/attribution_checkpoint.h).
  int64_t compiles_attributed = 0, compiles_kept = 0;
};

// `memos`: kept by a caller that analyses the same runs again and again on one connection
// (`rcf watch`): the compiles whose rows did not change are not written again, and each run's
// memo says which were (store/compile_row_memo.h). The caller clears them when a write fails.
// The queries of raw tables that a run has no rows in are skipped (store/run_tables.h);
// `read_every_table` runs them all, for the tests that compare the two. `records`: kept by the
// same kind of caller, the Dynamo records of the runs read so far (only the rows written since are
// read; analysis/dynamo_record_cache.h).
void analyze_runs(store::Database& db, const std::vector<int64_t>& run_ids,
                  AnalysisTimings* timings = nullptr, store::AnalysisMemos* memos = nullptr,
                  DynamoRecordCache* records = nullptr, bool read_every_table = false);

}  // namespace rcf::analysis
