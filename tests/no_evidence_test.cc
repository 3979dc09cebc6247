// Issue 25 item 2, through the real binary: a run with no evidence. Ingesting files that are
// already in the store under another lane used to create an empty run (0 sources) that
// `rcf gate` passed ("no recompiles in the checked path") and `rcf diff` reported as programs
// N -> 0. Now ingest does not create such a run and says where the content already is, and a run
// that holds no log in a known format (here: only an empty file) is called "no evidence" by the
// gate (exit 2), diff, explain and the reports, never a pass.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace no_evidence_test {

using nlohmann::json;
using testing::RcfRun;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

const std::string kLog =
    std::string(RCF_FIXTURES_DIR) + "/dynamo/recompiles_pytorch_issue128134_dtype.txt";

class NoEvidence : public ::testing::Test {
 protected:
  RcfRun rcf(const std::vector<std::string>& args) {
    testing::RcfOptions options;
    options.cwd = tmp_.path();
    return testing::run_rcf(args, options);
  }
  // Lane `main` with the real log; lane `pr` with one run that holds only an empty file.
  void ingest_main_and_empty_pr() {
    ASSERT_EQ(rcf({"ingest", "--lane", "main", "--run", "r1", kLog}).rc, 0);
    write_file(tmp_.file("empty.log"), "");
    RcfRun r = rcf({"ingest", "--lane", "pr", "--run", "r1", "empty.log"});
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  TempDir tmp_;
};

TEST_F(NoEvidence, IngestOfContentAlreadyInTheStoreCreatesNoRun) {
  ASSERT_EQ(rcf({"ingest", "--lane", "main", "--run", "r1", kLog}).rc, 0);
  RcfRun again = rcf({"ingest", "--lane", "pr", "--run", "pr1", kLog});
  EXPECT_EQ(again.rc, 0) << again.err;
  EXPECT_NE(again.out.find("nothing added (already in lane main, run r1)"), std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("run 'pr1' of lane 'pr' was not created"), std::string::npos)
      << again.out;
  // No lane pr: explain and the gate say so instead of passing an empty run.
  RcfRun explain = rcf({"explain", "--lane", "pr"});
  EXPECT_EQ(explain.rc, 2) << explain.out;
  RcfRun gate = rcf({"gate", "--lane", "pr"});
  EXPECT_EQ(gate.rc, 2) << gate.out;
  EXPECT_NE(gate.err.find("no lane named 'pr'"), std::string::npos) << gate.err;
  // Re-ingesting into the run that holds the content keeps it, as before.
  RcfRun same = rcf({"ingest", "--lane", "main", "--run", "r1", kLog});
  EXPECT_EQ(same.rc, 0);
  EXPECT_EQ(same.out.find("was not created"), std::string::npos) << same.out;
  EXPECT_EQ(rcf({"gate", "--lane", "main"}).rc, 0);
}

TEST_F(NoEvidence, GateExitsTwoAndNeverPasses) {
  ingest_main_and_empty_pr();
  const std::string summary = tmp_.file("summary.md");
  setenv("GITHUB_ACTIONS", "true", 1);
  setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  RcfRun gate = rcf({"gate", "--lane", "pr"});
  RcfRun json_gate = rcf({"gate", "--lane", "pr", "--json"});
  unsetenv("GITHUB_ACTIONS");
  unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(gate.rc, 2) << gate.out << gate.err;
  EXPECT_NE(gate.out.find("FAIL  evidence"), std::string::npos) << gate.out;
  EXPECT_NE(gate.out.find("no evidence: run 'r1' (none of its 1 file is a log in a known format"),
            std::string::npos)
      << gate.out;
  EXPECT_NE(gate.out.find("gate NO EVIDENCE"), std::string::npos) << gate.out;
  EXPECT_EQ(gate.out.find(": ok"), std::string::npos) << gate.out;
  EXPECT_NE(gate.out.find("::error title=rcf gate pr%3A evidence::no evidence"), std::string::npos)
      << gate.out;
  std::string md = read_file(summary);
  EXPECT_NE(md.find("## rcf gate: NO EVIDENCE"), std::string::npos) << md;
  EXPECT_EQ(md.find("pass"), std::string::npos) << md;
  EXPECT_EQ(json_gate.rc, 2);
  json doc = json::parse(json_gate.out);
  EXPECT_FALSE(doc["passed"].get<bool>());
  EXPECT_EQ(doc["lanes"][0]["checks"][0]["budget"], "evidence");
  // The lane with evidence still passes on its own.
  EXPECT_EQ(rcf({"gate", "--lane", "main"}).rc, 0);
}

TEST_F(NoEvidence, DiffExplainAndReportsSayNoEvidence) {
  ingest_main_and_empty_pr();
  RcfRun diff = rcf({"diff", "main", "pr"});
  ASSERT_EQ(diff.rc, 0) << diff.err;
  EXPECT_NE(diff.out.find("programs:       "), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("-> no evidence"), std::string::npos) << diff.out;
  EXPECT_EQ(diff.out.find("-> 0"), std::string::npos) << diff.out;
  EXPECT_EQ(diff.out.find("vanished"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("not compared: lane 'pr' holds no evidence"), std::string::npos)
      << diff.out;
  json diff_json = json::parse(rcf({"diff", "main", "pr", "--json"}).out);
  EXPECT_TRUE(diff_json["runs"][0]["a"]["no_evidence"].is_null());
  EXPECT_FALSE(diff_json["runs"][0]["b"]["no_evidence"].is_null());

  RcfRun explain = rcf({"explain", "--lane", "pr"});
  EXPECT_EQ(explain.rc, 0);
  EXPECT_NE(explain.out.find("no evidence: none of its 1 file"), std::string::npos) << explain.out;
  EXPECT_EQ(explain.out.find("0 recompiles"), std::string::npos) << explain.out;

  RcfRun md = rcf({"report", "--format", "md", "--lane", "pr"});
  EXPECT_EQ(md.rc, 0);
  EXPECT_NE(md.out.find("**No evidence:**"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("no recompiles in the checked path"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("None needed"), std::string::npos) << md.out;
  json report = json::parse(rcf({"report", "--format", "json", "--lane", "pr"}).out);
  EXPECT_NE(report.dump().find("\"no_evidence\":\"none of its 1 file"), std::string::npos);
}

}  // namespace no_evidence_test
}  // namespace rcf
