// The read behind a torch_xla sync fragment (analysis/value_read_evidence.h, docs/causes.md):
// which user line read a tensor value, decided from the fragment's own block or from the level-2
// Execution blocks of the same graph and never guessed, and pt-xla-profiler's
// `TransferFromDeviceTime too frequent` count as corroboration, on a real pasted log and on
// realistic variants (launcher prefixes, other indentation, a cut block, several reads a step).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/explain.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace value_read_evidence_test {

using testing::scalar;
using testing::TempDir;

constexpr const char* kReadCause =
    "most likely user code trying to access tensor value before mark_step";
constexpr const char* kStepCause = "user mark_step";

// One PT_XLA_DEBUG analysis block (`kind` Compilation or Execution), each line behind `prefix`,
// its frame lines indented by `indent`; `frames` empty leaves the block cut after its counts.
std::string block(const std::string& kind, const std::string& cause, const std::string& hash,
                  const std::vector<std::string>& frames, const std::string& prefix = "",
                  const std::string& indent = "  ") {
  const std::string p = prefix + kind + " Analysis: ";
  std::string out = "\n" + p + std::string(80, '=') + "\n" + p + kind + " Cause\n" + p + "  " +
                    cause + "\n" + p + "Graph Info: \n" + p + "  Graph Hash: " + hash + "\n" + p +
                    "  Number of Graph Inputs: 3\n" + p + "  Number of Graph Outputs: 1\n";
  if (frames.empty()) return out;
  out += p + "Python Frame Triggered Execution: \n";
  for (const std::string& f : frames) out += p + indent + f + "\n";
  return out + p + std::string(80, '-') + "\n" + p + std::string(80, '=') + "\n";
}

std::string transfer_note(int counts, int steps, const std::string& prefix = "") {
  return prefix +
         "pt-xla-profiler: TransferFromDeviceTime too frequent: " + std::to_string(counts) +
         " counts during " + std::to_string(steps) + " steps\n";
}

class ValueReads : public ::testing::Test {
 protected:
  void ingest(const std::string& name, const std::string& text) {
    testing::write_file(dir_.file(name), text);
    ingest_path(dir_.file(name));
  }
  void ingest_path(const std::string& path) {
    testing::ingest_logs(dir_.file("rcf.db"), {path}, "xla", "r1");
    db_ = testing::read_store(dir_.file("rcf.db"));
  }
  // What the fragment's read is aggregated by (attribution.subject_sid), "" when unnamed.
  std::string subject(int ordinal) {
    return scalar(*db_,
                  "SELECT coalesce(s.text, '') FROM attribution a JOIN compile_event c ON "
                  "c.compile_row = a.compile_row LEFT JOIN strings s ON s.string_id = "
                  "a.subject_sid WHERE c.ordinal = " +
                      std::to_string(ordinal));
  }
  std::string column(const std::string& col, int ordinal) {
    return scalar(*db_,
                  "SELECT " + col + " FROM recompiles WHERE ordinal = " + std::to_string(ordinal));
  }
  TempDir dir_;
  std::unique_ptr<store::Database> db_;
};

// fixtures/xla/pt_xla_debug_issue6614.txt: a real sync-fragment block, cut by the user inside
// its frame list; no profiler line, so the read is named and the confidence stays medium.
TEST_F(ValueReads, TheRealFragmentNamesItsReadAsAnEvidenceLine) {
  ingest_path(testing::fixture_path("xla/pt_xla_debug_issue6614.txt"));
  EXPECT_EQ(column("cause", 1), "sync_fragment");
  EXPECT_EQ(column("confidence", 1), "medium");
  const std::string evidence = column("evidence", 1);
  EXPECT_NE(evidence.find("\nvalue read at REDACTED/k-diffusion/k_diffusion/models/"
                          "image_transformer_v2.py:196 (_apply_rotary_emb_inplace): the innermost "
                          "user frame of the PT_XLA_DEBUG Compilation Analysis at "),
            std::string::npos)
      << evidence;
  EXPECT_EQ(evidence.find("pt-xla-profiler"), std::string::npos) << evidence;
}

// Two reads in step 1 and one in step 2 behind a torchrun tag, frames indented by four: each
// fragment names its own line, and the note printed after it counts the reads of its step.
TEST_F(ValueReads, SeveralReadsInAStepEachGetTheirOwnLineAndTheNoteAfterThem) {
  const std::string tag = "[default0]:";
  std::string log =
      block("Compilation", kReadCause, "aa01", {"_has_boundaries (/work/a.py:10)"}, tag, "    ") +
      block("Compilation", kReadCause, "bb02", {"_uniform (/work/b.py:20)"}, tag, "    ") +
      block("Compilation", kStepCause, "cc03", {"train_step (/work/t.py:5)"}, tag) +
      transfer_note(2, 1, tag) +
      block("Compilation", kReadCause, "dd04", {"_has_boundaries (/work/a.py:10)"}, tag, "    ") +
      transfer_note(5, 2, tag);
  ingest("rank0.log", log);
  EXPECT_NE(column("evidence", 1).find("\nvalue read at /work/a.py:10 (_has_boundaries)"),
            std::string::npos);
  EXPECT_NE(column("evidence", 2).find("\nvalue read at /work/b.py:20 (_uniform)"),
            std::string::npos);
  EXPECT_NE(
      column("evidence", 1)
          .find("\npt-xla-profiler at rank0.log:37, the step-end sync after this fragment: "
                "TransferFromDeviceTime too frequent: 2 counts during 1 steps (2.0 per step)"),
      std::string::npos)
      << column("evidence", 1);
  EXPECT_NE(column("evidence", 4)
                .find("5 counts during 2 steps (2.5 per step; 3 in this "
                      "fragment's step)"),
            std::string::npos)
      << column("evidence", 4);
  EXPECT_EQ(column("confidence", 4), "high");
  EXPECT_EQ(subject(2), "/work/b.py:20");
}

// A compile block cut before its frame list: the Execution blocks of the same graph (level 2)
// name the read when they all name one line.
TEST_F(ValueReads, ACutBlockTakesTheLineOfItsGraphsExecutions) {
  ingest("debug.log", block("Compilation", kReadCause, "aa01", {}) +
                          block("Execution", kReadCause, "aa01", {"item_check (/work/a.py:10)"}) +
                          block("Execution", kStepCause, "cc03", {"train_step (/work/t.py:5)"}));
  const std::string evidence = column("evidence", 1);
  EXPECT_NE(evidence.find("\nvalue read at /work/a.py:10 (item_check): named by the Execution "
                          "Analysis of the same graph aa01 at debug.log:"),
            std::string::npos)
      << evidence;
  EXPECT_EQ(subject(1), "/work/a.py:10");
}

// The same graph read from two lines, or another graph's execution only: not decided.
TEST_F(ValueReads, AReadTheLogDoesNotDecideStaysUnknown) {
  ingest("two.log", block("Compilation", kReadCause, "aa01", {}) +
                        block("Execution", kReadCause, "aa01", {"first (/work/a.py:10)"}) +
                        block("Execution", kReadCause, "aa01", {"second (/work/b.py:30)"}) +
                        block("Execution", kReadCause, "ee05", {"other (/work/c.py:7)"}) +
                        transfer_note(3, 1));
  const std::string evidence = column("evidence", 1);
  EXPECT_NE(evidence.find("\nvalue read: unknown line; which read is not decided"),
            std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("/work/a.py:10 (first)"), std::string::npos);
  EXPECT_NE(evidence.find("/work/b.py:30 (second)"), std::string::npos);
  EXPECT_EQ(evidence.find("/work/c.py:7"), std::string::npos) << evidence;
  EXPECT_EQ(subject(1), "");
}

// Only a hint and a frameless fragment: the detail says what would name the read.
TEST_F(ValueReads, AHintWithoutAFrameSaysWhatWouldNameTheRead) {
  ingest("cut.log", transfer_note(4, 1) + block("Compilation", kReadCause, "aa01", {}));
  const std::string detail = column("detail", 1);
  EXPECT_NE(detail.find("the read's line is not in the log: its Compilation Analysis block "
                        "shows no frame (cut before the list); PT_XLA_DEBUG_LEVEL=2 would name "
                        "it"),
            std::string::npos)
      << detail;
  // The only note comes before the fragment: it is run-wide evidence, not this step's count.
  EXPECT_NE(column("evidence", 1)
                .find("\npt-xla-profiler at cut.log:1 (run-wide: no note "
                      "follows this fragment in its log): "
                      "TransferFromDeviceTime too frequent: 4 counts during 1 "
                      "steps (4.0 per step)"),
            std::string::npos)
      << column("evidence", 1);
}

// rcf explain prints the read as an evidence record of its own, in text and JSON.
TEST_F(ValueReads, ExplainShowsTheReadOnItsOwnLine) {
  ingest("debug.log", block("Compilation", kReadCause, "aa01", {"_check (/work/a.py:10)"}) +
                          transfer_note(1, 1));
  auto model = report::build_explain(*db_, "xla");
  const std::string json = report::render_explain_json(model);
  EXPECT_NE(json.find("\"value read at /work/a.py:10 (_check): the innermost user frame"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"pt-xla-profiler at debug.log:"), std::string::npos) << json;
}

}  // namespace value_read_evidence_test
}  // namespace rcf
