// A thin RAII layer over sqlite3: a connection and prepared statements. Errors throw rcf::Error
// with SQLite's message and the statement that failed.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/statement_cache.h"

namespace rcf::store {

// The time a statement may run (from its first step to its last) and the path named when it runs
// out: a store from elsewhere must not make rcf spin until a CI runner's timeout (a view over an
// endless recursive query). SQLite's progress handler checks it (docs/bad_input.md).
struct QueryBudget {
  std::chrono::milliseconds limit;
  std::chrono::steady_clock::time_point deadline;
  std::string path;
};

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view sql, QueryBudget* budget = nullptr);
  // One of `cache`'s statements of `sql` (Database::prepare): given back to it when this ends.
  Statement(std::shared_ptr<StatementCache> cache, sqlite3* db, std::string_view sql,
            QueryBudget* budget);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite. Text is copied by SQLite (SQLITE_TRANSIENT).
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind_null(int index);
  // NULL for empty text, so that "not known" stays NULL in the tables.
  Statement& bind_or_null(int index, std::string_view text) {
    return text.empty() ? bind_null(index) : bind(index, text);
  }
  // Text SQLite does not copy (SQLITE_STATIC), for bulk inserts: `text` must stay valid and
  // unchanged until the statement is run or reset (run() and reset() clear every binding).
  Statement& bind_unowned(int index, std::string_view text);
  Statement& bind_unowned_or_null(int index, std::string_view text) {
    return text.empty() ? bind_null(index) : bind_unowned(index, text);
  }
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, bool value) { return bind(index, static_cast<int64_t>(value)); }

  // Steps once: true when a row is available, false when done.
  bool step();
  // Runs to completion (for statements without results) and resets.
  void run();
  void reset();
  // run() without clearing the bindings: for a caller that tracks them and binds, before the
  // next run, every parameter it wants other than its value now (store/batch_insert.h). An
  // unowned text stays bound but is never read again unless the statement is run with it.
  void run_keeping_bindings();

  bool is_null(int col) const;
  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL: the storage class of
  // the value in column `col` (SQLite columns are dynamically typed).
  int value_type(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;
  // Text of column `col`; the view is valid until the next step()/reset() of this statement.
  std::string_view text(int col) const;
  std::string str(int col) const { return std::string(text(col)); }
  std::optional<int64_t> opt_int64(int col) const;
  std::optional<double> opt_real(int col) const;
  std::optional<std::string> opt_str(int col) const;
  int column_count() const;
  std::string column_name(int col) const;

 private:
  void check(int rc, const char* what);
  // Finalizes the statement, or gives it back to the cache it came from.
  void release();
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  // Set when the statement came from a cache and its text is the whole of what was asked for.
  std::shared_ptr<StatementCache> cache_;
  QueryBudget* budget_ = nullptr;
  std::chrono::steady_clock::time_point started_;  // the first step of this execution
};

class Database {
 public:
  // kImmutable: read-only, and SQLite assumes nobody changes the file meanwhile (no locks, no
  // -shm file): for databases in read-only directories.
  enum class Mode { kReadOnly, kReadWrite, kImmutable };
  // How long a connection waits for another process's lock before failing.
  static constexpr int kDefaultBusyTimeoutMs = 30000;
  // A statement's time budget. The longest statements of a large store (an index over 1 M
  // compiles, deleting a run's derived rows) take seconds.
  static constexpr std::chrono::milliseconds kQueryTimeLimit{300000};
  // SQLite's heap, all connections together (sqlite3_hard_heap_limit64): a store's page caches
  // are a few MB, and sorts larger than the cache spill to temporary files.
  static constexpr int64_t kHeapLimitBytes = int64_t{1} << 30;

  // Opens (creating in kReadWrite mode) the database at `path` with a busy timeout, so that a
  // second process waits for the first instead of failing; when the wait runs out, the error
  // says that another process holds the lock.
  Database(const std::string& path, Mode mode);
  // A database in this process's memory (SQLite's memdb), written nowhere: its file's bytes are
  // taken with file_image(). It starts as the `file_size` bytes that `fill` writes over zeros
  // and grows as SQLite needs. `path` names it in messages. Throws rcf::Error when SQLite does
  // not take the file.
  static std::unique_ptr<Database> in_memory(const std::string& path, size_t file_size,
                                             const std::function<void(char* file)>& fill);
  // An in_memory() database's file, as SQLite would have written it: valid until the next
  // statement or close(). Throws rcf::Error for a database on a file.
  std::string_view file_image();
  ~Database();
  Database(const Database&) = delete;
  // Closes the connection now (a database in WAL mode is checkpointed and its -wal file
  // removed); throws when a statement of it is still open. Nothing may be called after it.
  void close();
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);
  // A statement of `sql`, one kept from an earlier prepare of the same text when there is one.
  Statement prepare(std::string_view sql) { return Statement(statements_, db_, sql, &budget_); }
  // How many ended statements are kept for a later prepare of their text.
  size_t kept_statements() const { return statements_ ? statements_->kept() : 0; }
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* handle() { return db_; }
  const std::string& path() const { return path_; }
  void set_busy_timeout(int ms);
  int busy_timeout_ms() const { return busy_timeout_ms_; }
  // For tests: a shorter time budget, or another heap limit (process-wide; returns the old one).
  void set_query_time_limit(std::chrono::milliseconds limit) { budget_.limit = limit; }
  static int64_t set_heap_limit(int64_t bytes);

 private:
  explicit Database(const std::string& path);  // in_memory()'s: the memdb not filled yet
  // The settings of every connection (a busy timeout, extended result codes, the time budget).
  void configure();
  sqlite3* db_ = nullptr;
  std::shared_ptr<StatementCache> statements_;  // closed before the connection
  std::string path_;
  int busy_timeout_ms_ = kDefaultBusyTimeoutMs;
  QueryBudget budget_;
};

}  // namespace rcf::store
