// `rcf query` (docs/python.md, docs/usage.md): one read-only SQL statement over a store, or every
// row of a public view or table named by itself, handed to a callback row by row. Nothing here
// writes: the statement must be one that SQLite says leaves the database as it is
// (sqlite3_stmt_readonly), and the store is opened read-only by the caller.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace rcf::store {

// `sql_or_name` as the SQL to run: a bare name (letters, digits, `_`) of a view or table of the
// store becomes `SELECT * FROM "name"`; any other text is taken as SQL. Throws rcf::Error for a
// bare name that names nothing in the store (the message lists the public views).
std::string read_query_sql(Database& db, std::string_view sql_or_name);

// Runs `sql_or_name` (read_query_sql): `on_columns` once with the result's column names, then
// `on_row` for each row (the statement's current row). Throws rcf::Error for SQL that does not
// prepare, holds more than one statement, or would write.
void run_read_query(Database& db, std::string_view sql_or_name,
                    const std::function<void(const std::vector<std::string>&)>& on_columns,
                    const std::function<void(const Statement&)>& on_row);

}  // namespace rcf::store
