// Reads one source end to end: open (decompressing if needed), sniff or take --format, feed
// lines to the importer, tally every line's fate.
#pragma once

#include <functional>
#include <memory>
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
  // Emit a SourceReadEnd just before the end of a plain log read to a final newline, for the
  // store to keep where its read stopped (`rcf ingest` and `rcf watch`; docs/watch.md).
  bool mark_read_end = false;
  // Called now and then with (raw bytes read, raw size or -1) for progress display.
  std::function<void(int64_t, int64_t)> progress;
};

enum class SourceOutcome {
  kIngested,      // read (maybe with rejected lines or an early read error, see stats)
  kUnrecognized,  // no importer recognised the content: nothing emitted
  kOpenFailed,    // could not be opened (stats.read_error says why)
};

// A source read in pieces while a run writes it (`rcf watch`, docs/watch.md): the lines read at
// one time stay read, and reading on later feeds only the lines appended since to the same
// importer, so that a growing log costs what was appended. The pieces give the events, notes
// and counts of one read of the whole file: reading on is allowed only where the first piece made
// every choice as that read makes it (a plain file whose first piece held the whole sniffing
// window; the wrapper, re-flow and format are learned from it). Otherwise the source is ended at
// open(). Each piece may go to another sink (the store's transaction of that piece).
class GrowingSource {
 public:
  ~GrowingSource();
  // Opens `path` and reads it as far as `options.open.max_raw_bytes` allows (all of it when -1),
  // into `sink`. Never null and never throws on bad input; outcome() says what was read.
  static std::unique_ptr<GrowingSource> open(const std::string& path, EventSink& sink,
                                             const DriverOptions& options);
  // kUnrecognized also while a source whose head no format claimed has shown no record yet: it
  // reads on as plain text (a record may come), and stats() are then those of the unrecognised
  // source its end would leave without one.
  SourceOutcome outcome() const;
  // True while reading on is allowed: the source is resumable and not finished.
  bool can_read_on() const;
  // Reads on up to raw byte `raw_limit` (-1: to the end of the file), into `sink`. The limit
  // should end a complete line; a partial line there is read as a last line without newline.
  void read_to(int64_t raw_limit, EventSink& sink);
  // Ends the source: the importer's open record, the last line's notes. Idempotent.
  void finish(EventSink& sink);
  // Writes into the sink that `sink()` returns what finish() would write now, and returns the
  // counts finish() would leave, without ending the source: read_to() goes on as if this had not
  // been called. nullopt, without calling `sink`, when the source cannot read on or its importer
  // cannot be copied (Importer::clone).
  std::optional<SourceStats> preview_end(const std::function<EventSink&()>& sink);
  // The counts so far (the whole source once finished).
  const SourceStats& stats() const;
  // The counts, moved out: the source is done with.
  SourceStats take_stats() &&;

 private:
  struct State;
  explicit GrowingSource(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Ingests `path` into `sink`. `stats` is filled in every case. Never throws on bad input.
SourceOutcome ingest_source(const std::string& path, EventSink& sink, const DriverOptions& options,
                            SourceStats* stats);

// Rank encoded in a TORCH_TRACE file name (dedicated_log_torch_trace_rank_<N>[_*].log), if any.
std::optional<int64_t> rank_from_file_name(const std::string& path);

}  // namespace rcf::ingest
