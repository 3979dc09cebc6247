// A store that does not exist yet, created by the command that fills it (docs/performance.md,
// "Small logs"). It is written under a temporary name beside its final path, with no syncs and
// no journal file: schema and rows in one transaction. Then it is switched to WAL mode, closed,
// synced once and given its final name, which it takes only if nothing has that name by then.
// A crash or a kill before that leaves at most the temporary file (`PATH.rcf-new-HOST-PID`),
// which no command takes for a store; an error removes it.
#pragma once

#include <memory>
#include <string>

#include "store/database.h"

namespace rcf::store {

class NewStore {
 public:
  // Null when something is at `path` (a store, an empty file, a dangling link), or when the
  // temporary name would be longer than a file name may be: that path is opened with open_store
  // as before. Otherwise the temporary file, with the schema written and the
  // transaction open. Throws rcf::Error when the directory cannot be written.
  static std::unique_ptr<NewStore> create(const std::string& path);
  // Removes the temporary file unless publish() gave it its final name.
  ~NewStore();
  NewStore(const NewStore&) = delete;
  NewStore& operator=(const NewStore&) = delete;

  // The connection, its one transaction open (an IngestWriter joins it).
  Database& db() { return *db_; }
  // After the transaction's COMMIT: switches the store to WAL mode, closes it, syncs it and
  // gives it its final name. False when another process created a store at that path meanwhile
  // (or the file system cannot rename without replacing): this one is removed and the caller
  // writes into the store at that path instead, through open_store.
  bool publish();

 private:
  NewStore(std::string path, std::string temp_path);

  std::string path_;
  std::string temp_path_;
  std::unique_ptr<Database> db_;
  bool published_ = false;
};

// True for the temporary file of a NewStore (one being written, or left by a killed command):
// never read as a log.
bool is_new_store_temp_file(const std::string& path);

}  // namespace rcf::store
