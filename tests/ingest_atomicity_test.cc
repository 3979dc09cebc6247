// Atomic and idempotent ingest (issue 7), through the real binary: an `rcf ingest` killed with
// SIGKILL at any moment leaves the database exactly as it was before (or, killed after its
// commit, exactly as the completed ingest leaves it), never corrupt; running the ingest again
// then gives the completed result, and once more changes nothing. A log that grew since it was
// ingested (a run still writing) is read again whole and replaces its earlier version.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "store/database.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_in_temp_dir.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "tests/support/xla_log_generator.h"

namespace rcf {
namespace ingest_atomicity_test {

namespace fs = std::filesystem;
using testing::query_csv;
using testing::RcfChild;
using testing::RcfOptions;
using testing::RcfRun;
using testing::read_file;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
const std::string kRank1Name = "dedicated_log_torch_trace_rank_1.log";
const std::string kRank1 = kFixtures + "/torch_trace/multi_rank_logs/" + kRank1Name;
const std::string kRank3 =
    kFixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log";

class IngestAtomicity : public testing::RcfInTempDir {
 protected:
  // Every table, every column but the timestamps, read without any rcf checks.
  std::string dump(const std::string& db) const {
    store::Database raw(path(db), store::Database::Mode::kReadOnly);
    return testing::dump_tables(raw);
  }
  std::string integrity(const std::string& db) const {
    store::Database raw(path(db), store::Database::Mode::kReadOnly);
    return scalar(raw, "PRAGMA integrity_check");
  }
};

// The public views a user sees, for comparing two databases built differently.
std::string views(store::Database& db) {
  return query_csv(db, "SELECT * FROM compiles ORDER BY run_id, ordinal") +
         query_csv(db, "SELECT * FROM recompiles ORDER BY run_id, ordinal") +
         query_csv(db,
                   "SELECT source, format, lines, bytes, events, rejected, first_error FROM "
                   "ingest_stats ORDER BY source") +
         query_csv(db,
                   "SELECT fate, reason, count, first_line, first_excerpt FROM line_note "
                   "ORDER BY 1, 2") +
         query_csv(db, "SELECT run_id, lane, run, source_count FROM runs ORDER BY run_id");
}

TEST_F(IngestAtomicity, SigkillAtAnyPointLeavesTheDatabaseAsBeforeOrComplete) {
  // Input: a torch_xla bundle of generated level-2 debug logs (30 MB, about 22k events, each),
  // enough of them that an ingest takes at least half a second on this machine, so that kills
  // land while reading, writing, analysing and committing (the count adapts to the machine).
  fs::create_directories(path("bundle"));
  uint32_t files = 0;
  auto add_file = [&]() {
    ++files;
    write_file(path("bundle/pt_xla_debug_" + std::to_string(files) + ".log"),
               testing::make_pt_xla_debug_log(size_t{30} << 20, files));
  };
  add_file();
  add_file();
  // The database before: an earlier ingest of another lane.
  ASSERT_EQ(rcf({"ingest", "--db", "before.db", "--lane", "earlier", kRank3}).rc, 0);
  ASSERT_FALSE(fs::exists(path("before.db-wal")));  // checkpointed at close: one file
  const std::string before = dump("before.db");
  const std::vector<std::string> ingest = {"ingest", "--lane", "big", "--run", "r1", "bundle"};
  auto with_db = [&](const std::string& db) {
    std::vector<std::string> args = ingest;
    args.insert(args.begin() + 1, {"--db", db});
    return args;
  };

  // The completed ingest, timed; more input while it is too quick to be killed in the middle.
  RcfRun full;
  for (;;) {
    fs::remove(path("complete.db"));
    fs::copy_file(path("before.db"), path("complete.db"));
    full = rcf(with_db("complete.db"));
    ASSERT_EQ(full.rc, 0) << full.err;
    if (full.wall_s >= 0.5 || files >= 12) break;
    add_file();
  }
  const std::string complete = dump("complete.db");
  ASSERT_NE(complete, before);
  ASSERT_GT(full.wall_s, 0.3) << "the input is too small to kill an ingest in the middle (" << files
                              << " files)";

  // Killed at points spread over the run (the first at once), each into a fresh copy. The time
  // of one ingest varies with the load of the machine: a kill that came after the commit makes
  // the next ones earlier, so that at least two land in the middle, within 12 kills.
  int unchanged = 0;
  double fraction = 0;
  for (int k = 0; k < 12 && (k < 5 || unchanged < 2); ++k) {
    const std::string db = "killed" + std::to_string(k) + ".db";
    fs::copy_file(path("before.db"), path(db));
    const auto delay = std::chrono::duration<double>(full.wall_s * fraction);
    RcfChild child(with_db(db), in_tmp());
    std::this_thread::sleep_for(delay);
    child.kill(SIGKILL);
    RcfRun killed = child.wait();
    SCOPED_TRACE("killed after " + std::to_string(delay.count()) + " s");
    EXPECT_TRUE(killed.signal == SIGKILL || killed.rc == 0) << killed.err;
    EXPECT_EQ(integrity(db), "ok");
    const std::string after = dump(db);
    if (after == before) {
      unchanged += k > 0;  // the kill at once may come before the database is even opened
      fraction = std::min(0.9, fraction + 0.2);
    } else {
      EXPECT_EQ(after, complete) << "a killed ingest left a partial database";
      fraction /= 2;
    }
    // Running the ingest again completes it.
    RcfRun again = rcf(with_db(db));
    ASSERT_EQ(again.rc, 0) << again.err;
    EXPECT_EQ(dump(db), complete);
  }
  // Kills in the middle came before the commit (else the test proved nothing about rollback).
  EXPECT_GE(unchanged, 2) << "the ingest took " << full.wall_s << " s";
  // Once more changes nothing.
  RcfRun twice = rcf(with_db("killed2.db"));
  ASSERT_EQ(twice.rc, 0) << twice.err;
  EXPECT_NE(twice.out.find(std::to_string(files) + " already ingested (unchanged)"),
            std::string::npos)
      << twice.out;
  EXPECT_EQ(dump("killed2.db"), complete);
}

TEST_F(IngestAtomicity, KilledFirstIngestLeavesAUsableDatabase) {
  // Killed while creating the database: what is left (nothing, an empty schema, or the whole
  // ingest) takes the next ingest, which gives the same as an uninterrupted one.
  ASSERT_EQ(rcf({"ingest", "--db", "clean.db", kRank1}).rc, 0);
  auto clean = store::open_store(path("clean.db"), store::OpenMode::kRead);
  for (int delay_ms : {0, 5, 20, 60}) {
    const std::string db = "fresh" + std::to_string(delay_ms) + ".db";
    {
      RcfChild child({"ingest", "--db", db, kRank1}, in_tmp());
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      child.kill(SIGKILL);
      child.wait();
    }
    RcfRun again = rcf({"ingest", "--db", db, kRank1});
    ASSERT_EQ(again.rc, 0) << delay_ms << " ms: " << again.err;
    auto db_again = store::open_store(path(db), store::OpenMode::kRead);
    EXPECT_EQ(views(*db_again), views(*clean)) << delay_ms << " ms";
  }
}

// A log that grew since it was ingested (the run was still writing) is recognised by path within
// the run and by its old content being a prefix of the new: it is read again whole and replaces
// the earlier version, so the run ends exactly as if only the grown file had been ingested.
TEST_F(IngestAtomicity, AGrownLogIsReadAgainWholeAndReplacesItsEarlierVersion) {
  const std::string full = read_file(kRank1);
  fs::create_directories(path("logs"));
  const std::string log = "logs/" + kRank1Name;
  // Cut in the middle of a line, as a writer mid-flush leaves it.
  const size_t cut = full.size() * 2 / 5 + 17;
  write_file(path(log), full.substr(0, cut));
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "--lane", "l", "--run", "r", log});
  ASSERT_EQ(r.rc, 0) << r.err;
  {
    auto db = store::open_store(path("rcf.db"), store::OpenMode::kRead);
    const int64_t partial = std::stoll(scalar(*db, "SELECT count(*) FROM compiles"));
    EXPECT_GT(partial, 2);
    EXPECT_LT(partial, 15);
  }
  // The run goes on writing; the same ingest again.
  write_file(path(log), full);
  r = rcf({"ingest", "--db", "rcf.db", "--lane", "l", "--run", "r", log});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(
      r.out.find(log + ": grew from " + std::to_string(cut) + " to " + std::to_string(full.size()) +
                 " bytes since it was ingested; read again whole, replacing the earlier "
                 "version"),
      std::string::npos)
      << r.out;
  ASSERT_EQ(rcf({"ingest", "--db", "once.db", "--lane", "l", "--run", "r", log}).rc, 0);
  auto db = store::open_store(path("rcf.db"), store::OpenMode::kRead);
  auto once = store::open_store(path("once.db"), store::OpenMode::kRead);
  EXPECT_EQ(views(*db), views(*once));
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "15");
  // No row of the earlier version is left in any table that names its source.
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM source"), "1");
  for (const auto& table :
       testing::column(*db,
                       "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p "
                       "WHERE m.type='table' AND p.name='source_id'")) {
    EXPECT_EQ(scalar(*db, "SELECT count(*) FROM " + table +
                              " WHERE source_id NOT IN (SELECT "
                              "source_id FROM source)"),
              "0")
        << table;
  }
  db.reset();

  // Ingesting the grown file once more changes nothing.
  const std::string settled = dump("rcf.db");
  r = rcf({"ingest", "--db", "rcf.db", "--lane", "l", "--run", "r", log});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("1 already ingested (unchanged)"), std::string::npos) << r.out;
  EXPECT_EQ(dump("rcf.db"), settled);

  // Growth is only recognised within the same run: into another run it is a log of its own.
  r = rcf({"ingest", "--db", "other.db", "--lane", "l", "--run", "a", log});
  ASSERT_EQ(r.rc, 0);
  write_file(path(log), full +
                            "V0721 16:12:00.000000 98102 torch/_dynamo/x.py:1] {\"str\": "
                            "[\"/extra.py\", 99]}\n");
  r = rcf({"ingest", "--db", "other.db", "--lane", "l", "--run", "b", log});
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.find("grew from"), std::string::npos) << r.out;
  auto other = store::open_store(path("other.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*other, "SELECT count(*) FROM source"), "2");

  // A file rewritten with other content (not grown) under the same path is a new source too.
  write_file(path(log), read_file(kRank3));
  r = rcf({"ingest", "--db", "rcf.db", "--lane", "l", "--run", "r", log});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find("grew from"), std::string::npos) << r.out;
  db = store::open_store(path("rcf.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM source"), "2");
}

}  // namespace ingest_atomicity_test
}  // namespace rcf
