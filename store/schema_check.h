// A store rcf did not create is bad input until shown otherwise: a view named like a table can
// run an endless recursive query, a trigger runs on every write. Before anything else reads it,
// its schema (every table, view, index and trigger, by name and SQL) is compared with the one
// this rcf creates (docs/bad_input.md).
#pragma once

#include <string>

#include "store/database.h"

namespace rcf::store {

// Throws rcf::Error naming `path` and what differs (up to a few differences) unless the store
// holds exactly the tables, views and triggers of sql/schema.sql and only indexes rcf creates
// (or created: an index this rcf lacks or dropped is a store of an older rcf, create_indexes()
// brings it up to date). SQL is compared without comments and with whitespace runs as one
// space. Reads only sqlite_master.
void check_schema_matches(Database& db, const std::string& path);

// `sql` without comments, and with every run of whitespace outside string literals one space.
std::string normalized_sql(std::string_view sql);

}  // namespace rcf::store
