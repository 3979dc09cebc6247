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
#include <vector>

#include "store/database.h"
#include "util/text_table.h"

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
  void forget_all();

  Database& db_;
  // The cache: texts numbered by an open-addressed table over one arena (no allocation or node
  // per text), and their ids by that number - 1. Lookups are most of an ingest's and of an
  // analysis writer's time in the interner (a site per compile).
  util::TextTable numbers_;
  std::vector<int64_t> ids_;
  size_t cached_bytes_ = 0;
  size_t cache_limit_;
  int64_t table_lookups_ = 0;
  Statement find_;
  Statement insert_;
};

}  // namespace rcf::store
