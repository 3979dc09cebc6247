#include "store/read_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "util/error.h"

namespace rcf::store {

namespace {

bool is_bare_name(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string_view trimmed(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

// Whether `tail` (what SQLite left after the first statement) holds another statement: anything
// but white space, semicolons and comments.
bool holds_statement(std::string_view tail) {
  size_t i = 0;
  while (i < tail.size()) {
    const char c = tail[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == ';') {
      ++i;
    } else if (tail.substr(i, 2) == "--") {
      const size_t end = tail.find('\n', i);
      i = end == std::string_view::npos ? tail.size() : end + 1;
    } else if (tail.substr(i, 2) == "/*") {
      const size_t end = tail.find("*/", i + 2);
      i = end == std::string_view::npos ? tail.size() : end + 2;
    } else {
      return true;
    }
  }
  return false;
}

// Checks the one statement of `sql` before it runs: it prepares, it is alone, and it reads.
void check_read_only(Database& db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc =
      sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &stmt, &tail);
  const bool read_only = stmt != nullptr && sqlite3_stmt_readonly(stmt) != 0;
  const bool empty = stmt == nullptr;
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK)
    throw Error(
        fmt::format("query: SQLite cannot prepare the statement: {}", sqlite3_errmsg(db.handle())));
  if (empty) throw Error("query: no SQL statement given (a view name or one SELECT)");
  if (tail != nullptr && holds_statement(std::string_view(tail)))
    throw Error("query: more than one SQL statement given; run one at a time");
  if (!read_only)
    throw Error(
        "query: only statements that read are run (SELECT, WITH, read-only PRAGMA); "
        "rcf query never changes a store");
}

}  // namespace

std::string read_query_sql(Database& db, std::string_view sql_or_name) {
  const std::string_view text = trimmed(sql_or_name);
  if (!is_bare_name(text)) return std::string(text);
  auto lookup = db.prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('view', 'table') AND name = ?1 "
      "COLLATE NOCASE");
  lookup.bind(1, text);
  if (lookup.step()) return fmt::format("SELECT * FROM \"{}\"", lookup.str(0));
  auto views = db.prepare("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name");
  std::string names;
  while (views.step()) names += (names.empty() ? "" : ", ") + views.str(0);
  throw Error(
      fmt::format("query: the store has no view or table named '{}' (public views: {}; "
                  "docs/schema.md)",
                  text, names));
}

void run_read_query(Database& db, std::string_view sql_or_name,
                    const std::function<void(const std::vector<std::string>&)>& on_columns,
                    const std::function<void(const Statement&)>& on_row) {
  const std::string sql = read_query_sql(db, sql_or_name);
  check_read_only(db, sql);
  auto stmt = db.prepare(sql);
  std::vector<std::string> columns;
  for (int i = 0; i < stmt.column_count(); ++i) columns.push_back(stmt.column_name(i));
  on_columns(columns);
  while (stmt.step()) on_row(stmt);
}

}  // namespace rcf::store
