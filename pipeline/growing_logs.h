// The logs `rcf watch` reads in pieces (docs/watch.md, "How a batch is read"). Each batch is one
// store transaction that reads every file with something new up to what is readable, then
// analyses the run. A log kept open between batches (ingest::GrowingSource) is read on from where
// the last batch stopped, into the same source, so that a batch costs what was appended; any
// other file (gzip, shorter than the sniffing window, a console with a line-time sidecar) is read
// whole again and replaces its earlier version, as `rcf ingest` of a grown log does. The store
// after the final batch equals a one-shot `rcf ingest` of the same files.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/dynamo_record_cache.h"
#include "analysis/run_analysis.h"
#include "ingest/ingest_driver.h"
#include "pipeline/watched_files.h"
#include "store/compile_row_memo.h"
#include "store/database.h"
#include "store/ingest_writer.h"

namespace rcf::pipeline {

struct GrowingLogsRequest {
  std::string db_path;
  std::string lane, run;
  std::string format;        // forced importer; empty = sniff each file
  std::string step_pattern;  // as `rcf ingest --step-pattern`
};

class GrowingLogs {
 public:
  explicit GrowingLogs(GrowingLogsRequest request);
  ~GrowingLogs();

  // Shows `look` the store as it would be if every log kept open ended now (what the importers
  // hold as a log's last record included), inside a transaction that is then rolled back. Only
  // logs that grew since the last preview are ended: on a copy of the importer's state
  // (ingest::GrowingSource::preview_end), or, for an importer that cannot be copied, by a read of
  // the log again whole. The analysis writes through a copy of the memos: `look` gets what it
  // wrote relative to the last batch (nullptr when not known), and the memos stay those of the
  // committed store.
  using PreviewLook =
      std::function<void(store::Database&, int64_t run_id, const store::CompileRowMemo* written)>;

  // Reads `files` (each up to FileToRead::bytes) in one transaction, analyses the run and
  // commits. `final`: every log is read to its end and ended. `look_first` (unless final): once
  // the files are read and before the batch's own analysis, the logs that grew are previewed as
  // preview_ends does, in a savepoint rolled back before that analysis: what a batch read after a
  // pause is shown then, at the cost of one analysis instead of two and a quiet wait. Returns the
  // warnings of the batch (a preview that failed among them). Throws rcf::Error when the batch
  // could not be written; the store is then unchanged and every log is read from its start by
  // the next batch.
  std::vector<std::string> read_batch(const std::vector<FileToRead>& files, bool final,
                                      const PreviewLook& look_first = {});

  // The preview on its own, in a transaction of its own; false when no log had grown since the
  // last preview.
  bool preview_ends(const PreviewLook& look);

  // The store, opened for writing at the first use and kept open for the watch (each batch
  // opening it again cost more than reading what was appended).
  store::Database& store();

  // What the last batch's analysis of `run_id` wrote (store/compile_row_memo.h), nullptr when
  // it was not analysed through the memos.
  const store::CompileRowMemo* last_analysis(int64_t run_id) const { return memos_.find(run_id); }

  // Some log is kept open between batches.
  bool has_open() const { return !open_.empty(); }
  // Some log kept open grew since the last preview (preview_ends would read it).
  bool has_unpreviewed() const;
  // Whether the last batch analysed its run: one that added no raw row (its lines only joined
  // the record an importer holds, or were noted and not read) leaves the last analysis standing.
  bool last_batch_analysed() const { return analysed_; }
  // Seconds the last batch took to analyse its runs and commit (what a batch costs besides what
  // it reads).
  double last_analysis_seconds() const { return last_analysis_seconds_; }
  // What the batches' analyses did, summed over the watch (compiles attributed and kept).
  const analysis::AnalysisTimings& analysis_totals() const { return analysis_totals_; }
  // Seconds the last preview took (its analysis and look included).
  double last_preview_seconds() const { return last_preview_seconds_; }
  // What the previews' analyses did, summed over the watch.
  const analysis::AnalysisTimings& preview_totals() const { return preview_totals_; }

 private:
  struct OpenLog {
    std::unique_ptr<ingest::GrowingSource> reader;
    int64_t source_id = 0;
    store::IngestWriter::SourcePlace place;  // where the last batch stopped writing it
    int64_t previewed_bytes = 0;             // bytes read when the last preview ended it
    // It grew since the last preview ended it (preview_ends would read it).
    bool unpreviewed() const;
  };
  struct Batch;
  std::vector<std::string> unpreviewed_logs() const;
  bool preview(const PreviewLook& look, bool inside_batch);
  void look_first_at_ends(const PreviewLook& look, std::vector<std::string>& warnings);
  void write_ends(store::IngestWriter& writer, const std::vector<std::string>& grown,
                  const PreviewLook& look);
  ingest::DriverOptions options_for(const std::string& path) const;
  void read_file(Batch& batch, const FileToRead& file);
  bool read_on(Batch& batch, const FileToRead& file, int64_t source_id);
  void forget_memos_if_store_moved(store::Database& db);

  GrowingLogsRequest request_;
  std::map<std::string, OpenLog> open_;
  std::map<std::string, int64_t> read_to_;  // every file read: up to where (-1: whole)
  std::unique_ptr<store::Database> db_;
  // The compile rows each run's last analysis left, so that the next one writes only what
  // changed (a batch's analysis wrote every row of the run before: half its cost at 100 000
  // compiles).
  store::AnalysisMemos memos_;
  // Each run's Dynamo records as the last batch's analysis read them, so that the next one reads
  // only the rows written since (0.14 s of a batch's analysis at 100 000 compiles was reading the
  // run again). Previews, whose rows are rolled back, read on from a copy of it.
  analysis::DynamoRecordCache records_;
  bool wal_checked_ = false;
  bool analysed_ = false;
  double last_preview_seconds_ = 0;
  double last_analysis_seconds_ = 0;
  analysis::AnalysisTimings analysis_totals_;
  analysis::AnalysisTimings preview_totals_;
};

}  // namespace rcf::pipeline
