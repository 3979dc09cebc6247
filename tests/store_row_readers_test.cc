// The row readers analysis loads a run from (store/xla_row_reader.h, store/step_row_reader.h,
// store/source_pair_reader.h, the linkable modules of store/hlo_module_queries.h), on the
// synthetic torch_xla bundle (fixtures/xla_bundle/README.md: three compiles A, B, C; A and C end
// a step, B is a `.item()` sync; the saved graph holds A's HLO).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "store/hlo_module_queries.h"
#include "store/source_pair_reader.h"
#include "store/step_row_reader.h"
#include "store/xla_row_reader.h"
#include "tests/support/ingested_store.h"
#include "tests/support/temp_files.h"

namespace rcf {
namespace store_row_readers_test {

class StoreRowReaders : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    testing::ingest_logs(dir_->file("rcf.db"), {testing::fixture_path("xla_bundle")}, "xla", "r1");
    db_ = testing::read_store(dir_->file("rcf.db")).release();
  }
  static void TearDownTestSuite() {
    delete db_;
    delete dir_;
  }
  static constexpr int64_t kRun = 1;  // the store's first run
  static testing::TempDir* dir_;
  static store::Database* db_;
};

testing::TempDir* StoreRowReaders::dir_ = nullptr;
store::Database* StoreRowReaders::db_ = nullptr;

TEST_F(StoreRowReaders, XlaCompileBlocksComeInLogOrderWithTheirStepEndFlag) {
  std::vector<std::pair<int64_t, int64_t>> at;
  std::vector<bool> step_end;
  store::for_each_xla_compile_block(*db_, kRun, [&](const store::XlaCompileBlockRow& b) {
    at.emplace_back(b.source_id, b.line);
    step_end.push_back(b.step_end);
  });
  ASSERT_EQ(at.size(), 3u);
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
  EXPECT_EQ(step_end, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(store::executing_sources(*db_, kRun).size(), 1u);
}

TEST_F(StoreRowReaders, LinkableConstantValuesAreCutToThePrefixAsked) {
  auto values = [&](int chars) {
    std::vector<std::string> out;
    store::for_each_linkable_constant(*db_, kRun, chars, [&](const store::LinkableConstantRow& c) {
      out.emplace_back(c.value_prefix);
    });
    return out;
  };
  const std::vector<std::string> whole = values(256), cut = values(2);
  ASSERT_FALSE(whole.empty());
  ASSERT_EQ(cut.size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(cut[i], whole[i].substr(0, 2));
}

TEST_F(StoreRowReaders, StepRowsOfOneFileAreReadAlike) {
  size_t durations = 0, timings = 0;
  store::for_each_step_duration(*db_, kRun, [&](const store::StepDurationRow&) { ++durations; });
  store::for_each_step_timing(*db_, kRun, [&](const store::StepTimingRow&) { ++timings; });
  EXPECT_GT(durations, 0u);
  EXPECT_EQ(durations, timings);
}

TEST_F(StoreRowReaders, AnXlaRunHasNoDynamoLogsToPair) {
  EXPECT_FALSE(store::has_dynamo_text_and_trace_sources(*db_, kRun));
  size_t named = 0;
  store::for_each_named_compile(*db_, kRun, [&](const store::NamedCompileRow&) { ++named; });
  EXPECT_EQ(named, 0u);
}

}  // namespace store_row_readers_test
}  // namespace rcf
