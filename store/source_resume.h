// Where the read of a plain log stopped for good, as the store keeps it (table source_resume), so
// that `rcf ingest` of the log once it has grown reads on from there instead of again whole
// (docs/watch.md, "A log that grew, ingested again").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/database.h"
#include "store/step_marker_series.h"

namespace rcf::store {

struct SourceResume {
  int64_t source_id = 0;
  int64_t line = 0;   // the last line read before the end of the source
  int64_t bytes = 0;  // the bytes read before the end, ending with a newline
  std::string step_pattern;
  int64_t group_base = 0;                       // of the source's execution group ids
  std::optional<StepMarkerSeries::Row> series;  // the progress-line series open then
  // Rows the end of the source wrote after its read stopped, per table: the source's last rows
  // of that table. Tables in name order.
  std::vector<std::pair<std::string, int64_t>> end_rows;
  // From the source row, when read back: what the bytes read must hash to, and how they were read.
  std::string content_hash;
  std::string format;
};

// Replaces the row of `source_id` (none when `point` is nullopt: the source cannot be read
// on). Inside the caller's transaction.
void write_source_resume(Database& db, int64_t source_id, const std::optional<SourceResume>& point);

// The point of `source_id`, nullopt when it has none or its row does not make sense (a store
// edited by hand: the log is then read again whole). `takes_back(table)` says which tables its end
// rows may name: those the ingest writes a source's rows into, never any other.
std::optional<SourceResume> read_source_resume(
    Database& db, int64_t source_id, const std::function<bool(const std::string&)>& takes_back);

// Deletes the rows the end of the source wrote (`point.end_rows`): for each table, the source's
// rows with the largest rowids, which SQLite gives the rows inserted last. False when a table
// holds fewer rows of the source than the point names (a store edited by hand): the caller rolls
// the deletions back and reads the log again whole.
bool take_back_end_rows(Database& db, const SourceResume& point);

}  // namespace rcf::store
