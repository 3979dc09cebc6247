// Test helpers over an rcf database: query results as CSV text (for golden files and whole-table
// comparisons) and single values.
#pragma once

#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::testing {

// Rows of `sql` as CSV: a header line of column names, then one line per row. NULL is an empty
// field, an empty text is "", fields with a comma, quote, CR or LF are quoted (quotes doubled).
// Numbers are rendered by SQLite (REAL as %!.15g), so the text is deterministic.
std::string query_csv(store::Database& db, const std::string& sql);

// Every table of the database (sorted by name), each as "# table NAME" followed by query_csv of
// all its columns except those named in `skip_columns`, rows ordered by every column.
std::string dump_tables(store::Database& db, const std::vector<std::string>& skip_columns = {
                                                 "ingested_at", "created_at"});

// dump_tables with every `*_sid` column shown as its text, every source_id as its source's path,
// no table's own integer id, and no strings table (a text is shown where it is used): two stores
// that interned the same texts in another order, or wrote rows in another order, dump the same.
std::string dump_tables_by_text(store::Database& db,
                                const std::vector<std::string>& skip_columns = {"ingested_at",
                                                                                "created_at"});

// First column of the first row of `sql` as text ("<NULL>" for NULL, "<no row>" for no row).
std::string scalar(store::Database& db, const std::string& sql);

// First column of every row of `sql`.
std::vector<std::string> column(store::Database& db, const std::string& sql);

// Replaces every occurrence of `from` in `text` by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to);

}  // namespace rcf::testing
