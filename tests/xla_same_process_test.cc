// One torch_xla process seen through two logs (analysis/xla_same_process.h): a PT_XLA_DEBUG
// console saved twice (here the scenario bundle's log and a copy an app logger re-wrapped) is
// one process, and every compile counts once; the same output in files numbered per rank is two
// processes that compiled the same graphs, each with its own program cache, so neither
// process's compiles are called recompiles of the other's.
#include "analysis/xla_same_process.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

namespace rcf {
namespace xla_same_process_test {

using testing::read_file;
using testing::scalar;
using testing::TempDir;
using testing::write_file;

const std::string kBundle = std::string(RCF_FIXTURES_DIR) + "/scenarios/constant_counter/";

// `text` as an app logger that stamps every line would have saved it, with CRLF line ends.
std::string rewrapped(const std::string& text) {
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out += "[2026-11-26 10:00:00.000] " + text.substr(pos, end - pos) + "\r\n";
    pos = end + 1;
  }
  return out;
}

std::unique_ptr<store::Database> ingest(const TempDir& dir, const std::vector<std::string>& paths) {
  testing::ingest_logs(dir.file("rcf.db"), paths, "constant_counter", "r1");
  return testing::read_store(dir.file("rcf.db"));
}

nlohmann::json truth() {
  return nlohmann::json::parse(read_file(kBundle + "truth.json"));
}

TEST(XlaSameProcess, ACopyOfTheConsoleIsReadAsTheSameProcess) {
  TempDir dir;
  const std::string copy = dir.file("console.log");
  write_file(copy, rewrapped(read_file(kBundle + "pt_xla_debug.log")));
  auto db = ingest(dir, {kBundle + "pt_xla_debug.log", kBundle + "metrics.txt",
                         kBundle + "save_tensors.hlo.0", kBundle + "steps.csv", copy});
  const nlohmann::json want = truth();
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compile_event"),
            std::to_string(want.at("compiles").size()));
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM recompiles WHERE cause = 'unknown'"), "0");
  EXPECT_EQ(scalar(*db, "SELECT settle_step || ' ' || programs_at_settle FROM convergence_summary"),
            std::to_string(want.at("convergence").at("settle_step").get<int>()) + " " +
                std::to_string(want.at("convergence").at("programs_at_settle").get<int>()));
  const std::string merged = scalar(*db, "SELECT source || ' <- ' || evidence FROM merged_sources");
  EXPECT_NE(
      merged.find("console.log <- the same 24 PT_XLA_DEBUG compile records in the same order"),
      std::string::npos)
      << merged;
  // What would decide it is said: PT_XLA_DEBUG names no process.
  EXPECT_NE(merged.find("if they are two ranks"), std::string::npos) << merged;
}

TEST(XlaSameProcess, FilesNumberedPerRankAreTwoProcessesWithTheirOwnCaches) {
  TempDir dir;
  const std::string log = read_file(kBundle + "pt_xla_debug.log");
  write_file(dir.file("rank0.log"), log);
  write_file(dir.file("rank1.log"), rewrapped(log));
  auto db =
      ingest(dir, {dir.file("rank0.log"), dir.file("rank1.log"), kBundle + "save_tensors.hlo.0"});
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM merged_sources"), "0");
  // Each process compiles the truth's 24 programs: its first compile at the site is a first
  // compile, not "already compiled earlier" by the other process.
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compile_event"), "48");
  EXPECT_EQ(scalar(*db,
                   "SELECT group_concat(cause || ' ' || n, ', ') FROM (SELECT cause, "
                   "count(*) AS n FROM recompiles GROUP BY cause ORDER BY cause)"),
            "constant 46");
}

TEST(XlaSameProcess, DifferentRecordsAreNeverMerged) {
  TempDir dir;
  const std::string log = read_file(kBundle + "pt_xla_debug.log");
  // The copy stops after its first Compilation Analysis blocks: a truncated or other run.
  const size_t cut = log.find("Compilation Analysis", log.find("Compilation Analysis") + 1);
  ASSERT_NE(cut, std::string::npos);
  write_file(dir.file("other.log"), log.substr(0, log.rfind('\n', cut) + 1));
  auto db = ingest(dir, {kBundle + "pt_xla_debug.log", dir.file("other.log")});
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM merged_sources"), "0");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compile_event"), "25");
}

TEST(XlaSameProcess, NamesNumberedPerProcessAreToldApart) {
  using analysis::numbered_apart;
  EXPECT_TRUE(numbered_apart("logs/rank0.log", "logs/rank1.log"));
  EXPECT_TRUE(numbered_apart("host-3/train.log", "host-12/train.log"));
  EXPECT_FALSE(numbered_apart("train.log", "console.log"));
  EXPECT_FALSE(numbered_apart("run7/train.log", "run7/train.log"));
  EXPECT_FALSE(numbered_apart("train.log", "train.log.1"));  // a rotated piece, not a rank
}

}  // namespace xla_same_process_test
}  // namespace rcf
