// Opening an rcf database: creation with the schema, version checks, connection settings.
#pragma once

#include <memory>
#include <string>

#include "store/database.h"

namespace rcf::store {

enum class OpenMode {
  kRead,           // the database must exist and be an rcf database of this version
  kCreateOrWrite,  // created with the schema when missing or empty
};

// Throws rcf::Error with a message naming the path and the problem (missing, not an rcf
// database, schema version of another rcf, read-only location, ...).
std::unique_ptr<Database> open_store(const std::string& path, OpenMode mode);

// Creates the indexes (after a load, so the load itself does not maintain them).
void create_indexes(Database& db);

}  // namespace rcf::store
