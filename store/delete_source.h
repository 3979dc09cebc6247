// Removing one source and every raw row it gave, for `rcf ingest` replacing an earlier version of
// a log that grew, and `rcf merge` replacing a shorter version of one (docs/merge.md).
#pragma once

#include <cstdint>

#include "store/database.h"

namespace rcf::store {

// Deletes the source row and the rows of every table with a source_id column (and the HLO rows
// of its modules), except compile_event, which the run's next analysis rebuilds. Call inside a
// write transaction; the caller re-analyses the source's run.
void delete_source_rows(Database& db, int64_t source_id);

}  // namespace rcf::store
