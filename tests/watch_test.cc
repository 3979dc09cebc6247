// `rcf watch` (docs/watch.md): real logs appended in chunks that cut lines, read by a watch
// session after each chunk. The alerts must be the run's recompiles, limit hits and graph breaks
// once each, with the causes a one-shot ingest gives, and the store the watch leaves must equal a
// one-shot `rcf ingest` of the same files. Also: files that appear later, a rotated log, a
// partial last line, a growing gzip file, the alert rules on rows, and the command end to end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "pipeline/console_line_times.h"
#include "pipeline/watch_session.h"
#include "pipeline/watched_files.h"
#include "report/watch_output.h"
#include "tests/support/db_dump.h"
#include "tests/support/fixture_text.h"
#include "tests/support/ingested_store.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "util/large_array_allocator.h"

namespace watch_test {

namespace fs = std::filesystem;
using rcf::analysis::Alert;
using rcf::analysis::AlertKind;
using rcf::analysis::LogEnds;
using rcf::pipeline::WatchRequest;
using rcf::pipeline::WatchSession;
using rcf::testing::fixture_text;
using rcf::testing::real_consoles_one_after_the_other;
using rcf::testing::TempDir;

// One log of a watched run: the name it gets in the watched directory and its whole content.
struct Log {
  std::string name;
  std::string text;
};

// Appends every log in `chunks` pieces cut at byte positions that fall inside lines, reading
// with `session` after each piece, then ends the watch; returns every alert in order.
// `ends_first`: every batch shows its logs' ends before its own analysis (the session's quiet
// spell and previews' budget set to nothing, the loop's wait for a change made before each poll),
// its alerts handed over then as the watch loop does.
std::vector<Alert> watch_appending(WatchSession& session, const std::string& dir,
                                   const std::vector<Log>& logs, int chunks,
                                   bool ends_first = false) {
  std::vector<Alert> alerts;
  auto take = [&](const rcf::pipeline::WatchRound& round) {
    for (const auto& a : round.alerts) alerts.push_back(a);
  };
  WatchSession::RoundHandler early;
  if (ends_first) early = take;
  auto poll = [&](bool final) {
    if (ends_first) session.wait_for_change(std::chrono::milliseconds(0));
    take(session.poll(final, true, early));
  };
  poll(false);  // nothing there yet
  std::vector<std::ofstream> files;
  for (const auto& log : logs) files.emplace_back(dir + "/" + log.name, std::ios::binary);
  for (int i = 0; i < chunks; ++i) {
    for (size_t f = 0; f < logs.size(); ++f) {
      const std::string& t = logs[f].text;
      // 7919 is prime: the cuts land at arbitrary places inside lines.
      size_t from = t.size() * i / chunks + (i ? 7919 % 97 : 0);
      size_t to = i + 1 == chunks ? t.size() : t.size() * (i + 1) / chunks + 7919 % 97;
      from = std::min(from, t.size());
      to = std::min(to, t.size());
      files[f].write(t.data() + from, static_cast<std::streamsize>(to - from));
      files[f].flush();
    }
    poll(false);
  }
  files.clear();
  poll(true);
  return alerts;
}

std::vector<std::string> alert_causes(const std::vector<Alert>& alerts, AlertKind kind) {
  std::vector<std::string> causes;
  for (const auto& a : alerts)
    if (a.kind == kind) causes.push_back(a.cause);
  return causes;
}

// A watch of `root`/logs (created) into the store `root`/watch.db.
WatchRequest watch_of_logs(const std::string& root) {
  fs::create_directories(root + "/logs");
  WatchRequest request;
  request.db_path = root + "/watch.db";
  request.paths = {root + "/logs"};
  return request;
}

// What must be equal between the store a watch left and a one-shot ingest of the same files.
const std::vector<std::string> kSameQueries = {
    "SELECT path, format, lines, bytes, events, rejected, skipped FROM source ORDER BY path",
    "SELECT ordinal, step, site, program_key, kind, cause_reported, compile_ms, cache FROM "
    "compiles",
    "SELECT ordinal, step, site, program_key, cause, detail, confidence FROM recompiles",
    "SELECT s.path, fate, reason, count, first_line FROM line_note n JOIN source s USING "
    "(source_id) ORDER BY 1, 2, 3",
    "SELECT source, line, limit_type, function, last_reason FROM recompile_limit_hits ORDER BY 1, "
    "2",
    "SELECT source, line, gb_type, reason FROM graph_breaks ORDER BY 1, 2",
    "SELECT state, settle_step, compiles, programs, recompiles, step_axis FROM convergence_summary",
    // The steps counted, and what decided them (their count is in the detail).
    "SELECT step_basis, step_detail FROM convergence_summary",
};

struct WatchCase {
  const char* name;
  std::vector<std::pair<const char*, const char*>> logs;  // fixture, name in the watched dir
  // Progress lines written before each log's text: 2 000 are more than the sniffing window, so
  // the console is read as plain text until its first record (docs/plain_text.md).
  int progress_lines_before = 0;
  // Lines of the program's own output before them, no progress line among them, so many that no
  // format claims the first 64 KiB: the log is of no format until its first record.
  int other_lines_before = 0;
  // Progress lines that open with a time (Python's logging), in a log of their own beside them
  // (`stdout.log`): a row each, which the watch keeps between batches (analysis/kept_step_lines.h).
  int timed_console_lines = 0;
};

// The logs of `c` as written to the watched directory.
std::vector<Log> logs_of(const WatchCase& c) {
  std::string before;
  for (int i = 1; i <= c.other_lines_before; ++i)
    before += "INFO:root:loading shard " + std::to_string(i) + " of the dataset from /data/train\n";
  for (int step = 1; step <= c.progress_lines_before; ++step)
    before += "epoch 0 step " + std::to_string(step) + "/100000 loss 0.0218\n";
  std::vector<Log> logs;
  for (const auto& [fixture, name] : c.logs) logs.push_back({name, before + fixture_text(fixture)});
  if (c.timed_console_lines > 0) {
    std::string timed;
    for (int step = 1; step <= c.timed_console_lines; ++step)
      timed += "2026-12-07 10:" + std::to_string(10 + step / 600) + ":" +
               std::to_string(10 + step % 600 / 12) + ",123 INFO train: step " +
               std::to_string(step) + " loss 0.51\n";
    logs.push_back({"stdout.log", timed});
  }
  return logs;
}

class WatchAppendTest : public ::testing::TestWithParam<WatchCase> {};

// Checks the alerts of a watch of `dir`/logs against a one-shot ingest of them (once.db), and
// the store the watch left (watch.db) against it.
void expect_the_one_shot_alerts_and_store(TempDir& dir, const std::vector<Alert>& alerts,
                                          size_t logs);

TEST_P(WatchAppendTest, AlertsOnceEachAndLeavesTheOneShotStore) {
  TempDir dir;
  std::vector<Log> logs = logs_of(GetParam());
  WatchSession session(watch_of_logs(dir.path()));
  expect_the_one_shot_alerts_and_store(dir, watch_appending(session, dir.file("logs"), logs, 7),
                                       logs.size());
}

// The same when every batch shows its logs' ends first (in a savepoint rolled back before its
// own analysis): each alert still once and in order, and the same store.
TEST_P(WatchAppendTest, EndsShownFirstAlertTheSameAndLeaveTheOneShotStore) {
  TempDir dir;
  std::vector<Log> logs = logs_of(GetParam());
  WatchRequest request = watch_of_logs(dir.path());
  request.quiet_for = std::chrono::milliseconds(0);
  request.preview_cost_share = 0;
  WatchSession session(request);
  if (!session.has_inotify()) GTEST_SKIP() << "without inotify no batch shows its ends first";
  expect_the_one_shot_alerts_and_store(
      dir, watch_appending(session, dir.file("logs"), logs, 7, /*ends_first=*/true), logs.size());
}

void expect_the_one_shot_alerts_and_store(TempDir& dir, const std::vector<Alert>& alerts,
                                          size_t logs) {
  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("logs")});
  auto watched = rcf::testing::read_store(dir.file("watch.db"));
  auto once = rcf::testing::read_store(dir.file("once.db"));
  for (const auto& q : kSameQueries)
    EXPECT_EQ(rcf::testing::query_csv(*watched, q), rcf::testing::query_csv(*once, q)) << q;

  // Each recompile once, with its cause, in the run's order; each limit hit once; each distinct
  // graph break once.
  std::vector<std::string> causes =
      rcf::testing::column(*once, "SELECT cause FROM recompiles ORDER BY ordinal");
  std::vector<std::string> alerted = alert_causes(alerts, AlertKind::kRecompile);
  std::vector<std::string> sorted_causes = causes, sorted_alerted = alerted;
  std::sort(sorted_causes.begin(), sorted_causes.end());
  std::sort(sorted_alerted.begin(), sorted_alerted.end());
  std::string said;  // shown when the alerts are not the one-shot's
  for (const auto& a : alerts)
    if (a.kind == AlertKind::kRecompile)
      said += a.cause + " " + a.source + ":" + std::to_string(a.line) + " " + a.detail + "\n";
  EXPECT_EQ(sorted_alerted, sorted_causes) << said;
  if (logs == 1) {
    EXPECT_EQ(alerted, causes);  // one log: in the run's order
  }
  EXPECT_EQ(alert_causes(alerts, AlertKind::kLimitHit).size(),
            std::stoul(rcf::testing::scalar(*once, "SELECT count(*) FROM recompile_limit_hits")));
  EXPECT_EQ(alert_causes(alerts, AlertKind::kGraphBreak).size(),
            std::stoul(rcf::testing::scalar(
                *once,
                "SELECT count(*) FROM (SELECT DISTINCT gb_type, user_file, user_line, "
                "user_function, reason FROM graph_breaks)")));
  EXPECT_FALSE(causes.empty() && alerts.empty()) << "the case shows nothing to alert on";
}

INSTANTIATE_TEST_SUITE_P(
    RealLogs, WatchAppendTest,
    ::testing::Values(
        WatchCase{"console_constants",
                  {{"real_runs/constant_counter/run1/stderr.log", "train.log"}}},
        WatchCase{"console_breaks_and_causes",
                  {{"real_runs/item_sync_list_append/run1/stderr.log", "train.log"}}},
        WatchCase{"trace_and_console_of_one_process",
                  {{"real_runs/recompile_limit/run1/logs/torch_trace/"
                    "dedicated_log_torch_trace_u3ed5hot.log.gz",
                    "dedicated_log_torch_trace_u3ed5hot.log"},
                   {"real_runs/recompile_limit/run1/stderr.log", "stderr.log"}}},
        WatchCase{"trace_alone",
                  {{"real_runs/growing_seq_len/run1/logs/torch_trace/"
                    "dedicated_log_torch_trace_tnem_w1p.log.gz",
                    "trace.log"}}},
        WatchCase{"pt_xla_debug", {{"xla/pt_xla_debug_issue6614.txt", "xla_debug.log"}}},
        WatchCase{"jax_shapes", {{"real_runs/jax_shape_change/run1/stderr.log", "jax.log"}}},
        WatchCase{"jax_static_args", {{"real_runs/jax_static_arg/run1/stderr.log", "jax.log"}}},
        WatchCase{"console_records_after_the_window",
                  {{"real_runs/growing_seq_len/run1/stderr.log", "train.log"}},
                  2000},
        WatchCase{"jax_records_after_the_window",
                  {{"real_runs/jax_shape_change/run1/stderr.log", "jax.log"}},
                  2000},
        WatchCase{"console_after_output_of_no_format",
                  {{"real_runs/growing_seq_len/run1/stderr.log", "train.log"}},
                  0,
                  2000},
        WatchCase{"trace_and_a_timed_console_of_its_own",
                  {{"real_runs/recompile_limit/run1/logs/torch_trace/"
                    "dedicated_log_torch_trace_u3ed5hot.log.gz",
                    "trace.log"}},
                  0,
                  0,
                  3000},
        WatchCase{"console_and_a_timed_console_of_its_own",
                  {{"real_runs/multi_sync_steps/run1/stderr.log", "train.log"}},
                  0,
                  0,
                  3000},
        // Graph breaks whose records batches cut at a line end, beside a second log: a preview
        // says a cut break once, and the whole record is not said again.
        WatchCase{"breaks_beside_a_timed_console",
                  {{"real_runs/item_sync_list_append/run1/stderr.log", "train.log"}},
                  0,
                  0,
                  3000},
        WatchCase{"progress_after_output_of_no_format",
                  {{"real_runs/recompile_limit/run1/stderr.log", "train.log"}},
                  300,
                  2000}),
    [](const ::testing::TestParamInfo<WatchCase>& param_info) {
      return std::string(param_info.param.name);
    });

// Logs longer than the sniffing window are read on where the last batch stopped, never read
// again: each keeps its source (a read from the start would replace it with a new one), and
// every table of the store ends as a one-shot ingest leaves it, row for row.
TEST(WatchReadsOn, AGrownLogKeepsItsSourceAndTheStoreIsTheOneShotStore) {
  TempDir dir;
  std::vector<Log> logs = {
      {"trace.log", fixture_text("real_runs/recompile_limit/run1/logs/torch_trace/"
                                 "dedicated_log_torch_trace_u3ed5hot.log.gz")},
      {"console.log", real_consoles_one_after_the_other()},
      {"pt_xla_debug.log", fixture_text("scenarios/multi_sync/pt_xla_debug.log")},
      {"save_tensors.hlo.0", fixture_text("scenarios/mixed_causes/save_tensors.hlo.0")},
      // A text file no format claims: unrecognised, but read on for a record that may come.
      {"output.log", ""},
  };
  for (int i = 1; i <= 3000; ++i)
    logs.back().text +=
        "INFO:root:loading shard " + std::to_string(i) + " of the dataset from /data/train\n";
  // The first piece holds the whole sniffing window (64 KiB) and ends inside a line.
  constexpr size_t kFirstPiece = (size_t{66} << 10) + 123;
  for (const auto& log : logs) ASSERT_GT(log.text.size(), kFirstPiece + 4000) << log.name;
  WatchSession session(watch_of_logs(dir.path()));
  std::map<std::string, std::string> first_source;  // path -> its source id when first read
  int rounds_reading_on = 0;
  std::vector<std::ofstream> files;
  for (const auto& log : logs) files.emplace_back(dir.file("logs/" + log.name), std::ios::binary);
  constexpr int kChunks = 5;
  for (int i = 0; i < kChunks; ++i) {
    for (size_t f = 0; f < logs.size(); ++f) {
      const std::string& t = logs[f].text;
      auto cut = [&](int k) {
        return k == 0 ? 0 : kFirstPiece + (t.size() - kFirstPiece) * (k - 1) / (kChunks - 1);
      };
      size_t from = cut(i), to = cut(i + 1);
      files[f].write(t.data() + from, static_cast<std::streamsize>(to - from));
      files[f].flush();
    }
    session.poll(false, true);
    auto db = rcf::testing::read_store(dir.file("watch.db"));
    for (const auto& row :
         rcf::testing::column(*db, "SELECT path || ' ' || source_id FROM source ORDER BY 1")) {
      std::string path = row.substr(0, row.rfind(' '));
      auto [it, first] = first_source.emplace(path, row);
      EXPECT_EQ(it->second, row) << "the log was read again from its start, round " << i;
      rounds_reading_on += first ? 0 : 1;
    }
  }
  files.clear();
  session.poll(true, true);
  EXPECT_EQ(rounds_reading_on, static_cast<int>(logs.size()) * (kChunks - 1));

  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("logs")});
  auto watched = rcf::testing::read_store(dir.file("watch.db"));
  auto once = rcf::testing::read_store(dir.file("once.db"));
  EXPECT_EQ(rcf::testing::dump_tables_by_text(*watched), rcf::testing::dump_tables_by_text(*once));
}

// A watch started on logs an `rcf ingest` (or an earlier watch) read into the store reads each on
// from where that read stopped (pipeline/grown_log_read_on.h): the source of the ingest is kept,
// its rows are not written again, and the store still ends as a one-shot ingest leaves it.
TEST(WatchReadsOn, ALogIngestedBeforeTheWatchIsReadOnFromWhereTheIngestStopped) {
  TempDir dir;
  std::vector<Log> logs = {
      {"console.log", real_consoles_one_after_the_other()},
      {"trace.log", fixture_text("real_runs/recompile_limit/run1/logs/torch_trace/"
                                 "dedicated_log_torch_trace_u3ed5hot.log.gz")},
  };
  WatchRequest request = watch_of_logs(dir.path());
  // Ingested up to a line end past the sniffing window, into the run the watch writes.
  std::vector<size_t> ingested;
  for (const auto& log : logs) {
    ingested.push_back(log.text.find('\n', (size_t{70} << 10)) + 1);
    rcf::testing::write_file(dir.file("logs/" + log.name), log.text.substr(0, ingested.back()));
  }
  rcf::testing::ingest_logs(request.db_path, {dir.file("logs")}, request.lane, request.run);
  const std::string before = rcf::testing::query_csv(
      *rcf::testing::read_store(request.db_path), "SELECT path, source_id FROM source ORDER BY 1");
  {
    WatchSession session(request);
    std::vector<std::ofstream> files;
    for (const auto& log : logs)
      files.emplace_back(dir.file("logs/" + log.name), std::ios::binary | std::ios::app);
    constexpr int kChunks = 3;
    for (int i = 1; i <= kChunks; ++i) {
      for (size_t f = 0; f < logs.size(); ++f) {
        const std::string& t = logs[f].text;
        const size_t from = ingested[f] + (t.size() - ingested[f]) * (i - 1) / kChunks;
        const size_t to = ingested[f] + (t.size() - ingested[f]) * i / kChunks;
        files[f].write(t.data() + from, static_cast<std::streamsize>(to - from));
        files[f].flush();
      }
      session.poll(false, true);
      EXPECT_EQ(rcf::testing::query_csv(*rcf::testing::read_store(request.db_path),
                                        "SELECT path, source_id FROM source ORDER BY 1"),
                before)
          << "a log was read again from its start, round " << i;
    }
    files.clear();
    session.poll(true, true);
  }
  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("logs")}, request.lane, request.run);
  auto watched = rcf::testing::read_store(request.db_path);
  auto once = rcf::testing::read_store(dir.file("once.db"));
  EXPECT_EQ(rcf::testing::dump_tables_by_text(*watched), rcf::testing::dump_tables_by_text(*once));
}

// A batch writes only the compiles whose rows changed (store/compile_row_memo.h), which holds
// while the watch is the store's only writer. An `rcf ingest` into the same run between two
// batches analyses the run again under new row ids: the next batch sees that the store moved and
// writes the run whole, and the store still ends as a one-shot ingest of every file leaves it.
TEST(WatchReadsOn, AnotherWriterBetweenBatchesMakesTheNextWriteTheRunWhole) {
  TempDir dir;
  fs::create_directories(dir.file("logs"));
  fs::create_directories(dir.file("other"));
  const std::string console = real_consoles_one_after_the_other();
  {
    std::ofstream other(dir.file("other/other.log"), std::ios::binary);
    other << fixture_text("real_runs/constant_counter/run1/stderr.log");
  }
  WatchSession session(watch_of_logs(dir.path()));
  std::ofstream file(dir.file("logs/console.log"), std::ios::binary);
  const size_t cuts[] = {0, (size_t{66} << 10) + 77, console.size() * 2 / 3, console.size()};
  for (int i = 0; i < 3; ++i) {
    file.write(console.data() + cuts[i], static_cast<std::streamsize>(cuts[i + 1] - cuts[i]));
    file.flush();
    if (i == 2) rcf::testing::ingest_logs(dir.file("watch.db"), {dir.file("other/other.log")});
    session.poll(false, true);
  }
  file.close();
  session.poll(true, true);

  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("logs"), dir.file("other/other.log")});
  auto watched = rcf::testing::read_store(dir.file("watch.db"));
  auto once = rcf::testing::read_store(dir.file("once.db"));
  EXPECT_EQ(rcf::testing::dump_tables_by_text(*watched), rcf::testing::dump_tables_by_text(*once));
  EXPECT_EQ(rcf::testing::scalar(*watched, "SELECT count(*) FROM compile_event"),
            rcf::testing::scalar(*once, "SELECT count(*) FROM compile_event"));
}

// The three lines of a recompile of frame `frame` in a TORCH_LOGS=recompiles console, as Dynamo
// prints them (its compile 1, the guard failure of its compile 0).
std::string recompile_block(int frame, int actual) {
  const std::string prefix = "V1126 20:42:45.142000 1003 torch/_dynamo/guards.py:4760] [" +
                             std::to_string(frame) + "/1] [__recompiles] ";
  return prefix + "Recompiling function fn_" + std::to_string(frame) +
         " in /m/model.py:" + std::to_string(frame + 10) + "\n" + prefix +
         "    triggered by the following guard failure(s):\n" + prefix + "    - " +
         std::to_string(frame) + "/0: tensor 'x' size mismatch at index 0. expected 8, actual " +
         std::to_string(actual) + "\n";
}

// A batch that adds a few compiles to a long run reads back only the compiles its analysis wrote
// (store/watch_queries.h): their recompiles are alerted with their sites and details, as are those
// a preview of the log's end and a batch after the preview add.
TEST(WatchReadsOn, ABatchOfAFewCompilesReadsBackOnlyThose) {
  TempDir dir;
  WatchSession session(watch_of_logs(dir.path()));
  std::ofstream file(dir.file("logs/train.log"), std::ios::binary);
  for (int frame = 1; frame <= 400; ++frame) file << recompile_block(frame, 9);
  file.flush();
  session.poll(false, true);
  // Three more: the last one waits (a later record may still complete it), as frame 400's did.
  for (int frame = 401; frame <= 403; ++frame) file << recompile_block(frame, 10 + frame % 3);
  file.flush();
  std::vector<Alert> alerts = session.poll(false, true).alerts;
  std::vector<std::string> said;
  for (const Alert& a : alerts)
    if (a.kind == AlertKind::kRecompile)
      said.push_back(a.site + " | " + a.cause + " | " + a.detail);
  // Frame 400's, held back by the first batch, then 401's and 402's.
  EXPECT_EQ(said, (std::vector<std::string>{
                      "/m/model.py:410 (fn_400) | shape | tensor 'x' dim 0: 8 -> 9",
                      "/m/model.py:411 (fn_401) | shape | tensor 'x' dim 0: 8 -> 12",
                      "/m/model.py:412 (fn_402) | shape | tensor 'x' dim 0: 8 -> 10"}));
  // The logs are quiet: a preview reads the log to its end (under the same source id, so that
  // its analysis writes only what changed) and alerts frame 403.
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  alerts = session.poll(false, true).alerts;
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].line, 1 + 3 * 402);
  EXPECT_EQ(alerts[0].detail, "tensor 'x' dim 0: 8 -> 11");
  // After the rolled-back preview, the next batch and the end alert only what is new.
  file << recompile_block(404, 13);
  file.close();
  alerts = session.poll(false, true).alerts;
  EXPECT_TRUE(alerts.empty()) << alerts.size();  // 404 waits
  alerts = session.poll(true, true).alerts;
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].line, 1 + 3 * 403);
  EXPECT_EQ(alerts[0].detail, "tensor 'x' dim 0: 8 -> 13");
  EXPECT_EQ(session.status().recompiles, 404);
}

// The recompile alerts' details, in order.
std::vector<std::string> recompile_details(const std::vector<Alert>& alerts) {
  std::vector<std::string> details;
  for (const auto& a : alerts)
    if (a.kind == AlertKind::kRecompile) details.push_back(a.detail);
  return details;
}

// The rounds a watch over 400 recompile blocks, then one more after a pause, gave: the rounds
// handed to `early` (when `with_early`) and those poll returned; and the store after each poll.
struct PauseRounds {
  std::vector<std::vector<Alert>> early, returned;
  std::vector<std::string> stores;
};
PauseRounds watch_a_record_after_a_pause(const std::string& root, bool with_early) {
  const WatchRequest request = watch_of_logs(root);
  WatchSession session(request);
  std::ofstream file(root + "/logs/train.log", std::ios::binary);
  PauseRounds out;
  rcf::pipeline::WatchSession::RoundHandler early;
  if (with_early)
    early = [&out](const rcf::pipeline::WatchRound& r) { out.early.push_back(r.alerts); };
  auto poll = [&](bool final) {
    out.returned.push_back(session.poll(final, true, early).alerts);
    out.stores.push_back(
        rcf::testing::dump_tables_by_text(*rcf::testing::read_store(request.db_path)));
  };
  for (int frame = 1; frame <= 400; ++frame) file << recompile_block(frame, 9);
  file.flush();
  poll(false);  // the first batch: it follows no quiet spell
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  file << recompile_block(401, 12);  // alone after a pause
  file.flush();
  // The loop's wait for a change: with inotify, it says when the change came (after the pause).
  EXPECT_TRUE(session.wait_for_change(std::chrono::milliseconds(1000)));
  poll(false);
  file << recompile_block(402, 13);  // straight after
  file.flush();
  poll(false);
  file.close();
  poll(true);
  EXPECT_EQ(session.status().recompiles, 402);
  return out;
}

// A batch that follows a quiet spell, when poll is given `early`, shows its logs as if they ended
// (their last records included) before its own analysis, in a savepoint it rolls back, and hands
// those alerts over then: a recompile alone after a pause is alerted by the batch that reads it,
// not by a look 600 ms later. Each alert still comes once, and every store is the store a watch
// without it leaves.
TEST(WatchReadsOn, ABatchAfterAPauseAlertsItsLastRecordAtOnce) {
  TempDir dir;
  if (!WatchSession(watch_of_logs(dir.file("probe"))).has_inotify())
    GTEST_SKIP() << "without inotify no batch is previewed before its analysis";
  // One after the other under the same path: the stores name their logs' paths.
  const PauseRounds without = watch_a_record_after_a_pause(dir.file("w"), false);
  fs::remove_all(dir.file("w"));
  const PauseRounds with = watch_a_record_after_a_pause(dir.file("w"), true);
  // Frame 400's block, which the first batch held as the log's last record, and 401's.
  ASSERT_EQ(with.early.size(), 1u);
  EXPECT_EQ(recompile_details(with.early[0]),
            (std::vector<std::string>{"tensor 'x' dim 0: 8 -> 9", "tensor 'x' dim 0: 8 -> 12"}));
  EXPECT_TRUE(with.returned[1].empty()) << with.returned[1].size();
  EXPECT_TRUE(with.returned[2].empty()) << "402 waits, as 401 does without the preview";
  EXPECT_EQ(recompile_details(with.returned[3]),
            (std::vector<std::string>{"tensor 'x' dim 0: 8 -> 13"}));
  // Without: 400 and 401 come with the batch after 401 (the same order), 402 at the end.
  EXPECT_TRUE(without.early.empty());
  EXPECT_EQ(recompile_details(without.returned[1]),
            (std::vector<std::string>{"tensor 'x' dim 0: 8 -> 9"}));
  EXPECT_EQ(recompile_details(without.returned[2]),
            (std::vector<std::string>{"tensor 'x' dim 0: 8 -> 12"}));
  ASSERT_EQ(with.stores.size(), without.stores.size());
  for (size_t i = 0; i < with.stores.size(); ++i)
    EXPECT_EQ(with.stores[i], without.stores[i]) << "after poll " << i;
  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("w/logs")});
  EXPECT_EQ(with.stores.back(),
            rcf::testing::dump_tables_by_text(*rcf::testing::read_store(dir.file("once.db"))));
}

// The watch's rows as one text: every field the alerts read.
std::string rows_text(const rcf::store::WatchRunRows& rows) {
  std::string out;
  for (const auto& c : rows.compiles)
    out += std::to_string(c.ordinal) + " " + std::to_string(c.step.value_or(-1)) + " " + c.site +
           " " + c.program_key + " " + c.kind + " " + c.cause + " " + c.detail + " " + c.source +
           ":" + std::to_string(c.line) + "\n";
  for (const auto& l : rows.limit_hits) out += l.source + ":" + std::to_string(l.line) + "\n";
  for (const auto& b : rows.breaks) out += b.source + ":" + std::to_string(b.line) + "\n";
  for (const auto& st : rows.steps) out += std::to_string(st.step) + "\n";
  return out + rows.convergence_state + std::to_string(rows.settle_step.value_or(-1));
}

// A preview's rows are put back after its alerts (store::keep_watch_rows): its transaction is
// rolled back, and the rows it did not write are the last batch's. Here its last record is a
// second process's (another launcher rank), so that ending it rewrites every compile's program
// key: the rows the last batch left come back, the new ones go.
TEST(WatchReadsOn, APreviewsRowsArePutBackAsTheLastBatchLeftThem) {
  TempDir dir;
  const WatchRequest request = watch_of_logs(dir.path());
  const std::string path = dir.file("logs/train.log");
  std::ofstream file(path, std::ios::binary);
  auto prefixed = [](const std::string& block, const std::string& tag) {
    std::string out;
    for (size_t at = 0; at < block.size();) {
      const size_t nl = block.find('\n', at);
      out += tag + block.substr(at, nl + 1 - at);
      at = nl + 1;
    }
    return out;
  };
  for (int frame = 1; frame <= 400; ++frame)
    file << prefixed(recompile_block(frame, 9), "[default0]:");
  file << prefixed(recompile_block(401, 12), "[default1]:");
  file.flush();
  rcf::pipeline::GrowingLogs logs({request.db_path, "default", "default", "", ""});
  logs.read_batch({{path, -1, false}}, false);
  logs.read_batch({{path, -1, false}}, false);  // the next analysis writes through the memo
  const auto batch = rcf::testing::read_store(request.db_path);
  const int64_t run_id = 1;
  rcf::store::WatchRunRows rows = rcf::store::read_watch_rows(*batch, run_id);
  EXPECT_EQ(rows.unchanged_before, 0u);  // read whole
  const std::string before = rows_text(rows);
  // The rows a reader looked at, and after each change the rows it said were unchanged: the
  // same rows (read by the same read), up to the first that is not.
  std::vector<rcf::store::WatchCompileRow> looked_at = rows.compiles;
  rows.unchanged_before = rows.compiles.size();
  auto expect_unchanged_as_said = [&] {
    EXPECT_LT(rows.unchanged_before, looked_at.size());
    for (size_t i = 0; i < std::min(rows.unchanged_before, looked_at.size()); ++i)
      ASSERT_EQ(rows.compiles[i].version, looked_at[i].version) << i;
    EXPECT_NE(rows.compiles[rows.unchanged_before].version,
              looked_at[rows.unchanged_before].version);
    looked_at = rows.compiles;
    rows.unchanged_before = rows.compiles.size();
  };
  bool looked = false;
  ASSERT_TRUE(logs.preview_ends(
      [&](rcf::store::Database& db, int64_t run, const rcf::store::CompileRowMemo* written) {
        ASSERT_EQ(run, run_id);
        ASSERT_NE(written, nullptr);
        ASSERT_FALSE(written->whole);
        rcf::store::KeptWatchRows kept = rcf::store::keep_watch_rows(rows, *written);
        rcf::store::update_watch_rows(db, run, *written, rows);
        EXPECT_EQ(rows_text(rows), rows_text(rcf::store::read_watch_rows(db, run)));
        EXPECT_NE(rows_text(rows), before) << "the preview's last record changed the rows";
        EXPECT_GT(written->written.size(), 400u) << "every program key took a rank";
        expect_unchanged_as_said();
        rcf::store::put_back_watch_rows(std::move(kept), rows);
        expect_unchanged_as_said();
        looked = true;
      }));
  ASSERT_TRUE(looked);
  EXPECT_EQ(rows_text(rows), before);
  EXPECT_EQ(rows_text(rows), rows_text(rcf::store::read_watch_rows(*batch, run_id)));
}

// After a batch of a few compiles, the rows say which of them a reader need not look at again:
// all those it had seen, when the batch only added rows after them.
TEST(WatchReadsOn, TheRowsABatchLeftUnchangedAreSaidToBe) {
  TempDir dir;
  const WatchRequest request = watch_of_logs(dir.path());
  const std::string path = dir.file("logs/train.log");
  std::ofstream file(path, std::ios::binary);
  for (int frame = 1; frame <= 400; ++frame) file << recompile_block(frame, 9);
  file.flush();
  rcf::pipeline::GrowingLogs logs({request.db_path, "default", "default", "", ""});
  logs.read_batch({{path, -1, false}}, false);
  const int64_t run_id = 1;
  rcf::store::WatchRunRows rows = rcf::store::read_watch_rows(logs.store(), run_id);
  const std::vector<rcf::store::WatchCompileRow> looked_at = rows.compiles;
  rows.unchanged_before = rows.compiles.size();
  for (int frame = 401; frame <= 403; ++frame) file << recompile_block(frame, 12);
  file.flush();
  logs.read_batch({{path, -1, false}}, false);
  const rcf::store::CompileRowMemo* written = logs.last_analysis(run_id);
  ASSERT_NE(written, nullptr);
  ASSERT_FALSE(written->whole);
  rcf::store::update_watch_rows(logs.store(), run_id, *written, rows);
  EXPECT_EQ(rows_text(rows), rows_text(rcf::store::read_watch_rows(logs.store(), run_id)));
  // Two compiles a frame (its first, then the recompile): 399 frames' after the first batch
  // (frame 400's block held back), frames 400-402's after the second (403's held back), each
  // written after those before: none of the rows looked at changed.
  ASSERT_EQ(rows.compiles.size(), looked_at.size() + 6);
  EXPECT_EQ(rows.unchanged_before, looked_at.size());
  for (size_t i = 0; i < rows.unchanged_before; ++i)
    ASSERT_EQ(rows.compiles[i].version, looked_at[i].version) << i;
  // Rows written before the end (as when a record completes an earlier compile) are said to
  // differ from the first of them on.
  rcf::store::CompileRowMemo middle = *written;
  middle.written = {500, 700};
  rows.unchanged_before = rows.compiles.size();
  rcf::store::update_watch_rows(logs.store(), run_id, middle, rows);
  EXPECT_EQ(rows.unchanged_before, 499u);
  // A reader that did not say when it looked is told to compare every row.
  rows.unchanged_before = 0;
  rcf::store::update_watch_rows(logs.store(), run_id, *written, rows);
  EXPECT_EQ(rows.unchanged_before, 0u);
}

// A batch whose lines add no raw row (a training loop's own output, noted and not read) leaves
// the last analysis standing: it is not analysed again, and the store still ends as a one-shot
// ingest leaves it.
TEST(WatchReadsOn, ABatchThatAddsNoRowIsNotAnalysed) {
  TempDir dir;
  const WatchRequest request = watch_of_logs(dir.path());
  const std::string path = dir.file("logs/train.log");
  std::ofstream file(path, std::ios::binary);
  for (int frame = 1; frame <= 400; ++frame) file << recompile_block(frame, 9);
  file << "prefetching shard 0 of /data/train\n";  // ends frame 400's block
  file.flush();
  rcf::pipeline::GrowingLogs logs({request.db_path, "default", "default", "", ""});
  logs.read_batch({{path, -1, false}}, false);
  EXPECT_TRUE(logs.last_batch_analysed());
  for (int i = 1; i <= 50; ++i) file << "prefetching shard " << i << " of /data/train\n";
  file.flush();
  logs.read_batch({{path, -1, false}}, false);
  EXPECT_FALSE(logs.last_batch_analysed()) << "fifty lines of the script's own output";
  file << recompile_block(401, 12) << "prefetching shard 51 of /data/train\n";
  file.close();
  logs.read_batch({{path, -1, false}}, false);
  EXPECT_TRUE(logs.last_batch_analysed()) << "a recompile";
  logs.read_batch({{path, -1, false}}, true);
  rcf::testing::ingest_logs(dir.file("once.db"), {path});
  auto watched = rcf::testing::read_store(request.db_path);
  auto once = rcf::testing::read_store(dir.file("once.db"));
  EXPECT_EQ(rcf::testing::scalar(*watched, "SELECT count(*) FROM recompiles"), "401");
  EXPECT_EQ(rcf::testing::dump_tables_by_text(*watched), rcf::testing::dump_tables_by_text(*once));
}

// A console timed by rcf capture's line-time sidecar, longer than the sniffing window, written
// in pieces with its sidecar's rows coming after its lines (as capture notes them): the console
// is read whole again when its times came, and the store ends as a one-shot ingest leaves it,
// every progress line timed.
TEST(WatchReadsOn, AConsoleTimedByItsSidecarGetsEveryTime) {
  TempDir dir;
  fs::create_directories(dir.file("logs"));
  const std::string text = real_consoles_one_after_the_other();
  const std::string console = dir.file("logs/stderr.log");
  int fd = rcf::pipeline::open_line_times(rcf::pipeline::line_times_path(console));
  ASSERT_GE(fd, 0);
  WatchSession session(watch_of_logs(dir.path()));
  std::ofstream log(console, std::ios::binary);
  constexpr int kPieces = 4;
  int64_t lines = 0, unix_ms = 1795725700000;
  size_t from = 0;
  for (int i = 1; i <= kPieces; ++i) {
    const size_t at = std::max({text.size() * i / kPieces, from + 1, size_t{66} << 10});
    const size_t to = i == kPieces ? text.size() : text.find('\n', at) + 1;
    ASSERT_GT(to, from);
    log.write(text.data() + from, static_cast<std::streamsize>(to - from));
    log.flush();
    for (const auto& w : session.poll(false, true).warnings) ADD_FAILURE() << w;  // lines
    lines += std::count(text.begin() + from, text.begin() + to, '\n');
    const std::string row = rcf::pipeline::format_line_time(lines, unix_ms += 1000);
    ASSERT_EQ(::write(fd, row.data(), row.size()), static_cast<ssize_t>(row.size()));
    for (const auto& w : session.poll(false, true).warnings) ADD_FAILURE() << w;  // times
    from = to;
  }
  ::close(fd);
  log.close();
  for (const auto& w : session.poll(true, true).warnings) ADD_FAILURE() << w;
  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("logs")});
  auto watched = rcf::testing::read_store(dir.file("watch.db"));
  auto once = rcf::testing::read_store(dir.file("once.db"));
  EXPECT_NE(rcf::testing::scalar(*once, "SELECT count(*) FROM step_marker WHERE time_on_arrival"),
            "0");
  EXPECT_EQ(rcf::testing::dump_tables_by_text(*watched), rcf::testing::dump_tables_by_text(*once));
}

// The recompile alerts of a watch over `text` cut at `cut`: what the first piece gave, what a
// quiet poll after it gave (none when `pause` is false), and what the final poll gave.
struct PiecesAlerts {
  std::vector<std::string> read, quiet, rest;
  std::string store_before_quiet, store_after_quiet;
};
PiecesAlerts watch_in_two_pieces(const std::string& dir, const std::string& text, size_t cut,
                                 bool pause) {
  const WatchRequest request = watch_of_logs(dir);
  WatchSession session(request);
  std::ofstream log(dir + "/logs/console.log", std::ios::binary);
  log.write(text.data(), static_cast<std::streamsize>(cut));
  log.flush();
  PiecesAlerts out;
  out.read = alert_causes(session.poll(false, true).alerts, AlertKind::kRecompile);
  if (pause) {
    out.store_before_quiet =
        rcf::testing::dump_tables_by_text(*rcf::testing::read_store(request.db_path));
    std::this_thread::sleep_for(std::chrono::milliseconds(1700));
    out.quiet = alert_causes(session.poll(false, false).alerts, AlertKind::kRecompile);
    out.store_after_quiet =
        rcf::testing::dump_tables_by_text(*rcf::testing::read_store(request.db_path));
  }
  log.write(text.data() + cut, static_cast<std::streamsize>(text.size() - cut));
  log.close();
  out.rest = alert_causes(session.poll(true, true).alerts, AlertKind::kRecompile);
  return out;
}

// A log read on holds its last record in its importer until another record follows. Once the
// logs are quiet, that record is alerted all the same (a preview that ends the log in a
// transaction rolled back, so the store is unchanged), and not again when it is read for good.
TEST(WatchReadsOn, TheLastRecordIsAlertedOnceTheLogsAreQuiet) {
  TempDir dir;
  const std::string text = real_consoles_one_after_the_other();
  // Up to the first guard failure of the console's last recompile block: the importer cannot
  // know that the block ends there until the next line comes.
  const size_t block = text.rfind("triggered by the following guard failure");
  ASSERT_NE(block, std::string::npos);
  const size_t cut = text.find('\n', text.find('\n', block) + 1) + 1;
  ASSERT_GT(cut, size_t{64} << 10);
  PiecesAlerts paused = watch_in_two_pieces(dir.file("paused"), text, cut, true);
  PiecesAlerts straight = watch_in_two_pieces(dir.file("straight"), text, cut, false);
  EXPECT_EQ(paused.read, straight.read);
  ASSERT_FALSE(paused.quiet.empty()) << "the last block was alerted once the log was quiet";
  EXPECT_EQ(paused.store_after_quiet, paused.store_before_quiet) << "the preview is not kept";
  std::vector<std::string> all_paused = paused.read, all_straight = straight.read;
  all_paused.insert(all_paused.end(), paused.quiet.begin(), paused.quiet.end());
  all_paused.insert(all_paused.end(), paused.rest.begin(), paused.rest.end());
  all_straight.insert(all_straight.end(), straight.rest.begin(), straight.rest.end());
  EXPECT_EQ(all_paused, all_straight) << "each alert once, in the same order";
}

// A record is alerted once even when the run's later reading names its compile otherwise. In
// the real consoles one after the other, each process's last recompile block stays open until
// the log ends (a later line of the same process may go on with it); ended, those blocks give
// compiles that move the compile ids of others into other epochs and give program keys a file
// prefix: the same recompiles under other identities, which were alerted a second time.
TEST(WatchReadsOn, ARecordIsAlertedOnceWhenTheEndReadsItsRunOtherwise) {
  TempDir dir;
  const std::string text = real_consoles_one_after_the_other();
  const size_t cut = text.find('\n', text.size() / 2) + 1;
  WatchSession session(watch_of_logs(dir.path()));
  std::vector<Alert> alerts;
  std::ofstream log(dir.file("logs/train.log"), std::ios::binary);
  log << text.substr(0, cut) << std::flush;
  for (const auto& a : session.poll(false, true).alerts) alerts.push_back(a);
  log << text.substr(cut) << std::flush;
  for (const auto& a : session.poll(false, true).alerts) alerts.push_back(a);
  for (const auto& a : session.poll(true, true).alerts) alerts.push_back(a);
  std::map<std::pair<int64_t, std::string>, int> said;
  for (const auto& a : alerts)
    if (a.kind == AlertKind::kRecompile) ++said[{a.line, a.cause}];
  for (const auto& [record, times] : said)
    EXPECT_EQ(times, 1) << "line " << record.first << " " << record.second;

  // Every recompile of a one-shot ingest, with its cause; besides them only records first said
  // with a cause still unknown (their compile's own lines came later).
  rcf::testing::ingest_logs(dir.file("once.db"), {dir.file("logs")});
  auto once = rcf::testing::read_store(dir.file("once.db"));
  std::vector<std::string> lines = rcf::testing::column(
      *once,
      "SELECT c.line FROM recompiles r JOIN compile_event c USING (run_id, ordinal) ORDER BY 1");
  std::vector<std::string> causes = rcf::testing::column(
      *once,
      "SELECT r.cause FROM recompiles r JOIN compile_event c USING (run_id, ordinal) ORDER BY "
      "c.line");
  ASSERT_EQ(lines.size(), causes.size());
  ASSERT_GT(lines.size(), 50u);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto at = said.find({std::stoll(lines[i]), causes[i]});
    EXPECT_NE(at, said.end()) << "line " << lines[i] << " " << causes[i] << " not alerted";
    if (at != said.end()) said.erase(at);
  }
  for (const auto& [record, times] : said)
    EXPECT_EQ(record.second, "unknown") << "line " << record.first << " is no one-shot recompile";
  auto watched = rcf::testing::read_store(dir.file("watch.db"));
  for (const auto& q : kSameQueries)
    EXPECT_EQ(rcf::testing::query_csv(*watched, q), rcf::testing::query_csv(*once, q)) << q;
}

// Logs quiet for WatchRequest::rest_after: the arrays kept for the next batch's analysis are
// given back (a freed one is kept until then), and the batch after the rest still alerts and
// writes what a one-shot ingest does.
TEST(WatchReadsOn, AtRestTheMemoryKeptForTheNextBatchIsGivenBack) {
  TempDir dir;
  const std::string text = fixture_text("real_runs/constant_counter/run1/stderr.log");
  const size_t cut = text.find('\n', text.size() / 2) + 1;
  WatchRequest request = watch_of_logs(dir.path());
  request.rest_after = std::chrono::milliseconds(0);
  std::vector<Alert> alerts;
  {
    WatchSession session(request);
    std::ofstream log(dir.file("logs/train.log"), std::ios::binary);
    log << text.substr(0, cut) << std::flush;
    for (const auto& a : session.poll(false, true).alerts) alerts.push_back(a);
    {
      // An analysis's array of 4 MiB, freed: kept for the next batch.
      std::vector<char, rcf::util::LargeArrayAllocator<char>> array(size_t{4} << 20);
    }
    EXPECT_GE(rcf::util::kept_large_array_bytes(), size_t{4} << 20);
    for (const auto& a : session.poll(false, true).alerts) alerts.push_back(a);  // at rest
    EXPECT_EQ(rcf::util::kept_large_array_bytes(), 0u);
    { std::vector<char, rcf::util::LargeArrayAllocator<char>> array(size_t{4} << 20); }
    EXPECT_GE(rcf::util::kept_large_array_bytes(), size_t{4} << 20) << "kept again after a rest";
    log << text.substr(cut) << std::flush;
    for (const auto& a : session.poll(false, true).alerts) alerts.push_back(a);
    for (const auto& a : session.poll(true, true).alerts) alerts.push_back(a);
  }
  EXPECT_EQ(rcf::util::kept_large_array_bytes(), 0u) << "an ended watch keeps nothing";
  expect_the_one_shot_alerts_and_store(dir, alerts, 1);
}

}  // namespace watch_test

namespace watch_test {

rcf::store::WatchCompileRow compile_row(int64_t ordinal, std::optional<int64_t> step,
                                        const std::string& site, const std::string& cause,
                                        int64_t line) {
  rcf::store::WatchCompileRow c;
  c.ordinal = ordinal;
  c.step = step;
  c.site = site;
  c.program_key = "key" + std::to_string(ordinal);
  c.kind = "xla";
  c.cause = cause;
  c.detail = cause + " detail";
  c.source = "train.log";
  c.line = line;
  return c;
}

std::vector<AlertKind> kinds_of(const std::vector<Alert>& alerts) {
  std::vector<AlertKind> kinds;
  for (const auto& a : alerts) kinds.push_back(a.kind);
  return kinds;
}

// The storm budget counts one site's recompiles within the last N steps: two sites that each
// recompile twice are no storm; the third recompile of one site within 10 steps is, once, and
// again only after the site fell back under the budget.
TEST(WatchAlertRules, SiteStormOncePerCrossing) {
  rcf::analysis::AlertTracker tracker;
  rcf::store::WatchRunRows rows;
  rows.compiles = {
      compile_row(1, 1, "a.py:1", "first_compile", 10), compile_row(2, 2, "a.py:1", "shape", 20),
      compile_row(3, 3, "b.py:1", "dtype", 30), compile_row(4, 4, "a.py:1", "shape", 40),
      compile_row(5, 5, "b.py:1", "dtype", 50)};
  auto first = tracker.advance(rows, LogEnds::kEnded);
  EXPECT_EQ(kinds_of(first), std::vector<AlertKind>(4, AlertKind::kRecompile));
  rows.compiles.push_back(compile_row(6, 9, "a.py:1", "constant", 60));
  auto second = tracker.advance(rows, LogEnds::kEnded);
  ASSERT_EQ(kinds_of(second), (std::vector<AlertKind>{AlertKind::kRecompile, AlertKind::kStorm}));
  EXPECT_EQ(second[1].site, "a.py:1");
  EXPECT_EQ(second[1].cause, "shape, constant");
  EXPECT_EQ(second[1].step, 9);
  EXPECT_NE(second[1].detail.find("3 recompiles within 10 steps (steps 2-9)"), std::string::npos)
      << second[1].detail;
  rows.compiles.push_back(compile_row(7, 10, "a.py:1", "shape", 70));  // still storming
  EXPECT_EQ(kinds_of(tracker.advance(rows, LogEnds::kEnded)),
            std::vector<AlertKind>{AlertKind::kRecompile});
  rows.compiles.push_back(compile_row(8, 30, "a.py:1", "shape", 80));  // under again
  rows.compiles.push_back(compile_row(9, 90, "c.py:1", "first_compile", 90));
  EXPECT_EQ(kinds_of(tracker.advance(rows, LogEnds::kEnded)),
            std::vector<AlertKind>{AlertKind::kRecompile});
  for (int64_t i = 0; i < 2; ++i)
    rows.compiles.push_back(compile_row(10 + i, 31 + i, "a.py:1", "shape", 100 + i));
  rows.compiles.push_back(compile_row(12, 95, "c.py:1", "first_compile", 200));
  auto again = tracker.advance(rows, LogEnds::kEnded);
  EXPECT_EQ(kinds_of(again), (std::vector<AlertKind>{AlertKind::kRecompile, AlertKind::kRecompile,
                                                     AlertKind::kStorm}));
}

// A row whose site changed since the last look (a later analysis found the compile's frame) is
// counted at its new site: the storms' pass keeps each row's site number from look to look and
// must see that the text moved.
TEST(WatchAlertRules, ARowThatMovesToAnotherSiteCountsThere) {
  rcf::analysis::AlertTracker tracker;
  rcf::store::WatchRunRows rows;
  rows.compiles = {compile_row(1, 1, "a.py:1", "first_compile", 10),
                   compile_row(2, 2, "a.py:1", "shape", 20),
                   compile_row(3, 3, "a.py:1", "shape", 30)};
  EXPECT_EQ(kinds_of(tracker.advance(rows, LogEnds::kEnded)),
            std::vector<AlertKind>(2, AlertKind::kRecompile));
  // Rows 2 and 3 were b.py's; with one more of b.py's that is its third recompile in 3 steps.
  rows.compiles[1].site = "b.py:7";
  rows.compiles[2].site = "b.py:7";
  rows.compiles.push_back(compile_row(4, 4, "b.py:7", "shape", 40));
  auto alerts = tracker.advance(rows, LogEnds::kEnded);  // b.py's are compiles not said yet
  ASSERT_EQ(kinds_of(alerts), (std::vector<AlertKind>{AlertKind::kRecompile, AlertKind::kRecompile,
                                                      AlertKind::kRecompile, AlertKind::kStorm}));
  EXPECT_EQ(alerts[3].site, "b.py:7");
}

// A look goes on from the first compile row that changed or was held back: it must say what a
// look over every row says, through rows appended, changed in place (site, cause, step, record),
// dropped from the tail, read again whole, and logs ended or not, with program keys compiled
// again and compile ids copied in two logs. Rows told apart by their values (made in place), and
// by their versions (as the store's reads make them: a row read again gets a new one).
class LookFromTheFirstChangedRow : public ::testing::TestWithParam<bool> {};

TEST_P(LookFromTheFirstChangedRow, SaysWhatALookOverEveryRowSays) {
  const bool versioned = GetParam();
  uint64_t last_version = 0;
  auto version = [&]() { return versioned ? ++last_version : uint64_t{0}; };
  std::mt19937 random(20261206);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
  const std::vector<std::string> sites = {"a.py:1", "a.py:2", "b.py:7", "c.py:3"};
  const std::vector<std::string> causes = {"first_compile", "shape", "shape", "dtype", "unknown"};
  const std::vector<std::string> sources = {"rank0.log", "rank1.log"};
  for (int trial = 0; trial < 40; ++trial) {
    rcf::analysis::StormBudgets budgets;
    budgets.site_recompiles = 2 + pick(2);
    budgets.site_steps = 3 + pick(6);
    rcf::analysis::AlertTracker going_on(budgets), whole(budgets);
    whole.look_at_every_row();
    rcf::store::WatchRunRows rows;
    std::map<std::string, int64_t> next_line = {{sources[0], 1}, {sources[1], 1}};
    int64_t step = 0;
    auto new_row = [&]() {
      rcf::store::WatchCompileRow c;
      c.ordinal = static_cast<int64_t>(rows.compiles.size()) + 1;
      c.version = version();
      step += pick(3);
      if (pick(6) != 0) c.step = step;
      c.site = sites[pick(4)];
      c.cause = causes[pick(5)];
      c.detail = c.cause + " at " + c.site;
      c.source = sources[pick(2)];
      c.line = (next_line[c.source] += 1 + pick(4));
      if (pick(2) == 0) {
        c.program_key = "key" + std::to_string(pick(6));  // compiled again, no compile id
      } else {
        c.frame_id = pick(4);
        c.frame_compile_id = pick(5);  // a compile id, sometimes in both logs
        c.rank = pick(2) - 1;
        c.program_key = std::to_string(c.frame_id) + "/" + std::to_string(c.frame_compile_id);
      }
      return c;
    };
    for (int look = 0; look < 30; ++look) {
      int change = pick(10);
      if (change == 0 && !rows.compiles.empty()) {
        auto& c = rows.compiles[static_cast<size_t>(pick(static_cast<int>(rows.compiles.size())))];
        switch (pick(4)) {
          case 0:
            c.site = sites[pick(4)];
            break;
          case 1:
            c.cause = causes[pick(5)];
            break;
          case 2:
            c.step = c.step ? std::nullopt : std::make_optional<int64_t>(step);
            break;
          default:
            c.detail = "refined";
            break;
        }
        c.version = version();
      } else if (change == 1 && !rows.compiles.empty()) {
        rows.compiles.resize(static_cast<size_t>(pick(static_cast<int>(rows.compiles.size()))));
      } else if (change == 2) {
        std::vector<rcf::store::WatchCompileRow> again = rows.compiles;  // read again whole
        for (auto& c : again) c.version = version();
        rows.compiles = std::move(again);
      }
      for (int n = pick(6); n > 0; --n) rows.compiles.push_back(new_row());
      if (pick(5) == 0) {
        rcf::store::WatchBreakRow b;
        b.source = sources[pick(2)];
        b.line = (next_line[b.source] += 1);
        b.gb_type = "break " + std::to_string(pick(3));
        rows.breaks.push_back(b);
      }
      rows.convergence_state = pick(4) == 0 ? "settled" : "still_growing";
      const LogEnds ends = std::array{LogEnds::kMayGrow, LogEnds::kMayGrow, LogEnds::kPreviewed,
                                      LogEnds::kEnded}[static_cast<size_t>(pick(4))];
      const auto said = going_on.advance(rows, ends), expected = whole.advance(rows, ends);
      ASSERT_EQ(said.size(), expected.size()) << "trial " << trial << " look " << look;
      for (size_t i = 0; i < said.size(); ++i) {
        EXPECT_EQ(said[i].kind, expected[i].kind) << "trial " << trial << " look " << look;
        EXPECT_EQ(said[i].step, expected[i].step);
        EXPECT_EQ(said[i].site, expected[i].site);
        EXPECT_EQ(said[i].cause, expected[i].cause);
        EXPECT_EQ(said[i].detail, expected[i].detail);
        EXPECT_EQ(said[i].source, expected[i].source);
        EXPECT_EQ(said[i].line, expected[i].line);
      }
      EXPECT_EQ(going_on.holds_back(), whole.holds_back()) << "trial " << trial << " look " << look;
      EXPECT_EQ(going_on.status().recompiles, whole.status().recompiles);
      EXPECT_EQ(going_on.status().programs, whole.status().programs);
      EXPECT_EQ(going_on.status().last_step, whole.status().last_step);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(WatchAlertRules, LookFromTheFirstChangedRow, ::testing::Bool(),
                         [](const auto& param_info) {
                           return param_info.param ? "Versioned" : "ByValue";
                         });

// Compile time over half the wall time of the last 10 timed steps is a storm; said when the share
// goes over, not at every look.
TEST(WatchAlertRules, CompileShareStorm) {
  rcf::analysis::AlertTracker tracker;
  rcf::store::WatchRunRows rows;
  for (int64_t s = 1; s <= 20; ++s) rows.steps.push_back({s, std::nullopt, 1500.0});
  EXPECT_TRUE(tracker.advance(rows, LogEnds::kEnded).empty());
  EXPECT_EQ(*tracker.status().recent_compile_share, 0.0);
  for (int64_t s = 21; s <= 24; ++s) rows.steps.push_back({s, 73000.0, 74000.0});
  auto alerts = tracker.advance(rows, LogEnds::kEnded);
  ASSERT_EQ(kinds_of(alerts), std::vector<AlertKind>{AlertKind::kStorm});
  EXPECT_EQ(alerts[0].step, 24);
  EXPECT_NE(alerts[0].detail.find("of the wall time of steps 15-24 was spent compiling"),
            std::string::npos)
      << alerts[0].detail;
  rows.steps.push_back({25, 73000.0, 74000.0});
  EXPECT_TRUE(tracker.advance(rows, LogEnds::kEnded).empty());
}

// A new program after the curve had settled is said once; an old program compiled again is not
// a new program.
TEST(WatchAlertRules, NewProgramAfterSettle) {
  rcf::analysis::AlertTracker tracker;
  rcf::store::WatchRunRows rows;
  rows.compiles = {compile_row(1, 1, "a.py:1", "first_compile", 10)};
  rows.convergence_state = "settled";
  EXPECT_TRUE(tracker.advance(rows, LogEnds::kEnded).empty());
  rows.compiles.push_back(compile_row(2, 300, "a.py:1", "shape", 20));
  rows.convergence_state = "still_growing";
  auto alerts = tracker.advance(rows, LogEnds::kEnded);
  EXPECT_EQ(kinds_of(alerts),
            (std::vector<AlertKind>{AlertKind::kRecompile, AlertKind::kNewProgramAfterSettle}));
  rows.compiles.push_back(compile_row(3, 301, "a.py:1", "shape", 30));
  EXPECT_EQ(kinds_of(tracker.advance(rows, LogEnds::kEnded)),
            std::vector<AlertKind>{AlertKind::kRecompile});
}

// The last record read from a log may still be being written: it waits until a later record
// follows it in that log, or the watch says the logs are complete.
TEST(WatchAlertRules, LastRecordOfALogWaits) {
  rcf::analysis::AlertTracker tracker;
  rcf::store::WatchRunRows rows;
  rows.compiles = {compile_row(1, 1, "a.py:1", "first_compile", 10),
                   compile_row(2, 2, "a.py:1", "shape", 20)};
  rcf::store::WatchBreakRow b;
  b.source = "train.log";
  b.line = 25;
  b.gb_type = "Data-dependent branching";
  b.user_file = "a.py";
  b.user_line = 7;
  rows.breaks = {b};
  EXPECT_EQ(kinds_of(tracker.advance(rows, LogEnds::kMayGrow)),
            std::vector<AlertKind>{AlertKind::kRecompile});
  EXPECT_TRUE(tracker.holds_back());
  rows.breaks.push_back(b);  // the same break again, later in the log: said once
  rows.breaks.back().line = 40;
  auto alerts = tracker.advance(rows, LogEnds::kMayGrow);
  ASSERT_EQ(kinds_of(alerts), std::vector<AlertKind>{AlertKind::kGraphBreak});
  EXPECT_EQ(alerts[0].site, "a.py:7");
  EXPECT_FALSE(tracker.holds_back());  // the last record is a break already said
  rows.compiles.push_back(compile_row(3, 3, "a.py:1", "dtype", 50));
  EXPECT_TRUE(tracker.advance(rows, LogEnds::kMayGrow).empty());
  EXPECT_TRUE(tracker.holds_back());
  EXPECT_EQ(alert_causes(tracker.advance(rows, LogEnds::kEnded), AlertKind::kRecompile),
            std::vector<std::string>{"dtype"});
  EXPECT_FALSE(tracker.holds_back());
}

// A preview ends the logs as if complete: their last records are alerted, except a compile whose
// cause they leave unknown (a recompile block cut before its guard failures), which waits for a
// later record of its log or for the end of the watch.
TEST(WatchAlertRules, APreviewTakesTheLastRecordUnlessItsCauseIsUnknown) {
  rcf::analysis::AlertTracker tracker;
  rcf::store::WatchRunRows rows;
  rows.compiles = {compile_row(1, 1, "a.py:1", "first_compile", 10),
                   compile_row(2, 2, "a.py:1", "shape", 20)};
  EXPECT_EQ(alert_causes(tracker.advance(rows, LogEnds::kPreviewed), AlertKind::kRecompile),
            std::vector<std::string>{"shape"});
  EXPECT_FALSE(tracker.holds_back());
  rows.compiles.push_back(compile_row(3, 3, "a.py:1", "unknown", 30));
  EXPECT_TRUE(tracker.advance(rows, LogEnds::kPreviewed).empty());
  EXPECT_TRUE(tracker.holds_back());
  // The rest of the block came: the same compile, its cause decided.
  rows.compiles.back() = compile_row(3, 3, "a.py:1", "dtype", 30);
  EXPECT_EQ(alert_causes(tracker.advance(rows, LogEnds::kPreviewed), AlertKind::kRecompile),
            std::vector<std::string>{"dtype"});
  // An unknown cause that no later line decides is said when the watch ends.
  rows.compiles.push_back(compile_row(4, 4, "a.py:1", "unknown", 40));
  EXPECT_TRUE(tracker.advance(rows, LogEnds::kPreviewed).empty());
  EXPECT_EQ(alert_causes(tracker.advance(rows, LogEnds::kEnded), AlertKind::kRecompile),
            std::vector<std::string>{"unknown"});
}

TEST(WatchOutput, AlertAsJsonAndTextIsSanitised) {
  Alert a;
  a.kind = AlertKind::kLimitHit;
  a.site = "evil.py:1 (f\x1b[2Jx)";
  a.detail = "recompile_limit (8) hit\n::error::forged";
  a.source = "train.log";
  a.line = 12;
  std::string json_line = rcf::report::render_alert_json(a, "lane", "run");
  ASSERT_EQ(json_line.back(), '\n');
  EXPECT_EQ(json_line.find('\n'), json_line.size() - 1);
  EXPECT_EQ(json_line.find('\x1b'), std::string::npos);
  auto doc = nlohmann::json::parse(json_line);
  for (const char* key :
       {"kind", "lane", "run", "step", "site", "cause", "detail", "source", "line"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["kind"], "limit_hit");
  EXPECT_TRUE(doc["step"].is_null());
  EXPECT_EQ(doc["line"], 12);
  std::string text = rcf::report::render_alert_text(a, "lane", "run");
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
  EXPECT_EQ(text.rfind("[limit_hit] lane/run at evil.py:1", 0), 0u) << text;
}

// A partial last line waits for its newline; a gzip file is read once whole (here when the
// watch ends, before its size has stayed the same for a second).
TEST(WatchFiles, PartialLineWaitsAndGzipIsReadWhole) {
  TempDir dir;
  std::string log = fixture_text("real_runs/constant_counter/run1/stderr.log");
  size_t cut = log.find('\n', log.size() / 2) + 10;
  rcf::testing::write_file(dir.file("train.log"), log.substr(0, cut));
  rcf::testing::write_file(dir.file("old.log.gz"), rcf::testing::gzip_compress(log));
  rcf::pipeline::WatchedFiles files({dir.path()}, dir.file("rcf.db"));
  auto ready = files.changed(false, true);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].path, dir.file("train.log"));
  EXPECT_EQ(ready[0].bytes, static_cast<int64_t>(log.rfind('\n', cut - 1) + 1));
  files.mark_read(ready[0]);
  EXPECT_TRUE(files.changed(false, true).empty());
  auto last = files.changed(true, true);
  ASSERT_EQ(last.size(), 2u);
  for (const auto& f : last) EXPECT_EQ(f.bytes, -1) << f.path;
}

// A line still being written is waited for however many looks it takes, and read once its
// newline comes, up to that newline.
TEST(WatchFiles, ALongLineIsReadWhenItsNewlineComes) {
  TempDir dir;
  rcf::testing::write_file(dir.file("train.log"), "step 1\n");
  rcf::pipeline::WatchedFiles files({dir.file("train.log")}, dir.file("rcf.db"));
  auto first = files.changed(false, true);
  ASSERT_EQ(first.size(), 1u);
  files.mark_read(first[0]);
  std::ofstream out(dir.file("train.log"), std::ios::binary | std::ios::app);
  for (int i = 0; i < 3; ++i) {
    out << std::string(100000, 'x') << std::flush;
    EXPECT_TRUE(files.changed(false, false).empty()) << i;
  }
  out << "\nstep 2 par" << std::flush;
  auto ready = files.changed(false, false);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].bytes, 7 + 300000 + 1);
}

// A rotated log (renamed away, a new file under its name) is read anew: the new file's
// recompiles are alerted, the renamed one is the same content as what was read.
TEST(WatchFiles, RotatedLogIsReadAnew) {
  TempDir dir;
  WatchSession session(watch_of_logs(dir.path()));
  rcf::testing::write_file(dir.file("logs/train.log"),
                           fixture_text("real_runs/dtype_flip/run1/stderr.log"));
  auto first = session.poll(false, true).alerts;
  ASSERT_EQ(alert_causes(first, AlertKind::kRecompile), std::vector<std::string>{"dtype"});
  fs::rename(dir.file("logs/train.log"), dir.file("logs/train.log.1"));
  rcf::testing::write_file(dir.file("logs/train.log"),
                           fixture_text("real_runs/parameter_vs_tensor/run1/stderr.log"));
  std::vector<Alert> later = session.poll(false, true).alerts;
  for (auto& a : session.poll(true, true).alerts) later.push_back(a);
  EXPECT_EQ(alert_causes(later, AlertKind::kRecompile), std::vector<std::string>{"type"});
  auto db = rcf::testing::read_store(dir.file("watch.db"));
  EXPECT_EQ(rcf::testing::scalar(*db, "SELECT count(*) FROM source WHERE path LIKE '%train.log'"),
            "2");
}

// Files that appear later in a watched directory, in a new subdirectory too, are followed.
TEST(WatchFiles, FilesThatAppearLater) {
  TempDir dir;
  fs::create_directories(dir.file("logs"));
  WatchRequest request;
  request.db_path = dir.file("logs/watch.db");  // inside the watched directory: never read
  request.paths = {dir.file("logs")};
  WatchSession session(request);
  EXPECT_TRUE(session.poll(false, true).alerts.empty());
  fs::create_directories(dir.file("logs/rank1"));
  rcf::testing::write_file(dir.file("logs/rank1/train.log"),
                           fixture_text("real_runs/optional_keys/run1/stderr.log"));
  auto round = session.poll(false, true);
  for (auto& a : session.poll(true, true).alerts) round.alerts.push_back(a);
  EXPECT_EQ(alert_causes(round.alerts, AlertKind::kRecompile),
            std::vector<std::string>{"key_subset"});
  auto db = rcf::testing::read_store(dir.file("logs/watch.db"));
  EXPECT_EQ(rcf::testing::scalar(*db, "SELECT count(*) FROM source"), "1");
}

}  // namespace watch_test

namespace watch_test {

// Appends `text` to `path` in `pieces` writes, `pause` apart, on a thread of its own.
std::thread append_slowly(const std::string& path, const std::string& text, int pieces,
                          std::chrono::milliseconds pause) {
  return std::thread([=] {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < pieces; ++i) {
      size_t from = text.size() * i / pieces, to = text.size() * (i + 1) / pieces;
      out.write(text.data() + from, static_cast<std::streamsize>(to - from));
      out.flush();
      std::this_thread::sleep_for(pause);
    }
  });
}

// The command end to end: a log written while `rcf watch --json --for` runs gives one JSON
// object per alert with the documented keys, the summary goes to stderr, and --fail-on makes an
// alert of that kind exit 1.
TEST(WatchCli, JsonAlertsWhileALogIsWritten) {
  TempDir dir;
  fs::create_directories(dir.file("logs"));
  rcf::testing::RcfChild watch({"watch", "--db", dir.file("rcf.db"), "--lane", "zoo", "--run", "r1",
                                "--json", "--for", "4", "--fail-on", "limit_hit",
                                dir.file("logs")});
  std::thread writer = append_slowly(dir.file("logs/stderr.log"),
                                     fixture_text("real_runs/recompile_limit/run1/stderr.log"), 5,
                                     std::chrono::milliseconds(300));
  writer.join();
  rcf::testing::RcfRun run = watch.wait();
  EXPECT_EQ(run.rc, 1) << run.err;
  std::vector<std::string> kinds;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    auto doc = nlohmann::json::parse(line);
    for (const char* key :
         {"kind", "lane", "run", "step", "site", "cause", "detail", "source", "line"})
      EXPECT_TRUE(doc.contains(key)) << key << " in " << line;
    EXPECT_EQ(doc["lane"], "zoo");
    kinds.push_back(doc["kind"]);
  }
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "recompile"), 4) << run.out;
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "limit_hit"), 1) << run.out;
  EXPECT_NE(run.err.find("== lane zoo / run r1"), std::string::npos) << run.err;
}

// SIGTERM ends the watch like --for: the last round and the summary still run, exit 0 without
// --fail-on. So does the end of the process given with --pid.
TEST(WatchCli, EndsOnSigtermAndWhenThePidExits) {
  TempDir dir;
  rcf::testing::write_file(dir.file("train.log"),
                           fixture_text("real_runs/dtype_flip/run1/stderr.log"));
  rcf::testing::RcfChild by_signal({"watch", "--db", dir.file("a.db"), dir.file("train.log")});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  by_signal.kill(SIGTERM);
  rcf::testing::RcfRun ended = by_signal.wait();
  EXPECT_EQ(ended.rc, 0) << ended.err;
  EXPECT_NE(ended.out.find("[recompile] default/default"), std::string::npos) << ended.out;
  EXPECT_NE(ended.out.find("== lane default / run default"), std::string::npos) << ended.out;

  pid_t sleeper = fork();
  if (sleeper == 0) {
    usleep(800 * 1000);
    _exit(0);
  }
  rcf::testing::RcfRun by_pid = rcf::testing::run_rcf(
      {"watch", "--db", dir.file("b.db"), "--pid", std::to_string(sleeper), dir.file("train.log")});
  waitpid(sleeper, nullptr, 0);
  EXPECT_EQ(by_pid.rc, 0) << by_pid.err;
  EXPECT_NE(by_pid.out.find("dtype"), std::string::npos) << by_pid.out;
  EXPECT_LT(by_pid.wall_s, 60.0);  // it ended with the process, not never
}

TEST(WatchCli, AStoreThatIsNotOneIsAnInputErrorAtOnce) {
  TempDir dir;
  rcf::testing::write_file(dir.file("notes.db"), "not a database\n");
  auto run =
      rcf::testing::run_rcf({"watch", "--db", dir.file("notes.db"), "--for", "30", dir.path()});
  EXPECT_EQ(run.rc, 2) << run.err;
  EXPECT_LT(run.wall_s, 20.0);
  EXPECT_EQ(rcf::testing::read_file(dir.file("notes.db")), "not a database\n");
}

TEST(WatchCli, UnknownFailOnKindIsAUsageError) {
  TempDir dir;
  auto run = rcf::testing::run_rcf(
      {"watch", "--db", dir.file("rcf.db"), "--fail-on", "recompile,storms", dir.path()});
  EXPECT_EQ(run.rc, 2);
  EXPECT_NE(run.err.find("unknown alert kind 'storms'"), std::string::npos) << run.err;
}

}  // namespace watch_test
