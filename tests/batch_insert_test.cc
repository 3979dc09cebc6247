// BatchInsert writes its rows in multi-row statements and a one-row tail, and a row that breaks a
// constraint throws an error naming it. The statements are INSERT OR FAIL (no statement journal,
// see store/batch_insert.cc): the rows before the bad one stay until the caller rolls back.
#include "store/batch_insert.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store/store.h"
#include "tests/support/db_dump.h"
#include "tests/support/temp_files.h"
#include "util/error.h"

namespace rcf::store {
namespace batch_insert_test {

TEST(BatchInsert, WritesFullStatementsThenTheTailInOrder) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  db->exec("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL, c REAL)");
  BatchInsert rows(*db, "t", {"a", "b", "c"}, nullptr, 4);
  std::string owned = "owned";
  for (int64_t i = 1; i <= 10; ++i) {
    rows.val(i);
    if (i % 2)
      rows.val(owned + std::to_string(i));
    else
      rows.val_unowned("unowned");
    rows.val(i * 0.5);
  }
  // Two statements of four rows are written; the last two wait for flush().
  EXPECT_EQ(testing::scalar(*db, "SELECT count(*) FROM t"), "8");
  rows.flush();
  EXPECT_EQ(testing::query_csv(*db, "SELECT a, b, c FROM t WHERE a >= 7 ORDER BY a"),
            "a,b,c\n7,owned7,3.5\n8,unowned,4.0\n9,owned9,4.5\n10,unowned,5.0\n");
}

TEST(BatchInsert, ABadRowThrowsAndLeavesEarlierRowsForTheCallerToRollBack) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  db->exec("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL)");
  db->exec("BEGIN");
  BatchInsert rows(*db, "t", {"a", "b"}, nullptr, 4);
  rows.val(1).val_unowned("one").val(2).val_unowned("two").val(3).val_unowned("three");
  try {
    rows.val(4).null();  // completes the statement: written now
    FAIL() << "a NULL in a NOT NULL column was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("NOT NULL constraint failed: t.b"), std::string::npos)
        << e.what();
  }
  // OR FAIL: the statement's rows before the bad one are in place (OR ABORT would have undone
  // them at the cost of a statement journal); the transaction is the unit that is undone.
  EXPECT_EQ(testing::scalar(*db, "SELECT group_concat(a) FROM t"), "1,2,3");
  db->exec("ROLLBACK");
  EXPECT_EQ(testing::scalar(*db, "SELECT count(*) FROM t"), "0");
}

// Parameters stay bound from one statement run to the next, and a NULL is bound only where the
// parameter held a value: a column that alternates between NULL and values, in the multi-row
// statement and in the one-row tail, must come out as written, never as an earlier run's value.
TEST(BatchInsert, ANullAfterAValueIsStoredAsNull) {
  testing::TempDir dir;
  auto db = open_store(dir.file("rcf.db"), OpenMode::kCreateOrWrite);
  db->exec("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER, d REAL)");
  // 11 rows: two statements of four, then a tail of three through the one-row statement. The
  // columns follow patterns of period 3, so each parameter of both statements sees a NULL after
  // a value, a value after a NULL, and a NULL after a NULL.
  BatchInsert rows(*db, "t", {"a", "b", "c", "d"}, nullptr, 4);
  std::string expected = "a,b,c,d\n";
  for (int64_t i = 1; i <= 11; ++i) {
    rows.val(i);
    if (i % 3 == 0)
      rows.null();
    else
      rows.val("t" + std::to_string(i));
    rows.val(i % 3 == 1 ? std::optional<int64_t>(i * 10) : std::nullopt);
    rows.val(i % 3 == 2 ? std::optional<double>(i * 0.5) : std::nullopt);
    expected += fmt::format("{},{},{},{}\n", i, i % 3 == 0 ? "" : "t" + std::to_string(i),
                            i % 3 == 1 ? std::to_string(i * 10) : "",
                            i % 3 == 2 ? fmt::format("{:.1f}", i * 0.5) : "");
  }
  rows.flush();
  EXPECT_EQ(testing::query_csv(*db, "SELECT a, b, c, d FROM t ORDER BY a"), expected);
}

}  // namespace batch_insert_test
}  // namespace rcf::store
