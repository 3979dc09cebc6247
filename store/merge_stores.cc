#include "store/merge_stores.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "store/batch_insert.h"
#include "store/delete_source.h"
#include "store/duplicate_source.h"
#include "store/run_bundle.h"
#include "store/schema_layers.h"
#include "store/source_versions.h"
#include "store/string_interner.h"
#include "util/error.h"

namespace rcf::store {
namespace {

// Raw tables with rows of their own that are not copied like the others: the file's facts, the
// interned texts (re-interned through the *_sid columns that use them) and the runs (matched by
// lane and run).

// Tables whose rows can be megabytes (a module's every instruction): written one at a time.
int rows_per_statement(const std::string& table) {
  return table == "hlo_instruction_text" ? 1 : BatchInsert::kRowsPerStatement;
}

// What a column holds, and so how its value is carried into the output.
enum class Role {
  kCopy,       // a value: copied as it is
  kRun,        // run_id: the output run of the same lane and run
  kSource,     // source_id: the source's new id; rows of a skipped source are not copied
  kString,     // *_sid: the same text's id in the output's strings
  kNewModule,  // hlo_module.hlo_module_id: a new id
  kModule,     // hlo_module_id elsewhere: the module's new id
  kNewGroup,   // xla_execution_group.group_id: a new id
  kGroup,      // group_id elsewhere: the group's new id
  kRowId,      // another INTEGER PRIMARY KEY nothing references: SQLite assigns it
};

struct TablePlan {
  std::string table;
  std::vector<std::string> columns;  // every column, in table order
  std::vector<Role> roles;           // of each column
};

Role role_of(const std::string& table, const std::string& column, bool integer_key) {
  if (column == "run_id") return Role::kRun;
  if (column == "source_id") return Role::kSource;
  if (column == "hlo_module_id") return table == "hlo_module" ? Role::kNewModule : Role::kModule;
  if (column == "group_id") return table == "xla_execution_group" ? Role::kNewGroup : Role::kGroup;
  if (column.size() > 4 && column.ends_with("_sid")) return Role::kString;
  return integer_key ? Role::kRowId : Role::kCopy;
}

TablePlan plan_table(Database& db, const std::string& table) {
  TablePlan plan{table, {}, {}};
  auto info = db.prepare(fmt::format("PRAGMA table_info(\"{}\")", table));
  while (info.step()) {
    const bool integer_key = info.int64(5) > 0 && info.str(2) == "INTEGER";
    plan.columns.push_back(info.str(1));
    plan.roles.push_back(role_of(table, plan.columns.back(), integer_key));
  }
  // Rows are kept or dropped with their source (or module): a raw table with neither would be
  // copied whole on every merge. A bug in rcf, not bad input.
  if (std::none_of(plan.roles.begin(), plan.roles.end(),
                   [](Role r) { return r == Role::kSource || r == Role::kModule; }))
    throw std::logic_error(fmt::format("raw table {} has no source_id or hlo_module_id", table));
  return plan;
}

int64_t next_id(Database& db, const char* column, const char* table) {
  auto st = db.prepare(fmt::format("SELECT coalesce(max({}), 0) + 1 FROM {}", column, table));
  st.step();
  return st.int64(0);
}

// Shard ids -> output ids of one kind.
class IdMap {
 public:
  explicit IdMap(int64_t next) : next_(next) {}
  std::optional<int64_t> find(int64_t shard_id) const {
    auto it = ids_.find(shard_id);
    return it == ids_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  int64_t assign(int64_t shard_id) { return ids_[shard_id] = next_++; }
  void set(int64_t shard_id, int64_t out_id) { ids_[shard_id] = out_id; }

 private:
  int64_t next_;
  std::unordered_map<int64_t, int64_t> ids_;
};

// One shard's merge: which sources are new, then every raw table's rows of those sources.
class ShardCopy {
 public:
  ShardCopy(Database& out, StringInterner& strings, Database& shard, const std::string& path,
            const FilePrefixHashes& file)
      : out_(out),
        file_(file),
        strings_(strings),
        shard_(shard),
        path_(path),
        sources_(next_id(out, "source_id", "source")),
        modules_(next_id(out, "hlo_module_id", "hlo_module")),
        groups_(next_id(out, "group_id", "xla_execution_group")),
        shard_text_(shard.prepare("SELECT text FROM strings WHERE string_id = ?")) {}

  // Phase 1: each shard source is new (an id is assigned, its run found or created) or already
  // in the output (reported).
  void decide_sources(ShardMergeResult& result, std::vector<int64_t>& touched_runs);
  // Phase 2, called for each raw table in schema order: the rows of the new sources. Returns
  // how many were copied.
  int64_t copy_table(const TablePlan& plan, const std::string& select_sql, BatchInsert& insert);

 private:
  struct ShardRun {
    std::string lane, run, created_at;
  };
  std::optional<int64_t> existing_run(const ShardRun& run);
  const ShardRun& shard_run(int64_t shard_run_id) const;
  bool settle_versions(int64_t out_run_id, const std::string& path, const ShardRun& run,
                       const SourceVersion& incoming, ShardMergeResult& result,
                       std::vector<int64_t>& replaced);
  int64_t output_run(int64_t shard_run_id);
  void fold_run_facts(int64_t shard_run_id, int64_t out_run_id);
  bool kept(const Statement& row, const TablePlan& plan) const;
  void append_row(const Statement& row, const TablePlan& plan, BatchInsert& insert);
  int64_t mapped(const IdMap& ids, const Statement& row, int col, const TablePlan& plan) const;
  int64_t string_id(int64_t shard_sid);

  Database& out_;
  const FilePrefixHashes& file_;
  StringInterner& strings_;
  Database& shard_;
  const std::string& path_;
  std::unordered_map<int64_t, ShardRun> shard_runs_;
  IdMap runs_{0};  // set(), never assign(): runs are found or created by name
  IdMap sources_, modules_, groups_;
  std::unordered_map<int64_t, int64_t> string_ids_;
  Statement shard_text_;
};

std::optional<int64_t> ShardCopy::existing_run(const ShardRun& run) {
  return find_run_id(out_, run.lane, run.run);
}

const ShardCopy::ShardRun& ShardCopy::shard_run(int64_t shard_run_id) const {
  auto it = shard_runs_.find(shard_run_id);
  if (it == shard_runs_.end())
    throw Error(fmt::format("shard {} is damaged: a source names run {}, which it does not hold",
                            path_, shard_run_id));
  return it->second;
}

void ShardCopy::decide_sources(ShardMergeResult& result, std::vector<int64_t>& touched_runs) {
  auto runs = shard_.prepare("SELECT run_id, lane, run, created_at FROM run_table");
  while (runs.step()) shard_runs_[runs.int64(0)] = {runs.str(1), runs.str(2), runs.str(3)};
  auto list = shard_.prepare(
      "SELECT source_id, run_id, path, content_hash, file_rank, bytes, prefix_checkpoints, host "
      "FROM source ORDER BY source_id");
  auto duplicate = out_.prepare(kDuplicateSourceSql);
  std::vector<int64_t> replaced;  // output sources a longer version from the shard replaces
  while (list.step()) {
    const int64_t shard_run_id = list.int64(1);
    std::optional<int64_t> target = runs_.find(shard_run_id);
    if (!target) target = existing_run(shard_run(shard_run_id));
    duplicate.bind(1, list.text(3)).bind(2, list.opt_int64(4));
    duplicate.bind(3, target.value_or(-1)).bind(4, list.text(2));
    if (duplicate.step()) {
      result.skipped.push_back({list.str(2), duplicate.str(0), duplicate.str(1), duplicate.str(2)});
      duplicate.reset();
      continue;
    }
    duplicate.reset();
    const SourceVersion incoming{list.int64(0), list.int64(5), list.str(3), list.str(6),
                                 list.opt_str(7)};
    if (target &&
        !settle_versions(*target, list.str(2), shard_run(shard_run_id), incoming, result, replaced))
      continue;
    sources_.assign(list.int64(0));
    const int64_t run_id = output_run(shard_run_id);
    if (std::find(touched_runs.begin(), touched_runs.end(), run_id) == touched_runs.end())
      touched_runs.push_back(run_id);
    ++result.sources_added;
  }
  for (int64_t source_id : replaced) delete_source_rows(out_, source_id);
}

// A shard source against the output's sources with its path in its run: false when it is an
// earlier version of one of them (left out); an output source it is a longer version of goes to
// `replaced`; two that cannot be told apart are both kept, and reported.
bool ShardCopy::settle_versions(int64_t out_run_id, const std::string& path, const ShardRun& run,
                                const SourceVersion& incoming, ShardMergeResult& result,
                                std::vector<int64_t>& replaced) {
  // Standard input names no file: two reads of it are two inputs, as `rcf ingest` takes them.
  if (path == "-") return true;
  std::vector<int64_t> older;
  std::vector<GrownSource> replacing;  // reported only if the shard's source is kept
  for (const SourceVersion& kept : sources_at_path(out_, out_run_id, path)) {
    if (std::find(replaced.begin(), replaced.end(), kept.source_id) != replaced.end()) continue;
    const GrowthVerdict verdict = judge_growth(kept, incoming, path, file_);
    const bool shard_longer = verdict.kind == GrowthVerdict::kSecondGrew;
    if (verdict.kind == GrowthVerdict::kUndecided) {
      result.undecided.push_back({path, run.lane, run.run, verdict.why});
      continue;
    }
    if (verdict.kind == GrowthVerdict::kUnrelated) continue;
    GrownSource grown{.path = path,
                      .lane = run.lane,
                      .run = run.run,
                      .shorter_bytes = shard_longer ? kept.bytes : incoming.bytes,
                      .longer_bytes = shard_longer ? incoming.bytes : kept.bytes,
                      .compared_bytes = verdict.compared_bytes,
                      .by_file = verdict.by_file,
                      .shard_longer = shard_longer};
    if (!shard_longer) {
      result.grown.push_back(std::move(grown));
      return false;
    }
    older.push_back(kept.source_id);
    replacing.push_back(std::move(grown));
  }
  replaced.insert(replaced.end(), older.begin(), older.end());
  result.grown.insert(result.grown.end(), replacing.begin(), replacing.end());
  return true;
}

// The output run of a shard run that receives a source: found by lane and run, else created.
int64_t ShardCopy::output_run(int64_t shard_run_id) {
  if (auto known = runs_.find(shard_run_id)) return *known;
  const ShardRun& run = shard_run(shard_run_id);
  std::optional<int64_t> id = existing_run(run);
  if (!id) {
    auto insert = out_.prepare("INSERT INTO run_table(lane, run, created_at) VALUES (?, ?, ?)");
    insert.bind(1, run.lane).bind(2, run.run).bind(3, run.created_at);
    insert.run();
    id = out_.last_insert_rowid();
  }
  runs_.set(shard_run_id, *id);
  fold_run_facts(shard_run_id, *id);
  return *id;
}

// A run split over hosts: it was created when its first part was (the earliest created_at), and
// its bundle has every key a part knows (a key both know keeps the output's value, as a logged
// version fills only a key the run lacks).
void ShardCopy::fold_run_facts(int64_t shard_run_id, int64_t out_run_id) {
  auto earlier =
      out_.prepare("UPDATE run_table SET created_at = ?2 WHERE run_id = ?1 AND created_at > ?2");
  earlier.bind(1, out_run_id).bind(2, shard_run(shard_run_id).created_at);
  earlier.run();
  const nlohmann::json have = read_run_bundle(out_, out_run_id);
  const nlohmann::json part = read_run_bundle(shard_, shard_run_id);
  nlohmann::json missing = nlohmann::json::object();
  for (const auto& [key, value] : part.items())
    if (!have.contains(key)) missing[key] = value;
  if (!missing.empty()) merge_declared_bundle(out_, out_run_id, missing);
}

int64_t ShardCopy::copy_table(const TablePlan& plan, const std::string& select_sql,
                              BatchInsert& insert) {
  auto rows = shard_.prepare(select_sql);
  int64_t copied = 0;
  while (rows.step()) {
    if (!kept(rows, plan)) continue;
    append_row(rows, plan, insert);
    ++copied;
  }
  insert.flush();
  return copied;
}

// A row is copied when its source is new, and its module or group was copied with it.
bool ShardCopy::kept(const Statement& row, const TablePlan& plan) const {
  for (size_t i = 0; i < plan.roles.size(); ++i) {
    const int col = static_cast<int>(i);
    const Role role = plan.roles[i];
    if ((role == Role::kSource && !sources_.find(row.int64(col))) ||
        (role == Role::kModule && !modules_.find(row.int64(col))) ||
        (role == Role::kGroup && !groups_.find(row.int64(col))))
      return false;
  }
  return true;
}

void ShardCopy::append_row(const Statement& row, const TablePlan& plan, BatchInsert& insert) {
  for (size_t i = 0; i < plan.roles.size(); ++i) {
    const int col = static_cast<int>(i);
    const bool null = row.is_null(col);
    switch (plan.roles[i]) {
      case Role::kRowId:
        break;
      case Role::kRun:
        insert.val(mapped(runs_, row, col, plan));
        break;
      case Role::kSource:
        insert.val(mapped(sources_, row, col, plan));
        break;
      case Role::kModule:
        insert.val(mapped(modules_, row, col, plan));
        break;
      case Role::kGroup:
        insert.val(mapped(groups_, row, col, plan));
        break;
      case Role::kNewModule:
        insert.val(modules_.assign(row.int64(col)));
        break;
      case Role::kNewGroup:
        insert.val(groups_.assign(row.int64(col)));
        break;
      case Role::kString:
        null ? insert.null() : insert.val(string_id(row.int64(col)));
        break;
      case Role::kCopy:
        switch (row.value_type(col)) {
          case SQLITE_NULL:
            insert.null();
            break;
          case SQLITE_INTEGER:
            insert.val(row.int64(col));
            break;
          case SQLITE_FLOAT:
            insert.val(row.real(col));
            break;
          default:
            insert.val(row.str(col));
        }
    }
  }
}

// The output id of a row's reference; kept() has checked all but the run, which a row shares
// with its source unless the shard is damaged.
int64_t ShardCopy::mapped(const IdMap& ids, const Statement& row, int col,
                          const TablePlan& plan) const {
  if (auto id = ids.find(row.int64(col))) return *id;
  throw Error(fmt::format("shard {} is damaged: a row of {} has {} {}, which its source does not",
                          path_, plan.table, plan.columns[col], row.int64(col)));
}

// The output's id of the text a shard string id names (interned there on first use).
int64_t ShardCopy::string_id(int64_t shard_sid) {
  if (auto it = string_ids_.find(shard_sid); it != string_ids_.end()) return it->second;
  shard_text_.bind(1, shard_sid);
  if (!shard_text_.step()) {
    shard_text_.reset();
    throw Error(
        fmt::format("shard {} is damaged: string id {} is used but not in its strings table", path_,
                    shard_sid));
  }
  const int64_t id = strings_.id(shard_text_.text(0));
  shard_text_.reset();
  return string_ids_[shard_sid] = id;
}

}  // namespace

// A raw table as a merge copies it: its plan, the query of a shard's rows and the output's
// inserter, made once for all shards (preparing a 64-row insert per table and shard took most of
// the time of merging 128 small shards).
struct StoreMerger::TableCopy {
  TableCopy(Database& out, TablePlan table_plan)
      : plan(std::move(table_plan)),
        select_sql(select_of(plan)),
        insert(out, plan.table, written_columns(plan), nullptr, rows_per_statement(plan.table)) {}

  static std::string select_of(const TablePlan& plan) {
    std::string columns;
    for (const std::string& c : plan.columns)
      columns += fmt::format("{}\"{}\"", columns.empty() ? "" : ", ", c);
    return fmt::format("SELECT {} FROM \"{}\" ORDER BY rowid", columns, plan.table);
  }
  static std::vector<std::string> written_columns(const TablePlan& plan) {
    std::vector<std::string> written;
    for (size_t i = 0; i < plan.columns.size(); ++i)
      if (plan.roles[i] != Role::kRowId) written.push_back(plan.columns[i]);
    return written;
  }

  TablePlan plan;
  std::string select_sql;
  BatchInsert insert;
};

StoreMerger::StoreMerger(Database& out, FilePrefixHashes file)
    : out_(out), file_(std::move(file)), strings_(std::make_unique<StringInterner>(out)) {}
bool merge_copies_rows(const std::string& table) {
  // Where a source's read stopped (source_resume) names execution group ids and row counts of
  // the shard: a merged source is read again whole when its log grows (docs/merge.md).
  return table != "schema_info" && table != "strings" && table != "run_table" &&
         table != "source_resume";
}

StoreMerger::~StoreMerger() = default;

ShardMergeResult StoreMerger::merge(Database& shard, const std::string& shard_path) {
  ShardMergeResult result;
  result.shard_path = shard_path;
  ShardCopy copy(out_, *strings_, shard, shard_path, file_);
  copy.decide_sources(result, touched_runs_);
  if (result.sources_added == 0) return result;
  if (tables_.empty())
    for (const std::string& table : raw_tables())
      if (merge_copies_rows(table))
        tables_.push_back(std::make_unique<TableCopy>(out_, plan_table(out_, table)));
  for (auto& table : tables_)
    result.rows_copied += copy.copy_table(table->plan, table->select_sql, table->insert);
  return result;
}

}  // namespace rcf::store
