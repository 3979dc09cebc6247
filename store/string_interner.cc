#include "store/string_interner.h"

namespace rcf::store {
namespace {

// Bytes an entry costs beyond its text: its slots in the table (16 bytes, at most 3/4 full, and
// the table doubles) and its id.
constexpr size_t kEntryOverhead = 40;

}  // namespace

StringInterner::StringInterner(Database& db, size_t cache_bytes)
    : db_(db),
      cache_limit_(cache_bytes),
      find_(db.prepare("SELECT string_id FROM strings WHERE text = ?")),
      insert_(db.prepare("INSERT INTO strings(text) VALUES (?)")) {}

void StringInterner::forget_all() {
  numbers_.clear();
  ids_.clear();
  cached_bytes_ = 0;
}

int64_t StringInterner::id(std::string_view text) {
  const size_t cost = text.size() + kEntryOverhead;
  const bool cacheable = cost <= cache_limit_;  // a text larger than the cache is never cached
  if (cacheable) {
    // A lookup that threw after numbering its text left ids_ one short: start afresh.
    if (numbers_.size() != ids_.size()) forget_all();
    uint32_t number = numbers_.ordinal(text);
    if (number <= ids_.size()) return ids_[number - 1];
    // New to the cache, numbered now; its id is appended below.
    if (cached_bytes_ + cost > cache_limit_) {
      forget_all();
      numbers_.ordinal(text);
    }
    cached_bytes_ += cost;
  }
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
  if (cacheable) ids_.push_back(id);
  return id;
}

}  // namespace rcf::store
