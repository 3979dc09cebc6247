#include "pipeline/growing_logs.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "analysis/run_analysis.h"
#include "pipeline/console_line_times.h"
#include "pipeline/grown_log_read_on.h"
#include "pipeline/line_time_stamper.h"
#include "pipeline/source_recording.h"
#include "store/ingest_writer.h"
#include "store/raw_row_deletions.h"
#include "store/store.h"
#include "store/trial_writes.h"
#include "util/error.h"
#include "util/hostname.h"

namespace rcf::pipeline {
namespace {

// How long the switch of the store to WAL mode waits for readers (once per watch).
constexpr int kWatchWalSwitchWaitMs = 1000;
// The read buffer of a log kept open between batches.
constexpr size_t kOpenLogBuffer = size_t{256} << 10;
// A console's line-time sidecar is `<log>.times` (pipeline/console_line_times.h).
constexpr std::string_view kSidecarSuffix = ".times";

}  // namespace

GrowingLogs::GrowingLogs(GrowingLogsRequest request) : request_(std::move(request)) {}
GrowingLogs::~GrowingLogs() = default;

store::Database& GrowingLogs::store() {
  if (!db_) {
    db_ = store::open_store(request_.db_path, store::OpenMode::kIngest);
    // Once: the indexes the writer's lookups need (a store of an older rcf lacks them).
    store::create_indexes(*db_);
    // So that the records kept between analyses know when rows they read were deleted.
    store::count_raw_row_deletions(*db_);
  }
  return *db_;
}

ingest::DriverOptions GrowingLogs::options_for(const std::string& /*path*/) const {
  ingest::DriverOptions options;
  // A log kept open keeps its read buffer: a watch over the logs of many ranks holds one each.
  // The buffer still grows for a long line (DriverOptions::max_line); the rows do not depend on
  // its size.
  options.buffer_size = kOpenLogBuffer;
  options.forced_format = request_.format;
  options.step_pattern = request_.step_pattern;
  // The store keeps where each log's read stopped, as after `rcf ingest` (docs/watch.md).
  options.mark_read_end = true;
  return options;
}

// One batch's writer and what it reads, for as long as the batch runs.
struct GrowingLogs::Batch {
  store::IngestWriter& writer;
  int64_t run_id;
  const std::map<std::string, std::string>& sidecars;
  bool final;
  IngestSummary& summary;
  // A log read anew, or an event read from a log kept open: the raw rows changed, and with them
  // what the analysis decides. Lines that only join the record an importer holds, or that are
  // noted and not read (a training loop's own output), change no raw row.
  bool rows_changed = false;
};

std::vector<std::string> GrowingLogs::read_batch(const std::vector<FileToRead>& files, bool final,
                                                 const PreviewLook& look_first) {
  std::vector<ingest::InputFile> inputs;
  std::map<std::string, const FileToRead*> by_path;
  for (const auto& f : files) {
    inputs.push_back({f.path, true});
    by_path[f.path] = &f;
  }
  // A changed sidecar's console is read again with it when the console did not change itself
  // (its lines' times came after its lines). The sidecars are not logs: each times its console.
  std::vector<FileToRead> timed_again;
  for (const auto& f : files)
    if (f.path.ends_with(kSidecarSuffix)) {
      const std::string log = f.path.substr(0, f.path.size() - kSidecarSuffix.size());
      auto read = read_to_.find(log);
      if (!by_path.count(log) && read != read_to_.end())
        timed_again.push_back({log, read->second, false});
    }
  for (const auto& f : timed_again) {
    inputs.push_back({f.path, true});
    by_path[f.path] = &f;
  }
  const std::map<std::string, std::string> sidecars = take_line_time_sidecars(inputs);
  IngestSummary summary;
  store::Database* db = &store();
  analysed_ = true;  // unless the batch is read and shown to add no raw row
  try {
    store::IngestWriter writer(*db, util::this_host());
    Batch batch{writer, writer.run_id(request_.lane, request_.run), sidecars, final, summary};
    for (const auto& input : inputs) read_file(batch, *by_path[input.path]);
    // The final batch ends every log kept open, those that did not grow since included.
    if (final)
      for (auto it = open_.begin(); it != open_.end();) {
        FileToRead rest{it->first, -1, false};
        ++it;  // read_file erases the log it ends
        read_file(batch, rest);
      }
    if (writer.drop_run_if_empty(batch.run_id)) {
      summary.warnings.push_back(not_created_warning(request_.lane, request_.run, summary));
      batch.rows_changed = true;
    }
    writer.finish_sources();
    if (look_first && !final) look_first_at_ends(look_first, summary.warnings);
    const bool store_moved = store::data_version(*db) != memos_.data_version;
    forget_memos_if_store_moved(*db);
    const auto analysis_started = std::chrono::steady_clock::now();
    // The analysis is a function of the raw rows: when this batch added none (and no other writer
    // changed the store), what the last one wrote stands (docs/watch.md, "How a batch is read").
    analysed_ = batch.rows_changed || store_moved || final;
    if (analysed_)
      analysis::analyze_runs(*db, writer.touched_runs(), &analysis_totals_, &memos_, &records_);
    writer.commit();
    memos_.data_version = store::data_version(*db);
    last_analysis_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - analysis_started).count();
  } catch (...) {
    open_.clear();     // the store holds none of this batch: every log is read anew
    memos_.clear();    // nor the rows the analysis wrote
    records_.clear();  // and what it read may be gone
    db_.reset();       // and the connection is opened again, in case it is what failed
    throw;
  }
  if (!wal_checked_) {
    wal_checked_ = store::switch_to_wal(*db, kWatchWalSwitchWaitMs);
    memos_.data_version = store::data_version(*db);  // the switch is no other writer's change
  }
  return summary.warnings;
}

// The batch's preview (preview(look, true)): one that fails leaves the batch to be read and
// analysed as if none had been asked for, saying why.
void GrowingLogs::look_first_at_ends(const PreviewLook& look, std::vector<std::string>& warnings) {
  try {
    preview(look, true);
  } catch (const Error& e) {
    warnings.push_back(std::string("the logs' last records were not read: ") + e.what());
  }
}

// Reads `file` on from where its open log stopped, or from its start: as a new log, or a new
// version of the log read before under its path.
void GrowingLogs::read_file(Batch& batch, const FileToRead& file) {
  read_to_[file.path] = file.bytes;
  // A console with a line-time sidecar (in this batch, or beside it) is read whole at every
  // batch: a line read before the sidecar noted its time would keep no time.
  std::optional<ConsoleLineTimes> times = line_times_of(batch.sidecars, file.path, batch.summary);
  if (!times && !batch.sidecars.count(file.path)) {
    std::string ignored;  // no sidecar beside it: the usual case
    times = ConsoleLineTimes::read(line_times_path(file.path), &ignored);
  }
  auto it = open_.find(file.path);
  if (it != open_.end() && (file.anew || times || !it->second.reader->can_read_on())) {
    open_.erase(it);
    it = open_.end();
  }
  if (it != open_.end()) {
    OpenLog& log = it->second;
    ingest::EventSink& sink = batch.writer.resume_source(batch.run_id, log.source_id, log.place);
    const int64_t events_before = log.reader->stats().events;
    log.reader->read_to(file.bytes, sink);
    if (batch.final) log.reader->finish(sink);
    batch.rows_changed = batch.rows_changed || log.reader->stats().events != events_before;
    if (log.reader->outcome() == ingest::SourceOutcome::kUnrecognized) {
      // A text file no format claimed yet (read on for a record that may come later) stays the
      // unrecognised source its first batch recorded.
      ingest::SourceStats unrecognized = log.reader->stats();
      settle_unrecognized(unrecognized);
      batch.writer.update_source(unrecognized);
    } else {
      batch.writer.update_source(log.reader->stats());
    }
    log.place = batch.writer.ended_place();
    if (!log.reader->can_read_on()) open_.erase(it);
    return;
  }
  batch.rows_changed = true;
  std::optional<store::IngestWriter::EarlierSource> earlier =
      batch.writer.earlier_source(batch.run_id, file.path);
  if (earlier && !times && !file.anew && read_on(batch, file, earlier->source_id)) return;
  ingest::DriverOptions options = options_for(file.path);
  options.open.max_raw_bytes = file.bytes;
  options.hash_prefix_bytes = earlier ? earlier->bytes : -1;
  ingest::EventSink& sink = batch.writer.begin_source(batch.run_id);
  const int64_t source_id = batch.writer.current_source();
  std::optional<LineTimeStamper> stamper;
  if (times) stamper.emplace(sink, *times);
  ingest::EventSink& first = stamper ? static_cast<ingest::EventSink&>(*stamper) : sink;
  auto reader = ingest::GrowingSource::open(file.path, first, options);
  if (batch.final || times) reader->finish(first);
  IngestedSource src;
  src.stats = reader->stats();
  settle_outcome(reader->outcome(), ingest::InputFile{file.path, true}, src, batch.summary);
  if (stamper) src.lines_timed = stamper->stamped();
  // A timed console read again with more of its times, the same bytes or more: it replaces its
  // earlier version even where the bytes did not change (a one-shot ingest would call it the
  // same file).
  if (times && earlier && !file.anew &&
      (src.stats.prefix_hash == earlier->content_hash ||
       src.stats.content_hash == earlier->content_hash)) {
    batch.writer.drop_source(earlier->source_id);
    earlier.reset();
  }
  if (record_source(batch.writer, earlier, std::move(src), batch.summary) && reader->can_read_on())
    open_[file.path] = OpenLog{std::move(reader), source_id, batch.writer.ended_place(), 0};
}

// Reads `file` on from where the read of its earlier source `source_id` stopped (an `rcf ingest`
// or a watch before this one), as `rcf ingest` of a grown log does (pipeline/grown_log_read_on.h),
// and keeps it open. False, with nothing written, when it cannot be read on.
bool GrowingLogs::read_on(Batch& batch, const FileToRead& file, int64_t source_id) {
  std::optional<store::SourceResume> point =
      read_on_point(batch.writer, file.path, source_id, file.bytes);
  if (!point) return false;
  auto reader = reopen_where_read_stopped(file.path, *point, options_for(file.path));
  if (!reader) return false;
  ingest::EventSink* sink = batch.writer.read_on_source(batch.run_id, *point);
  if (!sink) return false;
  reader->read_to(file.bytes, *sink);
  if (batch.final) reader->finish(*sink);
  IngestedSource src = end_read_on(batch.writer, reader->stats(), point->bytes);
  const bool duplicate = !src.duplicate_of.empty();
  count_source(std::move(src), batch.summary);
  if (!duplicate && reader->can_read_on())
    open_[file.path] = OpenLog{std::move(reader), source_id, batch.writer.ended_place(), 0};
  return true;
}

// Another connection that wrote the store since this one's last commit (an `rcf ingest` beside
// the watch) may have changed the compile rows the memos describe.
void GrowingLogs::forget_memos_if_store_moved(store::Database& db) {
  if (store::data_version(db) != memos_.data_version) memos_.clear();
}

bool GrowingLogs::OpenLog::unpreviewed() const {
  // A log of no format yet has no last record to preview.
  return reader->outcome() != ingest::SourceOutcome::kUnrecognized &&
         reader->stats().bytes > previewed_bytes;
}

bool GrowingLogs::has_unpreviewed() const {
  return std::any_of(open_.begin(), open_.end(),
                     [](const auto& entry) { return entry.second.unpreviewed(); });
}

std::vector<std::string> GrowingLogs::unpreviewed_logs() const {
  std::vector<std::string> grown;
  for (const auto& [path, log] : open_)
    if (log.unpreviewed()) grown.push_back(path);
  return grown;
}

bool GrowingLogs::preview_ends(const PreviewLook& look) {
  return preview(look, false);
}

// The logs that grew as if they ended now, shown to `look`: in a transaction of their own that is
// not committed, or, `inside_batch`, between the batch's reads and its analysis in a savepoint
// rolled back before that analysis (the batch's own rows stay as read).
bool GrowingLogs::preview(const PreviewLook& look, bool inside_batch) {
  const std::vector<std::string> grown = unpreviewed_logs();
  if (grown.empty()) return false;
  const auto started = std::chrono::steady_clock::now();
  store::Database& db = store();
  {
    std::optional<store::TrialWrites> undone;
    if (inside_batch) undone.emplace(db);
    store::IngestWriter writer(db, util::this_host(),
                               inside_batch ? store::IngestWriter::kCallersTransaction
                                            : store::IngestWriter::kOwnTransaction);
    write_ends(writer, grown, look);
  }  // rolled back (the writer's own transaction, or to the savepoint), also when it threw
  // Only once it succeeded: a preview that failed is made again.
  for (const auto& path : grown) open_[path].previewed_bytes = open_[path].reader->stats().bytes;
  last_preview_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return true;
}

// Ends each of the `grown` logs through `writer`, analyses the run and shows it to `look`.
void GrowingLogs::write_ends(store::IngestWriter& writer, const std::vector<std::string>& grown,
                             const PreviewLook& look) {
  store::Database& db = writer.db();
  const int64_t run_id = writer.run_id(request_.lane, request_.run);
  for (const auto& path : grown) {
    OpenLog& log = open_[path];
    // Ended on a copy of its importer: only what it holds as its last record is written.
    auto resumed = [&]() -> ingest::EventSink& {
      return writer.resume_source(run_id, log.source_id, log.place);
    };
    if (std::optional<ingest::SourceStats> ended = log.reader->preview_end(resumed)) {
      writer.update_source(*ended);
      continue;
    }
    // An importer that cannot be copied: a read of the same bytes that ends them replaces the
    // open source.
    writer.drop_source(log.source_id);
    ingest::DriverOptions options = options_for(path);
    options.open.max_raw_bytes = log.reader->stats().bytes;
    ingest::SourceStats stats;
    // Under the same id and execution group numbers: the compiles whose records it holds keep
    // their rows' values, and the analysis rewrites only what the read to the end changed.
    ingest::EventSink& sink = writer.begin_source(run_id, log.source_id, log.place.group_base);
    ingest::ingest_source(path, sink, options, &stats);
    writer.end_source(stats);
  }
  writer.finish_sources();
  forget_memos_if_store_moved(db);
  // Copies: what the preview writes is rolled back, and the memos and the kept records must
  // still describe the store. The copy of the records reads on from where the last batch's
  // analysis left them and goes on from its checkpoint, as a batch does, instead of reading and
  // attributing the run whole.
  store::AnalysisMemos written = memos_;
  analysis::DynamoRecordCache records = records_.fork();
  analysis::analyze_runs(db, writer.touched_runs(), &preview_totals_, &written, &records);
  look(db, run_id, written.find(run_id));
}

}  // namespace rcf::pipeline
