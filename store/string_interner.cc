#include "store/string_interner.h"

namespace rcf::store {

StringInterner::StringInterner(Database& db) {
  auto all = db.prepare("SELECT string_id, text FROM strings");
  while (all.step()) {
    int64_t id = all.int64(0);
    ids_.emplace(all.str(1), id);
    next_id_ = std::max(next_id_, id + 1);
  }
  insert_ = db.prepare("INSERT INTO strings(string_id, text) VALUES (?, ?)");
}

int64_t StringInterner::id(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  int64_t id = next_id_++;
  insert_.bind(1, id).bind(2, text);
  insert_.run();
  ids_.emplace(std::string(text), id);
  return id;
}

}  // namespace rcf::store
