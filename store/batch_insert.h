// Multi-row prepared inserts: rows are buffered and written `rows_per_statement` at a time with
// one `INSERT ... VALUES (...),(...),...` statement; the tail goes through a one-row statement.
// Texts are bound without a copy into SQLite: an owned text lives in the buffer until its row is
// written, an unowned one (val_unowned) must stay valid until then (at the latest, flush()).
// Both statements are prepared on first use: a writer holds an inserter for every table it may
// fill, and a small input fills few of them (preparing a 64-row statement parses its whole text).
// A row that breaks a constraint throws Error; the rows written before it, even those of the same
// statement, stay (INSERT OR FAIL, see batch_insert.cc): the caller rolls back its transaction.
// A statement's parameters stay bound from one run to the next, and a NULL is bound only where
// the parameter held a value: most columns of a wide raw table are NULL in most rows, and binding
// each one again (or clearing them all after each run) was a tenth of a writer thread's time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "store/database.h"

namespace rcf::store {

using SqlValue = std::variant<std::monostate, int64_t, double, std::string, std::string_view>;

class BatchInsert {
 public:
  static constexpr int kRowsPerStatement = 64;

  // `group`, when given, collects every inserter of an owner so that one loop flushes them all
  // (a forgotten flush would silently drop the tail rows). The inserter must not move.
  BatchInsert(Database& db, std::string table, std::vector<std::string> columns,
              std::vector<BatchInsert*>* group = nullptr,
              int rows_per_statement = kRowsPerStatement);
  BatchInsert(const BatchInsert&) = delete;
  BatchInsert& operator=(const BatchInsert&) = delete;

  // Appends one value of the current row; a row is complete after columns().size() values.
  BatchInsert& null() { return push(std::monostate{}); }
  BatchInsert& val(int64_t v) { return push(v); }
  BatchInsert& val(int v) { return push(static_cast<int64_t>(v)); }
  BatchInsert& val(bool v) { return push(static_cast<int64_t>(v)); }
  // A string literal would otherwise bind as val(bool), storing 1: say val_unowned("...").
  BatchInsert& val(const char*) = delete;
  BatchInsert& val(double v) { return push(v); }
  BatchInsert& val(std::string v) { return push(std::move(v)); }
  // Text kept by the caller until the row is written; NULL when empty with val_unowned_or_null.
  BatchInsert& val_unowned(std::string_view v) { return push(v); }
  BatchInsert& val_unowned_or_null(std::string_view v) { return v.empty() ? null() : push(v); }
  template <typename T>
  BatchInsert& val(const std::optional<T>& v) {
    return v ? val(*v) : null();
  }
  // Writes all buffered rows.
  void flush();
  size_t column_count() const { return columns_.size(); }
  const std::string& table() const { return table_; }
  bool has_column(std::string_view name) const;
  // Complete rows given so far, written or buffered (what a caller counts rows by).
  int64_t rows_appended() const {
    return rows_written_ + static_cast<int64_t>(values_.size() / columns_.size());
  }

 private:
  // A prepared insert and, per parameter, whether it is bound to NULL now (fresh: all are).
  struct Prepared {
    Statement st;
    std::vector<uint8_t> null_bound;  // bytes: a bit vector cost a fifth of the binding
  };

  BatchInsert& push(SqlValue v);
  Prepared& multi();
  Prepared& single();
  void write(Prepared& insert, size_t first_value, size_t rows);
  void bind_values(Prepared& insert, size_t first_value, size_t rows);

  Database& db_;
  std::string table_;
  std::vector<std::string> columns_;
  size_t rows_per_statement_;
  std::vector<SqlValue> values_;
  std::string head_;  // `INSERT OR FAIL INTO table (columns) VALUES `
  std::string row_;   // `(?,?,...)`
  std::optional<Prepared> multi_;
  std::optional<Prepared> single_;
  int64_t rows_written_ = 0;
};

}  // namespace rcf::store
