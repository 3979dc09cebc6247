// `rcf watch` as a function (docs/watch.md): follow log files while a run writes them, ingest
// what became readable into the store after each change, and say what is new as alerts. The store
// a watch leaves equals a one-shot `rcf ingest` of the same files: every batch goes through the
// same ingest, and a log that grew replaces its earlier, shorter version.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/watch_alerts.h"
#include "pipeline/change_signal.h"
#include "pipeline/growing_logs.h"
#include "pipeline/watched_files.h"
#include "store/watch_queries.h"

namespace rcf::pipeline {

struct WatchRequest {
  std::string db_path = "rcf.db";
  std::string lane = "default";
  std::string run = "default";
  std::vector<std::string> paths;
  std::string format;        // forced importer; empty = sniff each file
  std::string step_pattern;  // as `rcf ingest --step-pattern`
  analysis::StormBudgets budgets;
  // How long the logs must stay unchanged before a log's last record is taken as complete (and
  // a batch after such a spell shows its logs' ends first). Tests shorten it.
  std::chrono::milliseconds quiet_for{600};
  // A preview of the logs' ends is made again only after this many times its own cost (it
  // analyses the run): a log that pauses often is previewed no more than a fifth of the time, the
  // batches' own budget (pipeline/watch_loop.cc). Tests set 0: every look may preview.
  double preview_cost_share = 4;
  // Logs quiet this long are at rest: the memory kept for the next batch's analysis (its arrays,
  // the heap's free pages) is given back to the system until a batch comes. Long enough that a
  // log that pauses between recompiles does not pay for faulting them in again at every batch
  // (about 0.1 s at 100 000 compiles); tests set 0.
  std::chrono::milliseconds rest_after{30000};
};

// What one round found.
struct WatchRound {
  std::string lane, run;  // the run the alerts are about
  std::vector<analysis::Alert> alerts;
  std::vector<std::string> warnings;  // files that could not be read, a batch that failed
  int64_t files_read = 0;             // files ingested in this round
  std::chrono::duration<double> ingest_seconds{0};
  // Of ingest_seconds, the analysis and the commit: a batch's cost that does not follow what it
  // read. Zero for the first batch, which reads what the logs held before the watch (its
  // analysis writes the whole run: a later batch's writes what changed).
  std::chrono::duration<double> analysis_seconds{0};
  // After the batch, the alerts' pass over the run's rows: like the analysis, paid again by every
  // batch (zero when analysis_seconds is).
  std::chrono::duration<double> alerts_seconds{0};
};

class WatchSession {
 public:
  // Opens (or creates) the store to check it; throws rcf::Error when it is not a store rcf can
  // write.
  explicit WatchSession(WatchRequest request);
  ~WatchSession();
  // Gives the system back the memory an ended session freed (its rows, records and alerts'
  // state stay in the heap's free lists otherwise): call after destroying it, before other work.
  static void give_back_freed_memory();
  WatchSession(const WatchSession&) = delete;
  WatchSession& operator=(const WatchSession&) = delete;

  using RoundHandler = std::function<void(const WatchRound&)>;
  // Ingests what became readable since the last round and returns the new alerts. `final`: the
  // watch ends, every file is read whole. `walk`: look for new files in the directories too.
  // `early`: when the batch is the first after the logs were quiet (next_batch_looks_at_ends),
  // what it read is previewed as if the logs ended (their last records included) before the
  // batch's own analysis, and those alerts are handed to `early` then, during the poll; the
  // round returned holds the rest.
  WatchRound poll(bool final, bool walk, const RoundHandler& early = {});
  // Whether a batch read now is previewed before its analysis (when poll is given `early`): the
  // first change signalled since the last batch came after the logs had been quiet, so what it
  // wrote is likely a record alone after a pause (a recompile between quiet steps, the usual case
  // late in a run), which is then alerted after one analysis, not after two and a quiet wait.
  // Never without inotify (no signal says when a change came), nor while a log streams.
  bool next_batch_looks_at_ends(std::chrono::steady_clock::time_point now) const;
  // Waits at most `timeout` for a change under the paths; true when one was signalled.
  bool wait_for_change(std::chrono::milliseconds timeout);
  bool has_inotify() const { return signal_.has_inotify(); }
  // When a poll with nothing new to read would alert something (a log's last record, or alerts
  // held back until the logs are quiet): once the logs have been quiet long enough and the last
  // preview's budget allows another. nullopt when such a poll would alert nothing.
  std::optional<std::chrono::steady_clock::time_point> quiet_look_at() const;
  const analysis::RunStatus& status() const { return tracker_.status(); }
  const WatchRequest& request() const { return request_; }
  // What the batches' analyses did (GrowingLogs::analysis_totals).
  const analysis::AnalysisTimings& analysis_totals() const { return logs_.analysis_totals(); }
  // What the previews' analyses did (GrowingLogs::preview_totals).
  const analysis::AnalysisTimings& preview_totals() const { return logs_.preview_totals(); }

 private:
  void ingest(const std::vector<FileToRead>& files, bool final, WatchRound& round,
              const RoundHandler& early);
  bool preview_due(std::chrono::steady_clock::time_point now) const;
  void look_at_ends(WatchRound& round, std::chrono::steady_clock::time_point now);
  void read_alerts(WatchRound& round, bool complete);
  // The alerts of a preview (GrowingLogs::preview_ends), from the rows it wrote, which are then
  // put back as the last batch left them.
  void preview_alerts(store::Database& db, int64_t run_id, const store::CompileRowMemo* written,
                      WatchRound& round);
  void refresh_rows(store::Database& db, int64_t run_id, const store::CompileRowMemo* written);

  WatchRequest request_;
  WatchedFiles files_;
  GrowingLogs logs_;
  ChangeSignal signal_;
  analysis::AlertTracker tracker_;
  // The run's rows as the last batch left them: the next batch reads again only the compiles its
  // analysis wrote (store/watch_queries.h). rows_run_: their run, -1 when not kept; with the
  // generation of the memo they were read after.
  store::WatchRunRows rows_;
  int64_t rows_run_ = -1, rows_generation_ = 0;
  std::chrono::steady_clock::time_point last_read_;    // the last batch ingested
  std::chrono::steady_clock::time_point batch_ended_;  // when it ended
  // When the first change after the last batch began was signalled (nullopt: none yet).
  std::optional<std::chrono::steady_clock::time_point> changed_at_;
  std::chrono::steady_clock::time_point last_preview_;  // of the logs' ends
  std::chrono::steady_clock::time_point last_behind_warning_;
  bool read_before_ = false;  // a batch was ingested
  // The memory kept for the next batch was given back since the last batch: the logs stayed
  // quiet for a while (WatchRequest::rest_after). Given back again while arrays were kept since.
  bool at_rest_ = false;
};

}  // namespace rcf::pipeline
