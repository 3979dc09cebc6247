#include "pipeline/source_recording.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "ingest/importer.h"
#include "ingest/line_reasons.h"
#include "util/error.h"

namespace rcf::pipeline {
void settle_unrecognized(ingest::SourceStats& stats) {
  // Blank lines only (an empty log saved with CRLF, or pasted) is as empty as no byte.
  if (stats.bytes == 0 || stats.blank_only) stats.format = "empty";
  const ingest::LineReason why = ingest::reason::kUnrecognizedFormat;
  stats.skipped = stats.lines;
  if (stats.lines > 0)
    stats.reasons[{std::string(ingest::fate_name(why.fate)), std::string(why.name)}] = {stats.lines,
                                                                                        1, ""};
}

std::string not_created_warning(const std::string& lane, const std::string& run,
                                const IngestSummary& summary) {
  std::vector<std::string> places;
  for (const auto& src : summary.sources) {
    std::string place = fmt::format("lane '{}', run '{}'", src.duplicate_lane, src.duplicate_run);
    if (!src.duplicate_of.empty() && std::find(places.begin(), places.end(), place) == places.end())
      places.push_back(place);
  }
  std::string where;
  for (const auto& p : places) where += (where.empty() ? "" : "; ") + p;
  return fmt::format(
      "run '{}' of lane '{}' was not created: every file is already in the store ({}), so it "
      "would hold no evidence; ingest new logs, or use that lane and run",
      run, lane, where.empty() ? "nothing was read" : where);
}

std::string known_formats() {
  std::string known;
  for (const auto& info : ingest::importer_registry()) known += " " + info.name;
  return known;
}

void settle_outcome(ingest::SourceOutcome outcome, const ingest::InputFile& input,
                    IngestedSource& src, IngestSummary& summary) {
  if (outcome == ingest::SourceOutcome::kOpenFailed) {
    if (!input.from_walk)
      throw Error(fmt::format("cannot read {}: {}", input.path, src.stats.read_error));
    summary.warnings.push_back(fmt::format("skipped {}: {}", input.path, src.stats.read_error));
    src.stats.format = "unreadable";
    src.stats.content_hash = "unreadable:" + input.path;
  } else if (outcome == ingest::SourceOutcome::kUnrecognized && src.stats.bytes == 0 &&
             !src.stats.read_error.empty()) {
    // Not a single byte could be read (e.g. corrupt gzip): unreadable, not empty.
    if (!input.from_walk)
      throw Error(fmt::format("cannot read {}: {}", input.path, src.stats.read_error));
    summary.warnings.push_back(fmt::format("skipped {}: {}", input.path, src.stats.read_error));
    src.stats.format = "unreadable";
    src.stats.content_hash = "unreadable:" + input.path;
  } else if (outcome == ingest::SourceOutcome::kUnrecognized) {
    const bool empty = src.stats.bytes == 0 || src.stats.blank_only;
    if (!empty && !input.from_walk)
      throw Error(fmt::format("{}: not a recognised log format; name one with --format (known:{})",
                              input.path, known_formats()));
    if (!empty)
      summary.warnings.push_back(
          fmt::format("{}: not a recognised log format; its {} lines were counted, not read",
                      input.path, src.stats.lines));
    settle_unrecognized(src.stats);
  }
}

std::optional<ConsoleLineTimes> line_times_of(const std::map<std::string, std::string>& sidecars,
                                              const std::string& path, IngestSummary& summary) {
  auto it = sidecars.find(path);
  if (it == sidecars.end()) return std::nullopt;
  std::string error;
  auto times = ConsoleLineTimes::read(it->second, &error);
  if (!times) summary.warnings.push_back("line times not used: " + error);
  return times;
}

bool record_source(store::IngestWriter& writer,
                   const std::optional<store::IngestWriter::EarlierSource>& earlier,
                   IngestedSource src, IngestSummary& summary) {
  int64_t replaces = -1;
  if (earlier && !src.stats.prefix_hash.empty() && src.stats.prefix_hash == earlier->content_hash &&
      src.stats.content_hash != earlier->content_hash) {
    replaces = earlier->source_id;
    src.grew_from_bytes = earlier->bytes;
  }
  if (auto same = writer.end_source(src.stats, replaces)) {
    note_duplicate(*same, src);
    count_source(std::move(src), summary);
    return false;
  }
  count_source(std::move(src), summary);
  return true;
}

void note_duplicate(const store::IngestWriter::Duplicate& earlier, IngestedSource& src) {
  src.duplicate_of = earlier.path;
  src.duplicate_lane = earlier.lane;
  src.duplicate_run = earlier.run;
  src.grew_from_bytes = -1;
  src.read_on = false;
}

void count_source(IngestedSource src, IngestSummary& summary) {
  if (!src.duplicate_of.empty()) {
    ++summary.duplicates;
    summary.sources.push_back(std::move(src));
    return;
  }
  summary.events += src.stats.events;
  summary.lines += src.stats.lines;
  summary.bytes += src.stats.bytes;
  summary.rejected += src.stats.rejected;
  ++summary.formats[src.stats.format];
  summary.sources.push_back(std::move(src));
}

}  // namespace rcf::pipeline
