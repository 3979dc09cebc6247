// The steps of ingesting one source that `rcf ingest` and `rcf watch` share: what an input that
// gave no events is, the line-time sidecar of a console, and recording the source in the store
// (a duplicate dropped, a grown log replacing its earlier version) with its summary line.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ingest/ingest_driver.h"
#include "ingest/input_walker.h"
#include "pipeline/console_line_times.h"
#include "pipeline/ingest_pipeline.h"
#include "store/ingest_writer.h"

namespace rcf::pipeline {

// Why the run (lane, run) was not created: every file of the ingest was already in the store.
std::string not_created_warning(const std::string& lane, const std::string& run,
                                const IngestSummary& summary);

// The importers' names, each after a space: " torch_trace dynamo_text ...".
std::string known_formats();

// Settles an input that gave no events: unreadable, empty or of no known format. Named on the
// command line that is an error (throws rcf::Error); found while walking, a warning.
void settle_outcome(ingest::SourceOutcome outcome, const ingest::InputFile& input,
                    IngestedSource& src, IngestSummary& summary);

// An unrecognised source as the store keeps it: empty when it holds no byte or blank lines only,
// every line counted once under `unrecognized_format` (skipped).
void settle_unrecognized(ingest::SourceStats& stats);

// The line-time sidecar of `path`, if it has one that reads; one that does not is a warning.
std::optional<ConsoleLineTimes> line_times_of(const std::map<std::string, std::string>& sidecars,
                                              const std::string& path, IngestSummary& summary);

// Marks `src` as a duplicate of `earlier` (nothing of it was kept).
void note_duplicate(const store::IngestWriter::Duplicate& earlier, IngestedSource& src);

// Counts a source ended in the store, or found to duplicate an earlier one, in the summary.
void count_source(IngestedSource src, IngestSummary& summary);

// Ends the source in the store (a duplicate of a file already there is dropped; a log that grew
// replaces its earlier prefix) and counts it in the summary. False when it was a duplicate.
bool record_source(store::IngestWriter& writer,
                   const std::optional<store::IngestWriter::EarlierSource>& earlier,
                   IngestedSource src, IngestSummary& summary);

}  // namespace rcf::pipeline
