// Compile identity across torch._dynamo.reset() in Dynamo text logs
// (ingest/dynamo/dynamo_epochs.h): ids that start again are a new epoch, so no two compiles share a
// key and no reasons mix.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pipeline/ingest_pipeline.h"
#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace dynamo_compile_identity_test {

using testing::column;
using testing::fixture_path;
using testing::ingest_logs;
using testing::read_store;
using testing::scalar;
using testing::TempDir;

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " | ") + s;
  return out;
}

// A fixture of fixtures/dynamo_identity ingested into a new store in `dir`.
std::unique_ptr<store::Database> ingested(const TempDir& dir, const std::string& fixture) {
  ingest_logs(dir.file("rcf.db"), {fixture_path("dynamo_identity/" + fixture)});
  return read_store(dir.file("rcf.db"));
}

TEST(DynamoCompileIdentity, ResetsStartNewEpochsAndKeepEveryCompile) {
  TempDir dir;
  auto db = ingested(dir, "reset_between_experiments_constructed.log");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "7");
  EXPECT_EQ(joined(column(*db,
                          "SELECT program_key || ' ' || coalesce(prev_program_key, '-') || ' ' || "
                          "cause FROM recompiles ORDER BY program_key")),
            "0/1 0/0 constant | 0/2 0/1 constant | e1:0/1 e1:0/0 shape | e2:0/1 e2:0/0 dtype");
  // Each recompile keeps its own reasons: the dtype flip is not shown with the size change.
  EXPECT_EQ(scalar(*db, "SELECT detail FROM recompiles WHERE program_key = 'e2:0/1'"),
            "tensor 'x' dtype: Float -> Half");
  EXPECT_EQ(scalar(*db, "SELECT count(DISTINCT epoch) FROM guard_failures"), "3");
}

// Two processes writing one log without rank prefixes reuse the same compile ids: the glog pid
// tells them apart, and the second process's compiles take a new epoch of their own.
TEST(DynamoCompileIdentity, TwoProcessesInOneLogKeepTheirOwnCompiles) {
  TempDir dir;
  auto db = ingested(dir, "two_processes_one_log_constructed.log");
  EXPECT_EQ(scalar(*db, "SELECT count(*) FROM compiles"), "5");
  EXPECT_EQ(joined(column(*db,
                          "SELECT program_key || ' ' || coalesce(prev_program_key, '-') || ' ' || "
                          "cause || ' ' || site FROM recompiles ORDER BY program_key")),
            "0/1 0/0 shape /w/model.py:40 (forward) | 0/2 0/1 shape /w/model.py:40 (forward) | "
            "e1:0/1 e1:0/0 dtype /w/loss.py:12 (loss_fn)");
  EXPECT_EQ(scalar(*db, "SELECT detail FROM recompiles WHERE program_key = 'e1:0/1'"),
            "tensor 'logits' dtype: Float -> Half");
}

}  // namespace dynamo_compile_identity_test
}  // namespace rcf
