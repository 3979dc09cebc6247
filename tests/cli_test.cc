// End-to-end tests of the `rcf` binary (RCF_BINARY): exit codes, messages, `ingest` from files,
// stdin and gzip, `explain --json`, and `demo`, run in the build tree and from an installed copy.
// Each test runs in its own temporary directory.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace cli_test {

using nlohmann::json;
using rcf::testing::query_csv;
using rcf::testing::read_file;
using rcf::testing::replace_all;
using rcf::testing::scalar;
using rcf::testing::TempDir;
using rcf::testing::write_file;

const std::string kFixtures = RCF_FIXTURES_DIR;
const std::string kRank1 =
    kFixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_1.log";
const std::string kRank3 =
    kFixtures + "/torch_trace/multi_rank_logs/dedicated_log_torch_trace_rank_3.log";
const std::string kKernelSite =
    "/Users/skarjala/Desktop/tlparse/tests/gen_many_frames.py:6 (kernel)";

std::string shell_quote(const std::string& s) {
  return "'" + replace_all(s, "'", "'\\''") + "'";
}

struct Result {
  int rc = -1;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  // Runs `rcf ARGS...` in the temp directory; stdin is `stdin_file` or /dev/null.
  Result rcf(const std::vector<std::string>& args, const std::string& stdin_file = "") {
    std::string cmd = "cd " + shell_quote(tmp_.path()) + " && ";
    if (!stdin_file.empty()) cmd += "cat " + shell_quote(stdin_file) + " | ";
    cmd += shell_quote(RCF_BINARY);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    cmd += " >" + shell_quote(tmp_.file(".stdout")) + " 2>" + shell_quote(tmp_.file(".stderr"));
    if (stdin_file.empty()) cmd += " </dev/null";
    int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(tmp_.file(".stdout"));
    r.err = read_file(tmp_.file(".stderr"));
    return r;
  }
  std::string path(const std::string& name) const { return tmp_.file(name); }
  bool exists(const std::string& name) const { return std::filesystem::exists(path(name)); }

  TempDir tmp_;
};

// Bad input must be reported, never crash.
void expect_clean_error(const Result& r) {
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST_F(CliTest, IngestPrintsSummary) {
  Result r = rcf({"ingest", "--db", "t.db", kRank1});
  ASSERT_EQ(r.rc, 0) << r.err;
  // 25720 lines, 3563492 bytes in the file.
  EXPECT_EQ(r.out.rfind("ingested 1 file (torch_trace 1), 25720 lines, 3.6 MB, ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" events, 0 rejected lines\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");  // not a terminal: no progress output
  EXPECT_TRUE(exists("t.db"));

  // Again: nothing added, and it says so.
  r = rcf({"ingest", "--db", "t.db", kRank1});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("1 already ingested (unchanged)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kRank1 + ": same content as " + kRank1 + ", nothing added"),
            std::string::npos)
      << r.out;
}

TEST_F(CliTest, IngestDefaultDatabaseIsRcfDbInTheCurrentDirectory) {
  Result r = rcf({"ingest", kRank3});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(exists("rcf.db"));
  r = rcf({"explain", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["runs"][0]["compiles"], 7);
}

TEST_F(CliTest, IngestMissingFileIsAnInputError) {
  const std::string missing = path("nowhere/missing.log");
  Result r = rcf({"ingest", "--db", "t.db", kRank3, missing});
  expect_clean_error(r);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(exists("t.db"));  // nothing written, not even an empty database
}

TEST_F(CliTest, UsageErrors) {
  expect_clean_error(rcf({"nosuch"}));
  expect_clean_error(rcf({}));
  expect_clean_error(rcf({"ingest", "--db", "t.db"}));  // no paths
  expect_clean_error(rcf({"explain", "--bogus-flag"}));

  Result r = rcf({"ingest", "--db", "t.db", "--format", "nosuch", kRank3});
  expect_clean_error(r);
  EXPECT_NE(r.err.find("unknown --format 'nosuch'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("torch_trace"), std::string::npos) << r.err;  // lists the known ones
  EXPECT_FALSE(exists("t.db"));
}

TEST_F(CliTest, ExplainMissingDatabase) {
  Result r = rcf({"explain", "--db", "absent.db"});
  expect_clean_error(r);
  EXPECT_NE(r.err.find("no database at absent.db"), std::string::npos) << r.err;
  EXPECT_FALSE(exists("absent.db"));  // explain never creates one
  r = rcf({"explain", "--db", "absent.db", "--json"});
  expect_clean_error(r);
  EXPECT_EQ(r.out, "");
}

TEST_F(CliTest, ExplainJsonForRank1) {
  ASSERT_EQ(rcf({"ingest", "--db", "t.db", "--lane", "shapes", "--run", "cold", kRank1}).rc, 0);
  Result r = rcf({"explain", "--db", "t.db", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);  // throws (fails the test) if not JSON
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["runs"].size(), 1u);
  const json& run = j["runs"][0];
  EXPECT_EQ(run["lane"], "shapes");
  EXPECT_EQ(run["run"], "cold");
  EXPECT_EQ(run["sources"], 1);
  EXPECT_EQ(run["compiles"], 15);
  EXPECT_EQ(run["recompiles"], 14);
  EXPECT_EQ(run["failed"], 0);
  EXPECT_EQ(run["causes"], json({{"shape", 14}}));
  // Sum of entire_frame_compile_time_s of 0/1..0/14, in ms.
  EXPECT_NEAR(run["recompile_ms"].get<double>(), 3239.36, 1e-6);
  ASSERT_EQ(run["sites"].size(), 1u);
  const json& site = run["sites"][0];
  EXPECT_EQ(site["site"], kKernelSite);
  EXPECT_NEAR(site["compile_ms"].get<double>(), 4573.422, 1e-6);  // all 15
  ASSERT_EQ(site["reasons"].size(), 1u);
  const json& reason = site["reasons"][0];
  EXPECT_EQ(reason["cause"], "shape");
  EXPECT_EQ(reason["subject"], "x");
  EXPECT_EQ(reason["count"], 14);
  EXPECT_EQ(reason["program_key"], "0/14");  // the most recent one
  EXPECT_EQ(reason["prev_program_key"], "0/13");
  EXPECT_EQ(reason["detail"].get<std::string>().rfind("tensor 'x' dim 0: 15 -> 16", 0), 0u);

  // The text form says the same.
  r = rcf({"explain", "--db", "t.db"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("15 compiles, 14 recompiles"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("causes: shape 14"), std::string::npos) << r.out;

  // Deterministic: the same database explains to the same bytes.
  EXPECT_EQ(rcf({"explain", "--db", "t.db", "--json"}).out,
            rcf({"explain", "--db", "t.db", "--json"}).out);
  // A run this small is listed whole: --all prints the same, nothing is counted as left out.
  EXPECT_EQ(rcf({"explain", "--db", "t.db", "--all"}).out, r.out);
  EXPECT_EQ(r.out.find(" more "), std::string::npos) << r.out;
}

TEST_F(CliTest, ExplainLaneFilter) {
  ASSERT_EQ(rcf({"ingest", "--db", "t.db", "--lane", "a", kRank1}).rc, 0);
  ASSERT_EQ(rcf({"ingest", "--db", "t.db", "--lane", "b", kRank3}).rc, 0);
  Result r = rcf({"explain", "--db", "t.db", "--json", "--lane", "b"});
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["lane"], "b");
  EXPECT_EQ(j["runs"][0]["compiles"], 7);
  EXPECT_EQ(j["runs"][0]["recompiles"], 6);
  EXPECT_EQ(json::parse(rcf({"explain", "--db", "t.db", "--json"}).out)["runs"].size(), 2u);

  r = rcf({"explain", "--db", "t.db", "--lane", "nosuch"});
  expect_clean_error(r);
  EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
}

// A database of another schema version: BadInputCatalogue.DatabaseOfANewerSchemaVersion.

// Two processes writing one database wait for each other (busy timeout) instead of failing,
// also when both find the database missing and create it.
TEST_F(CliTest, TwoConcurrentIngestsIntoOneDatabase) {
  const std::string bin = shell_quote(RCF_BINARY);
  const std::string cmd =
      "cd " + shell_quote(tmp_.path()) + " && (" + bin + " ingest --db c.db --lane a " +
      shell_quote(kRank1) + " >o1 2>e1; echo $? >rc1) & (cd " + shell_quote(tmp_.path()) + " && " +
      bin + " ingest --db c.db --lane b " + shell_quote(kRank3) + " >o2 2>e2; echo $? >rc2) & wait";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(read_file(path("rc1")), "0\n") << read_file(path("e1"));
  EXPECT_EQ(read_file(path("rc2")), "0\n") << read_file(path("e2"));
  auto db = store::open_store(path("c.db"), store::OpenMode::kRead);
  EXPECT_EQ(query_csv(*db, "SELECT lane, count(*) AS n FROM compiles GROUP BY lane ORDER BY lane"),
            "lane,n\na,15\nb,7\n");
}

TEST_F(CliTest, StdinIngestEqualsFileIngest) {
  Result r = rcf({"ingest", "--db", "stdin.db", "-"}, kRank3);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("ingested 1 file (torch_trace 1), 9257 lines, ", 0), 0u) << r.out;
  ASSERT_EQ(rcf({"ingest", "--db", "file.db", kRank3}).rc, 0);

  auto from_stdin = store::open_store(path("stdin.db"), store::OpenMode::kRead);
  auto from_file = store::open_store(path("file.db"), store::OpenMode::kRead);
  EXPECT_EQ(scalar(*from_stdin, "SELECT count(*) FROM compiles"), "7");
  EXPECT_EQ(scalar(*from_stdin, "SELECT count(*) FROM recompiles"), "6");
  const std::string compiles = "SELECT * FROM compiles ORDER BY ordinal";
  EXPECT_EQ(query_csv(*from_stdin, compiles), query_csv(*from_file, compiles));
  const std::string causes =
      "SELECT ordinal, program_key, prev_program_key, cause, detail FROM recompiles "
      "ORDER BY ordinal";
  EXPECT_EQ(query_csv(*from_stdin, causes), query_csv(*from_file, causes));
  EXPECT_EQ(scalar(*from_stdin, "SELECT source || ' ' || lines || ' ' || bytes FROM ingest_stats"),
            "- 9257 1434274");
  EXPECT_EQ(scalar(*from_stdin, "SELECT content_hash FROM source"),
            scalar(*from_file, "SELECT content_hash FROM source"));

  // Piping the same content again into the file's database adds nothing.
  r = rcf({"ingest", "--db", "file.db", "-"}, kRank3);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("1 already ingested"), std::string::npos) << r.out;

  // Gzip through stdin is sniffed too.
  write_file(path("rank3.gz"), rcf::testing::gzip_compress(read_file(kRank3)));
  r = rcf({"ingest", "--db", "stdin_gz.db", "-"}, path("rank3.gz"));
  ASSERT_EQ(r.rc, 0) << r.err;
  auto from_gz = store::open_store(path("stdin_gz.db"), store::OpenMode::kRead);
  EXPECT_EQ(query_csv(*from_gz, compiles), query_csv(*from_stdin, compiles));
}

TEST_F(CliTest, GzipInputEqualsPlainInput) {
  const std::string text = read_file(kRank1);
  std::filesystem::create_directories(path("gz"));
  // Same base name (the evidence names the file), gzip content.
  write_file(path("gz/dedicated_log_torch_trace_rank_1.log"), rcf::testing::gzip_compress(text));
  write_file(path("gz/dedicated_log_torch_trace_rank_1.log.gz"),
             rcf::testing::gzip_compress(text, 9));
  ASSERT_EQ(rcf({"ingest", "--db", "plain.db", "--lane", "l", "--run", "r", kRank1}).rc, 0);
  ASSERT_EQ(rcf({"ingest", "--db", "gz.db", "--lane", "l", "--run", "r",
                 path("gz/dedicated_log_torch_trace_rank_1.log")})
                .rc,
            0);
  ASSERT_EQ(rcf({"ingest", "--db", "gz2.db", "--lane", "l", "--run", "r",
                 path("gz/dedicated_log_torch_trace_rank_1.log.gz")})
                .rc,
            0);
  Result plain = rcf({"explain", "--db", "plain.db", "--json"});
  Result gz = rcf({"explain", "--db", "gz.db", "--json"});
  Result gz2 = rcf({"explain", "--db", "gz2.db", "--json"});
  ASSERT_EQ(plain.rc, 0);
  ASSERT_EQ(gz.rc, 0);
  ASSERT_EQ(gz2.rc, 0);
  EXPECT_EQ(gz.out, plain.out);
  // Under the .gz name the evidence points at the .gz file; nothing else differs.
  EXPECT_NE(gz2.out.find("dedicated_log_torch_trace_rank_1.log.gz:23246"), std::string::npos);
  EXPECT_EQ(replace_all(gz2.out, ".log.gz:", ".log:"), plain.out);
  EXPECT_EQ(json::parse(gz2.out)["runs"][0]["recompiles"], 14);
}

TEST_F(CliTest, DemoWritesReports) {
  Result r = rcf({"demo", "--out", path("demo")});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  ASSERT_TRUE(exists("demo/explain.txt"));
  ASSERT_TRUE(exists("demo/explain.json"));
  ASSERT_TRUE(exists("demo/rcf.db"));
  const std::string text = read_file(path("demo/explain.txt"));
  EXPECT_NE(text.find("lane shape-storm"), std::string::npos) << text.substr(0, 500);
  json j = json::parse(read_file(path("demo/explain.json")));
  EXPECT_EQ(j["schema_version"], 1);
  std::map<std::string, json> lanes;
  for (const json& run : j["runs"]) lanes[run["lane"]] = run;
  // 4 Dynamo lanes, 5 torch_xla lanes (report_test checks those), 4 lanes of real zoo runs.
  ASSERT_EQ(lanes.size(), 13u);
  // The real runs (fixtures/real_runs): each compile once, with the truth's causes.
  EXPECT_EQ(lanes["zoo-item-list-append"]["compiles"], 9);
  EXPECT_EQ(lanes["zoo-item-list-append"]["causes"],
            json({{"key_subset", 3}, {"object_identity", 3}, {"sync_fragment", 2}}));
  EXPECT_EQ(lanes["zoo-jax-static-arg"]["causes"], json({{"constant", 2}}));
  EXPECT_EQ(lanes["zoo-recompile-limit"]["causes"], json({{"shape", 4}}));
  // multi_rank_logs: rank_0 (one failed compile) + rank_1 (15) + rank_3 (7).
  EXPECT_EQ(lanes["shape-storm"]["compiles"], 23);
  EXPECT_EQ(lanes["shape-storm"]["recompiles"], 20);
  EXPECT_EQ(lanes["shape-storm"]["failed"], 1);
  EXPECT_EQ(lanes["shape-storm"]["causes"], json({{"shape", 20}}));
  EXPECT_EQ(lanes["object-identity"]["compiles"], 6);
  EXPECT_EQ(lanes["object-identity"]["causes"], json({{"object_identity", 4}}));
  EXPECT_EQ(lanes["graph-break-restarts"]["causes"], json({{"sync_fragment", 2}}));
  EXPECT_TRUE(lanes.count("dynamo-text-corpus"));
  // The printed summary ends by naming what it wrote.
  EXPECT_NE(r.out.find("explain.json"), std::string::npos);

  // A second run refuses to delete the first one's database; with --force it starts from a
  // fresh database (same numbers, not doubled).
  r = rcf({"demo", "--out", path("demo")});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  r = rcf({"demo", "--out", path("demo"), "--force"});
  ASSERT_EQ(r.rc, 0) << r.err;
  json again = json::parse(read_file(path("demo/explain.json")));
  EXPECT_EQ(again, j);
}

// Runs a shell command, stdout and stderr together, with no RCF_FIXTURES in its environment.
Result run_shell(const std::string& cmd, const std::string& out_file) {
  int status = std::system(
      ("env -u RCF_FIXTURES " + cmd + " >" + shell_quote(out_file) + " 2>&1 </dev/null").c_str());
  Result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_file);
  return r;
}

// `cmake --install BUILD --prefix P` puts rcf in P/bin and the demo's fixtures in
// P/share/rcf/fixtures; P/bin/rcf finds them relative to itself, since the binary holds no path of
// the build tree. Without them it names where it looked (docs/usage.md, "rcf demo").
TEST_F(CliTest, InstalledDemoReadsTheFixturesBesideItsPrefix) {
  const std::string prefix = path("prefix");
  Result install =
      run_shell(shell_quote(rcf::testing::kCmakeCommand) + " --install " +
                    shell_quote(rcf::testing::kBuildDir) + " --prefix " + shell_quote(prefix),
                path("install.log"));
  ASSERT_EQ(install.rc, 0) << install.out;
  ASSERT_TRUE(exists("prefix/share/rcf/fixtures/dynamo"));
  const std::string rcf_bin = shell_quote(prefix + "/bin/rcf");
  Result demo = run_shell(rcf_bin + " demo --out " + shell_quote(path("out")), path("demo.log"));
  ASSERT_EQ(demo.rc, 0) << demo.out;
  // Every scenario's fixtures were installed: nothing skipped, all 13 lanes.
  EXPECT_EQ(demo.out.find("skipped: fixtures not found"), std::string::npos) << demo.out;
  ASSERT_TRUE(exists("out/report.html"));
  const json explain = json::parse(read_file(path("out/explain.json")));
  std::set<std::string> lanes;
  for (const json& run : explain["runs"]) lanes.insert(run["lane"].get<std::string>());
  EXPECT_EQ(lanes.size(), 13u);

  const std::string real = std::filesystem::canonical(prefix).string();
  std::filesystem::rename(path("prefix/share"), path("prefix/moved"));
  Result missing =
      run_shell(rcf_bin + " demo --out " + shell_quote(path("out2")), path("missing.log"));
  EXPECT_EQ(missing.rc, 2) << missing.out;
  EXPECT_NE(missing.out.find(real + "/bin/share/rcf/fixtures"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find(real + "/share/rcf/fixtures"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("--fixtures DIR"), std::string::npos) << missing.out;
}

// --fixtures names a directory; a missing one is an input error, not an empty demo.
TEST_F(CliTest, DemoRefusesAMissingFixturesDirectory) {
  Result r = rcf({"demo", "--fixtures", path("nowhere"), "--out", path("out")});
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--fixtures " + path("nowhere") + ": not a directory"), std::string::npos)
      << r.err;
  EXPECT_FALSE(exists("out/rcf.db"));
}

}  // namespace cli_test
}  // namespace rcf
