// The layers of sql/schema.sql, read from the schema text itself: the raw tables are the tables
// created before its "Derived tables" heading (what ingest writes; everything after it the
// analysis rebuilds from them). A table added to a section joins its layer with no list to keep.
#pragma once

#include <string>
#include <vector>

namespace rcf::store {

// Names of the raw tables, bookkeeping included (schema_info, strings, run_table, source), in the
// order the schema creates them: a table comes after the tables it references.
const std::vector<std::string>& raw_tables();

}  // namespace rcf::store
