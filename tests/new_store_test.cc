// A store that an ingest creates (store/new_store.h) is written under a temporary name
// and takes its final name only once complete and synced: whatever stops the ingest, the final
// path holds nothing or the complete store, and what a killed ingest leaves is never read as a
// store or as a log. Its pages reach the file once, without per-statement syncs, and it ends in
// WAL mode like any store.
#include "store/new_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "store/database.h"
#include "store/schema.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_in_temp_dir.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "tests/support/xla_log_generator.h"

namespace rcf {
namespace new_store_test {

namespace fs = std::filesystem;
using testing::RcfChild;
using testing::RcfOptions;
using testing::RcfRun;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
const std::string kRank1 =
    kFixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log";

class NewStore : public testing::RcfInTempDir {
 protected:
  // The names in the test's directory (and under `sub`), sorted.
  std::vector<std::string> names(const std::string& sub = "") const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(path(sub)))
      found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
  }
  std::string dump(const std::string& db) const {
    store::Database raw(path(db), store::Database::Mode::kReadOnly);
    return testing::dump_tables(raw);
  }
};

TEST_F(NewStore, AnIngestLeavesTheCompleteStoreInWalModeAndNothingElse) {
  fs::create_directories(path("out"));
  RcfRun r = rcf({"ingest", "--db", "out/rcf.db", kRank1});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(names("out"), std::vector<std::string>{"rcf.db"});
  auto db = store::open_store(path("out/rcf.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*db, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(scalar(*db, "PRAGMA page_size"), std::to_string(store::kPageSize));
  EXPECT_EQ(scalar(*db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "15");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles"), "14");
  // The same rows as a store created in place (an empty file there: opened, not replaced).
  db.reset();
  write_file(path("out/in_place.db"), "");
  ASSERT_EQ(rcf({"ingest", "--db", "out/in_place.db", kRank1}).rc, 0);
  EXPECT_EQ(dump("out/rcf.db"), dump("out/in_place.db"));
  // And it takes the next ingest like any store.
  r = rcf({"ingest", "--db", "out/rcf.db", "--lane", "again", kRank1});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("1 already ingested (unchanged)"), std::string::npos) << r.out;
}

TEST_F(NewStore, AFailedIngestLeavesNoFileAtAll) {
  // --strict with a rejected line: an error after the rows were written.
  write_file(path("bad.log"),
             "V0721 16:11:45.673000 98102 torch/_dynamo/convert_frame.py:1] {\"dynamo_start\": "
             "{\"stack\": []}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n"
             "V0721 16:11:45.673000 98102 torch/_dynamo/convert_frame.py:1] {\"broken\": \n");
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "--strict", "--format", "torch_trace", "bad.log"});
  ASSERT_NE(r.rc, 0) << r.out;
  EXPECT_EQ(names(), std::vector<std::string>{"bad.log"});
}

// Killed at points spread over the ingest (the first at once): the final path holds nothing or
// the complete store, never a part of it. The next ingest gives the complete store and removes
// the temporary file the killed one left.
TEST_F(NewStore, AKilledIngestLeavesNoStoreUnderTheFinalName) {
  fs::create_directories(path("bundle"));
  for (uint32_t seed = 1; seed <= 2; ++seed)
    write_file(path("bundle/pt_xla_debug_" + std::to_string(seed) + ".log"),
               testing::make_pt_xla_debug_log(size_t{30} << 20, seed));
  RcfRun full = rcf({"ingest", "--db", "complete.db", "bundle"});
  ASSERT_EQ(full.rc, 0) << full.err;
  const std::string complete = dump("complete.db");
  int absent = 0;
  for (double fraction : {0.0, 0.2, 0.4, 0.6, 0.8, 0.95, 1.2}) {
    const std::string db = "killed" + std::to_string(static_cast<int>(fraction * 100)) + ".db";
    {
      RcfChild child({"ingest", "--db", db, "bundle"}, in_tmp());
      std::this_thread::sleep_for(std::chrono::duration<double>(full.wall_s * fraction));
      child.kill(SIGKILL);
      child.wait();
    }
    SCOPED_TRACE(db);
    if (fs::exists(path(db))) {
      EXPECT_EQ(dump(db), complete) << "a killed ingest left a partial store";
    } else {
      ++absent;
      EXPECT_FALSE(fs::exists(path(db + "-journal")));
    }
    // The directory's inputs stay what they were: a temporary file is never read as a log.
    RcfRun again = rcf({"ingest", "--db", db, "bundle"});
    ASSERT_EQ(again.rc, 0) << again.err;
    EXPECT_EQ(again.out.find("SQLite"), std::string::npos) << again.out;
    EXPECT_EQ(dump(db), complete);
    for (const std::string& name : names())
      EXPECT_FALSE(store::is_new_store_temp_file(name)) << name << " was left behind";
  }
  EXPECT_GE(absent, 2) << "no kill came before the store was complete";
}

// A temporary file in a directory of logs (another ingest's, still being written or left by a
// kill) is left out of the inputs, as the store's own files are.
TEST_F(NewStore, ATemporaryStoreAmongTheInputsIsNotALog) {
  fs::create_directories(path("logs"));
  fs::copy_file(kRank1, path("logs/rank_1.log"));
  write_file(path("logs/rcf.db.rcf-new-otherhost-12345"), "");
  RcfRun r = rcf({"ingest", "--db", "rcf.db", "logs"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("ingested 1 file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left out 1 SQLite file"), std::string::npos) << r.out;
  EXPECT_TRUE(store::is_new_store_temp_file("dir/a.db.rcf-new-host-1"));
  EXPECT_FALSE(store::is_new_store_temp_file("dir/a.db"));
}

// What is there already is opened as before, never replaced: a dangling link, an empty file.
TEST_F(NewStore, OnlyAMissingPathIsCreated) {
  fs::create_symlink(path("elsewhere.db"), path("link.db"));
  EXPECT_EQ(store::NewStore::create(path("link.db")), nullptr);
  write_file(path("empty.db"), "");
  EXPECT_EQ(store::NewStore::create(path("empty.db")), nullptr);
  auto fresh = store::NewStore::create(path("fresh.db"));
  ASSERT_NE(fresh, nullptr);
  // Another process takes the name first: this one is dropped, the other kept as it was.
  write_file(path("fresh.db"), "the other one");
  fresh->db().exec("COMMIT");
  EXPECT_FALSE(fresh->publish());
  fresh.reset();
  EXPECT_EQ(testing::read_file(path("fresh.db")), "the other one");
  EXPECT_EQ(names(), (std::vector<std::string>{"empty.db", "fresh.db", "link.db"}));
}

}  // namespace new_store_test
}  // namespace rcf
