// A store that does not exist yet, created by the command that fills it (docs/performance.md,
// "Small logs"). It is written under a temporary name beside its final path, with no syncs and
// no journal file. That file starts as the build's image of an empty store (store/store_image.h)
// when one is given and fits this schema, else empty, the schema written in the rows'
// transaction; the rows follow in one transaction. Then it is switched to WAL mode, closed,
// synced once and given its final name, which it takes only if nothing has that name by then.
// A crash or a kill before that leaves at most the temporary file (`PATH.rcf-new-HOST-PID`),
// which no command takes for a store; an error removes it.
//
// A store for up to 1 MiB of logs is built in memory instead (SQLite's memdb, from the image) and
// its file written once, at publish(): the load then makes no file reads and writes page by
// page (about 150 system calls for a 30 KB log, docs/performance.md "Small logs"). A crash or
// kill before publish() leaves nothing.
#pragma once

#include <memory>
#include <string>

#include "store/database.h"
#include "store/store_image.h"

namespace rcf::store {

class NewStore {
 public:
  // Null when something is at `path` (a store, an empty file, a dangling link), or when the
  // temporary name would be longer than a file name may be: that path is opened with open_store
  // as before. Otherwise the temporary file, with the schema written and the
  // transaction open: copied from `image` when it fits this schema and SQLite reads it, else
  // written by write_schema. Throws rcf::Error when the directory cannot be written.
  // `in_memory`: built in memory (above) when `image` fits this schema; its rows must fit in
  // memory (the caller's inputs are small).
  static std::unique_ptr<NewStore> create(const std::string& path,
                                          const StoreImage* image = nullptr,
                                          bool in_memory = false);
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
  // Opens the temporary file for the load: one lock, no syncs, the transaction begun.
  void open_for_load();
  // The temporary file from `image`; false (and no file) when SQLite does not read it as a store
  // of this schema version.
  bool start_from_image(const StoreImage& image);
  // The store in memory from `image`; false when SQLite does not read it as a store of this
  // schema version.
  bool start_in_memory(const StoreImage& image);
  // The settings of the load and its transaction, on the open connection.
  void begin_load();
  // Whether the open connection holds a store of this schema version.
  bool holds_this_schema();
  // publish()'s write of a store built in memory: the temporary file, whole and synced, in WAL
  // mode.
  void write_from_memory();

  std::string path_;
  std::string temp_path_;
  std::unique_ptr<Database> db_;
  bool published_ = false;
  bool in_memory_ = false;
};

// True for the temporary file of a NewStore (one being written, or left by a killed command):
// never read as a log.
bool is_new_store_temp_file(const std::string& path);

}  // namespace rcf::store
