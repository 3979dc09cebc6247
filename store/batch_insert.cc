#include "store/batch_insert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace rcf::store {

BatchInsert::BatchInsert(Database& db, std::string table, std::vector<std::string> columns,
                         std::vector<BatchInsert*>* group, int rows_per_statement)
    : db_(db),
      table_(std::move(table)),
      columns_(std::move(columns)),
      rows_per_statement_(static_cast<size_t>(rows_per_statement)) {
  if (group) group->push_back(this);
  row_ = "(" + std::string(columns_.size() * 2 - 1, ',') + ")";
  for (size_t i = 0; i < columns_.size(); ++i) row_[1 + 2 * i] = '?';
  // OR FAIL, not the default OR ABORT: a multi-row statement that may abort half-way inside a
  // transaction makes SQLite keep a statement journal, a copy of every existing page the
  // statement changes (the last leaf of each table and index), and past 64 KiB it goes to a temp
  // file. Re-analysing 1 M compiles wrote 4.7 GB of such copies through 600 000 pwrite calls, ten
  // times the rows themselves. With OR FAIL a failed row leaves the statement's earlier rows in
  // place; every caller rolls the whole transaction back on an error anyway.
  head_ = fmt::format("INSERT OR FAIL INTO {} ({}) VALUES ", table_, fmt::join(columns_, ","));
}

bool BatchInsert::has_column(std::string_view name) const {
  return std::find(columns_.begin(), columns_.end(), name) != columns_.end();
}

BatchInsert::Prepared& BatchInsert::multi() {
  if (!multi_) {
    std::string sql = head_;
    sql.reserve(head_.size() + rows_per_statement_ * (row_.size() + 1));
    for (size_t i = 0; i < rows_per_statement_; ++i) sql.append(i ? "," : "").append(row_);
    multi_.emplace(
        Prepared{db_.prepare(sql), std::vector<uint8_t>(columns_.size() * rows_per_statement_, 1)});
  }
  return *multi_;
}

BatchInsert::Prepared& BatchInsert::single() {
  if (!single_)
    single_.emplace(Prepared{db_.prepare(head_ + row_), std::vector<uint8_t>(columns_.size(), 1)});
  return *single_;
}

BatchInsert& BatchInsert::push(SqlValue v) {
  if (values_.capacity() == 0) values_.reserve(columns_.size() * rows_per_statement_);
  values_.push_back(std::move(v));
  if (values_.size() == columns_.size() * rows_per_statement_) {
    write(multi(), 0, rows_per_statement_);
    values_.clear();
  }
  return *this;
}

void BatchInsert::write(Prepared& insert, size_t first_value, size_t rows) {
  try {
    bind_values(insert, first_value, rows);
    insert.st.run_keeping_bindings();
    rows_written_ += static_cast<int64_t>(rows);
  } catch (...) {
    // The bindings are unknown after a failed bind or step: back to all NULL.
    insert.st.reset();
    insert.null_bound.assign(insert.null_bound.size(), 1);
    throw;
  }
}

// Binds the values of `rows` rows from values_[first_value]; a NULL only where the parameter
// holds a value from an earlier run.
void BatchInsert::bind_values(Prepared& insert, size_t first_value, size_t rows) {
  size_t n = rows * columns_.size();
  for (size_t i = 0; i < n; ++i) {
    const SqlValue& v = values_[first_value + i];
    int index = static_cast<int>(i + 1);
    const bool is_null = std::holds_alternative<std::monostate>(v);
    if (is_null) {
      if (!insert.null_bound[i]) insert.st.bind_null(index);
    } else if (auto* x = std::get_if<int64_t>(&v)) {
      insert.st.bind(index, *x);
    } else if (auto* d = std::get_if<double>(&v)) {
      insert.st.bind(index, *d);
    } else if (auto* t = std::get_if<std::string>(&v)) {
      insert.st.bind_unowned(index, *t);  // values_ holds it until after the run
    } else {
      insert.st.bind_unowned(index, std::get<std::string_view>(v));
    }
    insert.null_bound[i] = is_null;
  }
}

void BatchInsert::flush() {
  size_t rows = values_.size() / columns_.size();
  if (rows == 0) return;
  Prepared& one_row = single();
  for (size_t r = 0; r < rows; ++r) write(one_row, r * columns_.size(), 1);
  values_.clear();
}

}  // namespace rcf::store
