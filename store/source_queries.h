// A run's sources (the ingested inputs) as plain structs: the ingest statistics, the formats read
// and the logs analysis read as one process, for `rcf explain` and the reports.
//
// The statistics read the internal `source` and `line_note` tables: the ingest_stats view has no
// run_id and lacks the encoding, skipped and warning counts and the read error the report shows,
// and adding them to the view would change a public view of schema version 13 (a store's views are
// those it was created with). The merged logs come from the merged_sources view.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

// Lines rejected over the run's sources.
int64_t rejected_lines_of_run(Database& db, int64_t run_id);

// The distinct formats of the run's sources, sorted.
std::vector<std::string> formats_of_run(Database& db, int64_t run_id);

struct SourceRow {
  std::string path;  // as ingested ('-' = stdin)
  std::string format, encoding;
  int64_t lines = 0, bytes = 0, events = 0, skipped = 0, rejected = 0, warnings = 0;
  std::string first_error, read_error;
  std::string rejected_reasons;  // "bad_json 3, truncated_block 1": most first, then by reason
};

struct RunSources {
  std::vector<SourceRow> listed;  // by path, at most `limit`
  int64_t total = 0;              // sources of the run
};

RunSources sources_of_run(Database& db, int64_t run_id, int64_t limit);

// A log analysis read as the same process as another source of the run (merged_sources view).
struct MergedSourceRow {
  std::string source, same_process_as;  // paths
  std::string evidence;
};

std::vector<MergedSourceRow> merged_sources_of_run(Database& db, int64_t run_id);

// A machine the run's logs came from (source.host, docs/merge.md) and how many of its sources.
struct SourceHostRow {
  std::string host;  // "" when the store recorded none (an older rcf)
  int64_t sources = 0;
};

// The hosts of the run's sources, by name.
std::vector<SourceHostRow> hosts_of_run(Database& db, int64_t run_id);

}  // namespace rcf::store
