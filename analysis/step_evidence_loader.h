// Gathers what analysis/training_steps.h decides a run's training steps from: the progress lines,
// step-end syncs and step records of each source, and where compiles are. The rows come from
// store/step_row_reader.h; which rows are a compile source's progress lines and which are timed
// steps of another source is decided here.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "analysis/kept_step_lines.h"
#include "analysis/training_steps.h"
#include "store/database.h"
#include "store/run_tables.h"

namespace rcf::analysis {

// What the run's Dynamo records, already in memory for attribution, say about steps, so that the
// store's largest tables are not scanned again: the first line of each Dynamo log's records (its
// own compile records and graph breaks) and whether a compile has a start time. A text log read
// under a TORCH_TRACE log's keys (analysis/same_process_sources.h) is `aliased`: its records
// carry the trace's source, so its first line is read from the store.
struct DynamoStepFacts {
  std::map<int64_t, int64_t> first_line;
  std::map<int64_t, int64_t> run_first_line;  // the first record of the run's first compile (0/0)
  bool start_times = false;
  std::vector<int64_t> aliased;
};

// `tables`: which of the run's tables hold rows; the queries of the others are skipped.
// `kept`: the run's progress lines with a time, kept by a watch (read from the store when null).
StepEvidence load_step_evidence(store::Database& db, int64_t run_id, const DynamoStepFacts& dynamo,
                                const store::RunTables& tables = {},
                                const KeptStepLines* kept = nullptr);

}  // namespace rcf::analysis
