// The Dynamo records a watch keeps between batches (analysis/dynamo_record_cache.h): after every
// batch, the analysis made through the kept records (reading only the rows written since the last
// batch) must leave the store a fresh analysis of it leaves, which reads every row again. Real
// logs appended in pieces that cut lines; short logs read again whole at each batch, whose new
// rows may take the rowids of the rows they replace; a text log read as the same process as a
// TORCH_TRACE log (its run is not kept, and read whole each time); a compile whose own record
// comes after a reference to it was taken; another connection deleting rows between batches.
#include "analysis/dynamo_record_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/run_analysis.h"
#include "pipeline/watch_session.h"
#include "store/raw_row_deletions.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/fixture_text.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/training_console.h"

namespace dynamo_record_cache_test {

namespace fs = std::filesystem;
using rcf::pipeline::WatchRequest;
using rcf::pipeline::WatchSession;
using rcf::testing::fixture_text;
using rcf::testing::recompile_block;
using rcf::testing::TempDir;

struct Log {
  std::string name;  // in the watched directory
  std::string text;
  // Shorter than the sniffing window (64 KiB): read again whole at every batch, its earlier rows
  // deleted (docs/watch.md), and written in pieces from its start.
  bool short_log = false;
  int first_piece = 0;  // the piece at which the log appears
};

// The store at `path` analysed afresh (every raw row read again, nothing kept), in a copy at
// `copy`, dumped by text.
std::string freshly_analysed(const std::string& path, const std::string& copy) {
  fs::remove(copy);
  {
    auto db = rcf::testing::read_store(path);
    db->exec("VACUUM INTO '" + copy + "'");
  }
  auto db = rcf::store::open_store(copy, rcf::store::OpenMode::kIngest);
  std::vector<int64_t> runs;
  for (const std::string& run : rcf::testing::column(*db, "SELECT run_id FROM run_table"))
    runs.push_back(std::stoll(run));
  db->exec("BEGIN IMMEDIATE");
  rcf::analysis::analyze_runs(*db, runs);
  db->exec("COMMIT");
  return rcf::testing::dump_tables_by_text(*db);
}

std::string dump_of(const std::string& path) {
  return rcf::testing::dump_tables_by_text(*rcf::testing::read_store(path));
}

WatchRequest watch_of(TempDir& dir) {
  fs::create_directories(dir.file("logs"));
  WatchRequest request;
  request.db_path = dir.file("watch.db");
  request.paths = {dir.file("logs")};
  return request;
}

// The first piece of a log holds its sniffing window (64 KiB) and ends inside a line: a log is
// read on from then on (docs/watch.md), and its rows only added to.
constexpr size_t kFirstPiece = (size_t{66} << 10) + 123;

// Where piece `i` of `pieces` of a log of `size` bytes ends.
size_t piece_end(size_t size, int i, int pieces) {
  if (i + 1 >= pieces) return size;
  return std::min(size, kFirstPiece + (size - std::min(size, kFirstPiece)) * i / (pieces - 1));
}

// Appends `logs` in `pieces`, a watch batch after each, and checks after each that the store
// equals its fresh analysis, and that every plain log was read on (it keeps its source).
// `between(i)` runs before the batch of piece i.
// Returns what the batches' analyses did (how many compiles they attributed and kept).
rcf::analysis::AnalysisTimings expect_every_batch_as_a_fresh_analysis(
    const std::vector<Log>& logs, int pieces,
    const std::function<void(TempDir&, int)>& between = nullptr) {
  TempDir dir;
  WatchSession session(watch_of(dir));
  std::vector<size_t> written(logs.size(), 0);
  std::map<std::string, std::string> first_source;  // a plain log's path -> its first source id
  for (int i = 0; i < pieces; ++i) {
    for (size_t f = 0; f < logs.size(); ++f) {
      const Log& log = logs[f];
      if (i < log.first_piece) continue;
      const int k = i - log.first_piece, of = pieces - log.first_piece;
      const size_t to = log.short_log ? log.text.size() * (k + 1) / of + (k + 1 < of ? 61 : 0)
                                      : piece_end(log.text.size(), k, of);
      std::ofstream(dir.file("logs/" + log.name), std::ios::binary | std::ios::app)
          .write(log.text.data() + written[f], static_cast<std::streamsize>(to - written[f]));
      written[f] = to;
    }
    if (between) between(dir, i);
    session.poll(false, true);
    EXPECT_EQ(dump_of(dir.file("watch.db")),
              freshly_analysed(dir.file("watch.db"), dir.file("fresh.db")))
        << "after piece " << i;
    if (::testing::Test::HasFailure()) return session.analysis_totals();
    auto db = rcf::testing::read_store(dir.file("watch.db"));
    for (const Log& log : logs) {
      if (log.short_log || i < log.first_piece) continue;
      const std::string source = rcf::testing::scalar(
          *db, "SELECT source_id FROM source WHERE path LIKE '%/" + log.name + "'");
      EXPECT_EQ(first_source.emplace(log.name, source).first->second, source)
          << log.name << " was read again from its start at piece " << i;
    }
  }
  session.poll(true, true);
  EXPECT_EQ(dump_of(dir.file("watch.db")),
            freshly_analysed(dir.file("watch.db"), dir.file("fresh.db")));
  EXPECT_GT(std::stoll(rcf::testing::scalar(*rcf::testing::read_store(dir.file("watch.db")),
                                            "SELECT count(*) FROM compile_event")),
            0);
  return session.analysis_totals();
}

std::string trace_of(const std::string& run) {
  for (const auto& entry : fs::directory_iterator(
           rcf::testing::fixture_path("real_runs/" + run + "/run1/logs/torch_trace")))
    return fixture_text("real_runs/" + run + "/run1/logs/torch_trace/" +
                        entry.path().filename().string());
  return "";
}

TEST(DynamoRecordCache, ConsolesWithBreaksFragmentsAndConstantsReadOn) {
  expect_every_batch_as_a_fresh_analysis(
      {{"consoles.log", rcf::testing::real_consoles_one_after_the_other()}}, 6);
}

// Two processes' TORCH_TRACE logs, the second appearing later: program keys then take a rank
// prefix, and every compile of the first log is written again.
TEST(DynamoRecordCache, TorchTraceLogsWithBreaksAndCacheOutcomesReadOn) {
  expect_every_batch_as_a_fresh_analysis(
      {{"trace_breaks.log", trace_of("item_sync_list_append")},
       {"trace_shapes.log", trace_of("growing_seq_len"), false, 2}},
      6);
}

// Logs shorter than the sniffing window are read again whole at every batch: their earlier rows
// are deleted, and their new rows may take those rows' rowids, so the records kept are read anew.
TEST(DynamoRecordCache, LogsReadAgainWholeDeleteTheRowsTheyReplace) {
  expect_every_batch_as_a_fresh_analysis(
      {{"breaks.log", fixture_text("real_runs/item_sync_list_append/run1/stderr.log"), true},
       {"consoles.log", rcf::testing::real_consoles_one_after_the_other()},
       {"constants.log", fixture_text("real_runs/constant_counter/run1/stderr.log"), true}},
      4);
}

// A console read as the same process as a TORCH_TRACE log: its reasons are thinned against the
// whole run's, so the run is read whole at every batch.
TEST(DynamoRecordCache, AConsoleOfTheProcessOfATraceIsReadWhole) {
  expect_every_batch_as_a_fresh_analysis(
      {{"dedicated_log_torch_trace_u3ed5hot.log", trace_of("recompile_limit")},
       {"stderr.log", fixture_text("real_runs/recompile_limit/run1/stderr.log"), false, 1}},
      4);
}

// `rcf ingest` into the watched run from another connection between batches: the first ingest
// of a log adds rows (read on), the second, of a grown version of it, deletes them (on that
// connection, which moves the store's data version): the batch after it reads the run anew.
TEST(DynamoRecordCache, AnotherWriterDeletingRowsOfTheRunBetweenBatches) {
  TempDir other;
  const std::string other_log = other.file("other.log");
  const std::string text = fixture_text("real_runs/item_sync_list_append/run1/stderr.log");
  expect_every_batch_as_a_fresh_analysis(
      {{"consoles.log", rcf::testing::real_consoles_one_after_the_other()}}, 4,
      [&](TempDir& dir, int piece) {
        if (piece != 1 && piece != 2) return;
        std::ofstream(other_log, std::ios::binary | std::ios::trunc)
            << (piece == 1 ? text.substr(0, text.size() / 2) : text);
        rcf::testing::ingest_logs(dir.file("watch.db"), {other_log}, "default", "default");
      });
}

// A compile known first only from a reference (a guard failure naming it), whose own record
// comes in a later batch: a whole read takes own records first and never that reference (the
// kept records are then read anew; the merge of the two records happens to be the same).
TEST(DynamoRecordCache, AnOwnRecordAfterATakenReference) {
  std::string text;
  for (int frame = 1; frame <= 300; ++frame) text += recompile_block(frame, 2);  // names x/1
  ASSERT_GT(text.size(), kFirstPiece);
  for (int frame = 1; frame <= 300; ++frame) text += recompile_block(frame, 1);  // x/1's own
  for (int frame = 301; frame <= 400; ++frame) text += recompile_block(frame, 1);
  expect_every_batch_as_a_fresh_analysis({{"train.log", text}}, 3);
}

// A long training console: progress lines decide the steps, and seven frames recompile in turn
// between them, in twelve pieces that cut blocks and lines. Each batch goes on from the compiles
// the last one kept (analysis/attribution_checkpoint.h), asking each kept compile's step again,
// and leaves the store a fresh analysis leaves.
TEST(DynamoRecordCache, ALongConsoleGoesOnFromTheCompilesTheLastBatchKept) {
  const std::string text = rcf::testing::training_console(900, 7);
  ASSERT_GT(text.size(), 2 * kFirstPiece);
  const rcf::analysis::AnalysisTimings totals =
      expect_every_batch_as_a_fresh_analysis({{"train.log", text}}, 12);
  // Most batches went on from kept compiles: far fewer attributed than batches times compiles.
  EXPECT_GT(totals.compiles_kept, 1000);
  EXPECT_LT(totals.compiles_attributed, totals.compiles_kept);
}

// The progress lines change shape halfway (`epoch 0 step N/300` lines, then more `iter N` lines
// that number otherwise): once the second shape has more lines it decides the steps, the steps of
// the compiles kept before change, and the batch attributes the run whole again.
TEST(DynamoRecordCache, ProgressLinesThatDecideOtherwiseLaterPlaceTheKeptCompilesAgain) {
  std::string text;
  int compiles[5] = {};
  auto block = [&](int n) {
    if (n % 3 != 0) return;
    const int frame = (n / 3) % 5;
    text += recompile_block(frame, ++compiles[frame]);
  };
  for (int step = 1; step <= 300; ++step) {
    text += "epoch 0 step " + std::to_string(step) + "/300 loss 0.0218\n";
    block(step);
  }
  for (int iter = 1; iter <= 700; ++iter) {
    text += "iter " + std::to_string(5000 + 7 * iter) + ": loss 0.0218\n";
    block(iter);
  }
  expect_every_batch_as_a_fresh_analysis({{"train.log", text}}, 12);
}

// The counter the kept records check: deletions on the connection, undone with a rollback.
TEST(RawRowDeletions, CountsDeletionsOnTheConnectionAndRollsBackWithThem) {
  TempDir dir;
  rcf::testing::ingest_logs(
      dir.file("a.db"), {rcf::testing::fixture_path("real_runs/constant_counter/run1/stderr.log")});
  auto db = rcf::store::open_store(dir.file("a.db"), rcf::store::OpenMode::kIngest);
  EXPECT_FALSE(rcf::store::raw_row_deletions(*db).has_value());
  rcf::store::count_raw_row_deletions(*db);
  rcf::store::count_raw_row_deletions(*db);  // idempotent
  EXPECT_EQ(rcf::store::raw_row_deletions(*db), 0);
  auto rows = [&db](const char* table) {
    return std::stoll(rcf::testing::scalar(*db, std::string("SELECT count(*) FROM ") + table));
  };
  const int64_t reasons = rows("guard_failure"), breaks = rows("graph_break");
  ASSERT_GT(reasons, 1);
  db->exec("BEGIN");
  db->exec("DELETE FROM guard_failure WHERE rowid = (SELECT max(rowid) FROM guard_failure)");
  EXPECT_EQ(rcf::store::raw_row_deletions(*db), 1);
  db->exec("ROLLBACK");
  EXPECT_EQ(rcf::store::raw_row_deletions(*db), 0);
  db->exec("DELETE FROM guard_failure");
  db->exec("DELETE FROM graph_break");
  EXPECT_EQ(rcf::store::raw_row_deletions(*db), reasons + breaks);
  db->exec("DELETE FROM run_convergence");  // not a raw table
  EXPECT_EQ(rcf::store::raw_row_deletions(*db), reasons + breaks);
}

}  // namespace dynamo_record_cache_test
