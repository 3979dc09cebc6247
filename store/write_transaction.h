// A write transaction on a store: BEGIN IMMEDIATE at construction, rolled back at destruction
// unless committed. For writers that are not the ingest writer (which holds its own), such as
// `rcf merge`: everything it writes becomes visible at commit() or not at all.
#pragma once

#include "store/database.h"
#include "util/error.h"

namespace rcf::store {

class WriteTransaction {
 public:
  explicit WriteTransaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
  ~WriteTransaction() {
    if (committed_) return;
    try {
      db_.exec("ROLLBACK");
    } catch (const Error&) {
      // SQLite may have rolled it back already (a disk error).
    }
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;

  void commit() {
    db_.exec("COMMIT");
    committed_ = true;
  }

 private:
  Database& db_;
  bool committed_ = false;
};

}  // namespace rcf::store
