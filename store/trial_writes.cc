#include "store/trial_writes.h"

#include <sqlite3.h>

#include "util/error.h"

namespace rcf::store {

TrialWrites::TrialWrites(Database& db) : db_(db) {
  if (sqlite3_get_autocommit(db_.handle()))
    throw Error("internal: writes to undo need a transaction to undo them in");
  db_.exec("SAVEPOINT trial_writes");
}

TrialWrites::~TrialWrites() {
  try {
    db_.exec("ROLLBACK TO trial_writes");
    db_.exec("RELEASE trial_writes");
  } catch (const Error&) {
    // The transaction is gone (SQLite rolled it back on an I/O or full-disk error).
  }
}

}  // namespace rcf::store
