// Interned strings: text -> strings.string_id. The whole table is loaded once per writer so
// lookups never hit SQLite; new strings are inserted as they appear.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "store/database.h"

namespace rcf::store {

class StringInterner {
 public:
  explicit StringInterner(Database& db);
  int64_t id(std::string_view text);
  // NULL (nullopt) for empty text, so that "not logged" stays NULL in the tables.
  std::optional<int64_t> id_or_null(std::string_view text) {
    if (text.empty()) return std::nullopt;
    return id(text);
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
  Statement insert_;
  int64_t next_id_ = 1;
};

}  // namespace rcf::store
