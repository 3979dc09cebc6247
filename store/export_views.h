// `rcf export`: the store's public views (every CREATE VIEW in sql/schema.sql, listed from
// sqlite_master so a new view is exported too) written as a dataset that warehouse engines load
// (docs/export.md): Hive-style partitions DIR/view=NAME/lane=L/run=R/part-N.ndjson.gz (views
// without lane and run columns: DIR/view=NAME/part-0.ndjson.gz), DIR/schema.json and
// DIR/README.md. The dataset is built in a temporary sibling directory and renamed into place,
// so DIR holds a whole export or nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/database.h"

namespace rcf::store {

enum class ExportFormat { kNdjson, kCsv };

struct ExportedColumn {
  std::string name;
  std::string sqlite_type;  // declared type as SQLite reports it for the view; "" when none
  std::string json_type;    // observed: integer, number, string, mixed, or null (no value seen)
  bool partition_key = false;
};

// A partition directory whose name was cut to the file-name limit (partition_dir_name).
struct ShortenedPartition {
  std::string key;        // lane or run
  std::string value;      // the whole value (valid UTF-8)
  std::string directory;  // KEY=PREFIX~HASH
};

struct ExportedView {
  std::string name;
  std::vector<ExportedColumn> columns;  // in the view's order, partition keys included
  bool partitioned = false;             // by lane and run
  int64_t rows = 0;
  int64_t partitions = 0;  // lane/run directories (0 for an unpartitioned view)
  int64_t files = 0;
  std::vector<ShortenedPartition> shortened;  // in the order they were written
};

struct ExportResult {
  std::string out_dir;
  std::vector<ExportedView> views;  // by name
};

// Throws rcf::Error when `out_dir` exists and is not an empty directory (an export never writes
// over anything, a store included), when its parent does not exist, or when a write fails; the
// temporary directory is removed then.
ExportResult export_views(Database& db, const std::string& out_dir, ExportFormat format);

}  // namespace rcf::store
