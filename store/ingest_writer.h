// The single SQLite writer of an ingest. One IngestWriter = one transaction: everything it
// writes becomes visible at commit() or not at all (destroying it uncommitted rolls back). It
// begins the transaction, or joins the one a new store opened (store/new_store.h); or, made with
// kCallersTransaction, writes inside a transaction (a savepoint) that its caller ends.
// Each source is a savepoint inside it, rolled back when the same content was ingested before.
//
// Events are written by a separate thread: the importer's thread hands over batches through a
// bounded queue, so parsing and SQLite work overlap and memory stays bounded.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ingest/events.h"
#include "ingest/source_stats.h"
#include "store/database.h"
#include "store/source_resume.h"
#include "store/step_marker_series.h"
#include "util/batch_worker.h"

namespace rcf::store {

class EventRowWriter;

class IngestWriter {
 public:
  // Whose transaction the writer's rows are in: its own (committed by commit(), else rolled back
  // when it is destroyed), or the caller's, already open, which the caller commits or rolls back
  // (commit() must not be called, and destroying the writer ends nothing: rcf watch's look at a
  // batch's logs as if they ended, in a savepoint it then rolls back, docs/watch.md).
  enum Transaction { kOwnTransaction, kCallersTransaction };
  // `host`: the machine the sources come from (source.host); empty stores NULL.
  explicit IngestWriter(Database& db, std::string host = {},
                        Transaction transaction = kOwnTransaction);
  ~IngestWriter();

  // Finds or creates the run (lane, run) and returns its id.
  int64_t run_id(const std::string& lane, const std::string& run);
  // Deletes the run when this transaction created it and no source was added to it (every file
  // duplicated one already in the store): a run without evidence is never created. True when it
  // was deleted.
  bool drop_run_if_empty(int64_t run_id);

  // Starts a source of `run_id`; returns the sink to give the importer (valid until end_source).
  // `reuse_id`: the id of a source dropped in this transaction, given to the new one (a log read
  // again whole keeps the source id its rows carry), else the next free id. `group_base` >= 0:
  // its execution groups are numbered from there (those the dropped source's were numbered
  // from), else after the store's.
  ingest::EventSink& begin_source(int64_t run_id, std::optional<int64_t> reuse_id = std::nullopt,
                                  int64_t group_base = -1);
  // Where the writing of a source stopped, for going on with it in a later transaction: the
  // base of its execution group ids, and its progress-line series still open (its row is taken
  // back and the series extended, so that the rows are those of writing the source at once).
  struct SourcePlace {
    int64_t group_base = -1;
    StepMarkerSeries series;
  };
  // Goes on writing source `source_id` of `run_id`, which an earlier transaction ended with
  // end_source() or update_source() (a log read in pieces while it grows, docs/watch.md), from
  // `place` (ended_place() after that call). Returns the sink.
  ingest::EventSink& resume_source(int64_t run_id, int64_t source_id, const SourcePlace& place);
  // Where the source ended by the last end_source() or update_source() stopped.
  SourcePlace ended_place() const;
  // Ends a resumed source: its row gets `stats` (the counts of the whole source so far), its line
  // notes and rejected lines are replaced by those of `stats`. No duplicate check: the source
  // was already kept.
  void update_source(const ingest::SourceStats& stats);
  // Deletes every row of source `source_id` (in this transaction).
  void drop_source(int64_t source_id) { delete_source(source_id); }
  // The id of the source begun or resumed last.
  int64_t current_source() const { return current_source_; }
  // The latest source of `run_id` read from `path`, if any (to tell whether a log grew).
  struct EarlierSource {
    int64_t source_id = 0;
    std::string content_hash;
    int64_t bytes = 0;
  };
  std::optional<EarlierSource> earlier_source(int64_t run_id, const std::string& path);

  // An earlier source with the same content, and the run that holds it.
  struct Duplicate {
    std::string path, lane, run;
  };
  // Finishes the current source. Returns the earlier source with the same content hash when this
  // one duplicates it (nothing of it is kept), else nullopt. `replaces` >= 0: the
  // current source is a newer version of that source, whose rows are deleted (the run's derived
  // tables are rebuilt by the analysis that follows every ingest).
  std::optional<Duplicate> end_source(const ingest::SourceStats& stats, int64_t replaces = -1);

  // Where the read of source `source_id` stopped for good, as the store keeps it, for reading
  // the log on once it has grown (store/source_resume.h); nullopt when it cannot be read on.
  std::optional<SourceResume> read_end_of(int64_t source_id);
  // Goes on writing the source of `point`, of `run_id`, from where its read stopped, in this
  // transaction: the rows its end wrote are taken back, the execution groups and the progress
  // series go on. Returns the sink; end with end_read_on_source(). nullptr, with nothing changed,
  // when the source holds fewer rows than the point says its end wrote (an edited store).
  ingest::EventSink* read_on_source(int64_t run_id, const SourceResume& point);
  // Ends a source read on: as end_source() when its content now duplicates another source's
  // (the source is then left exactly as it was), else its row, notes and read end become those
  // of `stats` (the counts of the whole source).
  std::optional<Duplicate> end_read_on_source(const ingest::SourceStats& stats);

  // Ends the loading of sources: stops the writer thread and frees what it held for the load (the
  // interned texts' cache, the batch buffers: tens of MB after a large log) before the analysis
  // needs the memory. begin_source must not be called after it.
  void finish_sources();
  // Commits the transaction (call analysis and create_indexes() on db() first).
  void commit();
  Database& db() { return db_; }
  // Run ids that received at least one new source in this transaction.
  const std::vector<int64_t>& touched_runs() const { return touched_runs_; }

 private:
  class QueueSink;
  struct SourceStatements;
  void flush_and_wait();
  void delete_source(int64_t source_id);
  std::optional<Duplicate> roll_back_if_duplicate(const ingest::SourceStats& stats);
  // Undoes everything written since the current source's savepoint, and ends it.
  void roll_back_source();
  void rewrite_source_row(const ingest::SourceStats& stats);
  void write_line_notes(const ingest::SourceStats& stats);
  void note_touched();

  Database& db_;
  const std::string host_;
  bool committed_ = false;
  const Transaction transaction_;
  int64_t current_run_ = -1;
  int64_t current_source_ = -1;
  SourcePlace ended_place_;
  std::vector<int64_t> touched_runs_;
  std::vector<int64_t> created_runs_;  // by run_id() in this transaction
  // run -> path -> its latest source, loaded by earlier_source() on first use per run.
  std::map<int64_t, std::map<std::string, EarlierSource>> sources_by_path_;
  std::unique_ptr<SourceStatements> sources_;
  std::unique_ptr<EventRowWriter> rows_;
  std::unique_ptr<QueueSink> sink_;

  // The writer thread: takes the sink's batches and writes them with rows_.
  std::unique_ptr<util::BatchWorker<ingest::Event>> worker_;
};

}  // namespace rcf::store
