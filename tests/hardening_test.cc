// Issue 25, second round of hardening, through the real `rcf` binary (RCF_BINARY):
// - JSON nested tens of thousands deep (a --bundle file, a gate file, TORCH_TRACE envelopes and
//   payloads, step JSONL, a store's bundle column) is refused with its position or counted as a
//   rejected line, never a stack overflow (exit 139);
// - no output option writes over a store (report -o, gate --junit, GITHUB_STEP_SUMMARY, demo);
// - absurd budgets (1e30, 2^63, 10^20, nan) are refused, never wrapped or compared as nan;
// - an internal error has its own exit code (3), bad input keeps 2.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_process.h"
#include "tests/support/sanitizers.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace hardening_test {

namespace fs = std::filesystem;
using testing::query_csv;
using testing::RcfOptions;
using testing::RcfRun;
using testing::read_file;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
// 9257 lines, 7 compiles of `kernel` (0/0..0/6).
const std::string kRank3 =
    kFixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log";

std::string nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Sets an environment variable for the children started while it lives.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

class Hardening : public ::testing::Test {
 protected:
  RcfRun rcf(const std::vector<std::string>& args, RcfOptions options = {}) {
    if (options.cwd.empty()) options.cwd = tmp_.path();
    return testing::run_rcf(args, options);
  }
  std::string path(const std::string& name) const { return tmp_.file(name); }
  // A store with one run (lane l, run r) of the rank-3 trace: 7 compiles.
  std::string ingested_store(const std::string& name = "rcf.db") {
    RcfRun r = rcf({"ingest", "--db", name, "--lane", "l", "--run", "r", kRank3});
    EXPECT_EQ(r.rc, 0) << r.err;
    return path(name);
  }
  std::string notes(const std::string& db, const std::string& reason) {
    auto store = store::open_store(path(db), store::OpenMode::kRead);
    return query_csv(
        *store, "SELECT fate, reason, count, first_line FROM line_note WHERE reason = '" + reason +
                    "' ORDER BY 1");
  }
  std::string compiles(const std::string& db) {
    auto store = store::open_store(path(db), store::OpenMode::kRead);
    return scalar(*store, "SELECT count(*) FROM compiles");
  }

  TempDir tmp_;
};

// Exit 2 with a message, not a signal and not an internal error.
void expect_input_error(const RcfRun& r, const std::vector<std::string>& in_message) {
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.rc, 2) << r.out << r.err.substr(0, 2000);
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err.substr(0, 2000);
  for (const auto& part : in_message) EXPECT_TRUE(contains(r.err, part)) << part << "\n" << r.err;
}

// ---------------------------------------------------------------------------------------------
// Item 1: JSON nesting.

TEST_F(Hardening, DeepBundleFileIsAnInputErrorWithItsPosition) {
  std::string db = ingested_store();
  const std::string bundle_sql = "SELECT coalesce(bundle, 'none') FROM run_table";
  std::string before = scalar(*store::open_store(db, store::OpenMode::kRead), bundle_sql);
  write_file(path("deep.json"), "{\n  \"a\": " + nested(500000) + "\n}\n");
  RcfRun r = rcf({"ingest", "--db", db, "--lane", "l", "--run", "r", "--bundle", "deep.json"});
  // '[' of level 2 at column 8 of line 2; level 257 is the 256th.
  expect_input_error(r,
                     {"--bundle deep.json", "nested deeper than 256 levels", "line 2, column 263"});
  EXPECT_EQ(scalar(*store::open_store(db, store::OpenMode::kRead), bundle_sql), before);

  // At the limit it is read (and kept as given).
  write_file(path("ok.json"), "{\"a\": " + nested(255) + "}");
  r = rcf({"ingest", "--db", db, "--lane", "l", "--run", "r", "--bundle", "ok.json"});
  EXPECT_EQ(r.rc, 0) << r.err.substr(0, 2000);
}

TEST_F(Hardening, DeepGateFileIsAnInputErrorWithItsPosition) {
  std::string db = ingested_store();
  write_file(path("gate.json"),
             "{\"lanes\": [{\"lane\": \"l\", \"max_programs\": " + nested(500000) + "}]}");
  RcfRun r = rcf({"gate", "--db", db, "--gate-file", "gate.json"});
  expect_input_error(
      r, {"gate file gate.json", "nested deeper than 256 levels", "line 1, column 295"});
}

// A TORCH_TRACE envelope nested too deep is a rejected line under its own reason, a payload
// nested too deep a warning at its envelope; the rest of the file is read.
TEST_F(Hardening, DeepTorchTraceLinesAreCountedNotFatal) {
  std::string log = read_file(kRank3);
  const std::string prefix = "V0721 16:11:59.000000 98102 torch/_dynamo/guards.py:3564] ";
  log += prefix + "{\"dynamo_start\": {\"stack\": " + nested(50000) +
         "}, \"frame_id\": 7, \"frame_compile_id\": 0, \"attempt\": 0}\n";  // line 9258
  log += prefix +
         "{\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, \"frame_id\": "
         "0, \"frame_compile_id\": 6, \"attempt\": 0, \"has_payload\": "
         "\"00000000000000000000000000000000\"}\n";  // line 9259
  log += "\t" + nested(50000) + "\n";
  write_file(path("deep.log"), log);
  RcfRun r = rcf({"ingest", "--db", "t.db", "deep.log"});
  EXPECT_EQ(r.signal, 0);
  ASSERT_EQ(r.rc, 0) << r.err.substr(0, 2000);
  EXPECT_EQ(notes("t.db", "json_too_deep"),
            "fate,reason,count,first_line\nrejected,json_too_deep,1,9258\n"
            "warning,json_too_deep,1,9259\n");
  EXPECT_EQ(compiles("t.db"), "7");
  // --strict makes the rejected line an error, as for any rejected line.
  r = rcf({"ingest", "--strict", "--db", "s.db", "deep.log"});
  EXPECT_EQ(r.rc, 2);
}

TEST_F(Hardening, DeepStepJsonlLineIsRejected) {
  write_file(path("steps.jsonl"),
             "{\"step\": 1, \"step_time\": 1.5}\n"
             "{\"step\": 2, \"step_time\": 1.5, \"extra\": " +
                 nested(300) +
                 "}\n"
                 "{\"step\": 3, \"step_time\": 1.5}\n");
  RcfRun r = rcf({"ingest", "--db", "t.db", "--format", "step_timing", "steps.jsonl"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(notes("t.db", "json_too_deep"),
            "fate,reason,count,first_line\nrejected,json_too_deep,1,2\n");
  auto store = store::open_store(path("t.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*store,
                   "SELECT group_concat(step) FROM (SELECT step FROM step_timing "
                   "ORDER BY step)"),
            "1,3");
}

// JSON read back from a store is bounded too: a store from elsewhere (a baseline, a copied
// file) whose bundle column nests 500 000 deep crashed `rcf report` (exit 139).
TEST_F(Hardening, DeepJsonInAStoreIsIgnoredNotFatal) {
  std::string db = ingested_store();
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    std::string sql = "UPDATE run_table SET bundle = '{\"a\": " + nested(500000) + "}'";
    EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }
  for (const char* format : {"json", "md", "html"}) {
    RcfRun r = rcf({"report", "--db", db, "--format", format});
    EXPECT_EQ(r.signal, 0) << format;
    EXPECT_EQ(r.rc, 0) << format << r.err.substr(0, 2000);
  }
}

// ---------------------------------------------------------------------------------------------
// Item 5: no output over a store.

bool is_sqlite(const std::string& file) {
  return read_file(file).rfind(std::string("SQLite format 3\0", 16), 0) == 0;
}

TEST_F(Hardening, ReportRefusesToWriteOverTheDatabase) {
  std::string db = ingested_store();
  std::string before = read_file(db);
  for (const std::string& out : {std::string("rcf.db"), std::string("./rcf.db"), db}) {
    RcfRun r = rcf({"report", "--db", "rcf.db", "-o", out});
    expect_input_error(r, {"-o " + out, "refusing to write over the store"});
  }
  // Another name for the same file (a hard link) is the same file.
  ASSERT_EQ(::link(db.c_str(), path("alias.html").c_str()), 0);
  expect_input_error(rcf({"report", "--db", "rcf.db", "-o", "alias.html"}),
                     {"refusing to write over the store"});
  EXPECT_EQ(read_file(db), before);
  EXPECT_EQ(compiles("rcf.db"), "7");
}

TEST_F(Hardening, NoOutputGoesOverAnySqliteFile) {
  std::string db = ingested_store();
  std::string other = ingested_store("other.db");
  std::string before = read_file(other);
  expect_input_error(rcf({"report", "--db", "rcf.db", "-o", "other.db"}),
                     {"-o other.db", "refusing to write over a SQLite database"});
  expect_input_error(rcf({"gate", "--db", "rcf.db", "--junit", "other.db"}),
                     {"--junit other.db", "refusing to write over a SQLite database"});
  EXPECT_EQ(read_file(other), before);
  // An existing file that is not SQLite is replaced as before.
  write_file(path("old.html"), "<html>old</html>");
  RcfRun r = rcf({"report", "--db", "rcf.db", "-o", "old.html"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(contains(read_file(path("old.html")), "<!DOCTYPE html>"));
}

TEST_F(Hardening, GateOutputsRefuseTheDatabaseAndTheBaseline) {
  std::string db = ingested_store();
  std::string base = ingested_store("base.db");
  std::string before = read_file(db);
  expect_input_error(rcf({"gate", "--db", "rcf.db", "--junit", "rcf.db"}),
                     {"--junit rcf.db", "refusing to write over the store rcf.db"});
  expect_input_error(
      rcf({"gate", "--db", "rcf.db", "--baseline", "base.db", "--junit", "./base.db"}),
      {"--junit ./base.db", "refusing to write over the store base.db"});
  {
    ScopedEnv actions("GITHUB_ACTIONS", "true");
    ScopedEnv summary("GITHUB_STEP_SUMMARY", db);
    expect_input_error(rcf({"gate", "--db", "rcf.db"}),
                       {"GITHUB_STEP_SUMMARY", "refusing to write over the store"});
  }
  EXPECT_EQ(read_file(db), before);
  EXPECT_TRUE(is_sqlite(path("base.db")));
}

// `rcf demo --out DIR` deleted DIR/rcf.db: now it refuses, and replaces it only with --force
// (CliTest.DemoWritesReports runs the --force path).
TEST_F(Hardening, DemoNeverDeletesAnExistingDatabase) {
  std::string db = ingested_store();
  fs::create_directories(path("out"));
  fs::copy_file(db, path("out/rcf.db"));
  std::string before = read_file(path("out/rcf.db"));
  RcfRun r = rcf({"demo", "--out", "out"});
  expect_input_error(r, {"out/rcf.db already exists", "--force"});
  EXPECT_EQ(read_file(path("out/rcf.db")), before);
  EXPECT_FALSE(fs::exists(path("out/report.html")));
}

// ---------------------------------------------------------------------------------------------
// Item 6: absurd budgets.

TEST_F(Hardening, AbsurdGateFileBudgetsAreRefused) {
  std::string db = ingested_store();
  auto gate = [&](const std::string& budget) {
    write_file(path("gate.json"), "{\"lanes\": [{\"lane\": \"l\", " + budget + "}]}");
    return rcf({"gate", "--db", db, "--gate-file", "gate.json"});
  };
  expect_input_error(gate("\"max_programs\": 1e30"),
                     {"max_programs must be a whole number from 0 to 1000000000000", "1e+30"});
  expect_input_error(gate("\"max_programs\": 9223372036854775808"),
                     {"max_programs", "9223372036854775808"});
  expect_input_error(gate("\"max_recompiles_per_site\": 18446744073709551615"),
                     {"max_recompiles_per_site", "18446744073709551615"});
  expect_input_error(gate("\"settle_by\": 1e300"), {"settle_by", "1e+300"});
  expect_input_error(gate("\"max_growth\": 18446744073709551615"),
                     {"max_growth", "18446744073709551615"});
  expect_input_error(gate("\"max_growth\": \"1e30%\""), {"max_growth", "1e30%"});
  // The largest budget is still a budget: 7 programs are within it.
  EXPECT_EQ(gate("\"max_programs\": 1000000000000").rc, 0);
}

TEST_F(Hardening, AbsurdBudgetFlagsAreRefused) {
  std::string db = ingested_store();
  std::string base = ingested_store("base.db");
  auto gate = [&](std::vector<std::string> flags) {
    std::vector<std::string> args = {"gate", "--db", db};
    args.insert(args.end(), flags.begin(), flags.end());
    return rcf(args);
  };
  expect_input_error(gate({"--max-programs", "9223372036854775808"}),
                     {"--max-programs", "'9223372036854775808'", "from 0 to 1000000000000"});
  expect_input_error(gate({"--max-programs", "1e30"}), {"--max-programs", "'1e30'"});
  expect_input_error(gate({"--max-programs", "-5"}), {"--max-programs", "'-5'"});
  expect_input_error(gate({"--settle-by", "1000000000001"}), {"--settle-by", "'1000000000001'"});
  expect_input_error(gate({"--max-recompiles-per-site", "99999999999999999999"}),
                     {"--max-recompiles-per-site", "'99999999999999999999'"});
  expect_input_error(gate({"--max-compile-share", "nan"}), {"--max-compile-share", "'nan'"});
  expect_input_error(gate({"--max-compile-share", "inf"}), {"--max-compile-share", "'inf'"});
  expect_input_error(gate({"--max-compile-share", "1.5"}), {"--max-compile-share", "'1.5'"});
  expect_input_error(gate({"--baseline", base, "--max-growth", "99999999999999999999"}),
                     {"--max-growth", "'99999999999999999999'"});
  expect_input_error(gate({"--baseline", base, "--max-growth", "1e300%"}),
                     {"--max-growth", "'1e300%'"});
  // In range they are budgets as before.
  EXPECT_EQ(gate({"--max-programs", "7", "--max-compile-share", "0.5"}).rc, 0);
  EXPECT_EQ(gate({"--max-programs", "6"}).rc, 1);
  EXPECT_EQ(gate({"--baseline", base, "--max-growth", "1000000000000"}).rc, 0);
}

// ---------------------------------------------------------------------------------------------
// Item 7: exit codes.

// An exception other than rcf::Error is a bug (here: out of memory under a 64 MiB address-space
// limit while reading a 48 MB bundle): exit 3 and a request for a report, not 2.
TEST_F(Hardening, InternalErrorHasItsOwnExitCode) {
#if RCF_TEST_SANITIZED
  GTEST_SKIP() << "sanitizers reserve terabytes of address space: no RLIMIT_AS under them";
#endif
  write_file(path("big.json"), std::string(48 << 20, ' '));
  RcfOptions options;
  options.address_space_mb = 64;
  RcfRun r = rcf({"ingest", "--db", "t.db", "--bundle", "big.json"}, options);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.rc, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "rcf: internal error: out of memory")) << r.err;
  EXPECT_TRUE(contains(r.err, "please report it")) << r.err;
}

// A store from elsewhere with a schema version that is not a number is bad input (exit 2 naming
// it), not an internal error (std::stoi threw).
TEST_F(Hardening, MalformedStoreVersionIsBadInput) {
  std::string db = ingested_store();
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(raw, "UPDATE schema_info SET value = 'abc' WHERE key = 'schema_version'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  expect_input_error(rcf({"explain", "--db", db}), {"schema version 'abc'"});
}

}  // namespace hardening_test
}  // namespace rcf
