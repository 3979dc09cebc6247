// `rcf ingest` of a log that grew since it was ingested into the run reads it on from where that
// ingest's read stopped instead of again whole (docs/watch.md, "A log that grew, ingested
// again"). The importers keep no state in the store: the bytes read before are read again into
// no sink (parsed, not written), which leaves the importer as the earlier read left it before
// its end; the rows that end wrote are taken back, and only what the new bytes say is written.
// The store is then the one an ingest of the whole grown log leaves.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ingest/ingest_driver.h"
#include "pipeline/ingest_pipeline.h"
#include "store/ingest_writer.h"
#include "store/source_resume.h"

namespace rcf::pipeline {

// The point to read `path` on from: the earlier source's, when the file is longer now than what
// that read read (`readable` >= 0: the bytes of it that may be read now, `rcf watch`'s complete
// lines; else its size). nullopt: read it as a new version (stdin, no point kept, not longer).
std::optional<store::SourceResume> read_on_point(store::IngestWriter& writer,
                                                 const std::string& path,
                                                 const std::optional<int64_t>& earlier_source,
                                                 int64_t readable = -1);

// A reader of `path` where the read of `point` stopped: the bytes before read again into no sink.
// nullptr when the log cannot be read on: its first bytes are no longer those read before, or it
// is no longer read as it was then (another format or --step-pattern, another sniffing window).
std::unique_ptr<ingest::GrowingSource> reopen_where_read_stopped(const std::string& path,
                                                                 const store::SourceResume& point,
                                                                 ingest::DriverOptions options);

// Reads `path` on into the source of `point`, of `run_id`. nullopt, with nothing written, when
// the log cannot be read on: its first bytes are no longer those read before, or it is no longer
// read as it was then (another format or --step-pattern, sniffed on another window). Else the
// source as read (a duplicate of another source leaves the earlier one as it was).
std::optional<IngestedSource> read_grown_log_on(store::IngestWriter& writer, int64_t run_id,
                                                const std::string& path,
                                                const store::SourceResume& point,
                                                ingest::DriverOptions options);

// Ends the source read on from byte `from_bytes` (IngestWriter::end_read_on_source) and says how
// it ended: read on, or, when its content duplicates another source, left as it was.
IngestedSource end_read_on(store::IngestWriter& writer, ingest::SourceStats stats,
                           int64_t from_bytes);

}  // namespace rcf::pipeline
