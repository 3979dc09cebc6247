#include "pipeline/grown_log_read_on.h"

#include <filesystem>
#include <utility>

#include "pipeline/source_recording.h"

namespace rcf::pipeline {
namespace {

// Where the bytes read before go while they are read again: nowhere (their rows are stored).
class NoSink : public ingest::EventSink {
 public:
  void emit(ingest::Event&&) override {}
  void emit_batch(std::vector<ingest::Event>&&) override {}
  void note(int64_t, ingest::LineFate, std::string_view, std::string_view) override {}
  using ingest::EventSink::note;
};

// Whether the read of the bytes read before ended where, and as, the earlier read did: the same
// bytes (their hash), lines, importer and step pattern, and it can go on.
bool reads_as_before(const ingest::GrowingSource& reader, const store::SourceResume& point,
                     const ingest::DriverOptions& options) {
  const ingest::SourceStats& read = reader.stats();
  return reader.can_read_on() && read.read_error.empty() && read.bytes == point.bytes &&
         read.lines == point.line && read.content_hash == point.content_hash &&
         read.format == point.format && options.step_pattern == point.step_pattern;
}

}  // namespace

std::optional<store::SourceResume> read_on_point(store::IngestWriter& writer,
                                                 const std::string& path,
                                                 const std::optional<int64_t>& earlier_source,
                                                 int64_t readable) {
  if (!earlier_source || path == "-") return std::nullopt;
  std::optional<store::SourceResume> point = writer.read_end_of(*earlier_source);
  if (!point) return std::nullopt;
  if (readable < 0) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return std::nullopt;
    readable = static_cast<int64_t>(size);
  }
  // Nothing more to read: the same bytes are the same source (a duplicate, not a read on).
  if (readable <= point->bytes) return std::nullopt;
  return point;
}

std::unique_ptr<ingest::GrowingSource> reopen_where_read_stopped(const std::string& path,
                                                                 const store::SourceResume& point,
                                                                 ingest::DriverOptions options) {
  options.open.max_raw_bytes = point.bytes;
  options.mark_read_end = true;
  static NoSink nowhere;  // stateless; the reader is pointed at its next sink before each read
  auto reader = ingest::GrowingSource::open(path, nowhere, options);
  if (!reads_as_before(*reader, point, options)) return nullptr;
  return reader;
}

std::optional<IngestedSource> read_grown_log_on(store::IngestWriter& writer, int64_t run_id,
                                                const std::string& path,
                                                const store::SourceResume& point,
                                                ingest::DriverOptions options) {
  auto reader = reopen_where_read_stopped(path, point, std::move(options));
  if (!reader) return std::nullopt;
  ingest::EventSink* sink = writer.read_on_source(run_id, point);
  if (!sink) return std::nullopt;
  reader->read_to(-1, *sink);
  reader->finish(*sink);
  return end_read_on(writer, std::move(*reader).take_stats(), point.bytes);
}

IngestedSource end_read_on(store::IngestWriter& writer, ingest::SourceStats stats,
                           int64_t from_bytes) {
  IngestedSource src;
  src.stats = std::move(stats);
  if (auto same = writer.end_read_on_source(src.stats)) {
    note_duplicate(*same, src);
  } else {
    src.grew_from_bytes = from_bytes;
    src.read_on = true;
  }
  return src;
}

}  // namespace rcf::pipeline
