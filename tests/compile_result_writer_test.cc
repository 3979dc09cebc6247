// CompileResultWriter: a run's attributed compiles written on a writer thread, in order, with
// errors handed back to the caller.
#include "store/compile_result_writer.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "store/store.h"
#include "tests/support/temp_files.h"
#include "util/error.h"

namespace rcf::store {
namespace compile_result_writer_test {

AttributedCompile compile(int64_t ordinal) {
  AttributedCompile c;
  c.ordinal = ordinal;
  c.site = "train.py:10 (step)";
  c.program_key = "0/" + std::to_string(ordinal - 1);
  c.kind = "dynamo";
  c.evidence_kind = "compilation_metrics";
  c.cause = ordinal == 1 ? "first_compile" : "shape";
  c.confidence = "high";
  if (ordinal > 1) {
    c.prev_program_key = "0/" + std::to_string(ordinal - 2);
    c.detail =
        "tensor 'x' dim 0: " + std::to_string(ordinal) + " -> " + std::to_string(ordinal + 1);
    c.subject = "x";
    c.primary_reason = "tensor 'L['x']' size mismatch at index 0";
  }
  return c;
}

class CompileResultWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = store::open_store(tmp_.file("rcf.db"), store::OpenMode::kCreateOrWrite);
    db_->exec("INSERT INTO run_table(run_id, lane, run, created_at) VALUES (1, 'l', 'r', 'now')");
  }
  std::string scalar(const std::string& sql) {
    auto st = db_->prepare(sql);
    return st.step() ? std::string(st.text(0)) : "<none>";
  }
  testing::TempDir tmp_;
  std::unique_ptr<store::Database> db_;
};

TEST_F(CompileResultWriterTest, WritesEveryCompileInOrderAcrossBatches) {
  store::StringInterner strings(*db_);
  CompileResultWriter writer(*db_, strings, 1);
  const int n = 5000;  // several batches, so the writer thread lags the caller
  for (int i = 1; i <= n; ++i) writer.write(compile(i));
  writer.finish();
  EXPECT_EQ(scalar("SELECT count(*) FROM compiles"), std::to_string(n));
  EXPECT_EQ(scalar("SELECT count(*) FROM recompiles"), std::to_string(n - 1));
  // Rows were inserted in ordinal order, and the texts unique to a compile are in its rows.
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event WHERE compile_row <> ordinal"), "0");
  EXPECT_EQ(scalar("SELECT program_key || ' ' || prev_program_key || ' ' || detail FROM "
                   "recompiles WHERE ordinal = 4321"),
            "0/4320 0/4319 tensor 'x' dim 0: 4321 -> 4322");
  EXPECT_EQ(scalar("SELECT count(DISTINCT reason_sid) FROM attribution"), "1");
}

// After finish(), the writer tells the string id it gave each numbered site, as its rows carry.
TEST_F(CompileResultWriterTest, SiteIdsByNumberAreThoseOfTheRows) {
  store::StringInterner strings(*db_);
  CompileResultWriter writer(*db_, strings, 1);
  const int n = 1500;  // three batches
  for (int i = 1; i <= n; ++i) {
    AttributedCompile c = compile(i);
    c.site = "site " + std::to_string(i % 7);
    c.site_number = static_cast<uint32_t>(i % 7 + 1);
    writer.write(std::move(c));
  }
  writer.finish();
  EXPECT_EQ(writer.site_numbers(), 7u);
  for (uint32_t number = 1; number <= 7; ++number) {
    auto st = db_->prepare(
        "SELECT DISTINCT e.site_sid FROM compile_event e JOIN strings s ON s.string_id = "
        "e.site_sid WHERE s.text = ?");
    st.bind(1, "site " + std::to_string(number - 1));
    ASSERT_TRUE(st.step());
    EXPECT_EQ(writer.site_sid_of(number), st.int64(0)) << number;
    EXPECT_FALSE(st.step());  // one id per site
  }
  EXPECT_EQ(writer.site_sid_of(0), 0);
  EXPECT_EQ(writer.site_sid_of(8), 0);
}

TEST_F(CompileResultWriterTest, AWriteErrorIsRethrownByFinish) {
  // A constraint the second write of one ordinal breaks, on the writer thread.
  db_->exec("CREATE UNIQUE INDEX one_per_ordinal ON compile_event(run_id, ordinal)");
  store::StringInterner strings(*db_);
  CompileResultWriter writer(*db_, strings, 1);
  for (int i = 1; i <= 40; ++i) writer.write(compile(i));
  for (int i = 0; i < 2000; ++i) writer.write(compile(2));  // the caller is never blocked
  EXPECT_THROW(writer.finish(), Error);
  // Rows go 32 to a statement (INSERT OR FAIL: the rows before a bad one stay, the caller rolls
  // back): 1..32 are written, the statement with 33..40 and the first repeat of 2 fails at the
  // repeat, leaving 33..40, and nothing after it is written (not even the attributions of 33..40,
  // whose statement would have followed).
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event"), "40");
  EXPECT_EQ(scalar("SELECT max(ordinal) FROM compile_event"), "40");
  EXPECT_EQ(scalar("SELECT count(*) FROM attribution"), "32");
}

// compile_row is assigned by the writer: a second run's rows follow the first run's, and each
// attribution row belongs to its own compile (the partial last statement included).
TEST_F(CompileResultWriterTest, ASecondRunsRowsFollowTheFirstsWithTheirAttributions) {
  store::StringInterner strings(*db_);
  for (auto [run, count] : {std::pair<int64_t, int>{1, 1000}, {2, 45}}) {
    CompileResultWriter writer(*db_, strings, run);
    for (int i = 1; i <= count; ++i) writer.write(compile(i));
    writer.finish();
  }
  EXPECT_EQ(scalar("SELECT min(compile_row) || '..' || max(compile_row) FROM compile_event "
                   "WHERE run_id = 2"),
            "1001..1045");
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event e JOIN attribution a USING (compile_row) "
                   "WHERE a.cause = 'shape' AND a.detail = 'tensor ''x'' dim 0: ' || e.ordinal || "
                   "' -> ' || (e.ordinal + 1)"),
            std::to_string(999 + 44));
  EXPECT_EQ(scalar("SELECT count(*) FROM attribution"), "1045");
}

// before_first_write runs once, before the first row is numbered (here it empties the table, so
// numbering starts again at 1), and also when nothing is written.
TEST_F(CompileResultWriterTest, BeforeFirstWriteRunsOnceBeforeTheRowsAreNumbered) {
  store::StringInterner strings(*db_);
  {
    CompileResultWriter writer(*db_, strings, 1);
    for (int i = 1; i <= 100; ++i) writer.write(compile(i));
    writer.finish();
  }
  int calls = 0;
  CompileResultWriter writer(*db_, strings, 1, [&] {
    ++calls;
    db_->exec("DELETE FROM attribution");
    db_->exec("DELETE FROM compile_event");
  });
  for (int i = 1; i <= 1500; ++i) writer.write(compile(i));
  writer.finish();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(scalar("SELECT count(*) || ' ' || min(compile_row) || ' ' || max(compile_row) FROM "
                   "compile_event"),
            "1500 1 1500");

  int empty_calls = 0;
  CompileResultWriter nothing(*db_, strings, 2, [&] { ++empty_calls; });
  nothing.finish();
  EXPECT_EQ(empty_calls, 1);
}

// Destroyed without finish(): returns (does not wait for a batch that never comes) and writes
// what was handed over: the full batches of 512, in order; the last partial batch is dropped.
TEST_F(CompileResultWriterTest, DestroyedWithoutFinishWritesTheHandedOverBatches) {
  store::StringInterner strings(*db_);
  {
    CompileResultWriter writer(*db_, strings, 1);
    for (int i = 1; i <= 3000; ++i) writer.write(compile(i));
  }
  EXPECT_EQ(scalar("SELECT count(*) || ' ' || min(ordinal) || ' ' || max(ordinal) FROM "
                   "compile_event"),
            "2560 1 2560");  // 5 batches of 512; 440 compiles never handed over
  EXPECT_EQ(scalar("SELECT count(*) FROM compile_event WHERE compile_row <> ordinal"), "0");
  EXPECT_EQ(scalar("SELECT count(*) FROM compiles"), "2560");
}

}  // namespace compile_result_writer_test
}  // namespace rcf::store
