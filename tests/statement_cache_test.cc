// A connection keeps its prepared statements for the next prepare of the same text
// (store/statement_cache.h): a kept statement starts again from its beginning with no bindings,
// follows schema changes, and is never shared by two users at once.
#include "store/statement_cache.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store/database.h"
#include "tests/support/temp_files.h"
#include "util/error.h"

namespace rcf {
namespace statement_cache_test {

using store::Database;
using store::Statement;
using store::StatementCache;

// A fresh store with a table of three rows.
class StatementCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.emplace(dir_.path() + "/s.db", Database::Mode::kReadWrite);
    db_->exec("CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (1), (2), (3);");
  }
  testing::TempDir dir_;
  std::optional<Database> db_;
};

TEST_F(StatementCacheTest, AStatementEndedHalfWayIsTakenAgainFromItsFirstRowWithNoBindings) {
  const std::string sql = "SELECT a, ?1 FROM t ORDER BY a";
  {
    Statement s = db_->prepare(sql);
    s.bind(1, int64_t{42});
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.int64(0), 1);
    EXPECT_EQ(s.int64(1), 42);
  }  // ended after its first row, with a binding
  EXPECT_EQ(db_->kept_statements(), 1u);
  Statement again = db_->prepare(sql);
  EXPECT_EQ(db_->kept_statements(), 0u);
  ASSERT_TRUE(again.step());
  EXPECT_EQ(again.int64(0), 1);
  EXPECT_TRUE(again.is_null(1));
  ASSERT_TRUE(again.step());
  EXPECT_EQ(again.int64(0), 2);
}

TEST_F(StatementCacheTest, TwoLiveStatementsOfOneTextAreTwoStatements) {
  const std::string sql = "SELECT a FROM t ORDER BY a";
  { Statement warm = db_->prepare(sql); }  // one kept
  Statement first = db_->prepare(sql);
  Statement second = db_->prepare(sql);
  EXPECT_EQ(db_->kept_statements(), 0u);
  ASSERT_TRUE(first.step());
  ASSERT_TRUE(first.step());
  ASSERT_TRUE(second.step());
  EXPECT_EQ(first.int64(0), 2);
  EXPECT_EQ(second.int64(0), 1);
}

TEST_F(StatementCacheTest, AKeptStatementFollowsTheTableItReadsWhenItIsMadeAgain) {
  const std::string sql = "SELECT * FROM t ORDER BY 1";
  {
    Statement s = db_->prepare(sql);
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.column_count(), 1);
  }
  db_->exec("DROP TABLE t; CREATE TABLE t(b TEXT, c INTEGER); INSERT INTO t VALUES ('x', 7);");
  Statement s = db_->prepare(sql);
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_count(), 2);
  EXPECT_EQ(s.text(0), "x");
  EXPECT_EQ(s.int64(1), 7);
}

TEST_F(StatementCacheTest, AStatementThatFailedIsUsableWhenTakenAgain) {
  db_->exec("CREATE TABLE u(a INTEGER PRIMARY KEY)");
  const std::string sql = "INSERT INTO u VALUES (?1)";
  db_->prepare(sql).bind(1, int64_t{1}).run();
  {
    Statement s = db_->prepare(sql);
    s.bind(1, int64_t{1});
    EXPECT_THROW(s.run(), Error);  // the key is taken
  }
  db_->prepare(sql).bind(1, int64_t{2}).run();
  Statement count = db_->prepare("SELECT count(*) FROM u");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.int64(0), 2);
}

TEST(StatementCache, KeepsOnlyWholeTextsUpToItsBoundAndNothingOnceClosed) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  {
    StatementCache cache(db);
    int rc = SQLITE_OK;
    sqlite3_stmt* s = cache.take("SELECT 1", rc);
    ASSERT_NE(s, nullptr);
    cache.give_back(s);
    EXPECT_EQ(cache.kept(), 1u);
    EXPECT_EQ(cache.take("SELECT 1", rc), s);  // the kept one
    EXPECT_EQ(cache.kept(), 0u);
    cache.give_back(s);
    EXPECT_EQ(cache.take("SELECT nonsense FROM nowhere", rc), nullptr);
    EXPECT_EQ(rc, SQLITE_ERROR);
    for (size_t i = 0; i < StatementCache::kMaxKept + 10; ++i) {
      const std::string sql = "SELECT " + std::to_string(i + 2);
      cache.give_back(cache.take(sql, rc));
    }
    EXPECT_EQ(cache.kept(), StatementCache::kMaxKept);
    sqlite3_stmt* late = cache.take("SELECT 1", rc);
    cache.close();
    EXPECT_EQ(cache.kept(), 0u);
    cache.give_back(late);  // finalized: the connection closes below
    EXPECT_EQ(cache.kept(), 0u);
  }
  EXPECT_EQ(sqlite3_close(db), SQLITE_OK);  // no statement of it is left
}

TEST_F(StatementCacheTest, ATextWithMoreAfterItsStatementIsNotKept) {
  // Only its first statement runs, as SQLite prepares it; kept, it would fill the cache under a
  // text that no later prepare looks up.
  {
    Statement s = db_->prepare("SELECT 1; SELECT 2");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.int64(0), 1);
  }
  EXPECT_EQ(db_->kept_statements(), 0u);
  { Statement s = db_->prepare("SELECT 1;"); }
  EXPECT_EQ(db_->kept_statements(), 1u);
}

// A text with no SQL in it (a comment) or with an error does not prepare: said at once, with the
// text, where stepping nothing would fail later.
TEST_F(StatementCacheTest, ATextWithNoStatementOrAnErrorIsSaidAtOnce) {
  try {
    db_->prepare("-- nothing here");
    ADD_FAILURE() << "a comment alone prepared";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the text holds no statement [-- nothing here]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(db_->prepare("SELEC nonsense"), Error);
  EXPECT_EQ(db_->kept_statements(), 0u);
}

}  // namespace statement_cache_test
}  // namespace rcf
