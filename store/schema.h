// The SQLite schema (sql/schema.sql, embedded at build time) and its version.
#pragma once

namespace rcf::store {
// Text of sql/schema.sql. Every table and column is documented there.
extern const char* const kSchemaSql;
// Bumped whenever sql/schema.sql changes incompatibly; stored in schema_info('schema_version').
inline constexpr int kSchemaVersion = 20;
// Page size of a store rcf creates (see open_store in store/store.cc).
inline constexpr int kPageSize = 16384;
// A connection's page cache, in KiB (SQLite's default).
inline constexpr int kCacheKiB = 2000;
}  // namespace rcf::store
