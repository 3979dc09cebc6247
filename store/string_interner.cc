#include "store/string_interner.h"

namespace rcf::store {
namespace {

// Bytes an entry costs beyond its text: node, hash bucket, string header (an estimate).
constexpr size_t kEntryOverhead = 64;

}  // namespace

StringInterner::StringInterner(Database& db, size_t cache_bytes)
    : db_(db),
      cache_limit_(cache_bytes),
      find_(db.prepare("SELECT string_id FROM strings WHERE text = ?")),
      insert_(db.prepare("INSERT INTO strings(text) VALUES (?)")) {}

void StringInterner::remember(std::string_view text, int64_t id) {
  size_t cost = text.size() + kEntryOverhead;
  if (cached_bytes_ + cost > cache_limit_) {
    ids_.clear();
    cached_bytes_ = 0;
  }
  if (cost > cache_limit_) return;
  ids_.emplace(std::string(text), id);
  cached_bytes_ += cost;
}

int64_t StringInterner::id(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  ++table_lookups_;
  find_.bind(1, text);
  int64_t id = 0;
  if (find_.step()) {
    id = find_.int64(0);
    find_.reset();
  } else {
    find_.reset();
    insert_.bind(1, text);
    insert_.run();
    id = db_.last_insert_rowid();
  }
  remember(text, id);
  return id;
}

}  // namespace rcf::store
