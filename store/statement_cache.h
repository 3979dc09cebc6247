// The prepared statements of one connection kept for the next prepare of the same text: a watch
// prepares the same few hundred statements at every batch, and compiling them was a fifteenth of
// its CPU (docs/performance.md, "What the share is made of, and four smaller batches").
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rcf::store {

// Owned by the Database and shared with its Statements, so that a statement that ends after its
// connection closed is finalized instead of kept. One thread at a time, as the connection.
class StatementCache {
 public:
  // Statements kept at most, all texts together: a statement's program is a few KB.
  static constexpr size_t kMaxKept = 256;

  explicit StatementCache(sqlite3* db) : db_(db) {}
  ~StatementCache();
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  // A statement of `sql`, reset with no bindings: a kept one when there is one, else newly
  // prepared (nullptr and SQLite's code in `rc` when that fails; nullptr and SQLITE_OK for a
  // text with no SQL in it, as sqlite3_prepare_v3 says).
  sqlite3_stmt* take(std::string_view sql, int& rc);
  // Ends the caller's use of `stmt`, whose text must be the whole of what it was taken for (one
  // taken for a text with more after its statement is finalized by its user instead): it is
  // reset, its bindings cleared, and kept for the next take() of that text; finalized when the
  // cache is full or closed.
  void give_back(sqlite3_stmt* stmt);
  // Finalizes every kept statement, before the connection closes; those given back later are
  // finalized then.
  void close();
  size_t kept() const { return kept_count_; }

 private:
  sqlite3* db_;
  bool closed_ = false;
  size_t kept_count_ = 0;
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> kept_;  // by the statement's text
};

}  // namespace rcf::store
