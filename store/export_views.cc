#include "store/export_views.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "store/export_format.h"
#include "store/schema.h"
#include "util/error.h"
#include "util/gzip_file.h"
#include "util/safe_text.h"

namespace rcf::store {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

namespace {

// ---- Where the dataset goes.

void check_out_dir(const fs::path& out) {
  std::error_code ec;
  fs::file_status status = fs::symlink_status(out, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status))
      throw Error(
          fmt::format("--out {} exists and is not a directory; an export never writes "
                      "over a file: name a new directory",
                      out.string()));
    if (!fs::is_empty(out, ec) || ec)
      throw Error(
          fmt::format("--out {} exists and is not empty; an export never writes over "
                      "files: name a new or empty directory",
                      out.string()));
  }
  fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!fs::is_directory(parent, ec))
    throw Error(
        fmt::format("--out {}: the directory {} does not exist", out.string(), parent.string()));
}

// A fresh directory beside `out`, so that the final rename stays on one file system.
fs::path make_staging_dir(const fs::path& out) {
  fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  std::string name = (parent / ("." + out.filename().string() + ".rcf-export-XXXXXX")).string();
  if (mkdtemp(name.data()) == nullptr)
    throw Error(fmt::format("cannot create a temporary directory in {}: {}", parent.string(),
                            std::strerror(errno)));
  // mkdtemp makes it private (0700); the dataset gets the modes a plain mkdir would give.
  mode_t mask = umask(0);
  umask(mask);
  chmod(name.c_str(), 0777 & ~mask);
  return name;
}

// ---- What the views are.

std::string quoted_identifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::vector<ExportedView> list_public_views(Database& db) {
  std::vector<ExportedView> views;
  auto names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name");
  while (names.step()) views.push_back({names.str(0), {}, false, 0, 0, 0, {}});
  for (auto& view : views) {
    auto info = db.prepare(fmt::format("PRAGMA table_info({})", quoted_identifier(view.name)));
    bool has_lane = false, has_run = false;
    while (info.step()) {
      std::string name = info.str(1);
      has_lane = has_lane || name == "lane";
      has_run = has_run || name == "run";
      view.columns.push_back({name, info.opt_str(2).value_or(""), "", false});
    }
    view.partitioned = has_lane && has_run;
    for (auto& column : view.columns)
      column.partition_key = view.partitioned && (column.name == "lane" || column.name == "run");
  }
  return views;
}

// Every column in the ORDER BY: rows whose order the view leaves open come out the same way on
// every export; a partitioned view by lane and run first, so each partition is one stretch.
std::string view_query(const ExportedView& view) {
  std::string order = view.partitioned ? "lane, run" : "";
  for (size_t i = 1; i <= view.columns.size(); ++i)
    order += fmt::format("{}{}", order.empty() ? "" : ", ", i);
  return fmt::format("SELECT * FROM {} ORDER BY {}", quoted_identifier(view.name), order);
}

// ---- Writing one view.

std::string partition_value(const Statement& row, int col) {
  return row.is_null(col) ? std::string(kHiveNullPartition) : hive_escape(row.text(col));
}

// One partition level's directory name; a shortened one is recorded in the view once.
std::string partition_dir(const Statement& row, int col, const char* key, ExportedView& view) {
  const std::string escaped = partition_value(row, col);
  std::string name = partition_dir_name(key, escaped);
  if (name.size() != std::string_view(key).size() + 1 + escaped.size()) {
    bool known = std::any_of(view.shortened.begin(), view.shortened.end(),
                             [&](const ShortenedPartition& s) { return s.directory == name; });
    if (!known) view.shortened.push_back({key, util::valid_utf8(row.text(col)), name});
  }
  return name;
}

// The part files of one view: one per partition directory, opened as the rows reach it.
class ViewWriter {
 public:
  ViewWriter(const fs::path& view_dir, ExportedView& view, ExportFormat format)
      : view_dir_(view_dir), view_(view), format_(format) {
    for (size_t i = 0; i < view.columns.size(); ++i) {
      if (view.columns[i].name == "lane" && view.partitioned) lane_col_ = static_cast<int>(i);
      if (view.columns[i].name == "run" && view.partitioned) run_col_ = static_cast<int>(i);
    }
    observed_.assign(view.columns.size(), 0);
  }

  void add_row(const Statement& row) {
    if (!part_ || (view_.partitioned && partition_dir(row) != current_dir_)) open_part(row);
    for (size_t i = 0; i < view_.columns.size(); ++i)
      observed_[i] |= 1u << row.value_type(static_cast<int>(i));
    part_->write(format_ == ExportFormat::kNdjson ? ndjson_line(row) : csv_line(row));
    ++view_.rows;
  }

  void finish() {
    // An unpartitioned view has its one part file even when empty, so readers find it.
    if (!part_ && !view_.partitioned) open_part_at(view_dir_);
    if (part_) part_->close();
    for (size_t i = 0; i < view_.columns.size(); ++i)
      view_.columns[i].json_type = observed_json_type(observed_[i]);
  }

 private:
  fs::path partition_dir(const Statement& row) const {
    return view_dir_ / store::partition_dir(row, lane_col_, "lane", view_) /
           store::partition_dir(row, run_col_, "run", view_);
  }

  void open_part(const Statement& row) {
    current_dir_ = view_.partitioned ? partition_dir(row) : view_dir_;
    if (view_.partitioned && !fs::exists(current_dir_)) ++view_.partitions;
    open_part_at(current_dir_);
  }

  // part-N: N counts the files already in the directory (two values that escape alike, such as
  // invalid UTF-8 replaced by U+FFFD, share a directory without overwriting each other).
  void open_part_at(const fs::path& dir) {
    if (part_) part_->close();
    fs::create_directories(dir);
    int index = files_in_dir_[dir.string()]++;
    std::string ext = format_ == ExportFormat::kNdjson ? ".ndjson.gz" : ".csv.gz";
    part_ = std::make_unique<util::GzipFile>((dir / fmt::format("part-{}{}", index, ext)).string());
    ++view_.files;
    if (format_ == ExportFormat::kCsv) part_->write(csv_header());
  }

  bool exported(size_t col) const { return !view_.columns[col].partition_key; }

  std::string ndjson_line(const Statement& row) const {
    ordered_json object = ordered_json::object();
    for (size_t i = 0; i < view_.columns.size(); ++i)
      if (exported(i)) object[view_.columns[i].name] = json_value(row, static_cast<int>(i));
    return object.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  }

  std::string csv_line(const Statement& row) const {
    std::string line;
    for (size_t i = 0; i < view_.columns.size(); ++i)
      if (exported(i)) line += (line.empty() ? "" : ",") + csv_field(row, static_cast<int>(i));
    return line + "\r\n";
  }

  std::string csv_header() const {
    std::string line;
    for (size_t i = 0; i < view_.columns.size(); ++i)
      if (exported(i)) line += (line.empty() ? "" : ",") + csv_text(view_.columns[i].name);
    return line + "\r\n";
  }

  static std::string observed_json_type(unsigned seen) {
    unsigned values = seen & ~(1u << SQLITE_NULL);
    if (values == 0) return "null";
    if (values == (1u << SQLITE_INTEGER)) return "integer";
    if ((values & ~((1u << SQLITE_INTEGER) | (1u << SQLITE_FLOAT))) == 0) return "number";
    if ((values & ~((1u << SQLITE_TEXT) | (1u << SQLITE_BLOB))) == 0) return "string";
    return "mixed";
  }

  fs::path view_dir_;
  ExportedView& view_;
  ExportFormat format_;
  int lane_col_ = -1, run_col_ = -1;
  std::vector<unsigned> observed_;
  std::map<std::string, int> files_in_dir_;
  fs::path current_dir_;
  std::unique_ptr<util::GzipFile> part_;
};

void export_view(Database& db, const fs::path& root, ExportedView& view, ExportFormat format) {
  ViewWriter writer(root / ("view=" + hive_escape(view.name)), view, format);
  auto rows = db.prepare(view_query(view));
  while (rows.step()) writer.add_row(rows);
  writer.finish();
}

// ---- The documents beside the data.

std::string format_name(ExportFormat format) {
  return format == ExportFormat::kNdjson ? "ndjson" : "csv";
}

std::string schema_json(const std::vector<ExportedView>& views, ExportFormat format) {
  ordered_json doc = {{"dataset", "rcf export"},
                      {"format_version", 1},
                      {"store_schema_version", kSchemaVersion},
                      {"format", format_name(format)},
                      {"compression", "gzip"},
                      {"views", ordered_json::array()}};
  for (const auto& view : views) {
    ordered_json columns = ordered_json::array();
    ordered_json keys = ordered_json::array();
    for (const auto& c : view.columns) {
      columns.push_back({{"name", c.name},
                         {"sqlite_type", c.sqlite_type},
                         {"json_type", c.json_type},
                         {"partition_key", c.partition_key}});
      if (c.partition_key) keys.push_back(c.name);
    }
    doc["views"].push_back({{"name", view.name},
                            {"path", "view=" + hive_escape(view.name)},
                            {"partition_keys", keys},
                            {"rows", view.rows},
                            {"partitions", view.partitions},
                            {"files", view.files},
                            {"columns", columns}});
    if (!view.shortened.empty()) {
      ordered_json names = ordered_json::array();
      for (const auto& s : view.shortened)
        names.push_back({{"key", s.key}, {"value", s.value}, {"directory", s.directory}});
      doc["views"].back()["shortened_partition_names"] = names;
    }
  }
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string readme(const std::vector<ExportedView>& views, ExportFormat format) {
  std::string ext = format == ExportFormat::kNdjson ? "ndjson.gz" : "csv.gz";
  std::string out = fmt::format(
      "# rcf export\n\n"
      "The public views of an rcf store (store schema version {}), one directory per view.\n"
      "Views with `lane` and `run` columns are partitioned Hive-style: "
      "`view=NAME/lane=L/run=R/part-N.{}`; the lane and run values are in the directory names "
      "(percent-encoded as Hive does), not in the rows. Other views: `view=NAME/part-0.{}`.\n"
      "Files are gzip-compressed {}. `schema.json` lists each view's columns in order (SQLite "
      "declared type and the JSON type observed), partition keys and row count.\n"
      "How BigQuery, Spark, Trino and DuckDB load it: docs/export.md in the rcf repository.\n\n"
      "| view | rows | partitioned |\n|---|---|---|\n",
      kSchemaVersion, ext, ext,
      format == ExportFormat::kNdjson ? "newline-delimited JSON (one object per line)"
                                      : "CSV (RFC 4180, header line, CRLF line ends)");
  for (const auto& view : views)
    out += fmt::format("| {} | {} | {} |\n", view.name, view.rows,
                       view.partitioned ? "lane, run" : "no");
  return out;
}

void write_text_file(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) throw Error(fmt::format("cannot write {}", path.string()));
}

ExportResult write_dataset(Database& db, const fs::path& staging, ExportFormat format) {
  ExportResult result;
  result.views = list_public_views(db);
  for (auto& view : result.views) export_view(db, staging, view, format);
  write_text_file(staging / "schema.json", schema_json(result.views, format));
  write_text_file(staging / "README.md", readme(result.views, format));
  return result;
}

}  // namespace

ExportResult export_views(Database& db, const std::string& out_dir, ExportFormat format) {
  fs::path out = fs::path(out_dir).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();  // "DIR/" names DIR
  check_out_dir(out);
  fs::path staging = make_staging_dir(out);
  try {
    ExportResult result = write_dataset(db, staging, format);
    fs::rename(staging, out);  // replaces an empty directory; fails if one appeared meanwhile
    result.out_dir = out.string();
    return result;
  } catch (const fs::filesystem_error& e) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw Error(fmt::format("export to {} failed: {}", out.string(), e.what()));
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
}

}  // namespace rcf::store
