// `rcf ingest` as a function: expand inputs, read each with its importer, write everything in
// one transaction, recompute the analysis of the touched runs, commit. Any error leaves the
// database exactly as it was.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingest/source_stats.h"

namespace rcf::pipeline {

struct IngestRequest {
  std::string db_path = "rcf.db";
  std::string lane = "default";
  std::string run = "default";
  std::string format;  // forced importer; empty = sniff each file
  std::string host;    // --host: the machine the logs come from (source.host); empty = this one's
  std::vector<std::string> paths;
  std::string step_pattern;  // --step-pattern (RE2 with named groups step[, ms, compile_ms, ts])
  bool strict = false;       // a rejected line fails the whole ingest
  // --bundle / --bundle-set / rcf capture: a JSON object merged into the run's bundle (its keys
  // win over the run's; null removes a key). Null = none. With a bundle, `paths` may be empty
  // when the run exists: only the bundle is recorded.
  nlohmann::json bundle;
  // Importer per path, for named files whose first log line may come after the first 64 KiB
  // that sniffing reads (rcf capture's console logs). Other paths are sniffed (or take `format`).
  std::map<std::string, std::string> format_of_path;
  size_t buffer_size = size_t{4} << 20;
  // Bytes to read of a plain file, for files that are still being written: `rcf watch` reads up
  // to the last complete line (docs/watch.md). Other paths are read whole.
  std::map<std::string, int64_t> byte_limit_of_path;
  // Named paths are treated as found by a walk: one that cannot be read or whose format is not
  // recognised (yet: a log's first lines may not say) is a warning, not an error (`rcf watch`).
  bool named_paths_as_walked = false;
  // Progress callback: (file index, file count, path, raw bytes read, raw size or -1).
  std::function<void(size_t, size_t, const std::string&, int64_t, int64_t)> progress;
};

struct IngestedSource {
  ingest::SourceStats stats;
  std::string duplicate_of;  // non-empty: same content as this earlier source, nothing added
  std::string duplicate_lane, duplicate_run;  // the run that holds that earlier source
  // >= 0: the file grew since it was ingested into this run with this many bytes; it was read
  // on from there into the same source (`read_on`), or read again whole and replaced that
  // earlier version.
  int64_t grew_from_bytes = -1;
  bool read_on = false;
  // Progress lines given the time they were printed by the log's line-time sidecar
  // (pipeline/console_line_times.h).
  int64_t lines_timed = 0;
};

struct IngestSummary {
  std::vector<IngestedSource> sources;
  std::vector<std::string> warnings;  // unreadable walked entries, unrecognized files, ...
  int64_t events = 0;
  int64_t lines = 0;
  int64_t bytes = 0;
  int64_t rejected = 0;
  int64_t duplicates = 0;
  std::map<std::string, int64_t> formats;  // format -> files
  // False when the run did not exist and nothing was added to it (every file was already in the
  // store, e.g. under another lane): it was not created, as a run without evidence.
  bool run_created_or_kept = true;
};

// Throws rcf::Error (nothing written) for usage and input errors: unknown --format, a named path
// that cannot be read or whose format is not recognised, no input at all, database problems,
// --strict with rejected lines.
IngestSummary run_ingest(const IngestRequest& request);

std::string render_ingest_summary(const IngestSummary& summary);

}  // namespace rcf::pipeline
