// Opening an rcf database: creation with the schema, version checks, connection settings.
#pragma once

#include <memory>
#include <string>

#include "store/database.h"

namespace rcf::store {

enum class OpenMode {
  kRead,           // the database must exist and be an rcf database of this version
  kCreateOrWrite,  // created with the schema when missing or empty; WAL mode
  kIngest,         // as kCreateOrWrite, but a store this call creates stays in rollback-journal
                   // mode for its first load, until switch_to_wal() (see store.cc)
};

// Throws rcf::Error with a message naming the path and the problem (missing, not an rcf
// database, schema version of another rcf, read-only location, ...).
std::unique_ptr<Database> open_store(const std::string& path, OpenMode mode);

// Puts a store in WAL mode (readers then work during an ingest), waiting at most `wait_ms` for
// other connections' locks; false if they held it all along (the next open for writing switches
// it). A no-op on a store already in WAL mode. Not inside a transaction.
bool switch_to_wal(Database& db, int wait_ms);

// SQLite's `PRAGMA data_version` of this connection: it moves when another connection commits a
// change to the store, and only then.
int64_t data_version(Database& db);

// The WHERE term of the partial index metric_fields on metric_sample(run_id, name_sid). A query
// uses that index only when its WHERE repeats this term word for word (SQLite does not prove that
// a narrower IN list implies it); narrow further with another term on `field`.
inline constexpr const char* kMetricFieldsTerm =
    "field IN ('TotalSamples', 'Accumulator', 'Value')";

// For an empty database before its first write: rcf's page size and page cache (store.cc).
void set_page_size_and_cache(Database& db);
// Writes the schema, its indexes and schema_info into an empty database, inside the caller's
// transaction.
void write_schema(Database& db);

// The statements create_indexes() runs.
std::string index_statements();
// Creates the indexes a store lacks (those of a store from an older rcf; a new store has them).
void create_indexes(Database& db);

}  // namespace rcf::store
