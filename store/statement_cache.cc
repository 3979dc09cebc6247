#include "store/statement_cache.h"

namespace rcf::store {

StatementCache::~StatementCache() {
  close();
}

sqlite3_stmt* StatementCache::take(std::string_view sql, int& rc) {
  rc = SQLITE_OK;
  if (!closed_) {
    auto it = kept_.find(std::string(sql));
    if (it != kept_.end() && !it->second.empty()) {
      sqlite3_stmt* stmt = it->second.back();
      it->second.pop_back();
      --kept_count_;
      return stmt;
    }
  }
  sqlite3_stmt* stmt = nullptr;
  rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                          &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return nullptr;
  }
  return stmt;
}

void StatementCache::give_back(sqlite3_stmt* stmt) {
  if (!stmt) return;
  if (closed_ || kept_count_ >= kMaxKept) {
    sqlite3_finalize(stmt);
    return;
  }
  sqlite3_reset(stmt);  // its last error, if any, was reported when it happened
  sqlite3_clear_bindings(stmt);
  kept_[sqlite3_sql(stmt)].push_back(stmt);
  ++kept_count_;
}

void StatementCache::close() {
  for (auto& [text, stmts] : kept_)
    for (sqlite3_stmt* stmt : stmts) sqlite3_finalize(stmt);
  kept_.clear();
  kept_count_ = 0;
  closed_ = true;
}

}  // namespace rcf::store
