// Reads one source end to end: open (decompressing if needed), sniff or take --format, feed
// lines to the importer, tally every line's fate.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ingest/events.h"
#include "ingest/reading/byte_source.h"
#include "ingest/source_stats.h"

namespace rcf::ingest {

struct DriverOptions {
  std::string forced_format;  // --format; empty = sniff
  size_t buffer_size = size_t{4} << 20;
  size_t max_line = size_t{64} << 20;
  OpenOptions open;
  // When >= 0, also hash the first this many decompressed bytes (SourceStats::prefix_hash).
  int64_t hash_prefix_bytes = -1;
  // --step-pattern: an RE2 pattern with named groups `step` and optionally `ms` (step wall time),
  // `compile_ms` and `ts`; every line it matches also yields a StepTiming, whatever the format.
  std::string step_pattern;
  // Called now and then with (raw bytes read, raw size or -1) for progress display.
  std::function<void(int64_t, int64_t)> progress;
};

enum class SourceOutcome {
  kIngested,      // read (maybe with rejected lines or an early read error, see stats)
  kUnrecognized,  // no importer recognised the content: nothing emitted
  kOpenFailed,    // could not be opened (stats.read_error says why)
};

// Ingests `path` into `sink`. `stats` is filled in every case. Never throws on bad input.
SourceOutcome ingest_source(const std::string& path, EventSink& sink, const DriverOptions& options,
                            SourceStats* stats);

// Rank encoded in a TORCH_TRACE file name (dedicated_log_torch_trace_rank_<N>[_*].log), if any.
std::optional<int64_t> rank_from_file_name(const std::string& path);

}  // namespace rcf::ingest
