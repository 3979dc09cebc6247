// Interned strings: text -> strings.string_id. A bounded cache in front of the table's UNIQUE
// index keeps repeated texts (frames, causes, names) off SQLite while memory stays independent of
// the size of the database and of the input: when the cached texts pass the bound, the cache is
// dropped and refills with what repeats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "store/database.h"

namespace rcf::store {

class StringInterner {
 public:
  static constexpr size_t kDefaultCacheBytes = size_t{32} << 20;

  // `db` must outlive the interner.
  explicit StringInterner(Database& db, size_t cache_bytes = kDefaultCacheBytes);
  int64_t id(std::string_view text);
  // NULL (nullopt) for empty text, so that "not logged" stays NULL in the tables.
  std::optional<int64_t> id_or_null(std::string_view text) {
    if (text.empty()) return std::nullopt;
    return id(text);
  }
  // Lookups answered by SQLite (cache misses), for tests and benchmarks.
  int64_t table_lookups() const { return table_lookups_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  void remember(std::string_view text, int64_t id);

  Database& db_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
  size_t cached_bytes_ = 0;
  size_t cache_limit_;
  int64_t table_lookups_ = 0;
  Statement find_;
  Statement insert_;
};

}  // namespace rcf::store
