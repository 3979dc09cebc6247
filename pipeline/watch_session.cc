#include "pipeline/watch_session.h"

#include <fmt/format.h>

#include "pipeline/ingest_pipeline.h"
#include "store/run_bundle.h"
#include "store/store.h"
#include "store/watch_queries.h"
#include "util/error.h"

namespace rcf::pipeline {
namespace {

// How long the logs must stay unchanged before a log's last record is taken as complete.
constexpr std::chrono::milliseconds kQuietForUndecided{1500};
// A batch that takes longer than this to read makes alerts late: said, at most once a minute.
constexpr std::chrono::duration<double> kBehindAfter{1.0};
constexpr std::chrono::seconds kBehindWarningEvery{60};

}  // namespace

WatchSession::WatchSession(WatchRequest request)
    : request_(std::move(request)),
      files_(request_.paths, request_.db_path),
      tracker_(request_.budgets) {
  // A store that cannot be written (not an rcf database, a newer schema, a read-only place) is
  // an input error now, not a warning at every round.
  store::open_store(request_.db_path, store::OpenMode::kCreateOrWrite);
  signal_.follow(request_.paths, {});
}

WatchRound WatchSession::poll(bool final, bool walk) {
  WatchRound round;
  round.lane = request_.lane;
  round.run = request_.run;
  std::vector<FileToRead> ready = files_.changed(final, walk);
  for (auto& w : files_.take_warnings()) round.warnings.push_back(std::move(w));
  if (walk) signal_.follow(request_.paths, files_.paths());
  const auto now = std::chrono::steady_clock::now();
  if (ready.empty()) {
    // Nothing new: what was held back as a log's last record is said once the logs are quiet.
    if (tracker_.holds_back() && (final || now - last_read_ >= kQuietForUndecided))
      read_alerts(round, true);
    return round;
  }
  ingest(ready, round);
  last_read_ = now;
  read_alerts(round, final);
  return round;
}

// One ingest of the files that have something new, each up to what is readable. A failed batch
// changes nothing in the store (the ingest is one transaction) and is tried again next round.
void WatchSession::ingest(const std::vector<FileToRead>& files, WatchRound& round) {
  IngestRequest in;
  in.db_path = request_.db_path;
  in.lane = request_.lane;
  in.run = request_.run;
  in.format = request_.format;
  in.step_pattern = request_.step_pattern;
  in.named_paths_as_walked = true;
  for (const auto& f : files) {
    in.paths.push_back(f.path);
    if (f.bytes >= 0) in.byte_limit_of_path[f.path] = f.bytes;
  }
  auto started = std::chrono::steady_clock::now();
  try {
    IngestSummary summary = run_ingest(in);
    for (auto& w : summary.warnings) round.warnings.push_back(std::move(w));
  } catch (const Error& e) {
    round.warnings.push_back(std::string("this batch was not ingested: ") + e.what());
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  round.ingest_seconds = now - started;
  for (const auto& f : files) files_.mark_read(f);
  if (round.ingest_seconds > kBehindAfter && now - last_behind_warning_ >= kBehindWarningEvery) {
    last_behind_warning_ = now;
    round.warnings.push_back(fmt::format(
        "falling behind: reading the last batch took {:.1f} s (each round reads a grown log from "
        "its start, docs/watch.md); alerts come about that much after their lines",
        round.ingest_seconds.count()));
  }
  round.files_read = static_cast<int64_t>(files.size());
}

void WatchSession::read_alerts(WatchRound& round, bool complete) {
  auto db = store::open_store(request_.db_path, store::OpenMode::kRead);
  std::optional<int64_t> run_id = store::find_run_id(*db, request_.lane, request_.run);
  if (!run_id) return;
  round.alerts = tracker_.advance(store::read_watch_rows(*db, *run_id), complete);
}

}  // namespace rcf::pipeline
