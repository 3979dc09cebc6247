// The formats the command reference documents are the formats rcf has: every `--format` name
// docs/usage.md lists resolves, `plain_text` included, and `--step-pattern` reads step timings out
// of a plain training log that no importer recognises (docs/plain_text.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/importer.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/rcf_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace plain_text_format_test {

using testing::query_csv;
using testing::read_file;
using testing::run_rcf;
using testing::scalar;
using testing::TempDir;

const std::string kPlainLog = std::string(RCF_FIXTURES_DIR) + "/plain_text/plain_training.log";
const std::string kStepPattern = R"(step (?P<step>\d+)/\d+ \|.* (?P<ms>[\d.]+)ms)";

// The backquoted names in docs/usage.md's "`--format` overrides (...)" sentence.
std::vector<std::string> readme_format_names() {
  const std::string readme = read_file(std::string(RCF_FIXTURES_DIR) + "/../docs/usage.md");
  const std::string marker = "`--format` overrides (";
  size_t at = readme.find(marker);
  if (at == std::string::npos) return {};
  size_t end = readme.find(')', at + marker.size());
  std::string list = readme.substr(at + marker.size(), end - at - marker.size());
  std::vector<std::string> names;
  for (size_t open = list.find('`'); open != std::string::npos; open = list.find('`', open)) {
    size_t close = list.find('`', open + 1);
    if (close == std::string::npos) break;
    names.push_back(list.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return names;
}

TEST(PlainTextFormat, EveryFormatTheReadmeNamesResolves) {
  std::vector<std::string> names = readme_format_names();
  ASSERT_GE(names.size(), 9u) << "docs/usage.md sentence about --format not found or changed";
  for (const std::string& name : names) {
    const ingest::ImporterInfo* info = ingest::find_importer(name);
    ASSERT_NE(info, nullptr) << "docs/usage.md names --format " << name;
    EXPECT_EQ(info->name, name);
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "plain_text"), names.end());
}

// plain_text sniffs only a console of progress lines, and below every real format.
TEST(PlainTextFormat, WinsASniffOnlyForAProgressConsole) {
  const ingest::ImporterInfo* plain = ingest::find_importer("plain_text");
  ASSERT_NE(plain, nullptr);
  const std::string log = read_file(kPlainLog);  // 24 of its 35 non-blank lines are `step N/24`
  EXPECT_GT(plain->sniff(log), 0);
  ASSERT_NE(ingest::sniff_importer(log), nullptr);
  EXPECT_EQ(ingest::sniff_importer(log)->name, "plain_text");
  EXPECT_EQ(plain->sniff("step,wall_ms\n1,12.5\n"), 0);
  // Fewer than a quarter of the lines are progress lines: no console.
  EXPECT_EQ(plain->sniff("hello\nstep 1\nstep 2\nworld\nagain\nmore\nstep 3\nend\na\nb\nc\nd\ne\n"),
            0);
  // A console whose warning a terminal wrapped over several lines is still one.
  EXPECT_GT(plain->sniff("/opt/x/compile_fx.py:322: UserWarning: TensorFloat32 tensor cores for\n"
                         "float32 matrix multiplication available but not enabled. Consider\n"
                         "setting `torch.set_float32_matmul_precision('high')` for better\n"
                         "performance.\n  warnings.warn(\nstep 1/3 loss 0.7\nstep 2/3 loss 0.9\n"
                         "step 3/3 loss 1.3\n"),
            0);
  // Real formats still win, even with progress lines between their records.
  const ingest::ImporterInfo* csv = ingest::sniff_importer("step,wall_ms\n1,12.5\n2,11.0\n");
  ASSERT_NE(csv, nullptr);
  EXPECT_EQ(csv->name, "step_timing");
  const std::string dynamo =
      read_file(std::string(RCF_FIXTURES_DIR) + "/scenarios/dynamo_lane/train.log");
  ASSERT_NE(ingest::sniff_importer(dynamo), nullptr);
  EXPECT_EQ(ingest::sniff_importer(dynamo)->name, "dynamo_text");
}

TEST(PlainTextFormat, StepPatternReadsAPlainTrainingLog) {
  TempDir dir;
  const std::string db = dir.file("t.db");
  testing::RcfRun r = run_rcf({"ingest", "--db", db, "--step-pattern", kStepPattern, kPlainLog});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(plain_text 1)"), std::string::npos) << r.out;
  // 24 step timings from the pattern, 27 progress lines as step markers (docs/plain_text.md), and
  // Inductor's TF32 UserWarning (line 5), a line a compile printed (docs/training_steps.md).
  EXPECT_NE(r.out.find(" 52 events, 0 rejected lines"), std::string::npos) << r.out;

  auto store = store::open_store(db, store::OpenMode::kRead);
  EXPECT_EQ(scalar(*store, "SELECT format FROM ingest_stats"), "plain_text");
  // Step lines only: not the eval line, the eval announcement or the data-loader warning.
  EXPECT_EQ(query_csv(*store,
                      "SELECT step, wall_ms, compile_ms FROM step_timing ORDER BY step "
                      "LIMIT 4"),
            "step,wall_ms,compile_ms\n1,41250.3,\n2,3823.6,\n3,3816.5,\n4,116.4,\n");
  EXPECT_EQ(scalar(*store,
                   "SELECT count(*) || ' ' || min(step) || ' ' || max(step) || ' ' || "
                   "count(DISTINCT step) FROM step_timing"),
            "24 1 24 24");
  EXPECT_EQ(scalar(*store, "SELECT wall_ms FROM step_timing WHERE step = 13"), "3922.4");
  EXPECT_EQ(scalar(*store, "SELECT line FROM step_timing WHERE step = 1"), "7");
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM step_timing WHERE wall_ms IN (2431.7, 38.0)"),
            "0");
}

// Named or sniffed, a plain text log's progress lines are step markers and its other lines are
// counted; step timings come only from a --step-pattern.
TEST(PlainTextFormat, ProgressLinesAreStepMarkersAndTheRestIsCounted) {
  TempDir dir;
  const std::string db = dir.file("t.db");
  testing::RcfRun r = run_rcf({"ingest", "--db", db, "--format", "plain_text", kPlainLog});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(plain_text 1)"), std::string::npos) << r.out;
  auto store = store::open_store(db, store::OpenMode::kRead);
  EXPECT_EQ(scalar(*store, "SELECT count(*) FROM step_timing"), "0");
  EXPECT_EQ(scalar(*store, "SELECT events || ' ' || rejected FROM ingest_stats"), "28 0");
  EXPECT_EQ(query_csv(*store,
                      "SELECT m.line, s.text FROM step_marker m JOIN strings s ON s.string_id = "
                      "m.shape_sid WHERE m.origin = 'compile_line'"),
            "line,text\n5,torch/_inductor/compile_fx.py:236\n");
  // The training series and three look-alikes (eval, a data-loader warning), each its own shape.
  EXPECT_EQ(scalar(*store,
                   "SELECT group_concat(n, ' ') FROM (SELECT sum(repeats) AS n FROM step_marker "
                   "WHERE origin = 'step_line' GROUP BY shape_sid ORDER BY n DESC)"),
            "24 1 1 1");
}

TEST(PlainTextFormat, AProgressConsoleIsRecognisedAndOtherTextIsNot) {
  TempDir dir;
  testing::RcfRun r = run_rcf({"ingest", "--db", dir.file("t.db"), kPlainLog});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(plain_text 1)"), std::string::npos) << r.out;
  const std::string prose = dir.file("notes.txt");
  testing::write_file(prose, "Notes on the run.\nThe loss went down.\nstep 3 was slow.\n");
  r = run_rcf({"ingest", "--db", dir.file("u.db"), prose});
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("not a recognised log format"), std::string::npos) << r.err;
}

}  // namespace plain_text_format_test
}  // namespace rcf

namespace rcf {
namespace plain_text_format_test {

// The Dynamo lane's console split in two files, as a run that logs compiles to stderr and prints
// its steps to stdout: the steps are counted, nothing places the compiles, and explain says why
// there is no convergence curve and what would give one (docs/training_steps.md).
TEST(PlainTextFormat, StepsInAConsoleOfTheirOwnSayWhyTheyPlaceNoCompile) {
  TempDir dir;
  std::istringstream log(
      read_file(std::string(RCF_FIXTURES_DIR) + "/scenarios/dynamo_lane/train.log"));
  std::string compiles, steps;
  for (std::string line; std::getline(log, line);)
    (line.starts_with("step ") ? steps : compiles) += line + "\n";
  testing::write_file(dir.file("stderr.log"), compiles);
  testing::write_file(dir.file("stdout.log"), steps);
  const std::string db = dir.file("t.db");
  testing::RcfRun r =
      run_rcf({"ingest", "--db", db, dir.file("stderr.log"), dir.file("stdout.log")});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(dynamo_text 1, plain_text 1)"), std::string::npos) << r.out;
  r = run_rcf({"explain", "--db", db});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("   steps: no convergence curve: 25 training steps are counted in a file "
                       "of their own, but nothing places the compiles in them"),
            std::string::npos)
      << r.out;
}

// Issue 47: a --step-pattern match with a number out of range is rejected under its reason
// (docs/reasons.md) and is no step timing; the line still goes to the importer.
TEST(PlainTextFormat, StepPatternRejectsNumbersOutOfRange) {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const std::string log = dir.file("train.log");
  testing::write_file(log,
                      "step 1/4 | loss 1.0 | 120.5ms\n"
                      "step 2/4 | loss 1.0 | -5ms\n"
                      "step 3/4 | loss 1.0 | 99999999999999ms\n"
                      "step 4/4 | loss 1.0 | 118.5ms\n");
  testing::RcfRun r = run_rcf({"ingest", "--db", db, "--step-pattern",
                               R"(step (?P<step>\d+)/\d+ \|.* (?P<ms>-?[\d.]+)ms)", log});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto store = store::open_store(db, store::OpenMode::kRead);
  EXPECT_EQ(query_csv(*store, "SELECT step, wall_ms FROM step_timing ORDER BY step"),
            "step,wall_ms\n1,120.5\n4,118.5\n");
  EXPECT_EQ(query_csv(*store,
                      "SELECT fate, reason, count, first_line FROM line_note "
                      "WHERE reason LIKE 'implausible%'"),
            "fate,reason,count,first_line\nrejected,implausible_duration,2,2\n");
  EXPECT_NE(r.out.find(", 2 rejected lines"), std::string::npos) << r.out;
}

}  // namespace plain_text_format_test
}  // namespace rcf
