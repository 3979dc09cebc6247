// Counts, on one connection, the rows deleted from the Dynamo raw tables (dynamo_compile_raw,
// guard_failure, graph_break, cache_outcome) and the progress lines with a time (step_marker), so
// that a copy of those rows kept between analyses (analysis/dynamo_record_cache.h,
// analysis/kept_step_lines.h) can tell that rows it read may be gone, or replaced by other
// rows under the same rowids (SQLite gives a new row the largest rowid + 1: a source deleted and
// read again may take the rowids of the rows it had). Counted by TEMP triggers, which only this
// connection's statements fire and which a rollback undoes together with the deletions; what
// another connection commits moves `PRAGMA data_version` instead (store/store.h).
#pragma once

#include <cstdint>
#include <optional>

#include "store/database.h"

namespace rcf::store {

// Starts counting on `db` (idempotent). Outside a transaction: a counter created inside one that
// is rolled back would be gone, and the deletions after it uncounted.
void count_raw_row_deletions(Database& db);

// The rows deleted so far on `db` since count_raw_row_deletions, nullopt when it does not count.
std::optional<int64_t> raw_row_deletions(Database& db);
// The step_marker rows deleted so far on `db` (with or without a time), nullopt when it does not
// count.
std::optional<int64_t> step_marker_deletions(Database& db);

}  // namespace rcf::store
