// DynamoRowReader: a run's raw Dynamo rows, and only its own, whichever way its rows are found
// (a rowid range, the run_id index, the whole table for a store's only run).
#include "store/dynamo_row_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/support/temp_files.h"

namespace rcf::store {
namespace dynamo_row_reader_test {

class DynamoRowReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = open_store(tmp_.file("rcf.db"), OpenMode::kCreateOrWrite);
    db_->exec("INSERT INTO strings(string_id, text) VALUES (1, 'forward'), (2, 'train.py')");
  }
  void add_run(int64_t run) {
    db_->exec("INSERT INTO run_table(run_id, lane, run, created_at) VALUES (" +
              std::to_string(run) + ", 'l', 'r" + std::to_string(run) + "', 'now')");
    db_->exec(
        "INSERT INTO source(source_id, run_id, path, format, encoding, content_hash, bytes, "
        "lines, events, skipped, rejected, warnings, file_rank, ingested_at) VALUES (" +
        std::to_string(run) + ", " + std::to_string(run) + ", '/logs/rank" + std::to_string(run) +
        ".log', 'dynamo_text', 'plain', 'h', 0, 0, 0, 0, 0, 0, " + std::to_string(run) +
        ", 'now')");
  }
  // A compile row of `run` at `line` (its source is the run's), compile id 0/`compile`.
  void add_compile(int64_t run, int64_t line, const char* kind, int64_t compile = 0) {
    db_->exec(
        "INSERT INTO dynamo_compile_raw(run_id, source_id, line, rank, epoch, frame_id, "
        "frame_compile_id, attempt, ca_id, kind, co_name_sid, duration_ms) VALUES (" +
        std::to_string(run) + ", " + std::to_string(run) + ", " + std::to_string(line) +
        ", -1, 0, 0, " + std::to_string(compile) + ", 0, -1, '" + kind + "', 2, 1.5)");
  }
  std::vector<int64_t> own_compile_lines(int64_t run) {
    DynamoRowReader rows(*db_, run, only_run_in_store(*db_, run));
    std::vector<int64_t> lines;
    rows.each_own_compile([&](const DynamoRowReader::CompileRow& r) { lines.push_back(r.line); });
    return lines;
  }

  testing::TempDir tmp_;
  std::unique_ptr<Database> db_;
};

TEST_F(DynamoRowReaderTest, ReadsTheRunsOwnRowsWhereverTheyLie) {
  add_run(1);
  add_run(2);
  add_compile(1, 10, "forward");
  add_compile(1, 11, "backward");  // another compile's record: not a compile's own
  for (int64_t line : {20, 21, 22, 23}) add_compile(2, line, "forward");
  add_compile(1, 12, "recompile_block");  // run 1 ingested again after run 2
  EXPECT_FALSE(only_run_in_store(*db_, 1));
  // Run 1's rowid range is mostly run 2's rows (read through the run_id index), run 2's is its
  // own (read as a range).
  EXPECT_EQ(own_compile_lines(1), (std::vector<int64_t>{10, 12}));
  EXPECT_EQ(own_compile_lines(2), (std::vector<int64_t>{20, 21, 22, 23}));
  DynamoRowReader rows(*db_, 1, false);
  EXPECT_GE(rows.compile_rows(), 3u);
  EXPECT_EQ(rows.guard_failure_rows(), 0u);
  std::vector<DynamoRowReader::SourceRow> sources = rows.sources();
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0].path, "/logs/rank1.log");
  EXPECT_EQ(sources[0].file_rank, 1);
}

TEST_F(DynamoRowReaderTest, AStoresOnlyRunReadsEveryRowWithItsColumns) {
  add_run(1);
  add_compile(1, 10, "forward");
  add_compile(1, 11, "recompile_block", 1);
  ASSERT_TRUE(only_run_in_store(*db_, 1));
  DynamoRowReader rows(*db_, 1, true);
  EXPECT_EQ(rows.compile_rows(), 2u);
  std::vector<std::string> seen;
  rows.each_own_compile([&](const DynamoRowReader::CompileRow& r) {
    seen.push_back(std::string(r.kind) + " " + std::to_string(r.key.frame_compile_id) + " " +
                   std::to_string(r.co_name_sid.value_or(0)) + " " +
                   std::to_string(r.duration_ms.value_or(0)) + " " +
                   (r.start_us ? "start" : "no start"));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"forward 0 2 1.500000 no start",
                                            "recompile_block 1 2 1.500000 no start"}));
}

TEST_F(DynamoRowReaderTest, AReferenceTheCallerDeclinesIsNotHandedOver) {
  add_run(1);
  add_compile(1, 10, "referenced", 0);
  add_compile(1, 11, "referenced", 1);
  add_compile(1, 12, "referenced", 2);
  DynamoRowReader rows(*db_, 1, true);
  std::vector<int64_t> asked, taken;
  rows.each_referenced_compile(
      [&](const DynamoRowReader::Key& key, int64_t line) {
        asked.push_back(line);
        return key.frame_compile_id != 1;
      },
      [&](const DynamoRowReader::CompileRow& r) { taken.push_back(r.line); });
  EXPECT_EQ(asked, (std::vector<int64_t>{10, 11, 12}));
  EXPECT_EQ(taken, (std::vector<int64_t>{10, 12}));
}

TEST_F(DynamoRowReaderTest, TextsByIdOneAtATimeOrAllAtOnce) {
  add_run(1);
  DynamoRowReader rows(*db_, 1, true);
  EXPECT_EQ(rows.max_string_id(), 2);
  EXPECT_EQ(rows.string_text(2), "train.py");
  EXPECT_EQ(rows.string_text(7), "");  // no such id
  EXPECT_EQ(rows.string_text(1), "forward");
  std::vector<std::string> all;
  rows.each_string([&](int64_t id, std::string_view text) {
    all.push_back(std::to_string(id) + "=" + std::string(text));
  });
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::string>{"1=forward", "2=train.py"}));
}

}  // namespace dynamo_row_reader_test
}  // namespace rcf::store
