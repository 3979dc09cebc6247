// A training console whose first record comes after the sniffing window (docs/plain_text.md, "A
// console whose records come late"): the first 64 KiB are progress lines, so the console is
// sniffed as plain text, and the first line that is a record of a format that reads consoles
// (Dynamo text, a JAX log, PT_XLA_DEBUG output) hands it to that format's importer. The store is
// then the one the format named with --format leaves: every recompile is there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ingest/importer.h"
#include "tests/support/db_dump.h"
#include "tests/support/fixture_text.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "util/error.h"

namespace rcf {
namespace console_hand_over_test {

using testing::fixture_text;
using testing::query_csv;
using testing::scalar;
using testing::TempDir;

// `count` progress lines, steps 1..count: 2 000 of them are more than the 64 KiB window.
std::string progress_lines(int count) {
  std::string text;
  for (int step = 1; step <= count; ++step)
    text += "epoch 0 step " + std::to_string(step) + "/100000 loss 0.0218\n";
  return text;
}

const char* format_of(std::string_view line) {
  const ingest::ImporterInfo* info = ingest::console_format_of(line);
  return info ? info->name.c_str() : "";
}

// A line is handed over only when it is a record of a format that reads consoles, as the
// format's sniffer would have said had the line been in the window.
TEST(ConsoleHandOver, OnlyAnotherFormatsRecordIsHandedOver) {
  EXPECT_STREQ(format_of("V1126 20:42:27.173000 615 torch/_dynamo/guards.py:4760] [0/1] "
                         "[__recompiles] Recompiling function train_step in /w/zoo.py:103"),
               "dynamo_text");
  EXPECT_STREQ(format_of("Recompiling function train_step in /w/zoo.py:103"), "dynamo_text");
  EXPECT_STREQ(format_of("[rank0]:W1126 20:43:00.123000 71 torch/_dynamo/convert_frame.py:844] "
                         "torch._dynamo hit config.recompile_limit (8)"),
               "dynamo_text");
  EXPECT_STREQ(format_of("Compiling jit(multiply) with global shapes and types "
                         "(ShapedArray(float32[32,4]),). Argument mapping: (UnspecifiedValue,)."),
               "jax_log");
  EXPECT_STREQ(format_of("Finished XLA compilation of jit(stage) in 0.0732 sec"), "jax_log");
  EXPECT_STREQ(format_of("Compilation Analysis: ======================"), "pt_xla_debug");
  // The console's own lines stay plain text: progress, a compile-caused warning, a user's words
  // that share a word with a marker, blank.
  for (const char* line : {
           "epoch 0 step 5001/100000 loss 0.0218",
           "/opt/torch/lib/python3.12/site-packages/torch/_inductor/compile_fx.py:322: UserWarning:"
           " TensorFloat32 tensor cores for float32 matrix multiplication available",
           "Compiling the model for 8 devices",
           "  warnings.warn(",
           "",
       })
    EXPECT_STREQ(format_of(line), "") << line;
}

struct LateCase {
  const char* name;
  const char* fixture;  // a real console of the format
  const char* format;
};

const LateCase kDynamo{"dynamo", "real_runs/growing_seq_len/run1/stderr.log", "dynamo_text"};

class LateRecords : public ::testing::TestWithParam<LateCase> {};

// The console: 2 000 progress lines, then the real log.
std::string late_console(const LateCase& c) {
  return progress_lines(2000) + fixture_text(c.fixture);
}

std::string write_console(TempDir& dir, const LateCase& c) {
  const std::string path = dir.file("console.log");
  std::ofstream(path, std::ios::binary) << late_console(c);
  return path;
}

const std::vector<std::string> kSameQueries = {
    "SELECT ordinal, step, site, program_key, kind, cause_reported, compile_ms, cache FROM "
    "compiles",
    "SELECT ordinal, step, site, program_key, cause, detail, confidence FROM recompiles",
    "SELECT source, line, limit_type, function, last_reason FROM recompile_limit_hits ORDER BY 1, "
    "2",
    "SELECT source, line, gb_type, reason FROM graph_breaks ORDER BY 1, 2",
    "SELECT state, settle_step, compiles, programs, recompiles, step_axis FROM convergence_summary",
};

// Sniffed, the console ends as its records' format and holds what that format named with
// --format gives: the same compiles, causes, steps and curve.
TEST_P(LateRecords, AreReadAsTheFormatTheySay) {
  TempDir dir;
  const std::string path = write_console(dir, GetParam());
  testing::ingest_logs(dir.file("sniffed.db"), {path});
  pipeline::IngestRequest forced;
  forced.db_path = dir.file("forced.db");
  forced.paths = {path};
  forced.format = GetParam().format;
  pipeline::run_ingest(forced);
  auto sniffed = testing::read_store(dir.file("sniffed.db"));
  auto named = testing::read_store(dir.file("forced.db"));
  EXPECT_EQ(scalar(*sniffed, "SELECT format FROM source"), GetParam().format);
  EXPECT_NE(scalar(*sniffed, "SELECT count(*) FROM compiles"), "0");
  for (const auto& q : kSameQueries) EXPECT_EQ(query_csv(*sniffed, q), query_csv(*named, q)) << q;
}

// --format plain_text is kept to the end: the console is read as the plain text asked for.
TEST_P(LateRecords, StayPlainTextWhenThatFormatIsNamed) {
  TempDir dir;
  pipeline::IngestRequest request;
  request.db_path = dir.file("plain.db");
  request.paths = {write_console(dir, GetParam())};
  request.format = "plain_text";
  pipeline::run_ingest(request);
  auto db = testing::read_store(dir.file("plain.db"));
  EXPECT_EQ(scalar(*db, "SELECT format FROM source"), "plain_text");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "0");
}

INSTANTIATE_TEST_SUITE_P(
    RealLogs, LateRecords,
    ::testing::Values(kDynamo,
                      LateCase{"jax", "real_runs/jax_shape_change/run1/stderr.log", "jax_log"},
                      LateCase{"pt_xla_debug", "xla/pt_xla_debug_issue6614.txt", "pt_xla_debug"}),
    [](const ::testing::TestParamInfo<LateCase>& param_info) {
      return std::string(param_info.param.name);
    });

// The progress lines before the hand-over are the run's steps as much as those after: the
// recompiles of the Dynamo console are placed after step 2 000.
TEST(ConsoleHandOver, TheStepsBeforeTheFirstRecordCount) {
  TempDir dir;
  const std::string path = write_console(dir, kDynamo);
  testing::ingest_logs(dir.file("rcf.db"), {path});
  auto db = testing::read_store(dir.file("rcf.db"));
  EXPECT_EQ(scalar(*db, "SELECT step_axis FROM convergence_summary"), "step");
  EXPECT_EQ(scalar(*db, "SELECT min(step) > 2000 FROM recompiles"), "1");
}

// `count` lines of a program's own output that no format claims, none a progress line.
std::string other_output(int count) {
  std::string text;
  for (int i = 1; i <= count; ++i)
    text += "INFO:root:loading shard " + std::to_string(i) + " of the dataset from /data/train\n";
  return text;
}

// A log whose first 64 KiB no format claims (no progress console either) is read on for a record:
// from its first one it is that format's, with the store --format gives; the lines before it
// are read as plain text (their progress lines held until the record shows the log is one).
TEST(ConsoleHandOver, AHeadOfNoFormatIsReadOnForARecord) {
  TempDir dir;
  const std::string path = dir.file("console.log");
  std::ofstream(path, std::ios::binary) << other_output(2000) << fixture_text(kDynamo.fixture);
  testing::ingest_logs(dir.file("sniffed.db"), {path});
  pipeline::IngestRequest forced;
  forced.db_path = dir.file("forced.db");
  forced.paths = {path};
  forced.format = "dynamo_text";
  pipeline::run_ingest(forced);
  auto sniffed = testing::read_store(dir.file("sniffed.db"));
  auto named = testing::read_store(dir.file("forced.db"));
  EXPECT_EQ(scalar(*sniffed, "SELECT format FROM source"), "dynamo_text");
  EXPECT_NE(scalar(*sniffed, "SELECT count(*) FROM compiles"), "0");
  for (const auto& q : kSameQueries) EXPECT_EQ(query_csv(*sniffed, q), query_csv(*named, q)) << q;
  // The 2 000 lines and the fixture's `warnings.warn(` before its first record, read as plain
  // text; its progress line and warning before that record are the run's, as --format's.
  EXPECT_EQ(scalar(*sniffed, "SELECT count FROM line_note WHERE reason = 'plain_text'"), "2001");
}

// With no record at all it is the unrecognised log it was: an error when named, counted as one
// when found in a directory.
TEST(ConsoleHandOver, AHeadOfNoFormatWithNoRecordStaysUnrecognised) {
  TempDir dir;
  std::filesystem::create_directories(dir.file("logs"));
  const std::string path = dir.file("logs/output.log");
  std::ofstream(path, std::ios::binary) << other_output(3000);
  EXPECT_THROW(testing::ingest_logs(dir.file("named.db"), {path}), Error);
  std::ofstream(dir.file("logs/train.log"), std::ios::binary) << fixture_text(kDynamo.fixture);
  pipeline::IngestSummary summary = testing::ingest_logs(dir.file("walked.db"), {dir.file("logs")});
  auto db = testing::read_store(dir.file("walked.db"));
  EXPECT_EQ(scalar(*db, "SELECT format FROM source WHERE path LIKE '%output.log'"), "unrecognized");
  EXPECT_EQ(scalar(*db,
                   "SELECT n.reason || ' ' || n.count FROM line_note n JOIN source s "
                   "USING (source_id) WHERE s.path LIKE '%output.log'"),
            "unrecognized_format 3000");
  EXPECT_NE(scalar(*db, "SELECT count(*) FROM compiles"), "0");
  ASSERT_EQ(summary.warnings.size(), 1u);
  EXPECT_NE(summary.warnings[0].find("not a recognised log format"), std::string::npos);
}

}  // namespace console_hand_over_test
}  // namespace rcf
