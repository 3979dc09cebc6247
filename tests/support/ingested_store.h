// The preamble of the end-to-end tests: ingest logs through the pipeline into a store, then read
// the store. One call each instead of building a pipeline::IngestRequest by hand.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"

namespace rcf::testing {

// `relative` under the repository's fixtures/ directory.
std::string fixture_path(const std::string& relative);

// The logs of the scenario fixtures/scenarios/`name` (its truth.json left out), sorted.
std::vector<std::string> scenario_files(const std::string& name);

// Ingests `paths` into the store at `db_path` (created when absent) under `lane` and `run` (""
// keeps IngestRequest's defaults), as `rcf ingest` does.
pipeline::IngestSummary ingest_logs(const std::string& db_path,
                                    const std::vector<std::string>& paths,
                                    const std::string& lane = "", const std::string& run = "");

// The store at `db_path`, opened for reading.
std::unique_ptr<store::Database> read_store(const std::string& db_path);

}  // namespace rcf::testing
