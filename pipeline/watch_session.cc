#include "pipeline/watch_session.h"

#include <fmt/format.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "store/run_bundle.h"
#include "store/store.h"
#include "store/watch_queries.h"
#include "util/error.h"
#include "util/large_array_allocator.h"

namespace rcf::pipeline {
namespace {

// A preview that failed (the store locked by another writer) is tried again after this.
constexpr std::chrono::seconds kPreviewRetry{1};
// A batch that takes longer than this to read makes alerts late: said, at most once a minute.
constexpr std::chrono::duration<double> kBehindAfter{1.0};
constexpr std::chrono::seconds kBehindWarningEvery{60};
// The freed arrays of one batch's analysis kept for the next (a run of 100 000 compiles maps
// 70-80 MB of them a batch).
constexpr size_t kKeptArrayBytes = size_t{128} << 20;
// Gives the kernel back the heap's free pages: glibc keeps those freed below the heap's top.
void trim_heap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// Gives the kernel back the arrays kept for a next batch and the heap's free pages. A batch after
// the rest maps its arrays anew: one of 100 000 compiles faults in 70-80 MB (0.06-0.14 s of CPU
// on the project VM), once per rest.
void give_back_kept_memory() {
  util::keep_freed_large_arrays(0);
  util::keep_freed_large_arrays(kKeptArrayBytes);
  trim_heap();
}

}  // namespace

WatchSession::WatchSession(WatchRequest request)
    : request_(std::move(request)),
      files_(request_.paths, request_.db_path),
      logs_(
          {request_.db_path, request_.lane, request_.run, request_.format, request_.step_pattern}),
      tracker_(request_.budgets) {
  // Each batch's analysis builds the run's per-compile arrays again: their memory is reused
  // instead of being given back and zeroed anew (util/large_array_allocator.h).
  util::keep_freed_large_arrays(kKeptArrayBytes);
  // A store that cannot be written (not an rcf database, a newer schema, a read-only place) is
  // an input error now, not a warning at every round.
  store::open_store(request_.db_path, store::OpenMode::kCreateOrWrite);
  signal_.follow(request_.paths, {});
}

WatchSession::~WatchSession() {
  util::keep_freed_large_arrays(0);  // the default again: what follows (a summary) is one-shot
}

void WatchSession::give_back_freed_memory() {
  util::keep_freed_large_arrays(0);
  trim_heap();
}

WatchRound WatchSession::poll(bool final, bool walk, const RoundHandler& early) {
  WatchRound round;
  round.lane = request_.lane;
  round.run = request_.run;
  std::vector<FileToRead> ready = files_.changed(final, walk);
  for (auto& w : files_.take_warnings()) round.warnings.push_back(std::move(w));
  if (walk) signal_.follow(request_.paths, files_.paths());
  const auto now = std::chrono::steady_clock::now();
  if (ready.empty() && (!final || !logs_.has_open())) {
    // Nothing new: what was held back as a log's last record is said once the logs are quiet.
    if (final || now - last_read_ >= request_.quiet_for) look_at_ends(round, now);
    // At rest. A preview, or a batch's writer finishing on its thread, may have freed arrays
    // since the last look: they are given back too.
    if (!final && read_before_ && now - last_read_ >= request_.rest_after &&
        (!at_rest_ || util::kept_large_array_bytes() > 0)) {
      give_back_kept_memory();
      at_rest_ = true;
    }
    return round;
  }
  const bool look_first = early && !final && next_batch_looks_at_ends(now);
  changed_at_.reset();  // a change signalled from now on comes during or after this batch
  ingest(ready, final, round, look_first ? early : nullptr);
  last_read_ = now;
  at_rest_ = false;
  batch_ended_ = std::chrono::steady_clock::now();
  // A batch that added no raw row changed no row the alerts read.
  if (logs_.last_batch_analysed() || final) read_alerts(round, final);
  if (round.analysis_seconds.count() > 0)
    round.alerts_seconds = std::chrono::steady_clock::now() - batch_ended_;
  return round;
}

// One batch of the files that have something new, each up to what is readable. A failed batch
// changes nothing in the store (it is one transaction) and is tried again next round.
void WatchSession::ingest(const std::vector<FileToRead>& files, bool final, WatchRound& round,
                          const RoundHandler& early) {
  auto started = std::chrono::steady_clock::now();
  GrowingLogs::PreviewLook look_first;
  if (early)
    look_first = [&](store::Database& db, int64_t run_id, const store::CompileRowMemo* written) {
      WatchRound ends;
      ends.lane = round.lane;
      ends.run = round.run;
      preview_alerts(db, run_id, written, ends);
      last_preview_ = std::chrono::steady_clock::now();
      if (!ends.alerts.empty()) early(ends);
    };
  try {
    for (auto& w : logs_.read_batch(files, final, look_first))
      round.warnings.push_back(std::move(w));
  } catch (const Error& e) {
    round.warnings.push_back(std::string("this batch was not ingested: ") + e.what());
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  round.ingest_seconds = now - started;
  if (read_before_)
    round.analysis_seconds = std::chrono::duration<double>(logs_.last_analysis_seconds());
  read_before_ = true;
  for (const auto& f : files) files_.mark_read(f);
  if (round.ingest_seconds > kBehindAfter && now - last_behind_warning_ >= kBehindWarningEvery) {
    last_behind_warning_ = now;
    round.warnings.push_back(fmt::format(
        "falling behind: reading the last batch took {:.1f} s; alerts come about that much "
        "after their lines",
        round.ingest_seconds.count()));
  }
  round.files_read = static_cast<int64_t>(files.size());
}

bool WatchSession::wait_for_change(std::chrono::milliseconds timeout) {
  const bool changed = signal_.wait(timeout);
  // Without inotify the wait merely sleeps, and says nothing of when a change came.
  if (changed && !changed_at_ && signal_.has_inotify())
    changed_at_ = std::chrono::steady_clock::now();
  return changed;
}

bool WatchSession::next_batch_looks_at_ends(std::chrono::steady_clock::time_point now) const {
  return read_before_ && changed_at_ && *changed_at_ - batch_ended_ >= request_.quiet_for &&
         preview_due(now);
}

// The previews' budget: at most one per WatchRequest::preview_cost_share times the last one's cost.
bool WatchSession::preview_due(std::chrono::steady_clock::time_point now) const {
  const auto gap =
      std::chrono::duration<double>(logs_.last_preview_seconds() * request_.preview_cost_share);
  return now - last_preview_ >= gap;
}

std::optional<std::chrono::steady_clock::time_point> WatchSession::quiet_look_at() const {
  if (!read_before_) return std::nullopt;
  const auto quiet = last_read_ + request_.quiet_for;
  if (!logs_.has_unpreviewed())
    return tracker_.holds_back() ? std::make_optional(quiet) : std::nullopt;
  const auto preview_gap = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(logs_.last_preview_seconds() * request_.preview_cost_share));
  return std::max(quiet, last_preview_ + preview_gap);
}

// The logs are quiet: what their last records hold is alerted as if they ended now. The logs
// kept open hold their last record in their importers: a preview ends them in a transaction that
// is rolled back (at most once per WatchRequest::preview_cost_share times its cost); the rest is
// in the store.
void WatchSession::look_at_ends(WatchRound& round, std::chrono::steady_clock::time_point now) {
  if (preview_due(now)) {
    bool previewed = false;
    try {
      previewed = logs_.preview_ends(
          [&](store::Database& db, int64_t run_id, const store::CompileRowMemo* written) {
            preview_alerts(db, run_id, written, round);
          });
    } catch (const Error& e) {
      round.warnings.push_back(std::string("the logs' last records were not read: ") + e.what());
      // Tried again after a second, not at every look.
      last_preview_ = std::chrono::steady_clock::now() + kPreviewRetry;
    }
    if (previewed) {
      last_preview_ = std::chrono::steady_clock::now();
      return;
    }
  }
  if (tracker_.holds_back()) read_alerts(round, true);
}

void WatchSession::preview_alerts(store::Database& db, int64_t run_id,
                                  const store::CompileRowMemo* written, WatchRound& round) {
  // The rows the preview did not write are the last batch's: those it wrote are put back after,
  // instead of reading the run's rows whole at the next batch (about a quarter second at 100 000
  // compiles).
  std::optional<store::KeptWatchRows> kept;
  const int64_t generation = rows_generation_;
  if (written && !written->whole && rows_run_ == run_id && generation + 1 == written->generation)
    kept = store::keep_watch_rows(rows_, *written);
  try {
    refresh_rows(db, run_id, written);
  } catch (...) {
    rows_run_ = -1;  // part kept, part refreshed: read whole next time
    throw;
  }
  round.alerts = tracker_.advance(rows_, analysis::LogEnds::kPreviewed);
  rows_.unchanged_before = rows_.compiles.size();  // as the tracker saw them
  if (!kept) {
    rows_run_ = -1;  // they hold what the rolled-back preview wrote: read whole next time
    return;
  }
  store::put_back_watch_rows(std::move(*kept), rows_);
  rows_run_ = run_id;
  rows_generation_ = generation;
}

void WatchSession::read_alerts(WatchRound& round, bool complete) {
  store::Database& db = logs_.store();
  std::optional<int64_t> run_id = store::find_run_id(db, request_.lane, request_.run);
  if (!run_id) return;
  refresh_rows(db, *run_id, logs_.last_analysis(*run_id));
  round.alerts =
      tracker_.advance(rows_, complete ? analysis::LogEnds::kEnded : analysis::LogEnds::kMayGrow);
  rows_.unchanged_before = rows_.compiles.size();
}

// The rows kept from the last batch, updated by what the analysis after it wrote when `written`
// follows them, else read whole.
void WatchSession::refresh_rows(store::Database& db, int64_t run_id,
                                const store::CompileRowMemo* written) {
  // Nothing analysed since they were read (a quiet look after a batch): they are current.
  if (written && rows_run_ == run_id && rows_generation_ == written->generation) return;
  const bool follows =
      written && rows_run_ == run_id && rows_generation_ + 1 == written->generation;
  rows_run_ = -1;  // until they are read: a read that fails leaves them part read
  if (follows) {
    store::update_watch_rows(db, run_id, *written, rows_);
  } else {
    rows_ = store::WatchRunRows();  // the old rows go before the new are read (80 MB at 100 000)
    rows_ = store::read_watch_rows(db, run_id);
  }
  rows_run_ = written ? run_id : -1;
  rows_generation_ = written ? written->generation : 0;
}

}  // namespace rcf::pipeline
