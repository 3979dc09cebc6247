// Issue 47, third round of hardening (docs/bad_input.md), through the real `rcf` binary
// (RCF_BINARY) and the store's own functions:
// - a store rcf did not write is compared with rcf's schema before any other query (a view in
//   place of a table, a trigger), and queries run under a time and memory budget;
// - every message that quotes a store, a log or the command line goes through the sanitiser;
// - the CSV export neutralises formulas and escapes control characters;
// - a long lane name is a shortened partition directory, recorded in schema.json;
// - the store and other SQLite files are never ingested as logs;
// - the duplicate-source lookup uses an index (ingest and merge stay linear in files).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "analysis/restart_proof.h"
#include "store/database.h"
#include "store/duplicate_source.h"
#include "store/export_format.h"
#include "store/schema_check.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "util/error.h"

namespace rcf {
namespace hardening3_test {

namespace fs = std::filesystem;
using testing::RcfOptions;
using testing::RcfRun;
using testing::read_file;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
// A short real Dynamo log (one recompile).
const std::string kDynamo = kFixtures + "/dynamo/cache_size_limit_pytorch_issue128090_other.txt";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Runs SQL on a store as a hostile tool would: no rcf in between.
void raw_exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
  std::string message = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(h);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

// No line of `text` is a GitHub Actions workflow command.
void expect_no_workflow_command(const std::string& text) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    size_t first = line.find_first_not_of(" \t\r");
    EXPECT_FALSE(first != std::string::npos && line.compare(first, 2, "::") == 0)
        << "forged line: " << line;
    at = end + 1;
  }
}

std::string gunzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return "";
  std::string out;
  std::array<char, 65536> buffer;
  int n = 0;
  while ((n = gzread(file, buffer.data(), buffer.size())) > 0) out.append(buffer.data(), n);
  gzclose(file);
  return out;
}

void expect_no_control_bytes(const std::string& text) {
  for (unsigned char c : text)
    EXPECT_TRUE(c >= 0x20 || c == '\n' || c == '\t') << "control byte " << int(c) << " in " << text;
}

class Hardening3 : public ::testing::Test {
 protected:
  RcfRun rcf(const std::vector<std::string>& args, RcfOptions options = {}) {
    if (options.cwd.empty()) options.cwd = tmp_.path();
    return testing::run_rcf(args, options);
  }
  std::string path(const std::string& name) const { return tmp_.file(name); }
  RcfOptions in_tmp() const {
    RcfOptions options;
    options.cwd = tmp_.path();
    return options;
  }
  // A store with one run of the Dynamo log, lane `lane`, run r.
  std::string ingested_store(const std::string& name, const std::string& lane = "l") {
    RcfRun r = rcf({"ingest", "--db", name, "--lane", lane, "--run", "r", kDynamo});
    EXPECT_EQ(r.rc, 0) << r.err;
    return path(name);
  }

  TempDir tmp_;
};

// Exit 2 with a message, quickly, not a signal and not an internal error.
void expect_refused(const RcfRun& r, const std::vector<std::string>& in_message) {
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.rc, 2) << r.out << r.err.substr(0, 2000);
  EXPECT_LT(r.wall_s, 20.0);
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err.substr(0, 2000);
  for (const auto& part : in_message) EXPECT_TRUE(contains(r.err, part)) << part << "\n" << r.err;
}

// ---------------------------------------------------------------------------------------------
// Class 1: a store rcf did not write.

// run_table replaced by a view over an endless recursive query: every reader of the store (merge
// shard, gate baseline, explain) refuses it at once, naming what differs; merge leaves no OUT.
TEST_F(Hardening3, AViewInPlaceOfATableIsRefusedBeforeItRuns) {
  std::string good = ingested_store("good.db");
  std::string rigged = ingested_store("rigged.db");
  raw_exec(rigged,
           "DROP TABLE run_table; CREATE VIEW run_table AS WITH RECURSIVE r(i) AS (SELECT 1 UNION "
           "ALL SELECT i + 1 FROM r) SELECT i AS run_id, 'l' AS lane, 'r' AS run, '' AS "
           "created_at, NULL AS bundle FROM r;");
  const std::vector<std::string> why = {"rigged.db was not written by this rcf",
                                        "run_table is a view, rcf's is a table"};
  expect_refused(rcf({"merge", "out.db", "rigged.db"}), why);
  EXPECT_FALSE(fs::exists(path("out.db")));
  expect_refused(rcf({"gate", "--db", "good.db", "--baseline", "rigged.db"}), why);
  expect_refused(rcf({"explain", "--db", "rigged.db"}), why);
  expect_refused(rcf({"export", "--db", "rigged.db", "--out", "x"}), why);
  expect_refused(rcf({"ingest", "--db", "rigged.db", kDynamo}), why);
  (void)good;
}

// A trigger would run on rcf's own writes: an ingest into that store is refused, nothing written.
TEST_F(Hardening3, ATriggerInAStoreIsRefusedAndNothingRuns) {
  std::string db = ingested_store("t.db");
  raw_exec(db,
           "CREATE TABLE pwned(x); CREATE TRIGGER grab AFTER INSERT ON source BEGIN INSERT INTO "
           "pwned VALUES (1); END;");
  write_file(path("more.txt"), read_file(kDynamo) + "\n");
  expect_refused(rcf({"ingest", "--db", "t.db", "--run", "r2", "more.txt"}),
                 {"trigger grab is not rcf's", "table pwned is not rcf's"});
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h,
                               "SELECT (SELECT count(*) FROM pwned), (SELECT count(*) FROM "
                               "source)",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 0);
  EXPECT_EQ(sqlite3_column_int(st, 1), 1);
  sqlite3_finalize(st);
  sqlite3_close(h);
}

// A store of an older rcf (indexes it lacks, indexes rcf has dropped since) is still read and
// written; create_indexes() brings it up to date.
TEST_F(Hardening3, AnOlderStoresIndexesAreAccepted) {
  std::string db = ingested_store("old.db");
  raw_exec(db,
           "DROP INDEX source_content; DROP INDEX step_timing_run; CREATE INDEX guard_ref ON "
           "guard(run_id, rank, epoch, frame_id, frame_compile_id);");
  RcfRun r = rcf({"explain", "--db", "old.db"});
  EXPECT_EQ(r.rc, 0) << r.err;
  write_file(path("more.txt"), read_file(kDynamo) + "\n");
  r = rcf({"ingest", "--db", "old.db", "--run", "r2", "more.txt"});
  EXPECT_EQ(r.rc, 0) << r.err;
  auto store = store::open_store(db, store::OpenMode::kRead);
  EXPECT_EQ(scalar(*store,
                   "SELECT count(*) FROM sqlite_master WHERE name IN ('source_content', "
                   "'step_timing_run')"),
            "2");
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM sqlite_master WHERE name = 'guard_ref'"), "0");
}

// Changed SQL of a table (an extra column) and an index rcf never made are differences.
TEST_F(Hardening3, AnAlteredTableAndAForeignIndexAreDifferences) {
  std::string db = ingested_store("a.db");
  raw_exec(db, "ALTER TABLE source ADD COLUMN extra TEXT; CREATE INDEX mine ON line_note(reason);");
  expect_refused(rcf({"report", "--db", "a.db", "-o", "r.html"}),
                 {"table source has other SQL than rcf's", "index mine is not rcf's"});
}

TEST(SchemaCheck, SqlIsComparedWithoutCommentsAndWhitespace) {
  EXPECT_EQ(store::normalized_sql("CREATE TABLE t (\n  a INTEGER,  -- the a\n  b TEXT /* b */\n)"),
            "CREATE TABLE t ( a INTEGER, b TEXT )");
  // Inside a literal nothing is a comment and spaces count.
  EXPECT_EQ(store::normalized_sql("SELECT '--  x'   AS \"a  b\""), "SELECT '--  x' AS \"a  b\"");
  EXPECT_NE(store::normalized_sql("SELECT 1"), store::normalized_sql("SELECT 2"));
}

// The budgets themselves: an endless query ends with an error that says what ran out.
TEST(QueryBudget, AnEndlessQueryRunsOutOfTime) {
  TempDir dir;
  store::Database db(dir.file("x.db"), store::Database::Mode::kReadWrite);
  db.set_query_time_limit(std::chrono::milliseconds(300));
  auto started = std::chrono::steady_clock::now();
  const char* endless =
      "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r";
  try {
    auto st = db.prepare(endless);
    st.step();
    FAIL() << "the endless query returned";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "ran past its time budget of 0.3 s")) << e.what();
  }
  try {
    db.exec(endless);
    FAIL() << "the endless query returned";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "time budget")) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10);
}

// Rows streamed one by one count too: the budget is the statement's, not one step's.
TEST(QueryBudget, AnEndlessStreamOfRowsRunsOutOfTime) {
  TempDir dir;
  store::Database db(dir.file("x.db"), store::Database::Mode::kReadWrite);
  db.set_query_time_limit(std::chrono::milliseconds(300));
  auto st = db.prepare(
      "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i "
      "FROM r");
  int64_t rows = 0;
  try {
    while (st.step()) ++rows;
    FAIL() << "the endless query ended";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "time budget")) << e.what();
  }
  EXPECT_GT(rows, 0);
}

TEST(QueryBudget, AQueryPastTheHeapLimitFailsWithAClearError) {
  TempDir dir;
  store::Database db(dir.file("x.db"), store::Database::Mode::kReadWrite);
  const int64_t old = store::Database::set_heap_limit(int64_t{16} << 20);
  std::string what;
  try {
    auto st = db.prepare(
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 5000000) "
        "SELECT length(group_concat(printf('%030d', i))) FROM r");
    st.step();
  } catch (const Error& e) {
    what = e.what();
  }
  store::Database::set_heap_limit(old);
  EXPECT_TRUE(contains(what, "memory budget of 16 MiB")) << what;
}

// ---------------------------------------------------------------------------------------------
// Class 3: messages quote store, log and command-line text through the sanitiser.

TEST_F(Hardening3, StoreTextInAnErrorCannotForgeALine) {
  ingested_store("cur.db");
  std::string base = ingested_store("base.db", "ok");
  raw_exec(base,
           "UPDATE run_table SET lane = 'x' || char(10) || '::error::forged' || char(27) || "
           "'[2J';");
  RcfRun r = rcf({"gate", "--db", "cur.db", "--baseline", "base.db:nolane"});
  expect_refused(r, {"x\\n::error::forged\\x1b[2J"});
  expect_no_workflow_command(r.err);
  expect_no_control_bytes(r.err);

  raw_exec(base,
           "UPDATE schema_info SET value = '1' || char(10) || '::stop-commands::t' WHERE "
           "key = 'schema_version';");
  r = rcf({"explain", "--db", "base.db"});
  expect_refused(r, {"'1\\n::stop-commands::t'"});
  expect_no_workflow_command(r.err);
}

TEST_F(Hardening3, CommandLineTextInParserErrorsIsEscaped) {
  RcfRun r = rcf({"\x1b]0;title\x07x\n::error::a"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "unknown command")) << r.err;
  expect_no_control_bytes(r.err);
  expect_no_workflow_command(r.err);

  r = rcf({"explain", "--db", "x.db", "--no-such\x1b[2J\n::add-mask::x"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "rcf: error:")) << r.err;
  expect_no_control_bytes(r.err);
  expect_no_workflow_command(r.err);

  r = rcf({"explain", "--db", "no\n::error::such.db"});
  expect_refused(r, {"no\\n::error::such.db"});
  expect_no_workflow_command(r.err);
}

TEST_F(Hardening3, CaptureStatusLinesEscapeTheCommandName) {
  RcfRun r = rcf({"capture", "--out", "cap", "--", "/no/such\n::error::forged\x1b[2J"});
  EXPECT_NE(r.rc, 0);
  EXPECT_TRUE(contains(r.err + r.out, "no such executable")) << r.err;
  expect_no_workflow_command(r.err + r.out);
  expect_no_control_bytes(r.err + r.out);
}

// ---------------------------------------------------------------------------------------------
// Class 9: the CSV export is inert in a spreadsheet.

TEST(CsvExport, FormulasAreNeutralisedAndControlsEscaped) {
  EXPECT_EQ(store::csv_text("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
  EXPECT_EQ(store::csv_text("+1"), "'+1");
  EXPECT_EQ(store::csv_text("-2+3"), "'-2+3");
  EXPECT_EQ(store::csv_text("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(store::csv_text("a=b"), "a=b");
  EXPECT_EQ(store::csv_text("a\x1b[2Jb\x07"), "a\\u001b[2Jb\\u0007");
  EXPECT_EQ(store::csv_text("two\nlines\r\tx\x7f"), "two\\nlines\\r\\tx\\u007f");
  EXPECT_EQ(store::csv_text("a,b"), "\"a,b\"");
}

TEST_F(Hardening3, CsvExportOfAHostileLaneIsInert) {
  // ingest_stats (not partitioned) starts each record with the source's path.
  std::string db = ingested_store("c.db", "=cmd|' /C calc'!A0");
  raw_exec(db, "UPDATE source SET path = '@evil' || char(27) || '[31m' || char(10) || 'x';");
  RcfRun r = rcf({"export", "--db", "c.db", "--out", "ds", "--format", "csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string all;
  for (const auto& entry : fs::recursive_directory_iterator(path("ds")))
    if (entry.path().extension() == ".gz") all += gunzip(entry.path().string());
  EXPECT_FALSE(contains(all, "\x1b")) << "raw escape in the CSV";
  EXPECT_FALSE(contains(all, "\n@evil")) << "formula cell in the CSV";
  EXPECT_TRUE(contains(all, "'@evil\\u001b[31m\\nx")) << all.substr(0, 3000);
}

// ---------------------------------------------------------------------------------------------
// Class 6: a long lane name.

TEST(PartitionName, ALongValueIsShortenedDeterministically) {
  const std::string long_value(400, 'a');
  const std::string name = store::partition_dir_name("lane", long_value);
  EXPECT_LE(name.size(), store::kMaxFileNameBytes);
  EXPECT_EQ(name, store::partition_dir_name("lane", long_value));
  EXPECT_TRUE(name.starts_with("lane=aaaa")) << name;
  EXPECT_NE(name, store::partition_dir_name("lane", long_value + "b"));
  EXPECT_EQ(store::partition_dir_name("lane", "short"), "lane=short");
  // Never cut inside a %XX escape or a UTF-8 sequence.
  for (size_t pad = 0; pad < 4; ++pad) {
    const std::string escaped = std::string(pad, 'a') + [] {
      std::string s;
      for (int i = 0; i < 100; ++i) s += "%2F\xc3\xa9";
      return s;
    }();
    const std::string cut = store::partition_dir_name("run", escaped);
    ASSERT_LE(cut.size(), store::kMaxFileNameBytes);
    const std::string prefix = cut.substr(4, cut.rfind('~') - 4);
    EXPECT_TRUE(escaped.starts_with(prefix));
    const std::string rest = escaped.substr(prefix.size());
    EXPECT_TRUE(rest.starts_with("%") || rest.starts_with("\xc3")) << rest.substr(0, 4);
  }
}

TEST_F(Hardening3, ALongLaneNameIsExportedUnderAShortenedDirectory) {
  const std::string lane(300, 'L');
  ingested_store("long.db", lane);
  RcfRun r = rcf({"export", "--db", "long.db", "--out", "ds"});
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json schema = nlohmann::json::parse(read_file(path("ds/schema.json")));
  bool recorded = false;
  for (const auto& view : schema["views"]) {
    if (!view.contains("shortened_partition_names")) continue;
    for (const auto& s : view["shortened_partition_names"]) {
      EXPECT_EQ(s["key"], "lane");
      EXPECT_EQ(s["value"], lane);
      const std::string dir = s["directory"];
      EXPECT_LE(dir.size(), store::kMaxFileNameBytes);
      EXPECT_TRUE(fs::is_directory(path("ds") + "/" + view["path"].get<std::string>() + "/" + dir))
          << dir;
      recorded = true;
    }
  }
  EXPECT_TRUE(recorded);
}

// ---------------------------------------------------------------------------------------------
// Class 8: the store is not a log.

TEST_F(Hardening3, TheStoreInsideTheLogDirectoryIsNotIngested) {
  fs::create_directories(path("logs"));
  fs::copy_file(kDynamo, path("logs/run.txt"));
  RcfRun r = rcf({"ingest", "--db", "logs/rcf.db", "logs"});
  ASSERT_EQ(r.rc, 0) << r.err;
  // Again, with the store (and, while a reader holds it, its side files) in the directory.
  write_file(path("logs/second.txt"), read_file(kDynamo) + "\n");
  r = rcf({"ingest", "--db", "logs/rcf.db", "--run", "again", "logs"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "left out 1 SQLite file")) << r.out;
  EXPECT_TRUE(contains(r.out, "logs/rcf.db")) << r.out;
  auto store = store::open_store(path("logs/rcf.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM source WHERE path LIKE '%rcf.db%'"), "0");
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM source"), "2");
  // Named alone, it is not read either.
  r = rcf({"ingest", "--db", "other.db", "logs/rcf.db"});
  expect_refused(r, {"only SQLite files"});
}

// ---------------------------------------------------------------------------------------------
// Class 4: the duplicate-source lookup is an index lookup, not a scan of every source.

TEST_F(Hardening3, TheDuplicateSourceLookupUsesAnIndex) {
  auto db = store::open_store(path("p.db"), store::OpenMode::kCreateOrWrite);
  auto plan = db->prepare(std::string("EXPLAIN QUERY PLAN ") + store::kDuplicateSourceSql);
  std::string text;
  while (plan.step()) text += plan.str(3) + "\n";
  EXPECT_TRUE(contains(text, "SEARCH s USING INDEX source_content")) << text;
  EXPECT_FALSE(contains(text, "SCAN s")) << text;
}

// ---------------------------------------------------------------------------------------------
// Class 2: numbers out of range are rejected where they are read.

// 27 % compile share over steps 1-2; step 3's negative compile time once made it -2.7 % (a pass).
const char* kStepsWithBadRows =
    "step,wall_ms,compile_ms,timestamp\n"
    "1,10000,2700,2025-03-04T09:15:41Z\n"
    "2,10000,2700,2025-03-04T09:15:51Z\n"
    "3,10000,-5940,2025-03-04T09:16:01Z\n"
    "4,1e300,1,2025-03-04T09:16:11Z\n"
    "5,10,1,1970-01-01T00:00:00Z\n"
    "1152921504606846976,10,1,2025-03-04T09:16:21Z\n";

TEST_F(Hardening3, StepRowsOutOfRangeAreRejectedAndTheGateSaysSo) {
  write_file(path("steps.csv"), kStepsWithBadRows);
  RcfRun r = rcf({"ingest", "--db", "s.db", "--lane", "l", "--run", "r", "steps.csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  {
    auto db = store::open_store(path("s.db"), store::OpenMode::kRead);
    EXPECT_EQ(testing::query_csv(*db,
                                 "SELECT reason, count, first_line FROM line_note WHERE "
                                 "reason LIKE 'implausible%' ORDER BY reason"),
              "reason,count,first_line\nimplausible_duration,2,4\nimplausible_step,1,7\n"
              "implausible_timestamp,1,6\n");
  }
  r = rcf({"gate", "--db", "s.db", "--max-compile-share", "0.1"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "27")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 lines with out-of-range numbers rejected at ingest")) << r.out;
  EXPECT_FALSE(contains(r.out, "-30m")) << r.out;
}

// A store from elsewhere whose compile share is negative: the check fails and says what it
// dropped, never passes.
TEST_F(Hardening3, AStoresOutOfRangeCompileShareFailsTheGate) {
  write_file(path("steps.csv"), "step,wall_ms,compile_ms\n1,10000,2700\n2,10000,2700\n");
  RcfRun r = rcf({"ingest", "--db", "s.db", "--lane", "l", "--run", "r", "steps.csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  raw_exec(path("s.db"), "UPDATE run_convergence SET compile_ms = -540, compile_share = -0.027;");
  r = rcf({"gate", "--db", "s.db", "--max-compile-share", "0.1"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "out of range")) << r.out;
  raw_exec(path("s.db"), "UPDATE run_convergence SET compile_ms = 1e300, wall_ms = 1e300;");
  r = rcf({"gate", "--db", "s.db", "--max-compile-share", "0.1"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
}

TEST(Durations, AreFormattedWithoutOverflow) {
  EXPECT_EQ(analysis::duration_text(1e300), "more than a year");
  EXPECT_EQ(analysis::duration_text(1e300 / 1e3), "more than a year");
  EXPECT_EQ(analysis::duration_text(std::nan("")), "unknown");
  EXPECT_EQ(analysis::duration_text(-1e300), "0s");
  EXPECT_EQ(analysis::duration_text(3 * 3600e3 + 62e3), "3h01m02s");
}

// ---------------------------------------------------------------------------------------------
// Class 7: a store whose write was stopped, a merge stopped by a signal.

// A writer in rollback-journal mode dies mid-transaction, after its changes reached the file: a
// read-only reader would fail with "attempt to write a readonly database".
TEST_F(Hardening3, AHotJournalIsRolledBackByAReader) {
  std::string db = ingested_store("hot.db");
  raw_exec(db, "PRAGMA journal_mode=DELETE;");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h,
                 "PRAGMA cache_size=1; BEGIN; UPDATE run_table SET lane = 'half-written'; "
                 "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) "
                 "INSERT INTO strings(text) SELECT printf('%0400d', i) FROM r;",
                 nullptr, nullptr, nullptr);
    _exit(0);  // no COMMIT, no close: as if killed
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(fs::exists(db + "-journal"));
  RcfRun r = rcf({"explain", "--db", "hot.db"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "readonly")) << r.err;
  EXPECT_FALSE(contains(r.out, "half-written")) << r.out;
  r = rcf({"export", "--db", "hot.db", "--out", "ds"});
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST_F(Hardening3, AMergeStoppedBySigtermLeavesNoOut) {
  const std::string trace =
      kFixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log";
  ASSERT_EQ(rcf({"ingest", "--db", "shard.db", "--lane", "l", "--run", "r", trace}).rc, 0);
  for (int attempt = 0; attempt < 5; ++attempt) {
    fs::remove(path("out.db"));
    testing::RcfChild child({"merge", "out.db", "shard.db"}, in_tmp());
    while (!fs::exists(path("out.db"))) std::this_thread::sleep_for(std::chrono::microseconds(200));
    child.kill(SIGTERM);
    RcfRun r = child.wait();
    if (r.rc == 0) continue;  // it finished first: try again
    EXPECT_EQ(r.signal, SIGTERM);
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      EXPECT_FALSE(fs::exists(path("out.db") + suffix)) << suffix;
    return;
  }
  ADD_FAILURE() << "the merge always finished before SIGTERM reached it";
}

// ---------------------------------------------------------------------------------------------
// Class 5: a stopped command under capture.

TEST_F(Hardening3, CaptureEndsAStoppedCommandOnSigterm) {
  write_file(path("stop.sh"),
             "#!/bin/sh\ntouch started\nkill -STOP $$\necho continued\nsleep 60\n");
  fs::permissions(path("stop.sh"), fs::perms::owner_all);
  testing::RcfChild child({"capture", "--out", "cap", "--", "./stop.sh"}, in_tmp());
  // rcf forwards signals once the command runs: wait for it to have stopped itself.
  for (int i = 0; i < 600 && !fs::exists(path("started")); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  child.kill(SIGTERM);
  RcfRun r = child.wait();
  EXPECT_LT(r.wall_s, 30.0);
  EXPECT_EQ(r.rc, 128 + SIGTERM) << r.err;
  EXPECT_TRUE(contains(r.err, "was stopped by signal " + std::to_string(SIGSTOP))) << r.err;
}

// ---------------------------------------------------------------------------------------------
// Endless devices: a non-regular input stops after the sniffing window when no format matched.

TEST_F(Hardening3, AnEndlessDeviceStopsAfterTheSniffingWindow) {
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    RcfRun r = rcf({"ingest", "--db", "z.db", device});
    expect_refused(r, {device, "not a recognised log format"});
  }
}

}  // namespace hardening3_test
}  // namespace rcf
