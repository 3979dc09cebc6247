// Replays fixtures/fuzz_regressions/TARGET/*: every input that fuzzing found to crash, hang or
// break an invariant (copied from fuzz/regressions/ by whoever fixed the bug) and the hand-made
// boundary inputs of fuzz/make_edge_inputs.py (edge_*). Each runs once exactly as the fuzz target
// ran it (same reading plan, fuzz/fuzz_harness.h) and once through the normal ingest driver on a
// file, and must finish with every line counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "ingest/ingest_driver.h"
#include "tests/support/collecting_sink.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace fuzz_regression_test {

namespace fs = std::filesystem;

struct Regression {
  std::string target;  // fuzz target name (directory name)
  std::string path;
};

std::vector<Regression> regressions() {
  std::vector<Regression> out;
  fs::path root = fs::path(RCF_FIXTURES_DIR) / "fuzz_regressions";
  for (const auto& dir : fs::directory_iterator(root))
    if (dir.is_directory())
      for (const auto& file : fs::directory_iterator(dir.path()))
        if (file.is_regular_file())
          out.push_back({dir.path().filename().string(), file.path().string()});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

// The importer that reads a target's inputs in the normal pipeline ("" = sniff).
std::string format_of(const std::string& target) {
  if (target == "hlo_parser") return "hlo_text";
  if (target == "ingest_source" || target == "json_skim") return "";
  return target;
}

fuzz::Outcome replay_as_fuzzed(const Regression& r, const std::string& bytes) {
  if (r.target == "json_skim") return fuzz::run_json_skim(bytes);
  fuzz::ReadPlan plan = fuzz::decode_plan(static_cast<uint8_t>(bytes[0]));
  std::string_view text = std::string_view(bytes).substr(1);
  if (r.target == "hlo_parser") return fuzz::run_hlo_parser(text, plan);
  if (r.target == "ingest_source") {
    testing::TempDir dir;
    testing::write_file(dir.file("input"), std::string(text));
    return fuzz::run_ingest_source(dir.file("input"), text, plan);
  }
  return fuzz::run_importer(r.target, text, plan);
}

TEST(FuzzRegressionTest, EveryKeptInputReplaysWithoutCrashAndCountsEveryLine) {
  std::vector<Regression> all = regressions();
  ASSERT_FALSE(all.empty()) << "fixtures/fuzz_regressions/ holds the inputs fuzzing found";
  for (const Regression& r : all) {
    SCOPED_TRACE(r.path);
    std::string bytes = testing::read_file(r.path);
    ASSERT_FALSE(bytes.empty());

    fuzz::Outcome fuzzed = replay_as_fuzzed(r, bytes);
    EXPECT_TRUE(fuzzed.violations.empty()) << fuzzed.violations.front();

    // The normal pipeline: the log (without the plan byte) as a file, default reading.
    std::string text = r.target == "json_skim" ? bytes : bytes.substr(1);
    testing::TempDir dir;
    testing::write_file(dir.file("input.log"), text);
    testing::CollectingSink sink;
    ingest::DriverOptions options;
    options.forced_format = format_of(r.target);
    ingest::SourceStats stats;
    ingest::SourceOutcome outcome =
        ingest::ingest_source(dir.file("input.log"), sink, options, &stats);
    ASSERT_NE(outcome, ingest::SourceOutcome::kOpenFailed) << stats.read_error;
    bool gzip = text.size() >= 2 && static_cast<uint8_t>(text[0]) == 0x1f &&
                static_cast<uint8_t>(text[1]) == 0x8b;
    if (gzip) {
      // Whatever inflated before an error is read; an error is named, never a crash.
      EXPECT_TRUE(stats.lines > 0 || !stats.read_error.empty());
    } else {
      EXPECT_EQ(stats.lines, testing::line_count(text));
    }
    if (outcome == ingest::SourceOutcome::kIngested && !options.forced_format.empty()) {
      EXPECT_EQ(stats.format, options.forced_format);
    }
  }
}

}  // namespace fuzz_regression_test
}  // namespace rcf
